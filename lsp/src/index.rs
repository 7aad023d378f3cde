//! What a spec declares and where it refers to it, read from the parser's tree: the one
//! table behind go to definition, references, rename, symbols, hover and colours.
//!
//! Built from the tree of the text as it is now, so navigation follows the author's typing
//! even while the spec does not check; a tree the parser recovered from errors simply holds
//! fewer declarations.

use covenant_codegen::Span;
use covenant_codegen::ast::*;
use covenant_codegen::lexer::{Tok, Token};
use covenant_codegen::vocabulary::PRIMITIVES;
use std::collections::HashMap;

/// What a declaration declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Service,
    Api,
    Auth,
    Enum,
    Model,
    Envelope,
    TypeAlias,
    Endpoint,
    Event,
    Limit,
    RateLimit,
    States,
    State,
    Field,
    Param,
    EnumValue,
}

impl Kind {
    /// The keyword the language declares it with, as hover and symbols name it.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Service => "service",
            Kind::Api => "api",
            Kind::Auth => "auth",
            Kind::Enum => "enum",
            Kind::Model => "model",
            Kind::Envelope => "envelope",
            Kind::TypeAlias => "type",
            Kind::Endpoint => "endpoint",
            Kind::Event => "event",
            Kind::Limit => "limit",
            Kind::RateLimit => "rate_limit",
            Kind::States => "states",
            Kind::State => "state",
            Kind::Field => "field",
            Kind::Param => "parameter",
            Kind::EnumValue => "value",
        }
    }

    /// Names a reference to a type may resolve to.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            Kind::Model | Kind::Envelope | Kind::Enum | Kind::TypeAlias
        )
    }

    /// Whether the name is written on the wire, so renaming it changes the API.
    pub fn is_wire_name(self) -> bool {
        matches!(self, Kind::Field | Kind::Param | Kind::EnumValue)
    }
}

#[derive(Clone, Debug)]
pub struct Declaration {
    pub name: String,
    pub kind: Kind,
    pub name_span: Span,
    /// The whole declaration, its doc comments and annotations included.
    pub full: Span,
    pub doc: Option<String>,
    /// The declaration it is a member of (a model's field, an endpoint's parameter).
    pub parent: Option<usize>,
}

/// Which declarations a name may refer to where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Namespace {
    Type,
    Auth,
    Api,
    /// A state of the `states` declaration with this index.
    State(usize),
    /// A parameter of the endpoint with this index: `{id}` in its path.
    Param(usize),
    /// A value of the enum of this name: a field's default.
    ValueOf(String),
    /// A value naming any top-level declaration (`@tracked_by(list_users)`).
    Any,
}

#[derive(Clone, Debug)]
pub struct Reference {
    pub name: String,
    pub span: Span,
    pub namespace: Namespace,
}

/// What the cursor is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Declaration(usize),
    Reference(usize),
}

#[derive(Clone, Debug, Default)]
pub struct Index {
    pub declarations: Vec<Declaration>,
    /// The declarations of each name, so resolving a reference does not scan them all.
    by_name: HashMap<String, Vec<usize>>,
    pub references: Vec<Reference>,
    /// Where a built-in type is named (`string`), for colours.
    pub builtins: Vec<Span>,
    /// Where an annotation is written, `@` to the end of its arguments.
    pub annotations: Vec<Span>,
}

impl Index {
    /// The table of one parsed text; `tokens` are its tokens as [`covenant_codegen::lexer::lex`]
    /// gives them, to find where each declaration begins and ends, and `text` the text, to
    /// find the `{placeholders}` of a path.
    pub fn build(file: &File, tokens: &[Token], text: &str) -> Index {
        let mut builder = Builder {
            index: Index::default(),
            text,
        };
        let starts: Vec<usize> = file
            .items
            .iter()
            .map(|item| item_start(item, tokens))
            .collect();
        for (i, item) in file.items.iter().enumerate() {
            let next = starts.get(i + 1).copied().unwrap_or(usize::MAX);
            let full = Span::new(starts[i], last_token_end_before(tokens, next, starts[i]));
            builder.item(item, full);
        }
        let mut index = builder.index;
        for (i, d) in index.declarations.iter().enumerate() {
            index.by_name.entry(d.name.clone()).or_default().push(i);
        }
        index
    }

