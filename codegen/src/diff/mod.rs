//! The semantic diff of two specs: every change between them, judged by who it breaks.
//!
//! Both specs are validated IR, so the diff compares meaning, not text: a reformat, a comment
//! or a reflowed doc comment is no change. A type is judged by the way it travels (see
//! [`usage`]): making a field required breaks clients that write it, and servers that write
//! it when it travels back; values added to a closed enum break whoever reads it.

mod endpoints;
mod fields;
mod limits;
mod patterns;
mod policy;
mod report;
pub mod rules;
mod surface;
mod types;
mod unions;
pub mod usage;

pub use policy::{Bump, DiffConfig, Policy, Severity, bumped};
pub use report::{Exercised, Report, Version, rule_table};
pub use rules::{Category, Rule};
pub use usage::Direction;

use crate::ir::{Deprecation, Spec};
use crate::source::{SourceFile, Span};
use std::collections::{BTreeMap, BTreeSet};
use usage::Usage;

/// One version of a spec: its IR and the file it was read from (whose spans the findings
/// hold, for a report to place them).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub spec: &'a Spec,
    pub file: &'a SourceFile,
}

/// What the diff needs beyond the two specs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Today (`YYYY-MM-DD`), to tell a removal before its announced sunset from one after.
    pub today: String,
}

/// One change between the two specs.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule: &'static Rule,
    /// What changed, as a reviewer names it: `PatientInfo.dob`, `endpoint get_user`.
    pub subject: String,
    /// The change in a few words: "now required", "`string` → `uuid`".
    pub change: String,
    /// Where the changed thing is written in the old spec; `None` for an addition.
    pub old: Option<Span>,
    /// Where it is written in the new spec; `None` for a removal.
    pub new: Option<Span>,
    /// The endpoints (by name) and events (`event <name>`) whose traffic carries the change.
    pub carriers: BTreeSet<String>,
}

impl Finding {
    /// One line a reviewer can paste: `PatientInfo.dob: now required (clients that omit …)`.
    pub fn sentence(&self) -> String {
        format!("{}: {}; {}", self.subject, self.change, self.rule.why)
    }
}

/// Every change from `old` to `new`, most affected category first, then in the new spec's
/// order (the old one's for removals).
pub fn diff(old: Side, new: Side, options: &Options) -> Vec<Finding> {
    let mut differ = Differ {
        old: old.spec,
        new: new.spec,
        old_usage: Usage::of(old.spec),
        new_usage: Usage::of(new.spec),
        today: options.today.clone(),
        renamed_models: BTreeMap::new(),
        renamed_enums: BTreeMap::new(),
        api_pairs: surface::pair_apis(old.spec, new.spec),
        findings: Vec::new(),
    };
    differ.run();
    let mut findings = differ.findings;
    let order = |f: &Finding| {
        (
            f.rule.headline(),
            f.new.is_none(),
            f.new.or(f.old).map(|s| s.start),
            f.rule.id,
        )
    };
    findings.sort_by(|a, b| {
        order(a)
            .cmp(&order(b))
            .then_with(|| a.subject.cmp(&b.subject))
            .then_with(|| a.change.cmp(&b.change))
    });
    // A change found in each direction a type travels is one change, carried by both.
    findings.dedup_by(|later, kept| {
        let same = later.rule == kept.rule
            && later.subject == kept.subject
            && later.change == kept.change
            && later.old == kept.old
            && later.new == kept.new;
        if same {
            kept.carriers.append(&mut later.carriers);
        }
        same
    });
    findings
}

/// The state of one diff: both specs, where their types travel, the renames found so far,
/// and the findings.
struct Differ<'a> {
    old: &'a Spec,
    new: &'a Spec,
    old_usage: Usage,
    new_usage: Usage,
    today: String,
    /// Old model name → new, for models renamed with their wire shape kept.
    renamed_models: BTreeMap<String, String>,
    renamed_enums: BTreeMap<String, String>,
    /// For each old api (by index), the new api it is: by name, or renamed with its base and
    /// versions kept.
    api_pairs: Vec<Option<usize>>,
    findings: Vec<Finding>,
}

