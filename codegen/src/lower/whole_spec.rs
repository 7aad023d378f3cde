//! Checks that need the whole lowered spec: models with no finite value, names that
//! generated code would spell alike, and event types two events could both produce.

use super::Lowerer;
use crate::diagnostic_codes;
use crate::ir::*;
use heck::ToUpperCamelCase;
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(super) fn check_whole_spec(&mut self, spec: &Spec) {
        self.check_finite_models(spec);
        self.check_spelled_alike(spec);
        self.check_overlapping_events(spec);
        self.check_credential_headers(spec);
        self.check_file_placement(spec);
        self.check_webhook_registrations(spec);
    }

    /// A header or query parameter where the endpoint's credential travels: the two values
    /// would share one place, so neither arrives intact.
    fn check_credential_headers(&mut self, spec: &Spec) {
        for (i, ep) in spec.endpoints.iter().enumerate() {
            for scheme in ep
                .auth
                .every_scheme()
                .map(|id| &spec.auth_schemes[id.index()])
            {
                let clash = ep
                    .params
                    .iter()
                    .find(|p| match (p.location, &scheme.carrier) {
                        (ParamLocation::Query, Carrier::Query(name)) => p.field.name == *name,
                        (ParamLocation::Header, carrier) => carrier
                            .header()
                            .is_some_and(|h| p.field.name.eq_ignore_ascii_case(h)),
                        _ => false,
                    });
                if let Some(p) = clash {
                    let place = match p.location {
                        ParamLocation::Query => "query parameter",
                        _ => "header",
                    };
                    self.error(
                        diagnostic_codes::DUPLICATE_MEMBER,
                        spec.spans.endpoints[i],
                        format!(
                            "{} parameter `{}` of `{}` is where the credential of auth `{}` travels",
                            p.location.as_str(),
                            p.field.name, ep.name, scheme.name
                        ),
                    )
                    .label(format!("this endpoint sends both in one {place}"))
                    .help("drop the parameter: the credential travels there already");
                }
            }
        }
    }

    /// `model A { a: A }`: every value would contain another, forever.
    fn check_finite_models(&mut self, spec: &Spec) {
        let mut infinite: Vec<ModelId> = spec
            .self_containing_models(Containment::Required)
            .into_iter()
            .collect();
        infinite.sort();
        for id in infinite {
            let name = &spec.model(id).name;
            self.error(
                diagnostic_codes::INFINITE_MODEL,
                spec.spans.models[id.index()],
                format!("model `{name}` contains itself through required fields"),
            )
            .label("no value of it is finite")
            .help("make a field on the cycle optional (`?`), nullable (`| null`) or a list");
        }
    }

    /// `petRecord` and `PetRecord`, `getPet` and `get_pet`: distinct in the spec, one name in
    /// generated code.
    fn check_spelled_alike(&mut self, spec: &Spec) {
        let types = spec
            .models
            .iter()
            .enumerate()
            .filter(|(_, m)| m.origin == ModelOrigin::Declared)
            .map(|(i, m)| (m.name.to_upper_camel_case(), &m.name, spec.spans.models[i]))
            .chain(
                spec.enums
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.name.to_upper_camel_case(), &e.name, spec.spans.enums[i])),
            );
        self.report_alike(types, "type");
        let endpoints = spec
            .endpoints
            .iter()
            .enumerate()
            .map(|(i, e)| (super::snake(&e.name), &e.name, spec.spans.endpoints[i]));
        self.report_alike(endpoints, "endpoint");
    }

    fn report_alike<'s>(
        &mut self,
        names: impl Iterator<Item = (String, &'s String, crate::source::Span)>,
        kind: &str,
    ) {
        let mut first: HashMap<String, (&String, crate::source::Span)> = HashMap::new();
        for (spelled, name, span) in names {
            match first.get(&spelled) {
                Some((other, other_span)) if *other != name => {
                    self.error(
                        diagnostic_codes::DUPLICATE,
                        span,
                        format!(
                            "{kind} `{name}` and `{other}` are both `{spelled}` in generated code"
                        ),
                    )
                    .label("spelled like another")
                    .note(*other_span, format!("`{other}` is declared here"))
                    .help(format!("rename one {kind}"));
                }
                Some(_) => {}
                None => {
                    first.insert(spelled, (name, span));
                }
            }
        }
    }

    /// `issues.opened` and `issues.{action}` with `opened` among the actions: a delivery of
    /// that type would belong to two events.
    fn check_overlapping_events(&mut self, spec: &Spec) {
        for (j, later) in spec.events.iter().enumerate() {
            let Some((i, earlier, example)) = spec.events[..j]
                .iter()
                .enumerate()
                .find_map(|(i, e)| overlap(spec, e, later).map(|example| (i, e, example)))
            else {
                continue;
            };
            self.error(
                diagnostic_codes::OVERLAPPING_EVENTS,
                spec.spans.events[j],
                format!(
                    "event `{}` (`{}`) overlaps event `{}` (`{}`)",
                    later.name, later.pattern, earlier.name, earlier.pattern
                ),
            )
            .label(format!("an event of type `{example}` would be both"))
            .note(spec.spans.events[i], "the other event")
            .help("remove the shared value from a placeholder's enum, or drop one event");
        }
    }
}

/// An event type both events can produce from their declared values, if any. (An open
/// enum's unknown values are kept by receivers, but name no event: they do not overlap.)
fn overlap(spec: &Spec, a: &Event, b: &Event) -> Option<String> {
    let segments_a: Vec<&str> = a.pattern.split('.').collect();
    let segments_b: Vec<&str> = b.pattern.split('.').collect();
    if segments_a.len() != segments_b.len() {
        return None;
    }
    let mut example = Vec::new();
    for (x, y) in segments_a.iter().zip(&segments_b) {
        example.push(common_value(spec, a, x, b, y)?);
    }
    Some(example.join("."))
}

/// A value two pattern segments can both take.
fn common_value(spec: &Spec, a: &Event, x: &str, b: &Event, y: &str) -> Option<String> {
    match (segment_values(spec, a, x), segment_values(spec, b, y)) {
        (Segment::Literal(l), Segment::Literal(m)) => (l == m).then(|| l.to_string()),
        (Segment::Literal(l), Segment::Values(values))
        | (Segment::Values(values), Segment::Literal(l)) => {
            values.contains(&l).then(|| l.to_string())
        }
        (Segment::Values(v), Segment::Values(w)) => v
            .iter()
            .find(|value| w.contains(value))
            .map(|value| value.to_string()),
    }
}

enum Segment<'s> {
    Literal(&'s str),
    /// The values the placeholder's enum declares.
    Values(Vec<&'s str>),
}

fn segment_values<'s>(spec: &'s Spec, event: &'s Event, segment: &'s str) -> Segment<'s> {
    let placeholder = segment
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .and_then(|name| event.placeholders.iter().find(|(n, _)| n == name));
    match placeholder {
        Some((_, id)) => Segment::Values(
            spec.enum_(*id)
                .values
                .iter()
                .map(|v| v.name.as_str())
                .collect(),
        ),
        None => Segment::Literal(segment),
    }
}
