//! How a value's type and constraints changed: allowing fewer values (narrowed), more
//! (widened), or others (changed). Whether that breaks clients or servers depends on the way
//! the value travels, which the caller knows.

use super::Differ;
use crate::ir::{Constraints, Primitive, Type};

/// How the set of allowed values changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    Same,
    /// Fewer values are allowed.
    Narrowed(String),
    /// More values are allowed.
    Widened(String),
    /// Other values: some old ones are refused and some new ones allowed.
    Changed(String),
}

impl Differ<'_> {
    /// Compares two types by meaning. A model or enum renamed with its wire shape kept is no
    /// change here: the rename is recorded and the two are compared as one.
    pub(super) fn type_delta(&mut self, old: &Type, new: &Type) -> Delta {
        let change = || {
            let (was, now) = (self.old.type_name(old), self.new.type_name(new));
            format!("`{was}` → `{now}`")
        };
        match (old, new) {
            (Type::Model(a), Type::Model(b)) => {
                let (a, b) = (&self.old.model(*a).name, &self.new.model(*b).name);
                if a == b || self.pair_models(a, b) {
                    Delta::Same
                } else {
                    Delta::Changed(change())
                }
            }
            (Type::Enum(a), Type::Enum(b)) => {
                let (a, b) = (&self.old.enum_(*a).name, &self.new.enum_(*b).name);
                if a == b || self.pair_enums(a, b) {
                    Delta::Same
                } else {
                    Delta::Changed(change())
                }
            }
            (Type::Primitive(a), Type::Primitive(b)) => primitive_delta(*a, *b, change()),
            // The whole type is named, `string[]` → `int[]`, not its items.
            (Type::List(a, _), Type::List(b, _)) | (Type::Map(a, _), Type::Map(b, _)) => {
                match self.type_delta(a, b) {
                    Delta::Same => Delta::Same,
                    Delta::Narrowed(_) => Delta::Narrowed(change()),
                    Delta::Widened(_) => Delta::Widened(change()),
                    Delta::Changed(_) => Delta::Changed(change()),
                }
            }
            (Type::NamedUnion(a), Type::NamedUnion(b))
                if self.old.union(*a).name == self.new.union(*b).name =>
            {
                Delta::Same
            }
            // A declared union met beside another type is compared by its members, one
            // level at a time: the other side's type is finite, so this ends.
            (Type::NamedUnion(a), other) if !matches!(other, Type::NamedUnion(_)) => {
                let members = Type::Union(self.old.union(*a).members.clone());
                self.type_delta(&members, other)
            }
            (other, Type::NamedUnion(b)) if !matches!(other, Type::NamedUnion(_)) => {
                let members = Type::Union(self.new.union(*b).members.clone());
                self.type_delta(other, &members)
            }
            (Type::Union(a), Type::Union(b)) => self.union_delta(a, b, change()),
            (Type::Union(members), single) => {
                if members
                    .iter()
                    .any(|m| self.type_delta(m, single) == Delta::Same)
                {
                    Delta::Narrowed(change())
                } else {
                    Delta::Changed(change())
                }
            }
            (single, Type::Union(members)) => {
                if members
                    .iter()
                    .any(|m| self.type_delta(single, m) == Delta::Same)
                {
                    Delta::Widened(change())
                } else {
                    Delta::Changed(change())
                }
            }
            (Type::NotShown(_), Type::NotShown(_)) => Delta::Same,
            (Type::NotShown(_), _) | (Type::Primitive(Primitive::Any), _) => {
                Delta::Narrowed(change())
            }
            (_, Type::NotShown(_)) | (_, Type::Primitive(Primitive::Any)) => {
                Delta::Widened(change())
            }
            (Type::Primitive(Primitive::Object), Type::Model(_) | Type::Map(_, _)) => {
                Delta::Narrowed(change())
            }
            (Type::Model(_) | Type::Map(_, _), Type::Primitive(Primitive::Object)) => {
                Delta::Widened(change())
            }
            (Type::Primitive(Primitive::String), Type::Enum(_)) => Delta::Narrowed(change()),
            (Type::Enum(_), Type::Primitive(Primitive::String)) => Delta::Widened(change()),
            _ => Delta::Changed(change()),
        }
    }

    /// Finds every model and enum renamed with its wire shape kept, before anything is
    /// compared: a type used by another compared earlier would otherwise look removed and
    /// added. Each pass compares the types written in the same places of both versions, the
    /// fields of renamed models included, until no new rename turns up.
    pub(super) fn discover_renames(&mut self) {
        let (old, new) = (self.old, self.new);
        loop {
            let known = self.renamed_models.len() + self.renamed_enums.len();
            let mut places: Vec<(&Type, &Type)> = Vec::new();
            for n in &new.endpoints {
                let Some(o) = old.endpoint_named(&n.name) else {
                    continue;
                };
                if let (Some(a), Some(b)) = (&o.body, &n.body) {
                    places.push((a, b));
                }
                for r in n.responses.iter().chain(&n.errors) {
                    let before = o
                        .responses
                        .iter()
                        .chain(&o.errors)
                        .find(|x| x.status == r.status);
                    if let Some((Some(a), Some(b))) = before.map(|x| (&x.body, &r.body)) {
                        places.push((a, b));
                    }
                }
                for p in &n.params {
                    if let Some(q) = o.params.iter().find(|q| q.field.name == p.field.name) {
                        places.push((&q.field.ty, &p.field.ty));
                    }
                }
            }
            for n in &new.models {
                let old_name = self
                    .renamed_models
                    .iter()
                    .find(|(_, to)| *to == &n.name)
                    .map_or(n.name.as_str(), |(from, _)| from.as_str());
                if let Some(o) = old.model_named(old_name) {
                    for f in &n.fields {
                        if let Some(g) = o.field(&f.name) {
                            places.push((&g.ty, &f.ty));
                        }
                    }
                }
            }
            for n in &new.events {
                if let Some(o) = old.events.iter().find(|o| o.name == n.name) {
                    for f in &n.fields {
                        if let Some(g) = o.fields.iter().find(|g| g.name == f.name) {
                            places.push((&g.ty, &f.ty));
                        }
                    }
                }
            }
            for (a, b) in places {
                self.type_delta(a, b);
            }
            if self.renamed_models.len() + self.renamed_enums.len() == known {
                break;
            }
        }
    }

    fn union_delta(&mut self, old: &[Type], new: &[Type], change: String) -> Delta {
        let kept_old = old
            .iter()
            .all(|o| new.iter().any(|n| self.type_delta(o, n) == Delta::Same));
        let kept_new = new
            .iter()
            .all(|n| old.iter().any(|o| self.type_delta(o, n) == Delta::Same));
        match (kept_old, kept_new) {
            (true, true) => Delta::Same,
            (true, false) => Delta::Widened(change),
            (false, true) => Delta::Narrowed(change),
            (false, false) => Delta::Changed(change),
        }
    }

    /// Whether model `a` of the old spec is `b` of the new under another name: `a` is gone,
    /// `b` is new, no other model was renamed to `b`, and the two share a field name, so a
    /// field given a brand-new type is not taken for a rename. Records the pair the first time.
    fn pair_models(&mut self, a: &str, b: &str) -> bool {
        if let Some(known) = self.renamed_models.get(a) {
            return known == b;
        }
        let (Some(old), Some(new)) = (self.old.model_named(a), self.new.model_named(b)) else {
            return false;
        };
        let renamed = self.new.model_named(a).is_none()
            && self.old.model_named(b).is_none()
            && !self.renamed_models.values().any(|to| to == b)
            && old.fields.iter().any(|f| new.field(&f.name).is_some());
        if renamed {
            self.renamed_models.insert(a.to_string(), b.to_string());
        }
        renamed
    }

    /// As [`Self::pair_models`], the two sharing a value.
    fn pair_enums(&mut self, a: &str, b: &str) -> bool {
        if let Some(known) = self.renamed_enums.get(a) {
            return known == b;
        }
        let (Some(old), Some(new)) = (self.old.enum_named(a), self.new.enum_named(b)) else {
            return false;
        };
        let renamed = self.new.enum_named(a).is_none()
            && self.old.enum_named(b).is_none()
            && !self.renamed_enums.values().any(|to| to == b)
            && old
                .values
                .iter()
                .any(|v| new.values.iter().any(|w| w.name == v.name));
        if renamed {
            self.renamed_enums.insert(a.to_string(), b.to_string());
        }
        renamed
    }
}

