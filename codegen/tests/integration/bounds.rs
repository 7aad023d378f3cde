//! Hostile sizes: every tool over the parser stays within its stack and grows linearly
//! with the spec.

use covenant_codegen::emit::docs::{DocsSettings, site};
use covenant_codegen::format::format_source;
use covenant_codegen::{SourceFile, check_source};

fn nested_maps(depth: usize) -> String {
    let mut ty = "string".to_string();
    for _ in 0..depth {
        ty = format!("map<string, {ty}>");
    }
    format!("model Deep {{\n    value: {ty}\n}}\n")
}

/// 10,000 nested maps once overflowed the stack of `check`, `fmt`, `docs`, `generate` and
/// `diff`; now the parser refuses them with a diagnostic, on a small stack.
#[test]
fn deep_nesting_is_a_diagnostic_not_a_crash() {
    let run = || {
        for text in [
            nested_maps(10_000),
            format!(
                "model Deep {{\n    value: string{}\n}}\n",
                "[]".repeat(10_000)
            ),
            format!(
                "model Deep {{\n    @one_of({}1{})\n    value: int\n}}\n",
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
        ] {
            let file = SourceFile::new("deep.covenant", text);
            let checked = check_source(&file);
            assert!(checked.spec.is_none());
            let rendered = checked.diagnostics.render(&file);
            assert!(
                rendered.contains("nested more than 64 levels deep"),
                "{rendered}"
            );
            assert!(format_source(&file).is_err());
        }
        let fine = SourceFile::new("ok.covenant", nested_maps(20));
        assert!(
            check_source(&fine)
                .diagnostics
                .render(&fine)
                .contains("never used")
        );
    };
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

fn many_models(count: usize) -> String {
    let mut text = String::from(
        "service S {\n    title \"S\"\n    version \"1\"\n}\n\napi main {\n    base \"{base_url}\"\n}\n\nauth key: bearer {\n    principal caller\n}\n\n",
    );
    for i in 0..count {
        text.push_str(&format!(
            "model M{i} {{\n    name: string\n    next?: M{}\n}}\n\n",
            (i + 1) % count
        ));
    }
    text.push_str("endpoint get: GET \"/m\" {\n    auth key\n    response 200: M0\n}\n");
    text
}

fn site_bytes(count: usize) -> usize {
    let file = SourceFile::new("many.covenant", many_models(count));
    let spec = check_source(&file).spec.expect("valid");
    site(&spec, &DocsSettings::default())
        .values()
        .map(String::len)
        .sum()
}

/// Every page once listed every model: 1,000 models wrote 47 MiB, 4,000 wrote 748 MiB.
/// Twice the models now make at most a little over twice the site.
#[test]
fn the_reference_site_grows_linearly_with_the_spec() {
    let (small, large) = (site_bytes(1_000), site_bytes(2_000));
    assert!(
        large < small * 23 / 10,
        "1,000 models: {small} bytes; 2,000 models: {large} bytes"
    );
    assert!(small < 12 * 1024 * 1024, "1,000 models made {small} bytes");
}

/// Each warning once rendered with the whole file, so 40,000 unused models took 14 s. A
/// diagnostic now shows the lines it points at, numbered as in the file.
#[test]
fn a_diagnostic_shows_its_own_lines_with_their_numbers() {
    let text = many_models(50).replace("next?: M1\n", "next?: Missing\n");
    let file = SourceFile::new("many.covenant", text);
    let rendered = check_source(&file).diagnostics.render(&file);
    assert!(rendered.contains("--> many.covenant:16:"), "{rendered}");
    assert!(rendered.contains("16 |     next?: Missing"), "{rendered}");
    assert!(
        !rendered.contains("model M10 "),
        "only the lines pointed at: {rendered}"
    );
}
