//! Declared unions (`type Details = A | B`) compared by name: members added or removed
//! change what the union allows, judged by the way it travels. A union declared in one
//! version only shows as the types of the fields that use it.

use super::fields::direction_rules;
use super::types::Delta;
use super::{Differ, Spans};
use crate::ir::Type;
use std::collections::BTreeSet;

impl Differ<'_> {
    pub(super) fn unions(&mut self) {
        let (old, new) = (self.old, self.new);
        for (j, n) in new.unions.iter().enumerate() {
            let Some(i) = old.unions.iter().position(|o| o.name == n.name) else {
                continue;
            };
            let o = &old.unions[i];
            let spans = Spans::both(old.spans.unions[i], new.spans.unions[j]);
            let subject = format!("type {}", n.name);
            let directions = self.travel_directions(&o.name, &n.name);
            let delta = self.type_delta(
                &Type::Union(o.members.clone()),
                &Type::Union(n.members.clone()),
            );
            for direction in directions {
                let mut carriers: BTreeSet<String> = self.new_usage.carriers(&n.name, direction);
                carriers.extend(self.old_usage.carriers(&o.name, direction));
                let rules = direction_rules(direction);
                let (rule, change) = match &delta {
                    Delta::Same => continue,
                    Delta::Narrowed(c) => (rules.narrowed, c),
                    Delta::Widened(c) => (rules.widened, c),
                    Delta::Changed(c) => (rules.type_changed, c),
                };
                self.report(rule, &subject, change.clone(), spans, carriers);
            }
        }
    }
}
