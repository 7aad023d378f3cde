//! What the corpus's socket tests share.

use covenant_runtime::server::axum;

/// Serves a router on a fresh local port; answers its address.
pub async fn serve(router: axum::Router) -> String {
    let spawned = covenant_runtime::server::spawn(router).await;
    spawned.expect("serve on loopback").detach()
}
