//! "What would `diff` say?": a code lens at the top of a spec with `diff`'s verdict on the
//! text being typed against a git ref (`main` unless the client says), and the command that
//! answers the whole report in Markdown, as `diff --format markdown` writes it.

use crate::analysis::Analysis;
use crate::server::{Refusal, Settings};
use covenant_codegen::Spec;
use covenant_codegen::diff::{self, Exercised, Options, Policy, Report, Severity, Version};
use covenant_project::config::{PROJECT_FILE, Project};
use covenant_project::versions::{Absent, VersionError, at_ref};
use lsp_server::ErrorCode;
use lsp_types::{CodeLens, Command, ExecuteCommandParams, Position, Range, Url};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How long a spec read from git is reused: the lens is asked again after every edit, and
/// reading and checking the old spec is most of its cost, while the ref seldom moves.
const OLD_VERSION_LIFETIME: Duration = Duration::from_secs(30);

/// Specs read at git refs, by file and ref, with when they were read.
#[derive(Default)]
pub struct OldVersions {
    read: HashMap<(PathBuf, String), (Instant, Rc<Version>)>,
}

impl OldVersions {
    fn at(&mut self, path: &Path, reference: &str) -> Result<Rc<Version>, String> {
        let key = (path.to_path_buf(), reference.to_string());
        if let Some((when, version)) = self.read.get(&key)
            && when.elapsed() < OLD_VERSION_LIFETIME
        {
            return Ok(version.clone());
        }
        let version = at_ref(reference, path, Absent::New).map_err(|e| match e {
            VersionError::Usage(m) => m,
            VersionError::Invalid(_) => format!("the spec at `{reference}` does not check"),
        })?;
        let version = Rc::new(version);
        self.read.insert(key, (Instant::now(), version.clone()));
        Ok(version)
    }
}

/// The command a lens runs: arguments the document's URI and, optionally, the git ref.
pub const DIFF_COMMAND: &str = "covenant.diff";

pub fn code_lenses(
    analysis: &Analysis,
    uri: &Url,
    settings: &Settings,
    old_versions: &mut OldVersions,
) -> Vec<CodeLens> {
    if analysis.oversized {
        return Vec::new();
    }
    let reference = &settings.diff_against;
    let title = match compare(analysis, uri, reference, None, old_versions) {
        Ok(outcome) => outcome.title(reference),
        Err(message) => format!("diff against `{reference}`: {message}"),
    };
    vec![CodeLens {
        range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        command: Some(Command {
            title,
            command: DIFF_COMMAND.into(),
            arguments: Some(vec![uri.to_string().into(), reference.clone().into()]),
        }),
        data: None,
    }]
}

/// The document a `covenant.diff` command names.
pub fn command_document(params: &ExecuteCommandParams) -> Result<Url, Refusal> {
    if params.command != DIFF_COMMAND {
        return Err((
            ErrorCode::InvalidParams,
            format!("no command {}", params.command),
        ));
    }
    params
        .arguments
        .first()
        .and_then(|a| a.as_str())
        .and_then(|a| Url::parse(a).ok())
        .ok_or_else(|| {
            (
                ErrorCode::InvalidParams,
                "name the document's URI".to_string(),
            )
        })
}

/// The whole report, in Markdown.
pub fn execute(
    analysis: &Analysis,
    uri: &Url,
    params: &ExecuteCommandParams,
    root: Option<&Path>,
    settings: &Settings,
    old_versions: &mut OldVersions,
) -> Result<String, Refusal> {
    let reference = params
        .arguments
        .get(1)
        .and_then(|a| a.as_str())
        .unwrap_or(&settings.diff_against);
    let outcome = compare(analysis, uri, reference, root, old_versions)
        .map_err(|m| (ErrorCode::RequestFailed, m))?;
    Ok(outcome.markdown(reference))
}

struct Outcome {
    old: Rc<Version>,
    new: Version,
    findings: Vec<diff::Finding>,
    policy: Policy,
    /// No scenarios are named: an editor's lens has no suite to read.
    exercised: Exercised,
}

impl Outcome {
    fn report(&self) -> Report<'_> {
        Report::new(
            &self.old,
            &self.new,
            &self.findings,
            &self.policy,
            &self.exercised,
        )
    }

    fn title(&self, reference: &str) -> String {
        if self.old.absent {
            return format!("diff against `{reference}`: a new spec, breaks no one");
        }
        let report = self.report();
        let (errors, warnings) = (
            report.count(Severity::Error),
            report.count(Severity::Warning),
        );
        let verdict = if report.fails() { "fails" } else { "passes" };
        format!(
            "diff against `{reference}`: {verdict} — {errors} breaking, {warnings} warnings, {} changes",
            self.findings.len()
        )
    }

    fn markdown(&self, reference: &str) -> String {
        self.report().markdown(Some(reference))
    }
}

/// The document's text (as it is, unsaved) against the spec at its path at `reference`.
fn compare(
    analysis: &Analysis,
    uri: &Url,
    reference: &str,
    root: Option<&Path>,
    old_versions: &mut OldVersions,
) -> Result<Outcome, String> {
    let path = uri
        .to_file_path()
        .map_err(|_| "the document is no file".to_string())?;
    let spec = analysis
        .spec
        .as_ref()
        .ok_or("the spec has errors; mend them to compare")?;
    let new = Version {
        spec: Spec::clone(spec),
        file: analysis.file.clone(),
        absent: false,
    };
    let old = old_versions.at(&path, reference)?;
    let policy = Project::read_from(&project_file(&path, root))?
        .diff
        .unwrap_or_default()
        .policy()?;
    let today = chrono::Utc::now().date_naive().to_string();
    let findings = if old.absent {
        Vec::new()
    } else {
        diff::diff(old.side(), new.side(), &Options { today })
    };
    let exercised = Exercised::none(findings.len());
    Ok(Outcome {
        old,
        new,
        findings,
        policy,
        exercised,
    })
}

/// The project file whose `[diff]` policy judges the spec: the nearest `covenant.toml` above
/// it, else the workspace's.
fn project_file(spec: &Path, root: Option<&Path>) -> PathBuf {
    spec.ancestors()
        .skip(1)
        .map(|folder| folder.join(PROJECT_FILE))
        .find(|candidate| candidate.is_file())
        .or_else(|| root.map(|r| r.join(PROJECT_FILE)))
        .unwrap_or_else(|| PathBuf::from(PROJECT_FILE))
}
