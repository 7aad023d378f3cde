//! Cassettes: one JSON file per recorded scenario, read into typed form with every error
//! located at `file:line:col`. The format is documented in the crate's README.

pub mod credentials;
pub mod locate;

use locate::Step;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The suite replayed when no cassettes are named.
pub const DEFAULT_SUITE: &str = "conformance/suite";

/// A recorded scenario: exchanges replayed in order against one implementation.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Where the behaviour the scenario asserts comes from, when its expectations go beyond
    /// the spec: `document`, `deployed_client` or `toolkit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Values fixed once per run of the scenario, by name; templates may use generators.
    #[serde(default, rename = "let", skip_serializing_if = "Map::is_empty")]
    pub lets: Map<String, Value>,
    /// Headers sent with every request of the scenario unless an exchange overrides them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    pub exchanges: Vec<Exchange>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// A name unique in the scenario; the exchange's 1-based position when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The spec's name of the endpoint the request calls.
    pub endpoint: String,
    pub request: Request,
    pub expect: Expect,
    /// Values taken from the response for later requests and expectations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capture: BTreeMap<String, Capture>,
    /// Events the exchange causes, each awaited at the run's webhook receiver before the
    /// next exchange is sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventExpect>,
    /// JSON paths of the response body whose values differ from run to run (data the target
    /// generates): the transcript shows each as its shape, so its snapshot stays stable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volatile: Vec<String>,
    /// How long this response may take (`30s`), for an endpoint that holds its answer by
    /// design; the run's `--timeout` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
}

/// An event a webhook delivery must bring within a time: "within 10 s,
/// `order.created` for `{{order_id}}`".
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventExpect {
    /// The event type the delivery names; references are filled in.
    pub event_type: String,
    /// How long to wait, as `10s`, `2m`; 10 seconds when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    /// What the delivered envelope must match, as a response body's expectation does; the
    /// first delivery of the type that matches (and no other expectation took) is the one.
    #[serde(
        default,
        rename = "match",
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub matches: Option<Value>,
    /// Values taken from the envelope by JSON path (`$.data.provider.slug`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capture: BTreeMap<String, String>,
    /// JSON paths of the envelope shown as their shape in the transcript, as an exchange's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volatile: Vec<String>,
    /// No delivery of the type (matching `match`, when given) may arrive `within` the
    /// time: the run waits it out, and one that arrives fails the exchange.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub none: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Checked against the endpoint's method; the endpoint's method when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The path after the API's base, placeholders filled in (`/v2/user/{{user_id}}`).
    pub path: String,
    /// Query parameters: a string, or a list of strings for a repeated parameter.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub query: Map<String, Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// A JSON body.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub body: Option<Value>,
    /// A body sent byte for byte, for requests that are not JSON or not well-formed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_body: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub status: u16,
    /// Response headers by name (case-insensitive): a string or a matcher.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, Value>,
    /// The body: plain JSON values match exactly, objects match the keys they list, and
    /// `{"$match": …}` objects are matchers. No check beyond the schema when absent.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub body: Option<Value>,
}

/// Where a captured value comes from: a JSON path into the body (`$.user_id`) or a header.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Capture {
    Body(String),
    Header { header: String },
}

/// Keeps an explicit `null` apart from an absent key.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Exchange {
    /// The exchange's name in reports: its id, or its 1-based position.
    pub fn label(&self, index: usize) -> String {
        self.id.clone().unwrap_or_else(|| (index + 1).to_string())
    }
}

/// A scenario with the file it came from, kept to locate later errors.
#[derive(Clone, Debug)]
pub struct Cassette {
    pub scenario: Scenario,
    pub file: PathBuf,
    pub text: String,
}

impl AsRef<Cassette> for Cassette {
    fn as_ref(&self) -> &Cassette {
        self
    }
}

