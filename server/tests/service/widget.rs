//! The hosted link widget over HTTP, through the generated client (which does not follow the
//! widget's redirects, so each outcome is seen as it is): what a token offers, each
//! simulated sign-in, the redirects its settings ask for, and the connection a sign-in makes.

// The link token request carries the deprecated `filter_on_providers`.
#![allow(deprecated)]

use crate::harness::Harness;
use crate::on_both_backends;
use crate::pulls::pulls_of;
use crate::users::create;
use crate::webhooks::{Receiver, endpoint, verified};
use base64::Engine;
use covenant_runtime::{Tristate, Uuid};
use health_api::client::Client;
use health_api::events::Payload;
use health_api::models::*;
use health_api::operations::*;
use sha2::Digest;

on_both_backends!(
    the_widget_lists_the_offered_providers_and_searches_them,
    a_token_for_one_provider_goes_straight_to_its_sign_in,
    an_allowed_consent_links_once_and_announces_the_connection,
    refused_sign_ins_show_their_form_or_redirect_as_asked,
    a_denied_consent_goes_to_the_redirect_whatever_on_error_says,
    close_redirects_only_when_asked_and_always_works,
    two_sign_ins_racing_on_one_token_link_once,
);

/// The widget's settings of a link token.
#[derive(Default)]
pub struct Settings {
    pub provider: Option<LinkProvider>,
    pub redirect_url: Option<String>,
    pub filter: Option<Vec<LinkProvider>>,
    pub on_error: bool,
    pub on_close: bool,
}

/// A link token with these settings, and its `link_web_url`.
pub async fn issue(h: &Harness, user_id: Uuid, settings: Settings) -> LinkTokenResult {
    let redirect = || Tristate::Value("redirect".to_string());
    let body = CreateLinkTokenRequest {
        user_id,
        provider: settings.provider.map_or(Tristate::Absent, Tristate::Value),
        redirect_url: settings
            .redirect_url
            .map_or(Tristate::Absent, Tristate::Value),
        filter_on_providers: settings.filter.map_or(Tristate::Absent, Tristate::Value),
        on_error: if settings.on_error {
            redirect()
        } else {
            Tristate::Absent
        },
        on_close: if settings.on_close {
            redirect()
        } else {
            Tristate::Absent
        },
    };
    match h
        .team()
        .create_link_token(CreateLinkTokenInput { body })
        .await
        .unwrap()
    {
        CreateLinkTokenResponse::Ok(result) => result,
        other => panic!("link token: {other:?}"),
    }
}

async fn token(h: &Harness, user_id: Uuid, settings: Settings) -> String {
    issue(h, user_id, settings).await.link_token
}

/// The widget is public: a browser brings only the token.
fn browser(h: &Harness) -> Client {
    h.client(&[])
}

async fn open(h: &Harness, token: &str, q: Option<&str>) -> OpenLinkWidgetResponse {
    let input = OpenLinkWidgetInput {
        token: token.to_string(),
        q: q.map(str::to_string),
    };
    browser(h).open_link_widget(input).await.unwrap()
}

async fn sign_in(
    h: &Harness,
    provider: LinkProvider,
    token: &str,
    fill: impl FnOnce(&mut LinkSignIn),
) -> SignInLinkProviderResponse {
    let mut body = LinkSignIn {
        token: token.to_string(),
        consent: None,
        username: None,
        password: None,
        email: None,
    };
    fill(&mut body);
    browser(h)
        .sign_in_link_provider(SignInLinkProviderInput { provider, body })
        .await
        .unwrap()
}

fn allow(form: &mut LinkSignIn) {
    form.consent = Some(LinkConsent::Allow);
}

/// The names of the providers a page lists, in order.
fn listed(page: &str) -> Vec<&str> {
    page.split("<span class=\"name\"")
        .skip(1)
        .map(|rest| rest.split(['>', '<']).nth(1).unwrap())
        .collect()
}

