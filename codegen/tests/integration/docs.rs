//! The reference site of every spec the project holds: each page is well formed for a
//! browser and a screen reader, every link inside the site lands on a file and an id in it,
//! search knows every endpoint, model, enum and event, and the same spec gives the same
//! bytes.

use covenant_codegen::Spec;
use covenant_codegen::emit::Files;
use covenant_codegen::emit::docs::{DocsSettings, site};
use regex::Regex;
use std::collections::HashSet;
use std::path::Path;
use std::sync::LazyLock;

/// Every spec of the project, by the name the site shows.
const SPECS: &[&str] = &[
    "spec/health.covenant",
    "spec/examples/bookshop.covenant",
    "corpus/specs/petstore.covenant",
    "corpus/specs/payments.covenant",
    "corpus/specs/github.covenant",
];

fn load(name: &str) -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    match checked.spec {
        Some(spec) => spec,
        None => panic!("{}", checked.diagnostics.render(&file)),
    }
}

fn render(name: &str) -> (Spec, Files) {
    let spec = load(name);
    let settings = DocsSettings {
        spec_name: name.to_string(),
    };
    let files = site(&spec, &settings);
    (spec, files)
}

static ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"\sid="([^"]*)""#).unwrap());
static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"\s(?:href|src)="([^"]*)""#).unwrap());
static H1: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<h1[\s>]").unwrap());
static HEADING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<h([1-6])[\s>]").unwrap());

fn ids_of(html: &str) -> Vec<&str> {
    ID.captures_iter(html)
        .map(|c| c.get(1).unwrap().as_str())
        .collect()
}

fn html_pages(files: &Files) -> impl Iterator<Item = (&String, &String)> {
    files.iter().filter(|(p, _)| p.ends_with(".html"))
}

/// The path `href` leads to from the page at `from`, both relative to the site's folder.
fn resolve(from: &str, href: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in href.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[test]
fn every_page_has_lang_title_one_h1_main_and_unique_ids() {
    for name in SPECS {
        let (_, files) = render(name);
        for (path, html) in html_pages(&files) {
            assert!(html.starts_with("<!DOCTYPE html>"), "{name} {path}");
            assert!(html.contains("<html lang=\"en\">"), "{name} {path}: lang");
            assert!(html.contains("<title>"), "{name} {path}: title");
            assert_eq!(H1.find_iter(html).count(), 1, "{name} {path}: one h1");
            assert_eq!(html.matches("<main ").count(), 1, "{name} {path}: main");
            assert!(html.contains("<header "), "{name} {path}: header");
            assert!(html.contains("<nav "), "{name} {path}: nav");
            assert!(html.contains("href=\"#main\""), "{name} {path}: skip link");
            assert!(html.contains("<label for=\"search\">"), "{name} {path}");
            assert!(html.contains("id=\"search-results\""), "{name} {path}");
            let mut seen = HashSet::new();
            for id in ids_of(html) {
                assert!(seen.insert(id), "{name} {path}: id {id} twice");
            }
            // Headings never skip a level on the way down.
            let mut last = 0;
            for c in HEADING.captures_iter(html) {
                let level: u32 = c[1].parse().unwrap();
                assert!(level <= last + 1, "{name} {path}: h{level} after h{last}");
                last = level;
            }
            // Every table says what it holds.
            assert_eq!(
                html.matches("<table").count(),
                html.matches("<caption>").count(),
                "{name} {path}: a table without a caption"
            );
        }
    }
}

#[test]
fn every_internal_link_resolves_to_a_file_and_an_id() {
    for name in SPECS {
        let (_, files) = render(name);
        let ids: std::collections::HashMap<&str, HashSet<&str>> = html_pages(&files)
            .map(|(p, html)| (p.as_str(), ids_of(html).into_iter().collect()))
            .collect();
        let mut checked = 0;
        for (path, html) in html_pages(&files) {
            for c in LINK.captures_iter(html) {
                let href = c[1].replace("&amp;", "&");
                assert!(
                    !href.contains("://") && !href.starts_with("//"),
                    "{name} {path}: a link out of the site: {href}"
                );
                let (target, fragment) = match href.split_once('#') {
                    Some((t, f)) => (t, Some(f)),
                    None => (href.as_str(), None),
                };
                let file = if target.is_empty() {
                    path.clone()
                } else {
                    resolve(path, target)
                };
                assert!(
                    files.contains_key(&file),
                    "{name} {path}: {href} leads to no file ({file})"
                );
                if let Some(f) = fragment {
                    let there = ids.get(file.as_str()).unwrap_or_else(|| {
                        panic!("{name} {path}: {href} has a fragment but {file} is no page")
                    });
                    assert!(there.contains(f), "{name} {path}: no id {f} in {file}");
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "{name}: only {checked} links");
    }
}

#[test]
fn every_search_entry_resolves_too() {
    let entry = Regex::new(
        r#"\["([^"]*)","((?:[^"\\]|\\.)*)","((?:[^"\\]|\\.)*)","([^"]*)","(?:[^"\\]|\\.)*"\]"#,
    )
    .unwrap();
    for name in SPECS {
        let (_, files) = render(name);
        let index = &files["search-index.js"];
        let mut n = 0;
        for c in entry.captures_iter(index) {
            let url = &c[4];
            let (file, fragment) = url.split_once('#').unwrap_or((url, ""));
            let page = files
                .get(file)
                .unwrap_or_else(|| panic!("{name}: search entry {url} leads to no file"));
            if !fragment.is_empty() {
                assert!(
                    page.contains(&format!(" id=\"{fragment}\"")),
                    "{name}: search entry {url}: no such id"
                );
            }
            n += 1;
        }
        assert!(n > 10, "{name}: {n} entries");
    }
}

#[test]
fn the_search_index_names_every_endpoint_model_enum_and_event() {
    for name in SPECS {
        let (spec, files) = render(name);
        let index = &files["search-index.js"];
        assert!(index.starts_with("window.COVENANT_SEARCH_INDEX = ["));
        let has = |kind: &str, n: &str, url: String| {
            let entry = format!("[\"{kind}\",\"{n}\",");
            assert!(index.contains(&entry), "{name}: no {kind} {n} in search");
            assert!(
                index.contains(&format!("\"{url}\"")),
                "{name}: no link to {url}"
            );
        };
        for ep in &spec.endpoints {
            has("endpoint", &ep.name, format!("endpoints/{}.html", ep.name));
            assert!(index.contains(&format!("\"{} {}\"", ep.method.as_str(), ep.path)));
        }
        for m in &spec.models {
            has("model", &m.name, format!("models/{}.html", m.name));
        }
        for e in &spec.enums {
            has("enum", &e.name, format!("enums/{}.html", e.name));
        }
        for ev in &spec.events {
            has("event", &ev.name, format!("events/{}.html", ev.name));
        }
        for a in &spec.auth_schemes {
            has(
                "auth scheme",
                &a.name,
                format!("auth.html#scheme-{}", a.name),
            );
        }
        // Every page loads the index and the script beside it.
        for (path, html) in html_pages(&files) {
            assert!(html.contains("search-index.js\"></script>"), "{path}");
            assert!(html.contains("search.js\"></script>"), "{path}");
        }
    }
}

#[test]
fn the_site_has_a_page_for_everything() {
    for name in SPECS {
        let (spec, files) = render(name);
        for ep in &spec.endpoints {
            let page = &files[&format!("endpoints/{}.html", ep.name)];
            assert!(page.contains(&format!("data-kind=\"endpoint\" data-name=\"{}\"", ep.name)));
            for r in covenant_codegen::ir::all_responses(&spec, ep) {
                assert!(
                    page.contains(&format!(" id=\"status-{}\"", r.status)),
                    "{name} {}",
                    ep.name
                );
            }
            for p in &ep.params {
                assert!(page.contains(&format!(" data-name=\"{}\"", p.field.name)));
            }
        }
        for m in &spec.models {
            let page = &files[&format!("models/{}.html", m.name)];
            for f in &m.fields {
                let id = format!(" id=\"field-{}\"", f.name);
                assert!(
                    page.contains(&id)
                        || !f
                            .name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                    "{name} {}: {id}",
                    m.name
                );
            }
        }
        for e in &spec.enums {
            assert!(files.contains_key(&format!("enums/{}.html", e.name)));
        }
        for ev in &spec.events {
            assert!(files.contains_key(&format!("events/{}.html", ev.name)));
        }
        assert_eq!(
            files.contains_key("auth.html"),
            !spec.auth_schemes.is_empty()
        );
        for asset in ["style.css", "search.js", "search-index.js", "index.html"] {
            assert!(files.contains_key(asset), "{name}: {asset}");
        }
    }
}

#[test]
fn the_same_spec_gives_the_same_bytes() {
    let spec = load("spec/health.covenant");
    let settings = DocsSettings {
        spec_name: "spec/health.covenant".into(),
    };
    let first = site(&spec, &settings);
    let again = site(&load("spec/health.covenant"), &settings);
    assert_eq!(first.len(), again.len());
    for (path, text) in &first {
        assert!(again[path] == *text, "{path} differs between two runs");
    }
}

#[test]
fn the_service_sites_index_shows_the_changelog_legend_and_what_is_not_shown() {
    let (spec, files) = render("spec/health.covenant");
    let index = &files["index.html"];
    assert!(index.contains(" id=\"legend\""));
    assert!(index.contains("from the deployed client"));
    assert!(index.contains("the toolkit&#39;s choice") || index.contains("the toolkit's choice"));
    assert!(index.contains(" id=\"changelog\""));
    assert!(index.contains(" id=\"not-shown\""));
    assert!(index.contains("Not shown in the source"));
    for api in &spec.apis {
        assert!(index.contains(&format!(" id=\"api-{}\"", api.name)));
    }
    assert!(index.contains("spec/health.covenant"));
    assert!(!index.contains("/work/"), "no machine path");
    // Each deployed-client fact of an endpoint shows its badge on the endpoint's page.
    let sourced = spec
        .endpoints
        .iter()
        .find(|e| e.provenance == covenant_codegen::ir::Provenance::DeployedClient)
        .expect("the service spec has facts from the deployed client");
    let page = &files[&format!("endpoints/{}.html", sourced.name)];
    assert!(page.contains("data-source=\"deployed_client\">from the deployed client<"));
}