    /// The declaration or reference whose name holds `offset` (its end included, where a
    /// cursor stands after typing a name).
    pub fn at(&self, offset: usize) -> Option<Target> {
        let holds = |span: &Span| span.start as usize <= offset && offset <= span.end as usize;
        self.references
            .iter()
            .position(|r| holds(&r.span))
            .map(Target::Reference)
            .or_else(|| {
                self.declarations
                    .iter()
                    .position(|d| holds(&d.name_span))
                    .map(Target::Declaration)
            })
    }

    /// The declaration a target stands for: itself, or what the reference resolves to.
    pub fn declaration_of(&self, target: Target) -> Option<usize> {
        match target {
            Target::Declaration(i) => Some(i),
            Target::Reference(r) => self.resolve(&self.references[r]),
        }
    }

    pub fn resolve(&self, reference: &Reference) -> Option<usize> {
        let candidates = self.by_name.get(&reference.name)?;
        candidates.iter().copied().find(|&i| {
            let d = &self.declarations[i];
            match &reference.namespace {
                Namespace::Type => d.parent.is_none() && d.kind.is_type(),
                Namespace::Auth => d.kind == Kind::Auth,
                Namespace::Api => d.kind == Kind::Api,
                Namespace::State(states) => d.kind == Kind::State && d.parent == Some(*states),
                Namespace::Param(endpoint) => d.kind == Kind::Param && d.parent == Some(*endpoint),
                Namespace::ValueOf(enumeration) => {
                    d.kind == Kind::EnumValue
                        && d.parent.is_some_and(|p| {
                            let parent = &self.declarations[p];
                            parent.kind == Kind::Enum && parent.name == *enumeration
                        })
                }
                Namespace::Any => d.parent.is_none(),
            }
        })
    }

    /// Every place that names a declaration: its own name first, then each reference.
    pub fn occurrences(&self, declaration: usize) -> Vec<Span> {
        std::iter::once(self.declarations[declaration].name_span)
            .chain(
                self.references
                    .iter()
                    .filter(|r| self.resolve(r) == Some(declaration))
                    .map(|r| r.span),
            )
            .collect()
    }

    /// The declarations directly inside one (declared right after it, so read from there).
    pub fn children(&self, parent: usize) -> impl Iterator<Item = (usize, &Declaration)> {
        self.declarations
            .iter()
            .enumerate()
            .skip(parent + 1)
            .take_while(move |(_, d)| d.parent.is_some())
            .filter(move |(_, d)| d.parent == Some(parent))
    }

    /// The innermost declaration whose whole text holds `offset`.
    pub fn enclosing(&self, offset: usize) -> Option<usize> {
        self.declarations
            .iter()
            .enumerate()
            .filter(|(_, d)| d.full.start as usize <= offset && offset <= d.full.end as usize)
            .min_by_key(|(_, d)| d.full.end - d.full.start)
            .map(|(i, _)| i)
    }
}

/// The one declared type a field's type names besides `null`: `Status` in `Status | null`.
fn named_type(ty: &TypeExpr) -> Option<&str> {
    let mut named = ty.alternatives.iter().filter_map(|atom| match &atom.kind {
        TypeAtomKind::Named(ident) if !PRIMITIVES.contains(&ident.text.as_str()) => {
            Some(ident.text.as_str())
        }
        _ => None,
    });
    let first = named.next()?;
    named.next().is_none().then_some(first)
}

/// Where an item's text begins: its first doc comment or annotation, else its keyword.
fn item_start(item: &Item, tokens: &[Token]) -> usize {
    let first_annotation = item.attrs.annotations.first().map(|a| a.span.start);
    let start = first_annotation.map_or(item.head.start, |a| a.min(item.head.start));
    let mut at = tokens.partition_point(|t| t.span.start < start);
    while at > 0 && tokens[at - 1].kind == Tok::DocComment {
        at -= 1;
    }
    tokens
        .get(at)
        .map_or(start as usize, |t| (t.span.start.min(start)) as usize)
}