/// Where a thing is written in each version.
#[derive(Clone, Copy, Debug, Default)]
struct Spans {
    old: Option<Span>,
    new: Option<Span>,
}

impl Spans {
    fn both(old: Span, new: Span) -> Spans {
        Spans {
            old: Some(old),
            new: Some(new),
        }
    }
    fn old(old: Span) -> Spans {
        Spans {
            old: Some(old),
            new: None,
        }
    }
    fn new(new: Span) -> Spans {
        Spans {
            old: None,
            new: Some(new),
        }
    }
}

/// What every declaration says about itself besides its contract: compared alike for
/// endpoints, models, enums and their values, fields, events and auth schemes.
#[derive(Clone, Copy)]
struct Notes<'a> {
    doc: Option<&'a str>,
    not_shown: &'a [String],
    provenance: crate::ir::Provenance,
    deprecated: Option<&'a Deprecation>,
}

/// The notes of a declaration with all four (an endpoint, a model, an event, an auth scheme).
macro_rules! notes_of {
    ($item:expr) => {
        $crate::diff::Notes {
            doc: $item.doc.as_deref(),
            not_shown: &$item.not_shown,
            provenance: $item.provenance,
            deprecated: $item.deprecated.as_ref(),
        }
    };
}
use notes_of;

impl<'a> Notes<'a> {
    fn of_enum(e: &'a crate::ir::Enum) -> Self {
        Notes {
            doc: e.doc.as_deref(),
            not_shown: &e.not_shown,
            provenance: e.provenance,
            deprecated: None,
        }
    }
    fn of_value(v: &'a crate::ir::EnumValue) -> Self {
        Notes {
            doc: v.doc.as_deref(),
            not_shown: &[],
            provenance: v.provenance,
            deprecated: v.deprecated.as_ref(),
        }
    }
    fn of_field(field: &'a crate::ir::Field) -> Self {
        Notes {
            doc: field.doc.as_deref(),
            not_shown: &[],
            provenance: field.provenance,
            deprecated: field.deprecated.as_ref(),
        }
    }
}

