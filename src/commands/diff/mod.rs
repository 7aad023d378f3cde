//! `diff OLD NEW` or `diff --against REF`: every change between two versions of a spec,
//! judged by who it breaks, with the cassettes that exercise it; fails (exit 1) on a change
//! the config calls an error, unless the spec's version was bumped as the config requires.

mod exercised;
mod sides;

use super::{EXIT_INVALID, EXIT_USAGE};
use clap::{Args, ValueEnum};
use covenant_codegen::diff::{self, Finding, Options, Policy, Report, Version};

use std::path::PathBuf;
use std::process::ExitCode;

/// The suite whose cassettes are named for each change, when it exists.
use covenant_conformance::session::DEFAULT_SUITE;

#[derive(Args)]
pub struct DiffArgs {
    /// The old spec, a file (or `REF:PATH` read from git). With --against, the new spec
    /// (default: the project's).
    #[arg(value_name = "OLD")]
    old: Option<String>,
    /// The new spec, a file (or `REF:PATH`).
    #[arg(value_name = "NEW")]
    new: Option<String>,
    /// Compare with the spec as it is at this git ref (`main`, `HEAD~1`, a tag).
    #[arg(long, value_name = "REF", conflicts_with = "new")]
    against: Option<String>,
    /// How the changes are written.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Cassette files or folders whose scenarios are named for the changes they exercise
    /// (default: conformance/suite when it exists).
    #[arg(long = "cassettes", value_name = "CASSETTE_OR_DIR")]
    cassettes: Vec<PathBuf>,
    /// Today's date (`YYYY-MM-DD`), to tell a removal before its announced sunset from one
    /// after; the system's date by default.
    #[arg(long, value_name = "DATE")]
    today: Option<String>,
    /// Where the new spec's files are browsed, e.g. `https://github.com/org/repo/blob/HEAD`:
    /// each position in it becomes a link to its line (`BASE/spec/x.covenant#L12`).
    #[arg(long, value_name = "URL")]
    link_base: Option<String>,
    /// List every rule with its categories and exit.
    #[arg(long)]
    rules: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// rustc-style, coloured on a terminal.
    Human,
    Json,
    /// A pull-request comment.
    Markdown,
    /// GitHub Actions workflow commands: annotations on the changed lines.
    Github,
}

pub fn run(args: &DiffArgs) -> ExitCode {
    if args.rules {
        print!("{}", diff::rule_table());
        return ExitCode::SUCCESS;
    }
    match diff_command(args) {
        Ok(code) => code,
        Err(VersionError::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(VersionError::Invalid(message)) => {
            eprint!("{message}");
            ExitCode::from(EXIT_INVALID)
        }
    }
}

fn diff_command(args: &DiffArgs) -> Result<ExitCode, VersionError> {
    let policy = policy()?;
    let (old, new) = sides::read(args)?;
    let today = match &args.today {
        Some(date) => sides::date(date).map_err(VersionError::Usage)?,
        None => chrono::Utc::now().date_naive().to_string(),
    };
    // A spec new since the ref breaks no one: its every declaration would be listed as added.
    let findings = if old.absent {
        Vec::new()
    } else {
        compare(&old, &new, today)
    };
    let cassettes = exercised::find(
        &args.cassettes,
        DEFAULT_SUITE,
        [&new.spec, &old.spec],
        &findings,
    );
    let report = Report::new(&old, &new, &findings, &policy, &cassettes)
        .with_link_base(args.link_base.as_deref());
    let text = match args.format {
        Format::Human => report.human(std::io::IsTerminal::is_terminal(&std::io::stdout())),
        Format::Json => report.json(),
        Format::Markdown => report.markdown(args.against.as_deref()),
        Format::Github => report.github(),
    };
    print!("{text}");
    Ok(if report.fails() {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// The project's `[diff]` policy, or the default one.
fn policy() -> Result<Policy, VersionError> {
    let project = super::project::Project::read().map_err(VersionError::Usage)?;
    project
        .diff
        .unwrap_or_default()
        .policy()
        .map_err(|problems| {
            VersionError::Usage(format!("{}: {problems}", super::project::PROJECT_FILE))
        })
}

/// The findings of two checked versions, sunsets judged on `today`.
fn compare(old: &Version, new: &Version, today: String) -> Vec<Finding> {
    diff::diff(old.side(), new.side(), &Options { today })
}

use covenant_project::versions::VersionError;
