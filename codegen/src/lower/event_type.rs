//! Where an event says what it is: an envelope field (`@event_type`, or by default a field
//! named `event_type` or `type`), or a header of the delivery (`@event_type_header("…")` on
//! the envelope), as GitHub's `X-GitHub-Event` does.

use super::{Decls, Lowerer};
use crate::diagnostic_codes;
use crate::ir::*;

/// Field names that carry the event type when no field is marked.
const DEFAULT_FIELDS: &[&str] = &["event_type", "type"];

impl Lowerer<'_> {
    pub(super) fn lower_event_type(&mut self, decls: &Decls) -> Option<EventTypeCarrier> {
        self.refuse_marks_outside_the_envelope(decls);
        let envelope = decls.models.get(decls.envelope?.index())?;
        let header = envelope.attrs.and_then(|a| {
            a.annotations
                .iter()
                .find(|a| a.name.text == "event_type_header")
        });
        let fields = envelope.decl.members.iter().filter_map(|m| match &m.node {
            crate::ast::ModelMember::Field(f) => Some((m, f)),
            _ => None,
        });
        let marked: Vec<_> = fields
            .clone()
            .filter(|(m, _)| {
                m.attrs
                    .annotations
                    .iter()
                    .any(|a| a.name.text == "event_type")
            })
            .collect();
        if let Some(header) = header {
            if let Some((m, _)) = marked.first() {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    m.span,
                    "the event type travels in a header, so no field carries it",
                )
                .label("`@event_type` here")
                .note(header.span, "`@event_type_header` on the envelope");
            }
            return self.string_arg(header).map(EventTypeCarrier::Header);
        }
        if let [(m, _), (second, _), ..] = marked.as_slice() {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                second.span,
                "one envelope field carries the event type",
            )
            .label("second `@event_type`")
            .note(m.span, "the first");
        }
        let chosen = marked
            .first()
            .map(|(_, f)| f.name.text.clone())
            .or_else(|| {
                fields
                    .map(|(_, f)| f.name.text.clone())
                    .find(|name| DEFAULT_FIELDS.contains(&name.as_str()))
            });
        if chosen.is_none() && !decls.events.is_empty() {
            self.error(
                diagnostic_codes::NO_ENVELOPE,
                envelope.decl.name.span,
                "no envelope field carries the event type",
            )
            .label("which field names the event?")
            .help("mark the field with `@event_type`, name it `event_type` or `type`, or put `@event_type_header(\"…\")` on the envelope");
        }
        chosen.map(EventTypeCarrier::Field)
    }

    /// `@signed(standard_webhooks | stripe | github | slack)` on the envelope: how deliveries
    /// are signed.
    pub(super) fn lower_event_signing(&mut self, decls: &Decls) -> Option<EventSigning> {
        let envelope = decls.models.get(decls.envelope?.index())?;
        let signed = envelope
            .attrs?
            .annotations
            .iter()
            .find(|a| a.name.text == "signed")?;
        let names = EventSigning::ALL.map(EventSigning::name);
        EventSigning::from_name(&self.word_arg(signed, &names)?)
    }

    fn refuse_marks_outside_the_envelope(&mut self, decls: &Decls) {
        for (i, model) in decls.models.iter().enumerate() {
            if decls.envelope.map(ModelId::index) == Some(i) {
                continue;
            }
            let marks = model.decl.members.iter().flat_map(|m| &m.attrs.annotations);
            let header = model.attrs.into_iter().flat_map(|a| &a.annotations);
            let misplaced: Vec<_> = marks
                .chain(header)
                .filter(|a| {
                    ["event_type", "event_type_header", "signed"].contains(&a.name.text.as_str())
                })
                .map(|a| a.span)
                .collect();
            for span in misplaced {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    "only the event envelope says where the event type travels and how deliveries are signed",
                )
                .label("not the envelope")
                .help("move it to the `envelope`");
            }
        }
    }
}
