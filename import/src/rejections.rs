//! The router's own errors (401, 404, 422, …) in the document's error shape: the error
//! model most operations answer becomes the api's `rejections`, and an operation whose own
//! error model is another (Slack's, one per method) gets `rejections` of its own. A model's
//! message field is marked `@rejection(message)`, a whole-number field `@rejection(status)`,
//! and an error code from a closed list the code for a refused request, when every field
//! it requires can be filled so.

use crate::build::*;
use crate::importer::Importer;
use crate::losses::{Completeness, Loss};
use crate::operations::Written;
use covenant_codegen::ast::{
    EndpointMember, EnumMember, Item, ItemKind, ModelMember, StatusForm, TypeAtomKind,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Names of fields that say what went wrong, most telling first.
const MESSAGE_FIELDS: &[&str] = &[
    "message",
    "error_message",
    "detail",
    "description",
    "error",
    "msg",
];

/// Codes of a closed list that say a request was refused as malformed, most telling first.
const REFUSAL_CODES: &[&str] = &[
    "invalid_arguments",
    "invalid_request",
    "invalid_request_error",
    "bad_request",
    "validation_error",
    "invalid_form_data",
    "invalid_arg_name",
];

impl<'d> Importer<'d> {
    /// Gives each endpoint whose own error model is not the api's (`api_model`) that model as
    /// its `rejections`, when the model can hold the router's errors: its `default` error's,
    /// else its 400's, 422's or 4XX's. A code picked from a closed list that holds none for a
    /// refused request is a loss of every operation answering in that model.
    pub fn endpoint_rejections(&mut self, api_model: Option<&str>, operations: &mut [Written]) {
        let mut fits: HashMap<String, Fit> = HashMap::new();
        for written in operations {
            let Some(ItemKind::Endpoint(decl)) = written.item.as_mut().map(|i| &mut i.kind) else {
                continue;
            };
            let Some((model, status)) = own_error_model(&decl.members) else {
                continue;
            };
            if Some(model.as_str()) == api_model {
                continue;
            }
            if !fits.contains_key(&model) {
                let response = self.response_pointer(&written.report.pointer, &status);
                let fit = self.fit_rejections(&model, &response);
                fits.insert(model.clone(), fit);
            }
            match &fits[&model] {
                Fit::No => continue,
                Fit::Exact => {}
                Fit::PickedCode(loss) => {
                    let report = &mut written.report;
                    if !report.losses.contains(loss) {
                        report.losses.push(loss.clone());
                    }
                    report.status = Completeness::WithLosses;
                }
            }
            let clause = EndpointMember::Rejections(ident(model));
            decl.members.push(member(Default::default(), clause));
        }
    }

    /// The pointer of the operation at `operation`'s response for `status`, as the document
    /// spells the status (`4XX` or `4xx`).
    fn response_pointer(&self, operation: &str, status: &str) -> String {
        let responses = format!("{operation}/responses");
        let spelt = (self.doc.pointer(responses.trim_start_matches('#')))
            .and_then(Value::as_object)
            .and_then(|r| r.keys().find(|k| k.eq_ignore_ascii_case(status)));
        format!("{responses}/{}", spelt.map_or(status, String::as_str))
    }

    /// Marks model `name` to hold the router's errors, when it can; a code picked for them
    /// from a closed list of others is marked `@lossy` at the error's `response` pointer.
    fn fit_rejections(&mut self, name: &str, response: &str) -> Fit {
        let Some(picked) = mark_rejection_fields(&mut self.type_items, name, true) else {
            return Fit::No;
        };
        let Some(PickedCode { field, code }) = picked else {
            return Fit::Exact;
        };
        let marker = self.as_owner(name, |this| {
            this.lose(
                response,
                "error codes of a closed list, none of them for a refused request",
                format!("the router's own errors answer `{code}`, a code of the list"),
            )
        });
        let loss = self.losses.last().map(|(_, loss)| loss.clone());
        if let Some(model) = model_mut(&mut self.type_items, name) {
            model.members[field].attrs.annotations.push(marker);
        }
        loss.map_or(Fit::No, Fit::PickedCode)
    }

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
        let marked = mark_rejection_fields(&mut self.type_items, &name, false);
        marked.is_some().then_some(name)
    }
}