/// The end of the last token that ends by `limit`, not before `floor`.
fn last_token_end_before(tokens: &[Token], limit: usize, floor: usize) -> usize {
    let count = tokens.partition_point(|t| (t.span.end as usize) <= limit);
    tokens[..count]
        .iter()
        .rev()
        .find(|t| t.kind != Tok::Eof)
        .map_or(floor, |t| (t.span.end as usize).max(floor))
}

struct Builder<'t> {
    index: Index,
    text: &'t str,
}

impl Builder<'_> {
    fn declare(
        &mut self,
        name: &str,
        kind: Kind,
        name_span: Span,
        full: Span,
        doc: &Option<String>,
        parent: Option<usize>,
    ) -> usize {
        self.index.declarations.push(Declaration {
            name: name.to_string(),
            kind,
            name_span,
            full,
            doc: doc.clone(),
            parent,
        });
        self.index.declarations.len() - 1
    }

    fn refer(&mut self, ident: &Ident, namespace: Namespace) {
        self.index.references.push(Reference {
            name: ident.text.clone(),
            span: ident.span,
            namespace,
        });
    }

    fn item(&mut self, item: &Item, full: Span) {
        self.attrs(&item.attrs);
        let doc = &item.attrs.doc;
        match &item.kind {
            ItemKind::Service(block) => {
                self.declare(
                    &block.name.text,
                    Kind::Service,
                    block.name.span,
                    full,
                    doc,
                    None,
                );
                self.props(&block.props);
            }
            ItemKind::Api(api) => {
                let this = self.declare(&api.name.text, Kind::Api, api.name.span, full, doc, None);
                self.props(&api.props);
                for error in &api.errors {
                    self.attrs(&error.attrs);
                    self.error(&error.node, this);
                }
                self.fields(&api.headers, Kind::Param, this);
            }
            ItemKind::Auth(auth) => {
                self.declare(&auth.name.text, Kind::Auth, auth.name.span, full, doc, None);
                self.props(&auth.props);
            }
            ItemKind::Enum(decl) => self.enumeration(decl, full, doc),
            ItemKind::Model(model) | ItemKind::Envelope(model) => {
                let kind = match item.kind {
                    ItemKind::Envelope(_) => Kind::Envelope,
                    _ => Kind::Model,
                };
                let this = self.declare(&model.name.text, kind, model.name.span, full, doc, None);
                self.model_members(&model.members, this);
            }
            ItemKind::Type(alias) => {
                let name = &alias.name;
                self.declare(&name.text, Kind::TypeAlias, name.span, full, doc, None);
                self.type_expr(&alias.ty);
            }
            ItemKind::Endpoint(endpoint) => self.endpoint(endpoint, full, doc),
            ItemKind::Event(event) => {
                let name = &event.name;
                let this = self.declare(&name.text, Kind::Event, name.span, full, doc, None);
                for member in &event.members {
                    self.attrs(&member.attrs);
                    match &member.node {
                        EventMember::Placeholder(field) | EventMember::Field(field) => {
                            self.field(field, Kind::Field, member, this)
                        }
                        EventMember::NotShown(_) => {}
                    }
                }
            }
            ItemKind::Limit(limit) => {
                let name = &limit.name;
                self.declare(&name.text, Kind::Limit, name.span, full, doc, None);
                if let Some(value) = &limit.value {
                    self.value(value);
                }
                self.props(&limit.props);
            }
            ItemKind::RateLimit(rate) => {
                let name = &rate.name;
                self.declare(&name.text, Kind::RateLimit, name.span, full, doc, None);
                for member in &rate.members {
                    self.attrs(&member.attrs);
                    match &member.node {
                        RateMember::Prop(prop) => prop.values.iter().for_each(|v| self.value(v)),
                        RateMember::Tier { args, .. } => {
                            args.iter().for_each(|a| self.value(&a.value))
                        }
                        RateMember::NotShown(_) => {}
                    }
                }
            }
            ItemKind::States(states) => self.states(states, full, doc),
            ItemKind::Changelog(_) | ItemKind::NotShown(_) => {}
        }
    }

    fn enumeration(&mut self, decl: &EnumDecl, full: Span, doc: &Option<String>) {
        let this = self.declare(&decl.name.text, Kind::Enum, decl.name.span, full, doc, None);
        if let Some(parent) = &decl.parent {
            self.refer(parent, Namespace::Type);
        }
        if let Some(repr) = &decl.repr {
            self.index.builtins.push(repr.span);
        }
        for member in &decl.members {
            self.attrs(&member.attrs);
            if let EnumMember::Value(value) = &member.node {
                let doc = &member.attrs.doc;
                self.declare(
                    &value.text,
                    Kind::EnumValue,
                    value.span,
                    member.span,
                    doc,
                    Some(this),
                );
            }
        }
    }

    fn endpoint(&mut self, endpoint: &EndpointDecl, full: Span, doc: &Option<String>) {
        let name = &endpoint.name;
        let this = self.declare(&name.text, Kind::Endpoint, name.span, full, doc, None);
        self.placeholders(&endpoint.path, this);
        for member in &endpoint.members {
            self.attrs(&member.attrs);
            match &member.node {
                EndpointMember::Api(api) => self.refer(api, Namespace::Api),
                EndpointMember::Auth { schemes, .. } => {
                    for scheme in schemes {
                        self.refer(&scheme.scheme, Namespace::Auth);
                    }
                }
                EndpointMember::Param(_, field) => self.field(field, Kind::Param, member, this),
                EndpointMember::Body(body, _) => self.body(body, this),
                EndpointMember::Response { body, headers, .. } => {
                    if let Some(body) = body {
                        self.body(body, this);
                    }
                    self.fields(headers, Kind::Param, this);
                }
                EndpointMember::Error(error) => self.error(error, this),
                EndpointMember::Rejections(model) => self.refer(model, Namespace::Type),
                EndpointMember::Public(_)
                | EndpointMember::Tags(_)
                | EndpointMember::NotShown(_) => {}
            }
        }
    }

    fn states(&mut self, states: &StatesDecl, full: Span, doc: &Option<String>) {
        let name = &states.name;
        let this = self.declare(&name.text, Kind::States, name.span, full, doc, None);
        for member in &states.members {
            self.attrs(&member.attrs);
            match &member.node {
                StateMember::State(state) => {
                    let doc = &member.attrs.doc;
                    self.declare(
                        &state.text,
                        Kind::State,
                        state.span,
                        member.span,
                        doc,
                        Some(this),
                    );
                }
                StateMember::Transition { from, to, on, .. } => {
                    self.refer(from, Namespace::State(this));
                    self.refer(to, Namespace::State(this));
                    if let Some(on) = on {
                        self.refer(on, Namespace::Any);
                    }
                }
                StateMember::NotShown(_) => {}
            }
        }
    }

    fn body(&mut self, body: &BodyDecl, parent: usize) {
        match body {
            BodyDecl::Type(ty, _) => self.type_expr(ty),
            BodyDecl::Inline(model) => self.model_members(&model.members, parent),
        }
    }

    fn error(&mut self, error: &ErrorDecl, parent: usize) {
        if let Some(ty) = &error.ty {
            self.type_expr(ty);
        }
        self.fields(&error.headers, Kind::Param, parent);
    }

    fn model_members(&mut self, members: &[Member<ModelMember>], parent: usize) {
        for member in members {
            self.attrs(&member.attrs);
            if let ModelMember::Field(field) = &member.node {
                self.field(field, Kind::Field, member, parent);
            }
        }
    }

    fn fields(&mut self, fields: &[Member<FieldDecl>], kind: Kind, parent: usize) {
        for member in fields {
            self.attrs(&member.attrs);
            self.field(&member.node, kind, member, parent);
        }
    }

    fn field<T>(&mut self, field: &FieldDecl, kind: Kind, member: &Member<T>, parent: usize) {
        let name = &field.name;
        let doc = &member.attrs.doc;
        self.declare(&name.text, kind, name.span, member.span, doc, Some(parent));
        self.type_expr(&field.ty);
        let Some(default) = &field.default else {
            return;
        };
        // A default naming a value of the field's enum refers to that value.
        match (&default.kind, named_type(&field.ty)) {
            (ValueKind::Ref(path), Some(enumeration)) if path.len() == 1 => {
                let namespace = Namespace::ValueOf(enumeration.to_string());
                self.refer(&path[0], namespace);
            }
            _ => self.value(default),
        }
    }

    /// Each `{name}` of an endpoint's path, a reference to its parameter.
    fn placeholders(&mut self, path: &StrLit, endpoint: usize) {
        let Some(written) = self.text.get(path.span.range()) else {
            return;
        };
        let mut from = 0;
        while let Some(open) = written[from..].find('{').map(|i| from + i) {
            let Some(close) = written[open..].find('}').map(|i| open + i) else {
                break;
            };
            let name = &written[open + 1..close];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                let start = path.span.start as usize + open + 1;
                let ident = Ident {
                    text: name.to_string(),
                    span: Span::new(start, start + name.len()),
                };
                self.refer(&ident, Namespace::Param(endpoint));
            }
            from = close + 1;
        }
    }

    fn type_expr(&mut self, ty: &TypeExpr) {
        for atom in &ty.alternatives {
            self.type_atom(atom);
        }
    }

    fn type_atom(&mut self, atom: &TypeAtom) {
        match &atom.kind {
            TypeAtomKind::Named(ident) if PRIMITIVES.contains(&ident.text.as_str()) => {
                self.index.builtins.push(ident.span)
            }
            TypeAtomKind::Named(ident) => self.refer(ident, Namespace::Type),
            TypeAtomKind::List(inner) => self.type_atom(inner),
            TypeAtomKind::Group(expr) => self.type_expr(expr),
            TypeAtomKind::Map { key, value } => {
                self.index.builtins.push(key.span);
                self.type_expr(value);
            }
            TypeAtomKind::Null
            | TypeAtomKind::NotShown(_)
            | TypeAtomKind::Constant(_)
            | TypeAtomKind::ScalarConstant(_) => {}
        }
    }

    fn props(&mut self, props: &[Member<Prop>]) {
        for member in props {
            self.attrs(&member.attrs);
            member.node.values.iter().for_each(|v| self.value(v));
        }
    }

    fn attrs(&mut self, attrs: &Attrs) {
        for annotation in &attrs.annotations {
            self.index.annotations.push(annotation.span);
            annotation.args.iter().for_each(|a| self.value(&a.value));
        }
    }

    fn value(&mut self, value: &Value) {
        match &value.kind {
            ValueKind::Ref(path) => {
                if let Some(first) = path.first() {
                    self.refer(first, Namespace::Any);
                }
            }
            ValueKind::List(values) => values.iter().for_each(|v| self.value(v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covenant_codegen::Diagnostics;
    use covenant_codegen::lexer::lex;
    use covenant_codegen::parser::parse;

    fn index(text: &str) -> Index {
        let mut diagnostics = Diagnostics::default();
        let file = parse(text, &mut diagnostics);
        Index::build(&file, &lex(text, &mut diagnostics), text)
    }

    const SPEC: &str = "/// A pet.\n@source(toolkit)\nmodel Pet {\n    name: string\n    owner: Owner | null\n}\n\nmodel Owner {\n    pets: Pet[]\n}\n";

    #[test]
    fn a_reference_resolves_to_its_declaration_and_back() {
        let index = index(SPEC);
        let owner_use = SPEC.find("Owner |").unwrap();
        let target = index.at(owner_use + 2).unwrap();
        let owner = index.declaration_of(target).unwrap();
        assert_eq!(index.declarations[owner].kind, Kind::Model);
        let spans = index.occurrences(owner);
        assert_eq!(spans.len(), 2);
        assert_eq!(&SPEC[spans[0].range()], "Owner");
    }

    #[test]
    fn a_declaration_spans_its_doc_comments_and_annotations_to_its_brace() {
        let index = index(SPEC);
        let pet = &index.declarations[0];
        assert_eq!(pet.name, "Pet");
        assert_eq!(pet.doc.as_deref(), Some("A pet."));
        let text = &SPEC[pet.full.range()];
        assert!(text.starts_with("/// A pet."), "{text}");
        assert!(text.ends_with("| null\n}"), "{text}");
        let name = index.children(0).next().unwrap().1;
        assert_eq!((name.name.as_str(), name.kind), ("name", Kind::Field));
    }
}
