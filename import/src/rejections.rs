//! The router's own errors (401, 404, 422, …) in the document's error shape: the error
//! model most operations answer becomes the api's `rejections`, its message field marked
//! `@rejection(message)` and a whole-number field `@rejection(status)`, when every field it
//! requires can be filled so.

use crate::build::*;
use crate::importer::Importer;
use covenant_codegen::ast::{Item, ItemKind, ModelMember, TypeAtomKind};
use serde_json::Value;
use std::collections::BTreeMap;

/// Names of fields that say what went wrong, most telling first.
const MESSAGE_FIELDS: &[&str] = &[
    "message",
    "error_message",
    "detail",
    "description",
    "error",
    "msg",
];

impl<'d> Importer<'d> {
    /// The model the document's errors are most often written in, marked to hold the
    /// router's own errors; `None` when no error model can.
    pub fn rejections_model(&mut self) -> Option<String> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let paths = self.doc.get("paths")?.as_object()?;
        for item in paths.values() {
            let Some(item) = item.as_object() else {
                continue;
            };
            for op in item.values() {
                let Some(responses) = op.get("responses").and_then(Value::as_object) else {
                    continue;
                };
                for (status, response) in responses {
                    let error =
                        status == "default" || status.starts_with('4') || status.starts_with('5');
                    if !error {
                        continue;
                    }
                    let response = self.follow(response);
                    let Some(content) = response.get("content").and_then(Value::as_object) else {
                        continue;
                    };
                    for media in content.values() {
                        let reference = media.pointer("/schema/$ref").and_then(Value::as_str);
                        if let Some(Some(name)) = reference.and_then(|r| self.components.get(r)) {
                            *counts.entry(name.clone()).or_default() += 1;
                        }
                    }
                }
            }
        }
        let (name, _) = counts
            .into_iter()
            .max_by_key(|(name, count)| (*count, std::cmp::Reverse(name.clone())))?;
        mark_rejection_fields(&mut self.type_items, &name).then_some(name)
    }
}

/// Marks the fields of model `name` the router fills; false (and nothing marked) when a
/// required field could not be filled or none says what went wrong.
fn mark_rejection_fields(items: &mut [Item], name: &str) -> bool {
    let Some(model) = items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Model(decl) if decl.name.text == name => Some(decl),
        _ => None,
    }) else {
        return false;
    };
    let mut marks: Vec<(usize, &'static str)> = Vec::new();
    let mut message = None;
    for wanted in MESSAGE_FIELDS {
        message = model.members.iter().position(|m| {
            matches!(&m.node, ModelMember::Field(f) if f.name.text == *wanted && is_plain(f, "string"))
                && !constrained(&m.attrs)
        });
        if message.is_some() {
            break;
        }
    }
    let Some(message) = message else {
        return false;
    };
    marks.push((message, "message"));
    let mut status_marked = false;
    for (index, member) in model.members.iter().enumerate() {
        let ModelMember::Field(f) = &member.node else {
            continue;
        };
        if index == message || f.optional.is_some() {
            continue;
        }
        if is_plain(f, "int") && !status_marked && !constrained(&member.attrs) {
            marks.push((index, "status"));
            status_marked = true;
        } else {
            return false;
        }
    }
    for (index, slot) in marks {
        model.members[index]
            .attrs
            .annotations
            .push(annotation("rejection", vec![arg(reference(slot))]));
    }
    true
}

/// Whether a field carries constraints: a value the router fills might break them.
fn constrained(attrs: &covenant_codegen::ast::Attrs) -> bool {
    const CONSTRAINTS: &[&str] = &[
        "min",
        "max",
        "min_length",
        "max_length",
        "pattern",
        "one_of",
        "format",
    ];
    attrs
        .annotations
        .iter()
        .any(|a| CONSTRAINTS.contains(&a.name.text.as_str()))
}

/// Whether a field's type is this built-in type alone (no union, no null).
fn is_plain(field: &covenant_codegen::ast::FieldDecl, builtin: &str) -> bool {
    matches!(
        field.ty.alternatives.as_slice(),
        [atom] if matches!(&atom.kind, TypeAtomKind::Named(n) if n.text == builtin)
    )
}
