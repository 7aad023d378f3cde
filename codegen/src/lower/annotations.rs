//! Which annotations exist, where each may stand, and reading their arguments.

use super::Lowerer;
use crate::ast::{Annotation, Attrs, Value, ValueKind};
use crate::diagnostic_codes;
use crate::ir::{BodyMedia, Deprecation, Provenance};
use crate::source::Span;

/// The kinds of places an annotation can stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Site {
    Field,
    Param,
    Model,
    Enum,
    EnumValue,
    Endpoint,
    Response,
    /// An endpoint's request body.
    Body,
    Event,
    Auth,
    Api,
    /// A `type` declaration.
    Alias,
    /// limits, rate limits, states, changelog entries and the like.
    Other,
}

use Site::*;

const ANYWHERE: &[Site] = &[
    Field, Param, Model, Enum, EnumValue, Endpoint, Response, Body, Event, Auth, Api, Alias, Other,
];
const VALUES: &[Site] = &[Field, Param];
/// Where constraints stand: on a value, or on a type declared to carry them.
const CONSTRAINED: &[Site] = &[Field, Param, Alias];

/// Every annotation the language knows, with the places it may stand.
const KNOWN: &[(&str, &[Site])] = &[
    ("source", ANYWHERE),
    ("since", ANYWHERE),
    (
        "deprecated",
        &[Field, Param, Model, EnumValue, Endpoint, Event, Auth, Alias],
    ),
    ("min", CONSTRAINED),
    ("max", CONSTRAINED),
    ("min_length", CONSTRAINED),
    ("max_length", CONSTRAINED),
    ("pattern", CONSTRAINED),
    ("min_items", CONSTRAINED),
    ("max_items", CONSTRAINED),
    ("one_of", CONSTRAINED),
    ("unique_items", CONSTRAINED),
    ("format", CONSTRAINED),
    ("request_only", &[Field]),
    ("response_only", &[Field]),
    ("format_only", &[Field]),
    ("catalogue", &[Enum]),
    ("requires_feature", &[Endpoint, Api]),
    ("requires_plan", &[Endpoint, Api]),
    ("idempotent", &[Endpoint]),
    ("safe_to_repeat", &[Endpoint]),
    ("paginated", &[Endpoint]),
    ("tracked_by", &[Endpoint]),
    ("registers_webhooks", &[Endpoint]),
    ("exactly_one_of", &[Endpoint, Model]),
    ("at_least_one_of", &[Model]),
    ("at_most_one_of", &[Model]),
    ("event_type", &[Field]),
    ("event_type_header", &[Model]),
    ("signed", &[Model]),
    ("rejection", &[Field]),
    ("secret", VALUES),
    ("personal", VALUES),
    ("varies", &[Field]),
    ("style", VALUES),
    ("lossy", ANYWHERE),
    ("also_media", &[Response, Body]),
];

/// The name of every annotation the language knows, in the order the reference lists them.
pub fn annotation_names() -> impl Iterator<Item = &'static str> {
    KNOWN.iter().map(|(name, _)| *name)
}

/// Annotations that may be given several times on one place.
const REPEATABLE: &[&str] = &["lossy"];

/// The annotations of one item or member, checked against its site.
pub(super) struct Annots<'a> {
    list: Vec<&'a Annotation>,
}

impl<'a> Annots<'a> {
    pub fn get(&self, name: &str) -> Option<&'a Annotation> {
        self.list.iter().copied().find(|a| a.name.text == name)
    }
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

