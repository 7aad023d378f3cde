//! Marking an error model to hold the router's own errors: its message field
//! `@rejection(message)`, a whole-number field `@rejection(status)`, an error code of a
//! closed list the code of a refused request, and fields of one value left to fill themselves.

use crate::build::*;
use covenant_codegen::ast::{
    Attrs, EnumMember, FieldDecl, Item, ItemKind, ModelDecl, ModelMember, TypeAtomKind, Value,
};
use std::collections::HashMap;

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

/// Words of codes about credentials: a malformed request answered with one would read as a
/// bad key to the client.
const CREDENTIAL_WORDS: &[&str] = &["auth", "token", "scope", "credential"];

/// The codes each enum of the spec offers a refused request, by the enum's name.
pub struct Codes {
    /// The code that says so.
    refusal: HashMap<String, &'static str>,
    /// For an enum holding none of those, the one picked: its first beginning `invalid`,
    /// else its first, leaving out codes about credentials.
    fallback: HashMap<String, String>,
}

impl Codes {
    pub fn of(items: &[Item]) -> Codes {
        let mut codes = Codes {
            refusal: HashMap::new(),
            fallback: HashMap::new(),
        };
        for item in items {
            let ItemKind::Enum(decl) = &item.kind else {
                continue;
            };
            let values: Vec<&str> = (decl.members.iter())
                .filter_map(|m| match &m.node {
                    EnumMember::Value(v) => Some(v.text.as_str()),
                    _ => None,
                })
                .collect();
            let name = decl.name.text.clone();
            if let Some(code) = REFUSAL_CODES.iter().find(|c| values.contains(c)) {
                codes.refusal.insert(name, code);
                continue;
            }
            let candidates: Vec<&str> = (values.into_iter())
                .filter(|v| !CREDENTIAL_WORDS.iter().any(|word| v.contains(word)))
                .collect();
            let picked =
                (candidates.iter().find(|v| v.starts_with("invalid"))).or(candidates.first());
            if let Some(code) = picked {
                codes.fallback.insert(name, code.to_string());
            }
        }
        codes
    }
}

/// What marking a model came to.
pub enum Marked {
    /// It cannot hold the router's errors: nothing is marked.
    No,
    /// It holds them as the document means them.
    Exact,
    /// It holds them with a code picked from a list that holds none for a refused request.
    Picked(PickedCode),
}

/// A code the router's errors answer though the list does not say it means a refused request.
pub struct PickedCode {
    /// The index of the code's field among the model's members.
    pub field: usize,
    pub code: String,
}

/// Marks the fields of model `name` the router fills, when every field it requires can be
/// filled and one says what went wrong. A code is picked from a list holding none for a
/// refused request only when `may_pick`.
pub fn mark_rejection_fields(
    items: &mut [Item],
    name: &str,
    codes: &Codes,
    may_pick: bool,
) -> Marked {
    let Some(model) = model_mut(items, name) else {
        return Marked::No;
    };
    let Some((marks, picked)) = plan_marks(model, codes, may_pick) else {
        return Marked::No;
    };
    for (index, slot) in marks {
        model.members[index]
            .attrs
            .annotations
            .push(annotation("rejection", vec![arg(slot)]));
    }
    picked.map_or(Marked::Exact, Marked::Picked)
}

/// The slot each field is marked with, by the field's index among the model's members.
type Slots = Vec<(usize, Value)>;

/// The slot each field of `model` is marked with, and the code picked; `None` when the
/// router's errors would not fit.
fn plan_marks(
    model: &ModelDecl,
    codes: &Codes,
    may_pick: bool,
) -> Option<(Slots, Option<PickedCode>)> {
    let message = message_field(model);
    let mut marks: Slots = message
        .map(|index| (index, reference("message")))
        .into_iter()
        .collect();
    let (mut status_marked, mut coded, mut uncoded) = (false, false, None);
    for (index, member) in model.members.iter().enumerate() {
        let ModelMember::Field(f) = &member.node else {
            continue;
        };
        if Some(index) == message || is_constant(f) {
            continue;
        }
        let refusal = enum_name(f).and_then(|e| codes.refusal.get(e));
        let fallback = enum_name(f).and_then(|e| codes.fallback.get(e));
        // A code is given even where it may be left out: it says what went wrong.
        if let Some(code) = refusal.filter(|_| !coded) {
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
    let says_what = message.is_some() || coded || picked.is_some() || holds_detail(model);
    says_what.then_some((marks, picked))
}

/// The field that says what went wrong: the first of [`MESSAGE_FIELDS`] that is a plain,
/// unconstrained string.
fn message_field(model: &ModelDecl) -> Option<usize> {
    MESSAGE_FIELDS.iter().find_map(|wanted| {
        model.members.iter().position(|m| {
            matches!(&m.node, ModelMember::Field(f) if f.name.text == *wanted && is_plain(f, "string"))
                && !constrained(&m.attrs)
        })
    })
}

/// Whether a model that admits further fields holds the message under `detail`: unless a
/// field of its own has that name.
fn holds_detail(model: &ModelDecl) -> bool {
    (model.members.iter()).any(|m| matches!(&m.node, ModelMember::NotShown { fields: true, .. }))
        && !(model.members.iter())
            .any(|m| matches!(&m.node, ModelMember::Field(f) if f.name.text == "detail"))
}

/// The model declared as `name`.
pub fn model_mut<'i>(items: &'i mut [Item], name: &str) -> Option<&'i mut ModelDecl> {
    items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Model(decl) if decl.name.text == name => Some(decl),
        _ => None,
    })
}

/// The enum a field's type names alone.
fn enum_name(field: &FieldDecl) -> Option<&str> {
    match field.ty.alternatives.as_slice() {
        [atom] => match &atom.kind {
            TypeAtomKind::Named(n) => Some(&n.text),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a field always holds one value (`ok: false`, `object: "error"`).
fn is_constant(field: &FieldDecl) -> bool {
    matches!(
        field.ty.alternatives.as_slice(),
        [atom] if matches!(&atom.kind, TypeAtomKind::Constant(_) | TypeAtomKind::ScalarConstant(_))
    )
}

/// Whether a field carries constraints: a value the router fills might break them.
fn constrained(attrs: &Attrs) -> bool {
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
fn is_plain(field: &FieldDecl, builtin: &str) -> bool {
    matches!(
        field.ty.alternatives.as_slice(),
        [atom] if matches!(&atom.kind, TypeAtomKind::Named(n) if n.text == builtin)
    )
}
