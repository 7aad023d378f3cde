//! `covenant docs` as its users see it: the command writing and checking the site, and the
//! site in headless Chromium opened from disk, with a screenshot of each step under
//! `target/tmp/docs-site/`, every assertion read from the DOM, and every page passing
//! axe-core's accessibility check.

use crate::common::{openapi_operations, scratch_dir};
use covenant_test_browser::{Browser, Key};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The project's own spec: the site a reviewer of this repository reads.
fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/health.covenant")
}

/// Runs covenant; its exit code and stdout, the stderr in the failure message.
fn covenant(args: &[&str], folder: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .arg("--spec")
        .arg(spec())
        .arg("--out")
        .arg(folder)
        .output()
        .expect("run covenant");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!(code != 2, "covenant {args:?} refused: {stderr}");
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned() + &stderr,
    )
}

#[test]
fn docs_writes_the_site_and_checks_it_touching_nothing_else_in_its_folder() {
    let scratch = scratch_dir("docs-command");
    let site = scratch.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("notes.txt"), "the team's own file").unwrap();

    let (code, out) = covenant(&["docs"], &site);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("index.html"),
        "it says which page to open: {out}"
    );
    for page in [
        "index.html",
        "auth.html",
        "endpoints/create_user.html",
        "models/PatientInfo.html",
        "search-index.js",
    ] {
        assert!(site.join(page).is_file(), "{page} written");
    }
    assert_eq!(
        covenant(&["docs", "--check"], &site).0,
        0,
        "fresh is up to date"
    );

    std::fs::write(site.join("models/Gone.html"), "a page of a removed model").unwrap();
    std::fs::write(site.join("endpoints/create_user.html"), "edited by hand").unwrap();
    let (code, out) = covenant(&["docs", "--check"], &site);
    assert_eq!(code, 1, "a stale site fails the check: {out}");
    assert!(out.contains("extra    models/Gone.html"), "{out}");
    assert!(out.contains("differs  endpoints/create_user.html"), "{out}");

    assert_eq!(covenant(&["docs"], &site).0, 0);
    assert!(!site.join("models/Gone.html").exists(), "a stale page goes");
    assert_eq!(
        std::fs::read_to_string(site.join("notes.txt")).unwrap(),
        "the team's own file",
        "what the site does not own stays"
    );
}

#[test]
fn generate_writes_the_site_beside_openapi_when_asked() {
    let scratch = scratch_dir("generate-docs");
    let out = scratch.path().join("generated");
    let (code, printed) = covenant(&["generate"], &out);
    assert_eq!(code, 0, "{printed}");
    assert!(!out.join("docs").exists(), "not without --docs");

    let (code, printed) = covenant(&["generate", "--docs"], &out);
    assert_eq!(code, 0, "{printed}");
    assert!(out.join("openapi").is_dir() && out.join("docs/index.html").is_file());
    assert_eq!(covenant(&["generate", "--docs", "--check"], &out).0, 0);

    std::fs::write(out.join("docs/events/Gone.html"), "stale").unwrap();
    let (code, printed) = covenant(&["generate", "--docs", "--check"], &out);
    assert_eq!(code, 1, "the site is part of what --docs checks: {printed}");
    assert_eq!(
        covenant(&["generate", "--check"], &out).0,
        0,
        "without --docs the site is not generate's"
    );
}

/// Asserts the page passes axe-core's checks (when axe-core is installed; CI installs it).
async fn assert_accessible(browser: &Browser, page: &str) {
    if let Some(violations) = browser.accessibility_violations().await {
        assert!(
            violations.is_empty(),
            "{page} has accessibility violations:\n{}",
            violations.join("\n")
        );
    }
}

