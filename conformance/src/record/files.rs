//! Where a recording goes: a cassette's name, checked to be one file name in the output
//! folder, and a HAR file turned into a cassette file there.

use super::{Recorder, Summary, cassette_text, har, write_cassette};
use crate::contract::Contract;
use std::path::{Path, PathBuf};

/// A cassette name is one file name in the output folder: letters, digits, `-`, `_` and
/// `.`, not starting with a dot, so `--name ../..` cannot write elsewhere.
pub fn checked_name(name: &str) -> Result<&str, String> {
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if name.is_empty() || !plain || name.starts_with('.') {
        return Err(format!(
            "--name `{name}`: a cassette name is one file name (letters, digits, -, _ and ., not starting with .)"
        ));
    }
    Ok(name)
}

/// What a HAR file is recorded as.
pub struct HarRecording<'a> {
    pub har_file: &'a Path,
    /// The path the API's base URL has in the HAR's URLs (`/api` of `https://host/api`).
    pub base_path: &'a str,
    /// The cassette's name; the HAR file's by default.
    pub name: Option<&'a str>,
    /// The folder the cassette is written to.
    pub out: &'a Path,
    /// Values written as `{{credentials.KEY}}` references, by key.
    pub secrets: Vec<(String, String)>,
}

/// Writes the HAR file's exchanges as the cassette `recorded/NAME`: the file written and
/// what was written, left out and warned of.
pub fn record_har(
    contract: &Contract,
    recording: HarRecording<'_>,
) -> Result<(PathBuf, Summary), String> {
    let har_file = recording.har_file;
    let text = std::fs::read_to_string(har_file)
        .map_err(|e| format!("cannot read {}: {e}", har_file.display()))?;
    let recorded =
        har::read(&text, recording.base_path).map_err(|e| format!("{}:{e}", har_file.display()))?;
    let name = match recording.name {
        Some(name) => name.to_string(),
        None => har_file.file_stem().map_or("session".into(), |s| {
            crate::outcome::file_stem(&s.to_string_lossy())
        }),
    };
    let recorder = Recorder::new(contract, recording.secrets);
    let title = format!(
        "Recorded from {}",
        har_file
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned())
    );
    let (scenario, warnings) = recorder.scenario(&format!("recorded/{name}"), &title, &recorded);
    let out = recording.out.join(format!("{name}.json"));
    write_cassette(&out, &cassette_text(&scenario))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let summary = Summary::of(recorded.len(), &scenario, warnings);
    Ok((out, summary))
}

#[cfg(test)]
mod tests {
    use super::checked_name;

    #[test]
    fn a_cassette_name_cannot_leave_its_folder() {
        assert_eq!(checked_name("session-2.v1"), Ok("session-2.v1"));
        for refused in ["", "../x", ".hidden", "a/b", "a b"] {
            assert!(checked_name(refused).is_err(), "{refused}");
        }
    }
}
