//! A type as the importer works it out, before it is written as the spec's type syntax: the
//! place decides what may be written (a constant only as a field's whole type, no null
//! inside a list).

use crate::build::{atom, ident, string, type_expr};
use covenant_codegen::ast::{TypeAtomKind, TypeExpr};

/// The value of a boolean or whole-number constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    Int(i64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A model or enum of the spec.
    Named(String),
    /// A built-in type: `string`, `int`, `uuid`, `any`, `object`, `bytes`, `file`, …
    Builtin(&'static str),
    List(Box<Ty>),
    Map(Box<Ty>),
    Union(Vec<Ty>),
    /// A string constant.
    Constant(String),
    /// A boolean or whole-number constant (`true`, `2`).
    ScalarConstant(ScalarValue),
    /// `not_shown("what")`.
    NotShown(String),
}

impl Ty {
    /// Calls `found` with each named type the type holds.
    pub fn named(&self, found: &mut dyn FnMut(&str)) {
        match self {
            Ty::Named(name) => found(name),
            Ty::List(inner) | Ty::Map(inner) => inner.named(found),
            Ty::Union(members) => members.iter().for_each(|m| m.named(found)),
            _ => {}
        }
    }

    pub fn any() -> Ty {
        Ty::Builtin("any")
    }

    /// A union of `members`, flattened, without repeats; `any` swallows the rest.
    pub fn union(members: Vec<Ty>) -> Ty {
        let mut flat: Vec<Ty> = Vec::new();
        for member in members {
            let parts = match member {
                Ty::Union(inner) => inner,
                other => vec![other],
            };
            for part in parts {
                if !flat.contains(&part) {
                    flat.push(part);
                }
            }
        }
        if flat.contains(&Ty::any()) {
            return Ty::any();
        }
        match flat.len() {
            0 => Ty::any(),
            1 => flat.remove(0),
            _ => Ty::Union(flat),
        }
    }

    /// Whether the spec can write it as a query, path or header value.
    pub fn is_scalar(&self, enums: &dyn Fn(&str) -> bool) -> bool {
        match self {
            Ty::Builtin(b) => !matches!(*b, "any" | "object" | "file"),
            Ty::Named(name) => enums(name),
            Ty::Constant(_) | Ty::ScalarConstant(_) => true,
            _ => false,
        }
    }

    /// The type as written, `nullable` adding `| null`.
    pub fn expr(&self, nullable: bool) -> TypeExpr {
        let mut alternatives = match self {
            Ty::Union(members) => members.iter().map(self_atom).collect(),
            other => vec![self_atom(other)],
        };
        if nullable {
            alternatives.push(atom(TypeAtomKind::Null));
        }
        type_expr(alternatives)
    }
}

fn self_atom(ty: &Ty) -> covenant_codegen::ast::TypeAtom {
    match ty {
        Ty::Named(name) => atom(TypeAtomKind::Named(ident(name.clone()))),
        Ty::Builtin(name) => atom(TypeAtomKind::Named(ident(*name))),
        Ty::List(inner) => atom(TypeAtomKind::List(Box::new(match inner.as_ref() {
            Ty::Union(_) => atom(TypeAtomKind::Group(Box::new(inner.expr(false)))),
            other => self_atom(other),
        }))),
        Ty::Map(inner) => atom(TypeAtomKind::Map {
            key: ident("string"),
            value: Box::new(inner.expr(false)),
        }),
        Ty::Union(_) => atom(TypeAtomKind::Group(Box::new(ty.expr(false)))),
        Ty::Constant(text) => atom(TypeAtomKind::Constant(string(text.clone()))),
        Ty::ScalarConstant(v) => atom(TypeAtomKind::ScalarConstant(crate::build::value(match v {
            ScalarValue::Bool(b) => covenant_codegen::ast::ValueKind::Bool(*b),
            ScalarValue::Int(n) => covenant_codegen::ast::ValueKind::Int(*n),
        }))),
        Ty::NotShown(what) => atom(TypeAtomKind::NotShown(Some(string(what.clone())))),
    }
}
