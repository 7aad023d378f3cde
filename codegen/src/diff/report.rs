//! A diff's report in each of its formats: rustc-style text, JSON, a Markdown pull-request
//! comment, and GitHub annotations. Every format says the same: each finding with its
//! severity, rule, location in both versions, explanation and the scenarios exercising it,
//! and the verdict.

use super::policy::{Policy, Severity, bumped};
use super::{Category, Finding, rules};
use crate::ir::Spec;
use crate::source::{SourceFile, Span};
use annotate_snippets::{Level, Renderer, Snippet};
use serde_json::{Value, json};
use std::fmt::Write;

/// One checked version of a spec, named as its locations print it.
pub struct Version {
    pub spec: Spec,
    pub file: SourceFile,
    /// The file did not exist at the git ref read: compared as an empty spec, so everything
    /// is new (a pull request adding a spec breaks no one who used an older one).
    pub absent: bool,
}

impl Version {
    /// This version as one side of a diff.
    pub fn side(&self) -> super::Side<'_> {
        super::Side {
            spec: &self.spec,
            file: &self.file,
        }
    }
}

/// The scenario ids exercising each finding, in the findings' order: what a suite of
/// recorded traffic says about the changes, found by whoever reads the suite.
#[derive(Debug, Default)]
pub struct Exercised {
    pub by_finding: Vec<Vec<String>>,
    /// Cassettes that could not be read, which name nothing.
    pub unreadable: usize,
}

impl Exercised {
    /// No scenario for any of `findings` findings.
    pub fn none(findings: usize) -> Self {
        Exercised {
            by_finding: vec![Vec::new(); findings],
            unreadable: 0,
        }
    }
}

/// A finding with what the policy made of it.
pub struct Entry<'a> {
    pub finding: &'a Finding,
    pub severity: Severity,
    pub scenarios: &'a [String],
}

pub struct Report<'a> {
    old: &'a Version,
    new: &'a Version,
    entries: Vec<Entry<'a>>,
    bumped: bool,
    unreadable_cassettes: usize,
    /// Where the new spec's files are browsed (`https://host/repo/blob/HEAD`): positions in
    /// it become links to their line.
    link_base: Option<String>,
}

impl<'a> Report<'a> {
    pub fn new(
        old: &'a Version,
        new: &'a Version,
        findings: &'a [Finding],
        policy: &Policy,
        exercised: &'a Exercised,
    ) -> Self {
        let entries = findings
            .iter()
            .zip(&exercised.by_finding)
            .map(|(finding, scenarios)| Entry {
                finding,
                severity: policy.severity(finding),
                scenarios,
            })
            .filter(|e| e.severity != Severity::Off)
            .collect();
        let version = |v: &Version| v.spec.service.version.clone();
        Report {
            old,
            new,
            entries,
            bumped: bumped(
                policy.bump,
                version(old).as_deref(),
                version(new).as_deref(),
            ),
            unreadable_cassettes: exercised.unreadable,
            link_base: None,
        }
    }

    /// Positions in the new spec linked under `base` (`--link-base`).
    pub fn with_link_base(mut self, base: Option<&str>) -> Self {
        self.link_base = base.map(|b| b.trim_end_matches('/').to_string());
        self
    }

    /// The link to a position in the new spec: `BASE/path#L12`, for a spec named by a
    /// relative path (the one a repository browser knows).
    fn link(&self, span: Span) -> Option<String> {
        let base = self.link_base.as_ref()?;
        let name = self.new.file.name.trim_start_matches("./");
        if name.starts_with('/') || name.contains(':') {
            return None;
        }
        let (line, _) = self.new.file.line_col(span.start);
        // What would end a Markdown link or break a URL is written percent-encoded.
        let path: String = name
            .chars()
            .map(|c| match c {
                ' ' => "%20".to_string(),
                '(' => "%28".to_string(),
                ')' => "%29".to_string(),
                other => other.to_string(),
            })
            .collect();
        Some(format!("{base}/{path}#L{line}"))
    }

    /// The endpoints (as `METHOD /path`) and events a finding's change travels in, as the
    /// new spec routes them (the old one for what it removed).
    fn affected(&self, finding: &Finding) -> Vec<String> {
        finding
            .carriers
            .iter()
            .map(|carrier| {
                if carrier.starts_with("event ") {
                    return carrier.clone();
                }
                [&self.new.spec, &self.old.spec]
                    .iter()
                    .find_map(|spec| spec.endpoint_named(carrier))
                    .map_or_else(
                        || carrier.clone(),
                        |ep| format!("{} {}", ep.method.as_str(), ep.path),
                    )
            })
            .collect()
    }