/// A redirect's query parameters.
pub fn outcome(location: &str) -> Vec<(String, String)> {
    let url = url::Url::parse(location).unwrap();
    url.query_pairs().into_owned().collect()
}

pub fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

async fn the_widget_lists_the_offered_providers_and_searches_them(h: Harness) {
    let user = create(&h, "browsing").await;
    let every = token(&h, user, Settings::default()).await;
    let OpenLinkWidgetResponse::Ok(page) = open(&h, &every, None).await else {
        panic!("the first page");
    };
    // Every provider linkable on the web: OAuth, password and e-mail, not SDK or app ones.
    let names = listed(&page);
    assert_eq!(names.len(), 30, "{names:?}");
    assert_eq!(names[..3], ["Oura", "Fitbit", "Garmin"]);
    assert!(!names.contains(&"Apple HealthKit"), "{names:?}");

    let filter = vec![
        LinkProvider::Whoop,
        LinkProvider::Oura,
        LinkProvider::AppleHealthKit,
    ];
    let filtered = token(
        &h,
        user,
        Settings {
            filter: Some(filter),
            ..Settings::default()
        },
    )
    .await;
    let OpenLinkWidgetResponse::Ok(page) = open(&h, &filtered, None).await else {
        panic!("the filtered page");
    };
    assert_eq!(
        listed(&page),
        ["Oura", "WHOOP"],
        "catalogue order, web only"
    );
    let OpenLinkWidgetResponse::Ok(page) = open(&h, &filtered, Some(" wh ")).await else {
        panic!("a search");
    };
    assert_eq!(listed(&page), ["WHOOP"]);
    let OpenLinkWidgetResponse::Ok(page) = open(&h, &filtered, Some("<b>fitbit</b>")).await else {
        panic!("a search of nothing offered");
    };
    assert!(listed(&page).is_empty());
    assert!(
        page.contains("No provider matches “&lt;b&gt;fitbit&lt;/b&gt;”."),
        "escaped"
    );

    // A provider outside the filter has no sign-in here.
    let input = OpenLinkProviderInput {
        provider: LinkProvider::Fitbit,
        token: filtered.clone(),
    };
    assert!(matches!(
        browser(&h).open_link_provider(input).await.unwrap(),
        OpenLinkProviderResponse::NotFound(_)
    ));
    assert!(matches!(
        open(&h, "lt_never-issued", None).await,
        OpenLinkWidgetResponse::NotFound(_)
    ));

    // The pages protect the token they carry.
    let raw = h
        .http()
        .get(format!("{}/link?token={filtered}", h.base_url))
        .send()
        .await
        .unwrap();
    let headers = raw.headers();
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let policy = headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    // The policy lets the page's one stylesheet in by its hash, and nothing else.
    let page = raw.text().await.unwrap();
    let style = page
        .split_once("<style>")
        .and_then(|(_, rest)| rest.split_once("</style>"))
        .map(|(style, _)| style)
        .expect("an inline stylesheet");
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(style));
    assert!(
        policy.starts_with(&format!("default-src 'none'; style-src 'sha256-{hash}';")),
        "{policy}"
    );
    // Only the widget's pages: the JSON APIs at the same address keep their own headers.
    let api = h
        .http()
        .get(format!("{}/v2/providers", h.base_url))
        .send()
        .await
        .unwrap();
    assert!(
        api.headers().get("content-security-policy").is_none(),
        "{:?}",
        api.headers()
    );
}

