//! Starting the service: the database opened and set up on the first start, the keys
//! written to `credentials.json` (kept from an earlier start, so users keep theirs), and the
//! periodic recovery pass. `covenant serve` starts it so on a port of its own; [`start`]
//! starts it inside a process on a fresh embedded database, for a conformance run, a
//! benchmark or a test.

use crate::background::webhooks::targets::Targets;
use crate::domain::bootstrap::{Bootstrap, Outcome};
use crate::infra::store::Location;
use crate::{ReferenceServer, Settings};
use covenant_runtime::credentials::{CREDENTIALS_FILE, Credentials};
use covenant_runtime::server::transport::Transport;
use covenant_runtime::server::{Spawned, spawn_on};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The embedded database's file in a data folder.
pub const DATABASE_FILE: &str = "health.db";
/// How often interrupted work is resumed and users past their deletion grace period are
/// removed for good.
const RECOVER_EVERY: Duration = Duration::from_secs(3600);

/// An opened service and what its start found.
pub struct Opened {
    pub server: Arc<ReferenceServer>,
    /// The organization and team the first start created.
    pub org_id: String,
    pub team_id: String,
    /// What `credentials.json` now holds; `None` when the database was set up by an earlier
    /// start whose keys this data folder does not hold (they were shown then).
    pub credentials: Option<Credentials>,
    /// This start set the database up.
    pub created: bool,
    /// The keys were made by this start: they are shown once.
    pub new_keys: bool,
}

/// Opens the service on `database` for users at `base_url`, delivering webhooks to
/// `webhook_targets`: a database set up by an earlier start keeps its keys; an empty one is
/// set up, with the keys of `data_dir`'s earlier `credentials.json` when it has them.
/// Writes `data_dir/credentials.json`.
pub async fn open(
    database: Location,
    base_url: &str,
    data_dir: &Path,
    webhook_targets: Targets,
) -> Result<Opened, String> {
    let pace = (
        health_api::limits::WAIT_FOR_COMPLETION,
        crate::background::fetches::FIRST_RETRY,
    );
    open_with(database, base_url, data_dir, webhook_targets, pace).await
}

/// How long `wait_for_completion` waits in the in-process server of a conformance run ([`start`]),
/// rather than the document's 20 seconds: the throttling scenario checks that a pull the rate
/// holds back answers 202 with the progress made, which any wait shorter than the rate's
/// minute shows, so the run need not wait 20 seconds to show it.
pub const IN_PROCESS_BULK_WAIT: Duration = Duration::from_secs(2);
/// The wait after a provider's first temporary failure in that server, rather than 5 s: the
/// scenarios that meet one (a refresh, its events) see the retry succeed, only sooner.
pub const IN_PROCESS_FIRST_RETRY: Duration = Duration::from_millis(200);

/// [`open`], with `wait_for_completion` waiting `bulk_wait` and a first retry after
/// `first_retry`.
async fn open_with(
    database: Location,
    base_url: &str,
    data_dir: &Path,
    webhook_targets: Targets,
    (bulk_wait, first_retry): (Duration, Duration),
) -> Result<Opened, String> {
    covenant_runtime::credentials::private_folder(data_dir)
        .map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
    let mut settings = Settings::new(database, base_url);
    settings.webhook_targets = webhook_targets;
    settings.bulk_wait = bulk_wait;
    settings.first_retry = first_retry;
    let server = ReferenceServer::open(settings).await?;
    let earlier = Credentials::read_in(data_dir);
    let reuse = earlier.as_ref().and_then(Bootstrap::from_credentials);
    let reusing = reuse.is_some();
    let (org_id, team_id, credentials, created) = match server.bootstrap(reuse).await? {
        Outcome::Created(keys) => {
            let credentials = keys.credentials(base_url);
            (keys.org_id, keys.team_id, Some(credentials), true)
        }
        Outcome::Existing { org_id, team_id } => {
            // The earlier file, when it holds this database's keys.
            let credentials = earlier
                .filter(|c| c.get("org_id") == Some(org_id.as_str()))
                .filter(|c| Bootstrap::from_credentials(c).is_some())
                .map(|mut c| {
                    c.set("base_url", base_url);
                    c.set("management_url", base_url);
                    c
                });
            (org_id, team_id, credentials, false)
        }
    };
    let new_keys = created && !reusing;
    if let Some(credentials) = &credentials {
        credentials.write_in(data_dir).map_err(|e| {
            format!(
                "cannot write {}: {e}",
                data_dir.join(CREDENTIALS_FILE).display()
            )
        })?;
    }
    Ok(Opened {
        server,
        org_id,
        team_id,
        credentials,
        created,
        new_keys,
    })
}

/// Resumes interrupted work now and every hour, for as long as the runtime runs.
pub fn keep_recovering(server: Arc<ReferenceServer>) {
    tokio::spawn(async move {
        loop {
            if let Err(error) = server.recover().await {
                tracing::warn!(%error, "recovery pass failed; retrying later");
            }
            tokio::time::sleep(RECOVER_EVERY).await;
        }
    });
}

/// The service served inside this process on a fresh embedded database in a temporary
/// folder. [`InProcess::stop`] stops the server and closes the database; dropping it
/// removes the folder and asks the server to stop, without waiting.
pub struct InProcess {
    /// What a `credentials.json` of this server holds.
    pub credentials: Credentials,
    running: Option<(Spawned, Arc<ReferenceServer>)>,
    _workers: crate::Workers,
    _folder: tempfile::TempDir,
}

/// Starts the service on a loopback port, on a fresh SQLite database, with the default
/// limits. Its webhooks may go to loopback: the receiver of a run on this machine is there.
/// It is set up as `serve` sets up a fresh database (closed-beta features closed, no OAuth
/// applications), so a recording of a `serve` replays against it; the suite's scenarios
/// open what they need themselves.
pub async fn start() -> Result<InProcess, String> {
    let folder = tempfile::Builder::new()
        .prefix("health-server-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen on a loopback port: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let base_url = format!("http://{address}");
    let database = Location::Sqlite(folder.path().join(DATABASE_FILE));
    let opened = open_with(
        database,
        &base_url,
        folder.path(),
        Targets::AnyAddress,
        (IN_PROCESS_BULK_WAIT, IN_PROCESS_FIRST_RETRY),
    )
    .await?;
    let credentials = opened
        .credentials
        .ok_or("a fresh database was already set up")?;
    let router = crate::router(opened.server.clone());
    let workers = opened.server.start_workers();
    let spawned = spawn_on(listener, router, Transport::default())
        .map_err(|e| format!("cannot serve the reference server: {e}"))?;
    Ok(InProcess {
        credentials,
        running: Some((spawned, opened.server)),
        _workers: workers,
        _folder: folder,
    })
}

impl InProcess {
    /// The address it is reached at (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> &str {
        self.credentials.get("base_url").unwrap_or_default()
    }

    /// Stops the server once the requests in flight are done, then closes its database.
    pub async fn stop(mut self) {
        if let Some((spawned, server)) = self.running.take() {
            let _ = spawned.shutdown().await;
            server.store().close().await;
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        let Some((spawned, server)) = self.running.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = spawned.shutdown().await;
                server.store().close().await;
            });
        }
    }
}
