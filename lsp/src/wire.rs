//! What a declaration becomes on the wire, written for a person: a field's JSON type, its
//! three states, constraints and default; where a fact comes from.

use covenant_codegen::ir::{Constraints, Field, Presence, Provenance, Spec, Visibility};

/// A field or parameter, in lines of Markdown.
pub fn field(spec: &Spec, field: &Field) -> Vec<String> {
    let mut lines = vec![format!(
        "`\"{}\": {}` — {}",
        field.name,
        spec.type_name(&field.ty),
        presence(field.presence)
    )];
    let constraints = constraints(&field.constraints);
    if !constraints.is_empty() {
        lines.push(format!("constraints: {}", constraints.join(", ")));
    }
    if let Some(default) = &field.default {
        lines.push(format!("default: `{}`", default.to_json()));
    }
    match field.visibility {
        Visibility::Always => {}
        Visibility::RequestOnly => lines.push("sent in requests only".into()),
        Visibility::ResponseOnly => lines.push("answered in responses only".into()),
    }
    let marks: Vec<&str> = [
        (
            field.secret,
            "secret: never written to logs, reports or cassettes",
        ),
        (field.personal, "personal: recordings write a stand-in"),
        (field.varies, "varies: its value depends on when it is read"),
    ]
    .into_iter()
    .filter_map(|(set, text)| set.then_some(text))
    .collect();
    lines.extend(marks.into_iter().map(String::from));
    if let Some(deprecated) = &field.deprecated {
        lines.push(format!("deprecated{}", since(deprecated.since.as_deref())));
    }
    lines.push(provenance(field.provenance));
    lines
}

/// The three states, in words.
pub fn presence(presence: Presence) -> &'static str {
    match presence {
        Presence::Required => "required, never null",
        Presence::Optional => "optional: may be absent, never null",
        Presence::Nullable => "always present, may be null",
        Presence::OptionalNullable => "optional and nullable: absent, null or a value",
    }
}

pub fn provenance(provenance: Provenance) -> String {
    match provenance {
        Provenance::Document => "source: the interface document".into(),
        Provenance::DeployedClient => {
            "source: the deployed client (`@source(deployed_client)`)".into()
        }
        Provenance::Toolkit => {
            "source: the toolkit's choice where the document is silent (`@source(toolkit)`)".into()
        }
    }
}

fn since(since: Option<&str>) -> String {
    since.map_or(String::new(), |s| format!(" since {s}"))
}

fn constraints(c: &Constraints) -> Vec<String> {
    let mut out = Vec::new();
    let mut bound = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            out.push(format!("{name} {value}"));
        }
    };
    bound("min", c.minimum.map(|v| v.to_string()));
    bound("max", c.maximum.map(|v| v.to_string()));
    bound("min_length", c.min_length.map(|v| v.to_string()));
    let default_bound = c.default_bound.map_or("", |_| " (the service's default)");
    bound(
        "max_length",
        c.max_length.map(|v| format!("{v}{default_bound}")),
    );
    bound("min_items", c.min_items.map(|v| v.to_string()));
    bound(
        "max_items",
        c.max_items.map(|v| format!("{v}{default_bound}")),
    );
    bound("pattern", c.pattern.as_ref().map(|p| format!("`{p}`")));
    bound("format", c.format.clone());
    if c.unique_items {
        out.push("unique items".into());
    }
    if !c.one_of.is_empty() {
        let values: Vec<String> = c.one_of.iter().map(|v| v.to_json().to_string()).collect();
        out.push(format!("one of {}", values.join(", ")));
    }
    out
}
