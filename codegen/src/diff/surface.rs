//! Everything around the endpoints: the service, its APIs, auth schemes, types, events and
//! the notes of the spec itself (limits are in [`super::limits`]).

use super::fields::FieldSet;
use super::{Differ, Direction, Notes, Spans, notes_of, rules};
use crate::ir::{Enum, Spec};
use crate::source::Span;
use std::collections::{BTreeMap, BTreeSet};

/// The declarations of one kind in both versions, for [`Differ::declared`].
struct Declared<'a> {
    /// How findings name the kind: `model`, `enum`.
    kind: &'static str,
    renamed_rule: &'static crate::diff::Rule,
    /// Old name → new, for declarations renamed with their wire shape kept.
    renamed: std::collections::BTreeMap<String, String>,
    old: Vec<(&'a str, Option<&'a crate::ir::Deprecation>)>,
    new: Vec<&'a str>,
    old_spans: &'a [Span],
    new_spans: &'a [Span],
}

/// For each old api, the new api it is: the one of its name, or else a rename: the one new
/// api of no old name with its base and versions, where no other old api without a new
/// namesake has them too.
pub(super) fn pair_apis(old: &Spec, new: &Spec) -> Vec<Option<usize>> {
    let same_place = |a: &crate::ir::Api, b: &crate::ir::Api| {
        a.base_url == b.base_url && a.versions == b.versions
    };
    let unpaired_old: Vec<&crate::ir::Api> = old
        .apis
        .iter()
        .filter(|o| new.apis.iter().all(|n| n.name != o.name))
        .collect();
    let unpaired_new: Vec<(usize, &crate::ir::Api)> = new
        .apis
        .iter()
        .enumerate()
        .filter(|(_, n)| old.apis.iter().all(|o| o.name != n.name))
        .collect();
    old.apis
        .iter()
        .map(|o| {
            if let Some(j) = new.apis.iter().position(|n| n.name == o.name) {
                return Some(j);
            }
            let mut candidates = unpaired_new.iter().filter(|(_, n)| same_place(o, n));
            let rivals = unpaired_old.iter().filter(|p| same_place(p, o)).count();
            match (candidates.next(), candidates.next(), rivals) {
                (Some((j, _)), None, 1) => Some(*j),
                _ => None,
            }
        })
        .collect()
}

