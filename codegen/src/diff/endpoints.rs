//! Endpoints compared: their routes, inputs, answers, credentials and behaviour.

use super::Rule;
use super::fields::FieldSet;
use super::rules;
use super::types::Delta;
use super::{Differ, Direction, Spans, notes_of};
use crate::ir::{AuthRequirement, Endpoint, Field, Response, Spec};
use std::collections::BTreeSet;

/// A route with its placeholders' names left out, so `/users/{id}` and `/users/{user_id}`
/// are one route.
fn route(ep: &Endpoint) -> (crate::ir::Method, String) {
    let mut shape = String::new();
    let mut inside = false;
    for c in ep.path.chars() {
        match c {
            '{' => {
                inside = true;
                shape.push_str("{}");
            }
            '}' => inside = false,
            _ if !inside => shape.push(c),
            _ => {}
        }
    }
    (ep.method, shape)
}

/// `text/plain` → `text/markdown`.
fn media_change(old: &crate::ir::BodyMedia, new: &crate::ir::BodyMedia) -> String {
    format!("`{}` → `{}`", old.content_type(), new.content_type())
}

/// The old endpoint's parameters named as the new endpoint names them where the wire is the
/// same: a path placeholder renamed in its place (`{id}` to `{user_id}`, a name neither
/// version has elsewhere in the path), a header whose name changed case only.
/// The rules a body's changes are judged by, a request's or an answer's, and the words of
/// one added or removed.
struct BodyRules {
    added: &'static Rule,
    added_words: &'static str,
    removed: &'static Rule,
    removed_words: &'static str,
    narrowed: &'static Rule,
    widened: &'static Rule,
    changed: &'static Rule,
}

const REQUEST_BODY: BodyRules = BodyRules {
    added: rules::REQUEST_BODY_ADDED,
    added_words: "added",
    removed: rules::REQUEST_BODY_REMOVED,
    removed_words: "removed",
    narrowed: rules::REQUEST_TYPE_NARROWED,
    widened: rules::REQUEST_TYPE_WIDENED,
    changed: rules::REQUEST_TYPE_CHANGED,
};

const RESPONSE_BODY: BodyRules = BodyRules {
    added: rules::RESPONSE_BODY_ADDED,
    added_words: "a body added",
    removed: rules::RESPONSE_BODY_REMOVED,
    removed_words: "body removed",
    narrowed: rules::RESPONSE_TYPE_NARROWED,
    widened: rules::RESPONSE_TYPE_WIDENED,
    changed: rules::RESPONSE_TYPE_CHANGED,
};

fn params_as_named_anew(old: &Endpoint, new: &Endpoint) -> Vec<crate::ir::Param> {
    use crate::ir::ParamLocation;
    let names = |ep: &Endpoint| crate::ir::placeholders(&ep.path);
    let (before, after) = (names(old), names(new));
    old.params
        .iter()
        .map(|p| {
            let mut p = p.clone();
            match p.location {
                ParamLocation::Path => {
                    if let Some(i) = before.iter().position(|n| *n == p.field.name)
                        && let Some(renamed) = after.get(i)
                        && !after.contains(&p.field.name)
                        && !before.contains(renamed)
                    {
                        p.field.name = renamed.clone();
                    }
                }
                ParamLocation::Header => {
                    if let Some(n) = new.params.iter().find(|n| {
                        n.location == ParamLocation::Header
                            && n.field.name.eq_ignore_ascii_case(&p.field.name)
                    }) {
                        p.field.name = n.field.name.clone();
                    }
                }
                _ => {}
            }
            p
        })
        .collect()
}

/// Response headers as the other version spells them, where the names differ in case only:
/// header names are case-insensitive.
fn spelled_as(headers: &[Field], other: &[Field]) -> Vec<Field> {
    headers
        .iter()
        .map(|h| {
            let mut h = h.clone();
            if let Some(o) = other.iter().find(|o| o.name.eq_ignore_ascii_case(&h.name)) {
                h.name = o.name.clone();
            }
            h
        })
        .collect()
}

