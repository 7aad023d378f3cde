//! A server started inside this process: the one way the toolkit's commands, benches and
//! tests serve a router on a local port, through the hardened transport.

use super::transport::{self, Transport};
use std::io;
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running server: its address, and a handle that stops it. Dropping it stops it too.
#[derive(Debug)]
pub struct Spawned {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<io::Result<()>>>,
}

/// Serves `router` on `listener` with `transport`'s limits until the handle is shut down or
/// dropped.
pub fn spawn_on(
    listener: TcpListener,
    router: axum::Router,
    transport: Transport,
) -> io::Result<Spawned> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    // A stop sent stops it; a sender dropped unsent (a detached server) never does.
    let stopped = async {
        if stopped.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let task = tokio::spawn(transport::serve(listener, router, transport, stopped));
    Ok(Spawned {
        addr,
        stop: Some(stop),
        task: Some(task),
    })
}

/// Serves `router` on a free loopback port with the default transport limits.
pub async fn spawn(router: axum::Router) -> io::Result<Spawned> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    spawn_on(listener, router, Transport::default())
}

impl Spawned {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://` and the address: the base URL clients call.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Keeps the server running until the async runtime ends, without a handle: for tests
    /// that serve for their whole length. Answers its base URL.
    pub fn detach(mut self) -> String {
        // Dropped unsent: the server never hears a stop.
        drop(self.stop.take());
        self.url()
    }

    /// Stops accepting, lets requests in flight finish, and waits until the server is down.
    pub async fn shutdown(mut self) -> io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
