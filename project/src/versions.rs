//! The versions of a spec a diff compares: a spec file, or a spec as it is at a git ref
//! (`REF:PATH`, or the project's spec at `--against REF`), each read and checked.

use covenant_codegen::SourceFile;
use covenant_codegen::diff::{Options, Version};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a version could not be had.
#[derive(Debug)]
pub enum VersionError {
    /// A file or ref that cannot be read, or a name that is no ref: a usage error.
    Usage(String),
    /// A spec that does not check, its diagnostics rendered.
    Invalid(String),
}

/// A file, or `REF:PATH` when no file has that name.
pub fn named(name: &str) -> Result<Version, VersionError> {
    if !Path::new(name).exists()
        && let Some((reference, path)) = name.split_once(':')
    {
        return at_ref(reference, Path::new(path), Absent::Refused);
    }
    from_file(Path::new(name))
}

pub fn from_file(path: &Path) -> Result<Version, VersionError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| VersionError::Usage(format!("cannot read {}: {e}", path.display())))?;
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
pub fn at_ref(reference: &str, path: &Path, absent: Absent) -> Result<Version, VersionError> {
    if reference.is_empty() || reference.starts_with('-') {
        return Err(VersionError::Usage(format!("`{reference}` is no git ref")));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| VersionError::Usage(format!("{} names no file", path.display())))?
        .to_string_lossy()
        .into_owned();
    let prefix = git(&dir, &["rev-parse", "--show-prefix"])?;
    let commit = format!("{reference}^{{commit}}");
    if git(&dir, &["rev-parse", "--quiet", "--verify", &commit]).is_err() {
        return Err(VersionError::Usage(format!(
            "`{reference}` names no commit of this repository"
        )));
    }
    let label = format!("{reference}:{}{name}", prefix.trim());
    let object = format!("{reference}:./{name}");
    if git(&dir, &["cat-file", "-e", &object]).is_err() {
        if absent == Absent::Refused {
            return Err(VersionError::Usage(format!("{label} does not exist")));
        }
        let mut empty = check(SourceFile::new(label, String::new()))?;
        empty.absent = true;
        return Ok(empty);
    }
    let text = git(&dir, &["show", &object])?;
    check(SourceFile::new(label, text))
}

/// Runs git in `dir`; its output, or what it said went wrong.
fn git(dir: &Path, args: &[&str]) -> Result<String, VersionError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| VersionError::Usage(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(VersionError::Usage(format!(
            "git {}: {}",
            args.join(" "),
            said.trim()
        )));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| VersionError::Usage(format!("git {}: the file is not UTF-8", args.join(" "))))
}

/// A version from text in hand (an editor's unsaved buffer), checked.
pub fn from_text(file: SourceFile) -> Result<Version, VersionError> {
    check(file)
}

fn check(file: SourceFile) -> Result<Version, VersionError> {
    let checked = covenant_codegen::check_source(&file);
    match checked.spec {
        Some(spec) => Ok(Version {
            spec,
            file,
            absent: false,
        }),
        None => Err(VersionError::Invalid(checked.diagnostics.render(&file))),
    }
}

/// The spec at `path` as it was at `reference` and the endpoints and events every change
/// since then touches, as `diff` judges them (sunsets judged today); `None` when the spec
/// did not exist then. What `conform --changed-since` selects scenarios by.
pub fn changes_since(
    reference: &str,
    path: &Path,
) -> Result<Option<(covenant_codegen::Spec, BTreeSet<String>)>, VersionError> {
    let new = from_file(path)?;
    let old = at_ref(reference, path, Absent::New)?;
    if old.absent {
        return Ok(None);
    }
    let today = chrono::Utc::now().date_naive().to_string();
    let touched = covenant_codegen::diff::diff(old.side(), new.side(), &Options { today })
        .into_iter()
        .flat_map(|finding| finding.carriers)
        .collect();
    Ok(Some((old.spec, touched)))
}
