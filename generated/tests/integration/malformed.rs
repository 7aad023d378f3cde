//! Malformed-request tests derived from the spec, in the spirit of Smithy's: for every
//! constraint of every input of every endpoint, a request that breaks it alone gets a 422
//! whose `loc` names that input; a request breaking three gets all three.

use crate::support;

use covenant_codegen::ir::shapes::Shape;
use covenant_codegen::ir::*;
use covenant_codegen::samples::Samples;
use covenant_runtime::server;
use serde_json::{Value, json};

/// One input and a value that breaks exactly one of its constraints.
struct Violation {
    loc: Vec<Value>,
    place: Place,
    value: Value,
    what: String,
}

enum Place {
    Param(String),
    /// A path of keys and indexes inside the body.
    Body(Vec<Value>),
}

/// Violations of each field of a body model, and of the fields of models it holds (the
/// first item of a list of them), to a bounded depth: each value broken once, and each
/// required field left out. A form's fields are text, which has no types and no null.
#[allow(clippy::too_many_arguments)]
fn body_violations(
    spec: &Spec,
    samples: &Samples,
    id: ModelId,
    loc: &mut Vec<Value>,
    path: &mut Vec<Value>,
    depth: usize,
    as_text: bool,
    out: &mut Vec<Violation>,
) {
    for f in spec
        .model(id)
        .fields
        .iter()
        .filter(|f| covenant_codegen::ir::shapes::in_shape(f, Shape::Request))
    {
        loc.push(json!(f.name));
        path.push(json!(f.name));
        for (value, what) in samples.field_violations(f, Shape::Request) {
            if as_text && (what.contains("wrong type") || what == "null") {
                continue;
            }
            out.push(Violation {
                loc: loc.clone(),
                place: Place::Body(path.clone()),
                value,
                what,
            });
        }
        if !f.presence.may_be_absent() && f.default.is_none() {
            out.push(Violation {
                loc: loc.clone(),
                place: Place::Body(path.clone()),
                value: Value::Null,
                what: "absent".into(),
            });
        }
        if depth < 2 {
            match &f.ty {
                Type::Model(inner) => {
                    body_violations(spec, samples, *inner, loc, path, depth + 1, as_text, out)
                }
                Type::List(item, _) => {
                    if let Type::Model(inner) = &**item {
                        loc.push(json!(0));
                        path.push(json!(0));
                        body_violations(spec, samples, *inner, loc, path, depth + 1, as_text, out);
                        path.pop();
                        loc.pop();
                    }
                }
                _ => {}
            }
        }
        path.pop();
        loc.pop();
    }
}

/// Text-level violations of a parameter (a query string has no JSON types).
fn param_violations(spec: &Spec, f: &Field) -> Vec<(Value, String)> {
    let (inner, list) = match &f.ty {
        Type::List(inner, _) => (&**inner, true),
        t => (t, false),
    };
    let c = &f.constraints;
    let mut out: Vec<(Value, String)> = Vec::new();
    match inner {
        Type::Primitive(p) if p.is_numeric() => {
            out.push((json!("abc"), "not a number".into()));
            if *p == Primitive::Int {
                out.push((json!("1.5"), "a fraction".into()));
            }
            if let Some(min) = c.minimum {
                out.push((json!((min - 1.0).to_string()), format!("below {min}")));
            }
            if let Some(max) = c.maximum {
                out.push((json!((max + 1.0).to_string()), format!("above {max}")));
            }
            if !c.one_of.is_empty() {
                let outside = (1..)
                    .map(|n| n as f64 * 13.0)
                    .find(|n| !c.one_of.iter().any(|l| l.as_f64() == Some(*n)))
                    .unwrap();
                out.push((json!(outside.to_string()), "outside the allowed set".into()));
            }
        }
        Type::Primitive(Primitive::Bool) => out.push((json!("maybe"), "not a boolean".into())),
        Type::Primitive(p) => {
            let bad = match p {
                Primitive::Uuid => Some("not-a-uuid"),
                Primitive::Date => Some("2024-13-45"),
                Primitive::DateTime => Some("yesterday"),
                Primitive::Email => Some("not-an-email"),
                Primitive::TimeZone => Some("not a zone"),
                _ => None,
            };
            if let Some(bad) = bad {
                out.push((json!(bad), format!("not a valid {}", p.name())));
            }
            if let Some(max) = c.max_length {
                out.push((
                    json!("a".repeat(max as usize + 1)),
                    format!("longer than {max}"),
                ));
            }
            if let Some(min) = c.min_length.filter(|m| *m > 1) {
                out.push((
                    json!("a".repeat(min as usize - 1)),
                    format!("shorter than {min}"),
                ));
            }
            if let Some(pattern) = &c.pattern {
                let re = regex::Regex::new(pattern).unwrap();
                if let Some(bad) = ["!!!", "<>", "\u{1F600}"]
                    .into_iter()
                    .find(|s| !re.is_match(s))
                {
                    out.push((json!(bad), "not matching the pattern".into()));
                }
            }
            if c.one_of.iter().any(|l| matches!(l, Literal::String(_))) {
                out.push((json!("not_in_the_set"), "outside the allowed set".into()));
            }
        }
        Type::Enum(id) => {
            let e = spec.enum_(*id);
            if e.repr == EnumRepr::Int {
                out.push((json!("abc"), "not an integer".into()));
            }
            if !e.open {
                out.push((
                    json!("value_not_in_the_spec"),
                    format!("not a value of {}", e.name),
                ));
            }
        }
        _ => {}
    }
    if list {
        out = out
            .into_iter()
            .map(|(v, what)| (json!([v]), format!("an item {what}")))
            .collect();
        if let Some(max) = c.max_items {
            out.push((
                Value::Array(vec![json!("1"); max as usize + 1]),
                format!("more than {max} items"),
            ));
        }
    }
    out
}

