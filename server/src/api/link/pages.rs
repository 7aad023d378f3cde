//! The widget's pages. They need no scripts: links and forms do everything. Each page has
//! one heading, labels on every field, errors announced as alerts and tied to their field,
//! and a visible focus, so the widget works by keyboard and screen reader alike.

use super::sign_in::{
    FormField, MIN_PASSWORD_CHARS, Refusal, SignIn, UNKNOWN_EMAIL_DOMAIN, WidgetProvider,
};
use maud::{Markup, PreEscaped, html};

/// The widget's one stylesheet, inline so a page is whole by itself; the
/// `Content-Security-Policy` names its hash.
pub const STYLE: &str = "\
*{box-sizing:border-box}\
body{margin:0;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,sans-serif}\
main{max-width:30rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;\
box-shadow:0 1px 3px rgba(0,0,0,.15)}\
h1{font-size:1.4rem;margin:0 0 .5rem}\
p{margin:.5rem 0}\
.team{color:#4b5563;font-size:.9rem;margin:0 0 1rem}\
.simulated{color:#4b5563;font-size:.9rem;border-left:3px solid #9ca3af;padding-left:.75rem}\
ul.providers{list-style:none;margin:1rem 0;padding:0}\
ul.providers li{margin:.5rem 0}\
ul.providers a{display:block;padding:.75rem 1rem;border:1px solid #d1d5db;border-radius:.5rem;\
color:#111827;text-decoration:none}\
ul.providers a:hover{border-color:#1d4ed8;background:#eff6ff}\
ul.providers .name{display:block;font-weight:600}\
ul.providers .about{display:block;color:#4b5563;font-size:.875rem}\
form{margin:1rem 0}\
label{display:block;font-weight:600;margin:.75rem 0 .25rem}\
input{width:100%;padding:.6rem .75rem;font:inherit;border:1px solid #6b7280;border-radius:.375rem}\
input[aria-invalid=true]{border:2px solid #b91c1c}\
.search{display:flex;gap:.5rem;align-items:flex-end}\
.search div{flex:1}\
button{font:inherit;font-weight:600;padding:.6rem 1.1rem;border-radius:.375rem;cursor:pointer;\
border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;margin-top:1rem}\
button.secondary{background:#fff;color:#1d4ed8}\
.actions{display:flex;gap:.75rem;flex-wrap:wrap}\
.alert{border:1px solid #b91c1c;background:#fef2f2;color:#7f1d1d;padding:.75rem 1rem;\
border-radius:.375rem}\
.done{border:1px solid #15803d;background:#f0fdf4;color:#14532d;padding:.75rem 1rem;\
border-radius:.375rem}\
a{color:#1d4ed8}\
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #b45309;\
outline-offset:2px}\
.close{border-top:1px solid #e5e7eb;margin-top:1.5rem}";

/// What every page of one token's widget links and posts with.
pub struct Widget<'a> {
    /// The service's public address, which forms post to.
    pub base: &'a str,
    pub token: &'a str,
    pub team_name: &'a str,
}