async fn a_token_for_one_provider_goes_straight_to_its_sign_in(h: Harness) {
    let user = create(&h, "direct").await;
    let direct = token(
        &h,
        user,
        Settings {
            provider: Some(LinkProvider::Whoop),
            ..Settings::default()
        },
    )
    .await;
    let OpenLinkWidgetResponse::SeeOther { headers } = open(&h, &direct, None).await else {
        panic!("straight to the provider");
    };
    let expected = format!("{}/link/providers/whoop?token={direct}", h.base_url);
    assert_eq!(headers.location, expected);
    let input = |provider| OpenLinkProviderInput {
        provider,
        token: direct.clone(),
    };
    let OpenLinkProviderResponse::Ok(page) = browser(&h)
        .open_link_provider(input(LinkProvider::Whoop))
        .await
        .unwrap()
    else {
        panic!("the password sign-in");
    };
    assert!(
        page.contains("<label for=\"password\">Password</label>"),
        "{page}"
    );
    assert!(
        !page.contains("Choose another provider"),
        "only one provider is offered"
    );
    assert!(matches!(
        browser(&h)
            .open_link_provider(input(LinkProvider::Oura))
            .await
            .unwrap(),
        OpenLinkProviderResponse::NotFound(_)
    ));

    // A token naming a provider linked in the app leads to a page saying so.
    let sdk = token(
        &h,
        user,
        Settings {
            provider: Some(LinkProvider::AppleHealthKit),
            ..Settings::default()
        },
    )
    .await;
    let input = OpenLinkProviderInput {
        provider: LinkProvider::AppleHealthKit,
        token: sdk.clone(),
    };
    let OpenLinkProviderResponse::Ok(page) = browser(&h).open_link_provider(input).await.unwrap()
    else {
        panic!("the SDK provider's page");
    };
    assert!(page.contains("links in the app"), "{page}");
    assert!(
        !page.contains("<form method=\"post\" action"),
        "no sign-in form"
    );
    let refused = sign_in(&h, LinkProvider::AppleHealthKit, &sdk, allow).await;
    assert!(
        matches!(refused, SignInLinkProviderResponse::Forbidden(_)),
        "{refused:?}"
    );
}

async fn an_allowed_consent_links_once_and_announces_the_connection(h: Harness) {
    let mut receiver = Receiver::start(0).await;
    let hook = endpoint(&h, &receiver.url, &["provider.connection."]).await;
    let user = create(&h, "consenting").await;
    let settings = Settings {
        redirect_url: Some("https://app.example/linked?from=widget".into()),
        ..Settings::default()
    };
    let linking = token(&h, user, settings).await;
    let SignInLinkProviderResponse::SeeOther { headers } =
        sign_in(&h, LinkProvider::Oura, &linking, allow).await
    else {
        panic!("to the redirect");
    };
    assert!(headers.location.starts_with("https://app.example/linked?"));
    assert_eq!(
        outcome(&headers.location),
        pairs(&[
            ("from", "widget"),
            ("state", "success"),
            ("provider", "oura")
        ])
    );

    let (event, payload) = verified(&h, &hook.secret.secret, &receiver.next().await);
    assert_eq!(event.user_id, user);
    let Payload::ProviderConnectionCreated { data } = payload else {
        panic!("a connection event: {payload:?}");
    };
    assert_eq!(data.provider.extra["slug"], "oura");
    assert_eq!(
        data.source, data.provider,
        "the deprecated source beside it"
    );

    // The new connection's history is on its way.
    let pulls = pulls_of(&h, user).await;
    assert!(!pulls.is_empty());
    assert!(pulls.iter().all(|p| p.provider == "oura"));

    // The token is used up: every page says so, and a second sign-in links nothing.
    assert!(matches!(
        open(&h, &linking, None).await,
        OpenLinkWidgetResponse::Gone(_)
    ));
    let again = sign_in(&h, LinkProvider::Oura, &linking, allow).await;
    assert!(
        matches!(again, SignInLinkProviderResponse::Gone(_)),
        "{again:?}"
    );

    // Without a redirect the widget says the provider is linked; linking an existing
    // connection again announces nothing new.
    let relink = token(&h, user, Settings::default()).await;
    let SignInLinkProviderResponse::Ok(page) =
        sign_in(&h, LinkProvider::Oura, &relink, allow).await
    else {
        panic!("linked, shown here");
    };
    assert!(page.contains("Oura is linked"), "{page}");
    assert!(
        receiver
            .within(std::time::Duration::from_secs(1))
            .await
            .is_none()
    );

    // Ten minutes later an unused token is gone.
    let late = token(&h, user, Settings::default()).await;
    h.clock.advance(chrono::Duration::minutes(10));
    assert!(matches!(
        open(&h, &late, None).await,
        OpenLinkWidgetResponse::Gone(_)
    ));
}

