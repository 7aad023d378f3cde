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
    /// `{name}` with text beside it in its segment: `{sid}.json`, `{name}:cancel`, `v{n}`.
    Affixed {
        prefix: &'a str,
        name: &'a str,
        suffix: &'a str,
    },
}

impl<'a> PathSegment<'a> {
    /// The placeholder's name, for a segment that holds one.
    pub fn param(&self) -> Option<&'a str> {
        match *self {
            PathSegment::Literal(_) => None,
            PathSegment::Param(name) | PathSegment::Affixed { name, .. } => Some(name),
        }
    }

    /// The value a placeholder segment holds in `part`, the text beside it taken off; `None`
    /// when the text is not there or nothing is left.
    pub fn value_in<'p>(&self, part: &'p str) -> Option<&'p str> {
        let (prefix, suffix) = match *self {
            PathSegment::Literal(_) => return None,
            PathSegment::Param(_) => ("", ""),
            PathSegment::Affixed { prefix, suffix, .. } => (prefix, suffix),
        };
        let value = part.strip_prefix(prefix)?.strip_suffix(suffix)?;
        (!value.is_empty()).then_some(value)
    }

    /// How much a router prefers the segment where two templates first differ: literal text,
    /// then a placeholder with text beside it, then a bare placeholder.
    fn rank(&self) -> u8 {
        match self {
            PathSegment::Literal(_) => 2,
            PathSegment::Affixed { .. } => 1,
            PathSegment::Param(_) => 0,
        }
    }
}

/// A spec's path template. Routers take it as [`PathTemplate::route`] gives it: every
/// placeholder segment a whole-segment parameter named by its position, so routes that name
/// one position differently, or write text beside it, share one router.
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
            .map(segment_of)
    }

    /// The route a router registers: each placeholder segment written `{_N}`, `N` its
    /// position (from 1), whatever its name and the text beside it. Values are read back
    /// with [`PathTemplate::value_of`].
    pub fn route(&self) -> String {
        self.segments
            .iter()
            .enumerate()
            .map(|(index, segment)| match segment {
                PathSegment::Literal(literal) => (*literal).to_string(),
                _ => format!("{{{}}}", route_param(index)),
            })
            .fold(String::new(), |out, s| out + "/" + &s)
    }

    /// The value of placeholder `name` among a router's parameters (`param(key)` looks one
    /// up by the key [`PathTemplate::route`] gave it), the text beside it taken off. `None`
    /// when the template has no such placeholder or the segment does not hold its text.
    pub fn value_of<'p>(
        &self,
        name: &str,
        param: impl Fn(&str) -> Option<&'p str>,
    ) -> Option<&'p str> {
        let (index, segment) = self
            .segments
            .iter()
            .enumerate()
            .find(|(_, s)| s.param() == Some(name))?;
        segment.value_in(param(&route_param(index))?)
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
        segments.iter().filter_map(PathSegment::param)
    }

    /// Of two templates one path matches, whether this one is the route: it holds a literal
    /// where the two first differ, as a router's matcher decides (`/users/me` before
    /// `/users/{id}`, `/a/b/{y}` before `/a/{x}/c`), and text beside a placeholder before
    /// a bare one (`/files/{id}.json` before `/files/{name}`).
    pub fn outranks(&self, other: &PathTemplate<'_>) -> bool {
        self.segments
            .iter()
            .zip(other.segments)
            .find(|(a, b)| a.rank() != b.rank())
            .is_some_and(|(a, b)| a.rank() > b.rank())
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
                (placeholder, Some(part)) => placeholder.value_in(part).is_some(),
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
            let (name, prefix, suffix) = match *segment {
                PathSegment::Literal(literal) => {
                    out.push_str(literal);
                    continue;
                }
                PathSegment::Param(name) => (name, "", ""),
                PathSegment::Affixed {
                    prefix,
                    name,
                    suffix,
                } => (name, prefix, suffix),
            };
            let value = match value_of(name) {
                Some(TemplateValue::Text(text)) => {
                    let whole = format!("{prefix}{text}{suffix}");
                    if text.is_empty() || matches!(whole.as_str(), "." | "..") {
                        return Err(FillError::Unroutable {
                            name: name.to_string(),
                            value: text.into_owned(),
                        });
                    }
                    encode_segment(&text).into_owned()
                }
                Some(TemplateValue::Verbatim(text)) => text.into_owned(),
                None => return Err(FillError::Missing(name.to_string())),
            };
            out.push_str(prefix);
            out.push_str(&value);
            out.push_str(suffix);
        }
        Ok(out)
    }

    /// The template as a router holds it, every placeholder segment written `{}`: two
    /// routes of one shape and one method collide.
    pub fn shape(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s {
                PathSegment::Literal(literal) => *literal,
                _ => "{}",
            })
            .fold(String::new(), |out, s| out + "/" + s)
    }

    /// Whether one router serving both templates would refuse one of them: the same method
    /// on routes of one shape.
    pub fn collides(&self, other: &PathTemplate<'_>, same_method: bool) -> bool {
        same_method && self.shape() == other.shape()
    }
}

