//! How a router writes the errors it answers itself (400, 401, 403, 404, 405, 413, 422, 503): the
//! spec's error model when it declares one (`rejections` on its api), filled in from a
//! template, or `{"detail": …}` by default.

use crate::issue::{Issue, LocPart};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The key of a template object standing for a value the router fills in.
const SLOT: &str = "$rejection";

/// The shape of a router's own errors.
#[derive(Clone, Debug, Default)]
pub struct RejectionShape {
    /// `None`: `{"detail": message}`, or `{"detail": [issues]}` for a 422.
    template: Option<Arc<Value>>,
}

impl RejectionShape {
    /// The shape a spec declares: a JSON template in which `{"$rejection": "message"}`,
    /// `"status"`, `"param"` and `"issues"` stand for the rejection's message, status, the
    /// first problem's input (the key is left out when there is none) and the list of
    /// problems (`{"loc", "msg", "type"}` each; empty when there are none). `covenant
    /// generate` writes it from the spec; text that is not JSON keeps the default shape.
    pub fn from_template(text: &str) -> Self {
        RejectionShape {
            template: serde_json::from_str(text).ok().map(Arc::new),
        }
    }

    /// `{"detail": …}`: no spec shape was set.
    pub fn is_default(&self) -> bool {
        self.template.is_none()
    }

    /// The body of a rejection with this status and message, and the problems of a 422.
    pub fn body(&self, status: u16, message: &str, issues: Option<&[Issue]>) -> Value {
        let Some(template) = &self.template else {
            return match issues {
                Some(issues) => json!({ "detail": issues }),
                None => json!({ "detail": message }),
            };
        };
        let filled = Filled {
            status,
            message: match issues {
                Some(issues) => summary(issues),
                None => message.to_string(),
            },
            issues: issues.unwrap_or_default(),
        };
        filled.render(template).unwrap_or(Value::Null)
    }
}

/// What a template's slots are filled with.
struct Filled<'a> {
    status: u16,
    message: String,
    issues: &'a [Issue],
}

impl Filled<'_> {
    /// The template with its slots filled; `None` for a slot with nothing to say (its key
    /// is then left out).
    fn render(&self, template: &Value) -> Option<Value> {
        match template {
            Value::Object(fields) => {
                if let (1, Some(Value::String(slot))) = (fields.len(), fields.get(SLOT)) {
                    return self.slot(slot);
                }
                let filled: Map<String, Value> = fields
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), self.render(v)?)))
                    .collect();
                Some(Value::Object(filled))
            }
            other => Some(other.clone()),
        }
    }

    fn slot(&self, slot: &str) -> Option<Value> {
        match slot {
            "message" => Some(Value::String(self.message.clone())),
            "status" => Some(Value::from(self.status)),
            "issues" => serde_json::to_value(self.issues).ok(),
            "param" => self.issues.first().map(|i| Value::String(param(&i.loc))),
            _ => None,
        }
    }
}

/// Where the first problem is, without the location: `amount`, `metadata.plan`, `items[0]`;
/// the location itself (`body`) for a problem of the whole input, such as broken JSON,
/// whose loc ends in a character offset.
fn param(loc: &[LocPart]) -> String {
    if let (Some(LocPart::Key(location)), Some(LocPart::Index(_))) = (loc.first(), loc.get(1)) {
        return location.to_string();
    }
    let mut out = String::new();
    for (i, part) in loc.iter().enumerate().skip(1) {
        match part {
            LocPart::Key(k) => {
                if i > 1 {
                    out.push('.');
                }
                out.push_str(k);
            }
            LocPart::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    if out.is_empty() {
        loc.first()
            .map(|p| match p {
                LocPart::Key(k) => k.to_string(),
                LocPart::Index(n) => n.to_string(),
            })
            .unwrap_or_default()
    } else {
        out
    }
}

/// One line naming every problem, for a model with a message but no list of problems.
fn summary(issues: &[Issue]) -> String {
    let parts: Vec<String> = issues
        .iter()
        .map(|i| format!("{}: {}", param(&i.loc), i.msg))
        .collect();
    format!("Invalid request: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issue::IssueKind;

    fn issue(loc: &[LocPart], msg: &str) -> Issue {
        Issue::new(loc, IssueKind::Missing, msg)
    }

    #[test]
    fn the_default_shape_is_detail() {
        let shape = RejectionShape::default();
        assert_eq!(
            shape.body(404, "No route", None),
            json!({"detail": "No route"})
        );
        let issues = [issue(
            &[LocPart::key("body"), LocPart::key("a")],
            "Field required",
        )];
        assert_eq!(
            shape.body(422, "", Some(&issues)),
            json!({"detail": [{"loc": ["body", "a"], "msg": "Field required", "type": "missing"}]})
        );
    }

    #[test]
    fn a_template_is_filled_and_empty_slots_left_out() {
        let shape = RejectionShape::from_template(
            r#"{"error": {"type": "invalid_request_error", "message": {"$rejection": "message"},
                "param": {"$rejection": "param"}, "code": {"$rejection": "status"}}}"#,
        );
        assert_eq!(
            shape.body(401, "Missing credentials", None),
            json!({"error": {"type": "invalid_request_error", "message": "Missing credentials", "code": 401}})
        );
        let issues = [
            issue(
                &[LocPart::key("body"), LocPart::key("amount")],
                "Field required",
            ),
            issue(&[LocPart::key("query"), LocPart::key("limit")], "Too big"),
        ];
        assert_eq!(
            shape.body(422, "", Some(&issues)),
            json!({"error": {
                "type": "invalid_request_error",
                "message": "Invalid request: amount: Field required; limit: Too big",
                "param": "amount",
                "code": 422
            }})
        );
    }
}
