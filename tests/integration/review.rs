//! The reviewer's commands as a user runs them: `diff` (files, `--against` a git ref, each
//! output format, the project's `[diff]` policy, the version bump), `conform
//! --changed-since`, and `fmt`.

use std::path::Path;
use std::process::Command;

/// Runs covenant in `dir`; its exit code, stdout and stderr.
fn covenant_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("run covenant");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const OLD: &str = r#"service Pets {
    title "Pets"
    version "1.2"
}

api main {
    base "https://pets.example"
    versions "/v1"
}

enum Mood {
    calm
    busy
}

model Pet {
    id: string
    nickname?: string
    mood: Mood
    age: int | null
}

model NewPet {
    @max_length(40)
    name: string
    tag?: string
}

endpoint create_pet: POST "/v1/pets" {
    public
    body NewPet
    response 201: Pet
}

endpoint get_pet: GET "/v1/pets/{id}" {
    public
    path id: string
    response 200: Pet
}
"#;

/// The five changes a reviewer must see: a field made required, a value added to a closed
/// response enum, an endpoint removed, a request constraint tightened, a nullable field made
/// non-nullable.
fn breaking() -> String {
    OLD.replace("    tag?: string", "    tag: string")
        .replace("    calm\n", "    calm\n    sleepy\n")
        .replace(
            "endpoint get_pet: GET \"/v1/pets/{id}\" {\n    public\n    path id: string\n    response 200: Pet\n}\n",
            "",
        )
        .replace("@max_length(40)", "@max_length(20)")
        .replace("age: int | null", "age: int")
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn diff_reports_each_breaking_change_with_its_category_and_both_locations() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    write(dir.path(), "new.covenant", &breaking());
    let (code, stdout, stderr) = covenant_in(
        dir.path(),
        &["diff", "old.covenant", "new.covenant", "--format", "json"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let finding = |rule: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule} in {stdout}"))
            .clone()
    };
    let required = finding("request-field-required");
    assert_eq!(required["subject"], "NewPet.tag");
    assert_eq!(required["categories"][0], "breaks-clients");
    assert_eq!(required["severity"], "error");
    assert_eq!(required["new"]["file"], "new.covenant");
    assert_eq!(required["new"]["line"], 27);
    assert_eq!(required["old"]["line"], 26);
    assert_eq!(
        finding("response-enum-value-added")["subject"],
        "Mood.sleepy"
    );
    let removed = finding("endpoint-removed");
    assert_eq!(removed["new"], serde_json::Value::Null);
    assert_eq!(removed["old"]["line"], 35);
    assert_eq!(
        finding("request-constraint-tightened")["subject"],
        "NewPet.name"
    );
    let non_null = finding("response-field-non-nullable");
    assert_eq!(non_null["subject"], "Pet.age");
    assert_eq!(non_null["categories"][0], "breaks-clients");
    assert_eq!(report["summary"]["fails"], true);
}

#[test]
fn diff_of_a_reformat_or_a_comment_change_reports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    let reformatted = format!(
        "// Pets, reformatted.\n{}",
        OLD.replace("    id: string\n", "    id:   string   // the id\n\n")
    );
    write(dir.path(), "new.covenant", &reformatted);
    let (code, stdout, _) = covenant_in(dir.path(), &["diff", "old.covenant", "new.covenant"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("diff: no changes"), "{stdout}");
}

