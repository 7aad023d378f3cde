//! Groups of optional fields inside models over real sockets: the router, `covenant mock`
//! and the generated `validate()` refuse a value holding too many or too few of a group's
//! fields, saying which; the JSON Schema written for the model refuses the same values.

use crate::support::{self, problems, serve};
use covenant_corpus::regressions::field_groups as api;
use covenant_runtime::Validate;
use serde_json::{Value, json};
use std::sync::Arc;

use api::models::{PaymentMethod, Update};
use api::operations::*;
use api::server::{Answer, Context, GroupsServer};

/// Echoes what it read.
struct Server;

impl GroupsServer for Server {
    support::accepts_key!("key");

    async fn create_payment_method(
        &self,
        _: Context<(), Self>,
        input: CreatePaymentMethodInput,
    ) -> Answer<CreatePaymentMethodResponse> {
        Ok(CreatePaymentMethodResponse::Created(input.body))
    }

    async fn update_thing(
        &self,
        _: Context<(), Self>,
        input: UpdateThingInput,
    ) -> Answer<UpdateThingResponse> {
        Ok(UpdateThingResponse::Ok(input.body))
    }
}

async fn send(url: &str, method: reqwest::Method, path: &str, body: &Value) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .request(method, format!("{url}{path}"))
        .bearer_auth("key")
        .json(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or_default())
}

/// What the router (or mock) at `url` answers for each value, in order.
async fn refusals(url: &str) -> Vec<Vec<(String, String)>> {
    let post = reqwest::Method::POST;
    let patch = reqwest::Method::PATCH;
    let mut out = Vec::new();
    let cases = [
        (
            post.clone(),
            "/payment_methods",
            json!({"bank_account": "b"}),
        ),
        (
            post.clone(),
            "/payment_methods",
            json!({"card": {"number": "4242", "exp_month": 1}, "bank_account": "b", "email": "a@b", "phone": "1"}),
        ),
        (post.clone(), "/payment_methods", json!({"email": "a@b"})),
        (patch.clone(), "/things/t1", json!({"description": null})),
        (patch.clone(), "/things/t1", json!({})),
    ];
    for (method, path, body) in cases {
        let (status, answer) = send(url, method, path, &body).await;
        out.push(if status == 422 {
            problems(&answer)
        } else {
            assert!(status < 300, "{status} {answer}");
            Vec::new()
        });
    }
    out
}

fn expected() -> Vec<Vec<(String, String)>> {
    let at_body = |msg: &str| (r#"["body"]"#.to_string(), msg.to_string());
    vec![
        vec![],
        vec![
            at_body("Exactly one of card, bank_account may be sent, not card and bank_account"),
            at_body("At most one of email, phone may be sent, not email and phone"),
        ],
        vec![at_body("Exactly one of card, bank_account is required")],
        vec![],
        vec![at_body("At least one of name, description is required")],
    ]
}

#[tokio::test]
async fn the_router_counts_the_fields_of_each_group() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    assert_eq!(refusals(&url).await, expected());
}

#[tokio::test]
async fn the_mock_counts_them_alike() {
    let spec = support::regression_spec("field_groups");
    let url = serve(support::spec_mock(&spec, |_, _| Some("key".into()))).await;
    assert_eq!(refusals(&url).await, expected());
}

#[test]
fn validate_and_the_schema_refuse_the_same_values() {
    let both: PaymentMethod = serde_json::from_value(
        json!({"card": {"number": "4242", "exp_month": 1}, "bank_account": "b"}),
    )
    .unwrap();
    let issues = both.validate().unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    let empty = Update::default();
    assert!(empty.validate().is_err());
    let cleared: Update = serde_json::from_value(json!({"description": null})).unwrap();
    assert!(cleared.validate().is_ok(), "a null counts as sent");

    let spec = support::regression_spec("field_groups");
    let index = spec
        .models
        .iter()
        .position(|m| m.name == "PaymentMethod")
        .unwrap();
    let id = covenant_codegen::ir::ModelId(index as u32);
    let shapes = covenant_codegen::ir::shapes::Shapes::new(&spec);
    let builder = covenant_codegen::emit::schema::SchemaBuilder {
        spec: &spec,
        shapes: &shapes,
        style: covenant_codegen::emit::schema::RefStyle::Components,
    };
    let mut schema = builder.model_schema(id, covenant_codegen::ir::shapes::Shape::Request);
    // The card's own schema is not what this checks.
    schema["properties"]["card"] = json!({});
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (value, valid) in [
        (json!({"bank_account": "b"}), true),
        (json!({"card": {}, "bank_account": "b"}), false),
        (json!({}), false),
        (
            json!({"bank_account": "b", "email": "e", "phone": "p"}),
            false,
        ),
        (json!({"bank_account": "b", "phone": "p"}), true),
    ] {
        assert_eq!(validator.is_valid(&value), valid, "{value}");
    }
}
