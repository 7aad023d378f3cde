//! Element ids: stable, so a reviewer can link to a field or a status, and unique per page.

use crate::ir::StatusPattern;
use std::collections::HashSet;

/// A name as an id or URL fragment: letters, digits, `-` and `_` stay; any other byte is
/// `~` and its hex, so two names never share a slug.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("~{b:02X}"));
        }
    }
    out
}

pub fn field(name: &str) -> String {
    format!("field-{}", slug(name))
}

pub fn param(name: &str) -> String {
    format!("param-{}", slug(name))
}

pub fn status(status: StatusPattern) -> String {
    format!("status-{status}")
}

pub fn response_field(status: StatusPattern, name: &str) -> String {
    format!("status-{status}-field-{}", slug(name))
}

pub fn header(status: StatusPattern, name: &str) -> String {
    format!("status-{status}-header-{}", slug(name))
}

pub fn value(name: &str) -> String {
    format!("value-{}", slug(name))
}

pub fn placeholder(name: &str) -> String {
    format!("placeholder-{}", slug(name))
}

pub fn scheme(name: &str) -> String {
    format!("scheme-{}", slug(name))
}

pub fn api(name: &str) -> String {
    format!("api-{}", slug(name))
}

pub fn limit(name: &str) -> String {
    format!("limit-{}", slug(name))
}

pub fn rate_limit(name: &str) -> String {
    format!("rate-limit-{}", slug(name))
}

pub fn states(name: &str) -> String {
    format!("states-{}", slug(name))
}

pub fn state(machine: &str, name: &str) -> String {
    format!("states-{}-{}", slug(machine), slug(name))
}

/// The ids given out on one page. A name given twice (a request-only and a response-only
/// field of one name) gets `-2`, `-3`: the first keeps the plain id links point at.
#[derive(Debug)]
pub struct Ids {
    taken: HashSet<String>,
}

/// Ids the page layout itself uses.
pub const LAYOUT: &[&str] = &[
    "main",
    "site-nav",
    "search",
    "search-results",
    "search-status",
];

impl Default for Ids {
    fn default() -> Self {
        Ids {
            taken: LAYOUT.iter().map(|s| s.to_string()).collect(),
        }
    }
}

impl Ids {
    pub fn take(&mut self, id: String) -> String {
        if self.taken.insert(id.clone()) {
            return id;
        }
        let mut n = 2;
        loop {
            let next = format!("{id}-{n}");
            if self.taken.insert(next.clone()) {
                return next;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_distinct_and_safe() {
        assert_eq!(slug("user_id"), "user_id");
        assert_eq!(slug("X-RateLimit-Remaining"), "X-RateLimit-Remaining");
        assert_ne!(slug("a b"), slug("a_b"));
        assert_ne!(slug("+1"), slug("~2B1"));
        assert!(
            slug("é<\"")
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b'"')
        );
    }

    #[test]
    fn repeated_ids_are_numbered() {
        let mut ids = Ids::default();
        assert_eq!(ids.take(field("a")), "field-a");
        assert_eq!(ids.take(field("a")), "field-a-2");
        assert_eq!(ids.take("main".into()), "main-2");
    }
}