#[test]
fn a_compatible_change_passes_and_a_major_bump_excuses_a_breaking_one() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    let compatible = OLD.replace(
        "    tag?: string\n",
        "    tag?: string\n    colour?: string\n",
    );
    write(dir.path(), "compatible.covenant", &compatible);
    let (code, stdout, _) =
        covenant_in(dir.path(), &["diff", "old.covenant", "compatible.covenant"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("request-field-added"), "{stdout}");
    write(
        dir.path(),
        "bumped.covenant",
        &breaking().replace("\"1.2\"", "\"2.0\""),
    );
    let (code, stdout, _) = covenant_in(dir.path(), &["diff", "old.covenant", "bumped.covenant"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("allowed by the version bump (1.2 → 2.0)"),
        "{stdout}"
    );
    write(
        dir.path(),
        "minor.covenant",
        &breaking().replace("\"1.2\"", "\"1.3\""),
    );
    let (code, _, _) = covenant_in(dir.path(), &["diff", "old.covenant", "minor.covenant"]);
    assert_eq!(
        code, 1,
        "a minor bump does not excuse a breaking change by default"
    );
}

#[test]
fn the_project_config_sets_severities_and_what_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    let only_required = OLD.replace("    tag?: string", "    tag: string");
    write(dir.path(), "new.covenant", &only_required);
    write(
        dir.path(),
        "covenant.toml",
        "[diff]\nfail_on = [\"breaks-servers\"]\nbump = \"any\"\n[diff.rules]\n\"request-field-added\" = \"error\"\n",
    );
    let (code, stdout, _) = covenant_in(dir.path(), &["diff", "old.covenant", "new.covenant"]);
    assert_eq!(
        code, 0,
        "breaks clients only, and only servers fail: {stdout}"
    );
    assert!(
        stdout.contains("warning[request-field-required]"),
        "{stdout}"
    );
    write(
        dir.path(),
        "covenant.toml",
        "[diff]\nfail_on = [\"breaks-everyone\"]\n",
    );
    let (code, _, stderr) = covenant_in(dir.path(), &["diff", "old.covenant", "new.covenant"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("`breaks-everyone` is no category"),
        "{stderr}"
    );
}

#[test]
fn markdown_and_github_outputs_say_the_same() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    write(dir.path(), "new.covenant", &breaking());
    let (code, markdown, _) = covenant_in(
        dir.path(),
        &[
            "diff",
            "old.covenant",
            "new.covenant",
            "--format",
            "markdown",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        markdown.starts_with("### Spec changes: `old.covenant` → `new.covenant`"),
        "{markdown}"
    );
    assert!(markdown.contains("**Fails**"), "{markdown}");
    assert!(markdown.contains("#### Breaks clients (5)"), "{markdown}");
    assert!(
        markdown.contains("- **error** `request-field-required` `NewPet.tag`: now required"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "Also breaks Rust source. <sub>new.covenant:27:5, was old.covenant:26:5</sub>"
        ),
        "a change is placed in both versions and names whoever else it breaks: {markdown}"
    );
    assert!(
        markdown.contains("`Pet.age`: no longer nullable;")
            && markdown.contains("Also breaks servers, breaks Rust source."),
        "{markdown}"
    );
    let (_, github, _) = covenant_in(
        dir.path(),
        &["diff", "old.covenant", "new.covenant", "--format", "github"],
    );
    assert!(
        github.contains("::error file=new.covenant,line=27,col=5,title=request-field-required::NewPet.tag: now required"),
        "{github}"
    );
    assert!(
        github.contains("::error file=new.covenant,title=endpoint-removed::"),
        "a removal is annotated on the file: {github}"
    );
}

#[test]
fn findings_name_the_routes_they_travel_in_link_their_lines_and_fold_rust_only_additions() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.covenant", OLD);
    // Breaking changes, and two additions that change only the generated Rust.
    let new = breaking()
        .replace(
            "    nickname?: string\n",
            "    nickname?: string\n    colour?: string\n",
        )
        .replace("    tag: string\n", "    tag: string\n    note?: string\n");
    write(dir.path(), "new.covenant", &new);
    let base = "https://example.com/pets/blob/HEAD";
    let (_, markdown, _) = covenant_in(
        dir.path(),
        &[
            "diff",
            "old.covenant",
            "new.covenant",
            "--format",
            "markdown",
            "--link-base",
            base,
        ],
    );
    assert!(
        markdown.contains("[new.covenant:28:5](https://example.com/pets/blob/HEAD/new.covenant#L28), was old.covenant:26:5"),
        "a position in the new spec links to its line: {markdown}"
    );
    assert!(
        markdown.contains("<sub>affects `POST /v1/pets`</sub>"),
        "the route a change travels in is named: {markdown}"
    );
    assert!(
        markdown.contains(
            "<details><summary>Additions that change only the generated Rust (2)</summary>"
        ),
        "{markdown}"
    );
    let (_, human, _) = covenant_in(dir.path(), &["diff", "old.covenant", "new.covenant"]);
    assert!(human.contains("= note: affects POST /v1/pets"), "{human}");
    assert!(
        human.contains("note: 2 additions change only the generated Rust")
            && human.contains("NewPet.note (request-field-added)")
            && human.contains("Pet.colour (response-field-added)"),
        "{human}"
    );
    assert!(!human.contains("warning[response-field-added]"), "{human}");
}

/// A git repository in `dir` with OLD committed, then the working copy changed to `new`.
fn repository_with(dir: &Path, new: &str) {
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.join("spec")).unwrap();
    write(&dir.join("spec"), "pets.covenant", OLD);
    write(dir, "covenant.toml", "spec = \"spec/pets.covenant\"\n");
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "pets"]);
    write(&dir.join("spec"), "pets.covenant", new);
}

