//! `type` declarations: names for types. A union declared so is a type of its own (it may
//! contain itself, inside a list or a map); any other named type is written out where it is
//! used, bringing the constraints annotated on it to that place (a field, a list's items,
//! a map's values).

use super::Lowerer;
use super::annotations::Site;
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

/// One `type` declaration and how far its lowering got.
pub(crate) struct AliasEntry {
    decl: ast::TypeAliasDecl,
    attrs: ast::Attrs,
    /// The id of a declared union; `None` for a named type written out where used.
    union: Option<UnionId>,
    state: AliasState,
}

enum AliasState {
    Pending,
    /// Being lowered: a reference to it now is a cycle.
    InProgress,
    /// The type and the constraints it brings; `None` when it did not lower.
    Done(Option<Box<(Type, Constraints)>>),
}

/// Whether a declared type is a union: several alternatives besides `null`.
fn declares_union(decl: &ast::TypeAliasDecl) -> bool {
    decl.ty
        .alternatives
        .iter()
        .filter(|a| !matches!(a.kind, ast::TypeAtomKind::Null))
        .count()
        > 1
}

impl Lowerer<'_> {
    /// Lowers every `type` declaration; returns the declared unions, in order.
    pub(super) fn lower_aliases(
        &mut self,
        decls: &[(&ast::TypeAliasDecl, &ast::Attrs)],
    ) -> Vec<NamedUnion> {
        let mut unions = 0;
        self.aliases = decls
            .iter()
            .map(|(decl, attrs)| {
                let union = declares_union(decl).then(|| {
                    unions += 1;
                    UnionId(unions - 1)
                });
                AliasEntry {
                    decl: (*decl).clone(),
                    attrs: (*attrs).clone(),
                    union,
                    state: AliasState::Pending,
                }
            })
            .collect();
        let mut out = Vec::new();
        for index in 0..self.aliases.len() {
            match self.aliases[index].union {
                Some(_) => out.push(self.lower_union(index)),
                None => drop(self.alias_use(index as u32)),
            }
        }
        self.check_unions_hold_themselves(&out);
        out
    }

    /// The spans of the declared unions' names, in order.
    pub(super) fn union_spans(&self) -> Vec<Span> {
        self.aliases
            .iter()
            .filter(|a| a.union.is_some())
            .map(|a| a.decl.name.span)
            .collect()
    }

    /// The name and span of every declared type, for "unused" warnings.
    pub(super) fn alias_names(&self) -> Vec<(u32, String, Span)> {
        self.aliases
            .iter()
            .enumerate()
            .map(|(i, a)| (i as u32, a.decl.name.text.clone(), a.decl.name.span))
            .collect()
    }

    /// What a reference to the declared type `index` stands for: a union's own type, or the
    /// named type written out with its constraints.
    pub(super) fn alias_use(&mut self, index: u32) -> Option<(Type, Constraints)> {
        let entry = &mut self.aliases[index as usize];
        if let Some(id) = entry.union {
            return Some((Type::NamedUnion(id), Constraints::default()));
        }
        match &entry.state {
            AliasState::Done(done) => return done.as_deref().cloned(),
            AliasState::InProgress => {
                let name = entry.decl.name.clone();
                self.error(
                    diagnostic_codes::TYPE_HOLDS_ITSELF,
                    name.span,
                    format!("type `{}` is written in terms of itself", name.text),
                )
                .label("this type reaches itself")
                .help("only a union (`type T = A | map<string, T>`) or a model may contain itself");
                return None;
            }
            AliasState::Pending => entry.state = AliasState::InProgress,
        }
        let decl = entry.decl.clone();
        let attrs = entry.attrs.clone();
        let lowered = self.lower_named_type(&decl, &attrs);
        self.aliases[index as usize].state = AliasState::Done(lowered.clone().map(Box::new));
        lowered
    }

    fn lower_named_type(
        &mut self,
        decl: &ast::TypeAliasDecl,
        attrs: &ast::Attrs,
    ) -> Option<(Type, Constraints)> {
        let annots = self.annots(attrs, Site::Alias);
        let (ty, inner, nullable) = self.lower_type_with_constraints(&decl.ty)?;
        if nullable {
            self.null_in_declared_type(&decl.ty);
        }
        if let Some(a) = annots.get("deprecated") {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                "only a declared union can be deprecated",
            )
            .label("this type is written out where it is used")
            .help("deprecate the fields that use it");
        }
        let own = self.constraints(&annots, &ty, decl.ty.span);
        Some((ty, inner.overlaid_with(own)))
    }

    fn lower_union(&mut self, index: usize) -> NamedUnion {
        let decl = self.aliases[index].decl.clone();
        let attrs = self.aliases[index].attrs.clone();
        let annots = self.annots(&attrs, Site::Alias);
        let members = match self.lower_type_with_constraints(&decl.ty) {
            Some((Type::Union(members), _, nullable)) => {
                if nullable {
                    self.null_in_declared_type(&decl.ty);
                }
                members
            }
            _ => Vec::new(),
        };
        // No constraint applies to a union as a whole: this reports each one written.
        let _ = self.constraints(&annots, &Type::Union(Vec::new()), decl.ty.span);
        let deprecated = self.deprecation(&annots).map(|(dep, target)| {
            if let Some((_, span)) = target {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    "a type's deprecation names no replacement",
                )
                .label("`use:` is for fields, parameters and endpoints")
                .help("say what to use instead in the note");
            }
            dep
        });
        NamedUnion {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            members,
            deprecated,
            provenance: self.provenance(&annots),
        }
    }

    fn null_in_declared_type(&mut self, ty: &ast::TypeExpr) {
        self.error(
            diagnostic_codes::UNKNOWN_TYPE,
            ty.span,
            "a declared type cannot include `null`",
        )
        .label("whether a value may be null belongs to the field")
        .help("leave `null` out here and write `T | null` where a field may be null");
    }

    /// A union that holds itself outside any list or map has no finite value, and no
    /// finite layout.
    fn check_unions_hold_themselves(&mut self, unions: &[NamedUnion]) {
        let spans = self.union_spans();
        for (i, union) in unions.iter().enumerate() {
            let start = UnionId(i as u32);
            let mut seen = Vec::new();
            let mut stack: Vec<UnionId> = union.members.iter().flat_map(held_unions).collect();
            while let Some(id) = stack.pop() {
                if id == start {
                    self.diags.push(
                        Diagnostic::error(
                            diagnostic_codes::TYPE_HOLDS_ITSELF,
                            spans[i],
                            format!("union `{}` holds itself as one of its members", union.name),
                        )
                        .label("no value of this union is finite")
                        .help("a union may contain itself inside a list or a map: `T[]`, `map<string, T>`"),
                    );
                    break;
                }
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id);
                if let Some(other) = unions.get(id.index()) {
                    stack.extend(other.members.iter().flat_map(held_unions));
                }
            }
        }
    }
}

/// The declared unions a member holds in place (not inside a list or map).
fn held_unions(ty: &Type) -> Vec<UnionId> {
    match ty {
        Type::NamedUnion(id) => vec![*id],
        Type::Union(members) => members.iter().flat_map(held_unions).collect(),
        _ => Vec::new(),
    }
}
