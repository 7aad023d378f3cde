//! The plan of a run: every cassette read once into typed form, checked against the spec
//! before anything is sent. Each exchange's endpoint is resolved to its route, its templates
//! are split into pieces, its matchers hold their compiled patterns and its captures their
//! parsed JSON paths. The checker and the runner share it: what the check accepts is what
//! runs, and nothing is parsed again while a run goes.

mod compile;
pub mod expected;

pub use compile::{check_all, compile, compile_all};

use crate::cassette::Cassette;
use crate::contract::Route;
use crate::template::text::{Text, Tree};
use expected::Expected;
use std::collections::HashSet;

/// A scenario ready to run.
#[derive(Clone, Debug)]
pub struct ScenarioPlan {
    /// The file it was read from, kept to name it and to locate failures.
    pub cassette: Cassette,
    /// `let` values, in the order they are fixed.
    pub lets: Vec<(String, Tree)>,
    /// Headers of every request unless an exchange sets them itself.
    pub headers: Vec<(String, Text)>,
    pub exchanges: Vec<ExchangePlan>,
}

impl ScenarioPlan {
    pub fn id(&self) -> &str {
        &self.cassette.scenario.id
    }
}

impl AsRef<Cassette> for ScenarioPlan {
    fn as_ref(&self) -> &Cassette {
        &self.cassette
    }
}

/// One request to send and what its response must be.
#[derive(Clone, Debug)]
pub struct ExchangePlan {
    /// Its id, or its 1-based position.
    pub label: String,
    pub route: &'static Route,
    /// The path after the base; each value filled in is one encoded segment.
    pub path: Text,
    /// Query parameters in the order written; a list value repeats the parameter.
    pub query: Vec<(String, Tree)>,
    /// The scenario's headers, then the exchange's own, one per name.
    pub headers: Vec<(String, Text)>,
    pub body: Option<Tree>,
    pub raw_body: Option<Text>,
    /// Strings the request writes as they are: a value here was never a secret of the run,
    /// so a deliberately wrong key stays readable in reports.
    pub literals: HashSet<String>,
    pub expect: ExpectPlan,
    pub captures: Vec<(String, CapturePlan)>,
    /// Events the exchange causes, awaited in order after its response.
    pub events: Vec<EventPlan>,
    /// Parts of the response body the transcript shows as their shape.
    pub volatile: Vec<serde_json_path::JsonPath>,
    /// How long the response may take, when the cassette says.
    pub timeout: Option<std::time::Duration>,
}

/// An event to await at the run's webhook receiver.
#[derive(Clone, Debug)]
pub struct EventPlan {
    /// The event type, references filled in when awaited.
    pub event_type: Text,
    pub within: std::time::Duration,
    /// What the envelope must match.
    pub expected: Option<Expected>,
    /// Captures from the envelope, by JSON path.
    pub captures: Vec<(String, CapturePlan)>,
    /// Parts of the envelope the transcript shows as their shape.
    pub volatile: Vec<serde_json_path::JsonPath>,
    /// No such delivery may arrive within the time.
    pub none: bool,
}

/// The longest an event or a response may be awaited: a run that waits longer is waiting
/// for nothing.
pub const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// How long an event is awaited when the cassette does not say.
pub const DEFAULT_EVENT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl ScenarioPlan {
    /// Whether any exchange awaits an event, which needs a webhook receiver.
    pub fn awaits_events(&self) -> bool {
        self.exchanges.iter().any(|e| !e.events.is_empty())
    }
}

/// What the response must be, beyond what the spec says.
#[derive(Clone, Debug)]
pub struct ExpectPlan {
    pub status: u16,
    /// Header expectations by name as written (compared without regard to case).
    pub headers: Vec<(String, Expected)>,
    pub body: Option<Expected>,
}

/// Where a captured value is taken from.
#[derive(Clone, Debug)]
pub enum CapturePlan {
    Body {
        path: serde_json_path::JsonPath,
        written: String,
    },
    Header(String),
}

impl CapturePlan {
    /// How a failure names where the value was looked for.
    pub fn place(&self) -> String {
        match self {
            CapturePlan::Body { written, .. } => written.clone(),
            CapturePlan::Header(name) => format!("header {name}"),
        }
    }
}