impl Differ<'_> {
    /// The ways a type travels in either version: a change matters to each.
    fn travel_directions(&self, old: &str, new: &str) -> Vec<Direction> {
        let mut directions = self.new_usage.directions(new);
        for d in self.old_usage.directions(old) {
            if !directions.contains(&d) {
                directions.push(d);
            }
        }
        directions
    }

    fn run(&mut self) {
        self.discover_renames();
        self.service();
        self.apis();
        self.auth_schemes();
        self.endpoints();
        self.events();
        self.models();
        self.enums();
        self.unions();
        self.limits();
        self.spec_notes();
    }

    fn report(
        &mut self,
        rule: &'static Rule,
        subject: impl Into<String>,
        change: impl Into<String>,
        spans: Spans,
        carriers: BTreeSet<String>,
    ) {
        // A thing the toolkit adds (an idempotency key's header) is written nowhere.
        let written = |s: Option<Span>| s.filter(|s| *s != Span::default());
        self.findings.push(Finding {
            rule,
            subject: subject.into(),
            change: change.into(),
            old: written(spans.old),
            new: written(spans.new),
            carriers,
        });
    }

    /// The rule for removing something: its own, unless a deprecation announced the removal
    /// to the clients it breaks.
    fn removal(&self, rule: &'static Rule, deprecated: Option<&Deprecation>) -> &'static Rule {
        if !rule.categories.contains(&Category::BreaksClients) {
            return rule;
        }
        match deprecated.and_then(|d| d.sunset.as_deref()) {
            Some(sunset) if !self.today.is_empty() && sunset <= self.today.as_str() => {
                rules::REMOVED_AFTER_SUNSET
            }
            Some(_) => rules::REMOVED_BEFORE_SUNSET,
            None => rule,
        }
    }

    /// What a removal's finding says, naming the deprecation that announced it.
    fn removal_change(deprecated: Option<&Deprecation>) -> String {
        match deprecated.and_then(|d| d.sunset.as_deref()) {
            Some(sunset) => format!("removed (deprecated, sunset {sunset})"),
            None if deprecated.is_some() => "removed (deprecated, no sunset announced)".into(),
            None => "removed".into(),
        }
    }

    /// Docs, not-shown notes, provenance and deprecation of one declaration.
    fn notes(
        &mut self,
        subject: &str,
        old: Notes,
        new: Notes,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        self.deprecation(subject, old.deprecated, new.deprecated, spans, carriers);
        self.doc(subject, old.doc, new.doc, spans);
        self.not_shown(subject, old.not_shown, new.not_shown, spans);
        self.provenance(subject, old.provenance, new.provenance, spans);
    }

    /// Deprecations added, withdrawn, or with their sunset moved.
    fn deprecation(
        &mut self,
        subject: &str,
        old: Option<&Deprecation>,
        new: Option<&Deprecation>,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        match (old, new) {
            (None, Some(d)) => {
                let change = match &d.sunset {
                    Some(sunset) => format!("deprecated, sunset {sunset}"),
                    None => "deprecated".into(),
                };
                self.report(rules::DEPRECATED, subject, change, spans, carriers.clone());
            }
            (Some(_), None) => self.report(
                rules::UNDEPRECATED,
                subject,
                "no longer deprecated",
                spans,
                carriers.clone(),
            ),
            (Some(o), Some(n)) => match (&o.sunset, &n.sunset) {
                (Some(a), Some(b)) if b < a => self.report(
                    rules::SUNSET_EARLIER,
                    subject,
                    format!("sunset moved from {a} to {b}"),
                    spans,
                    carriers.clone(),
                ),
                (Some(a), None) => self.report(
                    rules::SUNSET_LATER,
                    subject,
                    format!("sunset {a} withdrawn"),
                    spans,
                    carriers.clone(),
                ),
                (Some(a), Some(b)) if b > a => self.report(
                    rules::SUNSET_LATER,
                    subject,
                    format!("sunset moved from {a} to {b}"),
                    spans,
                    carriers.clone(),
                ),
                // As deprecating with a sunset in one step: clients are told, nothing breaks.
                (None, Some(b)) => self.report(
                    rules::DEPRECATED,
                    subject,
                    format!("sunset {b} announced"),
                    spans,
                    carriers.clone(),
                ),
                _ => {}
            },
            (None, None) => {}
        }
    }

    /// A doc comment whose words changed (reflowing is no change).
    fn doc(&mut self, subject: &str, old: Option<&str>, new: Option<&str>, spans: Spans) {
        let words = |d: Option<&str>| d.map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "));
        if words(old) != words(new) {
            let change = match (old, new) {
                (None, Some(_)) => "documented",
                (Some(_), None) => "documentation removed",
                _ => "documentation changed",
            };
            self.report(rules::DOC_CHANGED, subject, change, spans, BTreeSet::new());
        }
    }

    fn provenance(
        &mut self,
        subject: &str,
        old: crate::ir::Provenance,
        new: crate::ir::Provenance,
        spans: Spans,
    ) {
        if old != new {
            self.report(
                rules::PROVENANCE_CHANGED,
                subject,
                format!("source {} → {}", old.word(), new.word()),
                spans,
                BTreeSet::new(),
            );
        }
    }

    /// Not-shown notes of one thing resolved or added.
    fn not_shown(&mut self, subject: &str, old: &[String], new: &[String], spans: Spans) {
        for gone in old.iter().filter(|n| !new.contains(n)) {
            self.report(
                rules::NOT_SHOWN_RESOLVED,
                subject,
                format!("no longer not shown: \"{gone}\""),
                spans,
                BTreeSet::new(),
            );
        }
        for added in new.iter().filter(|n| !old.contains(n)) {
            self.report(
                rules::NOT_SHOWN_ADDED,
                subject,
                format!("not shown: \"{added}\""),
                spans,
                BTreeSet::new(),
            );
        }
    }
}
