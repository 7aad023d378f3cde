//! The statuses one declared response stands for: one status (`404`), a class of them
//! (`4XX`), or every status the endpoint declares no other response for (`default`), as
//! OpenAPI's response keys say. An answer's status finds its response by
//! [`StatusPattern::resolve`]: the exact status first, then its class, then `default`.

use std::fmt;

/// Which statuses a declared response covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatusPattern {
    /// One status.
    Exact(u16),
    /// Every status of a class: `4` for `4XX`.
    Class(u8),
    /// Every status no other response of the endpoint covers.
    Default,
}

impl StatusPattern {
    /// Whether an answer of `status` falls under this pattern, taken alone.
    pub fn covers(self, status: u16) -> bool {
        match self {
            StatusPattern::Exact(code) => code == status,
            StatusPattern::Class(class) => status / 100 == u16::from(class),
            StatusPattern::Default => true,
        }
    }

    /// The one status of an exact pattern.
    pub fn exact(self) -> Option<u16> {
        match self {
            StatusPattern::Exact(code) => Some(code),
            _ => None,
        }
    }

    /// Whether the pattern is one status, within `range`.
    pub fn exactly_in(self, range: std::ops::Range<u16>) -> bool {
        self.exact().is_some_and(|code| range.contains(&code))
    }

    /// A status an answer of this pattern may have, for examples and mocks: the exact one,
    /// the class's first (`400`), `500` for `default`.
    pub fn representative(self) -> u16 {
        match self {
            StatusPattern::Exact(code) => code,
            StatusPattern::Class(class) => u16::from(class) * 100,
            StatusPattern::Default => 500,
        }
    }

    /// Whether the pattern names successes only (1xx to 3xx).
    pub fn is_success(self) -> bool {
        match self {
            StatusPattern::Exact(code) => code < 400,
            StatusPattern::Class(class) => class < 4,
            StatusPattern::Default => false,
        }
    }

    /// The pattern of OpenAPI's response key: `404`, `4XX` (any case), `default`.
    pub fn parse(key: &str) -> Option<StatusPattern> {
        if key == "default" {
            return Some(StatusPattern::Default);
        }
        let bytes = key.as_bytes();
        if bytes.len() == 3 && bytes[1..].eq_ignore_ascii_case(b"XX") {
            return match bytes[0] {
                digit @ b'1'..=b'5' => Some(StatusPattern::Class(digit - b'0')),
                _ => None,
            };
        }
        match key.parse::<u16>() {
            Ok(code) if (100..=599).contains(&code) && key.len() == 3 => {
                Some(StatusPattern::Exact(code))
            }
            _ => None,
        }
    }

    /// The response among `declared` that answers `status`: the exact one, else the
    /// class's, else `default`.
    pub fn resolve<T>(
        declared: impl IntoIterator<Item = (StatusPattern, T)>,
        status: u16,
    ) -> Option<T> {
        let mut best: Option<(u8, T)> = None;
        for (pattern, item) in declared {
            let rank = match pattern {
                StatusPattern::Exact(code) if code == status => 0,
                StatusPattern::Class(_) if pattern.covers(status) => 1,
                StatusPattern::Default => 2,
                _ => continue,
            };
            if best.as_ref().is_none_or(|(held, _)| rank < *held) {
                best = Some((rank, item));
            }
        }
        best.map(|(_, item)| item)
    }
}

impl fmt::Display for StatusPattern {
    /// As OpenAPI keys a response: `404`, `4XX`, `default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusPattern::Exact(code) => write!(f, "{code}"),
            StatusPattern::Class(class) => write!(f, "{class}XX"),
            StatusPattern::Default => f.write_str("default"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StatusPattern::{self, *};

    #[test]
    fn an_answer_finds_the_most_specific_response() {
        let declared = [(Default, "d"), (Class(4), "c"), (Exact(404), "e")];
        assert_eq!(StatusPattern::resolve(declared, 404), Some("e"));
        assert_eq!(StatusPattern::resolve(declared, 409), Some("c"));
        assert_eq!(StatusPattern::resolve(declared, 503), Some("d"));
        assert_eq!(StatusPattern::resolve([(Exact(200), 1)], 201), None);
    }

    #[test]
    fn keys_read_and_print_as_openapi_writes_them() {
        for key in ["404", "4XX", "default"] {
            assert_eq!(StatusPattern::parse(key).unwrap().to_string(), key);
        }
        assert_eq!(StatusPattern::parse("5xx"), Some(Class(5)));
        assert_eq!(StatusPattern::parse("6XX"), None);
        assert_eq!(StatusPattern::parse("0404"), None);
    }
}