impl Lowerer<'_> {
    /// Checks each annotation is known, allowed at `site`, and not repeated.
    pub(super) fn annots<'a>(&mut self, attrs: &'a Attrs, site: Site) -> Annots<'a> {
        let mut list: Vec<&'a Annotation> = Vec::new();
        for a in &attrs.annotations {
            let name = a.name.text.as_str();
            match KNOWN.iter().find(|(known, _)| *known == name) {
                None => {
                    let names: Vec<&str> = KNOWN.iter().map(|(n, _)| *n).collect();
                    let help = match closest(name, &names) {
                        Some(s) => format!("did you mean `@{s}`?"),
                        None => format!("known annotations: {}", names.join(", ")),
                    };
                    self.error(
                        diagnostic_codes::UNKNOWN_ANNOTATION,
                        a.name.span,
                        format!("unknown annotation `@{name}`"),
                    )
                    .label("not an annotation of the language")
                    .help(help);
                }
                Some((_, sites)) if !sites.contains(&site) => {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        a.span,
                        format!("`@{name}` cannot stand on {}", describe(site)),
                    )
                    .label("not allowed here");
                }
                Some(_) if name == "lossy" => self.check_lossy(a),
                Some(_) => {
                    if let Some(first) = list
                        .iter()
                        .find(|b| b.name.text == name && !REPEATABLE.contains(&name))
                    {
                        let first = first.span;
                        self.error(
                            diagnostic_codes::BAD_ANNOTATION,
                            a.span,
                            format!("`@{name}` is given twice"),
                        )
                        .label("repeated")
                        .note(first, "first given here");
                    } else {
                        list.push(a);
                    }
                }
            }
        }
        Annots { list }
    }

    /// `@also_media("application/yaml", …)`: media types a response or a request body may
    /// also come in.
    pub(super) fn also_media(
        &mut self,
        annots: &Annots,
        main: &BodyMedia,
        has_body: bool,
    ) -> Vec<String> {
        let Some(a) = annots.get("also_media") else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for arg in &a.args {
            let ValueKind::Str(media) = &arg.value.kind else {
                self.bad_args(
                    a,
                    "media types as strings: `@also_media(\"application/yaml\")`",
                );
                return Vec::new();
            };
            let essence = media.split(';').next().unwrap_or("").trim();
            let well_formed = arg.name.is_none()
                && essence.split('/').count() == 2
                && essence.split('/').all(|part| {
                    !part.is_empty()
                        && part
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
                });
            if !well_formed {
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    arg.value.span,
                    format!("`{media}` is not a media type"),
                )
                .label("expected `type/subtype`, with no `*`")
                .help("write e.g. `@also_media(\"application/yaml\")`");
                continue;
            }
            if media.eq_ignore_ascii_case(main.content_type())
                || out.iter().any(|m| m.eq_ignore_ascii_case(media))
            {
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    arg.value.span,
                    format!("`{media}` is named twice"),
                )
                .label("already a media type of this body");
                continue;
            }
            out.push(media.clone());
        }
        if !has_body && !out.is_empty() {
            self.error(
                diagnostic_codes::BAD_BODY_MEDIA,
                a.span,
                "a response without a body has no media type",
            )
            .label("nothing to encode");
            return Vec::new();
        }
        if a.args.is_empty() {
            self.bad_args(a, "one media type or more");
        }
        out
    }

    /// `@lossy("#/json/pointer", "what was written instead")`: where an imported document
    /// said more than the spec does. It changes nothing; it keeps the loss in sight.
    fn check_lossy(&mut self, a: &Annotation) {
        let well_formed = matches!(
            a.args.as_slice(),
            [pointer, what]
                if pointer.name.is_none()
                    && what.name.is_none()
                    && matches!(&pointer.value.kind, ValueKind::Str(p) if p.starts_with('#'))
                    && matches!(what.value.kind, ValueKind::Str(_))
        );
        if !well_formed {
            self.bad_args(
                a,
                "a JSON pointer into the imported document and what was written instead: \
                 `@lossy(\"#/paths/~1pets/get\", \"…\")`",
            );
        }
    }

    pub(super) fn bad_args(&mut self, a: &Annotation, expected: &str) {
        self.error(
            diagnostic_codes::BAD_ANNOTATION,
            a.span,
            format!("`@{}` expects {expected}", a.name.text),
        )
        .label("wrong arguments");
    }

    /// The single positional argument of `@name(value)`.
    pub(super) fn single_arg<'a>(
        &mut self,
        a: &'a Annotation,
        expected: &str,
    ) -> Option<&'a Value> {
        match a.args.as_slice() {
            [arg] if arg.name.is_none() => Some(&arg.value),
            _ => {
                self.bad_args(a, expected);
                None
            }
        }
    }

    /// An annotation that takes no arguments (`@unique_items`): true when written so.
    pub(super) fn flag(&mut self, a: &Annotation) -> bool {
        if !a.args.is_empty() {
            self.bad_args(a, "no arguments");
        }
        true
    }

    pub(super) fn number_arg(&mut self, a: &Annotation) -> Option<f64> {
        let value = self.single_arg(a, "one number")?;
        match value.kind {
            ValueKind::Int(n) => Some(n as f64),
            ValueKind::Float(f) => Some(f),
            _ => {
                self.bad_args(a, "one number");
                None
            }
        }
    }

    pub(super) fn count_arg(&mut self, a: &Annotation) -> Option<u64> {
        let value = self.single_arg(a, "one whole number of at least 0")?;
        match value.kind {
            ValueKind::Int(n) if n >= 0 => Some(n as u64),
            _ => {
                self.bad_args(a, "one whole number of at least 0");
                None
            }
        }
    }

    pub(super) fn string_arg(&mut self, a: &Annotation) -> Option<String> {
        let value = self.single_arg(a, "one string")?;
        match &value.kind {
            ValueKind::Str(s) => Some(s.clone()),
            _ => {
                self.bad_args(a, "one string");
                None
            }
        }
    }

    /// A bare name argument, e.g. `@format_only(request)`.
    pub(super) fn word_arg(&mut self, a: &Annotation, allowed: &[&str]) -> Option<String> {
        let expected = format!("one of: {}", allowed.join(", "));
        let value = self.single_arg(a, &expected)?;
        match &value.kind {
            ValueKind::Ref(path) if path.len() == 1 && allowed.contains(&path[0].text.as_str()) => {
                Some(path[0].text.clone())
            }
            ValueKind::Str(s) if allowed.contains(&s.as_str()) => Some(s.clone()),
            _ => {
                self.bad_args(a, &expected);
                None
            }
        }
    }

    /// Named arguments `@name(key: value, …)`; unknown or positional ones are reported.
    pub(super) fn named_args<'a>(
        &mut self,
        a: &'a Annotation,
        allowed: &[&str],
    ) -> Vec<(&'a str, &'a Value)> {
        let mut out = Vec::new();
        for arg in &a.args {
            match &arg.name {
                Some(n) if allowed.contains(&n.text.as_str()) => {
                    out.push((n.text.as_str(), &arg.value))
                }
                _ => {
                    let span = arg.name.as_ref().map_or(arg.value.span, |n| n.span);
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        span,
                        format!("`@{}` takes named arguments", a.name.text),
                    )
                    .label("not one of them")
                    .help(format!("its arguments are: {}", allowed.join(", ")));
                }
            }
        }
        out
    }

    pub(super) fn provenance(&mut self, annots: &Annots) -> Provenance {
        match annots.get("source") {
            None => Provenance::Document,
            Some(a) => {
                let word = self.word_arg(a, PROVENANCE_WORDS);
                word.as_deref()
                    .and_then(provenance_named)
                    .unwrap_or_default()
            }
        }
    }

    /// Reports `@source` where it would be lost: on a member whose provenance the IR does
    /// not keep apart from its owner's.
    pub(super) fn unrecorded_source(&mut self, annots: &Annots, owner: &str) {
        if let Some(a) = annots.get("source") {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                "`@source` cannot stand on this member",
            )
            .label("its provenance would be lost")
            .help(format!(
                "mark {owner} instead, or say where the fact comes from in a doc comment"
            ));
        }
    }

    /// `@deprecated("note", use: replacement, since: "2025-04", sunset: "2026-06-30")`. The
    /// replacement is returned with its span so the caller can queue its resolution.
    pub(super) fn deprecation(
        &mut self,
        annots: &Annots,
    ) -> Option<(Deprecation, Option<(String, Span)>)> {
        let a = annots.get("deprecated")?;
        let mut dep = Deprecation::default();
        let mut target = None;
        for arg in &a.args {
            match (arg.name.as_ref().map(|n| n.text.as_str()), &arg.value.kind) {
                (None, ValueKind::Str(s)) => dep.note = Some(s.clone()),
                (Some("since"), ValueKind::Str(s)) => dep.since = Some(s.clone()),
                (Some("sunset"), ValueKind::Str(s))
                    if s.parse::<covenant_runtime::Date>().is_ok() =>
                {
                    dep.sunset = Some(s.clone());
                }
                (Some("sunset"), _) => {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        arg.value.span,
                        "`sunset` is the date the deprecated thing is removed",
                    )
                    .label("not a date")
                    .help("write sunset: \"YYYY-MM-DD\"");
                }
                (Some("use"), ValueKind::Ref(path)) if path.len() == 1 => {
                    dep.replacement = Some(path[0].text.clone());
                    target = Some((path[0].text.clone(), path[0].span));
                }
                (Some("use"), ValueKind::Str(s)) => {
                    dep.replacement = Some(s.clone());
                    target = Some((s.clone(), arg.value.span));
                }
                (Some("source"), ValueKind::Ref(path))
                    if path.len() == 1 && provenance_named(&path[0].text).is_some() =>
                {
                    dep.provenance = provenance_named(&path[0].text).unwrap_or_default();
                }
                _ => {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        arg.value.span,
                        "`@deprecated` argument not understood",
                    )
                    .label("unexpected argument")
                    .help("write @deprecated(\"why\", use: replacement, since: \"YYYY-MM\", sunset: \"YYYY-MM-DD\", source: deployed_client)");
                }
            }
        }
        Some((dep, target))
    }
}

/// The words `@source(…)` and `@deprecated(…, source: …)` take.
const PROVENANCE_WORDS: &[&str] = &["document", "deployed_client", "toolkit"];

fn provenance_named(word: &str) -> Option<Provenance> {
    [
        Provenance::Document,
        Provenance::DeployedClient,
        Provenance::Toolkit,
    ]
    .into_iter()
    .find(|p| p.word() == word)
}

fn describe(site: Site) -> &'static str {
    match site {
        Field => "a model field",
        Param => "an endpoint parameter",
        Model => "a model",
        Enum => "an enum",
        EnumValue => "an enum value",
        Endpoint => "an endpoint",
        Response => "a response",
        Body => "a request body",
        Event => "an event",
        Auth => "an auth scheme",
        Api => "an api",
        Alias => "a type declaration",
        Other => "this item",
    }
}

/// The known name nearest to a misspelt one, if any is near enough to suggest.
pub(super) fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(name, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min()
        .map(|(_, c)| c)
}
