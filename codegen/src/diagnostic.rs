//! Diagnostics in the style of rustc: `error[CODE]: message`, `--> file:line:col`,
//! the source line with a caret, and an optional help line.

use crate::source::{SourceFile, Span};
use annotate_snippets::{Level, Renderer, Snippet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a spec. Codes are stable so tests and users can refer to them;
/// the catalogue is in [`crate::diagnostic_codes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub label: String,
    /// Further places that explain the problem, e.g. the first of two duplicates.
    pub notes: Vec<(Span, String)>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn note(mut self, span: Span, label: impl Into<String>) -> Self {
        self.notes.push((span, label.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders without colour; the form golden tests compare and the macros embed.
    pub fn render(&self, file: &SourceFile) -> String {
        self.render_with(file, &Renderer::plain())
    }

    pub fn render_with(&self, file: &SourceFile, renderer: &Renderer) -> String {
        let level = match self.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        };
        // Only the lines the spans touch are given to the renderer: handing it the whole
        // file for each diagnostic made a check with many warnings quadratic.
        let len = file.text.len();
        let spans = std::iter::once(self.span).chain(self.notes.iter().map(|(s, _)| *s));
        let low = spans
            .clone()
            .map(|s| s.start as usize)
            .min()
            .unwrap_or(0)
            .min(len);
        let high = spans
            .map(|s| s.end as usize)
            .max()
            .unwrap_or(0)
            .clamp(low, len);
        let (text, offset, first_line) = file.lines_around(low, high);
        let clamp = |s: Span| {
            let start = (s.start as usize).clamp(offset, offset + text.len()) - offset;
            let end = (s.end as usize).clamp(offset + start, offset + text.len()) - offset;
            start..end
        };
        let mut snippet = Snippet::source(text)
            .origin(&file.name)
            .line_start(first_line)
            .fold(true)
            .annotation(level.span(clamp(self.span)).label(&self.label));
        for (span, label) in &self.notes {
            snippet = snippet.annotation(Level::Info.span(clamp(*span)).label(label));
        }
        let mut message = level.title(&self.message).id(self.code).snippet(snippet);
        if let Some(help) = &self.help {
            message = message.footer(Level::Help.title(help));
        }
        renderer.render(message).to_string()
    }
}

/// Every problem of one check, in source order, errors and warnings together.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.items.len() - self.error_count()
    }

    /// Sorts by position so output reads top to bottom, whatever pass found each problem.
    pub fn sort(&mut self) {
        self.items
            .sort_by(|a, b| (a.span, a.code, &a.message).cmp(&(b.span, b.code, &b.message)));
        self.items.dedup();
    }

    pub fn render(&self, file: &SourceFile) -> String {
        self.render_with(file, &Renderer::plain())
    }

    pub fn render_with(&self, file: &SourceFile, renderer: &Renderer) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render_with(file, renderer));
            out.push_str("\n\n");
        }
        let (errors, warnings) = (self.error_count(), self.warning_count());
        if errors > 0 {
            out.push_str(&format!(
                "error: {} has {errors} error{}{}\n",
                file.name,
                plural(errors),
                if warnings > 0 {
                    format!(" and {warnings} warning{}", plural(warnings))
                } else {
                    String::new()
                }
            ));
        }
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