impl Differ<'_> {
    pub(super) fn service(&mut self) {
        let (old, new) = (&self.old.service, &self.new.service);
        let spans = Spans {
            old: self.old.spans.service,
            new: self.new.spans.service,
        };
        if old.version != new.version {
            let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
            let change = format!("{} → {}", text(&old.version), text(&new.version));
            self.report(
                rules::VERSION_CHANGED,
                "service",
                change,
                spans,
                BTreeSet::new(),
            );
        }
        self.doc("service", old.doc.as_deref(), new.doc.as_deref(), spans);
        for (what, o, n) in [
            ("max_length", old.max_length, new.max_length),
            ("max_items", old.max_items, new.max_items),
        ] {
            let value = |b: Option<crate::ir::DefaultBound>| b.map(|b| b.value);
            let (o, n) = (value(o), value(n));
            if o != n {
                let text = |v: Option<u64>| v.map_or("none".to_string(), |v| v.to_string());
                let loosened = match (o, n) {
                    (Some(a), Some(b)) => b > a,
                    (_, None) => true,
                    (None, Some(_)) => false,
                };
                let change = format!("default {what} {} → {}", text(o), text(n));
                // The service's bounds hold request bodies (the models they reach keep them
                // in answers too, but as a fact of the input they quote).
                let every: BTreeSet<String> = self
                    .new
                    .endpoints
                    .iter()
                    .filter(|e| e.body.is_some())
                    .map(|e| e.name.clone())
                    .collect();
                let rule = if loosened {
                    rules::REQUEST_CONSTRAINT_LOOSENED
                } else {
                    rules::REQUEST_CONSTRAINT_TIGHTENED
                };
                self.report(rule, "service", change, spans, every);
            }
        }
    }

    pub(super) fn apis(&mut self) {
        let (old, new) = (self.old, self.new);
        let paired: Vec<(usize, usize)> = self
            .api_pairs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.map(|j| (i, j)))
            .collect();
        for (i, j) in paired {
            let (o, n) = (&old.apis[i], &new.apis[j]);
            let spans = Spans::both(old.spans.apis[i], new.spans.apis[j]);
            let owner = format!("api {}", n.name);
            let carriers: BTreeSet<String> = new
                .endpoints
                .iter()
                .filter(|ep| ep.api.index() == j)
                .map(|ep| ep.name.clone())
                .collect();
            if o.name != n.name {
                let change = format!("renamed to `{}`", n.name);
                let subject = format!("api {}", o.name);
                self.report(rules::API_RENAMED, subject, change, spans, carriers.clone());
            }
            if o.base_url != n.base_url {
                let change = format!("base `{}` → `{}`", o.base_url, n.base_url);
                self.report(
                    rules::API_BASE_CHANGED,
                    &owner,
                    change,
                    spans,
                    carriers.clone(),
                );
            }
            // An endpoint with rejections of its own, before or after, reports its own.
            let own = |spec: &Spec, name: &str| {
                (spec.endpoints.iter()).any(|ep| ep.name == name && ep.rejections.is_some())
            };
            let shaped: BTreeSet<String> = (carriers.iter())
                .filter(|name| !own(old, name) && !own(new, name))
                .cloned()
                .collect();
            let (before, after) = (o.rejections.as_ref(), n.rejections.as_ref());
            self.rejections(before, after, &owner, spans, &shaped);
            self.responses(&o.errors, &n.errors, &owner, &carriers, false);
            self.api_gates(o, n, j, &owner, spans);
            self.doc(&owner, o.doc.as_deref(), n.doc.as_deref(), spans);
        }
    }

    /// The model the router's own errors are written in, or what it puts in them, changed.
    pub(super) fn rejections(
        &mut self,
        before: Option<&crate::ir::Rejections>,
        after: Option<&crate::ir::Rejections>,
        owner: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let named = |spec: &Spec, r: Option<&crate::ir::Rejections>| {
            r.map(|r| (spec.model(r.model).name.clone(), r.template.clone()))
        };
        let (before, after) = (named(self.old, before), named(self.new, after));
        let renamed = |name: &String| self.renamed_models.get(name).unwrap_or(name).clone();
        let same = match (&before, &after) {
            (Some((a, x)), Some((b, y))) => renamed(a) == *b && x == y,
            (a, b) => a.is_none() && b.is_none(),
        };
        if same {
            return;
        }
        let text = |r: &Option<(String, serde_json::Value)>| {
            r.as_ref()
                .map_or("`{\"detail\": …}`".to_string(), |(m, _)| format!("`{m}`"))
        };
        let change = match (&before, &after) {
            (Some((a, _)), Some((b, _))) if renamed(a) == *b => format!(
                "what the router's own errors put in `{b}` changed (its `@rejection` fields)"
            ),
            _ => format!(
                "the router's own errors written as {} → {}",
                text(&before),
                text(&after)
            ),
        };
        self.report(
            rules::REJECTIONS_CHANGED,
            owner,
            change,
            spans,
            carriers.clone(),
        );
    }

    /// Gates an api gained or lost, each carried by the endpoints it changes: not those that
    /// had the gate of their own before, or keep it of their own after. A gate moved from
    /// every endpoint to their api changes nothing and is not reported.
    fn api_gates(
        &mut self,
        old_api: &crate::ir::Api,
        new_api: &crate::ir::Api,
        new_index: usize,
        owner: &str,
        spans: Spans,
    ) {
        let (old, new) = (self.old, self.new);
        let endpoints = || {
            new.endpoints
                .iter()
                .filter(|ep| ep.api.index() == new_index)
        };
        let had_own = |name: &str, gate: &crate::ir::Gate| {
            old.endpoint_named(name)
                .is_some_and(|o| o.gates.contains(gate))
        };
        for gate in &new_api.gates {
            if old_api.gates.contains(gate) {
                continue;
            }
            let carriers: BTreeSet<String> = endpoints()
                .filter(|ep| !had_own(&ep.name, gate))
                .map(|ep| ep.name.clone())
                .collect();
            if !carriers.is_empty() {
                self.gates(&[], std::slice::from_ref(gate), owner, spans, &carriers);
            }
        }
        for gate in &old_api.gates {
            if new_api.gates.contains(gate) {
                continue;
            }
            let carriers: BTreeSet<String> = endpoints()
                .filter(|ep| !ep.gates.contains(gate))
                .map(|ep| ep.name.clone())
                .collect();
            if !carriers.is_empty() {
                self.gates(std::slice::from_ref(gate), &[], owner, spans, &carriers);
            }
        }
    }

    pub(super) fn auth_schemes(&mut self) {
        let (old, new) = (self.old, self.new);
        for (j, n) in new.auth_schemes.iter().enumerate() {
            let subject = format!("auth {}", n.name);
            let Some(i) = old.auth_schemes.iter().position(|o| o.name == n.name) else {
                let span = Spans::new(new.spans.auth_schemes[j]);
                self.report(
                    rules::AUTH_SCHEME_ADDED,
                    subject,
                    "added",
                    span,
                    BTreeSet::new(),
                );
                continue;
            };
            let o = &old.auth_schemes[i];
            let spans = Spans::both(old.spans.auth_schemes[i], new.spans.auth_schemes[j]);
            let carriers = users_of_scheme(new, &n.name);
            if o.carrier != n.carrier {
                let change = format!(
                    "carried in {} instead of {}",
                    crate::ir::carrier_syntax(&n.carrier),
                    crate::ir::carrier_syntax(&o.carrier)
                );
                self.report(
                    rules::AUTH_CARRIER_CHANGED,
                    &subject,
                    change,
                    spans,
                    carriers.clone(),
                );
            }
            self.oauth_flows(&subject, o, n, spans, &carriers);
            match (o.single_use, n.single_use) {
                (false, true) => self.report(
                    rules::AUTH_LIFETIME_SHORTENED,
                    &subject,
                    "now single use",
                    spans,
                    carriers.clone(),
                ),
                (true, false) => self.report(
                    rules::AUTH_LIFETIME_LENGTHENED,
                    &subject,
                    "no longer single use",
                    spans,
                    carriers.clone(),
                ),
                _ => {}
            }
            self.lifetime(&subject, o, n, spans, &carriers);
            self.notes(&subject, notes_of!(o), notes_of!(n), spans, &carriers);
        }
        for (i, o) in old.auth_schemes.iter().enumerate() {
            if new.auth_schemes.iter().all(|n| n.name != o.name) {
                let rule = self.removal(rules::AUTH_SCHEME_REMOVED, o.deprecated.as_ref());
                let change = Self::removal_change(o.deprecated.as_ref());
                let span = Spans::old(old.spans.auth_schemes[i]);
                self.report(
                    rule,
                    format!("auth {}", o.name),
                    change,
                    span,
                    users_of_scheme(old, &o.name),
                );
            }
        }
    }

    /// How long a credential lives: `60 minutes` → `1 hour` is no change; a lifetime that
    /// cannot be compared is taken as shortened, the change that breaks clients.
    fn lifetime(
        &mut self,
        subject: &str,
        old: &crate::ir::AuthScheme,
        new: &crate::ir::AuthScheme,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        use std::cmp::Ordering;
        let rule = match (&old.lifetime, &new.lifetime) {
            (None, None) => return,
            (Some(_), None) => rules::AUTH_LIFETIME_LENGTHENED,
            (None, Some(_)) => rules::AUTH_LIFETIME_SHORTENED,
            (Some(a), Some(b)) => match a.compare(b) {
                Some(Ordering::Equal) => return,
                Some(Ordering::Less) => rules::AUTH_LIFETIME_LENGTHENED,
                Some(Ordering::Greater) | None => rules::AUTH_LIFETIME_SHORTENED,
            },
        };
        let text =
            |q: &Option<crate::ir::Quantity>| q.as_ref().map_or("none".into(), ToString::to_string);
        let change = format!("lifetime {} → {}", text(&old.lifetime), text(&new.lifetime));
        self.report(rule, subject, change, spans, carriers.clone());
    }

    /// Where an OAuth2 client gets and refreshes its tokens.
    fn oauth_flows(
        &mut self,
        subject: &str,
        old: &crate::ir::AuthScheme,
        new: &crate::ir::AuthScheme,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let flows = |a: &crate::ir::AuthScheme| {
            let f = a.oauth2.as_ref();
            [
                (
                    "authorization_url",
                    f.and_then(|f| f.authorization_url.clone()),
                ),
                ("token_url", f.and_then(|f| f.token_url.clone())),
                ("refresh_url", f.and_then(|f| f.refresh_url.clone())),
            ]
        };
        let kinds =
            |a: &crate::ir::AuthScheme| a.oauth2.as_ref().map(|f| f.flows()).unwrap_or_default();
        let (before, after) = (kinds(old), kinds(new));
        for flow in after.iter().filter(|f| !before.contains(f)) {
            let change = format!("the {} flow added", flow.describe());
            self.report(
                rules::AUTH_FLOW_ADDED,
                subject,
                change,
                spans,
                carriers.clone(),
            );
        }
        for flow in before.iter().filter(|f| !after.contains(f)) {
            let change = format!("the {} flow removed", flow.describe());
            self.report(
                rules::AUTH_FLOW_REMOVED,
                subject,
                change,
                spans,
                carriers.clone(),
            );
        }
        for ((what, before), (_, after)) in flows(old).into_iter().zip(flows(new)) {
            if before != after {
                let text = |u: &Option<String>| u.clone().unwrap_or_else(|| "none".into());
                let change = format!("{what} {} → {}", text(&before), text(&after));
                let rule = rules::AUTH_FLOW_CHANGED;
                self.report(rule, subject, change, spans, carriers.clone());
            }
        }
    }

    pub(super) fn events(&mut self) {
        let (old, new) = (self.old, self.new);
        self.event_signing();
        for (j, n) in new.events.iter().enumerate() {
            let subject = format!("event {}", n.name);
            let carriers: BTreeSet<String> = [subject.clone()].into();
            let new_span = new.spans.events[j];
            let Some(i) = old.events.iter().position(|o| o.name == n.name) else {
                let change = format!("added: {}", n.pattern);
                self.report(
                    rules::EVENT_ADDED,
                    subject,
                    change,
                    Spans::new(new_span),
                    carriers,
                );
                continue;
            };
            let o = &old.events[i];
            let spans = Spans::both(old.spans.events[i], new_span);
            // The enums filling the placeholders, in order: another enum names other types.
            let enums = |spec: &Spec, e: &crate::ir::Event, renamed: &BTreeMap<String, String>| {
                e.placeholders
                    .iter()
                    .map(|(_, id)| {
                        let name = &spec.enum_(*id).name;
                        renamed.get(name).unwrap_or(name).clone()
                    })
                    .collect::<Vec<_>>()
            };
            let (before, after) = (
                enums(old, o, &self.renamed_enums),
                enums(new, n, &BTreeMap::new()),
            );
            if pattern_shape(&o.pattern) != pattern_shape(&n.pattern) || before != after {
                let filled = |pattern: &str, by: &[String]| {
                    if by.is_empty() {
                        format!("`{pattern}`")
                    } else {
                        format!("`{pattern}` ({})", by.join(", "))
                    }
                };
                let change = format!(
                    "type {} → {}",
                    filled(&o.pattern, &before),
                    filled(&n.pattern, &after)
                );
                self.report(
                    rules::EVENT_TYPE_CHANGED,
                    &subject,
                    change,
                    spans,
                    carriers.clone(),
                );
            }
            self.field_set(&FieldSet {
                owner: &subject,
                old: o.fields.iter().collect(),
                new: n.fields.iter().collect(),
                direction: Direction::Response,
                carriers: &carriers,
            });
            self.notes(&subject, notes_of!(o), notes_of!(n), spans, &carriers);
        }
        for (i, o) in old.events.iter().enumerate() {
            if new.events.iter().all(|n| n.name != o.name) {
                let subject = format!("event {}", o.name);
                let rule = self.removal(rules::EVENT_REMOVED, o.deprecated.as_ref());
                let change = Self::removal_change(o.deprecated.as_ref());
                let span = Spans::old(old.spans.events[i]);
                self.report(rule, subject.clone(), change, span, [subject].into());
            }
        }
    }

    pub(super) fn models(&mut self) {
        let (old, new) = (self.old, self.new);
        let declared = Declared {
            kind: "model",
            renamed_rule: rules::MODEL_RENAMED,
            renamed: self.renamed_models.clone(),
            old: old
                .models
                .iter()
                .map(|m| (m.name.as_str(), m.deprecated.as_ref()))
                .collect(),
            new: new.models.iter().map(|m| m.name.as_str()).collect(),
            old_spans: &old.spans.models,
            new_spans: &new.spans.models,
        };
        for (i, j, spans) in self.declared(declared) {
            self.model_pair(&old.models[i], &new.models[j], spans);
        }
    }

    /// The endpoints and events carrying a model or an enum, either way.
    fn type_carriers(&self, name: &str) -> BTreeSet<String> {
        [Direction::Request, Direction::Response]
            .into_iter()
            .flat_map(|d| self.new_usage.carriers(name, d))
            .collect()
    }

    pub(super) fn enums(&mut self) {
        let (old, new) = (self.old, self.new);
        let declared = Declared {
            kind: "enum",
            renamed_rule: rules::ENUM_RENAMED,
            renamed: self.renamed_enums.clone(),
            old: old.enums.iter().map(|e| (e.name.as_str(), None)).collect(),
            new: new.enums.iter().map(|e| e.name.as_str()).collect(),
            old_spans: &old.spans.enums,
            new_spans: &new.spans.enums,
        };
        for (i, j, spans) in self.declared(declared) {
            self.enum_pair(&old.enums[i], &new.enums[j], spans);
        }
    }

    /// Declarations of one kind paired across the versions, by name or by a rename found
    /// earlier: reports the renamed, added and removed ones, and answers the pairs (old index,
    /// new index) with their places.
    fn declared(&mut self, declared: Declared) -> Vec<(usize, usize, Spans)> {
        let Declared {
            kind,
            renamed_rule,
            renamed,
            old,
            new,
            old_spans,
            new_spans,
        } = declared;
        let mut pairs = Vec::new();
        for (j, name) in new.iter().enumerate() {
            let old_name = renamed
                .iter()
                .find(|(_, to)| to.as_str() == *name)
                .map_or(*name, |(from, _)| from.as_str());
            let carriers = self.type_carriers(name);
            match old.iter().position(|(o, _)| *o == old_name) {
                Some(i) => {
                    let spans = Spans::both(old_spans[i], new_spans[j]);
                    if old_name != *name {
                        let change = format!("renamed to `{name}`");
                        let subject = format!("{kind} {old_name}");
                        self.report(renamed_rule, subject, change, spans, carriers);
                    }
                    pairs.push((i, j, spans));
                }
                None => {
                    let spans = Spans::new(new_spans[j]);
                    let subject = format!("{kind} {name}");
                    self.report(rules::TYPE_ADDED, subject, "added", spans, carriers);
                }
            }
        }
        for (i, (name, deprecated)) in old.iter().enumerate() {
            if !new.contains(name) && !renamed.contains_key(*name) {
                let rule = self.removal(rules::TYPE_REMOVED, *deprecated);
                let change = Self::removal_change(*deprecated);
                let subject = format!("{kind} {name}");
                self.report(
                    rule,
                    subject,
                    change,
                    Spans::old(old_spans[i]),
                    BTreeSet::new(),
                );
            }
        }
        pairs
    }

    fn enum_pair(&mut self, old: &Enum, new: &Enum, spans: Spans) {
        let subject = format!("enum {}", new.name);
        let mut all = BTreeSet::new();
        let directions = self.travel_directions(&old.name, &new.name);
        for direction in directions {
            let mut carriers = self.new_usage.carriers(&new.name, direction);
            carriers.extend(self.old_usage.carriers(&old.name, direction));
            all.extend(carriers.iter().cloned());
            if old.repr != new.repr {
                let word = |r: crate::ir::EnumRepr| match r {
                    crate::ir::EnumRepr::String => "strings",
                    crate::ir::EnumRepr::Int => "numbers",
                };
                let change = format!("values written as {} → {}", word(old.repr), word(new.repr));
                let rule = match direction {
                    Direction::Request => rules::REQUEST_TYPE_CHANGED,
                    Direction::Response => rules::RESPONSE_TYPE_CHANGED,
                };
                self.report(rule, &subject, change, spans, carriers.clone());
            }
            // A new value is read by code built on the old enum: its openness decides.
            let (added, removed) = match (direction, old.open) {
                (Direction::Request, false) => (
                    rules::REQUEST_ENUM_VALUE_ADDED,
                    rules::REQUEST_ENUM_VALUE_REMOVED,
                ),
                (Direction::Request, true) => (
                    rules::REQUEST_OPEN_ENUM_VALUE_ADDED,
                    rules::REQUEST_ENUM_VALUE_REMOVED,
                ),
                (Direction::Response, false) => (
                    rules::RESPONSE_ENUM_VALUE_ADDED,
                    rules::RESPONSE_ENUM_VALUE_REMOVED,
                ),
                (Direction::Response, true) => (
                    rules::RESPONSE_OPEN_ENUM_VALUE_ADDED,
                    rules::RESPONSE_ENUM_VALUE_REMOVED,
                ),
            };
            for v in new
                .values
                .iter()
                .filter(|v| old.values.iter().all(|o| o.name != v.name))
            {
                let subject = format!("{}.{}", new.name, v.name);
                self.report(
                    added,
                    subject,
                    "value added",
                    Spans::new(v.span),
                    carriers.clone(),
                );
            }
            for v in old
                .values
                .iter()
                .filter(|o| new.values.iter().all(|n| n.name != o.name))
            {
                let rule = self.removal(removed, v.deprecated.as_ref());
                let change = Self::removal_change(v.deprecated.as_ref());
                let subject = format!("{}.{}", new.name, v.name);
                self.report(rule, subject, change, Spans::old(v.span), carriers.clone());
            }
        }
        match (old.open, new.open) {
            (false, true) => {
                self.report(rules::ENUM_OPENED, &subject, "now open", spans, all.clone())
            }
            (true, false) => self.report(
                rules::ENUM_CLOSED,
                &subject,
                "now closed",
                spans,
                all.clone(),
            ),
            _ => {}
        }
        for n in &new.values {
            if let Some(o) = old.values.iter().find(|o| o.name == n.name) {
                let value = format!("{}.{}", new.name, n.name);
                let vspans = Spans::both(o.span, n.span);
                self.notes(&value, Notes::of_value(o), Notes::of_value(n), vspans, &all);
            }
        }
        self.notes(
            &subject,
            Notes::of_enum(old),
            Notes::of_enum(new),
            spans,
            &all,
        );
    }

    pub(super) fn spec_notes(&mut self) {
        let texts = |spec: &Spec| -> Vec<String> {
            spec.not_shown
                .iter()
                .filter(|n| n.owner == "spec")
                .map(|n| n.what.clone())
                .collect()
        };
        let spans = |spec: &Spec, what: &str| -> Option<Span> {
            spec.not_shown
                .iter()
                .find(|n| n.owner == "spec" && n.what == what)
                .map(|n| n.span)
        };
        let (old, new) = (texts(self.old), texts(self.new));
        for gone in old.iter().filter(|t| !new.contains(t)) {
            let span = Spans {
                old: spans(self.old, gone),
                new: None,
            };
            self.report(
                rules::NOT_SHOWN_RESOLVED,
                "spec",
                format!("no longer not shown: \"{gone}\""),
                span,
                BTreeSet::new(),
            );
        }
        for added in new.iter().filter(|t| !old.contains(t)) {
            let span = Spans {
                old: None,
                new: spans(self.new, added),
            };
            self.report(
                rules::NOT_SHOWN_ADDED,
                "spec",
                format!("not shown: \"{added}\""),
                span,
                BTreeSet::new(),
            );
        }
        let known = |e: &crate::ir::Change| {
            self.old
                .changelog
                .iter()
                .any(|o| o.date == e.date && o.text == e.text)
        };
        for entry in self.new.changelog.iter().filter(|e| !known(e)) {
            let change = format!("{}: {}", entry.date, entry.text);
            self.report(
                rules::CHANGELOG_ADDED,
                "changelog",
                change,
                Spans::default(),
                BTreeSet::new(),
            );
        }
    }
}