/// The model an endpoint's refusals belong in, with the status of the error that gave it:
/// the body of its `default` error, else of its 400, 422 or 4XX, when a model alone.
fn own_error_model(
    members: &[covenant_codegen::ast::Member<EndpointMember>],
) -> Option<(String, String)> {
    let errors: Vec<_> = (members.iter())
        .filter_map(|m| match &m.node {
            EndpointMember::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    let preferred = [
        (StatusForm::Default, 0, "default"),
        (StatusForm::Code, 400, "400"),
        (StatusForm::Code, 422, "422"),
        (StatusForm::Class, 4, "4XX"),
    ];
    let (error, status) = preferred.iter().find_map(|(form, code, status)| {
        let error = (errors.iter()).find(|e| e.status.form == *form && e.status.code == *code)?;
        Some((error, *status))
    })?;
    let model = |e: &covenant_codegen::ast::ErrorDecl| match e.ty.as_ref()?.alternatives.as_slice()
    {
        [atom] => match &atom.kind {
            TypeAtomKind::Named(name) => Some(name.text.clone()),
            _ => None,
        },
        _ => None,
    };
    let chosen = model(error)?;
    // Every refusal goes out in one model: an error of another body (a 401 of the api's
    // model beside a `default` of the operation's) would be answered in the wrong one.
    let all_fit = (errors.iter()).all(|e| e.ty.is_none() || model(e).as_ref() == Some(&chosen));
    all_fit.then(|| (chosen, status.to_string()))
}

/// Whether a model holds the router's errors, and what that cost.
enum Fit {
    No,
    Exact,
    /// A code picked from a closed list holding none for a refused request: the loss.
    PickedCode(Loss),
}

/// A code the router's errors answer though the list does not say it means a refused request.
struct PickedCode {
    /// The index of the code's field among the model's members.
    field: usize,
    code: String,
}

/// Marks the fields of model `name` the router fills; `None` (and nothing marked) when a
/// required field could not be filled or none says what went wrong. A field of one value
/// (`ok: false`) fills itself; an error code of a closed list holds the code of a refused
/// request, or, when the list holds none and `may_pick`, a code of the list, answered.
fn mark_rejection_fields(
    items: &mut [Item],
    name: &str,
    may_pick: bool,
) -> Option<Option<PickedCode>> {
    let refusal_codes = refusal_codes(items);
    let fallback_codes = fallback_codes(items);
    let model = model_mut(items, name)?;
    let mut marks: Vec<(usize, covenant_codegen::ast::Value)> = Vec::new();
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
    if let Some(message) = message {
        marks.push((message, reference("message")));
    }
    let mut status_marked = false;
    let mut coded = false;
    let mut uncoded: Option<PickedCode> = None;
    for (index, member) in model.members.iter().enumerate() {
        let ModelMember::Field(f) = &member.node else {
            continue;
        };
        if Some(index) == message || is_constant(f) {
            continue;
        }
        // A code is given even where it may be left out: it says what went wrong.
        let code = enum_name(f).and_then(|e| refusal_codes.get(e));
        let fallback = (enum_name(f).filter(|e| !refusal_codes.contains_key(*e)))
            .and_then(|e| fallback_codes.get(e));
        if let Some(code) = code.filter(|_| !coded) {
            marks.push((index, str_value(*code)));
            coded = true;
        } else if let Some(code) = fallback.filter(|_| may_pick && uncoded.is_none()) {
            let code = code.clone();
            uncoded = Some(PickedCode { field: index, code });
        } else if f.optional.is_some() {
            continue;
        } else if is_plain(f, "int") && !status_marked && !constrained(&member.attrs) {
            marks.push((index, reference("status")));
            status_marked = true;
        } else {
            return None;
        }
    }
    // A picked code is given only where nothing else says what went wrong, or where the
    // field must hold one.
    let mut picked = None;
    if let Some(uncoded) = uncoded {
        let required = matches!(&model.members[uncoded.field].node,
            ModelMember::Field(f) if f.optional.is_none());
        if !coded && (message.is_none() || required) {
            marks.push((uncoded.field, str_value(uncoded.code.clone())));
            picked = Some(uncoded);
        } else if required {
            // A required code that no answer of the router would hold.
            return None;
        }
    }
    // A model that admits further fields holds the message under `detail`, unless a field
    // of its own has that name.
    let open = (model.members.iter())
        .any(|m| matches!(&m.node, ModelMember::NotShown { fields: true, .. }))
        && !(model.members.iter())
            .any(|m| matches!(&m.node, ModelMember::Field(f) if f.name.text == "detail"));
    if message.is_none() && !coded && picked.is_none() && !open {
        return None;
    }
    for (index, slot) in marks {
        model.members[index]
            .attrs
            .annotations
            .push(annotation("rejection", vec![arg(slot)]));
    }
    Some(picked)
}

/// The model declared as `name`.
fn model_mut<'i>(
    items: &'i mut [Item],
    name: &str,
) -> Option<&'i mut covenant_codegen::ast::ModelDecl> {
    items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Model(decl) if decl.name.text == name => Some(decl),
        _ => None,
    })
}

/// The code picked for a refused request from each enum that holds none: its first saying
/// something is invalid, else its first.
fn fallback_codes(items: &[Item]) -> HashMap<String, String> {
    (items.iter())
        .filter_map(|item| match &item.kind {
            ItemKind::Enum(decl) => {
                let values: Vec<&str> = (decl.members.iter())
                    .filter_map(|m| match &m.node {
                        EnumMember::Value(v) => Some(v.text.as_str()),
                        _ => None,
                    })
                    .collect();
                let code = (values.iter().find(|v| v.starts_with("invalid"))).or(values.first())?;
                Some((decl.name.text.clone(), code.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// The code for a refused request each enum holds, by the enum's name.
fn refusal_codes(items: &[Item]) -> HashMap<String, &'static str> {
    (items.iter())
        .filter_map(|item| match &item.kind {
            ItemKind::Enum(decl) => {
                let holds = |code: &str| {
                    (decl.members.iter())
                        .any(|m| matches!(&m.node, EnumMember::Value(v) if v.text == code))
                };
                let code = REFUSAL_CODES.iter().find(|c| holds(c))?;
                Some((decl.name.text.clone(), *code))
            }
            _ => None,
        })
        .collect()
}

/// The enum a field's type names alone.
fn enum_name(field: &covenant_codegen::ast::FieldDecl) -> Option<&str> {
    match field.ty.alternatives.as_slice() {
        [atom] => match &atom.kind {
            TypeAtomKind::Named(n) => Some(&n.text),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a field always holds one value (`ok: false`, `object: "error"`).
fn is_constant(field: &covenant_codegen::ast::FieldDecl) -> bool {
    matches!(
        field.ty.alternatives.as_slice(),
        [atom] if matches!(&atom.kind, TypeAtomKind::Constant(_) | TypeAtomKind::ScalarConstant(_))
    )
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
