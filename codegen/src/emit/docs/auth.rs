//! The auth schemes, one section each: where the credential travels, what it identifies,
//! its scopes and lifetime, and which endpoints accept it.

use super::facts::{names, scheme_link};
use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text};
use crate::ir::{AuthId, AuthScheme, Carrier, carrier_syntax};
use maud::{Markup, html};

const ROOT: &str = "";

pub fn page(site: &Site) -> String {
    let mut ids = Ids::default();
    let main = html! {
        h1 { "Authentication" }
        p { "How a request proves who sends it. An endpoint names the schemes it accepts; public endpoints need none." }
        @for (i, a) in site.spec.auth_schemes.iter().enumerate() {
            (scheme(site, &mut ids, AuthId(i as u32), a))
        }
    };
    let meta = Meta {
        path: paths::AUTH,
        title: "Authentication",
        group: Group::Auth,
        kind: "auth",
        name: None,
    };
    layout::page(site, &meta, main)
}

fn scheme(site: &Site, ids: &mut Ids, id: AuthId, a: &AuthScheme) -> Markup {
    let replacement = a.deprecated.as_ref().and_then(|d| {
        let name = d.replacement.as_ref()?;
        site.spec
            .auth_schemes
            .iter()
            .any(|s| &s.name == name)
            .then(|| format!("#{}", ids::scheme(name)))
    });
    let users: Vec<_> = site
        .spec
        .endpoints
        .iter()
        .filter(|ep| ep.auth.every_scheme().any(|used| used == id))
        .collect();
    html! {
        section.scheme id=(ids.take(ids::scheme(&a.name))) data-kind="auth" data-name=(a.name) {
            h2 {
                code { (a.name) }
                (marks::provenance(a.provenance))
                @if a.deprecated.is_some() { (marks::tag("deprecated", "deprecated")) }
            }
            @if let Some(d) = &a.deprecated { (marks::deprecation(d, replacement)) }
            (text::doc(a.doc.as_deref()))
            (marks::not_shown(&a.not_shown))
            dl.facts {
                dt { "Carried in" }
                dd { (carrier(a)) }
                dt { "Identifies" }
                dd { code { (a.principal) } }
                @if let Some(primary) = a.alias_of {
                    dt { "Same credentials as" }
                    dd { (scheme_link(site, ROOT, primary)) ", sent in another place (kept for deployed clients)." }
                }
                @if !a.scopes.is_empty() {
                    dt { "Scopes" }
                    dd { (names(&a.scopes)) }
                }
                @if let Some(l) = &a.lifetime {
                    dt { "Lifetime" }
                    dd { (l) (marks::provenance(a.lifetime_provenance)) }
                }
                @if a.single_use {
                    dt { "Single use" }
                    dd { "A credential is good for one request only." (marks::provenance(a.single_use_provenance)) }
                }
                @if let Some(o) = &a.oauth2 {
                    @if let Some(u) = &o.authorization_url { dt { "Authorization URL" } dd { code { (u) } } }
                    @if let Some(u) = &o.token_url { dt { "Token URL" } dd { code { (u) } } }
                    @if let Some(u) = &o.refresh_url { dt { "Refresh URL" } dd { code { (u) } } }
                    dt { "OAuth 2.0 flows" }
                    dd { (flow(o)) }
                }
            }
            h3 { "Endpoints that accept it" }
            @if users.is_empty() {
                p { "None." }
            } @else {
                ul.used-by {
                    @for ep in users {
                        li {
                            a href=(paths::href(ROOT, &paths::endpoint(&ep.name), None)) {
                                (marks::method(ep.method)) " " code { (ep.name) }
                            }
                            @let scopes = ep.auth.scopes_of(id);
                            @if !scopes.is_empty() { ", with the scopes " (names(scopes)) }
                            @if ep.auth.optional.contains(&id) { " (may be sent as well)" }
                            @if ep.auth.all_of.contains(&id) { " (sent together with another credential)" }
                        }
                    }
                }
            }
        }
    }
}

fn carrier(a: &AuthScheme) -> Markup {
    html! {
        (a.carrier.describe())
        @if a.oauth2.is_some() { ": the OAuth 2.0 access token" }
        " (" code { (carrier_syntax(&a.carrier)) } ")"
        @if matches!(a.carrier, Carrier::Basic) { ". The credential is " code { "user:password" } ", base64-encoded." }
    }
}

fn flow(o: &crate::ir::OAuthFlows) -> String {
    let flows: Vec<&str> = o.flows().into_iter().map(|f| f.describe()).collect();
    if flows.is_empty() {
        return "none stated".to_string();
    }
    flows.join(", ")
}
