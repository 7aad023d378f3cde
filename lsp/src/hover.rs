//! Hover: what the name under the cursor declares, from the validated spec where there is
//! one (wire form, constraints, provenance, an endpoint's route, auth and statuses, the
//! example a mock answers), else from the text's own doc comment.

use crate::analysis::Analysis;
use crate::index::{Declaration, Kind};
use crate::wire;
use covenant_codegen::ir::shapes::Shape;
use covenant_codegen::ir::{Endpoint, Field, Spec, Type, all_responses, carrier_syntax};
use covenant_codegen::samples::Samples;
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

/// The most fields or values a hover lists: it is read at a glance, and a generated model
/// of thousands of fields would otherwise answer megabytes.
const MOST_LISTED: usize = 60;

pub fn hover(analysis: &Analysis, spec: Option<&Spec>, position: Position) -> Option<Hover> {
    let offset = analysis.offset(position);
    let target = analysis.index.at(offset)?;
    let declaration = analysis.index.declaration_of(target)?;
    let text = markdown(analysis, spec, declaration);
    let span = match target {
        crate::index::Target::Declaration(d) => analysis.index.declarations[d].name_span,
        crate::index::Target::Reference(r) => analysis.index.references[r].span,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(analysis.range(span)),
    })
}

/// The hover text of one declaration.
pub fn markdown(analysis: &Analysis, spec: Option<&Spec>, declaration: usize) -> String {
    let index = &analysis.index;
    let d = &index.declarations[declaration];
    let parent = d.parent.map(|p| &index.declarations[p]);
    let mut parts = vec![heading(d, parent)];
    if let Some(doc) = &d.doc {
        parts.push(doc.clone());
    }
    if let Some(spec) = spec
        && let Some(facts) = facts(spec, d, parent)
    {
        parts.push(facts);
    }
    parts.join("\n\n---\n\n")
}

fn heading(d: &Declaration, parent: Option<&Declaration>) -> String {
    match parent {
        Some(parent) => format!(
            "```covenant\n{} {}.{}\n```",
            d.kind.word(),
            parent.name,
            d.name
        ),
        None => format!("```covenant\n{} {}\n```", d.kind.word(), d.name),
    }
}

/// What the validated spec knows of the declaration, `None` where it has no such name (a
/// declaration typed since the spec last checked).
fn facts(spec: &Spec, d: &Declaration, parent: Option<&Declaration>) -> Option<String> {
    let lines = match (d.kind, parent) {
        (Kind::Model | Kind::Envelope, _) => model(spec, &d.name)?,
        (Kind::Enum, _) => enumeration(spec, &d.name)?,
        (Kind::Endpoint, _) => endpoint(spec, spec.endpoint_named(&d.name)?),
        (Kind::Auth, _) => {
            let scheme = spec.auth_schemes.iter().find(|a| a.name == d.name)?;
            let mut lines = vec![format!("credential: `{}`", carrier_syntax(&scheme.carrier))];
            lines.push(format!("principal: `{}`", scheme.principal));
            if !scheme.scopes.is_empty() {
                lines.push(format!("scopes: {}", scheme.scopes.join(", ")));
            }
            lines
        }
        (Kind::Field | Kind::Param, Some(parent)) => {
            wire::field(spec, member_field(spec, parent, &d.name)?)
        }
        (Kind::EnumValue, Some(parent)) => {
            let value = spec
                .enum_named(&parent.name)?
                .values
                .iter()
                .find(|v| v.name == d.name)?;
            vec![
                format!("on the wire: `\"{}\"`", value.name),
                wire::provenance(value.provenance),
            ]
        }
        _ => return None,
    };
    Some(lines.join("  \n"))
}

