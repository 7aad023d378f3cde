//! One module per subcommand.

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

/// Listens on `address`; answers the listener and the URL it is reached at (`http://…`, the
/// port the system chose when asked for 0).
pub async fn listen(
    address: std::net::SocketAddr,
) -> Result<(tokio::net::TcpListener, String), String> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    Ok((listener, format!("http://{bound}")))
}

/// Ctrl-C or SIGTERM: stop accepting, finish requests in flight, then return.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => drop(signal.recv().await),
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
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
