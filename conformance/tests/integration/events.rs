//! The runner receiving events over real HTTP from a target that knows nothing of it but
//! the spec: it subscribes through the spec's `@registers_webhooks` endpoint, awaits the
//! events a cassette names, checks every delivery (signature, schema, repeats) and removes
//! its subscription at the end.

use crate::support;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use covenant_conformance::events::{Listen, Session};
use covenant_conformance::known_failures::ExpectedFailures;
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::progress::Progress;
use covenant_conformance::template::{Credentials, Globals};
use covenant_conformance::{Contract, RunSettings, Target, cassette, plan, runner};
use covenant_runtime::webhooks::{WebhookSecret, sign};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SPEC: &str = r#"
service Shop {}

api main {
    base "{base_url}"
}

auth key: header "x-api-key" {
    principal app
}

@signed(standard_webhooks)
envelope Event {
    event_type: string
    data: object
    order_id: uuid
}

model Order {
    id: uuid
    name: string
}

model Shipment {
    carrier: string
}

event order_created: "order.created" {
    data: Order
}

event order_shipped: "order.shipped.{carrier}" {
    placeholder carrier: Carrier
    data: Shipment
}

enum Carrier {
    post
    courier
}

model Subscription {
    id: uuid
    secret: string
}

@registers_webhooks(url: url, secret: secret, id: id, remove: unsubscribe)
endpoint subscribe: POST "/subscriptions" {
    auth key
    body {
        url: uri
        note?: string
    }
    response 201: Subscription
}

endpoint unsubscribe: DELETE "/subscriptions/{id}" {
    auth key
    path id: uuid
    response 204
}

endpoint create_order: POST "/orders" {
    auth key
    body {
        name: string
    }
    response 201: Order
}
"#;

const KEY: &str = "shop-key-0123456789";

/// The shop: one subscriber at a time; each order is announced as its name asks.
#[derive(Clone, Default)]
struct Shop {
    subscriber: Arc<Mutex<Option<(String, String)>>>,
    removed: Arc<Mutex<Vec<String>>>,
    secret: Arc<Mutex<Option<WebhookSecret>>>,
    /// The shop's own server, for an order that takes it down.
    server: Arc<Mutex<Option<covenant_runtime::server::Spawned>>>,
}

async fn subscribe(
    State(shop): State<Shop>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    assert_eq!(headers["x-api-key"], KEY, "the runner authenticates");
    let secret = WebhookSecret::generate();
    let id = uuid::Uuid::new_v4().to_string();
    let url = body["url"].as_str().unwrap().to_string();
    *shop.subscriber.lock().unwrap() = Some((id.clone(), url));
    let text = secret.to_text();
    *shop.secret.lock().unwrap() = Some(secret);
    (StatusCode::CREATED, Json(json!({"id": id, "secret": text})))
}

async fn unsubscribe(State(shop): State<Shop>, Path(id): Path<String>) -> StatusCode {
    shop.removed.lock().unwrap().push(id);
    StatusCode::NO_CONTENT
}

async fn create_order(
    State(shop): State<Shop>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let name = body["name"].as_str().unwrap().to_string();
    let id = uuid::Uuid::new_v4().to_string();
    let order = json!({"id": id, "name": name});
    let shop2 = shop.clone();
    let (order_id, name2) = (id.clone(), name.clone());
    tokio::spawn(async move { announce(&shop2, &order_id, &name2).await });
    (StatusCode::CREATED, Json(order))
}

