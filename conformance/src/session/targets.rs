//! Where a run sends its requests: the bases named on the command line or in the
//! credentials, checked against the spec's APIs, reached before any scenario, and the name
//! the implementation gives itself.

use crate::{Contract, Target, plan, suggest, template::Credentials};
use std::collections::BTreeMap;
use std::time::Duration;

use super::Stop;

/// Every API base by name: from `targets` (`URL` is `base_url`; `NAME=URL` names an API
/// or a base), else from the credentials' `*_url` values. A name that is neither an API nor
/// a base of the spec is an error, with the closest one.
pub fn target_of(
    contract: &Contract,
    targets: &[String],
    credentials: &Credentials,
) -> Result<Target, String> {
    let apis: Vec<(String, String)> = contract
        .spec
        .apis
        .iter()
        .map(|a| (a.name.clone(), a.base_name()))
        .collect();
    let mut bases: BTreeMap<String, String> = credentials
        .iter()
        .filter(|(k, _)| apis.iter().any(|(_, base)| base == k))
        .map(|(k, v)| (k.to_string(), v.trim_end_matches('/').to_string()))
        .collect();
    let mut given_main = false;
    for target in targets {
        let (name, url) = match named_target(target) {
            Some((name, url)) => {
                let base = apis
                    .iter()
                    .find(|(api, base)| api == name || base == name)
                    .map(|(_, base)| base.clone())
                    .ok_or_else(|| unknown_base(name, &apis))?;
                (base, url)
            }
            None if given_main => {
                return Err(format!(
                    "--target `{target}`: the main URL is given twice; name the others as NAME=URL"
                ));
            }
            None => {
                given_main = true;
                ("base_url".to_string(), target.as_str())
            }
        };
        reqwest::Url::parse(url).map_err(|e| format!("--target `{target}`: not a URL: {e}"))?;
        bases.insert(name, url.trim_end_matches('/').to_string());
    }
    Ok(Target { bases })
}

/// `NAME=URL`, where NAME is a word; a bare URL (which may hold `=` in its query) is not.
fn named_target(target: &str) -> Option<(&str, &str)> {
    let (name, url) = target.split_once('=')?;
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    word.then_some((name, url))
}

fn unknown_base(name: &str, apis: &[(String, String)]) -> String {
    let mut known: Vec<&str> = Vec::new();
    for name in apis
        .iter()
        .flat_map(|(api, base)| [api.as_str(), base.as_str()])
    {
        if !known.contains(&name) {
            known.push(name);
        }
    }
    let help = suggest::closest(name, known.iter().copied(), suggest::Likeness::Loose)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    format!(
        "--target `{name}=…`: the spec has no API or base `{name}` (known: {}){help}",
        known.join(", ")
    )
}

/// The name the target gives itself: the `Server` header of its answer to `GET /` on its
/// main base (any status); `None` when it sends none or does not answer in 5 s.
pub async fn identify(target: &Target) -> Option<String> {
    let base = target
        .bases
        .get("base_url")
        .or_else(|| target.bases.values().next())?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .ok()?;
    let answer = client.get(format!("{base}/")).send().await.ok()?;
    let server = answer
        .headers()
        .get(reqwest::header::SERVER)?
        .to_str()
        .ok()?;
    Some(server.to_string())
}

/// Exit 3 before any scenario when a base the selected scenarios use does not accept
/// connections; a usage error when one has no URL.
pub async fn check_reachable(selected: &[plan::ScenarioPlan], target: &Target) -> Result<(), Stop> {
    let mut bases: Vec<String> = Vec::new();
    for exchange in selected.iter().flat_map(|p| &p.exchanges) {
        bases.push(target.resolve(exchange.route).map_err(Stop::Usage)?);
    }
    bases.sort();
    bases.dedup();
    for base in bases {
        let url = reqwest::Url::parse(&base)
            .map_err(|e| Stop::Usage(format!("`{base}` is not a URL: {e}")))?;
        crate::runner::connect(&url, Duration::from_secs(5))
            .await
            .map_err(|e| Stop::Unreachable(format!("cannot reach {base}: {e}")))?;
    }
    Ok(())
}
