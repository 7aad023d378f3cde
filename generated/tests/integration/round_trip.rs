//! Any value of a generated type serializes and deserializes to itself: random valid
//! instances drawn from the IR, with the three states of optional nullable fields, unknown
//! values of open enums and unlisted fields of open models.

use crate::support;

use covenant_codegen::ir::shapes::{Shape, Shapes, in_shape};
use covenant_codegen::ir::*;
use health_api::models::round_trip;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

/// A strategy of valid JSON instances of a type; `depth` bounds recursion.
fn value(
    spec: &Spec,
    shapes: &Shapes,
    ty: &Type,
    shape: Shape,
    depth: u32,
) -> BoxedStrategy<Value> {
    match ty {
        Type::Primitive(p) => primitive(*p),
        Type::Enum(id) => {
            let e = spec.enum_(*id);
            let known: Vec<Value> = e
                .values
                .iter()
                .map(|v| match e.repr {
                    EnumRepr::String => json!(v.name),
                    EnumRepr::Int => json!(v.name.parse::<i64>().unwrap()),
                })
                .collect();
            let known = prop::sample::select(known).boxed();
            if e.open && e.repr == EnumRepr::String {
                prop_oneof![3 => known, 1 => "[a-z_]{1,12}".prop_map(|s| json!(format!("unknown_{s}")))].boxed()
            } else {
                known
            }
        }
        Type::Model(id) => model(spec, shapes, *id, shape, depth + 1),
        Type::List(inner, _) => {
            let len = if depth > 3 { 0..1 } else { 1..3 };
            prop::collection::vec(value(spec, shapes, inner, shape, depth + 1), len)
                .prop_map(Value::Array)
                .boxed()
        }
        Type::Map(inner, _) => {
            let len = if depth > 3 { 0..1 } else { 0..3 };
            prop::collection::btree_map(
                "[a-z]{1,6}",
                value(spec, shapes, inner, shape, depth + 1),
                len,
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect()))
            .boxed()
        }
        Type::NamedUnion(id) => {
            let members = Type::Union(spec.union(*id).members.clone());
            value(spec, shapes, &members, shape, depth + 1)
        }
        Type::Union(types) => {
            let options: Vec<BoxedStrategy<Value>> = types
                .iter()
                .map(|t| value(spec, shapes, t, shape, depth + 1))
                .collect();
            prop::strategy::Union::new(options).boxed()
        }
        Type::NotShown(_) => prop_oneof![
            Just(json!({"shape": "not shown"})),
            Just(json!([1, "x"])),
            Just(json!("text"))
        ]
        .boxed(),
    }
}

fn primitive(p: Primitive) -> BoxedStrategy<Value> {
    match p {
        Primitive::String | Primitive::Uri => "[a-zA-Z0-9 ]{0,8}".prop_map(Value::from).boxed(),
        Primitive::Email => "[a-z]{1,6}@example\\.com".prop_map(Value::from).boxed(),
        Primitive::TimeZone => prop::sample::select(vec![
            "UTC",
            "Europe/Paris",
            "America/Argentina/Buenos_Aires",
        ])
        .prop_map(Value::from)
        .boxed(),
        Primitive::Int => (5i64..60).prop_map(Value::from).boxed(),
        Primitive::Number => (5.0f64..60.0).prop_map(Value::from).boxed(),
        Primitive::Bool => any::<bool>().prop_map(Value::from).boxed(),
        Primitive::Null => Just(Value::Null).boxed(),
        Primitive::Uuid => any::<[u8; 16]>()
            .prop_map(|b| json!(covenant_runtime::Uuid::new_v4_from(b).to_string()))
            .boxed(),
        Primitive::Date => (1900i32..2100, 1u32..13, 1u32..29)
            .prop_map(|(y, m, d)| json!(format!("{y:04}-{m:02}-{d:02}")))
            .boxed(),
        Primitive::DateTime => (
            2000i32..2030,
            1u32..13,
            1u32..29,
            0u32..24,
            prop::sample::select(vec!["Z", "+02:00", "-05:30"]),
        )
            .prop_map(|(y, m, d, h, off)| json!(format!("{y:04}-{m:02}-{d:02}T{h:02}:15:00{off}")))
            .boxed(),
        Primitive::Object => Just(json!({"k": [1, 2]})).boxed(),
        Primitive::Any => {
            prop_oneof![Just(json!(null)), Just(json!(3)), Just(json!({"a": "b"}))].boxed()
        }
        Primitive::Bytes => prop::sample::select(vec!["", "AA==", "aGVsbG8="])
            .prop_map(Value::from)
            .boxed(),
        Primitive::File => {
            Just(json!({"filename": "a.txt", "content_type": "text/plain", "content": "aGk="}))
                .boxed()
        }
    }
}