/// Delivers what the order's name asks: a good event, a broken one, or none.
async fn announce(shop: &Shop, order_id: &str, name: &str) {
    let created = json!({"event_type": "order.created", "data": {"id": order_id, "name": name}, "order_id": order_id});
    let shipped = json!({"event_type": "order.shipped.post", "data": {"carrier": "post"}, "order_id": order_id});
    match name {
        "good" => {
            deliver(shop, "msg-good-1", &created, true).await;
            deliver(shop, "msg-good-2", &shipped, true).await;
            // At least once: the same message again, the same body.
            deliver(shop, "msg-good-2", &shipped, true).await;
        }
        "forged" => deliver(shop, "msg-forged", &created, false).await,
        // The shop goes down after answering, with or without a forged last word.
        "vanish" => close(shop).await,
        "misshapen-vanish" => {
            let mut broken = created.clone();
            broken["data"] = json!({"id": order_id});
            deliver(shop, "msg-misshapen", &broken, true).await;
            close(shop).await;
        }
        "unnamed-vanish" => {
            let mut broken = created.clone();
            broken["data"] = json!({"id": order_id});
            deliver(shop, "msg-unnamed", &broken, true).await;
            close(shop).await;
        }
        "misshapen" => {
            let mut broken = created.clone();
            broken["data"] = json!({"id": order_id});
            deliver(shop, "msg-misshapen", &broken, true).await;
        }
        "changed" => {
            deliver(shop, "msg-changed", &created, true).await;
            let mut other = created.clone();
            other["data"]["name"] = json!("something else");
            deliver(shop, "msg-changed", &other, true).await;
        }
        _ => {}
    }
}

async fn close(shop: &Shop) {
    let server = shop.server.lock().unwrap().take();
    if let Some(server) = server {
        server.shutdown().await.unwrap();
    }
}

async fn deliver(shop: &Shop, id: &str, envelope: &Value, honest: bool) {
    let url = shop.subscriber.lock().unwrap().clone().unwrap().1;
    let body = serde_json::to_vec(envelope).unwrap();
    let secret = match honest {
        true => shop.secret.lock().unwrap().clone().unwrap(),
        false => WebhookSecret::generate(),
    };
    let signature = sign(&[&secret], id, covenant_runtime::webhooks::now(), &body);
    let mut request = reqwest::Client::new().post(url).body(body);
    for (name, value) in signature.headers() {
        request = request.header(name, value);
    }
    request.send().await.unwrap();
}

fn contract() -> Arc<Contract> {
    let source = covenant_codegen::source::SourceFile::new("shop.covenant", SPEC.to_string());
    let checked = covenant_codegen::check_source(&source);
    assert!(
        !checked.diagnostics.has_errors(),
        "{}",
        checked.diagnostics.render(&source)
    );
    Arc::new(Contract::new(checked.spec.unwrap()).unwrap())
}

fn order_scenario(name: &str, awaited: Value) -> Value {
    json!({
        "id": format!("orders/{name}"),
        "title": name,
        "headers": {"x-api-key": "{{credentials.key}}"},
        "exchanges": [{
            "id": "order",
            "endpoint": "create_order",
            "request": {"path": "/orders", "body": {"name": name}},
            "expect": {"status": 201},
            "capture": {"order_id": "$.id"},
            "events": awaited
        }]
    })
}

struct Run {
    report: Report,
    shop: Shop,
}

async fn run(scenarios: &[Value]) -> Run {
    let (run, problem) = run_to_the_end(scenarios).await;
    assert_eq!(problem, None);
    run
}

/// The run and the problem, if any, of removing its subscription at the end.
async fn run_to_the_end(scenarios: &[Value]) -> (Run, Option<String>) {
    let shop = Shop::default();
    let router = axum::Router::new()
        .route("/subscriptions", post(subscribe))
        .route("/subscriptions/{id}", delete(unsubscribe))
        .route("/orders", post(create_order))
        .with_state(shop.clone());
    let server = covenant_runtime::server::spawn(router).await.unwrap();
    let base = server.url();
    *shop.server.lock().unwrap() = Some(server);
    let dir = tempfile::tempdir().unwrap();
    for (i, s) in scenarios.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("{i}.json")),
            serde_json::to_string_pretty(s).unwrap(),
        )
        .unwrap();
    }
    let contract = contract();
    let mut credentials = Credentials::default();
    credentials.set("key", KEY);
    let globals = Globals::new(credentials.clone());
    let cassettes = cassette::read_all(&[dir.path().to_path_buf()]).unwrap();
    let (plans, problems) = plan::compile_all(cassettes, &contract, &globals);
    assert!(problems.is_empty(), "{problems:#?}");
    let target = Target {
        bases: [("base_url".to_string(), base)].into(),
    };
    let listen = Listen {
        addr: ([127, 0, 0, 1], 0).into(),
        public_url: None,
        secret: None,
    };
    let session = Session::open(contract.clone(), listen, &target, &credentials)
        .await
        .unwrap();
    let hub = session.hub.clone();
    let settings = RunSettings {
        retries: 0,
        // Scenarios run side by side on any machine, as the race tests need.
        jobs: 2,
        events: Some(hub.clone()),
        ..RunSettings::default()
    };
    let mut report = runner::run(
        contract,
        plans,
        Arc::new(globals),
        target,
        ExpectedFailures::default(),
        settings,
        Progress::Quiet,
    )
    .await;
    let problem = session.close(Duration::from_millis(300), &mut report).await;
    (Run { report, shop }, problem)
}

