//! The text of a parse tree: the way a program that builds a spec (an importer) writes it,
//! so no tool assembles spec text by hand. The output is run through the formatter, and
//! parses back to the same tree.
//!
//! ```
//! use covenant_codegen::{ast, print::print_file};
//!
//! let file = ast::File {
//!     items: vec![ast::Item {
//!         attrs: ast::Attrs { doc: Some("A pet.".into()), annotations: vec![] },
//!         kind: ast::ItemKind::NotShown(ast::StrLit { value: "Pets' ages".into(), span: Default::default() }),
//!         head: Default::default(),
//!     }],
//! };
//! assert_eq!(print_file(&file, None), "/// A pet.\nnot_shown \"Pets' ages\"\n");
//! ```

use crate::ast::*;
use crate::format::format_source;
use crate::source::SourceFile;
use std::fmt::Write;

/// The spec text of `file`, in `fmt`'s layout, after an optional header comment (each of
/// its lines becomes a `//` line).
pub fn print_file(file: &File, header: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(header) = header {
        for line in header.lines() {
            out.push_str(format!("// {line}").trim_end());
            out.push('\n');
        }
        out.push('\n');
    }
    for (index, item) in file.items.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        attrs(&mut out, &item.attrs, 0);
        item_kind(&mut out, &item.kind);
    }
    let source = SourceFile::new("printed.covenant", out);
    format_source(&source).unwrap_or(source.text)
}

/// A string literal in the language's escapes; other control characters become spaces,
/// since a literal holds one line.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `text` may stand unquoted as a name.
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn attrs(out: &mut String, attrs: &Attrs, depth: usize) {
    if let Some(doc) = &attrs.doc {
        for line in doc.lines() {
            indent(out, depth);
            let line: String = line
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            out.push_str(format!("/// {line}").trim_end());
            out.push('\n');
        }
    }
    for annotation in &attrs.annotations {
        indent(out, depth);
        out.push('@');
        out.push_str(&annotation.name.text);
        if !annotation.args.is_empty() {
            out.push('(');
            args(out, &annotation.args);
            out.push(')');
        }
        out.push('\n');
    }
}

fn args(out: &mut String, list: &[Arg]) {
    for (index, arg) in list.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        if let Some(name) = &arg.name {
            out.push_str(&name.text);
            out.push_str(": ");
        }
        value(out, &arg.value);
    }
}

fn value(out: &mut String, v: &Value) {
    match &v.kind {
        ValueKind::Str(s) => out.push_str(&quote(s)),
        ValueKind::Int(n) => {
            let _ = write!(out, "{n}");
        }
        ValueKind::Float(f) => out.push_str(&float(*f)),
        ValueKind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ValueKind::Null => out.push_str("null"),
        ValueKind::Ref(path) => {
            let names: Vec<&str> = path.iter().map(|i| i.text.as_str()).collect();
            out.push_str(&names.join("."));
        }
        ValueKind::List(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                value(out, item);
            }
            out.push(']');
        }
        ValueKind::Quantity { amount, unit } => {
            out.push_str(&float(*amount));
            out.push(' ');
            out.push_str(&unit.text);
        }
    }
}

/// A number as the lexer reads it back: whole numbers without a fraction, others with one
/// (the lexer has no exponents).
fn float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        let text = format!("{f}");
        if text.contains('.') {
            text
        } else {
            format!("{f:.1}")
        }
    }
}

fn props(out: &mut String, list: &[Member<Prop>], depth: usize) {
    for member in list {
        attrs(out, &member.attrs, depth);
        indent(out, depth);
        prop(out, &member.node);
        out.push('\n');
    }
}

fn prop(out: &mut String, p: &Prop) {
    out.push_str(&p.key.text);
    out.push(' ');
    for (index, v) in p.values.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        value(out, v);
    }
}

