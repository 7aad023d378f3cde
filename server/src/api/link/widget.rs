//! The hosted link widget's endpoints: the page `link_web_url` opens, a provider's sign-in,
//! the sign-in itself, and the Close button. Outcomes that leave the widget go to the
//! token's `redirect_url` with `state`, `provider`, `error_type` and `error`.

use super::pages::{self, Typed, Widget};
use super::session::Session;
use super::sign_in::{self, Linked, RefusalKind, SignIn};
use crate::ReferenceServer;
use crate::infra::failure::Failure;
use health_api::models::*;
use health_api::operations::*;

pub use super::pages::STYLE;

/// The error a Close button reports.
const USER_CANCELLED: &str = "user_cancelled";

fn widget<'a>(s: &'a ReferenceServer, session: &'a Session, token: &'a str) -> Widget<'a> {
    Widget {
        base: &s.public_url,
        token,
        team_name: &session.team_name,
    }
}

/// Why a token cannot open a page: never issued (404), or no longer good (410).
enum Closed {
    Unknown(String),
    Gone(String),
}

/// The live session of `token`, or the page saying why there is none.
async fn live_session(
    s: &ReferenceServer,
    token: &str,
) -> Result<Result<Session, Closed>, Failure> {
    Ok(match Session::find(s, token).await? {
        None => Err(Closed::Unknown(pages::unknown())),
        Some(session) if !session.live => Err(Closed::Gone(widget(s, &session, token).gone())),
        Some(session) => Ok(session),
    })
}

/// The first page: the providers offered, or straight to the one the token names.
pub async fn open(
    s: &ReferenceServer,
    input: OpenLinkWidgetInput,
) -> Result<OpenLinkWidgetResponse, Failure> {
    let session = match live_session(s, &input.token).await? {
        Ok(session) => session,
        Err(Closed::Unknown(page)) => return Ok(OpenLinkWidgetResponse::NotFound(page)),
        Err(Closed::Gone(page)) => return Ok(OpenLinkWidgetResponse::Gone(page)),
    };
    let widget = widget(s, &session, &input.token);
    if let Some(slug) = &session.provider {
        let location = widget.provider_url(slug);
        return Ok(OpenLinkWidgetResponse::SeeOther {
            headers: OpenLinkWidgetSeeOtherHeaders { location },
        });
    }
    let search = input.q.as_deref().unwrap_or_default();
    let providers = sign_in::offered(s, &session, search).await?;
    Ok(OpenLinkWidgetResponse::Ok(
        widget.providers(&providers, search),
    ))
}

/// A provider's sign-in page.
pub async fn provider(
    s: &ReferenceServer,
    input: OpenLinkProviderInput,
) -> Result<OpenLinkProviderResponse, Failure> {
    let session = match live_session(s, &input.token).await? {
        Ok(session) => session,
        Err(Closed::Unknown(page)) => return Ok(OpenLinkProviderResponse::NotFound(page)),
        Err(Closed::Gone(page)) => return Ok(OpenLinkProviderResponse::Gone(page)),
    };
    let widget = widget(s, &session, &input.token);
    let listed = session.provider.is_none();
    Ok(
        match sign_in::offered_one(s, &session, input.provider.as_str()).await? {
            Some(provider) => OpenLinkProviderResponse::Ok(widget.sign_in(
                &provider,
                None,
                &Typed::default(),
                listed,
            )),
            None => OpenLinkProviderResponse::NotFound(widget.not_offered(listed)),
        },
    )
}

/// A sign-in: judged by the simulated provider, then linked, refused on the page, or
/// reported to `redirect_url`.
pub async fn submit(
    s: &ReferenceServer,
    input: SignInLinkProviderInput,
) -> Result<SignInLinkProviderResponse, Failure> {
    use SignInLinkProviderResponse as Answer;
    let form = &input.body;
    let session = match live_session(s, &form.token).await? {
        Ok(session) => session,
        Err(Closed::Unknown(page)) => return Ok(Answer::NotFound(page)),
        Err(Closed::Gone(page)) => return Ok(Answer::Gone(page)),
    };
    let widget = widget(s, &session, &form.token);
    let listed = session.provider.is_none();
    let Some(provider) = sign_in::offered_one(s, &session, input.provider.as_str()).await? else {
        return Ok(Answer::NotFound(widget.not_offered(listed)));
    };
    if let Err(refusal) = sign_in::judge(&provider, form) {
        // OAuth errors always leave for `redirect_url`; form errors only when asked to.
        let leaves = match provider.sign_in {
            SignIn::OAuth => true,
            SignIn::Password | SignIn::Email => session.errors_redirect,
            SignIn::Elsewhere => false,
        };
        let outcome = [
            ("state", "error"),
            ("provider", provider.slug.as_str()),
            ("error_type", refusal.kind.error_type()),
            ("error", refusal.message.as_str()),
        ];
        if let Some(location) = session.redirect_with(&outcome).filter(|_| leaves) {
            return Ok(see_other(location));
        }
        let page = match refusal.kind {
            RefusalKind::AccessDenied => widget.denied(&provider, &refusal),
            RefusalKind::InvalidCredentials => {
                widget.sign_in(&provider, Some(&refusal), &typed(form), listed)
            }
        };
        return Ok(Answer::Forbidden(page));
    }
    match sign_in::link(s, &session, &provider).await? {
        Linked::Gone => Ok(Answer::Gone(widget.gone())),
        Linked::Connected => Ok(
            match session.redirect_with(&[("state", "success"), ("provider", &provider.slug)]) {
                Some(location) => see_other(location),
                None => Answer::Ok(pages::linked(&provider)),
            },
        ),
    }
}

/// The Close button: to `redirect_url` with `user_cancelled` when the token asks for it.
/// Any token ever issued may close, live or not, so a user can always leave.
pub async fn close(
    s: &ReferenceServer,
    input: CloseLinkWidgetInput,
) -> Result<CloseLinkWidgetResponse, Failure> {
    let Some(session) = Session::find(s, &input.body.token).await? else {
        return Ok(CloseLinkWidgetResponse::NotFound(pages::unknown()));
    };
    let provider = input.body.provider.as_ref().map(|p| p.as_str());
    let mut outcome = vec![("state", "error"), ("error_type", USER_CANCELLED)];
    outcome.extend(provider.map(|slug| ("provider", slug)));
    outcome.push(("error", "The user closed the link widget."));
    Ok(
        match session
            .redirect_with(&outcome)
            .filter(|_| session.close_redirects)
        {
            Some(location) => CloseLinkWidgetResponse::SeeOther {
                headers: CloseLinkWidgetSeeOtherHeaders { location },
            },
            None => CloseLinkWidgetResponse::Ok(pages::closed()),
        },
    )
}

fn see_other(location: String) -> SignInLinkProviderResponse {
    SignInLinkProviderResponse::SeeOther {
        headers: SignInLinkProviderSeeOtherHeaders { location },
    }
}

/// What a refused form showed again: never the password.
fn typed(form: &LinkSignIn) -> Typed {
    Typed {
        username: form.username.clone().unwrap_or_default(),
        email: form.email.clone().unwrap_or_default(),
    }
}
