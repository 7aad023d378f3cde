//! Limits and rate limits compared: a value larger or smaller (in any unit of its kind),
//! of another kind, or a limit that one version has and the other has not.

use super::{Differ, Spans, rules};
use crate::ir::{Limit, RateLimit, Spec};
use crate::source::Span;
use std::collections::BTreeSet;

/// Pairs two lists by name: `(old index, new index)` for each name in both.
fn pairs<T>(old: &[T], new: &[T], name: impl Fn(&T) -> &str) -> Vec<(usize, usize)> {
    new.iter()
        .enumerate()
        .filter_map(|(j, n)| old.iter().position(|o| name(o) == name(n)).map(|i| (i, j)))
        .collect()
}

/// The rules for a limit that comes to govern more or fewer inputs, or is declared in one
/// version only: more holds clients to something they were not held to, fewer frees them.
#[derive(Clone, Copy)]
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

/// The endpoints a limit governs, by name.
fn limit_endpoints(spec: &Spec, l: &Limit) -> BTreeSet<String> {
    l.applies_to
        .iter()
        .map(|t| spec.endpoint(t.endpoint).name.clone())
        .collect()
}

/// The endpoints a rate limit governs, by name.
fn rate_endpoints(spec: &Spec, l: &RateLimit) -> BTreeSet<String> {
    l.applies_to
        .iter()
        .map(|id| spec.endpoint(*id).name.clone())
        .collect()
}

/// The endpoints, or `endpoint.param` inputs, a limit governs.
fn limit_targets(spec: &Spec, l: &Limit) -> BTreeSet<String> {
    l.applies_to
        .iter()
        .map(|t| {
            let endpoint = &spec.endpoint(t.endpoint).name;
            t.param
                .as_ref()
                .map_or(endpoint.clone(), |p| format!("{endpoint}.{p}"))
        })
        .collect()
}

/// A limit or rate limit as reported when one version alone declares it: its subject, where
/// it is written, the endpoints it governs and what its addition says.
struct Declared {
    subject: String,
    span: Span,
    carriers: BTreeSet<String>,
    added: String,
}

/// The limits, or the rate limits, of a spec as [`Declared`].
type DeclaredOf = fn(&Spec) -> Vec<Declared>;

fn declared_limits(spec: &Spec) -> Vec<Declared> {
    spec.limits
        .iter()
        .zip(&spec.spans.limits)
        .map(|(l, span)| Declared {
            subject: format!("limit {}", l.name),
            span: *span,
            carriers: limit_endpoints(spec, l),
            added: format!("added: {}", limit_text(&l.value)),
        })
        .collect()
}

fn declared_rate_limits(spec: &Spec) -> Vec<Declared> {
    spec.rate_limits
        .iter()
        .zip(&spec.spans.rate_limits)
        .map(|(l, span)| Declared {
            subject: format!("rate_limit {}", l.name),
            span: *span,
            carriers: rate_endpoints(spec, l),
            added: "added".into(),
        })
        .collect()
}

impl Differ<'_> {
    /// Endpoints (or `endpoint.param` inputs) a limit now governs, or no longer does.
    fn limit_reach(
        &mut self,
        subject: &str,
        before: &BTreeSet<String>,
        after: &BTreeSet<String>,
        spans: Spans,
        rules: LimitRules,
    ) {
        let endpoint = |target: &String| target.split('.').next().unwrap_or(target).to_string();
        let moves = [
            (after.difference(before), rules.more, "now applies to"),
            (
                before.difference(after),
                rules.fewer,
                "no longer applies to",
            ),
        ];
        for (targets, rule, words) in moves {
            let targets: Vec<&String> = targets.collect();
            if targets.is_empty() {
                continue;
            }
            let list: Vec<&str> = targets.iter().map(|t| t.as_str()).collect();
            let change = format!("{words} {}", list.join(", "));
            let carriers = targets.iter().map(|t| endpoint(t)).collect();
            self.report(rule, subject, change, spans, carriers);
        }
    }

    pub(super) fn limits(&mut self) {
        let (old, new) = (self.old, self.new);
        self.limits_added_or_removed();
        for (i, j) in pairs(&old.limits, &new.limits, |l| &l.name) {
            let (o, n) = (&old.limits[i], &new.limits[j]);
            let subject = format!("limit {}", n.name);
            let spans = Spans::both(old.spans.limits[i], new.spans.limits[j]);
            let carriers = limit_endpoints(new, n);
            self.limit_value(&subject, &o.value, &n.value, spans, carriers);
            // A limit stated by its inputs' constraints is judged with them.
            if let crate::ir::LimitValue::Quantity(_) = n.value {
                let (before, after) = (limit_targets(old, o), limit_targets(new, n));
                self.limit_reach(&subject, &before, &after, spans, LimitRules::LIMIT);
            }
            self.doc(&subject, o.doc.as_deref(), n.doc.as_deref(), spans);
            self.provenance(&subject, o.provenance, n.provenance, spans);
        }
        for (i, j) in pairs(&old.rate_limits, &new.rate_limits, |l| &l.name) {
            let (o, n) = (&old.rate_limits[i], &new.rate_limits[j]);
            let subject = format!("rate_limit {}", n.name);
            let spans = Spans::both(old.spans.rate_limits[i], new.spans.rate_limits[j]);
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
            let (before, after) = (rate_endpoints(old, o), rate_endpoints(new, n));
            self.limit_reach(&subject, &before, &after, spans, LimitRules::RATE);
            if rates(&o.tiers) != rates(&n.tiers) || o.per != n.per {
                let rule = rules::RATE_LIMIT_CHANGED;
                self.report(rule, &subject, "tiers changed", spans, after);
            }
            self.not_shown(&subject, &o.not_shown, &n.not_shown, spans);
            self.provenance(&subject, o.provenance, n.provenance, spans);
        }
    }

    /// Limits and rate limits declared in one version only.
    fn limits_added_or_removed(&mut self) {
        let kinds: [(DeclaredOf, LimitRules); 2] = [
            (declared_limits, LimitRules::LIMIT),
            (declared_rate_limits, LimitRules::RATE),
        ];
        for (declared, rules) in kinds {
            let (before, after) = (declared(self.old), declared(self.new));
            let among =
                |list: &[Declared], d: &Declared| list.iter().any(|o| o.subject == d.subject);
            for d in after.iter().filter(|d| !among(&before, d)) {
                let spans = Spans::new(d.span);
                let (subject, change) = (&d.subject, d.added.clone());
                self.report(rules.more, subject, change, spans, d.carriers.clone());
            }
            for d in before.iter().filter(|d| !among(&after, d)) {
                let spans = Spans::old(d.span);
                self.report(
                    rules.fewer,
                    &d.subject,
                    "removed",
                    spans,
                    d.carriers.clone(),
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