fn item_kind(out: &mut String, kind: &ItemKind) {
    match kind {
        ItemKind::Service(block) => {
            let _ = writeln!(out, "service {} {{", block.name.text);
            props(out, &block.props, 1);
            out.push_str("}\n");
        }
        ItemKind::Api(api) => {
            let _ = writeln!(out, "api {} {{", api.name.text);
            props(out, &api.props, 1);
            for header in &api.headers {
                attrs(out, &header.attrs, 1);
                indent(out, 1);
                out.push_str("header ");
                field(out, &header.node);
                out.push('\n');
            }
            for error in &api.errors {
                attrs(out, &error.attrs, 1);
                indent(out, 1);
                error_decl(out, &error.node, 1);
                out.push('\n');
            }
            out.push_str("}\n");
        }
        ItemKind::Auth(auth) => {
            let _ = write!(out, "auth {}: {}", auth.name.text, auth.location.text);
            if let Some(key) = &auth.key {
                out.push(' ');
                out.push_str(&quote(&key.value));
            }
            if !auth.props.is_empty() {
                out.push_str(" {\n");
                props(out, &auth.props, 1);
                out.push('}');
            }
            out.push('\n');
        }
        ItemKind::Enum(decl) => enum_decl(out, decl),
        ItemKind::Model(decl) => model(out, "model ", decl, 0),
        ItemKind::Envelope(decl) => model(out, "envelope ", decl, 0),
        ItemKind::Type(decl) => {
            let _ = write!(out, "type {} = ", decl.name.text);
            type_expr(out, &decl.ty);
            out.push('\n');
        }
        ItemKind::Endpoint(decl) => endpoint(out, decl),
        ItemKind::Event(decl) => event(out, decl),
        ItemKind::Limit(decl) => {
            let _ = write!(out, "limit {}", decl.name.text);
            if let Some(v) = &decl.value {
                out.push_str(" = ");
                limit_value(out, v);
            }
            if !decl.props.is_empty() {
                out.push_str(" {\n");
                props(out, &decl.props, 1);
                out.push('}');
            }
            out.push('\n');
        }
        ItemKind::RateLimit(decl) => {
            let _ = writeln!(out, "rate_limit {} {{", decl.name.text);
            for member in &decl.members {
                attrs(out, &member.attrs, 1);
                indent(out, 1);
                match &member.node {
                    RateMember::Prop(p) => prop(out, p),
                    RateMember::Tier {
                        is_default,
                        args: list,
                    } => {
                        out.push_str(if *is_default { "default(" } else { "tier(" });
                        args(out, list);
                        out.push(')');
                    }
                    RateMember::NotShown(what) => not_shown(out, what),
                }
                out.push('\n');
            }
            out.push_str("}\n");
        }
        ItemKind::States(decl) => {
            let _ = writeln!(out, "states {} {{", decl.name.text);
            for member in &decl.members {
                attrs(out, &member.attrs, 1);
                indent(out, 1);
                match &member.node {
                    StateMember::State(name) => out.push_str(&name.text),
                    StateMember::Transition { from, to, on, when } => {
                        let _ = write!(out, "{} -> {}", from.text, to.text);
                        if let Some(on) = on {
                            let _ = write!(out, " on {}", on.text);
                        }
                        if let Some(when) = when {
                            let _ = write!(out, " when {}", quote(&when.value));
                        }
                    }
                    StateMember::NotShown(what) => not_shown(out, what),
                }
                out.push('\n');
            }
            out.push_str("}\n");
        }
        ItemKind::Changelog(entries) => {
            out.push_str("changelog {\n");
            for entry in entries {
                attrs(out, &entry.attrs, 1);
                indent(out, 1);
                let _ = writeln!(
                    out,
                    "{}: {}",
                    quote(&entry.node.date.value),
                    quote(&entry.node.text.value)
                );
            }
            out.push_str("}\n");
        }
        ItemKind::NotShown(what) => {
            not_shown(out, what);
            out.push('\n');
        }
    }
}

/// A limit's value: `not_shown("what")` is kept by the parser as a reference named
/// `not_shown:what`.
fn limit_value(out: &mut String, v: &Value) {
    if let ValueKind::Ref(path) = &v.kind
        && let Some(what) = path.first().and_then(|i| i.text.strip_prefix("not_shown:"))
    {
        let _ = write!(out, "not_shown({})", quote(what));
        return;
    }
    value(out, v);
}

fn not_shown(out: &mut String, what: &StrLit) {
    out.push_str("not_shown ");
    out.push_str(&quote(&what.value));
}

