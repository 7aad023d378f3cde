//! Golden diagnostics: every spec under tests/ui is broken in one way, and its rendered
//! diagnostics are compared with the reviewed snapshot in tests/snapshots. Update snapshots
//! only deliberately: `INSTA_UPDATE=always cargo test -p covenant-codegen --test integration diagnostics::`
//! (or `cargo insta review`), then read the diff.

use covenant_codegen::{SourceFile, check_source};

#[test]
fn broken_specs_render_rustc_style_diagnostics() {
    insta::glob!("../ui", "*.covenant", |path| {
        let text = std::fs::read_to_string(path).expect("read ui spec");
        let name = format!("tests/ui/{}", path.file_name().unwrap().to_string_lossy());
        let file = SourceFile::new(name, text);
        let checked = check_source(&file);
        assert!(
            !checked.diagnostics.items.is_empty(),
            "{} produced no diagnostics",
            file.name
        );
        insta::assert_snapshot!(checked.diagnostics.render(&file));
    });
}

#[test]
fn every_diagnostic_has_a_location_line() {
    insta::glob!("../ui", "*.covenant", |path| {
        let text = std::fs::read_to_string(path).expect("read ui spec");
        let file = SourceFile::new("spec.covenant", text);
        let rendered = check_source(&file).diagnostics.render(&file);
        for block in rendered
            .split("\n\n")
            .filter(|b| b.starts_with("error[") || b.starts_with("warning["))
        {
            let arrow = block.lines().nth(1).unwrap_or_default();
            assert!(
                arrow.trim_start().starts_with("--> spec.covenant:"),
                "no file:line:col in:\n{block}"
            );
        }
    });
}
