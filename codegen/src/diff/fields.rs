//! Fields compared one way of travel at a time: models, parameters, response headers and
//! event payloads all come down to a list of fields written by one side and read by the other.

use super::rules::{self, Rule};
use super::types::{Delta, constraint_deltas};
use super::{Differ, Direction, Notes, Spans, notes_of};
use crate::ir::{Field, Model, Primitive, Spec, Type};
use std::collections::BTreeSet;

/// The rules of one direction, so the comparison is written once.
pub(super) struct DirectionRules {
    pub added_required: &'static Rule,
    pub added: &'static Rule,
    pub removed_required: &'static Rule,
    pub removed_optional: &'static Rule,
    pub now_required: &'static Rule,
    pub now_optional: &'static Rule,
    pub now_nullable: &'static Rule,
    pub now_non_nullable: &'static Rule,
    pub type_changed: &'static Rule,
    pub narrowed: &'static Rule,
    pub widened: &'static Rule,
    pub tightened: &'static Rule,
    pub loosened: &'static Rule,
    pub constraint_changed: &'static Rule,
    pub default_changed: &'static Rule,
    /// A value written as text another way (`@style`): only requests are written so.
    pub encoding_changed: Option<&'static Rule>,
}

pub(super) fn direction_rules(direction: Direction) -> DirectionRules {
    match direction {
        Direction::Request => DirectionRules {
            added_required: rules::REQUEST_FIELD_ADDED_REQUIRED,
            added: rules::REQUEST_FIELD_ADDED,
            removed_required: rules::REQUEST_FIELD_REMOVED,
            removed_optional: rules::REQUEST_FIELD_REMOVED,
            now_required: rules::REQUEST_FIELD_REQUIRED,
            now_optional: rules::REQUEST_FIELD_OPTIONAL,
            now_nullable: rules::REQUEST_FIELD_NULLABLE,
            now_non_nullable: rules::REQUEST_FIELD_NON_NULLABLE,
            type_changed: rules::REQUEST_TYPE_CHANGED,
            narrowed: rules::REQUEST_TYPE_NARROWED,
            widened: rules::REQUEST_TYPE_WIDENED,
            tightened: rules::REQUEST_CONSTRAINT_TIGHTENED,
            loosened: rules::REQUEST_CONSTRAINT_LOOSENED,
            constraint_changed: rules::REQUEST_CONSTRAINT_CHANGED,
            default_changed: rules::REQUEST_DEFAULT_CHANGED,
            encoding_changed: Some(rules::REQUEST_ENCODING_CHANGED),
        },
        Direction::Response => DirectionRules {
            added_required: rules::RESPONSE_FIELD_ADDED_REQUIRED,
            added: rules::RESPONSE_FIELD_ADDED,
            removed_required: rules::RESPONSE_FIELD_REMOVED,
            removed_optional: rules::RESPONSE_OPTIONAL_FIELD_REMOVED,
            now_required: rules::RESPONSE_FIELD_REQUIRED,
            now_optional: rules::RESPONSE_FIELD_OPTIONAL,
            now_nullable: rules::RESPONSE_FIELD_NULLABLE,
            now_non_nullable: rules::RESPONSE_FIELD_NON_NULLABLE,
            type_changed: rules::RESPONSE_TYPE_CHANGED,
            narrowed: rules::RESPONSE_TYPE_NARROWED,
            widened: rules::RESPONSE_TYPE_WIDENED,
            tightened: rules::RESPONSE_CONSTRAINT_TIGHTENED,
            loosened: rules::RESPONSE_CONSTRAINT_LOOSENED,
            constraint_changed: rules::RESPONSE_CONSTRAINT_CHANGED,
            default_changed: rules::RESPONSE_DEFAULT_CHANGED,
            encoding_changed: None,
        },
    }
}

/// A list of fields of one owner traveling one way, e.g. a model's request shape.
pub(super) struct FieldSet<'a> {
    /// How findings name the owner: `PatientInfo`, `get_user`.
    pub owner: &'a str,
    pub old: Vec<&'a Field>,
    pub new: Vec<&'a Field>,
    pub direction: Direction,
    pub carriers: &'a BTreeSet<String>,
}

