//! The two versions the arguments of a diff name.

use super::DiffArgs;
use covenant_codegen::diff::Version;
use covenant_project::versions::{Absent, VersionError, at_ref, from_file, named};
use std::path::Path;

/// The old and new versions the arguments name.
pub fn read(args: &DiffArgs) -> Result<(Version, Version), VersionError> {
    match (&args.against, &args.old, &args.new) {
        (Some(reference), new, None) => {
            let path = super::super::project::resolve(new.as_deref().map(Path::new))
                .map_err(VersionError::Usage)?;
            let new = from_file(&path)?;
            let old = at_ref(reference, &path, Absent::New)?;
            Ok((old, new))
        }
        (None, Some(old), Some(new)) => Ok((named(old)?, named(new)?)),
        _ => Err(VersionError::Usage(
            "name two specs (`diff OLD NEW`) or a git ref to compare with (`diff --against main`)"
                .into(),
        )),
    }
}

/// A `YYYY-MM-DD` date, as given.
pub fn date(text: &str) -> Result<String, String> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|d| d.to_string())
        .map_err(|_| format!("`{text}` is no date: write YYYY-MM-DD"))
}
