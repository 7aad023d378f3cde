//! The `check` command's contract: output and exit status.

use std::process::Command;

fn covenant(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run covenant");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_accepts_the_service_spec_and_prints_a_summary() {
    let (code, stdout, stderr) = covenant(&["check"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("valid spec of Health data and lab testing service"),
        "{stdout}"
    );
    for label in [
        "models",
        "enums",
        "endpoints",
        "events",
        "deprecations",
        "not shown",
    ] {
        assert!(stdout.contains(label), "summary lacks {label}: {stdout}");
    }
    assert!(stderr.is_empty(), "the service spec has warnings: {stderr}");
}

#[test]
fn check_reports_a_broken_spec_with_locations_and_exit_1() {
    let (code, stdout, stderr) = covenant(&["check", "codegen/tests/ui/unknown_type.covenant"]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("error[E0102]: unknown type `Ownr`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> codegen/tests/ui/unknown_type.covenant:10:12"),
        "{stderr}"
    );
}

#[test]
fn check_exits_2_on_a_missing_file_or_bad_usage() {
    let (code, _, stderr) = covenant(&["check", "no/such/spec.covenant"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no spec at no/such/spec.covenant"),
        "{stderr}"
    );
    let (code, _, _) = covenant(&["check", "--no-such-flag"]);
    assert_eq!(code, 2);
}

#[test]
fn check_walks_a_folder_and_can_deny_warnings() {
    let (code, stdout, _) = covenant(&["check", "spec/examples"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("valid spec of Bookshop API"));
    let (code, _, stderr) = covenant(&[
        "check",
        "--deny-warnings",
        "codegen/tests/ui/unused_model_warning.covenant",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("warning[W0001]"));
}

#[test]
fn check_rejects_binary_garbage_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.covenant");
    std::fs::write(&path, b"model \xff\xfe {").unwrap();
    let (code, _, stderr) = covenant(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 2, "non-UTF-8 input is an I/O error: {stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");
}

/// A scratch copy of the spec and of generated/, so tests can edit them.
/// The folder is removed when the test ends, pass or fail.
fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("covenant-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::create_dir_all(dir.path().join("spec")).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("spec/health.covenant"),
        dir.path().join("spec/health.covenant"),
    )
    .unwrap();
    dir
}

#[test]
fn generate_check_passes_on_the_checked_in_output() {
    let (code, stdout, stderr) = covenant(&["generate", "--check"]);
    assert_eq!(code, 0, "generated/ is stale: {stderr}");
    assert!(stdout.contains("up to date"), "{stdout}");
}

#[test]
fn generate_is_byte_stable_and_check_catches_every_kind_of_drift() {
    let scratch = scratch("generate");
    let dir = scratch.path();
    let spec = dir.join("spec/health.covenant");
    let out = dir.join("out");
    let args = |check: bool| {
        let mut a = vec![
            "generate",
            "--spec",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        if check {
            a.push("--check");
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| covenant(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (code, _, stderr) = run(args(true));
    assert_eq!(code, 1, "an empty folder is stale");
    assert!(stderr.contains("missing  src/models.rs"), "{stderr}");
    assert_eq!(run(args(false)).0, 0);
    let first = std::fs::read_to_string(out.join("openapi/main.json")).unwrap();
    let (code, stdout, _) = run(args(false));
    assert_eq!(code, 0);
    assert!(
        stdout.contains("0 written, 0 removed"),
        "a second run changes nothing: {stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("openapi/main.json")).unwrap(),
        first
    );
    assert_eq!(run(args(true)).0, 0);

    // One field changes: the check fails and names the Rust, schema and OpenAPI files.
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(
        &spec,
        text.replace(
            "    member_id: string\n",
            "    member_id: string\n    plan_code?: string\n",
        ),
    )
    .unwrap();
    let (code, _, stderr) = run(args(true));
    assert_eq!(code, 1);
    for stale in [
        "src/models.rs",
        "schemas/models/InsuranceRecord.json",
        "openapi/main.json",
    ] {
        assert!(
            stderr.contains(&format!("differs  {stale}")),
            "{stale} not reported: {stderr}"
        );
    }
    // A file generation no longer writes is reported, then removed.
    std::fs::write(out.join("schemas/models/Gone.json"), "{}").unwrap();
    let (_, _, stderr) = run(args(true));
    assert!(
        stderr.contains("extra    schemas/models/Gone.json"),
        "{stderr}"
    );
    assert_eq!(run(args(false)).0, 0);
    assert!(!out.join("schemas/models/Gone.json").exists());
}

#[test]
fn generate_refuses_an_invalid_spec_and_writes_nothing() {
    let scratch = scratch("invalid");
    let dir = scratch.path();
    let spec = dir.join("spec/health.covenant");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(
        &spec,
        text.replace("payor_code: string", "payor_code: strin"),
    )
    .unwrap();
    let out = dir.join("out");
    let (code, _, stderr) = covenant(&[
        "generate",
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown type `strin`"), "{stderr}");
    assert!(!out.exists(), "nothing is written for an invalid spec");
}
