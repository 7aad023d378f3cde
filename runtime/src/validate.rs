//! Constraint checks of generated types. Every violation is collected with its path; the
//! first one never hides the rest.

use serde::Serialize;
use std::fmt;

/// One step of a path into a JSON document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PathSegment {
    Key(String),
    Index(usize),
}

/// One broken constraint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where, from the value `validate` was called on.
    pub path: Vec<PathSegment>,
    pub message: String,
    /// A stable machine-readable kind, e.g. `less_than_minimum` or `pattern_mismatch`.
    pub kind: &'static str,
}

impl Violation {
    /// The path as a JSON path, e.g. `$.connections[2].user_id`.
    pub fn json_path(&self) -> String {
        let mut out = String::from("$");
        for seg in &self.path {
            match seg {
                PathSegment::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                PathSegment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.json_path(), self.message)
    }
}

/// Checks the constraints serde cannot: bounds, lengths, patterns, closed sets, formats of
/// plain-string fields. Generated for every model.
pub trait Validate {
    /// Appends every violation under `path` to `out`.
    fn validate_at(&self, path: &mut Vec<PathSegment>, out: &mut Vec<Violation>);

    /// Every violation, or `Ok` when there is none.
    fn validate(&self) -> Result<(), Vec<Violation>> {
        let mut out = Vec::new();
        self.validate_at(&mut Vec::new(), &mut out);
        if out.is_empty() { Ok(()) } else { Err(out) }
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, path: &mut Vec<PathSegment>, out: &mut Vec<Violation>) {
        for (i, item) in self.iter().enumerate() {
            path.push(PathSegment::Index(i));
            item.validate_at(path, out);
            path.pop();
        }
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate_at(&self, path: &mut Vec<PathSegment>, out: &mut Vec<Violation>) {
        if let Some(v) = self {
            v.validate_at(path, out);
        }
    }
}

impl<T: Validate> Validate for crate::Tristate<T> {
    fn validate_at(&self, path: &mut Vec<PathSegment>, out: &mut Vec<Violation>) {
        if let crate::Tristate::Value(v) = self {
            v.validate_at(path, out);
        }
    }
}

/// The checks generated code calls; each pushes a violation at `path` when it fails.
pub mod check {
    use super::{PathSegment, Violation};

    fn push(out: &mut Vec<Violation>, path: &[PathSegment], kind: &'static str, message: String) {
        out.push(Violation {
            path: path.to_vec(),
            message,
            kind,
        });
    }

    pub fn minimum(v: f64, min: f64, path: &[PathSegment], out: &mut Vec<Violation>) {
        if v < min {
            push(
                out,
                path,
                "less_than_minimum",
                format!("must be at least {min}"),
            );
        }
    }

    pub fn maximum(v: f64, max: f64, path: &[PathSegment], out: &mut Vec<Violation>) {
        if v > max {
            push(
                out,
                path,
                "greater_than_maximum",
                format!("must be at most {max}"),
            );
        }
    }

    /// Lengths count characters (Unicode scalar values), as JSON Schema does.
    pub fn min_length(s: &str, min: usize, path: &[PathSegment], out: &mut Vec<Violation>) {
        if s.chars().count() < min {
            push(
                out,
                path,
                "too_short",
                format!("must have at least {min} characters"),
            );
        }
    }

    pub fn max_length(s: &str, max: usize, path: &[PathSegment], out: &mut Vec<Violation>) {
        if s.chars().count() > max {
            push(
                out,
                path,
                "too_long",
                format!("must have at most {max} characters"),
            );
        }
    }

    pub fn min_items(len: usize, min: usize, path: &[PathSegment], out: &mut Vec<Violation>) {
        if len < min {
            push(
                out,
                path,
                "too_few_items",
                format!("must have at least {min} items"),
            );
        }
    }

    pub fn max_items(len: usize, max: usize, path: &[PathSegment], out: &mut Vec<Violation>) {
        if len > max {
            push(
                out,
                path,
                "too_many_items",
                format!("must have at most {max} items"),
            );
        }
    }

    pub fn pattern(s: &str, re: &regex::Regex, path: &[PathSegment], out: &mut Vec<Violation>) {
        if !re.is_match(s) {
            push(
                out,
                path,
                "pattern_mismatch",
                format!("must match the pattern {}", re.as_str()),
            );
        }
    }

    pub fn one_of_numbers(v: f64, allowed: &[f64], path: &[PathSegment], out: &mut Vec<Violation>) {
        if !allowed.contains(&v) {
            let list: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
            push(
                out,
                path,
                "not_allowed",
                format!("must be one of {}", list.join(", ")),
            );
        }
    }

    pub fn one_of_strings(
        v: &str,
        allowed: &[&str],
        path: &[PathSegment],
        out: &mut Vec<Violation>,
    ) {
        if !allowed.contains(&v) {
            let list: Vec<String> = allowed.iter().map(|s| format!("{s:?}")).collect();
            push(
                out,
                path,
                "not_allowed",
                format!("must be one of {}", list.join(", ")),
            );
        }
    }

    pub fn email(s: &str, path: &[PathSegment], out: &mut Vec<Violation>) {
        if !crate::formats::is_email(s) {
            push(
                out,
                path,
                "invalid_email",
                "must be an e-mail address".to_string(),
            );
        }
    }
}
