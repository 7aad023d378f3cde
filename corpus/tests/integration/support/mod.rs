//! What the corpus's socket tests share.

use covenant_runtime::server::axum;

/// Serves a router on a fresh local port; answers its address.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}
