//! `covenant mock [SPEC]`: any spec served at once as a real process on a real socket. For
//! the service spec it must agree with `serve --mock` (the generated router and mock) on
//! every conformance scenario; for other specs it serves and rejects as they say.

use crate::common;

use common::{Served, call_with, credentials, scratch_dir, spawn_printing_url};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn covenant() -> Command {
    Command::new(env!("CARGO_BIN_EXE_covenant"))
}

/// Starts `covenant mock SPEC` with its credentials in `dir`.
fn mock(spec: &str, dir: &Path) -> Served {
    let mut command = covenant();
    command
        .args(["mock", spec, "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir);
    let (child, base_url) = spawn_printing_url(command, "serving ");
    Served { child, base_url }
}

/// Runs the suite against `target`; answers each scenario's id, verdict and exchanges
/// (label, status, verdict and failures), which must not depend on which mock answered.
fn conform(target: &str, credentials: &Path, report_dir: &Path) -> Vec<Value> {
    let status = covenant()
        .args(["conform", "--target", target, "--credentials"])
        .arg(credentials)
        .arg("--report-dir")
        .arg(report_dir)
        .output()
        .expect("run conform");
    assert_eq!(
        status.status.code(),
        Some(1),
        "a mock stores nothing, so the behavioural scenarios fail: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(report_dir.join("report.json")).unwrap()).unwrap();
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            let exchanges: Vec<Value> = s["exchanges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let failures = without_expected(&e["failures"]);
                    serde_json::json!([e["label"], e["status"], e["verdict"], failures])
                })
                .collect();
            serde_json::json!([s["id"], s["verdict"], exchanges])
        })
        .collect()
}

/// A failure without what the scenario expected, which holds values fresh to each run:
/// what the server answered (`actual`) is what must agree.
fn without_expected(failures: &Value) -> Value {
    let mut failures = failures.clone();
    for failure in failures.as_array_mut().into_iter().flatten() {
        if let Some(fields) = failure.as_object_mut() {
            fields.remove("expected");
        }
    }
    failures
}

#[test]
fn the_spec_mock_agrees_with_the_generated_mock_on_every_scenario() {
    let scratch = scratch_dir("mock-agrees");
    let dir = scratch.path();
    let generated = common::serve(dir, &["--mock"]);
    let by_generated = conform(
        &generated.base_url,
        &dir.join("credentials.json"),
        &dir.join("r1"),
    );
    drop(generated);
    // The same data folder: the spec mock keeps the keys `serve --mock` wrote.
    let from_spec = mock("spec/health.covenant", dir);
    let by_spec = conform(
        &from_spec.base_url,
        &dir.join("credentials.json"),
        &dir.join("r2"),
    );
    assert_eq!(by_generated.len(), by_spec.len());
    assert!(by_generated.len() > 100, "the whole suite ran");
    for (generated, spec) in by_generated.iter().zip(&by_spec) {
        assert_eq!(generated, spec);
    }
}

/// `covenant mock` on a fresh data folder writes every credential the project's cassettes
/// ask for (`org_id`, `team_id`, of the type the spec gives those parameters), so the
/// suite can be sent to it at once: no cassette error, every scenario judged.
#[test]
fn the_spec_mock_writes_every_credential_the_cassettes_ask_for() {
    let scratch = scratch_dir("mock-credentials");
    let dir = scratch.path();
    let served = mock("spec/health.covenant", dir);
    let written = credentials(dir);
    for name in ["org_id", "team_id"] {
        let value = written[name].as_str().unwrap_or_default();
        assert!(
            uuid::Uuid::parse_str(value).is_ok(),
            "{name} is a uuid, as the spec's parameter: {written:#}"
        );
    }
    let scenarios = conform(
        &served.base_url,
        &dir.join("credentials.json"),
        &dir.join("r"),
    );
    assert!(scenarios.len() > 100, "the whole suite was judged");
}

