//! Small labelled marks: where a fact comes from, deprecations, what the source leaves
//! open, methods and presence. Each says what it means in words, never by colour alone.

use super::text;
use crate::ir::{Deprecation, Method, Presence, Provenance, StatusPattern};
use maud::{Markup, html};

/// The badge of a fact that is not the document's; nothing for the document's own.
pub fn provenance(p: Provenance) -> Markup {
    match provenance_label(p) {
        Some(label) => html! {
            span.badge.source data-source=(p.word()) { (label) }
        },
        None => html! {},
    }
}

pub fn provenance_label(p: Provenance) -> Option<&'static str> {
    match p {
        Provenance::Document => None,
        Provenance::DeployedClient => Some("from the deployed client"),
        Provenance::Toolkit => Some("the toolkit's choice"),
    }
}

/// What each badge means, for the legend.
pub fn provenance_meaning(p: Provenance) -> &'static str {
    match p {
        Provenance::Document => "The interface document states it. Such facts carry no badge.",
        Provenance::DeployedClient => {
            "The document leaves it open or does not mention it; the deployed client \
             library supplies it."
        }
        Provenance::Toolkit => {
            "Neither the document nor the deployed client says; the toolkit chose it."
        }
    }
}

pub fn method(m: Method) -> Markup {
    html! {
        span.method data-method=(m.as_str()) { (m.as_str()) }
    }
}

pub fn presence_word(p: Presence) -> &'static str {
    match p {
        Presence::Required => "required",
        Presence::Optional => "optional",
        Presence::Nullable => "nullable",
        Presence::OptionalNullable => "optional-nullable",
    }
}

/// A field's presence in words, one of four distinct texts.
pub fn presence(p: Presence) -> Markup {
    let (label, meaning) = presence_text(p);
    html! {
        span.presence data-presence=(presence_word(p)) {
            strong { (label) }
            @if !meaning.is_empty() { br; span.meaning { (meaning) } }
        }
    }
}

pub fn presence_text(p: Presence) -> (&'static str, &'static str) {
    match p {
        Presence::Required => ("Required", "always present, never null"),
        Presence::Optional => ("Optional", "may be absent; never null"),
        Presence::Nullable => ("Nullable", "always present; may be null"),
        Presence::OptionalNullable => ("Optional and nullable", "may be absent, null or a value"),
    }
}

/// A deprecation: when, until when, why, and what to use instead (linked when `replacement`
/// resolves on the site).
pub fn deprecation(d: &Deprecation, replacement: Option<String>) -> Markup {
    html! {
        div.callout.deprecated role="note" {
            p {
                strong.label { "Deprecated" }
                @if let Some(since) = &d.since { " since " (since) }
                @if let Some(sunset) = &d.sunset { "; removed on " time datetime=(sunset) { (sunset) } }
                "."
                (provenance(d.provenance))
            }
            @if let Some(note) = &d.note { p { (text::inline(note)) } }
            @if let Some(r) = &d.replacement {
                p {
                    "Use "
                    @match replacement {
                        Some(href) => a href=(href) { code { (r) } },
                        None => code { (r) },
                    }
                    " instead."
                }
            }
        }
    }
}

/// What the source leaves open, as a labelled callout.
pub fn not_shown(items: &[String]) -> Markup {
    if items.is_empty() {
        return html! {};
    }
    html! {
        div.callout.not-shown role="note" data-kind="not-shown" {
            p { strong.label { "Not shown in the source" } }
            ul {
                @for item in items { li { (text::inline(item)) } }
            }
        }
    }
}

/// A short labelled tag, e.g. "request only" or "secret".
pub fn tag(kind: &str, label: &str) -> Markup {
    html! { span.tag data-tag=(kind) { (label) } }
}

/// What a declared status is called: its reason phrase, where it is a well-known one, or
/// what a class or `default` covers.
pub fn reason(status: StatusPattern) -> &'static str {
    match status {
        StatusPattern::Exact(code) => reason_phrase(code),
        StatusPattern::Class(4) => "Any client error",
        StatusPattern::Class(5) => "Any server error",
        StatusPattern::Class(_) => "Any status of the class",
        StatusPattern::Default => "Any other status",
    }
}

/// The reason phrase of a status, where it is a well-known one.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        206 => "Partial Content",
        207 => "Multi-Status",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        423 => "Locked",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// The marks under a page's title: where the thing comes from, and whether it is
/// deprecated; nothing when it is the document's and current.
pub fn standing(p: Provenance, deprecated: bool) -> Markup {
    if p.is_document() && !deprecated {
        return html! {};
    }
    html! {
        p.marks {
            (provenance(p))
            @if deprecated { (tag("deprecated", "deprecated")) }
        }
    }
}
