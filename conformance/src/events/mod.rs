//! Receiving a target's events: a webhook receiver the run listens with, subscribed through
//! the spec's `@registers_webhooks` endpoint when it has one (or configured by hand), whose
//! deliveries are checked (signature, envelope and payload against the event schemas) and
//! awaited by the exchanges that cause them.

mod hub;
mod receiver;
mod subscribe;

pub use hub::{Arrived, EventHub, MAX_DELIVERIES, MAX_KEPT_BYTES, TIMESTAMP_TOLERANCE};
pub use receiver::{DELIVERY_READ_TIMEOUT, MAX_DELIVERY_BYTES, Receiver};
pub use subscribe::{Subscription, registration, subscribe};

use crate::contract::Contract;
use crate::exec;
use crate::outcome::Report;
use crate::target::Target;
use crate::template::Credentials;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The environment variable holding the secret deliveries are signed with, for a target
/// configured by hand (the spec subscribes no receiver, or the run is told not to).
pub const SECRET_VARIABLE: &str = "COVENANT_WEBHOOK_SECRET";

/// A run's receiver and its subscription.
pub struct Session {
    pub hub: Arc<EventHub>,
    receiver: Receiver,
    subscription: Option<Subscription>,
    /// How the target learnt of the receiver, for the report.
    how: String,
}

/// Where to listen and what the target is told.
pub struct Listen {
    pub addr: SocketAddr,
    /// The address the target reaches the receiver at, when not the one listened on.
    pub public_url: Option<String>,
    /// A secret for deliveries signed by a target configured by hand.
    pub secret: Option<String>,
}

impl Session {
    /// Starts the receiver and subscribes it through the spec's endpoint when there is one;
    /// otherwise the returned session's [`Session::instructions`] say what to configure.
    pub async fn open(
        contract: Arc<Contract>,
        listen: Listen,
        target: &Target,
        credentials: &Credentials,
    ) -> Result<Session, String> {
        let hub = Arc::new(EventHub::new(contract.clone()));
        if let Some(secret) = &listen.secret {
            hub.add_secret(secret)
                .map_err(|e| format!("{SECRET_VARIABLE}: {e}"))?;
        }
        let receiver = Receiver::start(hub.clone(), listen.addr, listen.public_url)
            .await
            .map_err(|e| format!("cannot listen for webhooks on {}: {e}", listen.addr))?;
        hub.listening_at(&receiver.url);
        let (subscription, how) = match registration(&contract) {
            Some(found) => {
                let sub = subscribe(
                    &contract,
                    found,
                    target,
                    credentials,
                    &client(),
                    &receiver.url,
                    &limits(0),
                )
                .await?;
                if let Some(secret) = &sub.secret
                    && let Err(e) = hub.add_secret(secret)
                {
                    let _ = sub.remove(&client(), &limits(2)).await;
                    return Err(format!("the secret `{}` answered: {e}", sub.endpoint));
                }
                let how = format!("subscribed through `{}`", sub.endpoint);
                (Some(sub), how)
            }
            None => (None, "configured by hand".to_string()),
        };
        hub.ready();
        Ok(Session {
            hub,
            receiver,
            subscription,
            how,
        })
    }

    /// Where deliveries go.
    pub fn url(&self) -> &str {
        &self.receiver.url
    }

    /// The secret of the subscription, which the run treats as a credential (never shown).
    pub fn secret(&self) -> Option<&str> {
        self.subscription.as_ref()?.secret.as_deref()
    }

    /// What to configure on the target, when the run could not subscribe by itself.
    pub fn instructions(&self) -> Option<String> {
        self.subscription.is_none().then(|| {
            format!(
                "the spec names no endpoint that subscribes a receiver: configure {} as the target's webhook endpoint (and its signing secret in {SECRET_VARIABLE})",
                self.receiver.url
            )
        })
    }

    /// Waits `settle` for stragglers, removes the subscription and stops listening; puts what
    /// arrived in `report` (its `events` and `coverage.events`), and answers a problem
    /// removing the subscription if there was one.
    pub async fn close(self, settle: Duration, report: &mut Report) -> Option<String> {
        tokio::time::sleep(settle).await;
        let problem = match &self.subscription {
            Some(sub) => sub.remove(&client(), &limits(2)).await.err(),
            None => None,
        };
        report.coverage.events = self.hub.counts();
        report.events = Some(self.hub.report(&self.receiver.url, &self.how));
        problem
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

/// A subscription is no idempotent call: it is sent once (`retries` 0), lest a broken
/// connection after the target committed leave a second one behind.
fn limits(retries: u32) -> exec::Limits {
    exec::Limits {
        timeout: Duration::from_secs(10),
        retries,
        max_body: 1024 * 1024,
    }
}
