//! Subscribing the run's receiver through the endpoint the spec marks
//! `@registers_webhooks`, and removing the subscription when the run ends.

use crate::contract::{Contract, Route};
use crate::exec::{self, Outgoing};
use crate::target::Target;
use crate::template::Credentials;
use covenant_codegen::ir::{Endpoint, WebhookRegistration};
use covenant_runtime::contract::{Scheme, TemplateValue};
use serde_json::{Value, json};

/// A subscription the run made.
pub struct Subscription {
    /// The endpoint it was made through.
    pub endpoint: String,
    /// The secret deliveries are signed with, when the answer gives one.
    pub secret: Option<String>,
    /// The request that removes it, when the spec says how.
    removal: Option<Outgoing>,
}

/// The endpoint of the spec that subscribes a receiver, with how.
pub fn registration(contract: &Contract) -> Option<(&Endpoint, &WebhookRegistration)> {
    contract
        .spec
        .endpoints
        .iter()
        .find_map(|ep| ep.registers_webhooks.as_ref().map(|r| (ep, r)))
}

/// Answers a subscription may be sent again after: the target says it did not take the
/// request (503, 429), so a second one does not subscribe twice.
const NOT_TAKEN: [u16; 2] = [429, 503];
/// Tries of a subscription answered [`NOT_TAKEN`], and the longest wait between two.
const SUBSCRIBE_TRIES: u32 = 4;
const LONGEST_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Sends the subscription, again (after `Retry-After`, at most [`LONGEST_WAIT`]) while the
/// target answers that it did not take it: 503 or 429 with `Retry-After`.
async fn send_until_taken(
    client: &reqwest::Client,
    request: &Outgoing,
    limits: &exec::Limits,
) -> Result<exec::Incoming, exec::TransportError> {
    let mut tries = 1;
    loop {
        let answer = exec::send(client, request, limits).await?;
        // A 503 without `Retry-After` may be a gateway's, not the target's own refusal.
        let wait = answer
            .header("retry-after")
            .and_then(|seconds| seconds.trim().parse::<u64>().ok())
            .map(std::time::Duration::from_secs);
        let Some(wait) = wait.filter(|_| NOT_TAKEN.contains(&answer.status)) else {
            return Ok(answer);
        };
        if tries >= SUBSCRIBE_TRIES {
            return Ok(answer);
        }
        tokio::time::sleep(wait.min(LONGEST_WAIT)).await;
        tries += 1;
    }
}

/// Subscribes `url` through `ep`, authenticated with the run's credentials.
pub async fn subscribe(
    contract: &Contract,
    (ep, how): (&Endpoint, &WebhookRegistration),
    target: &Target,
    credentials: &Credentials,
    client: &reqwest::Client,
    url: &str,
    limits: &exec::Limits,
) -> Result<Subscription, String> {
    let route = contract
        .route(&ep.name)
        .ok_or_else(|| format!("the spec has no endpoint `{}`", ep.name))?;
    let body = json!({ how.url.as_str(): url });
    // The registering endpoint takes no path parameter (lowering sees to it).
    let path = route.path.fill(|_| None).map_err(|e| e.to_string())?;
    let request = authenticated(
        route,
        &path,
        target,
        credentials,
        Some(serde_json::to_vec(&body).unwrap_or_default()),
    )?;
    let answer = send_until_taken(client, &request, limits)
        .await
        .map_err(|e| format!("subscribing through `{}`: {e}", ep.name))?;
    if !(200..300).contains(&answer.status) {
        return Err(format!(
            "subscribing through `{}` was answered {}: {}",
            ep.name,
            answer.status,
            String::from_utf8_lossy(&answer.body[..answer.body.len().min(300)])
        ));
    }
    let answer: Value = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("the answer of `{}` is no JSON: {e}", ep.name))?;
    let at = |path: &Option<Vec<String>>| -> Option<String> {
        let mut value = &answer;
        for step in path.as_ref()? {
            value = value.get(step)?;
        }
        value.as_str().map(String::from)
    };
    // The removal first: a subscription made is removed even when its answer is wanting.
    let removal = match (how.remove, at(&how.id)) {
        (Some(remove), Some(id)) => {
            let remove = contract.spec.endpoint(remove);
            let route = contract
                .route(&remove.name)
                .ok_or_else(|| format!("the spec has no endpoint `{}`", remove.name))?;
            let path = route
                .path
                .fill(|_| Some(TemplateValue::Text(id.as_str().into())))
                .map_err(|e| format!("the id `{}` answered: {e}", ep.name))?;
            Some(authenticated(route, &path, target, credentials, None)?)
        }
        _ => None,
    };
    let secret = at(&how.secret);
    if how.secret.is_some() && secret.is_none() {
        if let Some(request) = &removal {
            let _ = exec::send(client, request, limits).await;
        }
        return Err(format!(
            "the answer of `{}` has no secret at `{}`",
            ep.name,
            how.secret.as_deref().unwrap_or_default().join(".")
        ));
    }
    Ok(Subscription {
        endpoint: ep.name.clone(),
        secret,
        removal,
    })
}