/// A field of a model, an event, or an endpoint (a parameter, a field of its inline body, a
/// response header).
fn member_field<'s>(spec: &'s Spec, parent: &Declaration, name: &str) -> Option<&'s Field> {
    match parent.kind {
        Kind::Model | Kind::Envelope => spec.model_named(&parent.name)?.field(name),
        Kind::Event => spec
            .events
            .iter()
            .find(|e| e.name == parent.name)?
            .fields
            .iter()
            .find(|f| f.name == name),
        Kind::Endpoint => {
            let ep = spec.endpoint_named(&parent.name)?;
            let param = ep.params.iter().map(|p| &p.field).find(|f| f.name == name);
            let body = match &ep.body {
                Some(Type::Model(id)) => spec.model(*id).field(name),
                _ => None,
            };
            let header = ep
                .responses
                .iter()
                .flat_map(|r| &r.headers)
                .find(|h| h.name == name);
            param.or(body).or(header)
        }
        Kind::Api => spec
            .apis
            .iter()
            .find(|a| a.name == parent.name)?
            .headers
            .iter()
            .find(|h| h.name == name),
        _ => None,
    }
}

fn model(spec: &Spec, name: &str) -> Option<Vec<String>> {
    let (id, model) = spec
        .models
        .iter()
        .enumerate()
        .find(|(_, m)| m.name == name)?;
    let mut lines: Vec<String> = model
        .fields
        .iter()
        .take(MOST_LISTED)
        .map(|f| {
            format!(
                "- `{}`: `{}` — {}",
                f.name,
                spec.type_name(&f.ty),
                wire::presence(f.presence)
            )
        })
        .collect();
    if model.fields.len() > MOST_LISTED {
        lines.push(format!(
            "- … {} more fields",
            model.fields.len() - MOST_LISTED
        ));
    }
    if model.open {
        lines.push("- … more fields than listed (`not_shown fields`): kept, not checked".into());
    }
    lines.extend(model.not_shown.iter().map(|n| format!("not shown: {n}")));
    lines.push(wire::provenance(model.provenance));
    if model.fields.len() <= MOST_LISTED {
        let id = covenant_codegen::ir::ModelId(id as u32);
        let example = Samples::new(spec).instance(id, Shape::Response, false, 0);
        lines.push(example_block("example (required fields)", &example));
    }
    Some(lines)
}

fn enumeration(spec: &Spec, name: &str) -> Option<Vec<String>> {
    let e = spec.enum_named(name)?;
    let mut values: Vec<String> = e
        .values
        .iter()
        .take(MOST_LISTED)
        .map(|v| format!("`{}`", v.name))
        .collect();
    if e.values.len() > MOST_LISTED {
        values.push(format!("… {} more", e.values.len() - MOST_LISTED));
    }
    let mut lines = vec![format!(
        "{} enum: {}",
        if e.open {
            "open (may gain values; clients keep unknown ones)"
        } else {
            "closed"
        },
        values.join(", ")
    )];
    lines.extend(e.not_shown.iter().map(|n| format!("not shown: {n}")));
    lines.push(wire::provenance(e.provenance));
    Some(lines)
}

fn endpoint(spec: &Spec, ep: &Endpoint) -> Vec<String> {
    let api = spec.api(ep.api);
    let mut lines = vec![format!(
        "`{} {}` (api `{}`)",
        ep.method.as_str(),
        ep.path,
        api.name
    )];
    let auth: Vec<&str> = ep
        .auth
        .every_scheme()
        .map(|id| spec.auth(id).name.as_str())
        .collect();
    lines.push(if ep.auth.public {
        "auth: public".to_string()
    } else {
        format!("auth: {}", auth.join(" | "))
    });
    let statuses: Vec<String> = all_responses(spec, ep)
        .map(|r| match &r.body {
            Some(body) => format!("{} `{}`", r.status, spec.type_name(body)),
            None => r.status.to_string(),
        })
        .collect();
    lines.push(format!("statuses: {}", statuses.join(", ")));
    lines.extend(ep.not_shown.iter().map(|n| format!("not shown: {n}")));
    lines.push(wire::provenance(ep.provenance));
    if let Some(answer) = Samples::new(spec).answer(ep)
        && let Some(body) = &answer.body
    {
        let title = format!("the mock answers {}", answer.status);
        lines.push(example_block(&title, body));
    }
    lines
}

fn example_block(title: &str, value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    // A hover is read at a glance: a long example is cut, not scrolled.
    let shown: Vec<&str> = text.lines().take(24).collect();
    let more = if text.lines().count() > shown.len() {
        "\n…"
    } else {
        ""
    };
    format!("{title}:\n```json\n{}{more}\n```", shown.join("\n"))
}