fn scenario<'r>(report: &'r Report, id: &str) -> &'r covenant_conformance::outcome::ScenarioResult {
    report.scenarios.iter().find(|s| s.id == id).unwrap()
}

#[tokio::test]
async fn awaited_events_arrive_verified_and_captured_and_the_subscription_is_removed() {
    let good = order_scenario(
        "good",
        json!([
            {"event_type": "order.created", "within": "5s", "match": {"order_id": "{{order_id}}", "data": {"name": "good"}}, "capture": {"named": "$.data.name"}},
            {"event_type": "order.shipped.post", "match": {"order_id": "{{order_id}}"}}
        ]),
    );
    let Run { report, shop } = run(&[good]).await;
    let good = scenario(&report, "orders/good");
    assert_eq!(good.verdict, Verdict::Passed, "{:#?}", good.exchanges);
    assert!(
        good.transcript.contains("<< event order.created"),
        "{}",
        good.transcript
    );
    assert!(
        good.transcript.contains("\"name\": \"[named]\""),
        "{}",
        good.transcript
    );
    let events = report.events.as_ref().unwrap();
    assert_eq!(
        events.received.len(),
        2,
        "a repeat is counted, not listed: {events:#?}"
    );
    let shipped = events
        .received
        .iter()
        .find(|e| e.id.as_deref() == Some("msg-good-2"))
        .unwrap();
    assert_eq!(shipped.repeats, 1);
    assert_eq!(shipped.event.as_deref(), Some("order_shipped"));
    assert_eq!(shipped.awaited_by.as_deref(), Some("orders/good / order"));
    assert_eq!(report.coverage.events["order_created"], 1);
    assert_eq!(report.coverage.events["order_shipped"], 1);
    assert!(report.passed());
    let subscribed = shop.subscriber.lock().unwrap().clone().unwrap().0;
    assert_eq!(*shop.removed.lock().unwrap(), vec![subscribed]);
}

#[tokio::test]
async fn forged_misshapen_changed_and_missing_events_each_fail_by_name() {
    let any = |name: &str| {
        order_scenario(
            name,
            json!([{"event_type": "order.created", "within": "1s", "match": {"order_id": "{{order_id}}"}}]),
        )
    };
    let Run { report, .. } = run(&[
        any("forged"),
        any("misshapen"),
        any("changed"),
        any("silent"),
    ])
    .await;
    assert!(!report.passed());
    let silent = scenario(&report, "orders/silent");
    assert_eq!(silent.verdict, Verdict::Failed);
    let failure = &silent.exchanges[0].failures[0];
    assert_eq!(failure.kind, FailureKind::Event);
    assert!(failure.actual.contains("of `order.created`"), "{failure:?}");
    let at = failure.at.as_ref().expect("located in the cassette");
    assert_eq!(at.excerpt.trim(), "\"events\": [");
    let events = &report.events.as_ref().unwrap().received;
    let of = |id: &str| events.iter().find(|e| e.id.as_deref() == Some(id)).unwrap();
    let forged = of("msg-forged");
    assert!(
        forged.failures.iter().any(|f| f.path == "signature"),
        "{forged:#?}"
    );
    let misshapen = of("msg-misshapen");
    assert!(
        misshapen
            .failures
            .iter()
            .any(|f| f.kind == FailureKind::Schema && f.path == "$event.data"),
        "{misshapen:#?}"
    );
    assert!(
        !misshapen
            .failures
            .iter()
            .any(|f| f.actual.contains("misshapen")),
        "a report names what is wrong, not the payload: {misshapen:#?}"
    );
    let changed = of("msg-changed");
    assert!(
        changed.failures.iter().any(|f| f.path == "webhook-id"),
        "{changed:#?}"
    );
    // The misshapen event is still the awaited one: its checks fail its exchange.
    let awaited = scenario(&report, "orders/misshapen");
    assert_eq!(awaited.verdict, Verdict::Failed);
    assert!(
        awaited.exchanges[0]
            .failures
            .iter()
            .any(|f| f.kind == FailureKind::Schema)
    );
}

