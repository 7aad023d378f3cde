//! Small constructors of the spec's parse tree. An imported spec is a tree like any parsed
//! one; positions mean nothing in it, so every span is empty.

use covenant_codegen::ast::*;
use covenant_codegen::source::Span;

pub fn ident(text: impl Into<String>) -> Ident {
    Ident {
        text: text.into(),
        span: Span::default(),
    }
}

pub fn string(value: impl Into<String>) -> StrLit {
    StrLit {
        value: value.into(),
        span: Span::default(),
    }
}

pub fn value(kind: ValueKind) -> Value {
    Value {
        kind,
        span: Span::default(),
    }
}

pub fn str_value(text: impl Into<String>) -> Value {
    value(ValueKind::Str(text.into()))
}

pub fn reference(name: impl Into<String>) -> Value {
    value(ValueKind::Ref(vec![ident(name)]))
}

pub fn annotation(name: &str, args: Vec<Arg>) -> Annotation {
    Annotation {
        name: ident(name),
        args,
        span: Span::default(),
    }
}

pub fn arg(v: Value) -> Arg {
    Arg {
        name: None,
        value: v,
    }
}

pub fn member<T>(attrs: Attrs, node: T) -> Member<T> {
    Member {
        attrs,
        node,
        span: Span::default(),
    }
}

pub fn item(attrs: Attrs, kind: ItemKind) -> Item {
    Item {
        attrs,
        kind,
        head: Span::default(),
    }
}

pub fn prop(key: &str, values: Vec<Value>) -> Member<Prop> {
    member(
        Attrs::default(),
        Prop {
            key: ident(key),
            values,
        },
    )
}

pub fn atom(kind: TypeAtomKind) -> TypeAtom {
    TypeAtom {
        kind,
        span: Span::default(),
    }
}

pub fn type_expr(alternatives: Vec<TypeAtom>) -> TypeExpr {
    TypeExpr {
        alternatives,
        span: Span::default(),
    }
}

pub fn field(name: &str, optional: bool, ty: TypeExpr, default: Option<Value>) -> FieldDecl {
    FieldDecl {
        name: FieldName {
            text: name.to_string(),
            span: Span::default(),
            quoted: !covenant_codegen::print::is_identifier(name),
        },
        optional: optional.then(Span::default),
        ty,
        default,
    }
}

pub fn status(code: u16) -> Status {
    Status {
        code: i64::from(code),
        form: StatusForm::Code,
        span: Span::default(),
    }
}

/// `4XX`.
pub fn status_class(class: u8) -> Status {
    Status {
        code: i64::from(class),
        form: StatusForm::Class,
        span: Span::default(),
    }
}

/// `default`.
pub fn default_status() -> Status {
    Status {
        code: 0,
        form: StatusForm::Default,
        span: Span::default(),
    }
}
