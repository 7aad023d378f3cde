//! Types, fields, constraints and defaults.

use super::annotations::{Annots, Site, closest};
use super::references::ReplacementScope;
use super::{Lowerer, TypeDecl};
use crate::ast::{self, TypeAtomKind, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

/// The parts of a type that matter for constraint checks.
enum Base {
    Prim(Primitive),
    List,
    Map,
    Other,
}

impl Lowerer<'_> {
    /// Resolves `A | B[] | null` into a type and whether `null` was among the alternatives,
    /// where the constraints of a named type cannot apply (a body, a header).
    pub(super) fn lower_type(&mut self, expr: &ast::TypeExpr) -> Option<(Type, bool)> {
        let (ty, constraints, nullable) = self.lower_type_with_constraints(expr)?;
        if !constraints.is_empty() {
            self.error(
                diagnostic_codes::CONSTRAINT_TYPE_MISMATCH,
                expr.span,
                "the constraints of this named type cannot apply here",
            )
            .label("a type with constraints of its own")
            .help("write the type the named type stands for, or use it in a field of a model");
        }
        Some((ty, nullable))
    }

    /// As [`Self::lower_type`], with the constraints a named type brings (`tags: Tag` where
    /// `@max_length(20) type Tag = string`).
    pub(super) fn lower_type_with_constraints(
        &mut self,
        expr: &ast::TypeExpr,
    ) -> Option<(Type, Constraints, bool)> {
        let mut nullable = false;
        let mut types = Vec::new();
        let mut ok = true;
        for atom in &expr.alternatives {
            if let TypeAtomKind::Null = atom.kind {
                nullable = true;
                continue;
            }
            match self.lower_atom(atom) {
                Some(t) => types.push((t, atom.span)),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        match types.len() {
            0 => {
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    expr.span,
                    "a type cannot be only `null`",
                )
                .label("no type besides null")
                .help("write the value's type and add `| null`, e.g. `string | null`; only a field may be `null` alone");
                None
            }
            1 => {
                let ((ty, constraints), _) = types.pop()?;
                Some((ty, constraints, nullable))
            }
            _ => {
                let mut members = Vec::new();
                for ((ty, constraints), span) in types {
                    if !constraints.is_empty() {
                        self.error(
                            diagnostic_codes::CONSTRAINT_TYPE_MISMATCH,
                            span,
                            "a member of a union cannot carry constraints",
                        )
                        .label("a named type with constraints of its own")
                        .help("write the type it stands for; a union's members are told apart by their types alone");
                    }
                    members.push(ty);
                }
                Some((Type::Union(members), Constraints::default(), nullable))
            }
        }
    }

    /// A field's type: as [`Self::lower_type`], but a constant (`object: "customer"`, or
    /// `"customer" | null`) is allowed, and reads as a string holding that value only.
    /// The last part is what a named type brings: its constraints.
    fn field_type(
        &mut self,
        expr: &ast::TypeExpr,
    ) -> Option<(Type, bool, Option<Literal>, Constraints)> {
        // `null` alone: a field that, when present, holds null and nothing else.
        if expr
            .alternatives
            .iter()
            .all(|a| matches!(a.kind, TypeAtomKind::Null))
        {
            return Some((
                Type::Primitive(Primitive::Null),
                false,
                None,
                Constraints::default(),
            ));
        }
        let mut values = expr
            .alternatives
            .iter()
            .filter(|a| !matches!(a.kind, TypeAtomKind::Null));
        if let (Some(atom), None) = (values.next(), values.next()) {
            let constant = match &atom.kind {
                TypeAtomKind::Constant(value) => {
                    Some((Primitive::String, Literal::String(value.value.clone())))
                }
                TypeAtomKind::ScalarConstant(value) => match value.kind {
                    ValueKind::Bool(b) => Some((Primitive::Bool, Literal::Bool(b))),
                    ValueKind::Int(n) => Some((Primitive::Int, Literal::Int(n))),
                    _ => None,
                },
                _ => None,
            };
            if let Some((primitive, literal)) = constant {
                let nullable = expr.alternatives.len() > 1;
                return Some((
                    Type::Primitive(primitive),
                    nullable,
                    Some(literal),
                    Constraints::default(),
                ));
            }
        }
        let (ty, constraints, nullable) = self.lower_type_with_constraints(expr)?;
        Some((ty, nullable, None, constraints))
    }

    /// One alternative, with the constraints a named type brings.
    fn lower_atom(&mut self, atom: &ast::TypeAtom) -> Option<(Type, Constraints)> {
        let plain = |ty| Some((ty, Constraints::default()));
        match &atom.kind {
            TypeAtomKind::Null => None,
            TypeAtomKind::Constant(value) => {
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    atom.span,
                    format!("the constant \"{}\" can only be a field's whole type", value.value),
                )
                .label("a constant here is not supported")
                .help("write `object: \"customer\"` for a field that always holds one value; use an enum for one of several values");
                None
            }
            TypeAtomKind::ScalarConstant(value) => {
                let text = match value.kind {
                    ValueKind::Bool(b) => b.to_string(),
                    ValueKind::Int(n) => n.to_string(),
                    _ => String::new(),
                };
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    atom.span,
                    format!("the constant {text} can only be a field's whole type"),
                )
                .label("a constant here is not supported")
                .help("write `ok: true` for a field that always holds one value; use `@one_of` or an enum for one of several values");
                None
            }
            TypeAtomKind::NotShown(what) => {
                plain(Type::NotShown(what.as_ref().map(|s| s.value.clone())))
            }
            TypeAtomKind::List(inner) => {
                let (item, constraints) = self.lower_atom(inner)?;
                plain(Type::List(Box::new(item), Box::new(constraints)))
            }
            TypeAtomKind::Map { key, .. } if key.text != "string" => {
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    key.span,
                    format!("map keys of type `{}` are not supported", key.text),
                )
                .label("a JSON object's keys are strings")
                .help("write `map<string, T>`, and say what the keys hold in a doc comment");
                None
            }
            TypeAtomKind::Map { value, .. } => match self.lower_type_with_constraints(value)? {
                (ty, constraints, false) => plain(Type::Map(Box::new(ty), Box::new(constraints))),
                (_, _, true) => {
                    self.error(
                        diagnostic_codes::UNKNOWN_TYPE,
                        atom.span,
                        "map values that may be `null` are not supported",
                    )
                    .label("a map's values are never null")
                    .help("leave the key out instead of sending it with `null`");
                    None
                }
            },
            TypeAtomKind::Group(expr) => match self.lower_type_with_constraints(expr)? {
                (ty, constraints, false) => Some((ty, constraints)),
                (_, _, true) => {
                    self.error(
                        diagnostic_codes::UNKNOWN_TYPE,
                        atom.span,
                        "`null` inside parentheses is not supported",
                    )
                    .label("nullable only at the top of a field's type")
                    .help("write `(A | B)[] | null` for a list that may be null");
                    None
                }
            },
            TypeAtomKind::Named(name) => {
                if let Some(p) = Primitive::from_name(&name.text) {
                    return plain(Type::Primitive(p));
                }
                if let Some((decl, _)) = self.types.get(&name.text).copied() {
                    self.used_types.insert(decl);
                    return match decl {
                        TypeDecl::Model(id) => plain(Type::Model(id)),
                        TypeDecl::Enum(id) => plain(Type::Enum(id)),
                        TypeDecl::Alias(index) => self.alias_use(index),
                    };
                }
                self.unknown_type(name);
                None
            }
        }
    }

    pub(super) fn unknown_type(&mut self, name: &ast::Ident) {
        const PRIMITIVES: &[&str] = &[
            "string", "int", "number", "bool", "uuid", "date", "datetime", "email", "uri",
            "timezone", "object", "any",
        ];
        let mut candidates: Vec<&str> = self.types.keys().map(String::as_str).collect();
        candidates.extend_from_slice(PRIMITIVES);
        candidates.sort_unstable();
        let help = match closest(&name.text, &candidates) {
            Some(c) => format!("did you mean `{c}`?"),
            None => "declare it with `model` or `enum`, or use a built-in type (string, int, number, bool, \
                     uuid, date, datetime, email, uri, timezone, object, any)"
                .to_string(),
        };
        self.error(
            diagnostic_codes::UNKNOWN_TYPE,
            name.span,
            format!("unknown type `{}`", name.text),
        )
        .label("not declared anywhere in the spec")
        .help(help);
    }

    /// Lowers one field or parameter. `scope` is where `@deprecated(use: …)` resolves.
    pub(super) fn lower_field(
        &mut self,
        attrs: &ast::Attrs,
        decl: &ast::FieldDecl,
        site: Site,
        scope: ReplacementScope,
        enums: &[Enum],
    ) -> Option<Field> {
        let enums = Some(enums);
        let annots = self.annots(attrs, site);
        let (ty, nullable, constant, named) = self.field_type(&decl.ty)?;
        if site != Site::Field && ty == Type::Primitive(Primitive::Null) {
            self.error(
                diagnostic_codes::UNKNOWN_TYPE,
                decl.ty.span,
                "a parameter or header cannot be only `null`",
            )
            .label("no type besides null")
            .help("write the value's type; only a field of a model may be `null` alone");
            return None;
        }
        let presence = Presence::new(decl.optional.is_some(), nullable);
        let mut constraints = named.overlaid_with(self.constraints(&annots, &ty, decl.ty.span));
        if let Some(value) = constant {
            if let Some(a) = annots.get("one_of") {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    a.span,
                    "a constant field holds its one value already",
                )
                .label("says nothing more")
                .help("remove `@one_of`, or write the field's type in place of the constant");
            }
            constraints.one_of = vec![value];
        }
        // Parameters are bounded by the request head's own limits.
        if site == Site::Field {
            self.apply_default_bounds(&mut constraints, &ty);
        }
        let default = decl
            .default
            .as_ref()
            .and_then(|v| self.default_value(v, &ty, presence, &constraints, enums));
        if let (Some(value), false) = (&decl.default, presence.may_be_absent()) {
            self.error(
                diagnostic_codes::DEFAULT_ON_REQUIRED,
                value.span,
                format!(
                    "`{}` is required, so its default never applies",
                    decl.name.text
                ),
            )
            .label("default of a required field")
            .note(decl.name.span, "add `?` after the name to make it optional")
            .help("a default fills in a field that is left out");
        }
        let (visibility, format_scope) = self.shape_annotations(&annots, &ty, decl.ty.span);
        let deprecated = self.deprecation(&annots).map(|(dep, target)| {
            if let Some((name, span)) = target {
                self.queue_replacement(scope, name, span);
            }
            dep
        });
        let secret = self.text_marker(&annots, "secret", &ty, decl.ty.span);
        let personal = self.text_marker(&annots, "personal", &ty, decl.ty.span);
        let varies = annots.get("varies").is_some_and(|a| {
            if !a.args.is_empty() {
                self.bad_args(a, "no arguments");
            }
            true
        });
        let encoding = self.encoding(&annots, &ty, decl.ty.span);
        let rejection = annots
            .get("rejection")
            .and_then(|a| self.rejection_slot(a, &ty, presence, &constraints, enums));
        Some(Field {
            name: decl.name.text.clone(),
            ident: String::new(),
            doc: attrs.doc.clone(),
            ty,
            presence,
            default,
            constraints,
            visibility,
            format_scope,
            deprecated,
            provenance: self.provenance(&annots),
            rejection,
            secret,
            personal,
            varies,
            encoding,
            span: decl.name.span,
        })
    }

    /// `@style(…)`: how a list or an object is written as text. A joined list holds scalars;
    /// brackets hold anything but a lone scalar.
    fn encoding(&mut self, annots: &Annots, ty: &Type, ty_span: Span) -> Encoding {
        let Some(a) = annots.get("style") else {
            return Encoding::Repeated;
        };
        let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
        let Some(encoding) = self
            .word_arg(a, &names)
            .and_then(|name| Encoding::from_name(&name))
        else {
            return Encoding::Repeated;
        };
        let list_of_scalars = matches!(ty, Type::List(item, _)
            if super::endpoints::object_in(item).is_none() && !matches!(**item, Type::List(..)));
        let structured = matches!(ty, Type::List(..)) || super::endpoints::object_in(ty).is_some();
        let fits = match encoding {
            Encoding::Repeated => matches!(ty, Type::List(..)),
            Encoding::Comma | Encoding::Spaces | Encoding::Pipes => list_of_scalars,
            Encoding::Deep => structured,
        };
        if !fits {
            let (label, help) = match encoding {
                Encoding::Deep => (
                    "brackets write a list, a model or a map",
                    "remove `@style(deep)`: a single value is written as it is",
                ),
                _ => (
                    "joined or repeated items are a list of scalars",
                    "use `@style(deep)` for a list of objects, or remove `@style`",
                ),
            };
            self.error(
                diagnostic_codes::BAD_ENCODING,
                ty_span,
                format!("`@style({})` does not fit this type", encoding.as_str()),
            )
            .label(label)
            .help(help);
            return Encoding::Repeated;
        }
        encoding
    }

    /// `@secret` (a token, a key, a password) or `@personal` (a name, an address) on a value
    /// held as text, or a list of them; `@personal` also on a model every text of which is a
    /// person's here (`address: Address`).
    fn text_marker(&mut self, annots: &Annots, name: &str, ty: &Type, ty_span: Span) -> bool {
        let Some(a) = annots.get(name) else {
            return false;
        };
        if !a.args.is_empty() {
            self.bad_args(a, "no arguments");
        }
        let item = match ty {
            Type::List(item, _) => item.as_ref(),
            ty => ty,
        };
        // A person's address or record as a whole is personal where it is a person's: the
        // same model elsewhere (a company's address) is not.
        let whole_model = name == "personal" && matches!(item, Type::Model(_));
        if !whole_model && !matches!(item, Type::Primitive(p) if p.is_string_like()) {
            self.error(
                diagnostic_codes::CONSTRAINT_TYPE_MISMATCH,
                a.span,
                match name {
                    "personal" => {
                        "`@personal` needs a value held as text, or a model of a person's data"
                            .to_string()
                    }
                    _ => format!("`@{name}` needs a value held as text"),
                },
            )
            .label("does not apply to this type")
            .note(ty_span, "the value's type")
            .help("mark the text fields that hold it, not the model around them");
            return false;
        }
        true
    }

    fn shape_annotations(
        &mut self,
        annots: &Annots,
        ty: &Type,
        ty_span: Span,
    ) -> (Visibility, FormatScope) {
        let visibility = match (annots.get("request_only"), annots.get("response_only")) {
            (Some(_), Some(b)) => {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    b.span,
                    "a field cannot be both request-only and response-only",
                )
                .label("contradicts `@request_only`");
                Visibility::Always
            }
            (Some(_), None) => Visibility::RequestOnly,
            (None, Some(_)) => Visibility::ResponseOnly,
            (None, None) => Visibility::Always,
        };
        let mut format_scope = FormatScope::Always;
        if let Some(a) = annots.get("format_only")
            && self.word_arg(a, &["request"]).is_some()
        {
            match ty {
                Type::Primitive(p) if p.format().is_some() => {
                    format_scope = FormatScope::RequestOnly
                }
                _ => {
                    self.error(
                        diagnostic_codes::CONSTRAINT_TYPE_MISMATCH,
                        a.span,
                        "`@format_only` needs a formatted string type",
                    )
                    .label("the field's type has no format")
                    .note(ty_span, "this type")
                    .help("use it on uuid, date, datetime, email, uri or timezone fields");
                }
            }
        }
        (visibility, format_scope)
    }

    fn base(&self, ty: &Type) -> Base {
        match ty {
            Type::Primitive(p) => Base::Prim(*p),
            Type::List(..) => Base::List,
            Type::Map(..) => Base::Map,
            _ => Base::Other,
        }
    }

    /// `@format("name")`: a name as JSON Schema writes formats (letters, digits, `-`, `_`).
    fn format_name(&mut self, a: &crate::ast::Annotation) -> Option<String> {
        let name = self.string_arg(a)?;
        if !is_format_name(&name) {
            self.bad_args(a, "a format's name, e.g. `@format(\"unix-time\")`");
            return None;
        }
        Some(name)
    }

    pub(super) fn constraints(&mut self, annots: &Annots, ty: &Type, ty_span: Span) -> Constraints {
        let mut c = Constraints::default();
        let base = self.base(ty);
        let numeric = matches!(base, Base::Prim(p) if p.is_numeric());
        let (stringy, listy) = self.text_or_list(ty);
        let countable = listy || matches!(base, Base::Map);
        let checks: [(&str, bool, &str); 10] = [
            ("min", numeric, "a number"),
            ("max", numeric, "a number"),
            ("min_length", stringy, "a string"),
            ("max_length", stringy, "a string"),
            ("pattern", stringy, "a string"),
            ("min_items", countable, "a list or a map"),
            ("max_items", countable, "a list or a map"),
            ("unique_items", listy, "a list"),
            ("one_of", numeric || stringy, "a number or a string"),
            ("format", numeric || stringy, "a plain number or string"),
        ];
        for (name, fits, needs) in checks {
            let Some(a) = annots.get(name) else { continue };
            if !fits {
                self.error(
                    diagnostic_codes::CONSTRAINT_TYPE_MISMATCH,
                    a.span,
                    format!("`@{name}` needs {needs}"),
                )
                .label("does not apply to this type".to_string())
                .note(ty_span, "the value's type");
                continue;
            }
            match name {
                "min" => c.minimum = self.number_arg(a),
                "max" => c.maximum = self.number_arg(a),
                "min_length" => c.min_length = self.count_arg(a),
                "max_length" => c.max_length = self.count_arg(a),
                "min_items" => c.min_items = self.count_arg(a),
                "max_items" => c.max_items = self.count_arg(a),
                "pattern" => c.pattern = self.pattern(a),
                "unique_items" => c.unique_items = self.flag(a),
                "format" => c.format = self.format_name(a),
                _ => c.one_of = self.one_of(a, numeric),
            }
        }
        let ranges = [
            ("min", "max", c.minimum, c.maximum),
            (
                "min_length",
                "max_length",
                c.min_length.map(|n| n as f64),
                c.max_length.map(|n| n as f64),
            ),
            (
                "min_items",
                "max_items",
                c.min_items.map(|n| n as f64),
                c.max_items.map(|n| n as f64),
            ),
        ];
        for (lo_name, hi_name, lo, hi) in ranges {
            if let (Some(lo), Some(hi)) = (lo, hi)
                && lo > hi
            {
                let span = annots.get(lo_name).map_or(ty_span, |a| a.span);
                let hi_span = annots.get(hi_name).map_or(ty_span, |a| a.span);
                self.error(
                    diagnostic_codes::EMPTY_RANGE,
                    span,
                    format!("`@{lo_name}({lo})` is above `@{hi_name}({hi})`"),
                )
                .label("no value can satisfy both")
                .note(hi_span, "the upper bound");
            }
        }
        c
    }

    /// Whether `ty` is text held as a string (lengths, patterns and sets apply; not to uuid,
    /// date and datetime, whose shape their format already fixes), and whether it is a list.
    fn text_or_list(&self, ty: &Type) -> (bool, bool) {
        let base = self.base(ty);
        let text = matches!(base, Base::Prim(p) if p.is_string_like()
            && !matches!(p, Primitive::Uuid | Primitive::Date | Primitive::DateTime));
        (text, matches!(base, Base::List))
    }

    /// The service's bounds on a string or list that states none of its own (and whose
    /// minimum does not exceed them).
    fn apply_default_bounds(&self, c: &mut Constraints, ty: &Type) {
        let (stringy, listy) = self.text_or_list(ty);
        let (max_length, max_items) = self.default_bounds;
        if let (true, None, Some(bound)) = (stringy, c.max_length, max_length)
            && c.min_length.is_none_or(|min| min <= bound.value)
            && c.one_of.is_empty()
        {
            c.max_length = Some(bound.value);
            c.default_bound = Some(bound.provenance);
        }
        if let (true, None, Some(bound)) = (listy, c.max_items, max_items)
            && c.min_items.is_none_or(|min| min <= bound.value)
        {
            c.max_items = Some(bound.value);
            c.default_bound = Some(bound.provenance);
        }
    }

    fn pattern(&mut self, a: &ast::Annotation) -> Option<String> {
        let pattern = self.string_arg(a)?;
        const NOT_ECMA: &[&str] = &[
            "(?i", "(?m", "(?s", "(?x", "(?u", "(?P<", "\\A", "\\z", "\\Z", "[[:",
        ];
        if let Some(construct) = NOT_ECMA.iter().find(|c| pattern.contains(**c)) {
            self.error(diagnostic_codes::BAD_PATTERN, a.span, format!("`{construct}` is not ECMA-262 regular expression syntax"))
                .label("JSON Schema validators would read this pattern differently")
                .help("patterns are ECMA-262 as in JSON Schema; use the subset Rust's regex shares with it");
            return None;
        }
        if let Err(e) = regex_syntax::Parser::new().parse(&pattern) {
            let reason = match &e {
                regex_syntax::Error::Parse(p) => p.kind().to_string(),
                regex_syntax::Error::Translate(t) => t.kind().to_string(),
                other => other.to_string(),
            };
            self.error(diagnostic_codes::BAD_PATTERN, a.span, format!("invalid regular expression: {reason}"))
                .label("this pattern does not compile")
                .help("patterns use ECMA-262 syntax as in JSON Schema; escape special characters with `\\\\`");
            return None;
        }
        if let Err(e) = regex::Regex::new(&pattern) {
            self.error(diagnostic_codes::BAD_PATTERN, a.span, format!("invalid regular expression: {}", e.to_string().lines().last().unwrap_or_default()))
                .label("this pattern does not compile")
                .help("patterns use ECMA-262 syntax as in JSON Schema; escape special characters with `\\`");
            return None;
        }
        Some(pattern)
    }

    fn one_of(&mut self, a: &ast::Annotation, numeric: bool) -> Vec<Literal> {
        let mut values = Vec::new();
        for arg in &a.args {
            match (&arg.value.kind, numeric) {
                (ValueKind::Int(n), true) => values.push(Literal::Int(*n)),
                (ValueKind::Float(f), true) => values.push(Literal::Number(*f)),
                (ValueKind::Str(s), false) => values.push(Literal::String(s.clone())),
                _ => {
                    let kind = if numeric { "numbers" } else { "strings" };
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        arg.value.span,
                        format!("`@one_of` of this field takes {kind}"),
                    )
                    .label("does not match the field's type");
                }
            }
        }
        if values.is_empty() && a.args.is_empty() {
            self.bad_args(a, "at least one value");
        }
        values
    }

    /// Converts a default and checks it against the type and constraints.
    fn default_value(
        &mut self,
        value: &ast::Value,
        ty: &Type,
        presence: Presence,
        c: &Constraints,
        enums: Option<&[Enum]>,
    ) -> Option<Literal> {
        if let ValueKind::Null = value.kind {
            if presence.may_be_null() {
                return Some(Literal::Null);
            }
            if *ty == Type::Primitive(Primitive::Null) {
                self.error(
                    diagnostic_codes::DEFAULT_WRONG_TYPE,
                    value.span,
                    "a field of type `null` takes no default",
                )
                .label("null is its only value already")
                .help("remove `= null`: an optional `null` field is absent or null either way");
                return None;
            }
            self.error(
                diagnostic_codes::DEFAULT_WRONG_TYPE,
                value.span,
                "default `null` on a field that cannot be null",
            )
            .label("not nullable")
            .help("add `| null` to the type, or pick another default");
            return None;
        }
        let Some(lit) = self.literal_for(value, ty, enums) else {
            let expected = self.type_name(ty, enums);
            self.error(
                diagnostic_codes::DEFAULT_WRONG_TYPE,
                value.span,
                "default does not match the field's type",
            )
            .label(format!("not a valid {expected}"));
            return None;
        };
        if let Some(problem) = violation(&lit, c) {
            self.error(
                diagnostic_codes::DEFAULT_VIOLATES_CONSTRAINT,
                value.span,
                format!("default {lit} {problem}"),
            )
            .label("outside the field's constraints")
            .help("a default must itself be a valid value");
            return None;
        }
        Some(lit)
    }

    pub(super) fn literal_for(
        &self,
        value: &ast::Value,
        ty: &Type,
        enums: Option<&[Enum]>,
    ) -> Option<Literal> {
        match (ty, &value.kind) {
            (Type::Primitive(Primitive::Int), ValueKind::Int(n)) => Some(Literal::Int(*n)),
            (Type::Primitive(Primitive::Number), ValueKind::Int(n)) => Some(Literal::Int(*n)),
            (Type::Primitive(Primitive::Number), ValueKind::Float(f)) => Some(Literal::Number(*f)),
            (Type::Primitive(Primitive::Bool), ValueKind::Bool(b)) => Some(Literal::Bool(*b)),
            (Type::Primitive(p), ValueKind::Str(s)) if p.is_string_like() => {
                Some(Literal::String(s.clone()))
            }
            (Type::Primitive(Primitive::Any), _) => None,
            (Type::Enum(id), kind) => {
                let e = enums?.get(id.index())?;
                let text = match kind {
                    ValueKind::Ref(path) if path.len() == 1 => path[0].text.clone(),
                    ValueKind::Str(s) => s.clone(),
                    ValueKind::Int(n) => n.to_string(),
                    _ => return None,
                };
                e.values
                    .iter()
                    .any(|v| v.name == text)
                    .then(|| match e.repr {
                        EnumRepr::Int => Literal::Int(text.parse().unwrap_or_default()),
                        EnumRepr::String => Literal::String(text),
                    })
            }
            (Type::List(inner, _), ValueKind::List(items)) => items
                .iter()
                .map(|item| self.literal_for(item, inner, enums))
                .collect::<Option<Vec<_>>>()
                .map(Literal::List),
            (Type::Union(alts), _) => alts.iter().find_map(|t| self.literal_for(value, t, enums)),
            _ => None,
        }
    }

    fn type_name(&self, ty: &Type, enums: Option<&[Enum]>) -> String {
        match ty {
            Type::Primitive(p) => p.name().to_string(),
            Type::Enum(id) => enums
                .and_then(|e| e.get(id.index()))
                .map_or("enum value".to_string(), |e| format!("`{}` value", e.name)),
            Type::List(_, _) => "list".to_string(),
            _ => "value of this type".to_string(),
        }
    }
}