#[test]
fn an_event_type_the_spec_cannot_produce_is_a_cassette_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string_pretty(&order_scenario(
        "typo",
        json!([{"event_type": "order.craeted", "within": "forever"}]),
    ))
    .unwrap();
    let file = dir.path().join("typo.json");
    std::fs::write(&file, text).unwrap();
    let contract = contract();
    let globals = Globals::new(Credentials::default());
    let cassettes = cassette::read_all(&[dir.path().to_path_buf()]).unwrap();
    let (_, problems) = plan::compile_all(cassettes, &contract, &globals);
    let messages: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(messages[0].contains("typo.json:25:"), "{messages:#?}");
    assert!(
        messages[0].contains("did you mean `order.created`?"),
        "{messages:#?}"
    );
    assert!(
        messages[1].contains("`forever` is no wait"),
        "{messages:#?}"
    );
}

#[tokio::test]
async fn a_scenario_awaiting_events_is_skipped_without_a_receiver() {
    let contract = contract();
    let dir = tempfile::tempdir().unwrap();
    let text = order_scenario("good", json!([{"event_type": "order.created"}])).to_string();
    std::fs::write(dir.path().join("a.json"), text).unwrap();
    let report = support::replay(
        contract,
        dir.path(),
        Globals::new(Credentials::default()),
        "http://127.0.0.1:9".into(),
        Duration::from_secs(1),
    )
    .await;
    let s = &report.scenarios[0];
    assert_eq!(s.verdict, Verdict::Skipped);
    assert!(s.skip_reason.as_deref().unwrap().contains("--webhooks"));
}

/// "No event of this type within N s": a silent order passes after waiting it out; an order
/// that announces itself fails, naming the delivery that should not have come.
#[tokio::test]
async fn an_event_that_must_not_arrive_fails_when_it_does() {
    let none = |name: &str| {
        order_scenario(
            name,
            json!([{"event_type": "order.created", "within": "1s", "none": true, "match": {"order_id": "{{order_id}}"}}]),
        )
    };
    let Run { report, .. } = run(&[none("silent"), none("good")]).await;
    let silent = scenario(&report, "orders/silent");
    assert_eq!(silent.verdict, Verdict::Passed, "{:#?}", silent.exchanges);
    let announced = scenario(&report, "orders/good");
    assert_eq!(announced.verdict, Verdict::Failed);
    let failure = &announced.exchanges[0].failures[0];
    assert_eq!(failure.kind, FailureKind::Event);
    assert!(
        failure.expected.contains("no `order.created`"),
        "{failure:?}"
    );
    assert!(failure.actual.starts_with("one arrived"), "{failure:?}");
}

