//! Constraint checks of generated types. Every issue is collected with its location; the
//! first one never hides the rest.

use crate::issue::{Issue, LocPart};

/// Checks the constraints serde cannot: bounds, lengths, patterns, closed sets, formats of
/// plain-string fields. Generated for every type; a type whose every constraint serde
/// already enforces keeps the default, which finds nothing.
pub trait Validate {
    /// Appends every issue under `loc` to `out`.
    fn validate_at(&self, loc: &mut Vec<LocPart>, out: &mut Vec<Issue>) {
        let _ = (loc, out);
    }

    /// Every issue, or `Ok` when there is none.
    fn validate(&self) -> Result<(), Vec<Issue>> {
        let mut out = Vec::new();
        self.validate_at(&mut Vec::new(), &mut out);
        if out.is_empty() { Ok(()) } else { Err(out) }
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, loc: &mut Vec<LocPart>, out: &mut Vec<Issue>) {
        for (i, item) in self.iter().enumerate() {
            loc.push(LocPart::Index(i));
            item.validate_at(loc, out);
            loc.pop();
        }
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate_at(&self, loc: &mut Vec<LocPart>, out: &mut Vec<Issue>) {
        if let Some(v) = self {
            v.validate_at(loc, out);
        }
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate_at(&self, loc: &mut Vec<LocPart>, out: &mut Vec<Issue>) {
        (**self).validate_at(loc, out);
    }
}

impl<T: Validate> Validate for crate::Tristate<T> {
    fn validate_at(&self, loc: &mut Vec<LocPart>, out: &mut Vec<Issue>) {
        if let crate::Tristate::Value(v) = self {
            v.validate_at(loc, out);
        }
    }
}

pub use crate::issue::check;
