//! Events, limits, rate limits, state machines and the changelog.

use super::annotations::Site;
use super::references::ReplacementScope;
use super::{Decls, Lowerer};
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

impl Lowerer<'_> {
    pub(super) fn lower_events(
        &mut self,
        decls: &Decls,
        models: &[Model],
        enums: &[Enum],
    ) -> Vec<Event> {
        let envelope = decls.envelope.and_then(|id| models.get(id.index()));
        if envelope.is_none()
            && let Some((first, _)) = decls.events.first()
        {
            self.error(diagnostic_codes::NO_ENVELOPE, first.name.span, "events need an `envelope`")
                    .label("no envelope declared")
                    .help("declare the fields every event carries: `envelope Event { event_type: string  data: object }`");
        }
        decls
            .events
            .iter()
            .map(|(decl, attrs)| self.lower_event(decl, attrs, envelope, enums))
            .collect()
    }

    fn lower_event(
        &mut self,
        decl: &ast::EventDecl,
        attrs: &ast::Attrs,
        envelope: Option<&Model>,
        enums: &[Enum],
    ) -> Event {
        let annots = self.annots(attrs, Site::Event);
        let owner = format!("event {}", decl.name.text);
        let mut event = Event {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            pattern: decl.pattern.value.clone(),
            placeholders: Vec::new(),
            fields: Vec::new(),
            deprecated: None,
            provenance: self.provenance(&annots),
            not_shown: Vec::new(),
        };
        let in_pattern = match crate::ir::placeholder_offsets(&decl.pattern.value) {
            Ok(p) => p,
            Err(_) => {
                self.error(
                    diagnostic_codes::EVENT_PLACEHOLDER_MISMATCH,
                    decl.pattern.span,
                    "unbalanced `{` or `}` in event type",
                )
                .label("placeholders are written `{name}`");
                Vec::new()
            }
        };
        for member in &decl.members {
            match &member.node {
                ast::EventMember::NotShown(what) => event
                    .not_shown
                    .push(self.record_not_shown(what, owner.clone())),
                ast::EventMember::Placeholder(field) => {
                    if !in_pattern.iter().any(|(n, _)| *n == field.name.text) {
                        self.error(
                            diagnostic_codes::EVENT_PLACEHOLDER_MISMATCH,
                            field.name.span,
                            format!("`{{{}}}` is not in the event type", field.name.text),
                        )
                        .label("placeholder never used")
                        .note(decl.pattern.span, "the event type");
                        continue;
                    }
                    match self.lower_type(&field.ty) {
                        Some((Type::Enum(id), false)) => {
                            event.placeholders.push((field.name.text.clone(), id))
                        }
                        Some(_) => {
                            self.error(
                                diagnostic_codes::EVENT_PLACEHOLDER_MISMATCH,
                                field.ty.span,
                                "a placeholder's values come from an enum",
                            )
                            .label("not an enum")
                            .help("declare the allowed values as an (open) enum");
                        }
                        None => {}
                    }
                }
                ast::EventMember::Field(field) => {
                    if let Some(env) = envelope
                        && env.field(&field.name.text).is_none()
                    {
                        self.error(
                            diagnostic_codes::UNKNOWN_REFERENCE,
                            field.name.span,
                            format!("the envelope has no field `{}`", field.name.text),
                        )
                        .label("events give types to envelope fields only")
                        .help(format!(
                            "add `{}` to envelope `{}` first",
                            field.name.text, env.name
                        ));
                        continue;
                    }
                    let scope = ReplacementScope::EventField(event.name.clone());
                    if let Some(f) =
                        self.lower_field(&member.attrs, field, Site::Field, scope, enums)
                    {
                        event.fields.push(f);
                    }
                }
            }
        }
        for (name, offset) in &in_pattern {
            if !event.placeholders.iter().any(|(n, _)| n == name) {
                let at = decl.pattern.span.start as usize + 1 + offset;
                self.error(
                    diagnostic_codes::EVENT_PLACEHOLDER_MISMATCH,
                    Span::new(at, at + name.len() + 2),
                    format!("`{{{name}}}` has no `placeholder` declaration"),
                )
                .label("unbound placeholder")
                .help(format!("add `placeholder {name}: SomeEnum` to the event"));
            }
        }
        event.deprecated = self.deprecation(&annots).map(|(dep, target)| {
            if let Some((name, span)) = target {
                self.queue_replacement(ReplacementScope::Event, name, span);
            }
            dep
        });
        event
    }

    pub(super) fn lower_limit(
        &mut self,
        decl: &ast::LimitDecl,
        attrs: &ast::Attrs,
        endpoints: &[Endpoint],
        models: &[Model],
    ) -> Limit {
        let annots = self.annots(attrs, Site::Other);
        let provenance = self.provenance(&annots);
        // A value that is no quantity is said once, as such, not also as missing.
        let mut unreadable = false;
        let value = match &decl.value {
            None => LimitValue::FromConstraints,
            Some(v) => match &v.kind {
                ValueKind::Quantity { amount, unit } => LimitValue::Quantity(Quantity {
                    amount: *amount,
                    unit: unit.text.clone(),
                }),
                // A bare count, such as a most number of things.
                ValueKind::Int(n) if *n >= 0 => LimitValue::Quantity(Quantity {
                    amount: *n as f64,
                    unit: String::new(),
                }),
                ValueKind::Ref(path)
                    if path.len() == 1 && path[0].text.starts_with("not_shown:") =>
                {
                    let what = path[0].text.trim_start_matches("not_shown:").to_string();
                    let lit = ast::StrLit {
                        value: what.clone(),
                        span: v.span,
                    };
                    self.record_not_shown(&lit, format!("limit {}", decl.name.text));
                    LimitValue::NotShown(what)
                }
                _ => {
                    self.error(diagnostic_codes::BAD_SETTING, v.span, "a limit's value is a quantity such as `20 seconds`, or a count")
                        .label("not a quantity")
                        .help("or write `= not_shown(\"what\")`, or leave it out when the inputs' constraints state it");
                    unreadable = true;
                    LimitValue::FromConstraints
                }
            },
        };
        let mut applies_to = Vec::new();
        let mut unresolved = false;
        for prop in &decl.props {
            let annots = self.annots(&prop.attrs, Site::Other);
            self.unrecorded_source(&annots, "the limit");
            if prop.node.key.text != "applies" {
                self.unknown_setting(&prop.node, "a limit", &["applies"]);
                continue;
            }
            for v in &prop.node.values {
                match self.limit_target(v, endpoints, models) {
                    Some(t) => applies_to.push(t),
                    None => unresolved = true,
                }
            }
        }
        if value == LimitValue::FromConstraints
            && !unresolved
            && !unreadable
            && !applies_to.iter().any(|t| t.param.is_some())
        {
            self.error(diagnostic_codes::BAD_SETTING, decl.name.span, format!("limit `{}` states no value", decl.name.text))
                .label("no value and no constrained input")
                .help("give `= <quantity>`, or `applies endpoint.param` naming inputs whose constraints state it");
        }
        Limit {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            value,
            applies_to,
            provenance,
        }
    }

    /// `endpoint`, or `endpoint.input` naming a parameter or a field of its request body.
    fn limit_target(
        &mut self,
        v: &ast::Value,
        endpoints: &[Endpoint],
        models: &[Model],
    ) -> Option<LimitTarget> {
        let ValueKind::Ref(path) = &v.kind else {
            self.error(
                diagnostic_codes::UNKNOWN_REFERENCE,
                v.span,
                "`applies` names endpoints or `endpoint.param`",
            )
            .label("not a name");
            return None;
        };
        let endpoint = self.resolve_endpoint(&path[0])?;
        let param = match path.get(1) {
            None => None,
            Some(p) => {
                let ep = endpoints.get(endpoint.index())?;
                let in_params = ep.params.iter().any(|q| q.field.name == p.text);
                let in_body = match &ep.body {
                    Some(Type::Model(id)) => models
                        .get(id.index())
                        .is_some_and(|m| m.field(&p.text).is_some()),
                    _ => false,
                };
                if !in_params && !in_body {
                    self.error(
                        diagnostic_codes::UNKNOWN_REFERENCE,
                        p.span,
                        format!("endpoint `{}` has no input `{}`", ep.name, p.text),
                    )
                    .label("neither a parameter nor a field of its body");
                    return None;
                }
                Some(p.text.clone())
            }
        };
        Some(LimitTarget { endpoint, param })
    }

    pub(super) fn lower_rate_limit(
        &mut self,
        decl: &ast::RateLimitDecl,
        attrs: &ast::Attrs,
    ) -> RateLimit {
        let annots = self.annots(attrs, Site::Other);
        let provenance = self.provenance(&annots);
        let mut rl = RateLimit {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            applies_to: Vec::new(),
            per: None,
            tiers: Vec::new(),
            not_shown: Vec::new(),
            provenance,
        };
        let owner = format!("rate_limit {}", rl.name);
        for member in &decl.members {
            let annots = self.annots(&member.attrs, Site::Other);
            if !matches!(member.node, ast::RateMember::Tier { .. }) {
                self.unrecorded_source(&annots, "the rate limit");
            }
            match &member.node {
                ast::RateMember::NotShown(what) => rl
                    .not_shown
                    .push(self.record_not_shown(what, owner.clone())),
                ast::RateMember::Prop(p) => match p.key.text.as_str() {
                    "applies" => {
                        for name in self.word_props(p) {
                            if let Some(id) = self.resolve_endpoint(&name) {
                                rl.applies_to.push(id);
                            }
                        }
                    }
                    "per" => rl.per = self.word_props(p).first().map(|w| w.text.clone()),
                    _ => self.unknown_setting(
                        p,
                        "a rate limit",
                        &["applies", "per", "tier(…)", "default(…)"],
                    ),
                },
                ast::RateMember::Tier { is_default, args } => {
                    if let Some(mut tier) = self.tier(member, *is_default, args) {
                        tier.provenance = self.provenance(&annots);
                        rl.tiers.push(tier);
                    }
                }
            }
        }
        self.check_assignments(decl, &rl);
        rl
    }

    /// A key is governed by one tier at most.
    fn check_assignments(&mut self, decl: &ast::RateLimitDecl, rl: &RateLimit) {
        let mut seen = std::collections::BTreeSet::new();
        for tier in &rl.tiers {
            for key in &tier.assigned {
                if !seen.insert(key.as_str()) {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        decl.name.span,
                        format!("`{key}` is assigned to two tiers of `{}`", rl.name),
                    )
                    .label("a key has one rate");
                }
            }
        }
    }

    fn tier(
        &mut self,
        member: &ast::Member<ast::RateMember>,
        is_default: bool,
        args: &[ast::Arg],
    ) -> Option<RateTier> {
        let mut tier = RateTier {
            doc: member.attrs.doc.clone(),
            providers: None,
            concurrent: None,
            count: None,
            window: None,
            note: None,
            is_default,
            assigned: Vec::new(),
            provenance: Provenance::default(),
        };
        for arg in args {
            let name = arg.name.as_ref().map(|n| n.text.as_str());
            let count = match arg.value.kind {
                ValueKind::Int(n) if n > 0 => u32::try_from(n).ok(),
                _ => None,
            };
            match (name, &arg.value.kind) {
                (Some("providers"), _) if count.is_some() && !is_default => tier.providers = count,
                (Some("concurrent"), _) if count.is_some() => tier.concurrent = count,
                (Some("count"), _) if count.is_some() => tier.count = count,
                (Some("per"), ValueKind::Quantity { amount, unit }) => {
                    tier.window = Some(Quantity {
                        amount: *amount,
                        unit: unit.text.clone(),
                    })
                }
                (Some("note"), ValueKind::Str(s)) => tier.note = Some(s.clone()),
                (Some("assigned"), ValueKind::List(keys)) if !is_default => {
                    for key in keys {
                        match &key.kind {
                            ValueKind::Ref(path) if path.len() == 1 => {
                                tier.assigned.push(path[0].text.clone())
                            }
                            _ => {
                                self.error(diagnostic_codes::BAD_SETTING, key.span, "not a key")
                                    .label("expected a name, such as a provider slug");
                            }
                        }
                    }
                }
                _ => {
                    let span = arg
                        .name
                        .as_ref()
                        .map_or(arg.value.span, |n| n.span.to(arg.value.span));
                    self.error(diagnostic_codes::BAD_SETTING, span, "tier argument not understood")
                        .label("unexpected argument")
                        .help("tiers take providers: N, concurrent: N, count: N, per: <duration>, note: \"…\", assigned: [key, …] (default tiers take no providers and no assigned keys)");
                }
            }
        }
        if let Some(n) = tier.providers.filter(|n| tier.assigned.len() > *n as usize) {
            self.error(
                diagnostic_codes::BAD_SETTING,
                member.span,
                format!("{} keys assigned to a tier of {n}", tier.assigned.len()),
            )
            .label("more keys than the tier covers");
        }
        let rate = tier.count.is_some() && tier.window.is_some();
        if tier.concurrent.is_none() && !rate {
            self.error(
                diagnostic_codes::BAD_SETTING,
                member.span,
                "a tier states `concurrent: N` or `count: N, per: <duration>`",
            )
            .label("no rate given");
            return None;
        }
        Some(tier)
    }

    pub(super) fn lower_states(
        &mut self,
        decl: &ast::StatesDecl,
        attrs: &ast::Attrs,
    ) -> StateMachine {
        self.annots(attrs, Site::Other);
        let mut sm = StateMachine {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            states: Vec::new(),
            transitions: Vec::new(),
            not_shown: Vec::new(),
        };
        let owner = format!("states {}", sm.name);
        let mut spans: Vec<Span> = Vec::new();
        for member in &decl.members {
            match &member.node {
                ast::StateMember::State(name) => {
                    let annots = self.annots(&member.attrs, Site::Other);
                    let provenance = self.provenance(&annots);
                    if let Some(i) = sm.states.iter().position(|s| s.name == name.text) {
                        self.error(
                            diagnostic_codes::DUPLICATE_MEMBER,
                            name.span,
                            format!("state `{}` is declared twice", name.text),
                        )
                        .label("repeated state")
                        .note(spans[i], "first declared here");
                        continue;
                    }
                    spans.push(name.span);
                    sm.states.push(State {
                        name: name.text.clone(),
                        doc: member.attrs.doc.clone(),
                        provenance,
                    });
                }
                ast::StateMember::NotShown(what) => sm
                    .not_shown
                    .push(self.record_not_shown(what, owner.clone())),
                ast::StateMember::Transition { .. } => {}
            }
        }
        for member in &decl.members {
            let ast::StateMember::Transition { from, to, on, when } = &member.node else {
                continue;
            };
            let annots = self.annots(&member.attrs, Site::Other);
            let (Some(from_i), Some(to_i)) =
                (self.state_index(&sm, from), self.state_index(&sm, to))
            else {
                continue;
            };
            let trigger = on.as_ref().and_then(|t| match (self.endpoints.get(&t.text), self.events.get(&t.text)) {
                (Some((id, _)), _) => Some(Trigger::Endpoint(*id)),
                (None, Some(_)) => Some(Trigger::Named(t.text.clone())),
                (None, None) => {
                    self.error(diagnostic_codes::UNKNOWN_REFERENCE, t.span, format!("unknown trigger `{}`", t.text))
                        .label("neither an endpoint nor an event")
                        .help("name the endpoint or event that causes the move, or describe it with `when \"…\"`");
                    None
                }
            });
            sm.transitions.push(Transition {
                from: from_i,
                to: to_i,
                doc: member.attrs.doc.clone(),
                trigger,
                condition: when.as_ref().map(|w| w.value.clone()),
                provenance: self.provenance(&annots),
            });
        }
        sm
    }

    fn state_index(&mut self, sm: &StateMachine, name: &ast::Ident) -> Option<usize> {
        let found = sm.states.iter().position(|s| s.name == name.text);
        if found.is_none() {
            let names: Vec<&str> = sm.states.iter().map(|s| s.name.as_str()).collect();
            self.error(
                diagnostic_codes::UNKNOWN_STATE,
                name.span,
                format!("`{}` is not a state of `{}`", name.text, sm.name),
            )
            .label("unknown state")
            .help(format!("declared states: {}", names.join(", ")));
        }
        found
    }

    pub(super) fn lower_changelog(
        &mut self,
        entries: &[&ast::Member<ast::ChangeEntry>],
    ) -> Vec<Change> {
        let mut out = Vec::new();
        for entry in entries {
            self.annots(&entry.attrs, Site::Other);
            let date = &entry.node.date;
            if !is_date(&date.value) {
                self.error(
                    diagnostic_codes::BAD_DATE,
                    date.span,
                    format!("`{}` is not a date", date.value),
                )
                .label("expected YYYY-MM or YYYY-MM-DD");
                continue;
            }
            out.push(Change {
                date: date.value.clone(),
                text: entry.node.text.value.clone(),
            });
        }
        out
    }
}

/// `YYYY-MM` or `YYYY-MM-DD` with a plausible month and day.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, len: usize| p.len() == len && p.bytes().all(|b| b.is_ascii_digit());
    let in_range = |p: &str, hi: u32| p.parse::<u32>().is_ok_and(|n| (1..=hi).contains(&n));
    match parts.as_slice() {
        [y, m] => num(y, 4) && num(m, 2) && in_range(m, 12),
        [y, m, d] => num(y, 4) && num(m, 2) && num(d, 2) && in_range(m, 12) && in_range(d, 31),
        _ => false,
    }
}