async fn refused_sign_ins_show_their_form_or_redirect_as_asked(h: Harness) {
    let user = create(&h, "mistyping").await;
    let shown = token(&h, user, Settings::default()).await;
    let short = |form: &mut LinkSignIn| {
        form.username = Some("ana<script>".into());
        form.password = Some("short".into());
    };
    let SignInLinkProviderResponse::Forbidden(page) =
        sign_in(&h, LinkProvider::Whoop, &shown, short).await
    else {
        panic!("the form again");
    };
    assert!(page.contains("role=\"alert\""), "{page}");
    assert!(page.contains("The username or password is not right for WHOOP."));
    assert!(
        page.contains("value=\"ana&lt;script&gt;\""),
        "the username kept, escaped"
    );
    assert!(!page.contains("short"), "never the password");
    assert!(page.contains("aria-invalid=\"true\" aria-describedby=\"hint error\""));

    let unknown = |form: &mut LinkSignIn| form.email = Some("ana@nowhere.invalid".into());
    let SignInLinkProviderResponse::Forbidden(page) =
        sign_in(&h, LinkProvider::AbbottLibreview, &shown, unknown).await
    else {
        panic!("the e-mail form again");
    };
    assert!(
        page.contains("has no account with this e-mail address"),
        "{page}"
    );

    // With `on_error: redirect` the same refusal leaves for `redirect_url`.
    let settings = Settings {
        redirect_url: Some("https://app.example/linked".into()),
        on_error: true,
        ..Settings::default()
    };
    let redirected = token(&h, user, settings).await;
    let SignInLinkProviderResponse::SeeOther { headers } =
        sign_in(&h, LinkProvider::Whoop, &redirected, short).await
    else {
        panic!("to the redirect");
    };
    assert_eq!(
        outcome(&headers.location),
        pairs(&[
            ("state", "error"),
            ("provider", "whoop"),
            ("error_type", "invalid_credentials"),
            ("error", "The username or password is not right for WHOOP."),
        ])
    );
    // A refusal uses nothing up: the right password still links.
    let right = |form: &mut LinkSignIn| {
        form.username = Some("ana".into());
        form.password = Some("correct horse".into());
    };
    let linked = sign_in(&h, LinkProvider::Whoop, &redirected, right).await;
    let SignInLinkProviderResponse::SeeOther { headers } = linked else {
        panic!("linked: {linked:?}");
    };
    assert_eq!(
        outcome(&headers.location)[0],
        ("state".into(), "success".into())
    );
}

async fn a_denied_consent_goes_to_the_redirect_whatever_on_error_says(h: Harness) {
    let user = create(&h, "denying").await;
    let deny = |form: &mut LinkSignIn| form.consent = Some(LinkConsent::Deny);
    let settings = Settings {
        redirect_url: Some("myapp://linked".into()),
        ..Settings::default()
    };
    let with_redirect = token(&h, user, settings).await;
    let SignInLinkProviderResponse::SeeOther { headers } =
        sign_in(&h, LinkProvider::Fitbit, &with_redirect, deny).await
    else {
        panic!("OAuth errors always redirect");
    };
    assert!(headers.location.starts_with("myapp://linked?"));
    let outcome = outcome(&headers.location);
    assert_eq!(outcome[2], ("error_type".into(), "access_denied".into()));

    // With no address to go to, the widget says so and offers another try.
    let without = token(&h, user, Settings::default()).await;
    let SignInLinkProviderResponse::Forbidden(page) =
        sign_in(&h, LinkProvider::Fitbit, &without, deny).await
    else {
        panic!("shown here");
    };
    assert!(page.contains("Fitbit was not linked"), "{page}");
    assert!(page.contains("Try again"));
    // A redirect a browser must not follow is never used.
    let settings = Settings {
        redirect_url: Some("javascript:alert(1)".into()),
        ..Settings::default()
    };
    let script = token(&h, user, settings).await;
    let response = sign_in(&h, LinkProvider::Fitbit, &script, deny).await;
    assert!(
        matches!(response, SignInLinkProviderResponse::Forbidden(_)),
        "{response:?}"
    );
}

