//! Where an example body holds `@secret` strings a mock can mint afresh for each answer: a
//! mock that hands every caller the same example key makes a key indistinguishable from
//! ordinary text, and a conformance report then reads it as a leaked secret everywhere.

use crate::ir::*;
use serde_json::Value;

/// How deep the walk follows a body; examples end long before.
const MAX_DEPTH: usize = 32;

/// The JSON pointers (RFC 6901) of the `@secret` strings in `value`, an example of `ty`,
/// that a minted value may replace: fields with no pattern or format to keep, whose length
/// bound leaves room for a suffix of [`MINTED_SUFFIX`] characters.
pub fn mintable_secrets(spec: &Spec, ty: &Type, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(spec, ty, value, String::new(), &mut out, 0);
    // Members of a union may name one place twice: it is minted once.
    out.sort();
    out.dedup();
    out
}

/// What the runtime adds to a minted secret: `_` and 32 hexadecimal digits.
pub const MINTED_SUFFIX: u64 = 33;

fn walk(spec: &Spec, ty: &Type, value: &Value, at: String, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match (ty, value) {
        (Type::Model(id), Value::Object(fields)) => {
            for field in &spec.model(*id).fields {
                let Some(held) = fields.get(&field.name) else {
                    continue;
                };
                let place = format!("{at}/{}", escape(&field.name));
                if field.secret && held.is_string() && room_for_a_suffix(field, held) {
                    out.push(place);
                } else {
                    walk(spec, &field.ty, held, place, out, depth + 1);
                }
            }
        }
        (Type::List(item, _), Value::Array(items)) => {
            for (index, held) in items.iter().enumerate() {
                walk(spec, item, held, format!("{at}/{index}"), out, depth + 1);
            }
        }
        (Type::Map(inner, _), Value::Object(entries)) => {
            for (key, held) in entries {
                walk(
                    spec,
                    inner,
                    held,
                    format!("{at}/{}", escape(key)),
                    out,
                    depth + 1,
                );
            }
        }
        (Type::Union(members), _) => {
            for member in members {
                walk(spec, member, value, at.clone(), out, depth + 1);
            }
        }
        (Type::NamedUnion(id), _) => {
            for member in &spec.union(*id).members {
                walk(spec, member, value, at.clone(), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A plain string field whose bounds allow the example with a minted suffix.
fn room_for_a_suffix(field: &Field, held: &Value) -> bool {
    let c = &field.constraints;
    let plain = matches!(field.ty, Type::Primitive(Primitive::String))
        && c.pattern.is_none()
        && c.format.is_none()
        && c.one_of.is_empty();
    let length = held.as_str().map_or(0, |s| s.chars().count() as u64);
    plain && c.max_length.is_none_or(|max| length + MINTED_SUFFIX <= max)
}

/// A key or field name as one segment of a JSON pointer.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
