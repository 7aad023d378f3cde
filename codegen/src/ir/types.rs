//! Fields, types and constraints.

use super::{Deprecation, Encoding, EnumId, ModelId, Presence, Provenance, UnionId};
use crate::source::Span;

#[derive(Clone, Debug)]
pub struct Field {
    /// The name on the wire.
    pub name: String,
    /// A snake_case identifier for code, unique among the field's siblings (set once the
    /// whole spec is lowered).
    pub ident: String,
    pub doc: Option<String>,
    pub ty: Type,
    pub presence: Presence,
    pub default: Option<Literal>,
    pub constraints: Constraints,
    pub visibility: Visibility,
    pub format_scope: FormatScope,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    /// What a router's own error puts here (`@rejection(…)`), in a rejection model.
    pub rejection: Option<RejectionSlot>,
    /// `@secret`: a credential or token; tools that write traffic down (reports,
    /// transcripts, recordings) must never write its value.
    pub secret: bool,
    /// `@personal`: data about a person (a name, an e-mail address, a phone number); a
    /// recording writes a stand-in, never the value.
    pub personal: bool,
    /// `@varies`: its value depends on when it is read (how far background work got), not
    /// on the request alone; a recording writes its shape, never the value it saw.
    pub varies: bool,
    /// `@style(…)`: how a query parameter or form field holding a list or an object is
    /// written as text.
    pub encoding: Encoding,
    /// Where the field's name is written; empty for one the toolkit adds.
    pub span: Span,
}

impl Field {
    /// The one value a required string field always holds (`object: "customer"`, or a
    /// `@one_of` of one string).
    pub fn constant(&self) -> Option<&str> {
        match (&self.ty, self.presence, self.constraints.one_of.as_slice()) {
            (Type::Primitive(Primitive::String), Presence::Required, [Literal::String(v)]) => {
                Some(v)
            }
            _ => None,
        }
    }

    /// The one value a required field always holds: a string, `true`/`false` or a whole
    /// number (`object: "customer"`, `ok: true`, `version: 2`).
    pub fn constant_value(&self) -> Option<&Literal> {
        match (&self.ty, self.presence, self.constraints.one_of.as_slice()) {
            (Type::Primitive(Primitive::String), Presence::Required, [v @ Literal::String(_)])
            | (Type::Primitive(Primitive::Bool), Presence::Required, [v @ Literal::Bool(_)])
            | (Type::Primitive(Primitive::Int), Presence::Required, [v @ Literal::Int(_)]) => {
                Some(v)
            }
            _ => None,
        }
    }
}

/// How the members of a union of models are told apart: a field every member has, holding
/// a constant of its own in each (`object: "customer"` and `object: "deleted_customer"`).
#[derive(Clone, Debug, PartialEq)]
pub struct Discriminator {
    pub field: String,
    /// Each member's value, in the union's order: strings, `true`/`false` or whole numbers.
    pub values: Vec<Literal>,
}

impl Discriminator {
    /// The values when every one is a string: what OpenAPI's `discriminator` can map.
    pub fn string_values(&self) -> Option<Vec<&str>> {
        self.values
            .iter()
            .map(|v| match v {
                Literal::String(s) => Some(s.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// What a field of a rejection model holds.
#[derive(Clone, Debug, PartialEq)]
pub enum RejectionSlot {
    /// What went wrong, in words.
    Message,
    /// The HTTP status.
    Status,
    /// The input the first problem is about; the field is left out when there is none.
    Param,
    /// Every problem, `{"loc", "msg", "type"}` each.
    Issues,
    /// The same value in every rejection.
    Constant(Literal),
}

/// Which shape of a model a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Always,
    RequestOnly,
    ResponseOnly,
}

/// Whether a string format is enforced in both shapes or on requests only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatScope {
    Always,
    RequestOnly,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Primitive(Primitive),
    Model(ModelId),
    Enum(EnumId),
    /// A list, with the constraints on each item (those of a named type: `Tag[]` where
    /// `@max_length(20) type Tag = string`).
    List(Box<Type>, Box<Constraints>),
    /// `map<string, T>`: a JSON object with free keys whose values are all of this type,
    /// with the constraints on each value.
    Map(Box<Type>, Box<Constraints>),
    /// Any of several non-null types, e.g. `string | int`.
    Union(Vec<Type>),
    /// A union declared with a name (`type Details = map<string, Details> | Inner`): a type
    /// of its own in generated code and the schemas, so it may contain itself.
    NamedUnion(UnionId),
    /// A value the source leaves open; the text says what is not shown.
    NotShown(Option<String>),
}

/// The shape of an IANA time zone identifier (`Europe/Paris`, `UTC`, `Etc/GMT+5`): the one
/// pattern the schemas and `validate()` check a `timezone` with: the runtime's, so the two
/// cannot differ.
pub use covenant_runtime::TIMEZONE_PATTERN;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    String,
    Int,
    Number,
    Bool,
    Uuid,
    Date,
    DateTime,
    Email,
    Uri,
    /// An IANA time zone database identifier.
    TimeZone,
    /// Any JSON object.
    Object,
    /// Any JSON value.
    Any,
    /// Bytes: base64 text inside JSON, raw as a body or a multipart part.
    Bytes,
    /// A file part of a multipart body, with its file name and media type.
    File,
    /// JSON `null` and nothing else: a field's whole type (`premium_subscriber?: null`),
    /// whose presence is what it says.
    Null,
}

impl Primitive {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Primitive::String,
            "int" => Primitive::Int,
            "number" => Primitive::Number,
            "bool" => Primitive::Bool,
            "uuid" => Primitive::Uuid,
            "date" => Primitive::Date,
            "datetime" => Primitive::DateTime,
            "email" => Primitive::Email,
            "uri" => Primitive::Uri,
            "timezone" => Primitive::TimeZone,
            "object" => Primitive::Object,
            "any" => Primitive::Any,
            "bytes" => Primitive::Bytes,
            "file" => Primitive::File,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Primitive::String => "string",
            Primitive::Int => "int",
            Primitive::Number => "number",
            Primitive::Bool => "bool",
            Primitive::Uuid => "uuid",
            Primitive::Date => "date",
            Primitive::DateTime => "datetime",
            Primitive::Email => "email",
            Primitive::Uri => "uri",
            Primitive::TimeZone => "timezone",
            Primitive::Object => "object",
            Primitive::Any => "any",
            Primitive::Bytes => "bytes",
            Primitive::File => "file",
            Primitive::Null => "null",
        }
    }

