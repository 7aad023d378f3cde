//! The reference server started inside this process on a fresh embedded database in a
//! temporary folder, for `conform` and `record` runs that name no target. Dropping it stops
//! the server and removes the folder.

use covenant_runtime::server::transport::Transport;
use covenant_runtime::server::{Spawned, spawn_on};
use health_server::bootstrap::Outcome;
use health_server::store::Location;
use health_server::{ReferenceServer, Settings};
use std::collections::HashMap;

pub struct Started {
    /// What a `credentials.json` of this server would hold.
    pub credentials: HashMap<String, String>,
    /// Stops the server when dropped.
    server: Option<(Spawned, std::sync::Arc<ReferenceServer>)>,
    _folder: tempfile::TempDir,
}

impl Drop for Started {
    /// Stops the server, then closes its database once the requests in flight are done.
    fn drop(&mut self) {
        if let Some((spawned, server)) = self.server.take() {
            tokio::spawn(async move {
                let _ = spawned.shutdown().await;
                server.store().close().await;
            });
        }
    }
}

pub async fn start() -> Result<Started, String> {
    let folder = tempfile::Builder::new()
        .prefix("covenant-reference-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen on a loopback port: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let base_url = format!("http://{address}");
    let database = Location::Sqlite(folder.path().join("health.db"));
    let server = ReferenceServer::open(Settings::new(database, &base_url)).await?;
    let keys = match server.bootstrap(None).await? {
        Outcome::Created(keys) => keys,
        Outcome::Existing { .. } => return Err("a fresh database was already set up".into()),
    };
    let credentials = HashMap::from([
        ("base_url".to_string(), base_url.clone()),
        ("management_url".to_string(), base_url.clone()),
        ("org_id".to_string(), keys.org_id),
        ("team_id".to_string(), keys.team_id),
        ("team_api_key".to_string(), keys.team_api_key),
        ("management_key".to_string(), keys.management_key),
    ]);
    let router = health_server::router(server.clone());
    let spawned = spawn_on(listener, router, Transport::default())
        .map_err(|e| format!("cannot serve the reference server: {e}"))?;
    Ok(Started {
        credentials,
        server: Some((spawned, server)),
        _folder: folder,
    })
}
