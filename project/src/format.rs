//! `fmt` on files: the spec files a list of paths names, each put in the canonical layout
//! (written in place, atomically) or compared with it, with a unified diff of the change.

use covenant_codegen::SourceFile;
use covenant_codegen::format::format_source;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A spec text in its canonical layout, and how the text given differs from it.
pub struct Formatted {
    pub text: String,
    /// A unified diff from the text given to `text`; `None` when they are the same.
    pub diff: Option<String>,
}

/// Why a file was not formatted.
#[derive(Debug)]
pub enum FormatError {
    /// It could not be read or written.
    Io(String),
    /// It does not parse: its diagnostics, rendered.
    Invalid(String),
}

/// The canonical layout of `text`, a spec named `name` (in diagnostics and the diff).
pub fn format_text(name: &str, text: String) -> Result<Formatted, FormatError> {
    let file = SourceFile::new(name, text);
    let formatted = format_source(&file).map_err(|d| FormatError::Invalid(d.render(&file)))?;
    let diff = (formatted != file.text).then(|| {
        similar::TextDiff::from_lines(&file.text, &formatted)
            .unified_diff()
            .context_radius(2)
            .header(name, &format!("{name} (formatted)"))
            .to_string()
    });
    Ok(Formatted {
        text: formatted,
        diff,
    })
}

/// Formats the file at `path`, writing it when `write` and it changed.
pub fn format_file(path: &Path, write: bool) -> Result<Formatted, FormatError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| FormatError::Io(format!("cannot read {}: {e}", path.display())))?;
    let formatted = format_text(&path.display().to_string(), text)?;
    if write && formatted.diff.is_some() {
        write_in_place(path, &formatted.text)
            .map_err(|e| FormatError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(formatted)
}

/// Replaces the file by renaming a sibling over it, so a crash leaves the old text or the
/// new, never half of one; the file keeps its permissions.
fn write_in_place(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(path)?.permissions();
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(text.as_bytes())?;
    temporary.as_file().sync_all()?;
    temporary.as_file().set_permissions(permissions)?;
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The files named, with folders searched (recursively, in name order) for `*.covenant`;
/// none named: the project's spec.
pub fn spec_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let named = if paths.is_empty() {
        vec![crate::config::resolve(None)?]
    } else {
        paths.to_vec()
    };
    let mut out = Vec::new();
    for path in named {
        if path.is_dir() {
            let before = out.len();
            collect(&path, &mut out)?;
            if out.len() == before {
                return Err(format!("no *.covenant files in {}", path.display()));
            }
        } else if path.exists() {
            out.push(path);
        } else {
            return Err(format!("no spec at {}", path.display()));
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "covenant") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_file_is_rewritten_in_place_keeping_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.covenant");
        std::fs::write(&path, "service S {\n}\nmodel   A {\n  id: string\n}\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let checked = format_file(&path, false).unwrap();
        assert!(checked.diff.is_some_and(|d| d.contains("-model   A {")));
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("model   A")
        );
        format_file(&path, true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), checked.text);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(format_file(&path, false).unwrap().diff.is_none());
    }

    #[test]
    fn a_folder_is_searched_in_name_order_and_an_empty_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("b")).unwrap();
        std::fs::write(dir.path().join("b/z.covenant"), "").unwrap();
        std::fs::write(dir.path().join("a.covenant"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        let found = spec_files(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap())
            .collect();
        assert_eq!(names, [Path::new("a.covenant"), Path::new("b/z.covenant")]);
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let refused = spec_files(&[dir.path().join("empty")]).unwrap_err();
        assert!(refused.contains("no *.covenant files"), "{refused}");
    }
}
