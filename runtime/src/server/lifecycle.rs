//! A server process's start and end: a listener with the address it is reached at, and the
//! signal to stop (Ctrl-C or SIGTERM) that [`super::transport::serve`] drains on.

use tokio::net::TcpListener;

/// Listens on `address`; answers the listener and the URL it is reached at (`http://…`, the
/// port the system chose when asked for 0).
pub async fn listen(address: std::net::SocketAddr) -> Result<(TcpListener, String), String> {
    let listener = TcpListener::bind(address)
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