fn primitive_delta(old: Primitive, new: Primitive, change: String) -> Delta {
    use Primitive::*;
    let formatted = |p: Primitive| p.format().is_some();
    match (old, new) {
        _ if old == new => Delta::Same,
        (String, p) if formatted(p) => Delta::Narrowed(change),
        (p, String) if formatted(p) => Delta::Widened(change),
        (Int, Number) => Delta::Widened(change),
        (Number, Int) => Delta::Narrowed(change),
        (Any, _) => Delta::Narrowed(change),
        (_, Any) => Delta::Widened(change),
        _ => Delta::Changed(change),
    }
}

/// Each constraint that changed, as a delta of the values it allows. A bound that is the
/// service's default is no change of the field's: the service's own is reported once.
pub fn constraint_deltas(old: &Constraints, new: &Constraints) -> Vec<Delta> {
    let mut out = Vec::new();
    let lower = |what: &str, o: Option<f64>, n: Option<f64>| bound(what, o, n, true);
    let upper = |what: &str, o: Option<f64>, n: Option<f64>| bound(what, o, n, false);
    let float = |v: Option<u64>| v.map(|v| v as f64);
    // A bound the service gives on one side, and on the other the service's too or none,
    // changed with the service's own, which is reported once.
    let service_only = |c: &Constraints| {
        c.default_bound.is_some() || (c.max_length.is_none() && c.max_items.is_none())
    };
    let defaulted = (old.default_bound.is_some() || new.default_bound.is_some())
        && service_only(old)
        && service_only(new);
    out.push(lower("min", old.minimum, new.minimum));
    out.push(upper("max", old.maximum, new.maximum));
    out.push(lower(
        "min_length",
        float(old.min_length),
        float(new.min_length),
    ));
    if !defaulted {
        out.push(upper(
            "max_length",
            float(old.max_length),
            float(new.max_length),
        ));
        out.push(upper(
            "max_items",
            float(old.max_items),
            float(new.max_items),
        ));
    }
    out.push(lower(
        "min_items",
        float(old.min_items),
        float(new.min_items),
    ));
    out.push(match (&old.pattern, &new.pattern) {
        (a, b) if a == b => Delta::Same,
        (None, Some(p)) => Delta::Narrowed(format!("@pattern(\"{p}\") added")),
        (Some(p), None) => Delta::Widened(format!("@pattern(\"{p}\") removed")),
        (Some(a), Some(b)) => {
            let change = format!("@pattern \"{a}\" → \"{b}\"");
            match super::patterns::compare(a, b) {
                Some(super::patterns::Order::Same) => Delta::Same,
                Some(super::patterns::Order::Narrower) => Delta::Narrowed(change),
                Some(super::patterns::Order::Wider) => Delta::Widened(change),
                _ => Delta::Changed(change),
            }
        }
        (None, None) => Delta::Same,
    });
    out.push(one_of_delta(old, new));
    out.push(match (old.unique_items, new.unique_items) {
        (false, true) => Delta::Narrowed("@unique_items added".to_string()),
        (true, false) => Delta::Widened("@unique_items removed".to_string()),
        _ => Delta::Same,
    });
    // Another format is another meaning of the same text: neither wider nor narrower.
    if old.format != new.format {
        let text = |f: &Option<String>| f.clone().unwrap_or_else(|| "none".into());
        out.push(Delta::Changed(format!(
            "@format {} → {}",
            text(&old.format),
            text(&new.format)
        )));
    }
    out.retain(|d| *d != Delta::Same);
    out
}