async fn close(
    h: &Harness,
    token: &str,
    provider: Option<LinkProvider>,
) -> CloseLinkWidgetResponse {
    let body = CloseLinkWidgetRequest {
        token: token.to_string(),
        provider,
    };
    browser(h)
        .close_link_widget(CloseLinkWidgetInput { body })
        .await
        .unwrap()
}

async fn close_redirects_only_when_asked_and_always_works(h: Harness) {
    let user = create(&h, "closing").await;
    let settings = Settings {
        redirect_url: Some("https://app.example/linked".into()),
        on_close: true,
        ..Settings::default()
    };
    let asked = token(&h, user, settings).await;
    let CloseLinkWidgetResponse::SeeOther { headers } =
        close(&h, &asked, Some(LinkProvider::Garmin)).await
    else {
        panic!("to the redirect");
    };
    assert_eq!(
        outcome(&headers.location),
        pairs(&[
            ("state", "error"),
            ("error_type", "user_cancelled"),
            ("provider", "garmin"),
            ("error", "The user closed the link widget."),
        ])
    );
    // Closing uses nothing up; after the token is used, Close still leaves.
    let linked = sign_in(&h, LinkProvider::Garmin, &asked, allow).await;
    assert!(
        matches!(linked, SignInLinkProviderResponse::SeeOther { .. }),
        "{linked:?}"
    );
    assert!(matches!(
        close(&h, &asked, None).await,
        CloseLinkWidgetResponse::SeeOther { .. }
    ));

    // Without `on_close`, a redirect is there but Close stays in the widget.
    let settings = Settings {
        redirect_url: Some("https://app.example/linked".into()),
        ..Settings::default()
    };
    let not_asked = token(&h, user, settings).await;
    let CloseLinkWidgetResponse::Ok(page) = close(&h, &not_asked, None).await else {
        panic!("closed here");
    };
    assert!(page.contains("Linking cancelled"), "{page}");
    assert!(matches!(
        close(&h, "lt_never-issued", None).await,
        CloseLinkWidgetResponse::NotFound(_)
    ));
}

/// Both sign-ins usually read the token as good before either links, so the one that links
/// second is refused by the use-up in its transaction; when one reads after the other
/// committed, by its first look. Either way one links and the other sees the token gone.
async fn two_sign_ins_racing_on_one_token_link_once(h: Harness) {
    let mut receiver = Receiver::start(0).await;
    let _hook = endpoint(&h, &receiver.url, &["provider.connection."]).await;
    let user = create(&h, "racing").await;
    let linking = token(&h, user, Settings::default()).await;
    let (first, second) = tokio::join!(
        sign_in(&h, LinkProvider::Oura, &linking, allow),
        sign_in(&h, LinkProvider::Polar, &linking, allow),
    );
    let statuses = [first.status(), second.status()];
    assert!(
        statuses == [200, 410] || statuses == [410, 200],
        "{first:?} {second:?}"
    );
    receiver.next().await;
    assert!(
        receiver
            .within(std::time::Duration::from_secs(1))
            .await
            .is_none()
    );
}
