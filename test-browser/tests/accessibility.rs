//! The accessibility check finds what it exists to find: a page with an unlabelled field and
//! an image without a text alternative fails it, and the same page mended passes.

use covenant_test_browser::Browser;
use std::path::Path;

const BROKEN: &str = "<!doctype html><html lang=en><head><title>Form</title></head><body>\
    <main><h1>Form</h1><input type=text><img src=x.png></main></body></html>";
const MENDED: &str = "<!doctype html><html lang=en><head><title>Form</title></head><body>\
    <main><h1>Form</h1><label>Name <input type=text></label><img src=x.png alt=Logo></main>\
    </body></html>";

#[tokio::test]
async fn violations_are_found_and_named() {
    let pages = tempfile::tempdir().expect("a folder for the pages");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("accessibility-check");
    let Some(browser) = Browser::start(&shots).await else {
        return;
    };
    let broken = pages.path().join("broken.html");
    std::fs::write(&broken, BROKEN).unwrap();
    browser.goto(&format!("file://{}", broken.display())).await;
    let Some(violations) = browser.accessibility_violations().await else {
        return;
    };
    let rules: Vec<&str> = violations
        .iter()
        .map(|v| v.split_whitespace().next().unwrap_or_default())
        .collect();
    assert!(rules.contains(&"label"), "{violations:?}");
    assert!(rules.contains(&"image-alt"), "{violations:?}");
    assert!(
        violations.iter().any(|v| v.contains("at input")),
        "{violations:?}"
    );

    let mended = pages.path().join("mended.html");
    std::fs::write(&mended, MENDED).unwrap();
    browser.goto(&format!("file://{}", mended.display())).await;
    assert_eq!(browser.accessibility_violations().await, Some(Vec::new()));
    browser.stop().await;
}