/// The changes of the constraints on a list's items or a map's values (those of a named
/// type, `Tag[]`), each named after where it applies.
pub fn item_constraint_deltas(old: &Type, new: &Type) -> Vec<Delta> {
    let (a, ca, b, cb, place) = match (old, new) {
        (Type::List(a, ca), Type::List(b, cb)) => (a, ca, b, cb, "items"),
        (Type::Map(a, ca), Type::Map(b, cb)) => (a, ca, b, cb, "values"),
        _ => return Vec::new(),
    };
    constraint_deltas(ca, cb)
        .into_iter()
        .chain(item_constraint_deltas(a, b))
        .map(|d| d.placed(place))
        .collect()
}

impl Delta {
    /// The same change, said of a part of the value (`items: @max_length 20 → 10`).
    fn placed(self, place: &str) -> Delta {
        match self {
            Delta::Narrowed(c) => Delta::Narrowed(format!("{place}: {c}")),
            Delta::Widened(c) => Delta::Widened(format!("{place}: {c}")),
            Delta::Changed(c) => Delta::Changed(format!("{place}: {c}")),
            Delta::Same => Delta::Same,
        }
    }
}

/// A bound moved: a lower bound raised, or an upper one lowered, allows fewer values.
fn bound(what: &str, old: Option<f64>, new: Option<f64>, is_lower: bool) -> Delta {
    let text = |v: Option<f64>| v.map_or("none".to_string(), |v| v.to_string());
    let change = format!("@{what} {} → {}", text(old), text(new));
    match (old, new) {
        (None, None) => Delta::Same,
        (None, Some(_)) => Delta::Narrowed(change),
        (Some(_), None) => Delta::Widened(change),
        (Some(o), Some(n)) if o == n => Delta::Same,
        (Some(o), Some(n)) if (n > o) == is_lower => Delta::Narrowed(change),
        _ => Delta::Widened(change),
    }
}

fn one_of_delta(old: &Constraints, new: &Constraints) -> Delta {
    let (o, n) = (&old.one_of, &new.one_of);
    let subset = |a: &[crate::ir::Literal], b: &[crate::ir::Literal]| {
        a.iter().all(|v| b.iter().any(|w| v.same_value(w)))
    };
    // Reordered, or `1` written `1.0`: the same set.
    if subset(o, n) && subset(n, o) {
        return Delta::Same;
    }
    let list = |l: &[crate::ir::Literal]| {
        l.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let change = format!("@one_of [{}] → [{}]", list(o), list(n));
    match (o.is_empty(), n.is_empty()) {
        (true, false) => Delta::Narrowed(change),
        (false, true) => Delta::Widened(change),
        _ if subset(n, o) => Delta::Narrowed(change),
        _ if subset(o, n) => Delta::Widened(change),
        _ => Delta::Changed(change),
    }
}
