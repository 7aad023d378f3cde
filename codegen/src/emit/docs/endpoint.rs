//! One page per endpoint: how to call it (an example request near the top, where a reader
//! looks first), what it takes, and everything it may answer, with the fields of each body
//! the endpoint itself declares written out in place.

use super::fields::{self, Rows};
use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, exchange, facts, marks, paths, text, types};
use crate::ir::{
    Endpoint, Field, ModelId, ModelOrigin, ParamLocation, Response, Type, Visibility,
    all_responses, open_success, response_provenance,
};
use maud::{Markup, html};

const ROOT: &str = "../";

pub fn page(site: &Site, ep: &Endpoint) -> String {
    let path = paths::endpoint(&ep.name);
    let mut ids = Ids::default();
    let replacement = ep.deprecated.as_ref().and_then(|d| {
        let name = d.replacement.as_ref()?;
        site.spec
            .endpoint_named(name)
            .map(|r| paths::href(ROOT, &paths::endpoint(&r.name), None))
    });
    let main = html! {
        h1 { span.kind { "Endpoint" } code { (ep.name) } }
        p.endpoint-line {
            (marks::method(ep.method))
            code.path { (ep.path) }
            (marks::provenance(ep.provenance))
            @if ep.deprecated.is_some() { (marks::tag("deprecated", "deprecated")) }
        }
        @if let Some(d) = &ep.deprecated { (marks::deprecation(d, replacement)) }
        (text::doc(ep.doc.as_deref()))
        (exchange::request(site, ep))
        (marks::not_shown(&ep.not_shown))
        (facts::list(site, ROOT, ep))
        (params(site, &mut ids, ep))
        (body(site, &mut ids, ep))
        (responses(site, &mut ids, ep))
    };
    let meta = Meta {
        path: &path,
        title: &ep.name,
        group: Group::Endpoints,
        kind: "endpoint",
        name: Some(&ep.name),
    };
    layout::page(site, &meta, main)
}

fn params(site: &Site, ids: &mut Ids, ep: &Endpoint) -> Markup {
    if ep.params.is_empty() {
        return html! {};
    }
    let locations = [
        (ParamLocation::Path, "Path parameters"),
        (ParamLocation::Query, "Query parameters"),
        (ParamLocation::Header, "Header parameters"),
    ];
    let all: Vec<_> = ep.params.iter().map(|p| &p.field).collect();
    html! {
        section data-kind="parameters" {
            h2 id=(ids.take("parameters".into())) { "Parameters" }
            @for (location, caption) in locations {
                @let here: Vec<_> = ep.params_in(location).map(|p| &p.field).collect();
                @if !here.is_empty() {
                    (fields::table(site, ROOT, ids, &Rows { caption, id: &ids::param, kind: "parameter", siblings: &all }, &here))
                }
            }
        }
    }
}

fn body(site: &Site, ids: &mut Ids, ep: &Endpoint) -> Markup {
    let Some(t) = &ep.body else {
        return html! {};
    };
    let groups: Vec<_> = ep
        .exactly_one_of
        .iter()
        .filter(|g| ep.group_in_body(g))
        .collect();
    let inline = match t {
        Type::Model(id) => {
            let m = site.spec.model(*id);
            matches!(m.origin, ModelOrigin::RequestBody(_)).then_some(m)
        }
        _ => None,
    };
    html! {
        section data-kind="request-body" {
            h2 id=(ids.take("request-body".into())) { "Request body" }
            p { (types::body(site, ROOT, t, &ep.body_media)) }
            @if !ep.body_also.is_empty() {
                p {
                    "The same value may also be sent as "
                    @for (i, media) in ep.body_also.iter().enumerate() {
                        @if i > 0 { ", " }
                        code.media { (media) }
                    }
                    "."
                }
            }
            @for g in groups {
                p { "Send exactly one of " (facts::names(g)) "." }
            }
            @if let Some(m) = inline {
                (text::doc(m.doc.as_deref()))
                @let all: Vec<_> = m.fields.iter().collect();
                (fields::table(site, ROOT, ids, &Rows { caption: "Fields of the request body", id: &ids::field, kind: "field", siblings: &all }, &all))
            }
        }
    }
}

fn responses(site: &Site, ids: &mut Ids, ep: &Endpoint) -> Markup {
    let open = open_success(ep);
    html! {
        section data-kind="responses" {
            h2 id=(ids.take("responses".into())) { "Responses" }
            p {
                "Successes first, then this endpoint's errors, then the errors every endpoint of the API "
                code { (site.spec.api(ep.api).name) } " may give."
            }
            @for r in all_responses(site.spec, ep) {
                (response(site, ids, ep, r, open.is_some() && open == r.status.exact()))
            }
        }
    }
}

fn response(site: &Site, ids: &mut Ids, ep: &Endpoint, r: &Response, open: bool) -> Markup {
    let from_api = !ep
        .responses
        .iter()
        .chain(&ep.errors)
        .any(|o| std::ptr::eq(o, r));
    let id = ids.take(ids::status(r.status));
    let status = r.status;
    let headers: Vec<_> = r.headers.iter().collect();
    let caption = format!("Headers of the {status} response");
    let header_id = move |name: &str| ids::header(status, name);
    // The API's errors are the same on every page: their bodies' fields stay on their
    // models' pages.
    let body_fields: Vec<&Field> = match (&r.body, from_api) {
        (Some(body), false) => body_model(body)
            .map(|id| site.spec.model(id))
            .map(|m| {
                m.fields
                    .iter()
                    .filter(|f| f.visibility != Visibility::RequestOnly)
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let fields_caption = format!("Fields of the {status} response body");
    let field_id = move |name: &str| ids::response_field(status, name);
    html! {
        section.response id=(id) data-kind="response" data-name=(r.status) {
            h3 {
                code { (r.status) } " " (marks::reason(r.status))
                (marks::provenance(response_provenance(ep, r)))
                @if from_api { (marks::tag("api-error", "an error of the API")) }
            }
            p {
                @match &r.body {
                    Some(t) => {
                        "Body: " (types::body(site, ROOT, t, &r.media))
                        @if r.nullable { " or " code { "null" } }
                    },
                    None => "No body.",
                }
            }
            @if open {
                p { "The source does not show this body, so clients read any other 2xx status as this one." }
            }
            (text::doc(r.doc.as_deref()))
            @if !body_fields.is_empty() {
                (fields::table(site, ROOT, ids, &Rows { caption: &fields_caption, id: &field_id, kind: "field", siblings: &body_fields }, &body_fields))
            }
            @if !headers.is_empty() {
                (fields::table(site, ROOT, ids, &Rows { caption: &caption, id: &header_id, kind: "header", siblings: &headers }, &headers))
            }
            (exchange::response(site, r))
        }
    }
}

/// The model a body holds, itself or as the items of a list.
fn body_model(body: &Type) -> Option<ModelId> {
    match body {
        Type::Model(id) => Some(*id),
        Type::List(inner, _) => body_model(inner),
        _ => None,
    }
}
