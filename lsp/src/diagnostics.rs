//! `check`'s diagnostics as the protocol carries them: the same code, message and help,
//! the notes as related locations.

use crate::analysis::Analysis;
use covenant_codegen::Severity;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, Range, Url,
};

/// The most diagnostics sent for one document: a file of thousands of the same mistake
/// would otherwise send megabytes on every key. The rest are counted in one more.
pub const MAX_PUBLISHED: usize = 1000;

/// Every diagnostic of the document, up to [`MAX_PUBLISHED`].
pub fn to_lsp(analysis: &Analysis, uri: &Url) -> Vec<Diagnostic> {
    let items = &analysis.diagnostics.items;
    let mut list: Vec<Diagnostic> = items
        .iter()
        .take(MAX_PUBLISHED)
        .map(|d| to_lsp_one(analysis, uri, d))
        .collect();
    if items.len() > MAX_PUBLISHED {
        let last = analysis.range(items[MAX_PUBLISHED].span);
        list.push(Diagnostic {
            range: Range::new(last.start, last.start),
            severity: Some(DiagnosticSeverity::INFORMATION),
            source: Some("covenant".into()),
            message: format!(
                "{} more problems from here on; `covenant check` lists them all",
                items.len() - MAX_PUBLISHED
            ),
            ..Default::default()
        });
    }
    list
}

/// One diagnostic: its message, then its label and help on lines of their own.
pub fn to_lsp_one(analysis: &Analysis, uri: &Url, d: &covenant_codegen::Diagnostic) -> Diagnostic {
    let mut message = d.message.clone();
    if !d.label.is_empty() {
        message.push_str(&format!("\n{}", d.label));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related = d
        .notes
        .iter()
        .map(|(span, label)| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), analysis.range(*span)),
            message: if label.is_empty() {
                "see here".into()
            } else {
                label.clone()
            },
        })
        .collect::<Vec<_>>();
    Diagnostic {
        range: analysis.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("covenant".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// The one diagnostic of a document past the size the server checks.
pub fn too_large() -> Diagnostic {
    Diagnostic {
        range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        severity: Some(DiagnosticSeverity::WARNING),
        source: Some("covenant".into()),
        message: format!(
            "not checked while open: the file is over {} MiB; run `covenant check` on it",
            crate::MAX_DOCUMENT_BYTES >> 20
        ),
        ..Default::default()
    }
}
