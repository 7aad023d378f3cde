//! The types of values an endpoint's inputs carry, with the constraints checked on them.

use crate::issue::Pattern;
use std::sync::OnceLock;

/// The type of a value.
#[derive(Debug)]
pub enum TypeDesc<'a> {
    String,
    Int,
    Number,
    Bool,
    Uuid,
    Date,
    DateTime,
    Email,
    Uri,
    TimeZone,
    Object,
    Any,
    /// Base64 text inside JSON; raw as a body or a multipart part.
    Bytes,
    /// A file part of a multipart body; `{filename, content_type, content}` inside JSON.
    File,
    /// JSON `null` and nothing else.
    Null,
    /// A value the source leaves open: anything goes.
    NotShown,
    Model(&'a ModelDesc<'a>),
    Enum(&'a EnumDesc<'a>),
    List(&'a TypeDesc<'a>),
    /// An object with free keys whose values are all of this type.
    Map(&'a TypeDesc<'a>),
    Union(&'a [TypeDesc<'a>]),
    /// A union declared with a name; a union that contains itself refers to itself through
    /// [`TypeDesc::Deferred`].
    NamedUnion(&'a UnionDesc<'a>),
    /// A list's item or a map's value with constraints of its own (`Tag[]` where `Tag` is a
    /// string of at most 20 characters).
    Constrained(&'a TypeDesc<'a>, &'a Constraints<'a>),
    /// A model of a contract built at run time, set once after construction: a model that
    /// contains itself refers to itself through it.
    Deferred(&'a OnceLock<TypeDesc<'a>>),
}

impl<'a> TypeDesc<'a> {
    /// The type itself, a deferred model and an item's own constraints looked through.
    pub fn resolved(&'a self) -> &'a TypeDesc<'a> {
        match self {
            TypeDesc::Deferred(cell) => cell.get().map_or(self, TypeDesc::resolved),
            TypeDesc::Constrained(inner, _) => inner.resolved(),
            other => other,
        }
    }

    /// How the model's field `name` is written as text (a form's field); repeated when the
    /// type is no model or has no such field.
    pub fn field_encoding(&self, name: &str) -> Encoding {
        self.model_fields()
            .iter()
            .find(|f| f.name == name)
            .map_or(Encoding::Repeated, |f| f.encoding)
    }

    /// The fields of a model; none for any other type.
    pub fn model_fields(&self) -> &'a [FieldDesc<'a>] {
        match self {
            TypeDesc::Model(m) => m.fields,
            TypeDesc::Deferred(cell) => cell.get().map_or(&[], |ty| ty.model_fields()),
            _ => &[],
        }
    }
}

#[derive(Debug)]
pub struct ModelDesc<'a> {
    /// The model's name in the shape requests use.
    pub name: &'a str,
    pub fields: &'a [FieldDesc<'a>],
    /// Optional fields of which a value holds exactly, at least or at most one.
    pub groups: &'a [FieldGroup<'a>],
}

/// Optional fields of a model of which a value holds exactly one, at least one or at most
/// one (`@exactly_one_of(card, bank_account)`).
#[derive(Debug)]
pub struct FieldGroup<'a> {
    pub rule: GroupRule,
    pub fields: &'a [&'a str],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupRule {
    ExactlyOne,
    AtLeastOne,
    AtMostOne,
}

impl GroupRule {
    pub const ALL: [GroupRule; 3] = [
        GroupRule::ExactlyOne,
        GroupRule::AtLeastOne,
        GroupRule::AtMostOne,
    ];

    /// The annotation stating it (`exactly_one_of`).
    pub fn annotation(self) -> &'static str {
        match self {
            GroupRule::ExactlyOne => "exactly_one_of",
            GroupRule::AtLeastOne => "at_least_one_of",
            GroupRule::AtMostOne => "at_most_one_of",
        }
    }

    /// Whether `given` of the group's fields may be present.
    pub fn allows(self, given: usize) -> bool {
        match self {
            GroupRule::ExactlyOne => given == 1,
            GroupRule::AtLeastOne => given >= 1,
            GroupRule::AtMostOne => given <= 1,
        }
    }
}

