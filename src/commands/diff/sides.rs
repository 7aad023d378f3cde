//! Reading the two versions a diff compares: spec files, or a spec as it is at a git ref.

use super::{DiffArgs, Stop};
use covenant_codegen::SourceFile;
use covenant_codegen::diff::Version;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The old and new versions the arguments name.
pub fn read(args: &DiffArgs) -> Result<(Version, Version), Stop> {
    match (&args.against, &args.old, &args.new) {
        (Some(reference), new, None) => {
            let path = super::super::project::resolve(new.as_deref().map(Path::new))
                .map_err(Stop::Usage)?;
            let new = from_file(&path)?;
            let old = at_ref(reference, &path, Absent::New)?;
            Ok((old, new))
        }
        (None, Some(old), Some(new)) => Ok((named(old)?, named(new)?)),
        _ => Err(Stop::Usage(
            "name two specs (`diff OLD NEW`) or a git ref to compare with (`diff --against main`)"
                .into(),
        )),
    }
}

/// A file, or `REF:PATH` when no file has that name.
fn named(name: &str) -> Result<Version, Stop> {
    if !Path::new(name).exists()
        && let Some((reference, path)) = name.split_once(':')
    {
        return at_ref(reference, Path::new(path), Absent::Refused);
    }
    from_file(Path::new(name))
}

pub fn from_file(path: &Path) -> Result<Version, Stop> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Stop::Usage(format!("cannot read {}: {e}", path.display())))?;
    check(SourceFile::new(path.display().to_string(), text))
}

/// What a spec missing at the git ref read means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// The spec is new since the ref: compared as an empty spec (`--against`).
    New,
    /// An error: the file was named as it is at the ref (`REF:PATH`).
    Refused,
}

/// The spec at `path` as it is at a git ref, named `REF:path/from/the/repository/root`.
pub fn at_ref(reference: &str, path: &Path, absent: Absent) -> Result<Version, Stop> {
    if reference.is_empty() || reference.starts_with('-') {
        return Err(Stop::Usage(format!("`{reference}` is no git ref")));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Stop::Usage(format!("{} names no file", path.display())))?
        .to_string_lossy()
        .into_owned();
    let prefix = git(&dir, &["rev-parse", "--show-prefix"])?;
    let commit = format!("{reference}^{{commit}}");
    if git(&dir, &["rev-parse", "--quiet", "--verify", &commit]).is_err() {
        return Err(Stop::Usage(format!(
            "`{reference}` names no commit of this repository"
        )));
    }
    let label = format!("{reference}:{}{name}", prefix.trim());
    let object = format!("{reference}:./{name}");
    if git(&dir, &["cat-file", "-e", &object]).is_err() {
        if absent == Absent::Refused {
            return Err(Stop::Usage(format!("{label} does not exist")));
        }
        let mut empty = check(SourceFile::new(label, String::new()))?;
        empty.absent = true;
        return Ok(empty);
    }
    let text = git(&dir, &["show", &object])?;
    check(SourceFile::new(label, text))
}

/// Runs git in `dir`; its output, or what it said went wrong.
fn git(dir: &Path, args: &[&str]) -> Result<String, Stop> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| Stop::Usage(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(Stop::Usage(format!(
            "git {}: {}",
            args.join(" "),
            said.trim()
        )));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| Stop::Usage(format!("git {}: the file is not UTF-8", args.join(" "))))
}

fn check(file: SourceFile) -> Result<Version, Stop> {
    let checked = covenant_codegen::check_source(&file);
    match checked.spec {
        Some(spec) => Ok(Version {
            spec,
            file,
            absent: false,
        }),
        None => Err(Stop::Invalid(checked.diagnostics.render(&file))),
    }
}

/// A `YYYY-MM-DD` date, as given.
pub fn date(text: &str) -> Result<String, String> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|d| d.to_string())
        .map_err(|_| format!("`{text}` is no date: write YYYY-MM-DD"))
}
