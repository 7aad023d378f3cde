//! Signed deliveries: a delivery of every event of the service spec, signed as the service
//! signs it, is read back by the generated `events::verify_delivery`; a changed body, an old
//! timestamp or another secret is refused. A public Standard Webhooks library (Python's
//! `standardwebhooks`, at `COVENANT_STANDARDWEBHOOKS_PYTHON`, which `.ci/run` installs)
//! verifies our signatures, and we verify its.

use covenant_codegen::ir::Spec;
use covenant_codegen::samples::Samples;
use covenant_runtime::http::{HeaderMap, HeaderName, HeaderValue};
use covenant_runtime::webhooks::{self, DeliveryError, WebhookError, WebhookSecret};
use health_api::events;
use serde_json::Value;

fn spec() -> Spec {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    covenant_codegen::load(&path).expect("the service spec")
}

/// A body per event of the spec, as its samples describe it.
fn deliveries(spec: &Spec) -> Vec<(String, Vec<u8>)> {
    let samples = Samples::new(spec);
    spec.events
        .iter()
        .map(|event| {
            let (_, body) = samples.event_delivery(event).expect("an envelope");
            (event.name.clone(), serde_json::to_vec(&body).unwrap())
        })
        .collect()
}

fn headers(signature: &webhooks::Signature) -> HeaderMap {
    signature
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                HeaderName::from_static(name),
                HeaderValue::from_str(value).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_event_signed_by_the_service_is_verified_and_read() {
    let spec = spec();
    let secret = WebhookSecret::generate();
    for (index, (name, body)) in deliveries(&spec).into_iter().enumerate() {
        let id = format!("msg_{index}");
        let signed = webhooks::sign(&[&secret], &id, webhooks::now(), &body);
        let (_, payload) = events::verify_delivery(&secret, &headers(&signed), &body)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(payload.name(), name);
    }
}

#[test]
fn a_changed_replayed_or_foreign_delivery_is_refused() {
    let spec = spec();
    let (_, body) = deliveries(&spec).remove(0);
    let secret = WebhookSecret::generate();
    let signed = headers(&webhooks::sign(&[&secret], "msg_1", webhooks::now(), &body));
    let refusal =
        |secret: &WebhookSecret, headers: &HeaderMap, body: &[u8]| match events::verify_delivery(
            secret, headers, body,
        ) {
            Err(DeliveryError::Signature(e)) => e,
            other => panic!("expected a signature refusal, got {other:?}"),
        };
    let mut changed = body.clone();
    changed.push(b' ');
    assert_eq!(
        refusal(&secret, &signed, &changed),
        WebhookError::NoMatchingSignature
    );
    let old = headers(&webhooks::sign(
        &[&secret],
        "msg_1",
        webhooks::now() - 3600,
        &body,
    ));
    assert_eq!(refusal(&secret, &old, &body), WebhookError::TooOld);
    assert_eq!(
        refusal(&WebhookSecret::generate(), &signed, &body),
        WebhookError::NoMatchingSignature
    );
    // A signed body that is no event of the spec is refused as such.
    let not_an_event = br#"{"event_type": "nothing.of.ours"}"#;
    let signed = headers(&webhooks::sign(
        &[&secret],
        "msg_2",
        webhooks::now(),
        not_an_event,
    ));
    assert!(matches!(
        events::verify_delivery(&secret, &signed, not_an_event),
        Err(DeliveryError::Event(_))
    ));
}

/// The Python interpreter with `standardwebhooks` installed; required when CI is set.
fn python() -> Option<String> {
    match std::env::var("COVENANT_STANDARDWEBHOOKS_PYTHON") {
        Ok(python) => Some(python),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!(
                "CI runs the public Standard Webhooks library: set COVENANT_STANDARDWEBHOOKS_PYTHON"
            )
        }
        Err(_) => None,
    }
}

/// Runs `script` with the library, `input` on its standard input; answers its output.
fn run_python(python: &str, script: &str, input: &Value) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start python");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(serde_json::to_string(input).unwrap().as_bytes())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const VERIFY: &str = r#"
import json, sys
from standardwebhooks.webhooks import Webhook
task = json.load(sys.stdin)
wh = Webhook(task["secret"])
for delivery in task["deliveries"]:
    wh.verify(delivery["body"], delivery["headers"])
print(len(task["deliveries"]))
"#;

const SIGN: &str = r#"
import json, sys, datetime
from standardwebhooks.webhooks import Webhook
task = json.load(sys.stdin)
wh = Webhook(task["secret"])
now = datetime.datetime.now(tz=datetime.timezone.utc)
print(wh.sign("msg_from_python", now, task["body"]) + " " + str(int(now.timestamp())))
"#;

#[test]
fn the_public_standard_webhooks_library_verifies_our_deliveries_and_we_verify_its() {
    let Some(python) = python() else {
        return;
    };
    let spec = spec();
    let secret = WebhookSecret::generate();
    let signed: Vec<Value> = deliveries(&spec)
        .into_iter()
        .enumerate()
        .map(|(index, (_, body))| {
            let signature =
                webhooks::sign(&[&secret], &format!("msg_{index}"), webhooks::now(), &body);
            let headers: serde_json::Map<String, Value> = signature
                .headers()
                .into_iter()
                .map(|(name, value)| (name.to_string(), Value::String(value)))
                .collect();
            serde_json::json!({"body": String::from_utf8(body).unwrap(), "headers": headers})
        })
        .collect();
    let count = signed.len();
    let task = serde_json::json!({"secret": secret.to_text(), "deliveries": signed});
    assert_eq!(run_python(&python, VERIFY, &task).trim(), count.to_string());

    let (_, body) = deliveries(&spec).remove(0);
    let text = String::from_utf8(body.clone()).unwrap();
    let task = serde_json::json!({"secret": secret.to_text(), "body": text});
    let answer = run_python(&python, SIGN, &task);
    let (signature, timestamp) = answer.trim().rsplit_once(' ').unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("webhook-id", HeaderValue::from_static("msg_from_python"));
    headers.insert(
        "webhook-timestamp",
        HeaderValue::from_str(timestamp).unwrap(),
    );
    headers.insert(
        "webhook-signature",
        HeaderValue::from_str(signature).unwrap(),
    );
    events::verify_delivery(&secret, &headers, &body).expect("the library's signature verifies");
}
