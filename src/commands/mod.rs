//! One module per subcommand.

pub mod cassettes;
pub mod check;
pub mod conform;
pub mod generate;
mod output;
pub mod record;
mod reference;
pub mod serve;

/// The spec `check` and friends read when given no path.
pub const DEFAULT_SPEC: &str = "spec/health.covenant";

/// Exit status for a usage or I/O error, as documented in `--help`.
pub const EXIT_USAGE: u8 = 2;
/// Exit status for an invalid spec.
pub const EXIT_INVALID: u8 = 1;
