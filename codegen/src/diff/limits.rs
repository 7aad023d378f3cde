//! Limits and rate limits compared: a value larger or smaller (in any unit of its kind),
//! of another kind, or a limit that one version has and the other has not.

use super::{Differ, Spans, rules};
use crate::ir::Spec;
use std::collections::BTreeSet;

/// Pairs two lists by name: `(old index, new index)` for each name in both.
fn pairs<T>(old: &[T], new: &[T], name: impl Fn(&T) -> &str) -> Vec<(usize, usize)> {
    new.iter()
        .enumerate()
        .filter_map(|(j, n)| old.iter().position(|o| name(o) == name(n)).map(|i| (i, j)))
        .collect()
}

/// The rules for a limit that governs more or fewer inputs.
struct LimitRules {
    more: &'static crate::diff::Rule,
    fewer: &'static crate::diff::Rule,
}

impl LimitRules {
    const LIMIT: LimitRules = LimitRules {
        more: rules::LIMIT_TIGHTENED,
        fewer: rules::LIMIT_LOOSENED,
    };
    const RATE: LimitRules = LimitRules {
        more: rules::RATE_LIMIT_CHANGED,
        fewer: rules::RATE_LIMIT_CHANGED,
    };
}

impl Differ<'_> {
    /// Endpoints (or `endpoint.param` inputs) a limit now governs, or no longer does: the
    /// first held to it anew, the others freed of it.
    fn limit_reach(
        &mut self,
        subject: &str,
        before: &BTreeSet<String>,
        after: &BTreeSet<String>,
        spans: Spans,
        rules: LimitRules,
    ) {
        let endpoint = |target: &String| target.split('.').next().unwrap_or(target).to_string();
        let gained: Vec<&String> = after.difference(before).collect();
        if !gained.is_empty() {
            let list: Vec<&str> = gained.iter().map(|t| t.as_str()).collect();
            let change = format!("now applies to {}", list.join(", "));
            let carriers = gained.iter().map(|t| endpoint(t)).collect();
            self.report(rules.more, subject, change, spans, carriers);
        }
        let lost: Vec<&String> = before.difference(after).collect();
        if !lost.is_empty() {
            let list: Vec<&str> = lost.iter().map(|t| t.as_str()).collect();
            let change = format!("no longer applies to {}", list.join(", "));
            let carriers = lost.iter().map(|t| endpoint(t)).collect();
            self.report(rules.fewer, subject, change, spans, carriers);
        }
    }

    pub(super) fn limits(&mut self) {
        let (old, new) = (self.old, self.new);
        self.limits_added_or_removed();
        for (i, j) in pairs(&old.limits, &new.limits, |l| &l.name) {
            let (o, n) = (&old.limits[i], &new.limits[j]);
            let subject = format!("limit {}", n.name);
            let spans = Spans::both(old.spans.limits[i], new.spans.limits[j]);
            let carriers = n
                .applies_to
                .iter()
                .map(|t| new.endpoint(t.endpoint).name.clone())
                .collect();
            self.limit_value(&subject, &o.value, &n.value, spans, carriers);
            // A limit stated by its inputs' constraints is judged with them.
            if let crate::ir::LimitValue::Quantity(_) = n.value {
                let targets = |spec: &Spec, l: &crate::ir::Limit| -> BTreeSet<String> {
                    l.applies_to
                        .iter()
                        .map(|t| {
                            let endpoint = &spec.endpoint(t.endpoint).name;
                            t.param
                                .as_ref()
                                .map_or(endpoint.clone(), |p| format!("{endpoint}.{p}"))
                        })
                        .collect()
                };
                let (before, after) = (targets(old, o), targets(new, n));
                self.limit_reach(&subject, &before, &after, spans, LimitRules::LIMIT);
            }
            self.doc(&subject, o.doc.as_deref(), n.doc.as_deref(), spans);
            self.provenance(&subject, o.provenance, n.provenance, spans);
        }
        for (i, j) in pairs(&old.rate_limits, &new.rate_limits, |l| &l.name) {
            let (o, n) = (&old.rate_limits[i], &new.rate_limits[j]);
            let subject = format!("rate_limit {}", n.name);
            let spans = Spans::both(old.spans.rate_limits[i], new.spans.rate_limits[j]);
            let carriers: BTreeSet<String> = n
                .applies_to
                .iter()
                .map(|id| new.endpoint(*id).name.clone())
                .collect();
            let rates = |tiers: &[crate::ir::RateTier]| {
                tiers
                    .iter()
                    .map(|t| {
                        (
                            t.providers,
                            t.concurrent,
                            t.count,
                            // A window of `1 minute` is one of `60 seconds`.
                            t.window.as_ref().map(|w| w.measure()),
                            t.is_default,
                            t.assigned.clone(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let names = |spec: &Spec, l: &crate::ir::RateLimit| -> BTreeSet<String> {
                l.applies_to
                    .iter()
                    .map(|id| spec.endpoint(*id).name.clone())
                    .collect()
            };
            let (before, after) = (names(old, o), names(new, n));
            self.limit_reach(&subject, &before, &after, spans, LimitRules::RATE);
            if rates(&o.tiers) != rates(&n.tiers) || o.per != n.per {
                self.report(
                    rules::RATE_LIMIT_CHANGED,
                    &subject,
                    "tiers changed",
                    spans,
                    carriers,
                );
            }
            self.not_shown(&subject, &o.not_shown, &n.not_shown, spans);
            self.provenance(&subject, o.provenance, n.provenance, spans);
        }
    }

    /// Limits and rate limits declared in one version only: a new one holds clients to
    /// something they were not held to, a removed one frees them.
    fn limits_added_or_removed(&mut self) {
        let (old, new) = (self.old, self.new);
        let limit_carriers = |spec: &Spec, l: &crate::ir::Limit| -> BTreeSet<String> {
            l.applies_to
                .iter()
                .map(|t| spec.endpoint(t.endpoint).name.clone())
                .collect()
        };
        let rate_carriers = |spec: &Spec, l: &crate::ir::RateLimit| -> BTreeSet<String> {
            l.applies_to
                .iter()
                .map(|id| spec.endpoint(*id).name.clone())
                .collect()
        };
        for (j, n) in new.limits.iter().enumerate() {
            if old.limits.iter().all(|o| o.name != n.name) {
                let change = format!("added: {}", limit_text(&n.value));
                let spans = Spans::new(new.spans.limits[j]);
                let carriers = limit_carriers(new, n);
                let subject = format!("limit {}", n.name);
                self.report(rules::LIMIT_TIGHTENED, subject, change, spans, carriers);
            }
        }
        for (i, o) in old.limits.iter().enumerate() {
            if new.limits.iter().all(|n| n.name != o.name) {
                let spans = Spans::old(old.spans.limits[i]);
                let carriers = limit_carriers(old, o);
                let subject = format!("limit {}", o.name);
                self.report(rules::LIMIT_LOOSENED, subject, "removed", spans, carriers);
            }
        }
        for (j, n) in new.rate_limits.iter().enumerate() {
            if old.rate_limits.iter().all(|o| o.name != n.name) {
                let spans = Spans::new(new.spans.rate_limits[j]);
                let carriers = rate_carriers(new, n);
                let subject = format!("rate_limit {}", n.name);
                self.report(rules::RATE_LIMIT_CHANGED, subject, "added", spans, carriers);
            }
        }
        for (i, o) in old.rate_limits.iter().enumerate() {
            if new.rate_limits.iter().all(|n| n.name != o.name) {
                let spans = Spans::old(old.spans.rate_limits[i]);
                let carriers = rate_carriers(old, o);
                let subject = format!("rate_limit {}", o.name);
                self.report(
                    rules::RATE_LIMIT_CHANGED,
                    subject,
                    "removed",
                    spans,
                    carriers,
                );
            }
        }
    }

    /// A limit's value: a stated value larger or smaller, or a fact the source now states
    /// (or no longer does).
    fn limit_value(
        &mut self,
        subject: &str,
        old: &crate::ir::LimitValue,
        new: &crate::ir::LimitValue,
        spans: Spans,
        carriers: BTreeSet<String>,
    ) {
        use crate::ir::LimitValue;
        if old == new {
            return;
        }
        let change = format!("{} → {}", limit_text(old), limit_text(new));
        let rule = match (old, new) {
            (LimitValue::NotShown(_), _) => rules::NOT_SHOWN_RESOLVED,
            (_, LimitValue::NotShown(_)) => rules::NOT_SHOWN_ADDED,
            (LimitValue::Quantity(a), LimitValue::Quantity(b)) => match a.compare(b) {
                // `1 mebibytes` and `1024 kibibytes` are one limit.
                Some(std::cmp::Ordering::Equal) => return,
                Some(std::cmp::Ordering::Less) => rules::LIMIT_LOOSENED,
                Some(std::cmp::Ordering::Greater) => rules::LIMIT_TIGHTENED,
                None => rules::LIMIT_CHANGED,
            },
            _ => rules::LIMIT_CHANGED,
        };
        self.report(rule, subject, change, spans, carriers);
    }
}

fn limit_text(value: &crate::ir::LimitValue) -> String {
    match value {
        crate::ir::LimitValue::Quantity(q) => q.to_string(),
        crate::ir::LimitValue::FromConstraints => "its inputs' constraints".into(),
        crate::ir::LimitValue::NotShown(what) => format!("not shown (\"{what}\")"),
    }
}