impl Differ<'_> {
    /// Fields added, removed and changed, judged by the way they travel.
    pub(super) fn field_set(&mut self, set: &FieldSet) {
        let rules = direction_rules(set.direction);
        let carriers = set.carriers;
        for new in &set.new {
            let subject = format!("{}.{}", set.owner, new.name);
            match set.old.iter().find(|o| o.name == new.name) {
                Some(old) => self.field(&subject, old, new, &rules, carriers),
                None => {
                    let (rule, change) = if new.presence.may_be_absent() {
                        (rules.added, "added, optional")
                    } else {
                        (rules.added_required, "added, required")
                    };
                    self.report(
                        rule,
                        subject,
                        change,
                        Spans::new(new.span),
                        carriers.clone(),
                    );
                }
            }
        }
        // Each added field is offered as one removed field's new name at most.
        let mut offered: Vec<&str> = Vec::new();
        for old in set
            .old
            .iter()
            .filter(|o| !set.new.iter().any(|n| n.name == o.name))
        {
            let base = if old.presence.may_be_absent() {
                rules.removed_optional
            } else {
                rules.removed_required
            };
            let rule = self.removal(base, old.deprecated.as_ref());
            let mut change = Self::removal_change(old.deprecated.as_ref());
            if let Some(successor) = self.renamed_to(set, old)
                && !offered.contains(&successor)
            {
                offered.push(successor);
                change.push_str(&format!(
                    "; `{successor}` was added in its place with its type and presence: renamed?"
                ));
            }
            let subject = format!("{}.{}", set.owner, old.name);
            self.report(
                rule,
                subject,
                change,
                Spans::old(old.span),
                carriers.clone(),
            );
        }
    }

    /// The field added where `old` was removed, of its type and presence: what a rename
    /// looks like on the wire, which the reviewer is told of (the diff cannot know intent).
    fn renamed_to<'f>(&self, set: &FieldSet<'f>, old: &Field) -> Option<&'f str> {
        let position = set.old.iter().position(|o| o.name == old.name)?;
        let added: Vec<&&Field> = set
            .new
            .iter()
            .filter(|n| !set.old.iter().any(|o| o.name == n.name))
            .collect();
        let same_shape = |n: &Field| {
            n.presence == old.presence && self.new.type_name(&n.ty) == self.old.type_name(&old.ty)
        };
        let candidates: Vec<&&Field> = added.into_iter().filter(|n| same_shape(n)).collect();
        let in_place = candidates
            .iter()
            .find(|n| set.new.iter().position(|f| f.name == n.name) == Some(position));
        match (in_place, candidates.as_slice()) {
            (Some(n), _) => Some(n.name.as_str()),
            (None, [only]) => Some(only.name.as_str()),
            _ => None,
        }
    }

    fn field(
        &mut self,
        subject: &str,
        old: &Field,
        new: &Field,
        rules: &DirectionRules,
        carriers: &BTreeSet<String>,
    ) {
        let spans = Spans::both(old.span, new.span);
        let say = |d: &mut Self, rule, change: String| {
            d.report(rule, subject, change, spans, carriers.clone());
        };
        match (old.presence.may_be_absent(), new.presence.may_be_absent()) {
            (true, false) => say(self, rules.now_required, "now required".into()),
            (false, true) => say(self, rules.now_optional, "now optional".into()),
            _ => {}
        }
        // A field of type `null` holds null whatever its presence says.
        let may_be_null = |f: &Field| f.presence.may_be_null() || null_only(f);
        match (may_be_null(old), may_be_null(new)) {
            (false, true) => say(self, rules.now_nullable, "now nullable".into()),
            (true, false) => say(self, rules.now_non_nullable, "no longer nullable".into()),
            _ => {}
        }
        match self.field_type_delta(old, new) {
            Delta::Same => {}
            Delta::Narrowed(c) => say(self, rules.narrowed, c),
            Delta::Widened(c) => say(self, rules.widened, c),
            Delta::Changed(c) => say(self, rules.type_changed, c),
        }
        let items = super::types::item_constraint_deltas(&old.ty, &new.ty);
        for delta in constraint_deltas(&old.constraints, &new.constraints)
            .into_iter()
            .chain(items)
        {
            match delta {
                Delta::Same => {}
                Delta::Narrowed(c) => say(self, rules.tightened, c),
                Delta::Widened(c) => say(self, rules.loosened, c),
                Delta::Changed(c) => say(self, rules.constraint_changed, c),
            }
        }
        if let Some(rule) = rules.encoding_changed
            && old.encoding != new.encoding
        {
            let change = format!(
                "written @style({}) → @style({})",
                old.encoding.as_str(),
                new.encoding.as_str()
            );
            say(self, rule, change);
        }
        let same_default = match (&old.default, &new.default) {
            (Some(a), Some(b)) => a.same_value(b),
            (a, b) => a.is_none() && b.is_none(),
        };
        if !same_default {
            let text = |d: &Option<crate::ir::Literal>| {
                d.as_ref().map_or("none".to_string(), ToString::to_string)
            };
            let change = format!("default {} → {}", text(&old.default), text(&new.default));
            say(self, rules.default_changed, change);
        }
    }

    /// As [`Differ::type_delta`], where `null` alone holds fewer values than any nullable
    /// type (`null` → `string | null` widens) and none of another (`null` → `string`).
    fn field_type_delta(&mut self, old: &Field, new: &Field) -> Delta {
        let shown = |spec: &Spec, f: &Field| match f.presence.may_be_null() {
            true => format!("{} | null", spec.type_name(&f.ty)),
            false => spec.type_name(&f.ty),
        };
        let change = || format!("`{}` → `{}`", shown(self.old, old), shown(self.new, new));
        match (null_only(old), null_only(new)) {
            (true, true) => Delta::Same,
            (true, false) if new.presence.may_be_null() => Delta::Widened(change()),
            (false, true) if old.presence.may_be_null() => Delta::Narrowed(change()),
            (true, false) | (false, true) => Delta::Changed(change()),
            (false, false) => self.type_delta(&old.ty, &new.ty),
        }
    }

    /// `@exactly_one_of` and its kin: a group added refuses values a writer sent before
    /// (tightened), one removed lets through values a reader refused (loosened).
    fn field_groups(
        &mut self,
        old: &Model,
        new: &Model,
        direction: Direction,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let rules = direction_rules(direction);
        let key = |g: &crate::ir::FieldGroup| {
            let mut fields = g.fields.clone();
            fields.sort();
            (g.rule, fields)
        };
        let text = |g: &crate::ir::FieldGroup| {
            format!("@{}({})", g.rule.annotation(), g.fields.join(", "))
        };
        let subject = format!("model {}", new.name);
        for g in &new.groups {
            if !old.groups.iter().any(|o| key(o) == key(g)) {
                let change = format!("{} added", text(g));
                self.report(rules.tightened, &subject, change, spans, carriers.clone());
            }
        }
        for g in &old.groups {
            if !new.groups.iter().any(|n| key(n) == key(g)) {
                let change = format!("{} removed", text(g));
                self.report(rules.loosened, &subject, change, spans, carriers.clone());
            }
        }
    }

    /// What does not depend on the way a field travels: its docs, deprecation and source.
    pub(super) fn field_notes(
        &mut self,
        subject: &str,
        old: &Field,
        new: &Field,
        carriers: &BTreeSet<String>,
    ) {
        let spans = Spans::both(old.span, new.span);
        self.notes(
            subject,
            Notes::of_field(old),
            Notes::of_field(new),
            spans,
            carriers,
        );
    }

    /// A model of each version under one name (or a rename), in every direction it travels.
    pub(super) fn model_pair(&mut self, old: &Model, new: &Model, spans: Spans) {
        let directions = self.travel_directions(&old.name, &new.name);
        let mut all_carriers = BTreeSet::new();
        for direction in directions {
            let mut carriers = self.new_usage.carriers(&new.name, direction);
            carriers.extend(self.old_usage.carriers(&old.name, direction));
            all_carriers.extend(carriers.iter().cloned());
            self.field_set(&FieldSet {
                owner: &new.name,
                old: old.fields.iter().filter(|f| direction.shows(f)).collect(),
                new: new.fields.iter().filter(|f| direction.shows(f)).collect(),
                direction,
                carriers: &carriers,
            });
            self.field_groups(old, new, direction, spans, &carriers);
        }
        for n in &new.fields {
            // A name may have a field in each shape (`@request_only` and `@response_only`).
            let same_shape = old
                .fields
                .iter()
                .find(|o| o.name == n.name && o.visibility == n.visibility);
            if let Some(o) = same_shape.or_else(|| old.field(&n.name)) {
                self.field_notes(&format!("{}.{}", new.name, n.name), o, n, &all_carriers);
            }
        }
        let subject = format!("model {}", new.name);
        match (old.open, new.open) {
            (false, true) => self.report(
                rules::MODEL_OPENED,
                &subject,
                "now carries fields it does not list",
                spans,
                all_carriers.clone(),
            ),
            (true, false) => self.report(
                rules::MODEL_CLOSED,
                &subject,
                "no longer carries unlisted fields",
                spans,
                all_carriers.clone(),
            ),
            _ => {}
        }
        self.notes(
            &subject,
            notes_of!(old),
            notes_of!(new),
            spans,
            &all_carriers,
        );
    }
}

/// Whether a field is of type `null` alone.
fn null_only(f: &Field) -> bool {
    f.ty == Type::Primitive(Primitive::Null)
}