/// An event type with its placeholders' names left out: `{kind}` and `{type}` are one.
fn pattern_shape(pattern: &str) -> String {
    pattern
        .split('.')
        .map(|part| if part.starts_with('{') { "{}" } else { part })
        .collect::<Vec<_>>()
        .join(".")
}

impl Differ<'_> {
    /// How deliveries are signed, said on the envelope.
    fn event_signing(&mut self) {
        let (old, new) = (self.old, self.new);
        if old.event_signing == new.event_signing {
            return;
        }
        let name = |s: Option<crate::ir::EventSigning>| s.map_or("unsigned", |s| s.name());
        let change = format!(
            "deliveries signed {} → {}",
            name(old.event_signing),
            name(new.event_signing)
        );
        let span = |spec: &Spec| spec.envelope.map(|id| spec.spans.models[id.index()]);
        let spans = match (span(old), span(new)) {
            (Some(o), Some(n)) => Spans::both(o, n),
            (Some(o), None) => Spans::old(o),
            (None, Some(n)) => Spans::new(n),
            (None, None) => return,
        };
        let carriers: BTreeSet<String> = new
            .events
            .iter()
            .chain(&old.events)
            .map(|e| format!("event {}", e.name))
            .collect();
        let rule = match (old.event_signing, new.event_signing) {
            (None, _) => rules::EVENT_SIGNING_ADDED,
            (_, None) => rules::EVENT_SIGNING_REMOVED,
            _ => rules::EVENT_SIGNING_CHANGED,
        };
        self.report(rule, "envelope", change, spans, carriers);
    }
}

/// The endpoints accepting a scheme.
fn users_of_scheme(spec: &Spec, scheme: &str) -> BTreeSet<String> {
    spec.endpoints
        .iter()
        .filter(|ep| {
            ep.auth
                .every_scheme()
                .any(|id| spec.auth(id).name == scheme)
        })
        .map(|ep| ep.name.clone())
        .collect()
}
