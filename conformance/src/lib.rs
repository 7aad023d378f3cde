//! The conformance runner: replays recorded scenarios (cassettes) against any implementation
//! of a covenant spec over HTTP, checks every response against the spec's JSON Schemas and
//! the cassette's expectations, and reports the results. It knows nothing of any particular
//! service: the spec, the cassettes and the expected-failure list say everything.

pub mod body;
pub mod cassette;
pub mod changes;
pub mod contract;
pub mod events;
pub mod exec;
pub mod generate;
pub mod judge;
pub mod known_failures;
pub mod located;
pub mod matcher;
pub mod outcome;
pub mod plan;
pub mod progress;
pub mod record;
pub mod report;
pub mod runner;
pub mod secrets;
pub mod select;
pub mod session;
pub mod shown;
pub mod snapshot;
pub mod suggest;
pub mod target;
pub mod template;
pub mod transcript;
pub mod verdict;

pub use cassette::{Cassette, CassetteError};
pub use contract::Contract;
pub use outcome::Report;
pub use runner::RunSettings;
pub use target::Target;
