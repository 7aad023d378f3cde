//! The link widget end to end in headless Chromium, by keyboard alone: a token's providers,
//! a search, a refused and then accepted password, an OAuth consent, an e-mail refusal sent
//! to the app, the Close button, and a used token. Each step is a screenshot under
//! `target/tmp/link-widget/`; each assertion reads the DOM.

use crate::harness::{Backend, Harness};
use crate::users::create;
use crate::webhooks::{Receiver, endpoint, verified};
use crate::widget::{Settings, issue, outcome, pairs};
use covenant_runtime::Uuid;
use covenant_test_browser::Browser;
use covenant_test_browser::Key;
use health_api::events::Payload;
use health_api::models::*;

/// The app a team sends its users back to: a page that says they are back.
async fn app() -> String {
    const PAGE: &str =
        "<!doctype html><html lang=en><title>App</title><h1>Back in the app</h1></html>";
    let app = axum::Router::new().route(
        "/linked",
        axum::routing::get(|| async { axum::response::Html(PAGE) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/linked", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn link_web_url(h: &Harness, user: Uuid, settings: Settings) -> String {
    issue(h, user, settings).await.link_web_url
}

fn query(url: &url::Url) -> Vec<(String, String)> {
    outcome(url.as_str())
}

/// What every widget page promises a keyboard and screen reader user: a language, one
/// heading, a label on every field, a name on every button and link; and its stylesheet
/// applied (the page's policy lets it in by its hash).
async fn assert_accessible(browser: &Browser) {
    let width = browser
        .script("return getComputedStyle(document.querySelector('main')).maxWidth;")
        .await;
    assert_eq!(width, "480px", "the stylesheet is applied");
    let problems = browser
        .script(
            "const problems = []; \
             if (document.documentElement.lang !== 'en') problems.push('no lang'); \
             if (document.querySelectorAll('h1').length !== 1) problems.push('not one h1'); \
             for (const input of document.querySelectorAll('input:not([type=hidden])')) \
               if (input.labels.length === 0) problems.push('unlabelled ' + input.name); \
             for (const control of document.querySelectorAll('button, a')) \
               if (control.textContent.trim() === '') problems.push('unnamed ' + control.outerHTML); \
             return problems;",
        )
        .await;
    assert_eq!(problems, serde_json::json!([]), "accessibility problems");
    if let Some(violations) = browser.accessibility_violations().await {
        assert!(violations.is_empty(), "axe-core: {}", violations.join("\n"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_widget_links_providers_by_keyboard_in_chromium() {
    let Some(mut browser) =
        Browser::start(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("link-widget"))
            .await
    else {
        return;
    };
    let h = Harness::start(Backend::Sqlite).await.expect("SQLite");
    let mut receiver = Receiver::start(0).await;
    let hook = endpoint(&h, &receiver.url, &["provider.connection."]).await;
    let app = app().await;
    let user = create(&h, "chromium").await;

    // A token offering three providers, with errors shown in the widget.
    let offering = Settings {
        redirect_url: Some(app.clone()),
        filter: Some(vec![
            LinkProvider::AbbottLibreview,
            LinkProvider::Whoop,
            LinkProvider::Oura,
        ]),
        ..Settings::default()
    };
    browser.goto(&link_web_url(&h, user, offering).await).await;
    browser.wait_for_heading("Choose a provider").await;
    browser.shot("providers").await;
    assert_accessible(&browser).await;
    assert_eq!(
        browser.texts("ul.providers .name").await,
        ["Oura", "WHOOP", "Abbott LibreView"]
    );

    // Search by keyboard: the search field is the first stop.
    assert_eq!(browser.tab(1).await, "input:q");
    browser.type_text("wh").await;
    browser.press(Key::Enter).await;
    browser.wait_for("input#q[value=wh]").await;
    assert_eq!(browser.texts("ul.providers .name").await, ["WHOOP"]);
    browser.shot("search").await;

    // A new page starts the tab order again: the search field, its button, the link.
    assert_eq!(browser.tab(1).await, "input:q");
    assert_eq!(browser.tab(1).await, "button:Search");
    assert_eq!(browser.tab(1).await, "a:WHOOP");
    browser.press(Key::Enter).await;
    browser.wait_for_heading("Sign in to WHOOP").await;
    assert_accessible(&browser).await;
    assert_eq!(
        browser
            .attr("#username", "aria-describedby")
            .await
            .as_deref(),
        Some("hint")
    );
    // The page keeps the focus, so its heading and rule come first; the form is next.
    assert_eq!(browser.tab(1).await, "input:username");
    browser.shot("password").await;

    // A password the simulated provider refuses: the form again, the error tied to its field.
    browser.type_text("ana").await;
    assert_eq!(browser.tab(1).await, "input:password");
    browser.type_text("short").await;
    browser.press(Key::Enter).await;
    browser.wait_for("[role=alert]").await;
    assert_eq!(
        browser.script("return document.title;").await,
        "Error: Sign in to WHOOP · Link a provider"
    );
    assert_eq!(
        browser.text("[role=alert]").await,
        "The username or password is not right for WHOOP."
    );
    assert_eq!(browser.focused().await, "input:password");
    assert_eq!(
        browser.attr("#password", "aria-invalid").await.as_deref(),
        Some("true")
    );
    assert_eq!(
        browser
            .attr("#password", "aria-describedby")
            .await
            .as_deref(),
        Some("hint error")
    );
    assert_eq!(
        browser.attr("#username", "value").await.as_deref(),
        Some("ana")
    );
    browser.shot("password-refused").await;

    // The right one links, and the browser is back in the app.
    browser.type_text("correct horse battery").await;
    browser.press(Key::Enter).await;
    let back = browser.wait_for_heading("Back in the app").await;
    assert_eq!(
        query(&back),
        pairs(&[("state", "success"), ("provider", "whoop")])
    );
    browser.shot("back-in-the-app").await;
    let (event, payload) = verified(&h, &hook.secret.secret, &receiver.next().await);
    assert_eq!(event.user_id, user);
    let Payload::ProviderConnectionCreated { data } = payload else {
        panic!("a connection event: {payload:?}");
    };
    assert_eq!(data.provider.extra["slug"], "whoop");

    // A token for one provider opens its OAuth consent straight away.
    let direct = Settings {
        provider: Some(LinkProvider::Oura),
        ..Settings::default()
    };
    let used = link_web_url(&h, user, direct).await;
    browser.goto(&used).await;
    browser.wait_for_heading("Allow access to Oura").await;
    assert_accessible(&browser).await;
    assert!(
        browser
            .texts("main ul li")
            .await
            .contains(&"sleep".to_string())
    );
    browser.shot("consent").await;
    assert_eq!(browser.tab(1).await, "button:Allow");
    browser.press(Key::Enter).await;
    browser.wait_for_heading("Oura is linked").await;
    assert!(
        browser
            .text("[role=status]")
            .await
            .contains("You can close this window")
    );
    browser.shot("linked").await;
    let (_, payload) = verified(&h, &hook.secret.secret, &receiver.next().await);
    assert!(matches!(payload, Payload::ProviderConnectionCreated { .. }));

    // An e-mail the provider does not know, with errors sent to the app; then Close.
    let redirecting = Settings {
        redirect_url: Some(app.clone()),
        filter: Some(vec![LinkProvider::AbbottLibreview]),
        on_error: true,
        on_close: true,
        ..Settings::default()
    };
    let redirecting = link_web_url(&h, user, redirecting).await;
    browser.goto(&redirecting).await;
    browser.wait_for_heading("Choose a provider").await;
    assert_eq!(browser.tab(3).await, "a:Abbott LibreView");
    browser.press(Key::Enter).await;
    browser
        .wait_for_heading("Sign in to Abbott LibreView")
        .await;
    assert_accessible(&browser).await;
    assert_eq!(browser.tab(1).await, "input:email");
    browser.type_text("ana@clinic.invalid").await;
    browser.shot("email").await;
    browser.press(Key::Enter).await;
    let back = browser.wait_for_heading("Back in the app").await;
    assert_eq!(
        query(&back),
        pairs(&[
            ("state", "error"),
            ("provider", "abbott_libreview"),
            ("error_type", "invalid_credentials"),
            (
                "error",
                "Abbott LibreView has no account with this e-mail address."
            ),
        ])
    );
    browser.shot("email-refused-in-the-app").await;

    browser.goto(&redirecting).await;
    browser.wait_for_heading("Choose a provider").await;
    assert_eq!(browser.tab(4).await, "button:Close");
    browser.press(Key::Enter).await;
    let back = browser.wait_for_heading("Back in the app").await;
    let cancelled = query(&back);
    assert_eq!(cancelled[1], ("error_type".into(), "user_cancelled".into()));
    browser.shot("closed-in-the-app").await;

    // The used token's page says it has expired.
    browser.goto(&used).await;
    browser.wait_for_heading("This link has expired").await;
    assert_accessible(&browser).await;
    browser.shot("expired").await;

    // An expired link still closes back to the app.
    let expiring = Settings {
        redirect_url: Some(app.clone()),
        on_close: true,
        ..Settings::default()
    };
    let expiring = link_web_url(&h, user, expiring).await;
    h.clock.advance(chrono::Duration::minutes(11));
    browser.goto(&expiring).await;
    browser.wait_for_heading("This link has expired").await;
    assert_eq!(browser.tab(1).await, "button:Close");
    browser.press(Key::Enter).await;
    let back = browser.wait_for_heading("Back in the app").await;
    assert_eq!(
        query(&back)[1],
        ("error_type".into(), "user_cancelled".into())
    );
    browser.shot("expired-closed-in-the-app").await;
    browser.stop().await;
}