impl Cassette {
    /// An error located at the value `steps` leads to.
    pub fn error_at(&self, steps: &[Step], message: impl Into<String>) -> CassetteError {
        let at = locate::position(&self.text, steps);
        CassetteError {
            file: self.file.clone(),
            line: at.line,
            col: at.col,
            message: message.into(),
        }
    }
}

/// A cassette that cannot be replayed, and where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CassetteError {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for CassetteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

/// Reads one cassette file.
pub fn read(file: &Path) -> Result<Cassette, CassetteError> {
    let text = std::fs::read_to_string(file).map_err(|e| CassetteError {
        file: file.to_path_buf(),
        line: 1,
        col: 1,
        message: format!("cannot read: {e}"),
    })?;
    parse(file, text)
}

/// Parses a cassette's text; `file` names it in errors.
pub fn parse(file: &Path, text: String) -> Result<Cassette, CassetteError> {
    match serde_json::from_str::<Scenario>(&text) {
        Ok(scenario) => Ok(Cassette {
            scenario,
            file: file.to_path_buf(),
            text,
        }),
        Err(e) => Err(CassetteError {
            file: file.to_path_buf(),
            line: e.line().max(1),
            col: e.column().max(1),
            message: explain(&strip_location(&e.to_string())),
        }),
    }
}

/// serde's message in a cassette writer's terms: the closest known key for a misspelt one,
/// and what a capture may be instead of "no variant of untagged enum".
fn explain(message: &str) -> String {
    if message.contains("untagged enum Capture") {
        return "a capture is a JSON path into the body (`\"$.user_id\"`) or `{\"header\": \"NAME\"}`"
            .into();
    }
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((unknown, expected)) = rest.split_once("`, expected ") else {
        return message.to_string();
    };
    let known: Vec<&str> = expected
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, name)| name)
        .collect();
    match crate::suggest::closest(unknown, known, crate::suggest::Likeness::Loose) {
        Some(k) => format!("{message}; did you mean `{k}`?"),
        None => message.to_string(),
    }
}

/// serde_json appends " at line L column C"; the error already says where.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Every cassette file under the given files and folders (`*.json`, recursively, in path
/// order), or the errors of those that do not read.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<Cassette>, Vec<CassetteError>> {
    let (cassettes, errors) = read_each(paths);
    if errors.is_empty() {
        Ok(cassettes)
    } else {
        Err(errors)
    }
}

/// Every cassette that reads, and the errors of every one that does not, so a broken file
/// hides nothing wrong with the others.
pub fn read_each(paths: &[PathBuf]) -> (Vec<Cassette>, Vec<CassetteError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect_json_files(path, &mut files, &mut errors);
        } else if path.exists() {
            files.push(path.clone());
        } else {
            errors.push(CassetteError {
                file: path.clone(),
                line: 1,
                col: 1,
                message: "no such file or folder".into(),
            });
        }
    }
    files.sort();
    files.dedup();
    let mut cassettes = Vec::new();
    for file in files {
        match read(&file) {
            Ok(c) => cassettes.push(c),
            Err(e) => errors.push(e),
        }
    }
    errors.extend(duplicate_ids(&cassettes));
    errors.sort();
    (cassettes, errors)
}

fn collect_json_files(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<CassetteError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(CassetteError {
                file: dir.to_path_buf(),
                line: 1,
                col: 1,
                message: format!("cannot read the folder: {e}"),
            });
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_json_files(&path, files, errors);
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
}

fn duplicate_ids(cassettes: &[Cassette]) -> Vec<CassetteError> {
    let mut first: BTreeMap<&str, &Path> = BTreeMap::new();
    let mut errors = Vec::new();
    for c in cassettes {
        let id = c.scenario.id.as_str();
        if let Some(earlier) = first.get(id) {
            errors.push(c.error_at(
                &["id".into()],
                format!("scenario id `{id}` is also the id of {}", earlier.display()),
            ));
        } else {
            first.insert(id, &c.file);
        }
    }
    errors
}
