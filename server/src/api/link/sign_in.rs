//! The widget's providers and their simulated sign-ins: which providers a token offers,
//! what each auth type asks for and accepts, and the connection a successful sign-in makes.

use super::session::Session;
use super::{ProviderRow, catalogue, catalogue_entry, use_up};
use crate::ReferenceServer;
use crate::background::bulk::{ConnectedProvider, connect};
use crate::background::fetches::{self, Kind};
use crate::domain::events::Outbox;
use crate::infra::clock::to_micros;
use crate::infra::columns::from_json;
use crate::infra::failure::Failure;
use health_api::models::{LinkConsent, LinkSignIn};

/// How a provider signs a user in on the web, by the catalogue's `auth_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignIn {
    /// `oauth`, `team_oauth`: the provider's consent screen.
    OAuth,
    /// `password`: a username and password.
    Password,
    /// `email`: an e-mail address the provider knows.
    Email,
    /// `sdk`, `app` and any other: linked in the app, not on the web.
    Elsewhere,
}

impl SignIn {
    fn of(auth_type: &str) -> SignIn {
        match auth_type {
            "oauth" | "team_oauth" => SignIn::OAuth,
            "password" => SignIn::Password,
            "email" => SignIn::Email,
            _ => SignIn::Elsewhere,
        }
    }
}

/// A provider as the widget shows it.
#[derive(Clone, Debug)]
pub struct WidgetProvider {
    pub slug: String,
    pub name: String,
    pub description: String,
    pub sign_in: SignIn,
    /// What the provider shares, as the catalogue names it (`heartrate`, `sleep`).
    pub resources: Vec<String>,
}

impl WidgetProvider {
    fn from_row(row: ProviderRow) -> Result<WidgetProvider, sqlx::Error> {
        Ok(WidgetProvider {
            sign_in: SignIn::of(&row.auth_type),
            resources: from_json(&row.supported_resources)?,
            slug: row.slug,
            name: row.name,
            description: row.description,
        })
    }
}

/// The providers the token's list shows: those linkable on the web, within its
/// `filter_on_providers`, whose name holds `search` (ignoring case), in catalogue order.
pub async fn offered(
    s: &ReferenceServer,
    session: &Session,
    search: &str,
) -> Result<Vec<WidgetProvider>, Failure> {
    let rows = catalogue(s, None).await?;
    let search = search.trim().to_lowercase();
    let mut offered = Vec::new();
    for row in rows {
        let provider = WidgetProvider::from_row(row)?;
        let shown = provider.sign_in != SignIn::Elsewhere && in_filter(session, &provider.slug);
        if shown && (search.is_empty() || provider.name.to_lowercase().contains(&search)) {
            offered.push(provider);
        }
    }
    Ok(offered)
}

/// The provider `slug` if the token offers it: the one it was issued for (even one linked in
/// the app, whose page says so), or one of its list.
pub async fn offered_one(
    s: &ReferenceServer,
    session: &Session,
    slug: &str,
) -> Result<Option<WidgetProvider>, Failure> {
    let offers = match &session.provider {
        Some(issued_for) => issued_for == slug,
        None => in_filter(session, slug),
    };
    if !offers {
        return Ok(None);
    }
    let row = catalogue_entry(s, slug).await?;
    let Some(provider) = row.map(WidgetProvider::from_row).transpose()? else {
        return Ok(None);
    };
    let linkable_here = session.provider.is_some() || provider.sign_in != SignIn::Elsewhere;
    Ok(linkable_here.then_some(provider))
}

fn in_filter(session: &Session, slug: &str) -> bool {
    session
        .filter
        .as_ref()
        .is_none_or(|allowed| allowed.iter().any(|a| a == slug))
}

/// Why a sign-in was refused, as the redirect's `error_type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// A password or e-mail form the provider did not accept.
    InvalidCredentials,
    /// The user denied an OAuth consent.
    AccessDenied,
}

impl RefusalKind {
    pub fn error_type(self) -> &'static str {
        match self {
            RefusalKind::InvalidCredentials => "invalid_credentials",
            RefusalKind::AccessDenied => "access_denied",
        }
    }
}

/// The form field a refusal is about, so the page marks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormField {
    Username,
    Password,
    Email,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: RefusalKind,
    pub message: String,
    pub field: Option<FormField>,
}

/// The shortest password the simulated providers accept; any username signs in with one.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The reserved top-level domain (RFC 2606) of addresses the simulated providers do not know.
pub const UNKNOWN_EMAIL_DOMAIN: &str = ".invalid";