fn model(
    spec: &Spec,
    shapes: &Shapes,
    id: ModelId,
    shape: Shape,
    depth: u32,
) -> BoxedStrategy<Value> {
    let m = spec.model(id);
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for f in m.fields.iter().filter(|f| in_shape(f, shape)) {
        let inner = constrained(spec, shapes, f, shape, depth);
        let name = f.name.clone();
        let present = {
            let name = name.clone();
            inner.prop_map(move |v| Some((name.clone(), v))).boxed()
        };
        let null = Just(Some((name.clone(), Value::Null))).boxed();
        let strategy = match f.presence {
            Presence::Required => present,
            Presence::Optional => prop_oneof![present, Just(None)].boxed(),
            Presence::Nullable => prop_oneof![present, null].boxed(),
            Presence::OptionalNullable => prop_oneof![present, null, Just(None)].boxed(),
        };
        fields.push(strategy);
    }
    let open = m.is_open();
    (fields, any::<bool>())
        .prop_map(move |(fields, extra)| {
            let mut obj: Map<String, Value> = fields.into_iter().flatten().collect();
            if open && extra {
                obj.insert("x_unlisted".into(), json!({"kept": true}));
            }
            Value::Object(obj)
        })
        .boxed()
}

/// Values within the field's constraints (the only ones a valid instance may hold).
fn constrained(
    spec: &Spec,
    shapes: &Shapes,
    f: &Field,
    shape: Shape,
    depth: u32,
) -> BoxedStrategy<Value> {
    let c = &f.constraints;
    if !c.one_of.is_empty() {
        let values: Vec<Value> = c
            .one_of
            .iter()
            .map(covenant_codegen::ir::Literal::to_json)
            .collect();
        return prop::sample::select(values).boxed();
    }
    match &f.ty {
        Type::Primitive(Primitive::Int) if c.minimum.is_some() || c.maximum.is_some() => {
            let lo = c.minimum.unwrap_or(0.0) as i64;
            let hi = c.maximum.unwrap_or(lo as f64 + 100.0) as i64;
            (lo..=hi).prop_map(Value::from).boxed()
        }
        Type::Primitive(Primitive::Number) if c.minimum.is_some() || c.maximum.is_some() => {
            let lo = c.minimum.unwrap_or(0.0);
            let hi = c.maximum.unwrap_or(lo + 100.0);
            (lo..=hi).prop_map(Value::from).boxed()
        }
        Type::Primitive(p) if p.is_string_like() && c.pattern.is_some() => {
            "[a-zA-Z0-9 ]{0,20}".prop_map(Value::from).boxed()
        }
        Type::List(inner, _) if c.min_items.is_some() => {
            let min = c.min_items.unwrap() as usize;
            prop::collection::vec(value(spec, shapes, inner, shape, depth + 1), min..min + 2)
                .prop_map(Value::Array)
                .boxed()
        }
        ty => value(spec, shapes, ty, shape, depth),
    }
}

#[test]
fn every_generated_type_round_trips() {
    let spec = support::spec();
    let shapes = Shapes::new(&spec);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut checked = 0;
    for (id, shape) in shapes.all() {
        let name = shapes.name(id, shape);
        let strategy = model(&spec, &shapes, id, shape, 0);
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&strategy, |instance| {
            let written = round_trip(&name, &instance)
                .expect("registered")
                .map_err(TestCaseError::fail)?;
            // What was written reads back to the same value and writes the same JSON again.
            let again = round_trip(&name, &written)
                .unwrap()
                .map_err(TestCaseError::fail)?;
            prop_assert_eq!(&again, &written);
            // Keys the instance sent are kept: absent stays absent, null stays null.
            let sent = instance.as_object().unwrap();
            for (key, value) in sent {
                let kept = written.get(key);
                let is_default_filled = kept.is_some() && value.is_null() && kept != Some(value);
                prop_assert!(
                    kept.is_some() || value.is_null(),
                    "{name}.{key} was dropped"
                );
                prop_assert!(
                    !is_default_filled || kept == Some(&Value::Null),
                    "{name}.{key}: null came back as {kept:?}"
                );
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
        checked += 1;
    }
    assert!(checked > 50);
}

#[test]
fn three_states_and_unknown_values_round_trip_exactly() {
    for body in [
        json!({}),
        json!({"ingestion_end": null}),
        json!({"ingestion_end": "2025-01-31", "client_user_id": null}),
    ] {
        assert_eq!(
            round_trip("UpdateUserRequest", &body).unwrap().unwrap(),
            body
        );
    }
    let provider = json!({"name": "X", "slug": "x", "description": "d", "logo": null, "auth_type": "carrier_pigeon", "supported_resources": ["sleep", "dreams"]});
    assert_eq!(
        round_trip("Provider", &provider).unwrap().unwrap(),
        provider
    );
    let closed = json!({"id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a", "name": "T", "created_on": "2024-04-01T08:00:00Z", "region": "apac"});
    let err = round_trip("TeamListItem", &closed).unwrap().unwrap_err();
    assert!(
        err.contains("unknown value \"apac\" for Region; expected one of: \"us\", \"eu\""),
        "{err}"
    );
}