    /// Text carried as a JSON string (possibly with a format): not bytes, whose base64 is no
    /// text of theirs to constrain or default.
    pub fn is_string_like(self) -> bool {
        !matches!(
            self,
            Primitive::Int
                | Primitive::Number
                | Primitive::Bool
                | Primitive::Object
                | Primitive::Any
                | Primitive::Bytes
                | Primitive::File
                | Primitive::Null
        )
    }

    pub fn is_numeric(self) -> bool {
        matches!(self, Primitive::Int | Primitive::Number)
    }

    /// The JSON Schema `format` of a string-like primitive.
    pub fn format(self) -> Option<&'static str> {
        match self {
            Primitive::Uuid => Some("uuid"),
            Primitive::Date => Some("date"),
            Primitive::DateTime => Some("date-time"),
            Primitive::Email => Some("email"),
            Primitive::Uri => Some("uri"),
            Primitive::TimeZone => Some("iana-time-zone"),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub pattern: Option<String>,
    /// `@unique_items`: no two items of the list are equal.
    pub unique_items: bool,
    /// A closed set of allowed values, e.g. radius 10, 20, 25, 50, 100.
    pub one_of: Vec<Literal>,
    /// An open format named by the API (`@format("snowflake")`, `unix-time`, `decimal`):
    /// what the value means, written into the schemas; no tool checks it.
    pub format: Option<String>,
    /// Where `max_length` or `max_items` is the service's default bound, where that bound
    /// comes from.
    pub default_bound: Option<Provenance>,
}

/// Whether `name` can be an open format's name (`@format("unix-time")`): letters, digits,
/// `-`, `_` and `.`, as JSON Schema writes formats.
pub fn is_format_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }

    /// These constraints with each one `other` states replaced by `other`'s: a field's own
    /// annotations over those its named type brings.
    pub fn overlaid_with(self, other: Constraints) -> Constraints {
        Constraints {
            minimum: other.minimum.or(self.minimum),
            maximum: other.maximum.or(self.maximum),
            min_length: other.min_length.or(self.min_length),
            max_length: other.max_length.or(self.max_length),
            min_items: other.min_items.or(self.min_items),
            max_items: other.max_items.or(self.max_items),
            pattern: other.pattern.or(self.pattern),
            unique_items: other.unique_items || self.unique_items,
            one_of: if other.one_of.is_empty() {
                self.one_of
            } else {
                other.one_of
            },
            format: other.format.or(self.format),
            default_bound: other.default_bound.or(self.default_bound),
        }
    }

    /// The allowed numbers of a closed numeric set.
    pub fn one_of_numbers(&self) -> Vec<f64> {
        self.one_of.iter().filter_map(Literal::as_f64).collect()
    }

    /// The allowed strings of a closed string set.
    pub fn one_of_strings(&self) -> Vec<&str> {
        self.one_of
            .iter()
            .filter_map(|l| match l {
                Literal::String(s) => Some(s.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    String(String),
    Int(i64),
    Number(f64),
    Bool(bool),
    Null,
    List(Vec<Literal>),
}

impl Literal {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Literal::Int(n) => Some(*n as f64),
            Literal::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether two literals are one value as JSON reads them: `1` and `1.0` are.
    pub fn same_value(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::List(a), Literal::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y))
            }
            _ => match (self.as_f64(), other.as_f64()) {
                (Some(x), Some(y)) => x == y,
                _ => self == other,
            },
        }
    }
}

impl std::fmt::Display for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Literal::String(s) => write!(f, "{s:?}"),
            Literal::Int(n) => write!(f, "{n}"),
            Literal::Number(n) => write!(f, "{n}"),
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Null => write!(f, "null"),
            Literal::List(items) => {
                write!(f, "[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, "]")
            }
        }
    }
}

impl Literal {
    /// The literal as JSON; whole numbers print as integers, so `10` stays `10`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Literal::String(s) => Value::String(s.clone()),
            Literal::Int(n) => Value::from(*n),
            Literal::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Value::from(*n as i64),
            Literal::Number(n) => {
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            }
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Null => Value::Null,
            Literal::List(items) => Value::Array(items.iter().map(Literal::to_json).collect()),
        }
    }
}

/// The kind of object a type holds, which text cannot carry but in brackets.
pub fn object_in(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Model(_) => Some("a model"),
        Type::Map(_, _) => Some("a map"),
        Type::Primitive(Primitive::Object) => Some("an object"),
        Type::List(inner, _) => object_in(inner),
        Type::Union(members) => members.iter().find_map(object_in),
        _ => None,
    }
}