#[tokio::test]
async fn the_site_in_chromium_index_endpoint_model_and_search() {
    let scratch = scratch_dir("docs-site");
    let site = scratch.path().join("site");
    assert_eq!(covenant(&["docs"], &site).0, 0);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-site");
    let Some(mut browser) = Browser::start(&shots).await else {
        return;
    };
    let index = url::Url::from_file_path(site.join("index.html")).expect("a file URL");

    // The index: the service, its APIs, and every endpoint in the navigation.
    browser.goto(index.as_str()).await;
    browser.wait_for("main[data-kind='index']").await;
    assert_eq!(
        browser.text("main h1").await,
        "Health data and lab testing service"
    );
    assert!(
        browser.texts("#main section.api h3").await.len() >= 2,
        "the APIs are listed"
    );
    let endpoints = browser
        .script("return document.querySelectorAll('#site-nav a[href^=\"endpoints/\"]').length;")
        .await;
    assert_eq!(
        endpoints,
        openapi_operations().len(),
        "every endpoint is in the navigation"
    );
    let styled = browser
        .script("return getComputedStyle(document.querySelector('.layout')).display;")
        .await;
    assert_eq!(styled, "grid", "the stylesheet loads from disk");
    browser.shot("index").await;
    assert_accessible(&browser, "the index").await;

    // An endpoint, reached from the navigation: its route, parameters and answers.
    browser
        .script("document.querySelector('#site-nav details').open = true;")
        .await;
    browser
        .click("#site-nav a[href='endpoints/update_patient_info.html']")
        .await;
    browser
        .wait_for("main[data-kind='endpoint'][data-name='update_patient_info']")
        .await;
    let route = browser.text("main .endpoint-line").await;
    let route: Vec<&str> = route.split_whitespace().collect();
    assert_eq!(route, ["PATCH", "/v2/user/{user_id}/info"]);
    assert_eq!(
        browser
            .attr("#param-user_id", "data-presence")
            .await
            .as_deref(),
        Some("required")
    );
    let statuses = browser.texts("#main section.response h3 code").await;
    assert_eq!(
        statuses.first().map(String::as_str),
        Some("200"),
        "{statuses:?}"
    );
    assert!(statuses.iter().any(|s| s == "422"), "{statuses:?}");
    assert_eq!(
        browser
            .attr("#status-404 .badge.source", "data-source")
            .await
            .as_deref(),
        Some("deployed_client"),
        "where a fact comes from is shown"
    );
    browser.shot("endpoint").await;
    assert_accessible(&browser, "an endpoint").await;

    // A model, reached by the link from the endpoint's body: fields, presence, constraints
    // and what the document does not show.
    browser
        .click("section[data-kind='request-body'] a[href='../models/PatientInfo.html']")
        .await;
    browser
        .wait_for("main[data-kind='model'][data-name='PatientInfo']")
        .await;
    assert_eq!(
        browser
            .attr("#field-first_name", "data-presence")
            .await
            .as_deref(),
        Some("required")
    );
    assert!(
        browser
            .text("#field-first_name .details")
            .await
            .contains("at most 4096 characters"),
        "the bound a field gets is shown"
    );
    assert!(
        browser
            .text(".callout.not-shown")
            .await
            .contains("Patient name validation rules"),
        "what the document leaves open is shown"
    );
    browser.shot("model").await;
    assert_accessible(&browser, "a model").await;

    // A search, typed as a keyboard user types, from the model's page: results ranked with
    // the exact name first, announced, and followed by Enter.
    browser.click("#search").await;
    browser.type_text("list_markers").await;
    browser.wait_for("#search-results li a").await;
    let results = browser.texts("#search-results .result-name").await;
    assert_eq!(
        results.first().map(String::as_str),
        Some("list_markers"),
        "{results:?}"
    );
    let status = browser
        .script("return document.getElementById('search-status').textContent;")
        .await;
    let status = status.as_str().unwrap_or_default();
    assert!(
        status.contains("result"),
        "the count is announced: {status:?}"
    );
    browser.shot("search").await;
    assert_accessible(&browser, "a search").await;
    browser.press(Key::Enter).await;
    browser
        .wait_for("main[data-kind='endpoint'][data-name='list_markers']")
        .await;
    browser.shot("search-followed").await;

    // Search reads descriptions too: "grace period" is in the doc of the endpoints of
    // deletion, not in any name; the result shows the words around it.
    let example_first = browser
        .script("var m = document.querySelector('main'); var s = m.querySelector('section[data-kind]'); return s ? s.getAttribute('data-kind') : '';")
        .await;
    assert_eq!(
        example_first, "example-request",
        "the example request comes first"
    );
    browser.click("#search").await;
    browser.type_text("grace period").await;
    browser.wait_for("#search-results li a").await;
    let results = browser.texts("#search-results .result-name").await;
    assert!(results.iter().any(|r| r == "delete_user"), "{results:?}");
    let excerpts = browser.texts("#search-results .result-excerpt").await;
    assert!(
        excerpts.iter().any(|e| e.contains("grace period")),
        "{excerpts:?}"
    );
    browser.shot("search-descriptions").await;
    browser.press(Key::Escape).await;

    // A search that finds nothing says so.
    browser.click("#search").await;
    browser.type_text("no such thing anywhere").await;
    let status = browser
        .script("return document.getElementById('search-status').textContent;")
        .await;
    assert_eq!(status, "No results for no such thing anywhere");
    browser.stop().await;
}
