//! The site of small specs written for one property each: presence spelled four ways,
//! spec text escaped, what is not shown and where facts come from visible, ids unique.

use super::{DocsSettings, site};
use crate::emit::Files;
use crate::{SourceFile, check_source};

const SPEC: &str = r#"
/// A <b>test</b> service & more: `x<y>`.
service Test {
    title "Test <API> & co"
    version "1"
}

api main {
    base "https://example.test"
    error 404: Problem
}

/// The key.
auth key: header "X-Key" {
    principal team
}

@deprecated("Use key", use: key)
auth old_key: header "X-Old-Key" {
    same_as key
}

model Problem {
    detail: string
}

/// <script>alert("doc")</script> & `<code>`
model Shapes {
    not_shown "Which <fields> are mandatory"
    required_field: string
    optional_field?: string
    nullable_field: string | null
    both_field?: string | null
    @source(deployed_client)
    from_client?: int
    @source(toolkit)
    from_toolkit?: int
    @request_only
    twice: string
    @response_only
    twice: int
}

open enum Kind {
    not_shown "Every kind"
}

envelope Event {
    event_type: string
    data: object
}

event thing_happened: "thing.{kind}" {
    placeholder kind: Kind
    data: Problem
}

@deprecated("Old", use: get_shapes, sunset: "2030-01-01")
endpoint old_shapes: GET "/old" {
    auth key
    response 200: Shapes
}

endpoint get_shapes: GET "/shapes/{id}" {
    auth key
    path id: uuid
    @min(1) @max(100)
    query limit?: int = 10
    response 200: Shapes
    error 409: Problem
}

endpoint post_note: POST "/notes" {
    auth key
    query body?: string
    body Problem
    response 201: Problem
}

not_shown "Rate limits"
"#;

fn render(text: &str) -> Files {
    let file = SourceFile::new("test.covenant", text);
    let checked = check_source(&file);
    let Some(spec) = checked.spec else {
        panic!("{}", checked.diagnostics.render(&file));
    };
    let settings = DocsSettings {
        spec_name: "test.covenant".into(),
    };
    site(&spec, &settings)
}

/// The table row with this id, up to its end.
fn row<'a>(page: &'a str, id: &str) -> &'a str {
    let start = page
        .find(&format!(" id=\"{id}\""))
        .unwrap_or_else(|| panic!("no row {id}"));
    let end = page[start..].find("</tr>").expect("the row ends") + start;
    &page[start..end]
}

#[test]
fn the_four_presence_cases_read_differently() {
    let files = render(SPEC);
    let page = &files["models/Shapes.html"];
    let cases = [
        (
            "required_field",
            "required",
            "Required",
            "always present, never null",
        ),
        (
            "optional_field",
            "optional",
            "Optional",
            "may be absent; never null",
        ),
        (
            "nullable_field",
            "nullable",
            "Nullable",
            "always present; may be null",
        ),
        (
            "both_field",
            "optional-nullable",
            "Optional and nullable",
            "may be absent, null or a value",
        ),
    ];
    for (field, word, label, meaning) in cases {
        let r = row(page, &format!("field-{field}"));
        assert!(r.contains(&format!("data-presence=\"{word}\"")), "{r}");
        assert!(r.contains(&format!("<strong>{label}</strong>")), "{r}");
        assert!(r.contains(meaning), "{r}");
    }
}

#[test]
fn spec_text_is_escaped_everywhere() {
    let files = render(SPEC);
    for (path, text) in &files {
        assert!(!text.contains("<script>alert"), "{path}");
        assert!(!text.contains("<b>test"), "{path}");
        assert!(!text.contains("<fields>"), "{path}");
        if path.ends_with(".html") {
            assert_eq!(
                text.matches("<script").count(),
                2,
                "{path}: only the site's scripts"
            );
            assert!(text.contains("<title>"), "{path}");
            assert!(text.contains("Test &lt;API&gt; &amp; co</title>"), "{path}");
        }
    }
    let model = &files["models/Shapes.html"];
    assert!(model.contains(
        "&lt;script&gt;alert(&quot;doc&quot;)&lt;/script&gt; &amp; <code>&lt;code&gt;</code>"
    ));
    let index = &files["index.html"];
    assert!(
        index.contains("A &lt;b&gt;test&lt;/b&gt; service &amp; more: <code>x&lt;y&gt;</code>.")
    );
}

#[test]
fn what_the_source_leaves_open_is_a_labelled_callout() {
    let files = render(SPEC);
    let model = &files["models/Shapes.html"];
    let callout = model.find("data-kind=\"not-shown\"").expect("a callout");
    let rest = &model[callout..];
    assert!(rest.contains("Not shown in the source"));
    assert!(rest.contains("Which &lt;fields&gt; are mandatory"));
    assert!(files["enums/Kind.html"].contains("Every kind"));
    let index = &files["index.html"];
    assert!(index.contains("Rate limits"), "the spec's own not_shown");
    assert!(index.contains("Every kind (enum <a href=\"enums/Kind.html\"><code>Kind</code></a>)"));
}