    /// How many findings the policy gave this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.entries
            .iter()
            .filter(|e| e.severity == severity)
            .count()
    }

    /// Whether the run fails: an error the version bump does not excuse.
    pub fn fails(&self) -> bool {
        self.count(Severity::Error) > 0 && !self.bumped
    }

    fn versions(&self) -> String {
        let v = |v: &Version| {
            v.spec
                .service
                .version
                .clone()
                .unwrap_or_else(|| "none".into())
        };
        format!("{} → {}", v(self.old), v(self.new))
    }

    /// The verdict in one sentence.
    fn verdict(&self) -> String {
        let errors = self.count(Severity::Error);
        match (errors, self.bumped) {
            (0, _) => "no failing change".to_string(),
            (n, true) => format!(
                "{n} failing change{}, allowed by the version bump ({})",
                plural(n),
                self.versions()
            ),
            (n, false) => format!(
                "{n} failing change{} and the version is not bumped as required ({})",
                plural(n),
                self.versions()
            ),
        }
    }

    /// Said when the old version did not exist at the ref it was read from.
    fn absence(&self) -> Option<String> {
        self.old.absent.then(|| {
            format!(
                "{} does not exist: the spec is new, and nothing older to compare it with",
                self.old.file.name
            )
        })
    }

    fn counts(&self) -> String {
        let mut parts = Vec::new();
        for category in Category::ALL {
            let n = self
                .entries
                .iter()
                .filter(|e| e.finding.rule.headline() == category)
                .count();
            if n > 0 {
                parts.push(format!("{} {n}", words(category)));
            }
        }
        if parts.is_empty() {
            "no changes".into()
        } else {
            parts.join(", ")
        }
    }

    pub fn human(&self, colour: bool) -> String {
        let renderer = if colour {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        let (folded, shown): (Vec<&Entry>, Vec<&Entry>) =
            self.entries.iter().partition(|e| is_folded(e));
        for entry in shown {
            out.push_str(&self.human_entry(entry, &renderer));
            out.push_str("\n\n");
        }
        if !folded.is_empty() {
            let subjects: Vec<String> = folded
                .iter()
                .map(|e| format!("{} ({})", e.finding.subject, e.finding.rule.id))
                .collect();
            let _ = writeln!(
                out,
                "note: {} addition{} change{} only the generated Rust (a struct gains a field, a \
                 match an enum value): {}\n",
                folded.len(),
                plural(folded.len()),
                if folded.len() == 1 { "s" } else { "" },
                subjects.join(", ")
            );
        }
        let _ = writeln!(out, "diff: {}", self.counts());
        let _ = writeln!(
            out,
            "{}: {}",
            if self.fails() { "fail" } else { "pass" },
            self.verdict()
        );
        if let Some(absence) = self.absence() {
            let _ = writeln!(out, "note: {absence}");
        }
        if self.unreadable_cassettes > 0 {
            let _ = writeln!(
                out,
                "note: {} cassette{} could not be read and name no scenario (`covenant conform` says why)",
                self.unreadable_cassettes,
                plural(self.unreadable_cassettes)
            );
        }
        out
    }

    fn human_entry(&self, entry: &Entry, renderer: &Renderer) -> String {
        let f = entry.finding;
        let level = match entry.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            _ => Level::Note,
        };
        let title = format!("{}: {}", f.subject, f.change);
        let categories = f
            .rule
            .categories
            .iter()
            .map(|c| words(*c))
            .collect::<Vec<_>>()
            .join(", ");
        let was = f
            .old
            .map(|s| format!("was at {}", self.old.file.location(s)));
        let (file, span) = match (f.new, f.old) {
            (Some(s), _) => (&self.new.file, Some(s)),
            (None, Some(s)) => (&self.old.file, Some(s)),
            (None, None) => (&self.new.file, None),
        };
        let why = format!("{categories}: {}", f.rule.why);
        let scenarios = scenario_list(entry.scenarios).map(|s| format!("exercised by {s}"));
        let mut message = level.title(&title).id(f.rule.id);
        if let Some(span) = span {
            message = message.snippet(snippet(file, span, level, &categories));
        }
        message = message.footer(Level::Note.title(&why));
        if f.new.is_some()
            && let Some(was) = &was
        {
            message = message.footer(Level::Note.title(was));
        }
        let affected = affected_list(&self.affected(f), |e| e.to_string());
        if let Some(affected) = &affected {
            message = message.footer(Level::Note.title(affected));
        }
        if let Some(s) = &scenarios {
            message = message.footer(Level::Note.title(s));
        }
        let link = f
            .new
            .and_then(|span| self.link(span))
            .map(|l| format!("see {l}"));
        if let Some(link) = &link {
            message = message.footer(Level::Note.title(link));
        }
        renderer.render(message).to_string()
    }

    pub fn json(&self) -> String {
        let location = |file: &SourceFile, span: Option<Span>| match span {
            None => Value::Null,
            Some(s) => {
                let (line, column) = file.line_col(s.start);
                json!({ "file": file.name, "line": line, "column": column })
            }
        };
        let findings: Vec<Value> = self
            .entries
            .iter()
            .map(|e| {
                let f = e.finding;
                json!({
                    "rule": f.rule.id,
                    "severity": e.severity.word(),
                    "categories": f.rule.categories.iter().map(|c| c.id()).collect::<Vec<_>>(),
                    "subject": f.subject,
                    "change": f.change,
                    "explanation": f.rule.why,
                    "old": location(&self.old.file, f.old),
                    "new": location(&self.new.file, f.new),
                    "endpoints": f.carriers,
                    "affects": self.affected(f),
                    "scenarios": e.scenarios,
                })
            })
            .collect();
        let side = |v: &Version| json!({ "spec": v.file.name, "version": v.spec.service.version, "absent": v.absent });
        let value = json!({
            "old": side(self.old),
            "new": side(self.new),
            "findings": findings,
            "summary": {
                "errors": self.count(Severity::Error),
                "warnings": self.count(Severity::Warning),
                "notes": self.count(Severity::Note),
                "version_bumped": self.bumped,
                "fails": self.fails(),
                "verdict": self.verdict(),
            },
        });
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    }

    pub fn markdown(&self, against: Option<&str>) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "### Spec changes: `{}` → `{}`\n",
            self.old.file.name, self.new.file.name
        );
        let verdict = if self.fails() { "Fails" } else { "Passes" };
        let _ = writeln!(
            out,
            "**{verdict}**: {}. {}.\n",
            self.verdict(),
            self.counts()
        );
        if let Some(absence) = self.absence() {
            let _ = writeln!(out, "{}.\n", escape_markdown(&capitalised(&absence)));
        }
        for category in Category::ALL {
            let (folded, entries): (Vec<&Entry>, Vec<&Entry>) = self
                .entries
                .iter()
                .filter(|e| e.finding.rule.headline() == category)
                .partition(|e| is_folded(e));
            if !entries.is_empty() {
                let heading = format!("{} ({})", capitalised(words(category)), entries.len());
                let collapsed = !category.is_breaking();
                if collapsed {
                    let _ = writeln!(out, "<details><summary>{heading}</summary>\n");
                } else {
                    let _ = writeln!(out, "#### {heading}\n");
                }
                for e in entries {
                    out.push_str(&self.markdown_entry(e));
                }
                out.push('\n');
                if collapsed {
                    out.push_str("</details>\n\n");
                }
            }
            // After the section they would otherwise be listed in, folded.
            if !folded.is_empty() {
                let _ = writeln!(
                    out,
                    "<details><summary>Additions that change only the generated Rust ({})</summary>\n",
                    folded.len()
                );
                for e in folded {
                    out.push_str(&self.markdown_entry(e));
                }
                out.push_str("\n</details>\n\n");
            }
        }
        let scenarios: Vec<&str> = self
            .entries
            .iter()
            .flat_map(|e| e.scenarios)
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if !scenarios.is_empty() {
            let command = match against {
                Some(r) => format!("covenant conform --changed-since {r}"),
                None => "covenant conform --filter <scenario>".to_string(),
            };
            let _ = writeln!(
                out,
                "{} scenario{} of the conformance suite exercise these changes; `{command}` runs them.",
                scenarios.len(),
                plural(scenarios.len())
            );
        }
        out
    }

    fn markdown_entry(&self, e: &Entry) -> String {
        let f = e.finding;
        let new_at = |n: Span| {
            let location = escape_markdown(&self.new.file.location(n));
            match self.link(n) {
                Some(link) => format!("[{location}]({link})"),
                None => location,
            }
        };
        let old_at = |o: Span| escape_markdown(&self.old.file.location(o));
        let at = match (f.new, f.old) {
            (Some(n), Some(o)) => format!("{}, was {}", new_at(n), old_at(o)),
            (Some(n), None) => new_at(n),
            (None, Some(o)) => format!("was {}", old_at(o)),
            (None, None) => escape_markdown(&self.new.file.name),
        };
        // The finding is listed under its headline category; whoever else it breaks is named.
        let also: Vec<&str> = f
            .rule
            .categories
            .iter()
            .filter(|c| **c != f.rule.headline() && c.is_breaking())
            .map(|c| words(*c))
            .collect();
        let also = if also.is_empty() {
            String::new()
        } else {
            format!(" Also {}.", also.join(", "))
        };
        let mut line = format!(
            "- **{}** `{}` {}: {}; {}.{also} <sub>{}</sub>",
            e.severity.word(),
            f.rule.id,
            code(&f.subject),
            escape_markdown(&f.change),
            f.rule.why,
            at
        );
        if let Some(affected) = affected_list(&self.affected(f), code) {
            let _ = write!(line, " <sub>{affected}</sub>");
        }
        if let Some(list) = scenario_list(e.scenarios) {
            let _ = write!(line, " <sub>exercised by {list}</sub>");
        }
        line.push('\n');
        line
    }

    pub fn github(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            let f = e.finding;
            let command = match e.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                _ => "notice",
            };
            let mut properties = format!("file={}", property(&self.new.file.name));
            if let Some(span) = f.new {
                let (line, col) = self.new.file.line_col(span.start);
                let _ = write!(properties, ",line={line},col={col}");
            }
            let _ = write!(properties, ",title={}", property(f.rule.id));
            let _ = writeln!(out, "::{command} {properties}::{}", data(&f.sentence()));
        }
        if let Some(absence) = self.absence() {
            let file = property(&self.new.file.name);
            let _ = writeln!(
                out,
                "::notice file={file},title=new spec::{}",
                data(&absence)
            );
        }
        let _ = writeln!(out, "diff: {}; {}", self.counts(), self.verdict());
        out
    }
}