fn enum_decl(out: &mut String, decl: &EnumDecl) {
    if decl.open.is_some() {
        out.push_str("open ");
    }
    let _ = write!(out, "enum {}", decl.name.text);
    if let Some(repr) = &decl.repr {
        let _ = write!(out, ": {}", repr.text);
    }
    if let Some(parent) = &decl.parent {
        let _ = write!(out, " subset of {}", parent.text);
    }
    out.push_str(" {\n");
    for member in &decl.members {
        attrs(out, &member.attrs, 1);
        indent(out, 1);
        match &member.node {
            EnumMember::Value(v) if v.is_int || is_identifier(&v.text) => out.push_str(&v.text),
            EnumMember::Value(v) => out.push_str(&quote(&v.text)),
            EnumMember::NotShown(what) => not_shown(out, what),
        }
        out.push('\n');
    }
    out.push_str("}\n");
}

/// A model's block; `keyword` is `model `, `envelope ` or empty for a block written in place.
fn model(out: &mut String, keyword: &str, decl: &ModelDecl, depth: usize) {
    if !keyword.is_empty() {
        let _ = write!(out, "{keyword}{} ", decl.name.text);
    }
    out.push_str("{\n");
    for member in &decl.members {
        attrs(out, &member.attrs, depth + 1);
        indent(out, depth + 1);
        match &member.node {
            ModelMember::Field(f) => field(out, f),
            ModelMember::NotShown { what, fields } => {
                out.push_str("not_shown ");
                if *fields {
                    out.push_str("fields ");
                }
                out.push_str(&quote(&what.value));
            }
        }
        out.push('\n');
    }
    indent(out, depth);
    out.push('}');
    if depth == 0 {
        out.push('\n');
    }
}

fn field(out: &mut String, f: &FieldDecl) {
    field_name(out, &f.name);
    if f.optional.is_some() {
        out.push('?');
    }
    out.push_str(": ");
    type_expr(out, &f.ty);
    if let Some(default) = &f.default {
        out.push_str(" = ");
        value(out, default);
    }
}

fn field_name(out: &mut String, name: &FieldName) {
    if name.quoted || !is_identifier(&name.text) {
        out.push_str(&quote(&name.text));
    } else {
        out.push_str(&name.text);
    }
}

fn type_expr(out: &mut String, ty: &TypeExpr) {
    for (index, atom) in ty.alternatives.iter().enumerate() {
        if index > 0 {
            out.push_str(" | ");
        }
        type_atom(out, atom);
    }
}

fn type_atom(out: &mut String, atom: &TypeAtom) {
    match &atom.kind {
        TypeAtomKind::Named(name) => out.push_str(&name.text),
        TypeAtomKind::List(inner) => {
            type_atom(out, inner);
            out.push_str("[]");
        }
        TypeAtomKind::Null => out.push_str("null"),
        TypeAtomKind::Group(inner) => {
            out.push('(');
            type_expr(out, inner);
            out.push(')');
        }
        TypeAtomKind::NotShown(what) => {
            out.push_str("not_shown");
            if let Some(what) = what {
                let _ = write!(out, "({})", quote(&what.value));
            }
        }
        TypeAtomKind::Constant(text) => out.push_str(&quote(&text.value)),
        TypeAtomKind::ScalarConstant(v) => value(out, v),
        TypeAtomKind::Map { key, value } => {
            let _ = write!(out, "map<{}, ", key.text);
            type_expr(out, value);
            out.push('>');
        }
    }
}

fn endpoint(out: &mut String, decl: &EndpointDecl) {
    let _ = writeln!(
        out,
        "endpoint {}: {} {} {{",
        decl.name.text,
        decl.method.text,
        quote(&decl.path.value)
    );
    for member in &decl.members {
        attrs(out, &member.attrs, 1);
        indent(out, 1);
        endpoint_member(out, &member.node);
        out.push('\n');
    }
    out.push_str("}\n");
}

