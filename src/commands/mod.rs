//! One module per subcommand.

use std::process::ExitCode;

pub mod cassettes;
pub mod check;
pub mod conform;
pub mod diff;
pub mod docs;
pub mod fmt;
pub mod generate;
pub mod import;
mod limits;
pub mod mock;
mod output;
mod project;
pub mod record;
#[cfg(feature = "reference")]
pub mod serve;

/// Exit status for a usage or I/O error, as documented in `--help`.
pub const EXIT_USAGE: u8 = 2;
/// Exit status for an invalid spec.
pub const EXIT_INVALID: u8 = 1;

pub use covenant_runtime::server::{listen, shutdown_signal};

/// Runs a server's work to its end on a new async runtime, answering its exit status.
pub fn run_server(work: impl std::future::Future<Output = Result<(), String>>) -> ExitCode {
    init_logging();
    let outcome = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
        .and_then(|runtime| runtime.block_on(work));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