/// An addition that breaks only generated Rust, left at its default severity (a note):
/// reports list these together, folded.
fn is_folded(entry: &Entry) -> bool {
    entry.finding.rule.is_additive_source_only() && entry.severity == Severity::Note
}

/// "affects A, B and 3 more", the endpoints and events a change travels in; `None` when it
/// travels in none.
fn affected_list(affected: &[String], show: impl Fn(&str) -> String) -> Option<String> {
    const SHOWN: usize = 6;
    if affected.is_empty() {
        return None;
    }
    let mut list: Vec<String> = affected.iter().take(SHOWN).map(|a| show(a)).collect();
    if affected.len() > SHOWN {
        list.push(format!("{} more", affected.len() - SHOWN));
    }
    Some(format!("affects {}", list.join(", ")))
}

/// `--rules`: every rule, its categories and why.
pub fn rule_table() -> String {
    let mut out = String::new();
    for rule in rules::ALL {
        let categories = rule
            .categories
            .iter()
            .map(|c| c.id())
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "{:<34} {:<48} {}", rule.id, categories, rule.why);
    }
    out
}

fn snippet<'a>(file: &'a SourceFile, span: Span, level: Level, label: &'a str) -> Snippet<'a> {
    let len = file.text.len();
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    Snippet::source(&file.text)
        .origin(&file.name)
        .line_start(1)
        .fold(true)
        .annotation(level.span(start..end).label(label))
}

fn scenario_list(ids: &[String]) -> Option<String> {
    const SHOWN: usize = 5;
    match ids.len() {
        0 => None,
        n if n <= SHOWN => Some(ids.join(", ")),
        n => Some(format!(
            "{} and {} more",
            ids[..SHOWN].join(", "),
            n - SHOWN
        )),
    }
}

fn words(category: Category) -> &'static str {
    match category {
        Category::BreaksClients => "breaks clients",
        Category::BreaksServers => "breaks servers",
        Category::BreaksSource => "breaks Rust source",
        Category::Compatible => "compatible",
        Category::Docs => "docs",
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Inline code that survives backticks inside it.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// Text in Markdown whose `<`, `|` and `*` read as text; inside `code spans`, where
/// escapes would show, it is left as it is.
fn escape_markdown(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                part.to_string()
            } else {
                part.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('|', "\\|")
                    .replace('*', "\\*")
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property: also `:` and `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}