/// "Exactly once": an awaited delivery is the expectation's, so a `none` after it in the same
/// exchange looks only for a second one.
#[tokio::test]
async fn an_awaited_delivery_is_not_the_one_that_must_not_arrive() {
    let once = order_scenario(
        "good",
        json!([
            {"event_type": "order.created", "match": {"order_id": "{{order_id}}"}},
            {"event_type": "order.created", "within": "1s", "none": true, "match": {"order_id": "{{order_id}}"}}
        ]),
    );
    let Run { report, .. } = run(&[once]).await;
    let good = scenario(&report, "orders/good");
    assert_eq!(good.verdict, Verdict::Passed, "{:#?}", good.exchanges);
}

/// A delivery that must not arrive fails its scenario even when another scenario, running
/// alongside, took it for its own expectation first: who looked first decides nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwanted_delivery_another_scenario_took_still_fails() {
    // Waits for any order's creation, so it takes the one the other scenario causes.
    let taker = order_scenario(
        "quiet",
        json!([{"event_type": "order.created", "within": "5s"}]),
    );
    // Its creation arrives before its shipment, so the `none` looks once it was taken.
    let exactly_none = order_scenario(
        "good",
        json!([
            {"event_type": "order.shipped.post", "within": "5s"},
            {"event_type": "order.created", "within": "1s", "none": true}
        ]),
    );
    let Run { report, .. } = run(&[taker, exactly_none]).await;
    let taken = scenario(&report, "orders/quiet");
    assert_eq!(taken.verdict, Verdict::Passed, "{:#?}", taken.exchanges);
    let good = scenario(&report, "orders/good");
    assert_eq!(good.verdict, Verdict::Failed, "{:#?}", good.exchanges);
    let failures = &good.exchanges[0].failures;
    assert!(
        failures
            .iter()
            .any(|f| f.kind == FailureKind::Event && f.actual.contains("one arrived")),
        "{failures:#?}"
    );
}

/// A target that goes down while its events are awaited stops the run (exit 3), and the
/// scenario is skipped for it; a delivery that came misshapen before it went still fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_lost_while_events_are_awaited_stops_the_run_but_what_came_wrong_fails() {
    let created = json!({"event_type": "order.created", "within": "2s", "match": {"order_id": "{{order_id}}"}});
    let shipped = json!({"event_type": "order.shipped.post", "within": "2s"});
    let (Run { report, .. }, _) =
        run_to_the_end(&[order_scenario("vanish", json!([created]))]).await;
    let vanished = scenario(&report, "orders/vanish");
    assert_eq!(
        vanished.verdict,
        Verdict::Skipped,
        "{:#?}",
        vanished.exchanges
    );
    let reason = vanished.skip_reason.as_deref().unwrap();
    assert!(
        reason.contains("the target was lost at orders/vanish / order")
            && reason.contains("once its events were awaited"),
        "{reason}"
    );
    assert!(report.stopped.is_some());

    let both = json!([created, shipped]);
    let (Run { report, .. }, _) = run_to_the_end(&[order_scenario("misshapen-vanish", both)]).await;
    let misshapen = scenario(&report, "orders/misshapen-vanish");
    assert_eq!(
        misshapen.verdict,
        Verdict::Failed,
        "{:#?}",
        misshapen.exchanges
    );
    let failures = &misshapen.exchanges[0].failures;
    assert!(
        failures.iter().any(|f| f.kind == FailureKind::Schema),
        "{failures:#?}"
    );
    assert!(
        failures.iter().all(|f| f.kind != FailureKind::Event),
        "the shipment the target could no longer send is not its failure: {failures:#?}"
    );

    // What came faulty and did not match is the target's failure, though it went down after.
    let named = json!([{"event_type": "order.created", "within": "2s", "match": {"data": {"name": "unnamed-vanish"}}}]);
    let (Run { report, .. }, _) = run_to_the_end(&[order_scenario("unnamed-vanish", named)]).await;
    let renamed = scenario(&report, "orders/unnamed-vanish");
    assert_eq!(renamed.verdict, Verdict::Failed, "{:#?}", renamed.exchanges);
    let failures = &renamed.exchanges[0].failures;
    assert!(
        failures
            .iter()
            .any(|f| f.kind == FailureKind::Event && f.actual.contains("none matching")),
        "{failures:#?}"
    );
}