/// What a literal breaks of the constraints, if anything.
pub(super) fn violation(lit: &Literal, c: &Constraints) -> Option<String> {
    if let Some(n) = lit.as_f64() {
        if let Some(min) = c.minimum.filter(|m| n < *m) {
            return Some(format!("is below the minimum {min}"));
        }
        if let Some(max) = c.maximum.filter(|m| n > *m) {
            return Some(format!("is above the maximum {max}"));
        }
    }
    if let Literal::String(s) = lit {
        let len = s.chars().count() as u64;
        if let Some(min) = c.min_length.filter(|m| len < *m) {
            return Some(format!("is shorter than {min} characters"));
        }
        if let Some(max) = c.max_length.filter(|m| len > *m) {
            return Some(format!("is longer than {max} characters"));
        }
    }
    if let Literal::List(items) = lit {
        let len = items.len() as u64;
        if let Some(min) = c.min_items.filter(|m| len < *m) {
            return Some(format!("has fewer than {min} items"));
        }
        if let Some(max) = c.max_items.filter(|m| len > *m) {
            return Some(format!("has more than {max} items"));
        }
    }
    let same = |a: &Literal| match (a.as_f64(), lit.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == lit,
    };
    if !c.one_of.is_empty() && !c.one_of.iter().any(same) {
        let allowed: Vec<String> = c.one_of.iter().map(ToString::to_string).collect();
        return Some(format!("is not one of {}", allowed.join(", ")));
    }
    None
}