#[test]
fn against_a_git_ref_fails_a_breaking_change_and_passes_a_compatible_one() {
    let dir = tempfile::tempdir().unwrap();
    repository_with(dir.path(), &breaking());
    let (code, stdout, stderr) = covenant_in(dir.path(), &["diff", "--against", "main"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("--> spec/pets.covenant:27:5"), "{stdout}");
    assert!(
        stdout.contains("was at main:spec/pets.covenant:26:5"),
        "{stdout}"
    );
    let compatible = OLD.replace(
        "    tag?: string\n",
        "    tag?: string\n    colour?: string\n",
    );
    write(&dir.path().join("spec"), "pets.covenant", &compatible);
    let (code, stdout, _) = covenant_in(dir.path(), &["diff", "--against", "main"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, _, stderr) = covenant_in(dir.path(), &["diff", "--against", "no-such-ref"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no-such-ref"), "{stderr}");
}

/// `cassettes/create.json` in `dir`: one scenario creating a pet.
fn write_create_cassette(dir: &Path) {
    let cassettes = dir.join("cassettes");
    std::fs::create_dir(&cassettes).unwrap();
    write(
        &cassettes,
        "create.json",
        r#"{"id": "create", "title": "create", "exchanges": [{"endpoint": "create_pet",
        "request": {"method": "POST", "path": "/v1/pets", "body": {"name": "Rex", "tag": "a"}},
        "expect": {"status": 201}}]}"#,
    );
}

/// `conform cassettes --changed-since main` in `dir`: its exit status and standard error.
/// Nothing listens on port 9 (discard): a run that chose scenarios stops at the target.
fn conform_changed_since_main(dir: &Path) -> (i32, String) {
    let (code, _, stderr) = covenant_in(
        dir,
        &[
            "conform",
            "cassettes",
            "--target",
            "http://127.0.0.1:9",
            "--changed-since",
            "main",
        ],
    );
    (code, stderr)
}

#[test]
fn conform_changed_since_runs_only_the_scenarios_a_change_touches() {
    let dir = tempfile::tempdir().unwrap();
    repository_with(dir.path(), &breaking());
    write_create_cassette(dir.path());
    let (code, stderr) = conform_changed_since_main(dir.path());
    assert!(
        stderr.contains("1 scenario exercises the spec's changes since main"),
        "{stderr}"
    );
    assert_eq!(code, 3, "{stderr}");
    write(&dir.path().join("spec"), "pets.covenant", OLD);
    let (code, stderr) = conform_changed_since_main(dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("nothing to run"), "{stderr}");
}

#[test]
fn a_spec_new_since_the_ref_passes_and_all_its_scenarios_run() {
    let dir = tempfile::tempdir().unwrap();
    repository_with(dir.path(), OLD);
    write(
        dir.path(),
        "covenant.toml",
        "spec = \"spec/shop.covenant\"\n",
    );
    write(&dir.path().join("spec"), "shop.covenant", &breaking());
    let (code, stdout, stderr) = covenant_in(dir.path(), &["diff", "--against", "main"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "note: main:spec/shop.covenant does not exist: the spec is new, and nothing older to compare it with"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("diff: no changes"), "{stdout}");
    let (_, json, _) = covenant_in(
        dir.path(),
        &["diff", "--against", "main", "--format", "json"],
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["old"]["absent"], true, "{json}");
    assert_eq!(report["findings"], serde_json::json!([]), "{json}");

    write_create_cassette(dir.path());
    let (code, stderr) = conform_changed_since_main(dir.path());
    assert!(
        stderr.contains("1 scenario exercises the spec's changes since main"),
        "everything of a new spec is a change: {stderr}"
    );
    assert_eq!(code, 3, "{stderr}");

    let (code, _, stderr) = covenant_in(
        dir.path(),
        &["diff", "main:spec/shop.covenant", "spec/shop.covenant"],
    );
    assert_eq!(
        code, 2,
        "a spec named as it is at a ref must be there: {stderr}"
    );
    assert!(
        stderr.contains("main:spec/shop.covenant does not exist"),
        "{stderr}"
    );

    let (code, _, stderr) = covenant_in(dir.path(), &["diff", "--against", "main~3"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("`main~3` names no commit of this repository"),
        "{stderr}"
    );
}

#[test]
fn fmt_checks_writes_and_keeps_comments() {
    let dir = tempfile::tempdir().unwrap();
    let messy = "// Pets.\nmodel  Pet{\n  id :string   // the id\n\n\n\n  name: string\n}\n";
    write(dir.path(), "pets.covenant", messy);
    let (code, stdout, stderr) = covenant_in(dir.path(), &["fmt", "--check", "pets.covenant"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("-model  Pet{"), "{stdout}");
    assert!(stdout.contains("+model Pet {"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pets.covenant")).unwrap(),
        messy
    );
    let (code, _, stderr) = covenant_in(dir.path(), &["fmt", "pets.covenant"]);
    assert_eq!(code, 0, "{stderr}");
    let formatted = std::fs::read_to_string(dir.path().join("pets.covenant")).unwrap();
    assert_eq!(
        formatted,
        "// Pets.\nmodel Pet {\n    id: string // the id\n\n    name: string\n}\n"
    );
    let (code, stdout, _) = covenant_in(dir.path(), &["fmt", "--check", "."]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    write(dir.path(), "broken.covenant", "model {\n");
    let (code, _, stderr) = covenant_in(dir.path(), &["fmt", "--check", "broken.covenant"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("broken.covenant:"), "{stderr}");
}

#[test]
fn the_project_s_specs_are_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, stdout, stderr) = covenant_in(
        root,
        &["fmt", "--check", "spec", "corpus", "codegen/tests/diff"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
}
