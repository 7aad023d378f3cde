//! Judging one response: the status, the spec's schema for the endpoint and the status
//! that came back (always), the `Content-Type` of a declared body, then the cassette's
//! header and body expectations. Each failure says where its rule comes from.

use crate::cassette::locate::Step;
use crate::contract::{Contract, Route};
use crate::exec::Incoming;
use crate::matcher::{self, Mismatch};
use crate::outcome::{Failure, FailureKind};
use crate::plan::ExchangePlan;
use crate::template::Scope;
use covenant_runtime::contract::BodyMedia;
use serde_json::Value;

/// Every failure of one response. `scenario_source` is where the scenario says its
/// expectations come from, when it says.
pub fn judge(
    contract: &Contract,
    exchange: &ExchangePlan,
    scenario_source: Option<&str>,
    incoming: &Incoming,
    body: Option<&Value>,
    scope: &Scope,
) -> Vec<Failure> {
    let route = &exchange.route;
    let mut failures = Vec::new();
    let expected = exchange.expect.status;
    let expected_source = route
        .response(expected)
        .map_or(route.provenance, |s| s.provenance)
        .word();
    if incoming.status != expected {
        failures.push(Failure {
            kind: FailureKind::Status,
            path: "status".into(),
            expected: expected.to_string(),
            actual: status_and_body(incoming),
            source: expected_source.into(),
            at: None,
            written: Vec::new(),
        });
    }
    match route.response(incoming.status) {
        None => failures.push(Failure {
            kind: FailureKind::Status,
            path: "status".into(),
            expected: format!(
                "a status `{}` declares ({})",
                route.name,
                route
                    .statuses
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            actual: incoming.status.to_string(),
            source: route.provenance.word().into(),
            at: None,
            written: Vec::new(),
        }),
        Some(declared) if declared.has_body => {
            let source = declared.provenance.word();
            let (problem, expected) = match &declared.media {
                BodyMedia::Raw(media) => (
                    raw_body_problem(incoming, media, body),
                    format!("a body sent as {media}"),
                ),
                BodyMedia::Stream(media) => (
                    stream_problem(incoming, media, body),
                    format!("a stream of JSON items sent as {media}"),
                ),
                _ => (
                    json_body_problem(incoming, body),
                    "a JSON body sent as application/json".to_string(),
                ),
            };
            if let Some(problem) = problem {
                failures.push(Failure {
                    kind: FailureKind::ContentType,
                    path: "body".into(),
                    expected,
                    actual: problem,
                    source: source.into(),
                    at: None,
                    written: Vec::new(),
                });
            } else if let (Some(body), Some(validator)) =
                (body, contract.validator(route.name, incoming.status))
            {
                schema_failures(
                    contract,
                    route,
                    incoming.status,
                    validator,
                    body,
                    &mut failures,
                );
            }
        }
        Some(_) => {}
    }
    if let Some(check) = contract.header_check(route.name, incoming.status) {
        header_failures(route, incoming, check, &mut failures);
    }
    for (name, want) in &exchange.expect.headers {
        let actual = incoming.header(name).map(|v| Value::String(v.to_string()));
        let mut mismatches = Vec::new();
        matcher::check(
            want,
            actual.as_ref(),
            &format!("header {name}"),
            scope,
            &mut mismatches,
        );
        let written = expect_steps(&["headers", name]);
        push_mismatches(
            &mut failures,
            FailureKind::Header,
            mismatches,
            &written,
            expected_source,
        );
    }
    if let Some(want) = &exchange.expect.body {
        let mut mismatches = Vec::new();
        match body {
            Some(actual) => matcher::check(want, Some(actual), "$", scope, &mut mismatches),
            None => mismatches.push(Mismatch {
                path: "$".into(),
                expected: crate::shown::show(&want.written()),
                actual: "no JSON body".into(),
                written: Vec::new(),
            }),
        }
        let source = scenario_source.unwrap_or(expected_source);
        let written = expect_steps(&["body"]);
        push_mismatches(
            &mut failures,
            FailureKind::Body,
            mismatches,
            &written,
            source,
        );
    }
    failures
}

/// The longest part of a body a status failure shows.
const SHOWN_BODY: usize = 400;

/// `422 with body {"detail": …}`: what a status mismatch needs to be understood, the body
/// cut to a readable length.
fn status_and_body(incoming: &Incoming) -> String {
    if incoming.body.is_empty() {
        return format!("{} with an empty body", incoming.status);
    }
    let head = &incoming.body[..incoming.body.len().min(SHOWN_BODY * 4)];
    let text = String::from_utf8_lossy(head);
    let text = text.trim();
    let mut shown: String = text.chars().take(SHOWN_BODY).collect();
    let complete = head.len() == incoming.body.len() && shown.len() == text.len();
    if !complete {
        shown.push_str(&format!("… ({} bytes in all)", incoming.body.len()));
    }
    format!("{} with body {shown}", incoming.status)
}

/// A media type without its parameters, in lower case.
fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Why a body the spec declares written as it is does not come as declared, if it does not:
/// another media type, or text that is no UTF-8.
fn raw_body_problem(incoming: &Incoming, declared: &str, body: Option<&Value>) -> Option<String> {
    other_media(incoming, declared).or_else(|| {
        body.is_none()
            .then(|| "a body that is not UTF-8 text".into())
    })
}

/// Why a streamed answer is not the stream declared, if it is not: another media type, or an
/// item that is no JSON (named by its place). `body` is the stream already read into its
/// items; it is read again only to name what broke it.
fn stream_problem(incoming: &Incoming, declared: &str, body: Option<&Value>) -> Option<String> {
    other_media(incoming, declared).or_else(|| {
        body.is_none()
            .then(|| covenant_runtime::streams::read_items(declared, &incoming.body).err())
            .flatten()
    })
}

/// The `Content-Type` received, when it is not the media type declared.
fn other_media(incoming: &Incoming, declared: &str) -> Option<String> {
    let content_type = incoming.header("content-type").unwrap_or("");
    (essence(content_type) != essence(declared)).then(|| {
        if content_type.is_empty() {
            "no Content-Type".into()
        } else {
            format!("Content-Type {content_type}")
        }
    })
}

/// Why a body the spec declares is not usable JSON, if it is not.
fn json_body_problem(incoming: &Incoming, body: Option<&Value>) -> Option<String> {
    let content_type = incoming.header("content-type").unwrap_or("");
    let media = essence(content_type);
    if incoming.body.is_empty() {
        return Some("an empty body".into());
    }
    if media != "application/json" && !media.ends_with("+json") {
        return Some(if content_type.is_empty() {
            "no Content-Type".into()
        } else {
            format!("Content-Type {content_type}")
        });
    }
    if body.is_none() {
        let text = String::from_utf8_lossy(&incoming.body);
        let cut: String = text.chars().take(120).collect();
        return Some(format!("a body that is not JSON: {cut}"));
    }
    None
}

fn schema_failures(
    contract: &Contract,
    route: &Route,
    status: u16,
    validator: &jsonschema::Validator,
    body: &Value,
    failures: &mut Vec<Failure>,
) {
    let mut errors = validator.iter_errors(body);
    for error in errors.by_ref().take(SCHEMA_FAILURES_LISTED) {
        let pointer = error.instance_path().as_str().to_string();
        failures.push(Failure {
            kind: FailureKind::Schema,
            path: json_path(&pointer),
            expected: format!(
                "the schema of {} {status} ({})",
                route.name,
                error.schema_path().as_str()
            ),
            actual: cut(&error.to_string(), SHOWN_BODY),
            source: contract
                .provenance_at(route.name, status, &pointer)
                .word()
                .into(),
            at: None,
            written: Vec::new(),
        });
    }
    let more = errors.count();
    if more > 0 {
        failures.push(Failure {
            kind: FailureKind::Schema,
            path: "$".into(),
            expected: format!("the schema of {} {status}", route.name),
            actual: format!("{more} more errors, not listed"),
            source: route.provenance.word().into(),
            at: None,
            written: Vec::new(),
        });
    }
}

/// The most schema errors one response lists: a hostile body can hold millions.
const SCHEMA_FAILURES_LISTED: usize = 20;

/// A text cut to `max` characters, saying how long it was.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()),
        None => text.to_string(),
    }
}

