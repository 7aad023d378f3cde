//! A path template of the spec (`/v2/user/{user_id}`), parsed once: matched against request
//! paths, filled with values, and compared with other templates for routers that cannot hold
//! both. The router, the client, the runner and the recorder all use this one type.

use std::borrow::Cow;
use std::fmt;

/// One `/`-separated segment of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathSegment<'a> {
    Literal(&'a str),
    /// `{name}`: one whole segment.
    Param(&'a str),
}

/// A spec's path template. Its text is also the route axum takes (`{name}` placeholders).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PathTemplate<'a> {
    text: &'a str,
    segments: &'a [PathSegment<'a>],
}

/// A value a template is filled with.
#[derive(Clone, Debug)]
pub enum TemplateValue<'v> {
    /// Text that becomes one segment, percent-encoded by [`encode_segment`].
    Text(Cow<'v, str>),
    /// Text written as it is, for a value that is itself a template of another tool
    /// (`{{user_id}}` in a recording).
    Verbatim(Cow<'v, str>),
}

/// The characters a path segment holds as they are: RFC 3986's unreserved set, letters,
/// digits and `-._~`. Every other byte is percent-encoded (`/`, `?`, `#` and `%` among
/// them), so a value can never reach another segment, the query or another path. The one
/// encoding set of the toolkit.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A value as one path segment, percent-encoded: every byte but RFC 3986's unreserved ones.
pub fn encode_segment(text: &str) -> Cow<'_, str> {
    percent_encoding::utf8_percent_encode(text, SEGMENT).into()
}

impl<'a> PathTemplate<'a> {
    /// A template from its text and the segments [`PathTemplate::split`] gives for it;
    /// generated statics and contracts built at run time both construct it so.
    pub const fn new(text: &'a str, segments: &'a [PathSegment<'a>]) -> Self {
        PathTemplate { text, segments }
    }

    /// The segments of a template's text, without the leading slash: the one parse rule.
    pub fn split(text: &str) -> impl Iterator<Item = PathSegment<'_>> {
        text.strip_prefix('/')
            .unwrap_or(text)
            .split('/')
            .map(|segment| match param_name(segment) {
                Some(name) => PathSegment::Param(name),
                None => PathSegment::Literal(segment),
            })
    }

    pub fn as_str(&self) -> &'a str {
        self.text
    }

    pub fn segments(&self) -> &'a [PathSegment<'a>] {
        self.segments
    }

    /// The placeholders' names, in order.
    pub fn params(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let segments: &'a [PathSegment<'a>] = self.segments;
        segments.iter().filter_map(|s| match s {
            PathSegment::Param(name) => Some(*name),
            PathSegment::Literal(_) => None,
        })
    }

    /// Of two templates one path matches, whether this one is the route: it holds a literal
    /// where the two first differ, as a router's matcher decides (`/users/me` before
    /// `/users/{id}`, `/a/b/{y}` before `/a/{x}/c`).
    pub fn outranks(&self, other: &PathTemplate<'_>) -> bool {
        let literal = |s: &PathSegment<'_>| matches!(s, PathSegment::Literal(_));
        self.segments
            .iter()
            .zip(other.segments)
            .find(|(a, b)| literal(a) != literal(b))
            .is_some_and(|(a, _)| literal(a))
    }

    /// Whether a concrete path (`/v2/user/abc`, no query) is this template's: literal
    /// segments equal, each placeholder one non-empty segment, as a router matches.
    pub fn matches(&self, path: &str) -> bool {
        let mut parts = path.strip_prefix('/').unwrap_or(path).split('/');
        let fits = self
            .segments
            .iter()
            .all(|segment| match (segment, parts.next()) {
                (PathSegment::Literal(literal), Some(part)) => *literal == part,
                (PathSegment::Param(_), Some(part)) => !part.is_empty(),
                (_, None) => false,
            });
        fits && parts.next().is_none()
    }

    /// The template with each placeholder filled by `value_of(name)`. `Err` names the first
    /// placeholder without a value, or whose text would leave its segment: an empty segment
    /// changes the route, and `.` and `..` (encoded or not) are resolved away by URL
    /// normalisation, sending the call to another endpoint.
    pub fn fill<'v>(
        &self,
        mut value_of: impl FnMut(&str) -> Option<TemplateValue<'v>>,
    ) -> Result<String, FillError> {
        let mut out = String::with_capacity(self.text.len() + 16);
        for segment in self.segments {
            out.push('/');
            match segment {
                PathSegment::Literal(literal) => out.push_str(literal),
                PathSegment::Param(name) => match value_of(name) {
                    Some(TemplateValue::Text(text)) if matches!(&*text, "" | "." | "..") => {
                        return Err(FillError::Unroutable {
                            name: name.to_string(),
                            value: text.into_owned(),
                        });
                    }
                    Some(TemplateValue::Text(text)) => out.push_str(&encode_segment(&text)),
                    Some(TemplateValue::Verbatim(text)) => out.push_str(&text),
                    None => return Err(FillError::Missing(name.to_string())),
                },
            }
        }
        Ok(out)
    }

    /// The template with every placeholder written `{}`: two routes of one shape collide.
    pub fn shape(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s {
                PathSegment::Literal(literal) => *literal,
                PathSegment::Param(_) => "{}",
            })
            .fold(String::new(), |out, s| out + "/" + s)
    }

    /// The first position where two templates, equal up to there, hold placeholders of
    /// different names: a router (axum's) refuses to hold both.
    pub fn placeholder_clash(&self, other: &PathTemplate<'_>) -> Option<(String, String)> {
        for pair in self.segments.iter().zip(other.segments) {
            match pair {
                (PathSegment::Param(p), PathSegment::Param(q)) if p != q => {
                    return Some((p.to_string(), q.to_string()));
                }
                (PathSegment::Param(_), PathSegment::Param(_)) => {}
                (PathSegment::Literal(x), PathSegment::Literal(y)) if x == y => {}
                _ => return None,
            }
        }
        None
    }

    /// Whether one router serving both templates would refuse one of them: for the same
    /// method, or for any method when their placeholders are named apart.
    pub fn collides(&self, other: &PathTemplate<'_>, same_method: bool) -> bool {
        self.placeholder_clash(other).is_some() || (same_method && self.shape() == other.shape())
    }
}

