//! The words of the language, for tools that offer them to an author (an editor's
//! completion): the lists the parser and checker themselves use, so the two cannot drift.

pub use crate::parser::{ITEM_KEYWORDS, UNITS};

/// Every annotation the checker knows (`@source`, `@max_length`, …), without the `@`.
pub fn annotations() -> impl Iterator<Item = &'static str> {
    crate::lower::annotation_names()
}

/// The built-in types a field or parameter may name.
pub const PRIMITIVES: &[&str] = &[
    "string", "int", "number", "bool", "uuid", "date", "datetime", "email", "uri", "timezone",
    "object", "any", "bytes", "file",
];

/// The words a member of an endpoint starts with.
pub const ENDPOINT_MEMBERS: &[&str] = &[
    "api",
    "auth",
    "public",
    "tags",
    "path",
    "query",
    "header",
    "body",
    "response",
    "error",
    "rejections",
    "not_shown",
];

/// The words `@source(…)` takes: where a fact comes from.
pub const SOURCES: &[&str] = &["document", "deployed_client", "toolkit"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Primitive;

    #[test]
    fn every_listed_primitive_is_one_the_checker_knows() {
        for name in PRIMITIVES {
            assert!(Primitive::from_name(name).is_some(), "{name}");
        }
    }
}