/// Whether the simulated provider accepts the form: an allowed consent; any username with a
/// password of [`MIN_PASSWORD_CHARS`] or more; any well-formed address outside
/// [`UNKNOWN_EMAIL_DOMAIN`].
pub fn judge(provider: &WidgetProvider, form: &LinkSignIn) -> Result<(), Refusal> {
    let refuse = |field, message: &str| {
        Err(Refusal {
            kind: RefusalKind::InvalidCredentials,
            message: message.to_string(),
            field: Some(field),
        })
    };
    fn filled(value: &Option<String>) -> &str {
        value.as_deref().map(str::trim).unwrap_or_default()
    }
    match provider.sign_in {
        SignIn::OAuth => match form.consent {
            Some(LinkConsent::Allow) => Ok(()),
            _ => Err(Refusal {
                kind: RefusalKind::AccessDenied,
                message: format!("Access to {} was not allowed.", provider.name),
                field: None,
            }),
        },
        SignIn::Password => {
            let (username, password) = (filled(&form.username), form.password.as_deref());
            if username.is_empty() {
                return refuse(FormField::Username, "Enter your username.");
            }
            match password.unwrap_or_default().chars().count() {
                0 => refuse(FormField::Password, "Enter your password."),
                n if n < MIN_PASSWORD_CHARS => refuse(
                    FormField::Password,
                    &format!(
                        "The username or password is not right for {}.",
                        provider.name
                    ),
                ),
                _ => Ok(()),
            }
        }
        SignIn::Email => {
            let email = filled(&form.email);
            let Some((local, domain)) = email.rsplit_once('@') else {
                return refuse(
                    FormField::Email,
                    "Enter an e-mail address, such as name@example.com.",
                );
            };
            if local.is_empty() || !domain.contains('.') || domain.ends_with('.') {
                return refuse(
                    FormField::Email,
                    "Enter an e-mail address, such as name@example.com.",
                );
            }
            if domain.to_lowercase().ends_with(UNKNOWN_EMAIL_DOMAIN) {
                return refuse(
                    FormField::Email,
                    &format!("{} has no account with this e-mail address.", provider.name),
                );
            }
            Ok(())
        }
        SignIn::Elsewhere => Err(Refusal {
            kind: RefusalKind::InvalidCredentials,
            message: format!("{} links in the app, not on the web.", provider.name),
            field: None,
        }),
    }
}

/// What a successful sign-in came to.
pub enum Linked {
    /// The user is connected; the token is used up.
    Connected,
    /// The token was used by another sign-in, expired, or lost its user meanwhile.
    Gone,
}

/// Uses up the token and connects its user to the provider in one transaction: the
/// connection emits `provider.connection.created` when it is new, and a historical pull of
/// every resource the provider supports starts, as for any new connection.
pub async fn link(
    s: &ReferenceServer,
    session: &Session,
    provider: &WidgetProvider,
) -> Result<Linked, Failure> {
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    if !use_up(&mut tx, &session.token_hash, to_micros(now)).await? {
        return Ok(Linked::Gone);
    }
    let outbox = Outbox::open(&mut tx, &session.team_id).await?;
    let connected_provider = ConnectedProvider::read(&mut tx, &provider.slug).await?;
    let (team, user) = (&session.team_id, &session.user_id);
    if !connect(
        &mut tx,
        &outbox,
        team,
        user,
        &connected_provider,
        to_micros(now),
    )
    .await?
    {
        // The user was deleted meanwhile; the token stays unused with the rollback.
        return Ok(Linked::Gone);
    }
    fetches::historical::trigger(&mut tx, team, user, &provider.slug, now).await?;
    tx.commit().await?;
    s.fetches_owed(Kind::Historical).notify_one();
    Ok(Linked::Connected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(sign_in: SignIn) -> WidgetProvider {
        WidgetProvider {
            slug: "sim".into(),
            name: "Sim".into(),
            description: String::new(),
            sign_in,
            resources: vec!["sleep".into()],
        }
    }

    fn form(fill: impl FnOnce(&mut LinkSignIn)) -> LinkSignIn {
        let mut form = LinkSignIn {
            token: "lt_x".into(),
            consent: None,
            username: None,
            password: None,
            email: None,
        };
        fill(&mut form);
        form
    }

    #[test]
    fn a_consent_links_only_when_allowed() {
        let oauth = provider(SignIn::OAuth);
        assert!(judge(&oauth, &form(|f| f.consent = Some(LinkConsent::Allow))).is_ok());
        for consent in [Some(LinkConsent::Deny), None] {
            let refusal = judge(&oauth, &form(|f| f.consent = consent)).unwrap_err();
            assert_eq!(refusal.kind, RefusalKind::AccessDenied);
        }
    }

    #[test]
    fn any_username_signs_in_with_a_long_enough_password() {
        let password = provider(SignIn::Password);
        let with = |user: &str, pass: &str| {
            judge(
                &password,
                &form(|f| {
                    f.username = Some(user.into());
                    f.password = Some(pass.into());
                }),
            )
        };
        assert!(with("ana", "correct horse").is_ok());
        assert!(with("ana", "12345678").is_ok());
        let short = with("ana", "1234567").unwrap_err();
        assert_eq!(
            (short.kind, short.field),
            (RefusalKind::InvalidCredentials, Some(FormField::Password))
        );
        assert_eq!(
            with("  ", "12345678").unwrap_err().field,
            Some(FormField::Username)
        );
        assert_eq!(with("ana", "").unwrap_err().message, "Enter your password.");
    }

    #[test]
    fn any_well_formed_address_signs_in_but_at_the_unknown_domain() {
        let email = provider(SignIn::Email);
        let with = |address: &str| judge(&email, &form(|f| f.email = Some(address.into())));
        assert!(with("ana@example.com").is_ok());
        assert!(with(" ana@example.com ").is_ok());
        for malformed in ["", "ana", "@example.com", "ana@example", "ana@example."] {
            assert!(
                with(malformed).unwrap_err().message.starts_with("Enter"),
                "{malformed}"
            );
        }
        let unknown = with("ana@nowhere.INVALID").unwrap_err();
        assert_eq!(
            unknown.message,
            "Sim has no account with this e-mail address."
        );
    }

    #[test]
    fn a_provider_linked_in_the_app_has_no_web_sign_in() {
        assert!(judge(&provider(SignIn::Elsewhere), &form(|_| {})).is_err());
        assert_eq!(SignIn::of("team_oauth"), SignIn::OAuth);
        assert_eq!(SignIn::of("sdk"), SignIn::Elsewhere);
        assert_eq!(SignIn::of("app"), SignIn::Elsewhere);
    }
}