impl Widget<'_> {
    fn providers_url(&self) -> String {
        format!("{}/link?token={}", self.base, self.token)
    }

    pub fn provider_url(&self, slug: &str) -> String {
        format!("{}/link/providers/{slug}?token={}", self.base, self.token)
    }

    /// The Close button, which ends the widget wherever the user is.
    fn close_button(&self, provider: Option<&str>) -> Markup {
        html! {
            form.close method="post" action={ (self.base) "/link/close" } {
                input type="hidden" name="token" value=(self.token);
                @if let Some(slug) = provider {
                    input type="hidden" name="provider" value=(slug);
                }
                button.secondary type="submit" { "Close" }
            }
        }
    }

    fn team_line(&self) -> Markup {
        html! { p.team { "Linking a provider for " strong { (self.team_name) } } }
    }

    /// The providers the token offers, with a search that is a plain form.
    pub fn providers(&self, providers: &[WidgetProvider], search: &str) -> String {
        page(
            "Choose a provider",
            html! {
                h1 { "Choose a provider" }
                (self.team_line())
                form.search method="get" action={ (self.base) "/link" } role="search" {
                    input type="hidden" name="token" value=(self.token);
                    div {
                        label for="q" { "Search providers" }
                        input #q type="search" name="q" value=(search) autocomplete="off";
                    }
                    button.secondary type="submit" { "Search" }
                }
                @if providers.is_empty() {
                    p role="status" { "No provider matches “" (search) "”." }
                } @else {
                    ul.providers aria-label="Providers" {
                        @for provider in providers {
                            @let (name, about) = (format!("name-{}", provider.slug), format!("about-{}", provider.slug));
                            li {
                                a href=(self.provider_url(&provider.slug))
                                    aria-labelledby=(name) aria-describedby=(about) {
                                    span.name id=(name) { (provider.name) }
                                    span.about id=(about) { (provider.description) }
                                }
                            }
                        }
                    }
                }
                (self.close_button(None))
            },
        )
    }

    /// A provider's simulated sign-in, with the refusal of a previous try and what was
    /// typed then (never the password).
    pub fn sign_in(
        &self,
        provider: &WidgetProvider,
        refusal: Option<&Refusal>,
        typed: &Typed,
        listed: bool,
    ) -> String {
        let title = match provider.sign_in {
            SignIn::OAuth => format!("Allow access to {}", provider.name),
            SignIn::Elsewhere => format!("{} links in the app", provider.name),
            SignIn::Password | SignIn::Email => format!("Sign in to {}", provider.name),
        };
        let invalid = |field| refusal.is_some_and(|r| r.field == Some(field));
        let field = |name, kind, autocomplete, value, which| Field {
            name,
            kind,
            autocomplete,
            value,
            invalid: invalid(which),
        };
        let action = format!("{}/link/providers/{}", self.base, provider.slug);
        let tab_title = match refusal {
            Some(_) => format!("Error: {title}"),
            None => title.clone(),
        };
        page(
            &tab_title,
            html! {
                h1 { (title) }
                (self.team_line())
                @if let Some(refusal) = refusal {
                    p.alert #error role="alert" { (refusal.message) }
                }
                @match provider.sign_in {
                    SignIn::OAuth => {
                        p.simulated { "A simulated " (provider.name) " consent screen." }
                        p { (self.team_name) " asks to read your " (provider.name) " data:" }
                        ul { @for resource in &provider.resources { li { (readable(resource)) } } }
                        form method="post" action=(action) {
                            input type="hidden" name="token" value=(self.token);
                            div.actions {
                                button type="submit" name="consent" value="allow" { "Allow" }
                                button.secondary type="submit" name="consent" value="deny" { "Deny" }
                            }
                        }
                    }
                    SignIn::Password => {
                        p.simulated #hint {
                            "A simulated sign-in: any username signs in with a password of "
                            (MIN_PASSWORD_CHARS) " characters or more."
                        }
                        form method="post" action=(action) {
                            input type="hidden" name="token" value=(self.token);
                            label for="username" { "Username" }
                            (field("username", "text", "username", &typed.username,
                                FormField::Username).input())
                            label for="password" { "Password" }
                            (field("password", "password", "current-password", "",
                                FormField::Password).input())
                            button type="submit" { "Sign in" }
                        }
                    }
                    SignIn::Email => {
                        p.simulated #hint {
                            "A simulated sign-in: any e-mail address signs in, except one at a "
                            "domain ending in " code { (UNKNOWN_EMAIL_DOMAIN) } ", which "
                            (provider.name) " does not know."
                        }
                        form method="post" action=(action) {
                            input type="hidden" name="token" value=(self.token);
                            label for="email" { "E-mail address" }
                            (field("email", "email", "email", &typed.email,
                                FormField::Email).input())
                            button type="submit" { "Continue" }
                        }
                    }
                    SignIn::Elsewhere => {
                        p {
                            (provider.name) " connects through the app you are using, with its "
                            "mobile SDK, not on the web."
                        }
                    }
                }
                @if listed {
                    p { a href=(self.providers_url()) { "Choose another provider" } }
                }
                (self.close_button(Some(&provider.slug)))
            },
        )
    }

    /// A denied OAuth consent when there is no `redirect_url` to report it to.
    pub fn denied(&self, provider: &WidgetProvider, refusal: &Refusal) -> String {
        page(
            &format!("{} was not linked", provider.name),
            html! {
                h1 { (provider.name) " was not linked" }
                p.alert role="alert" { (refusal.message) }
                p { a href=(self.provider_url(&provider.slug)) { "Try again" } }
                (self.close_button(Some(&provider.slug)))
            },
        )
    }

    /// A token that can no longer link; Close still leaves, as the token asks.
    pub fn gone(&self) -> String {
        page(
            "This link has expired",
            html! {
                h1 { "This link has expired" }
                p { "It was used already, or it is more than ten minutes old. Ask the app you came from for a new link." }
                (self.close_button(None))
            },
        )
    }

    /// A provider the token does not offer.
    pub fn not_offered(&self, listed: bool) -> String {
        page(
            "Provider not offered",
            html! {
                h1 { "Provider not offered" }
                p { "This link does not offer that provider." }
                @if listed {
                    p { a href=(self.providers_url()) { "Choose a provider" } }
                }
                (self.close_button(None))
            },
        )
    }
}

/// What the user typed into a refused form, shown again.
#[derive(Default)]
pub struct Typed {
    pub username: String,
    pub email: String,
}

/// The provider is linked and there is no `redirect_url` to go to.
pub fn linked(provider: &WidgetProvider) -> String {
    page(
        &format!("{} is linked", provider.name),
        html! {
            h1 { (provider.name) " is linked" }
            p.done role="status" { "Your " (provider.name) " data will now be shared. You can close this window." }
        },
    )
}

/// The Close button was pressed and there is no redirect to go to.
pub fn closed() -> String {
    page(
        "Linking cancelled",
        html! {
            h1 { "Linking cancelled" }
            p role="status" { "No provider was linked. You can close this window." }
        },
    )
}

/// A token never issued.
pub fn unknown() -> String {
    page(
        "This link is not valid",
        html! {
            h1 { "This link is not valid" }
            p { "Ask the app you came from for a new link." }
        },
    )
}

/// A form field, described by the sign-in's rule, and by the error when a refusal is about
/// it.
struct Field<'a> {
    name: &'a str,
    kind: &'a str,
    autocomplete: &'a str,
    value: &'a str,
    invalid: bool,
}

impl Field<'_> {
    /// The input: a refused field takes the focus, so the user mends it at once; a fresh
    /// form leaves the focus to the page, whose heading and rule come first.
    fn input(&self) -> Markup {
        let described_by = if self.invalid { "hint error" } else { "hint" };
        html! {
            input id=(self.name) name=(self.name) type=(self.kind)
                autocomplete=(self.autocomplete) value=(self.value)
                required autofocus[self.invalid]
                aria-invalid=[self.invalid.then_some("true")]
                aria-describedby=(described_by);
        }
    }
}

/// `blood_oxygen` as `blood oxygen`.
fn readable(resource: &str) -> String {
    resource.replace('_', " ")
}

fn page(title: &str, content: Markup) -> String {
    let head = html! {
        meta name="referrer" content="no-referrer";
        style { (PreEscaped(STYLE)) }
    };
    let body = html! { body { main { (content) } } };
    covenant_runtime::html::page(&format!("{title} · Link a provider"), head, body).into_string()
}
