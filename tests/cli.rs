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
    let dir = std::env::temp_dir().join(format!("covenant-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("garbage.covenant");
    std::fs::write(&path, b"model \xff\xfe {").unwrap();
    let (code, _, stderr) = covenant(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 2, "non-UTF-8 input is an I/O error: {stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