/// Each declared header missing or not of its declared type.
fn header_failures(
    route: &Route,
    incoming: &Incoming,
    check: &crate::contract::HeaderCheck,
    failures: &mut Vec<Failure>,
) {
    let source = route
        .response(incoming.status)
        .map_or(route.provenance, |s| s.provenance)
        .word();
    let headers = check.read(&incoming.headers);
    for error in check.validator.iter_errors(&headers) {
        let pointer = error.instance_path().as_str();
        let name = match pointer.strip_prefix('/') {
            Some(name) => name.replace("~1", "/").replace("~0", "~"),
            None => match error.kind() {
                jsonschema::error::ValidationErrorKind::Required { property } => {
                    property.as_str().unwrap_or_default().to_string()
                }
                _ => String::new(),
            },
        };
        failures.push(Failure {
            kind: FailureKind::Header,
            path: format!("header {name}"),
            expected: format!(
                "the headers {} {} declares ({})",
                route.name,
                incoming.status,
                error.schema_path().as_str()
            ),
            actual: error.to_string(),
            source: source.into(),
            at: None,
            written: Vec::new(),
        });
    }
}

/// `/data/0/name` → `$.data[0].name`.
fn json_path(pointer: &str) -> String {
    let mut out = "$".to_string();
    for step in pointer.split('/').skip(1) {
        let step = step.replace("~1", "/").replace("~0", "~");
        if step.parse::<usize>().is_ok() {
            out.push_str(&format!("[{step}]"));
        } else {
            out = matcher::child(&out, &step);
        }
    }
    out
}

/// `expect` and the steps after it, within an exchange.
fn expect_steps(rest: &[&str]) -> Vec<Step> {
    std::iter::once("expect")
        .chain(rest.iter().copied())
        .map(Step::from)
        .collect()
}

/// The mismatches of an expectation written at `root` (within the exchange), as failures
/// located where each failed expectation is written.
fn push_mismatches(
    failures: &mut Vec<Failure>,
    kind: FailureKind,
    mismatches: Vec<Mismatch>,
    root: &[Step],
    source: &str,
) {
    failures.extend(mismatches.into_iter().map(|m| {
        let written = root.iter().cloned().chain(m.written).collect();
        Failure::new(kind, &m.path, &m.expected, &m.actual, source).written_at(written)
    }));
}
