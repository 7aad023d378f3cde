//! Writing a tree of generated files into a folder, or checking that it is up to date:
//! shared by `generate` and `cassettes`.

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

    pub fn describe(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        out.extend(self.added.iter().map(|p| (p.as_str(), "missing")));
        out.extend(self.changed.iter().map(|p| (p.as_str(), "differs")));
        out.extend(self.removed.iter().map(|p| (p.as_str(), "extra")));
        out.sort();
        out
    }

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

/// Every file below `dir`, recursively; none when it does not exist.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
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