/// A placeholder's name, when the segment is one whole `{name}`.
fn param_name(segment: &str) -> Option<&str> {
    segment.strip_prefix('{')?.strip_suffix('}')
}

impl fmt::Debug for PathTemplate<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PathTemplate").field(&self.text).finish()
    }
}

impl fmt::Display for PathTemplate<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

/// Why a template could not be filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FillError {
    /// A placeholder was given no value.
    Missing(String),
    /// A value would not stay one segment of this route.
    Unroutable { name: String, value: String },
}

impl fmt::Display for FillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FillError::Missing(name) => write!(f, "no value for the path parameter {name}"),
            FillError::Unroutable { name, value } => {
                write!(f, "path parameter {name} cannot be {value:?}")
            }
        }
    }
}

impl std::error::Error for FillError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(text: &'static str) -> PathTemplate<'static> {
        let segments: Vec<PathSegment<'static>> = PathTemplate::split(text).collect();
        PathTemplate::new(text, Box::leak(segments.into_boxed_slice()))
    }

    #[test]
    fn a_path_matches_literals_and_one_non_empty_segment_per_placeholder() {
        let t = template("/v2/user/{user_id}");
        assert!(t.matches("/v2/user/abc"));
        assert!(!t.matches("/v2/user/"));
        assert!(!t.matches("/v2/user/abc/more"));
        assert!(!t.matches("/v2/users/abc"));
        assert!(!t.matches("/v2/user"));
    }

    #[test]
    fn filling_encodes_each_value_as_one_segment_and_keeps_verbatim_text() {
        let t = template("/items/{a}/{b}");
        let filled = t.fill(|name| {
            Some(match name {
                "a" => TemplateValue::Text("x/y é?#%".into()),
                _ => TemplateValue::Verbatim("{{id}}".into()),
            })
        });
        assert_eq!(filled.unwrap(), "/items/x%2Fy%20%C3%A9%3F%23%25/{{id}}");
        assert_eq!(t.fill(|_| None), Err(FillError::Missing("a".into())));
        for unroutable in ["", ".", ".."] {
            let filled = t.fill(|_| Some(TemplateValue::Text(unroutable.into())));
            assert!(
                matches!(filled, Err(FillError::Unroutable { .. })),
                "{unroutable:?}"
            );
        }
    }

    #[test]
    fn templates_of_one_shape_or_with_placeholders_named_apart_collide() {
        let (a, b) = (template("/u/{id}"), template("/u/{user_id}"));
        assert_eq!(
            a.placeholder_clash(&b),
            Some(("id".into(), "user_id".into()))
        );
        assert!(a.collides(&b, false));
        assert!(template("/u/{id}").collides(&template("/u/{id}"), true));
        assert!(!template("/u/{id}").collides(&template("/u/{id}"), false));
        assert!(!template("/u/me").collides(&template("/u/{id}"), true));
        assert_eq!(template("/u/{id}/x").shape(), "/u/{}/x");
    }

    #[test]
    fn a_literal_where_two_templates_first_differ_wins() {
        assert!(template("/u/me").outranks(&template("/u/{id}")));
        assert!(!template("/u/{id}").outranks(&template("/u/me")));
        assert!(template("/a/b/{y}").outranks(&template("/a/{x}/c")));
        assert!(!template("/a/{x}/c").outranks(&template("/a/b/{y}")));
    }
}