fn endpoint_member(out: &mut String, member: &EndpointMember) {
    match member {
        EndpointMember::Api(name) => {
            let _ = write!(out, "api {}", name.text);
        }
        EndpointMember::Auth {
            optional,
            schemes,
            together,
        } => {
            out.push_str(if *optional { "auth? " } else { "auth " });
            for (index, scheme) in schemes.iter().enumerate() {
                if index > 0 {
                    out.push_str(if *together { " & " } else { " | " });
                }
                out.push_str(&scheme.scheme.text);
                if !scheme.scopes.is_empty() {
                    let scopes: Vec<String> = scheme
                        .scopes
                        .iter()
                        .map(|s| {
                            if is_identifier(&s.value) {
                                s.value.clone()
                            } else {
                                quote(&s.value)
                            }
                        })
                        .collect();
                    let _ = write!(out, "({})", scopes.join(", "));
                }
            }
        }
        EndpointMember::Public(_) => out.push_str("public"),
        EndpointMember::Tags(tags) => {
            let tags: Vec<String> = tags
                .iter()
                .map(|t| {
                    if is_identifier(&t.text) {
                        t.text.clone()
                    } else {
                        quote(&t.text)
                    }
                })
                .collect();
            let _ = write!(out, "tags {}", tags.join(", "));
        }
        EndpointMember::Param(location, f) => {
            out.push_str(match location {
                ParamLocation::Path => "path ",
                ParamLocation::Query => "query ",
                ParamLocation::Header => "header ",
            });
            field(out, f);
        }
        EndpointMember::Body(body, encoding) => {
            out.push_str("body ");
            match encoding {
                Some((BodyEncoding::Form, _)) => out.push_str("form "),
                Some((BodyEncoding::Multipart, _)) => out.push_str("multipart "),
                None => {}
            }
            body_decl(out, body, 1);
        }
        EndpointMember::Response {
            statuses,
            body,
            headers,
        } => {
            let codes: Vec<String> = statuses.iter().map(Status::text).collect();
            let _ = write!(out, "response {}", codes.join(", "));
            if let Some(body) = body {
                if matches!(body, BodyDecl::Inline(_)) {
                    out.push(' ');
                } else {
                    out.push_str(": ");
                }
                body_decl(out, body, 1);
            }
            response_headers(out, headers, 1);
        }
        EndpointMember::Error(error) => error_decl(out, error, 1),
        EndpointMember::Rejections(model) => {
            let _ = write!(out, "rejections {}", model.text);
        }
        EndpointMember::NotShown(what) => not_shown(out, what),
    }
}

fn response_headers(out: &mut String, headers: &[Member<FieldDecl>], depth: usize) {
    if headers.is_empty() {
        return;
    }
    out.push_str(" headers {\n");
    for header in headers {
        attrs(out, &header.attrs, depth + 1);
        indent(out, depth + 1);
        field(out, &header.node);
        out.push('\n');
    }
    indent(out, depth);
    out.push('}');
}

fn body_decl(out: &mut String, body: &BodyDecl, depth: usize) {
    match body {
        BodyDecl::Type(ty, media) => {
            type_expr(out, ty);
            if let Some(media) = media {
                out.push(' ');
                out.push_str(&quote(&media.value));
            }
        }
        BodyDecl::Inline(decl) => model(out, "", decl, depth),
    }
}

fn error_decl(out: &mut String, error: &ErrorDecl, depth: usize) {
    let _ = write!(out, "error {}", error.status.text());
    if let Some(ty) = &error.ty {
        out.push_str(": ");
        type_expr(out, ty);
        if let Some(media) = &error.media {
            out.push(' ');
            out.push_str(&quote(&media.value));
        }
    }
    response_headers(out, &error.headers, depth);
}

fn event(out: &mut String, decl: &EventDecl) {
    let _ = write!(
        out,
        "event {}: {}",
        decl.name.text,
        quote(&decl.pattern.value)
    );
    if !decl.members.is_empty() {
        out.push_str(" {\n");
        for member in &decl.members {
            attrs(out, &member.attrs, 1);
            indent(out, 1);
            match &member.node {
                EventMember::Placeholder(f) => {
                    out.push_str("placeholder ");
                    field(out, f);
                }
                EventMember::Field(f) => field(out, f),
                EventMember::NotShown(what) => not_shown(out, what),
            }
            out.push('\n');
        }
        out.push('}');
    }
    out.push('\n');
}