impl Subscription {
    /// Removes the subscription; a failure is told, not fatal: the run is judged already.
    pub async fn remove(
        &self,
        client: &reqwest::Client,
        limits: &exec::Limits,
    ) -> Result<(), String> {
        let Some(request) = &self.removal else {
            return Ok(());
        };
        match exec::send(client, request, limits).await {
            Ok(answer) if (200..300).contains(&answer.status) => Ok(()),
            Ok(answer) => Err(format!(
                "removing the subscription was answered {}",
                answer.status
            )),
            Err(e) => Err(format!("removing the subscription: {e}")),
        }
    }
}

/// A request to `route` at `path`, carrying the credential of one of its auth schemes.
fn authenticated(
    route: &Route,
    path: &str,
    target: &Target,
    credentials: &Credentials,
    body: Option<Vec<u8>>,
) -> Result<Outgoing, String> {
    let mut url = format!("{}{path}", target.resolve(route)?);
    let mut headers = Vec::new();
    if body.is_some() {
        headers.push(("content-type".to_string(), "application/json".to_string()));
    }
    let mut carried = route.auth_any_of.is_empty();
    for scheme in route.auth_any_of {
        let Some(credential) = credentials.get(scheme.name()) else {
            continue;
        };
        let carrier = scheme.carrier();
        if let Some((name, value)) = carrier.header_value(credential) {
            headers.push((name.to_string(), value));
        } else if let covenant_runtime::contract::Carrier::Query(name) = carrier {
            let pair = form_urlencoded::Serializer::new(String::new())
                .append_pair(name, credential)
                .finish();
            url = format!("{url}?{pair}");
        } else {
            use base64::Engine;
            let encoded = base64::engine::general_purpose::STANDARD.encode(credential);
            headers.push(("Authorization".to_string(), format!("Basic {encoded}")));
        }
        carried = true;
        break;
    }
    if !carried {
        let names: Vec<&str> = route.auth_any_of.iter().map(|s| s.name()).collect();
        return Err(format!(
            "`{}` needs the credential of {}: give it in --credentials",
            route.name,
            names.join(" or ")
        ));
    }
    for scheme in route.auth_all_of {
        let credential = credentials.get(scheme.name()).ok_or_else(|| {
            format!(
                "`{}` needs the credential of {} as well: give it in --credentials",
                route.name,
                scheme.name()
            )
        })?;
        match scheme.carrier().header_value(credential) {
            Some((name, value)) => headers.push((name.to_string(), value)),
            None => {
                let place = scheme.carrier().describe();
                return Err(format!(
                    "`{}` sends {place}, which a subscription cannot carry",
                    route.name
                ));
            }
        }
    }
    Ok(Outgoing {
        method: route.method.as_str().to_string(),
        url,
        headers,
        body,
    })
}