/// The router's name of the placeholder at segment `index` (from 0).
fn route_param(index: usize) -> String {
    format!("_{}", index + 1)
}

/// A segment of a template's text: a literal, a whole placeholder, or one placeholder with
/// text beside it. A segment holding more than one placeholder, or an unbalanced brace, is
/// read as a literal (the spec's checker refuses it).
fn segment_of(segment: &str) -> PathSegment<'_> {
    let (Some(open), Some(close)) = (segment.find('{'), segment.find('}')) else {
        return PathSegment::Literal(segment);
    };
    let (prefix, name, suffix) = (
        &segment[..open],
        segment.get(open + 1..close).unwrap_or(""),
        &segment[close + 1..],
    );
    if close < open || name.is_empty() || suffix.contains(['{', '}']) || prefix.contains('}') {
        return PathSegment::Literal(segment);
    }
    if prefix.is_empty() && suffix.is_empty() {
        PathSegment::Param(name)
    } else {
        PathSegment::Affixed {
            prefix,
            name,
            suffix,
        }
    }
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
    fn templates_of_one_shape_collide_for_one_method_whatever_their_names() {
        let (a, b) = (template("/u/{id}"), template("/u/{user_id}.json"));
        assert!(a.collides(&b, true));
        assert!(!a.collides(&b, false));
        assert!(!template("/u/me").collides(&template("/u/{id}"), true));
        assert_eq!(template("/u/{id}/x").shape(), "/u/{}/x");
    }

    #[test]
    fn placeholders_with_text_beside_them_match_fill_and_route_by_position() {
        let t = template("/Accounts/{AccountSid}/Calls/{Sid}.json");
        assert!(t.matches("/Accounts/AC1/Calls/CA2.json"));
        assert!(!t.matches("/Accounts/AC1/Calls/CA2"));
        assert!(!t.matches("/Accounts/AC1/Calls/.json"));
        assert_eq!(t.route(), "/Accounts/{_2}/Calls/{_4}");
        let params = [("_2", "AC1"), ("_4", "CA2.json")];
        let param = |key: &str| params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        assert_eq!(t.value_of("Sid", param), Some("CA2"));
        assert_eq!(t.value_of("AccountSid", param), Some("AC1"));
        let filled = t.fill(|name| Some(TemplateValue::Text(format!("{name} 1").into())));
        assert_eq!(
            filled.unwrap(),
            "/Accounts/AccountSid%201/Calls/Sid%201.json"
        );
        let cancel = template("/ops/{op}:cancel");
        assert_eq!(cancel.params().collect::<Vec<_>>(), ["op"]);
        assert!(cancel.matches("/ops/7:cancel"));
        assert!(template("/f/{id}.json").outranks(&template("/f/{name}")));
        assert!(!template("/f/{name}").outranks(&template("/f/{id}.json")));
    }

    #[test]
    fn a_literal_where_two_templates_first_differ_wins() {
        assert!(template("/u/me").outranks(&template("/u/{id}")));
        assert!(!template("/u/{id}").outranks(&template("/u/me")));
        assert!(template("/a/b/{y}").outranks(&template("/a/{x}/c")));
        assert!(!template("/a/{x}/c").outranks(&template("/a/b/{y}")));
    }
}