#[test]
fn facts_not_from_the_document_carry_a_badge() {
    let files = render(SPEC);
    let model = &files["models/Shapes.html"];
    assert!(row(model, "field-from_client").contains(">from the deployed client</span>"));
    assert!(
        row(model, "field-from_toolkit").contains(">the toolkit&#39;s choice</span>")
            || row(model, "field-from_toolkit").contains(">the toolkit's choice</span>")
    );
    assert!(!row(model, "field-required_field").contains("badge"));
    let index = &files["index.html"];
    assert!(index.contains(" id=\"legend\""));
    assert!(index.contains("from the deployed client"));
}

#[test]
fn a_name_of_both_shapes_gets_two_ids() {
    let files = render(SPEC);
    let model = &files["models/Shapes.html"];
    assert!(row(model, "field-twice").contains("request only"));
    assert!(row(model, "field-twice-2").contains("response only"));
    assert!(model.contains("Example request shape"));
}

#[test]
fn endpoints_show_constraints_defaults_statuses_and_deprecations() {
    let files = render(SPEC);
    let page = &files["endpoints/get_shapes.html"];
    let limit = row(page, "param-limit");
    assert!(limit.contains("from 1 to 100"), "{limit}");
    assert!(limit.contains("Default <code>10</code>"), "{limit}");
    for status in ["status-200", "status-409", "status-404"] {
        assert!(page.contains(&format!(" id=\"{status}\"")), "{status}");
    }
    assert!(page.contains("an error of the API"));
    assert!(page.contains("GET /shapes/0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a?limit=7"));
    assert!(page.contains("X-Key: &lt;key credential&gt;"));
    let old = &files["endpoints/old_shapes.html"];
    assert!(old.contains("removed on <time datetime=\"2030-01-01\">2030-01-01</time>"));
    assert!(old.contains("<a href=\"../endpoints/get_shapes.html\"><code>get_shapes</code></a>"));
    let auth = &files["auth.html"];
    assert!(auth.contains("<a href=\"#scheme-key\"><code>key</code></a>"));
    // A parameter named `body` beside a body has an example of its own.
    let note = &files["endpoints/post_note.html"];
    assert!(note.contains("POST /notes?body=text\n"), "{note}");
    assert!(note.contains("&quot;detail&quot;: &quot;text&quot;"));
}

#[test]
fn an_event_whose_placeholder_has_no_values_renders_without_an_example() {
    let files = render(SPEC);
    let page = &files["events/thing_happened.html"];
    assert!(page.contains("thing.{kind}"));
    assert!(!page.contains("Example delivery"));
}

#[test]
fn a_spec_with_nothing_but_a_public_endpoint_renders() {
    let files = render(
        "service Tiny {}\napi main { base \"{base_url}\" }\n\
         endpoint health: GET \"/health\" {\n    public\n    response 200: not_shown(\"Body\")\n}\n",
    );
    let page = &files["endpoints/health.html"];
    assert!(page.contains("Public: no credentials needed."));
    assert!(page.contains("The source does not show the body"));
    assert!(!files.contains_key("auth.html"));
    assert!(!files["index.html"].contains("auth.html"));
}

#[test]
fn the_search_script_finds_what_the_pages_give_it() {
    let files = render(SPEC);
    let script = &files["search.js"];
    for id in ["search", "search-results", "search-status"] {
        assert!(
            script.contains(&format!("getElementById(\"{id}\")")),
            "{id}"
        );
        assert!(
            files["index.html"].contains(&format!(" id=\"{id}\"")),
            "{id}"
        );
    }
    let global = super::search::GLOBAL;
    assert!(script.contains(&format!("window.{global}")));
    assert!(files["search-index.js"].starts_with(&format!("window.{global} = [")));
    assert!(files["index.html"].contains("<body data-root=\"\">"));
    let model = &files["models/Shapes.html"];
    assert!(model.contains("<body data-root=\"../\">"));
    assert!(model.contains("href=\"../models/Shapes.html\" aria-current=\"page\""));
    assert_eq!(model.matches("aria-current").count(), 1);
}

#[test]
fn an_endpoint_page_opens_with_its_example_and_writes_out_its_own_bodies_fields() {
    let files = render(SPEC);
    let page = &files["endpoints/get_shapes.html"];
    let example = page
        .find("data-kind=\"example-request\"")
        .expect("an example request");
    let parameters = page.find("data-kind=\"parameters\"").expect("parameters");
    assert!(
        example < parameters,
        "the example request comes before the parameters"
    );
    // The endpoint's own answers, 200 and 409, with their fields in place.
    assert!(page.contains("Fields of the 200 response body"));
    let r = row(page, "status-200-field-nullable_field");
    assert!(r.contains("data-presence=\"nullable\""), "{r}");
    assert!(page.contains("Fields of the 409 response body"));
    // The API's 404, the same on every page, stays on its model's page.
    assert!(!page.contains("Fields of the 404 response body"));
}

#[test]
fn the_search_index_holds_descriptions_escaped() {
    let files = render(SPEC);
    let index = &files["search-index.js"];
    assert!(index.contains("\\u003cscript\\u003ealert"), "{index}");
    assert!(!index.contains("<script>"));
}
