//! A folder of generated files kept in step with what `generate`, `docs` or `cassettes`
//! make: what writing them would change (files added, changed, and stale files of the
//! folders the generator owns), written, or only reported for `--check`.

use covenant_codegen::emit::Files;
use std::path::{Path, PathBuf};

/// What writing `files` into a folder would change.
pub struct Plan {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

impl Plan {
    /// Files in `managed` folders of `out` that `files` does not hold are stale.
    pub fn new(out: &Path, files: &Files, managed: &[&str]) -> std::io::Result<Plan> {
        let mut plan = Plan {
            added: Vec::new(),
            changed: Vec::new(),
            removed: Vec::new(),
        };
        for (path, content) in files {
            match std::fs::read(out.join(path)) {
                Ok(existing) if existing == content.as_bytes() => {}
                Ok(_) => plan.changed.push(path.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => plan.added.push(path.clone()),
                Err(e) => return Err(e),
            }
        }
        for dir in managed {
            for path in files_under(&out.join(dir))? {
                let relative = path
                    .strip_prefix(out)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                if !files.contains_key(&relative) {
                    plan.removed.push(relative);
                }
            }
        }
        plan.removed.sort();
        Ok(plan)
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    /// How many files writing the plan writes.
    pub fn written(&self) -> usize {
        self.added.len() + self.changed.len()
    }

    /// Each path the plan touches with what is wrong with it now (`missing`, `differs`,
    /// `extra`), in path order.
    pub fn describe(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        out.extend(self.added.iter().map(|p| (p.as_str(), "missing")));
        out.extend(self.changed.iter().map(|p| (p.as_str(), "differs")));
        out.extend(self.removed.iter().map(|p| (p.as_str(), "extra")));
        out.sort();
        out
    }

    /// Writes the added and changed files and removes the stale ones.
    pub fn apply(&self, out: &Path, files: &Files) -> std::io::Result<()> {
        for path in self.added.iter().chain(&self.changed) {
            let target = out.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(target, &files[path])?;
        }
        for path in &self.removed {
            std::fs::remove_file(out.join(path))?;
        }
        Ok(())
    }
}

/// Every file below `dir`, recursively; none when it does not exist; `dir` itself when it is
/// a file.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(out);
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(files_under(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_adds_changes_and_removes_only_in_managed_folders() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir_all(out.join("src")).unwrap();
        std::fs::write(out.join("src/kept.rs"), "same").unwrap();
        std::fs::write(out.join("src/old.rs"), "old").unwrap();
        std::fs::write(out.join("src/stale.rs"), "gone").unwrap();
        std::fs::write(out.join("notes.md"), "the author's").unwrap();
        let files: Files = [
            ("src/kept.rs", "same"),
            ("src/old.rs", "new"),
            ("src/new.rs", "n"),
        ]
        .into_iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect();
        let plan = Plan::new(out, &files, &["src"]).unwrap();
        assert_eq!(
            plan.describe(),
            [
                ("src/new.rs", "missing"),
                ("src/old.rs", "differs"),
                ("src/stale.rs", "extra")
            ]
        );
        plan.apply(out, &files).unwrap();
        assert!(Plan::new(out, &files, &["src"]).unwrap().is_empty());
        assert!(
            out.join("notes.md").exists(),
            "a file outside the managed folders stays"
        );
    }
}