#[test]
fn the_bookshop_mock_serves_and_rejects_as_its_spec_says() {
    let scratch = scratch_dir("mock-bookshop");
    let dir = scratch.path();
    let served = mock("spec/examples/bookshop.covenant", dir);
    let creds = credentials(dir);
    assert_eq!(creds["base_url"], Value::String(served.base_url.clone()));
    assert_eq!(creds["shop_url"], Value::String(served.base_url.clone()));
    let key = creds["shop_key"]
        .as_str()
        .expect("a key for the spec's scheme");
    let base = &served.base_url;
    let auth = [("Authorization", key)];

    let (status, body) = call_with(base, "GET", "/v1/health", &[], None);
    assert_eq!((status, &body), (200, &serde_json::json!({"ok": true})));
    let (status, body) = call_with(base, "GET", "/v1/books", &auth, None);
    assert_eq!(status, 200, "{body}");
    assert!(body["books"].is_array(), "{body}");
    let (status, _) = call_with(base, "GET", "/v1/books", &[], None);
    assert_eq!(status, 401);
    let (status, _) = call_with(base, "GET", "/v1/books", &[("Authorization", "nope")], None);
    assert_eq!(status, 401);
    let (status, body) = call_with(base, "GET", "/v1/books?per_page=500&page=x", &auth, None);
    assert_eq!(status, 422);
    let locs: Vec<&Value> = body["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["loc"])
        .collect();
    assert_eq!(
        locs,
        [
            &serde_json::json!(["query", "page"]),
            &serde_json::json!(["query", "per_page"])
        ]
    );
    let (status, body) = call_with(base, "POST", "/v1/books", &auth, Some(r#"{"title": 5}"#));
    assert_eq!(status, 422);
    assert!(
        body["detail"].as_array().unwrap().len() > 1,
        "every problem is named: {body}"
    );
    let (status, _) = call_with(base, "DELETE", "/v1/books", &auth, None);
    assert_eq!(status, 405);
    let (status, _) = call_with(base, "GET", "/v1/nothing", &auth, None);
    assert_eq!(status, 404);
}

#[test]
fn every_corpus_spec_is_served_with_a_key_per_scheme() {
    for spec in ["petstore", "github", "payments"] {
        let scratch = scratch_dir("mock-corpus");
        let dir = scratch.path();
        let path = format!("corpus/specs/{spec}.covenant");
        let served = mock(&path, dir);
        let creds = credentials(dir);
        let (file, checked) = covenant_codegen::check_path(Path::new(&path)).unwrap();
        let ir = checked
            .spec
            .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)));
        for scheme in ir.auth_schemes.iter().filter(|s| s.alias_of.is_none()) {
            assert!(creds[&scheme.name].is_string(), "{spec}: {}", scheme.name);
        }
        // An endpoint with a required credential refuses a request without one.
        let guarded = ir
            .endpoints
            .iter()
            .find(|ep| !ep.auth.public && ep.params.is_empty())
            .or_else(|| ir.endpoints.iter().find(|ep| !ep.auth.public));
        if let Some(ep) = guarded {
            let path = ep.path.replace(['{', '}'], "");
            let (status, body) = call_with(&served.base_url, ep.method.as_str(), &path, &[], None);
            assert_eq!(status, 401, "{spec} {}: {body}", ep.name);
        }
    }
}

#[test]
fn an_invalid_spec_is_refused_with_its_diagnostics() {
    let scratch = scratch_dir("mock-invalid");
    let spec = scratch.path().join("broken.covenant");
    std::fs::write(
        &spec,
        "service \"x\" {\n  version \"1\"\n}\nmodel A { b: Nope }\n",
    )
    .unwrap();
    let out = covenant()
        .args(["mock"])
        .arg(&spec)
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(scratch.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.covenant:"), "{stderr}");
}

#[test]
fn apis_whose_routes_collide_on_one_address_are_served_without_a_panic() {
    let scratch = scratch_dir("mock-collide");
    let spec = scratch.path().join("two_apis.covenant");
    std::fs::write(
        &spec,
        r#"service Two {
    title "Two apis, one path shape"
    version "1"
}
api a {
    base "https://a.example.test"
    versions "/items"
}
api b {
    base "https://b.example.test"
    versions "/items"
}
model Item {
    id: string
}
endpoint get_a: GET "/items/{id}" {
    public
    path id: string
    response 200: Item
}
endpoint get_b: GET "/items/{item_id}" {
    api b
    public
    path item_id: string
    response 200: Item
}
"#,
    )
    .unwrap();
    let mut command = covenant();
    command
        .arg("mock")
        .arg(&spec)
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(scratch.path());
    let (child, base_url) = spawn_printing_url(command, "serving ");
    let served = Served { child, base_url };
    let (status, body) = call_with(&served.base_url, "GET", "/items/7", &[], None);
    assert_eq!((status, &body["id"]), (200, &Value::String("text".into())));
}

/// The transport's own refusals (a head that is not HTTP) are written in the spec's
/// rejection shape too, as the router's are.
#[test]
fn the_transport_refuses_in_the_spec_rejection_shape() {
    use std::io::{Read, Write};
    let scratch = scratch_dir("mock-transport-shape");
    let served = mock("corpus/specs/payments.covenant", scratch.path());
    let address = served.base_url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"GET /v1/\x01\x02 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap_or_default())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"));
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}
