//! The parse tree, with spans. Only the parser builds it and only lowering reads it:
//! everything after lowering sees the validated IR instead.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub text: String,
    pub span: Span,
}

/// A string literal with escapes resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct StrLit {
    pub value: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct File {
    pub items: Vec<Item>,
}

/// What every item and member may carry before it: doc comments and annotations.
#[derive(Clone, Debug, Default)]
pub struct Attrs {
    pub doc: Option<String>,
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Debug)]
pub struct Member<T> {
    pub attrs: Attrs,
    pub node: T,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Item {
    pub attrs: Attrs,
    pub kind: ItemKind,
    /// The item's keyword and name, where diagnostics about the whole item point.
    pub head: Span,
}

#[derive(Clone, Debug)]
pub enum ItemKind {
    Service(PropBlock),
    Api(ApiDecl),
    Auth(AuthDecl),
    Enum(EnumDecl),
    Model(ModelDecl),
    Envelope(ModelDecl),
    /// `type Tag = string`: a name for a type, with the constraints annotated on it.
    Type(TypeAliasDecl),
    Endpoint(EndpointDecl),
    Event(EventDecl),
    Limit(LimitDecl),
    RateLimit(RateLimitDecl),
    States(StatesDecl),
    Changelog(Vec<Member<ChangeEntry>>),
    NotShown(StrLit),
}

#[derive(Clone, Debug)]
pub struct PropBlock {
    pub name: Ident,
    pub props: Vec<Member<Prop>>,
}

/// `key value, value, …`: the generic setting line of `service`, `api`, `auth` and `limit`.
#[derive(Clone, Debug)]
pub struct Prop {
    pub key: Ident,
    pub values: Vec<Value>,
}

#[derive(Clone, Debug)]
pub struct ApiDecl {
    pub name: Ident,
    pub props: Vec<Member<Prop>>,
    pub errors: Vec<Member<ErrorDecl>>,
    /// `header "OpenAI-Project"?: string`: a header every endpoint of the api takes.
    pub headers: Vec<Member<FieldDecl>>,
}

/// `error 404: NotFound`: an error response, on an API (all its endpoints) or one endpoint.
#[derive(Clone, Debug)]
pub struct ErrorDecl {
    pub status: Status,
    /// `None`: the error has no body (`error 404`).
    pub ty: Option<TypeExpr>,
    /// The media type of a `string` or `bytes` body written as it is (an HTML error page).
    pub media: Option<StrLit>,
    /// `headers { "Retry-After": int }` after the body.
    pub headers: Vec<Member<FieldDecl>>,
}

/// A status as written: `404`, a class `4XX` (`code` holds its digit) or `default`
/// (`code` is 0).
#[derive(Clone, Copy, Debug)]
pub struct Status {
    pub code: i64,
    pub form: StatusForm,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatusForm {
    Code,
    Class,
    Default,
}

impl Status {
    /// As the spec writes it.
    pub fn text(&self) -> String {
        match self.form {
            StatusForm::Code => self.code.to_string(),
            StatusForm::Class => format!("{}XX", self.code),
            StatusForm::Default => "default".to_string(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct AuthDecl {
    pub name: Ident,
    /// Where the credential travels: `header`, `bearer`, `basic`, `query`, `cookie`, `oauth2`.
    pub location: Ident,
    /// The header, query parameter or cookie name, for the locations that have one.
    pub key: Option<StrLit>,
    pub props: Vec<Member<Prop>>,
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub name: Ident,
    /// `open enum`: may gain values; clients keep unknown ones.
    pub open: Option<Span>,
    /// `enum A: int`: the values' JSON type when they are not strings.
    pub repr: Option<Ident>,
    /// `subset of Parent`.
    pub parent: Option<Ident>,
    pub members: Vec<Member<EnumMember>>,
}

#[derive(Clone, Debug)]
pub enum EnumMember {
    Value(EnumValue),
    NotShown(StrLit),
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    pub text: String,
    pub span: Span,
    pub is_int: bool,
}

#[derive(Clone, Debug)]
pub struct TypeAliasDecl {
    pub name: Ident,
    pub ty: TypeExpr,
}

#[derive(Clone, Debug)]
pub struct ModelDecl {
    pub name: Ident,
    pub members: Vec<Member<ModelMember>>,
    pub body_span: Span,
}

#[derive(Clone, Debug)]
pub enum ModelMember {
    Field(FieldDecl),
    /// `not_shown "…"`: a note; `not_shown fields "…"`: the model has more fields than listed.
    NotShown {
        what: StrLit,
        fields: bool,
    },
}

/// `name?: Type | null = default`. `?` after the name: may be absent; `| null`: may be null.
#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub name: FieldName,
    pub optional: Option<Span>,
    pub ty: TypeExpr,
    pub default: Option<Value>,
}

/// A field name; quoted when the wire name is no identifier (`"x-service-link-token"`).
#[derive(Clone, Debug)]
pub struct FieldName {
    pub text: String,
    pub span: Span,
    pub quoted: bool,
}

/// `A | B | null`.
#[derive(Clone, Debug)]
pub struct TypeExpr {
    pub alternatives: Vec<TypeAtom>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TypeAtom {
    pub kind: TypeAtomKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypeAtomKind {
    Named(Ident),
    List(Box<TypeAtom>),
    Null,
    /// `(A | B)`, so a list can hold a union: `(string | int)[]`.
    Group(Box<TypeExpr>),
    /// `not_shown("what")`: a value whose shape the source leaves open.
    NotShown(Option<StrLit>),
    /// `"customer"`: a string field that always holds this one value (a tag such as
    /// `object: "customer"`); only a field's whole type.
    Constant(StrLit),
    /// `true`, `false` or a whole number: a field that always holds this one value
    /// (`ok: true`, `version: 2`); only a field's whole type.
    ScalarConstant(Value),
    /// `map<string, T>`: an object whose keys are free and whose values are all `T`.
    Map {
        key: Ident,
        value: Box<TypeExpr>,
    },
}

#[derive(Clone, Debug)]
pub struct EndpointDecl {
    pub name: Ident,
    pub method: Ident,
    pub path: StrLit,
    pub members: Vec<Member<EndpointMember>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamLocation {
    Path,
    Query,
    Header,
}

/// A scheme an endpoint accepts, with the scopes it needs: `github(repo, "read:org")`.
#[derive(Clone, Debug)]
pub struct AuthRef {
    pub scheme: Ident,
    pub scopes: Vec<StrLit>,
}

#[derive(Clone, Debug)]
pub enum EndpointMember {
    Api(Ident),
    /// `auth a | b` (one of them required), `auth a & b` (both required) or `auth? a` (may
    /// be sent in addition).
    Auth {
        optional: bool,
        schemes: Vec<AuthRef>,
        together: bool,
    },
    Public(Span),
    Tags(Vec<Ident>),
    Param(ParamLocation, FieldDecl),
    /// `body T`, or `body form T` / `body multipart T` for a body of fields (with the
    /// keyword's span).
    Body(BodyDecl, Option<(BodyEncoding, Span)>),
    Response {
        statuses: Vec<Status>,
        body: Option<BodyDecl>,
        /// `headers { Location: uri, "X-RateLimit-Remaining"?: int }` after the body.
        headers: Vec<Member<FieldDecl>>,
    },
    Error(ErrorDecl),
    /// `rejections Model`: the router's own errors for this endpoint, in place of its api's.
    Rejections(Ident),
    NotShown(StrLit),
}

/// How a request body of fields is written, when not as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `multipart/form-data`.
    Multipart,
}

#[derive(Clone, Debug)]
pub enum BodyDecl {
    /// A type, with the media type of a body written as it is: `bytes "application/pdf"`.
    Type(TypeExpr, Option<StrLit>),
    /// `{ fields }` written in place; lowering names it after the endpoint.
    Inline(ModelDecl),
}

#[derive(Clone, Debug)]
pub struct EventDecl {
    pub name: Ident,
    pub pattern: StrLit,
    pub members: Vec<Member<EventMember>>,
}

#[derive(Clone, Debug)]
pub enum EventMember {
    /// `placeholder resource: Enum`: binds `{resource}` in the event type.
    Placeholder(FieldDecl),
    /// A field of the envelope given its type for this event, usually `data`.
    Field(FieldDecl),
    NotShown(StrLit),
}

#[derive(Clone, Debug)]
pub struct LimitDecl {
    pub name: Ident,
    pub value: Option<Value>,
    pub props: Vec<Member<Prop>>,
}

#[derive(Clone, Debug)]
pub struct RateLimitDecl {
    pub name: Ident,
    pub members: Vec<Member<RateMember>>,
}

#[derive(Clone, Debug)]
pub enum RateMember {
    Prop(Prop),
    /// `tier(…)` or, with `is_default`, `default(…)`.
    Tier {
        is_default: bool,
        args: Vec<Arg>,
    },
    NotShown(StrLit),
}

#[derive(Clone, Debug)]
pub struct StatesDecl {
    pub name: Ident,
    pub members: Vec<Member<StateMember>>,
}

#[derive(Clone, Debug)]
pub enum StateMember {
    State(Ident),
    Transition {
        from: Ident,
        to: Ident,
        on: Option<Ident>,
        when: Option<StrLit>,
    },
    NotShown(StrLit),
}

#[derive(Clone, Debug)]
pub struct ChangeEntry {
    pub date: StrLit,
    pub text: StrLit,
}

#[derive(Clone, Debug)]
pub struct Annotation {
    pub name: Ident,
    pub args: Vec<Arg>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Value,
}

#[derive(Clone, Debug)]
pub struct Value {
    pub kind: ValueKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ValueKind {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
    /// `name` or `endpoint.param`: a reference, resolved by lowering.
    Ref(Vec<Ident>),
    List(Vec<Value>),
    /// `20 seconds`, `7 days`.
    Quantity {
        amount: f64,
        unit: Ident,
    },
}