fn violations(spec: &Spec, samples: &Samples, ep: &Endpoint) -> Vec<Violation> {
    let mut out = Vec::new();
    for p in &ep.params {
        let location = match p.location {
            ParamLocation::Path => "path",
            ParamLocation::Query => "query",
            ParamLocation::Header => "header",
        };
        for (value, what) in param_violations(spec, &p.field) {
            out.push(Violation {
                loc: vec![json!(location), json!(p.field.name)],
                place: Place::Param(p.field.name.clone()),
                value,
                what,
            });
        }
    }
    if let Some(Type::Model(id)) = &ep.body {
        body_violations(
            spec,
            samples,
            *id,
            &mut vec![json!("body")],
            &mut Vec::new(),
            0,
            ep.body_media == BodyMedia::Form,
            &mut out,
        );
    }
    out
}

fn apply(input: &mut Value, v: &Violation) {
    match &v.place {
        Place::Param(name) => input[name] = v.value.clone(),
        Place::Body(path) => {
            let mut slot = &mut input["body"];
            for (i, step) in path.iter().enumerate() {
                let last = i == path.len() - 1;
                match step {
                    Value::String(key) if last && v.what == "absent" => {
                        if let Some(obj) = slot.as_object_mut() {
                            obj.remove(key);
                        }
                        return;
                    }
                    Value::String(key) => slot = &mut slot[key.as_str()],
                    Value::Number(n) => slot = &mut slot[n.as_u64().unwrap() as usize],
                    _ => unreachable!("paths hold keys and indexes"),
                }
            }
            *slot = v.value.clone();
        }
    }
}

fn names_input(issues: &Value, loc: &[Value]) -> bool {
    issues
        .as_array()
        .into_iter()
        .flatten()
        .any(|i| i["loc"].as_array().is_some_and(|l| l.starts_with(loc)))
}

#[tokio::test]
async fn each_broken_constraint_alone_is_a_422_naming_its_input() {
    let spec = support::spec();
    let samples = Samples::new(&spec);
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for ep in &spec.endpoints {
        let desc = support::descriptor(&ep.name);
        let creds = support::good_credentials(desc);
        let valid = samples.endpoint_input(ep);
        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &valid, &creds)).await;
        assert!(
            (200..300).contains(&status),
            "{}: the valid input got {status} {body}",
            ep.name
        );
        for v in violations(&spec, &samples, ep) {
            let mut input = valid.clone();
            apply(&mut input, &v);
            let (status, body, _) =
                support::send(support::raw_request(&http, &base, desc, &input, &creds)).await;
            checked += 1;
            if status != 422 || !names_input(&body["detail"], &v.loc) {
                failures.push(format!(
                    "{} {:?} {}: got {status} {body}",
                    ep.name, v.loc, v.what
                ));
            }
        }
    }
    assert!(
        checked >= 130,
        "only {checked} violations: the suite shrank"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} violations not reported:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn three_broken_constraints_are_reported_together() {
    let spec = support::spec();
    let samples = Samples::new(&spec);
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let mut endpoints_checked = 0;
    for ep in &spec.endpoints {
        // The first violation of three different inputs, none inside another.
        let mut chosen: Vec<Violation> = Vec::new();
        for v in violations(&spec, &samples, ep) {
            let overlaps = chosen
                .iter()
                .any(|c| c.loc.starts_with(&v.loc) || v.loc.starts_with(&c.loc));
            if !overlaps && chosen.len() < 3 {
                chosen.push(v);
            }
        }
        if chosen.len() < 3 {
            continue;
        }
        let desc = support::descriptor(&ep.name);
        let mut input = samples.endpoint_input(ep);
        chosen.iter().for_each(|v| apply(&mut input, v));
        let (status, body, _) = support::send(support::raw_request(
            &http,
            &base,
            desc,
            &input,
            &support::good_credentials(desc),
        ))
        .await;
        assert_eq!(status, 422, "{}: {body}", ep.name);
        for v in &chosen {
            assert!(
                names_input(&body["detail"], &v.loc),
                "{}: {:?} ({}) missing from {body}",
                ep.name,
                v.loc,
                v.what
            );
        }
        endpoints_checked += 1;
    }
    assert!(
        endpoints_checked >= 5,
        "only {endpoints_checked} endpoints have three constrained inputs"
    );
}

#[tokio::test]
async fn exactly_one_of_is_enforced() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let desc = support::descriptor("undo_delete_user");
    let creds = support::good_credentials(desc);
    for (input, expected) in [
        (
            json!({}),
            "Exactly one of user_id, client_user_id is required",
        ),
        (
            json!({"user_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a", "client_user_id": "c"}),
            "Exactly one of user_id, client_user_id may be sent, not user_id and client_user_id",
        ),
    ] {
        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &input, &creds)).await;
        assert_eq!(status, 422);
        assert_eq!(body["detail"][0]["msg"], expected);
    }
}
