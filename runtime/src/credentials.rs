//! `credentials.json`: where a served implementation is and the values to call it with (its
//! base URLs and keys). A server writes it when it starts; the conformance runner and the
//! recorder read it, and cassettes name its values as `{{credentials.KEY}}`. The file holds
//! secrets, so it is written whole or not at all and readable by its owner only.

use serde::ser::SerializeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file's name in a server's data folder.
pub const CREDENTIALS_FILE: &str = "credentials.json";

/// Named text values, in the order they were set: a JSON object of strings on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Credentials {
    values: Vec<(String, String)>,
}

impl Credentials {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`, in its place if it was set before, else last.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let (key, value) = (key.into(), value.into());
        match self.values.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.values.push((key, value)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Reads a credentials file: a JSON object whose string (or number) values are kept;
    /// other values are not credentials and are left out.
    pub fn read(path: &Path) -> Result<Credentials, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Credentials::parse(&text).map_err(|e| format!("{}:{e}", path.display()))
    }

    /// The credentials an earlier start wrote into `dir`, if it holds readable ones.
    pub fn read_in(dir: &Path) -> Option<Credentials> {
        Credentials::read(&dir.join(CREDENTIALS_FILE)).ok()
    }

    /// Parses a file's text; an error says `line:col: reason`.
    pub fn parse(text: &str) -> Result<Credentials, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
        let object = value
            .as_object()
            .ok_or_else(|| "1:1: expected a JSON object".to_string())?;
        Ok(object
            .iter()
            .filter_map(|(k, v)| match v {
                serde_json::Value::String(s) => Some((k.clone(), s.clone())),
                serde_json::Value::Number(n) => Some((k.clone(), n.to_string())),
                _ => None,
            })
            .collect())
    }

    /// Writes `dir/credentials.json`: whole or not at all (a reader never sees half of it),
    /// on disk before this returns (a crash right after loses nothing), and readable by its
    /// owner only (0600; a folder made for it is 0700), so no other local user reads the
    /// keys.
    pub fn write_in(&self, dir: &Path) -> std::io::Result<PathBuf> {
        private_folder(dir)?;
        let path = dir.join(CREDENTIALS_FILE);
        let partial = dir.join(format!("{CREDENTIALS_FILE}.partial"));
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        let _ = std::fs::remove_file(&partial);
        let mut file = owner_only().open(&partial)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&partial, &path)?;
        // The rename itself is on disk once the folder is.
        std::fs::File::open(dir)?.sync_all()?;
        Ok(path)
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Credentials {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut credentials = Credentials::default();
        for (key, value) in iter {
            credentials.set(key, value);
        }
        credentials
    }
}

impl serde::Serialize for Credentials {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.values.len()))?;
        for (key, value) in &self.values {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Creates `dir` (and its parents) if missing, the folder itself 0700: a data folder holds
/// keys and often a database.
pub fn private_folder(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Options that create a new file readable and writable by its owner only.
fn owner_only() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_round_trips_in_order_and_is_the_owners_alone() {
        let dir = std::env::temp_dir().join(format!("covenant-cred-{}", uuid::Uuid::new_v4()));
        let written: Credentials = [("base_url", "http://x"), ("key", "k1")]
            .into_iter()
            .collect();
        let path = written.write_in(&dir).unwrap();
        assert_eq!(Credentials::read(&path).unwrap(), written);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.find("base_url") < text.find("key"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn numbers_are_kept_as_text_and_other_values_left_out() {
        let read = Credentials::parse(r#"{"port": 8080, "nested": {}, "k": "v"}"#).unwrap();
        assert_eq!(read.get("port"), Some("8080"));
        assert_eq!(read.get("k"), Some("v"));
        assert!(!read.contains_key("nested"));
    }

    #[test]
    fn a_broken_file_is_named_with_its_line_and_column() {
        let error = Credentials::parse("{\n  \"k\": }").unwrap_err();
        assert!(error.starts_with("2:"), "{error}");
        assert!(
            Credentials::parse("[1]")
                .unwrap_err()
                .contains("JSON object")
        );
    }

    #[test]
    fn setting_a_key_again_keeps_its_place() {
        let mut c: Credentials = [("a", "1"), ("b", "2")].into_iter().collect();
        c.set("a", "3");
        assert_eq!(c.iter().collect::<Vec<_>>(), [("a", "3"), ("b", "2")]);
    }
}
