//! Endpoints compared: their routes, inputs, answers, credentials and behaviour.

use super::fields::FieldSet;
use super::rules;
use super::types::Delta;
use super::{Differ, Direction, Spans, notes_of};
use crate::ir::{AuthRequirement, Endpoint, Response, Spec};
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

/// The old endpoint's parameters, its path parameters named as the new route names the
/// placeholder in the same place: renaming `{id}` to `{user_id}` changes no request.
fn path_params_renamed(old: &Endpoint, new: &Endpoint) -> Vec<crate::ir::Param> {
    let names = |ep: &Endpoint| crate::ir::placeholders(&ep.path);
    let (before, after) = (names(old), names(new));
    old.params
        .iter()
        .map(|p| {
            let mut p = p.clone();
            if p.location == crate::ir::ParamLocation::Path
                && let Some(i) = before.iter().position(|n| *n == p.field.name)
                && let Some(renamed) = after.get(i)
            {
                p.field.name = renamed.clone();
            }
            p
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
        let (old_api, new_api) = (&self.old.api(old.api).name, &self.new.api(new.api).name);
        if route(old) != route(new) || old_api != new_api {
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
        let old_params = path_params_renamed(old, new);
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
        self.request_body(old, new, &subject, spans, &carriers);
        self.responses(&old.responses, &new.responses, &new.name, &carriers, true);
        self.responses(&old.errors, &new.errors, &new.name, &carriers, false);
        self.auth(&old.auth, &new.auth, &subject, spans, &carriers);
        self.gates(&old.gates, &new.gates, &subject, spans, &carriers);
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

    fn request_body(
        &mut self,
        old: &Endpoint,
        new: &Endpoint,
        subject: &str,
        spans: Spans,
        carriers: &BTreeSet<String>,
    ) {
        let subject = format!("{subject} body");
        match (&old.body, &new.body) {
            (None, Some(_)) => self.report(
                rules::REQUEST_BODY_ADDED,
                subject,
                "added",
                spans,
                carriers.clone(),
            ),
            (Some(_), None) => self.report(
                rules::REQUEST_BODY_REMOVED,
                subject,
                "removed",
                spans,
                carriers.clone(),
            ),
            (Some(o), Some(n)) => {
                if old.body_media != new.body_media {
                    let change = media_change(&old.body_media, &new.body_media);
                    self.report(
                        rules::REQUEST_MEDIA_CHANGED,
                        &subject,
                        change,
                        spans,
                        carriers.clone(),
                    );
                }
                let rule = match self.type_delta(o, n) {
                    Delta::Same => return,
                    Delta::Narrowed(c) => (rules::REQUEST_TYPE_NARROWED, c),
                    Delta::Widened(c) => (rules::REQUEST_TYPE_WIDENED, c),
                    Delta::Changed(c) => (rules::REQUEST_TYPE_CHANGED, c),
                };
                self.report(rule.0, subject, rule.1, spans, carriers.clone());
            }
            (None, None) => {}
        }
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
        match (&old.body, &new.body) {
            (None, Some(_)) => self.report(
                rules::RESPONSE_BODY_ADDED,
                subject,
                "a body added",
                spans,
                carriers.clone(),
            ),
            (Some(_), None) => self.report(
                rules::RESPONSE_BODY_REMOVED,
                subject,
                "body removed",
                spans,
                carriers.clone(),
            ),
            (Some(o), Some(n)) => {
                if old.media != new.media {
                    let change = media_change(&old.media, &new.media);
                    self.report(
                        rules::RESPONSE_MEDIA_CHANGED,
                        subject,
                        change,
                        spans,
                        carriers.clone(),
                    );
                }
                let found = match self.type_delta(o, n) {
                    Delta::Same => None,
                    Delta::Narrowed(c) => Some((rules::RESPONSE_TYPE_NARROWED, c)),
                    Delta::Widened(c) => Some((rules::RESPONSE_TYPE_WIDENED, c)),
                    Delta::Changed(c) => Some((rules::RESPONSE_TYPE_CHANGED, c)),
                };
                if let Some((rule, change)) = found {
                    self.report(rule, subject, change, spans, carriers.clone());
                }
            }
            (None, None) => {}
        }
        for n in &new.headers {
            let header = format!("{subject} header {}", n.name);
            match old
                .headers
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(&n.name))
            {
                None if !n.presence.may_be_absent() => self.report(
                    rules::RESPONSE_HEADER_ADDED,
                    header,
                    "added, always sent",
                    Spans::new(n.span),
                    carriers.clone(),
                ),
                _ => {}
            }
        }
        let owner = format!("{subject} headers");
        self.field_set(&FieldSet {
            owner: &owner,
            old: old
                .headers
                .iter()
                .filter(|o| {
                    new.headers
                        .iter()
                        .any(|n| n.name.eq_ignore_ascii_case(&o.name))
                })
                .collect(),
            new: new
                .headers
                .iter()
                .filter(|n| {
                    old.headers
                        .iter()
                        .any(|o| o.name.eq_ignore_ascii_case(&n.name))
                })
                .collect(),
            direction: Direction::Response,
            carriers,
        });
        for o in &old.headers {
            if !new
                .headers
                .iter()
                .any(|n| n.name.eq_ignore_ascii_case(&o.name))
            {
                self.report(
                    rules::RESPONSE_HEADER_REMOVED,
                    format!("{subject} header {}", o.name),
                    "removed",
                    Spans::old(o.span),
                    carriers.clone(),
                );
            }
        }
        self.doc(subject, old.doc.as_deref(), new.doc.as_deref(), spans);
        self.provenance(subject, old.provenance, new.provenance, spans);
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
        let names = |spec: &Spec, req: &AuthRequirement| -> BTreeSet<String> {
            req.any_of
                .iter()
                .map(|id| spec.auth(*id).name.clone())
                .collect()
        };
        let (before, after) = (names(self.old, old), names(self.new, new));
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