#[derive(Debug)]
pub struct UnionDesc<'a> {
    pub name: &'a str,
    pub members: &'a [TypeDesc<'a>],
}

#[derive(Debug)]
pub struct EnumDesc<'a> {
    pub name: &'a str,
    pub values: &'a [&'a str],
    pub open: bool,
    /// Integer values rather than strings.
    pub int: bool,
}

/// Whether a field may be absent and whether it may be null: the four cases the document
/// distinguishes, the last the three states of absent, null and a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// Always present, never null.
    Required,
    /// May be absent; never null when present.
    Optional,
    /// Always present; may be null.
    Nullable,
    /// May be absent, null, or a value: three states.
    OptionalNullable,
}

impl Presence {
    pub fn new(optional: bool, nullable: bool) -> Self {
        match (optional, nullable) {
            (false, false) => Presence::Required,
            (true, false) => Presence::Optional,
            (false, true) => Presence::Nullable,
            (true, true) => Presence::OptionalNullable,
        }
    }

    pub fn may_be_absent(self) -> bool {
        matches!(self, Presence::Optional | Presence::OptionalNullable)
    }

    pub fn may_be_null(self) -> bool {
        matches!(self, Presence::Nullable | Presence::OptionalNullable)
    }
}

#[derive(Debug)]
pub struct FieldDesc<'a> {
    pub name: &'a str,
    pub ty: TypeDesc<'a>,
    pub presence: Presence,
    /// Absent reads as a default, so absence is fine whatever the presence.
    pub has_default: bool,
    /// Whether a string format (uuid, date, email…) is enforced in this shape.
    pub format: bool,
    pub constraints: Constraints<'a>,
    /// How the value is written as text, where it travels as text (a query parameter, a
    /// form field); JSON ignores it.
    pub encoding: Encoding,
}

/// How a query parameter or form field holding a list or an object is written as text
/// (OpenAPI's `style` and `explode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// One pair per item (`tag=a&tag=b`); a scalar as itself.
    #[default]
    Repeated,
    /// The items joined by commas in one value (`ids=1,2,3`).
    Comma,
    /// Joined by spaces (`ids=1%202`).
    Spaces,
    /// Joined by `|` (`ids=1|2`).
    Pipes,
    /// Brackets for every level (`filter[status]=open`, `items[0][price]=5`), as Rails, PHP
    /// and Stripe write objects in forms and queries.
    Deep,
}

impl Encoding {
    pub const ALL: [Encoding; 5] = [
        Encoding::Repeated,
        Encoding::Comma,
        Encoding::Spaces,
        Encoding::Pipes,
        Encoding::Deep,
    ];

    /// Its name in a spec (`@style(comma)`).
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Repeated => "repeated",
            Encoding::Comma => "comma",
            Encoding::Spaces => "spaces",
            Encoding::Pipes => "pipes",
            Encoding::Deep => "deep",
        }
    }

    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The character joining a list's items in one value.
    pub fn separator(self) -> Option<char> {
        match self {
            Encoding::Comma => Some(','),
            Encoding::Spaces => Some(' '),
            Encoding::Pipes => Some('|'),
            Encoding::Repeated | Encoding::Deep => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Constraints<'a> {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub pattern: Option<&'a Pattern<'a>>,
    /// No two items of a list are equal (as JSON values).
    pub unique_items: bool,
    /// The one boolean a field holds (`ok: true`).
    pub constant_bool: Option<bool>,
    pub one_of_numbers: &'a [f64],
    pub one_of_strings: &'a [&'a str],
}

impl<'a> Constraints<'a> {
    pub const NONE: Constraints<'a> = Constraints {
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        min_items: None,
        max_items: None,
        pattern: None,
        unique_items: false,
        constant_bool: None,
        one_of_numbers: &[],
        one_of_strings: &[],
    };

    pub fn is_empty(&self) -> bool {
        let sizes = [
            self.min_length,
            self.max_length,
            self.min_items,
            self.max_items,
        ];
        self.minimum.is_none()
            && self.maximum.is_none()
            && sizes.iter().all(Option::is_none)
            && self.pattern.is_none()
            && !self.unique_items
            && self.constant_bool.is_none()
            && self.one_of_numbers.is_empty()
            && self.one_of_strings.is_empty()
    }
}