impl Differ<'_> {
    pub(super) fn endpoints(&mut self) {
        let (old, new) = (self.old, self.new);
        let mut paired_old = BTreeSet::new();
        for (j, n) in new.endpoints.iter().enumerate() {
            let by_name = old.endpoints.iter().position(|o| o.name == n.name);
            let renamed = by_name.is_none().then(|| {
                old.endpoints
                    .iter()
                    .position(|o| route(o) == route(n) && new.endpoint_named(&o.name).is_none())
            });
            let new_span = new.spans.endpoints[j];
            match by_name.or(renamed.flatten()) {
                Some(i) => {
                    paired_old.insert(i);
                    let o = &old.endpoints[i];
                    let spans = Spans::both(old.spans.endpoints[i], new_span);
                    if o.name != n.name {
                        self.report(
                            rules::ENDPOINT_RENAMED,
                            format!("endpoint {}", o.name),
                            format!("renamed to `{}`", n.name),
                            spans,
                            [n.name.clone()].into(),
                        );
                    }
                    self.endpoint(o, n, spans);
                }
                None => self.report(
                    rules::ENDPOINT_ADDED,
                    format!("endpoint {}", n.name),
                    format!("added: {} {}", n.method.as_str(), n.path),
                    Spans::new(new_span),
                    [n.name.clone()].into(),
                ),
            }
        }
        for (i, o) in old.endpoints.iter().enumerate() {
            if !paired_old.contains(&i) {
                let rule = self.removal(rules::ENDPOINT_REMOVED, o.deprecated.as_ref());
                let change = format!(
                    "{}: {} {}",
                    Self::removal_change(o.deprecated.as_ref()),
                    o.method.as_str(),
                    o.path
                );
                self.report(
                    rule,
                    format!("endpoint {}", o.name),
                    change,
                    Spans::old(old.spans.endpoints[i]),
                    [o.name.clone()].into(),
                );
            }
        }
    }

    fn endpoint(&mut self, old: &Endpoint, new: &Endpoint, spans: Spans) {
        let subject = format!("endpoint {}", new.name);
        let carriers: BTreeSet<String> = [new.name.clone()].into();
        let (old_api, new_api) = (self.old.api(old.api), self.new.api(new.api));
        let same_api = self.api_pairs[old.api.index()] == Some(new.api.index());
        // Another api at the same address is the same URL on the wire.
        if route(old) != route(new) || (!same_api && old_api.base_url != new_api.base_url) {
            let at = |spec: &Spec, ep: &Endpoint| {
                format!(
                    "{} {} {}",
                    spec.api(ep.api).name,
                    ep.method.as_str(),
                    ep.path
                )
            };
            let change = format!("moved from {} to {}", at(self.old, old), at(self.new, new));
            self.report(
                rules::ENDPOINT_MOVED,
                &subject,
                change,
                spans,
                carriers.clone(),
            );
        }
        let old_params = params_as_named_anew(old, new);
        self.path_order(old, new, &subject, spans, &carriers);
        for (before, after) in old.params.iter().zip(&old_params) {
            if before.location == crate::ir::ParamLocation::Path
                && before.field.name != after.field.name
            {
                let param = format!("{}.{}", new.name, before.field.name);
                let change = format!("renamed to `{}`", after.field.name);
                let spans = new
                    .params
                    .iter()
                    .find(|n| {
                        n.location == crate::ir::ParamLocation::Path
                            && n.field.name == after.field.name
                    })
                    .map_or(spans, |n| Spans::both(before.field.span, n.field.span));
                let rule = rules::PATH_PARAM_RENAMED;
                self.report(rule, param, change, spans, carriers.clone());
            }
        }
        self.field_set(&FieldSet {
            owner: &new.name,
            old: old_params.iter().map(|p| &p.field).collect(),
            new: new.params.iter().map(|p| &p.field).collect(),
            direction: Direction::Request,
            carriers: &carriers,
        });
        for n in &new.params {
            if let Some(o) = old_params.iter().find(|o| o.field.name == n.field.name) {
                let param = format!("{}.{}", new.name, n.field.name);
                if o.location != n.location {
                    let change = format!(
                        "moved from the {} to the {}",
                        o.location.as_str(),
                        n.location.as_str()
                    );
                    let spans = Spans::both(o.field.span, n.field.span);
                    self.report(rules::PARAM_MOVED, &param, change, spans, carriers.clone());
                }
                self.field_notes(&param, &o.field, &n.field, &carriers);
            }
        }
        self.one_of_groups(old, new, &subject, spans, &carriers);
        self.request_body(old, new, &subject, spans, &carriers);
        self.responses(&old.responses, &new.responses, &new.name, &carriers, true);
        self.responses(&old.errors, &new.errors, &new.name, &carriers, false);
        // An endpoint's own rejections, or its api's once it has none of its own; a change
        // of the api's alone is the api's to report.
        if old.rejections.is_some() || new.rejections.is_some() {
            let (before, after) = (self.old.rejections(old), self.new.rejections(new));
            self.rejections(before, after, &subject, spans, &carriers);
        }
        self.auth(&old.auth, &new.auth, &subject, spans, &carriers);
        let (old_gates, new_gates) = self.effective_gates(old, new, same_api);
        self.gates(&old_gates, &new_gates, &subject, spans, &carriers);
        if old.paging != new.paging {
            let change = "pages are followed another way";
            self.report(
                rules::PAGING_CHANGED,
                &subject,
                change,
                spans,
                carriers.clone(),
            );
        }
        let safe = |ep: &Endpoint| ep.idempotent || ep.safe_to_repeat.is_some();
        if (safe(old) && !safe(new))
            || (old.idempotency_key.is_some() && new.idempotency_key.is_none())
        {
            let change = "a repeat is no longer safe";
            self.report(
                rules::IDEMPOTENCY_CHANGED,
                &subject,
                change,
                spans,
                carriers.clone(),
            );
        }
        self.notes(&subject, notes_of!(old), notes_of!(new), spans, &carriers);
    }

    /// Placeholders both versions name but in other places of the path: a client sends each
    /// value where the new route reads another (`/{owner}/{repo}` → `/{repo}/{owner}`).
    fn path_order(
        &mut self,
        old: &Endpoint,
        new: &Endpoint,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let (before, after) = (
            crate::ir::placeholders(&old.path),
            crate::ir::placeholders(&new.path),
        );
        let moved: Vec<&String> = after
            .iter()
            .enumerate()
            .filter(|(j, name)| {
                before
                    .iter()
                    .position(|b| b == *name)
                    .is_some_and(|i| i != *j)
            })
            .map(|(_, name)| name)
            .collect();
        if !moved.is_empty() && route(old) == route(new) {
            let names: Vec<String> = moved.iter().map(|n| format!("{{{n}}}")).collect();
            let change = format!(
                "{} in other places of the path: {} → {}",
                names.join(", "),
                old.path,
                new.path
            );
            self.report(
                rules::PATH_PARAM_REORDERED,
                subject,
                change,
                spans,
                carriers.clone(),
            );
        }
    }

    /// `@exactly_one_of` groups: a new one refuses requests sending none or several of its
    /// members, a dropped one lets them through.
    fn one_of_groups(
        &mut self,
        old: &Endpoint,
        new: &Endpoint,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let sorted = |g: &Vec<String>| {
            let mut g = g.clone();
            g.sort();
            g
        };
        let (before, after): (Vec<_>, Vec<_>) = (
            old.exactly_one_of.iter().map(sorted).collect(),
            new.exactly_one_of.iter().map(sorted).collect(),
        );
        for g in after.iter().filter(|g| !before.contains(g)) {
            let change = format!("@exactly_one_of({}) added", g.join(", "));
            let rule = rules::REQUEST_CONSTRAINT_TIGHTENED;
            self.report(rule, subject, change, spans, carriers.clone());
        }
        for g in before.iter().filter(|g| !after.contains(g)) {
            let change = format!("@exactly_one_of({}) removed", g.join(", "));
            let rule = rules::REQUEST_CONSTRAINT_LOOSENED;
            self.report(rule, subject, change, spans, carriers.clone());
        }
    }

    fn request_body(
        &mut self,
        old: &Endpoint,
        new: &Endpoint,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let subject = format!("{subject} body");
        let (Some(o), Some(n)) = (&old.body, &new.body) else {
            self.body_presence(
                &REQUEST_BODY,
                old.body.is_some(),
                new.body.is_some(),
                &subject,
                spans,
                carriers,
            );
            return;
        };
        // The body's own type; then, since a client sending a type no longer read is
        // refused and a server must read a type newly offered, each further one.
        let (before, after) = (&old.body_also, &new.body_also);
        let changes = (old.body_media != new.body_media)
            .then(|| media_change(&old.body_media, &new.body_media))
            .into_iter()
            .chain(
                before
                    .iter()
                    .filter(|m| !after.contains(m))
                    .map(|m| format!("no longer also read as {m}")),
            )
            .chain(
                after
                    .iter()
                    .filter(|m| !before.contains(m))
                    .map(|m| format!("also read as {m}")),
            );
        for change in changes {
            let rule = rules::REQUEST_MEDIA_CHANGED;
            self.report(rule, &subject, change, spans, carriers.clone());
        }
        self.body_type(&REQUEST_BODY, o, n, &subject, spans, carriers);
    }

    /// A body added or removed, judged by `rules`.
    fn body_presence(
        &mut self,
        rules: &BodyRules,
        had: bool,
        has: bool,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let (rule, change) = match (had, has) {
            (false, true) => (rules.added, rules.added_words),
            (true, false) => (rules.removed, rules.removed_words),
            _ => return,
        };
        self.report(rule, subject, change, spans, carriers.clone());
    }

    /// How a body's type changed, judged by `rules`.
    fn body_type(
        &mut self,
        rules: &BodyRules,
        old: &crate::ir::Type,
        new: &crate::ir::Type,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let (rule, change) = match self.type_delta(old, new) {
            Delta::Same => return,
            Delta::Narrowed(c) => (rules.narrowed, c),
            Delta::Widened(c) => (rules.widened, c),
            Delta::Changed(c) => (rules.changed, c),
        };
        self.report(rule, subject, change, spans, carriers.clone());
    }

    /// Answers by status: success answers (`success`) or errors.
    pub(super) fn responses(
        &mut self,
        old: &[Response],
        new: &[Response],
        owner: &str,
        carriers: &BTreeSet<String>,
        success: bool,
    ) {
        let (added, removed) = if success {
            (rules::RESPONSE_STATUS_ADDED, rules::RESPONSE_STATUS_REMOVED)
        } else {
            (rules::ERROR_STATUS_ADDED, rules::ERROR_STATUS_REMOVED)
        };
        for n in new {
            let subject = format!("{owner} {}", n.status);
            match old.iter().find(|o| o.status == n.status) {
                None => self.report(
                    added,
                    subject,
                    "added",
                    Spans::new(n.span),
                    carriers.clone(),
                ),
                Some(o) => {
                    let spans = Spans::both(o.span, n.span);
                    self.response(o, n, &subject, spans, carriers);
                }
            }
        }
        for o in old
            .iter()
            .filter(|o| !new.iter().any(|n| n.status == o.status))
        {
            let subject = format!("{owner} {}", o.status);
            self.report(
                removed,
                subject,
                "removed",
                Spans::old(o.span),
                carriers.clone(),
            );
        }
    }

    fn response(
        &mut self,
        old: &Response,
        new: &Response,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        if let (Some(o), Some(n)) = (&old.body, &new.body) {
            self.response_body(old, new, (o, n), subject, spans, carriers);
        } else {
            self.body_presence(
                &RESPONSE_BODY,
                old.body.is_some(),
                new.body.is_some(),
                subject,
                spans,
                carriers,
            );
        }
        let owner = format!("{subject} headers");
        let old_headers = spelled_as(&old.headers, &new.headers);
        let kept = |h: &&Field, other: &[Field]| other.iter().any(|o| o.name == h.name);
        for n in new.headers.iter().filter(|n| !kept(n, &old_headers)) {
            let rule = if n.presence.may_be_absent() {
                rules::RESPONSE_FIELD_ADDED
            } else {
                rules::RESPONSE_HEADER_ADDED
            };
            let change = if n.presence.may_be_absent() {
                "added, optional"
            } else {
                "added, always sent"
            };
            let header = format!("{owner}.{}", n.name);
            self.report(rule, header, change, Spans::new(n.span), carriers.clone());
        }
        self.field_set(&FieldSet {
            owner: &owner,
            old: old_headers
                .iter()
                .filter(|o| kept(o, &new.headers))
                .collect(),
            new: new
                .headers
                .iter()
                .filter(|n| kept(n, &old_headers))
                .collect(),
            direction: Direction::Response,
            carriers,
        });
        for o in old_headers.iter().filter(|o| !kept(o, &new.headers)) {
            // Clients already handle an optional header's absence, as an optional field's.
            let rule = if o.presence.may_be_absent() {
                rules::RESPONSE_OPTIONAL_FIELD_REMOVED
            } else {
                rules::RESPONSE_HEADER_REMOVED
            };
            let header = format!("{owner}.{}", o.name);
            self.report(
                rule,
                header,
                "removed",
                Spans::old(o.span),
                carriers.clone(),
            );
        }
        self.doc(subject, old.doc.as_deref(), new.doc.as_deref(), spans);
        self.provenance(subject, old.provenance, new.provenance, spans);
    }

    /// An answer's body in both versions: whether it may be null, its media types, its type.
    fn response_body(
        &mut self,
        old: &Response,
        new: &Response,
        (o, n): (&crate::ir::Type, &crate::ir::Type),
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let nullable = match (old.nullable, new.nullable) {
            (false, true) => Some((rules::RESPONSE_TYPE_WIDENED, "body now may be null")),
            (true, false) => Some((rules::RESPONSE_TYPE_NARROWED, "body no longer null")),
            _ => None,
        };
        if let Some((rule, change)) = nullable {
            self.report(rule, subject, change, spans, carriers.clone());
        }
        if old.media != new.media {
            let change = media_change(&old.media, &new.media);
            let rule = rules::RESPONSE_MEDIA_CHANGED;
            self.report(rule, subject, change, spans, carriers.clone());
        }
        // A client that asked for a media type no longer offered gets another.
        for gone in (old.also_media.iter()).filter(|m| !new.also_media.contains(m)) {
            let change = format!("no longer also in {gone}");
            let rule = rules::RESPONSE_MEDIA_CHANGED;
            self.report(rule, subject, change, spans, carriers.clone());
        }
        self.body_type(&RESPONSE_BODY, o, n, subject, spans, carriers);
    }

    fn auth(
        &mut self,
        old: &AuthRequirement,
        new: &AuthRequirement,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let say = |d: &mut Self, rule, change: String| {
            d.report(rule, subject, change, spans, carriers.clone());
        };
        match (old.public, new.public) {
            (true, false) => say(self, rules::AUTH_REQUIRED, "now needs credentials".into()),
            (false, true) => say(self, rules::AUTH_DROPPED, "now public".into()),
            _ => {}
        }
        let names = |spec: &Spec, ids: &[crate::ir::AuthId]| -> BTreeSet<String> {
            ids.iter().map(|id| spec.auth(*id).name.clone()).collect()
        };
        let (before, after) = (names(self.old, &old.any_of), names(self.new, &new.any_of));
        let (was_sent, now_sent) = (names(self.old, &old.all_of), names(self.new, &new.all_of));
        for added in now_sent.difference(&was_sent) {
            say(
                self,
                rules::AUTH_TOGETHER_REQUIRED,
                format!("now needs `{added}` sent as well"),
            );
        }
        for gone in was_sent.difference(&now_sent) {
            say(
                self,
                rules::AUTH_TOGETHER_DROPPED,
                format!("no longer needs `{gone}` sent as well"),
            );
        }
        if !old.public && !new.public {
            for gone in before.difference(&after) {
                say(
                    self,
                    rules::AUTH_SCHEME_REFUSED,
                    format!("no longer accepts `{gone}`"),
                );
            }
            for added in after.difference(&before) {
                say(
                    self,
                    rules::AUTH_SCHEME_ACCEPTED,
                    format!("now accepts `{added}`"),
                );
            }
        }
        for scheme in before.intersection(&after) {
            let scopes = |spec: &Spec, req: &AuthRequirement| -> BTreeSet<String> {
                spec.auth_schemes
                    .iter()
                    .position(|a| &a.name == scheme)
                    .map(|i| {
                        req.scopes_of(crate::ir::AuthId(i as u32))
                            .iter()
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (was, now) = (scopes(self.old, old), scopes(self.new, new));
            for s in now.difference(&was) {
                say(
                    self,
                    rules::SCOPE_REQUIRED,
                    format!("`{scheme}` now needs scope `{s}`"),
                );
            }
            for s in was.difference(&now) {
                say(
                    self,
                    rules::SCOPE_DROPPED,
                    format!("`{scheme}` no longer needs scope `{s}`"),
                );
            }
        }
    }

    /// The gates an endpoint is behind, its api's included, in each version; a gate its api
    /// gained or lost is left to the api's finding, so a gate moved from the endpoint to its
    /// api (or back) is no change.
    fn effective_gates(
        &self,
        old: &Endpoint,
        new: &Endpoint,
        same_api: bool,
    ) -> (Vec<crate::ir::Gate>, Vec<crate::ir::Gate>) {
        let (old_api, new_api) = (self.old.api(old.api), self.new.api(new.api));
        let union = |a: &[crate::ir::Gate], b: &[crate::ir::Gate]| {
            let mut all = a.to_vec();
            all.extend(b.iter().filter(|g| !a.contains(g)).cloned());
            all
        };
        let mut before = union(&old_api.gates, &old.gates);
        let mut after = union(&new_api.gates, &new.gates);
        if same_api {
            let api_added: Vec<_> = new_api
                .gates
                .iter()
                .filter(|g| !old_api.gates.contains(g))
                .cloned()
                .collect();
            let api_removed: Vec<_> = old_api
                .gates
                .iter()
                .filter(|g| !new_api.gates.contains(g))
                .cloned()
                .collect();
            before = union(&before, &api_added);
            after = union(&after, &api_removed);
        }
        (before, after)
    }

    pub(super) fn gates(
        &mut self,
        old: &[crate::ir::Gate],
        new: &[crate::ir::Gate],
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let text = |g: &crate::ir::Gate| match g {
            crate::ir::Gate::Feature(f) => format!("feature `{f}`"),
            crate::ir::Gate::Plan(p) => format!("plan `{p}`"),
        };
        for g in new.iter().filter(|g| !old.contains(g)) {
            let change = format!("now gated by {}", text(g));
            self.report(rules::GATE_ADDED, subject, change, spans, carriers.clone());
        }
        for g in old.iter().filter(|g| !new.contains(g)) {
            let change = format!("no longer gated by {}", text(g));
            self.report(
                rules::GATE_REMOVED,
                subject,
                change,
                spans,
                carriers.clone(),
            );
        }
    }
}
