//! Quick fixes for the diagnostics that name their fix: a did-you-mean, an endpoint with no
//! success response (answered `not_shown` until the source says), an unused declaration.

use crate::analysis::Analysis;
use covenant_codegen::print::quote;
use covenant_codegen::{Diagnostic, Span, diagnostic_codes};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Url, WorkspaceEdit,
};
use std::collections::HashMap;

pub fn code_actions(analysis: &Analysis, uri: &Url, range: Range) -> Vec<CodeActionOrCommand> {
    let wanted = analysis.lines.span(analysis.text(), range);
    analysis
        .diagnostics
        .items
        .iter()
        .filter(|d| d.span.start <= wanted.end && wanted.start <= d.span.end)
        .filter_map(|d| {
            let (title, edit) = fix(analysis, d)?;
            let mut diagnostic = crate::diagnostics::to_lsp_one(analysis, uri, d);
            diagnostic.data = None;
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            }))
        })
        .collect()
}

/// The title and edit of the fix a diagnostic names, if it names one.
fn fix(analysis: &Analysis, d: &Diagnostic) -> Option<(String, TextEdit)> {
    if let Some(suggestion) = did_you_mean(d) {
        let written = analysis.file.slice(d.span);
        let replacement = if written.starts_with('@') {
            suggestion.to_string()
        } else if written.starts_with('"') {
            // A quoted name (a scope such as `"read:users"`) stays quoted.
            quote(suggestion)
        } else {
            suggestion.trim_start_matches('@').to_string()
        };
        let title = format!("Replace with `{replacement}`");
        return Some((title, TextEdit::new(analysis.range(d.span), replacement)));
    }
    match d.code {
        diagnostic_codes::NO_SUCCESS_RESPONSE => not_shown_response(analysis, d.span),
        diagnostic_codes::UNUSED => remove_declaration(analysis, d.span),
        _ => None,
    }
}

/// The name in a help of the form "did you mean `name`?".
fn did_you_mean(d: &Diagnostic) -> Option<&str> {
    let help = d.help.as_deref()?;
    let rest = help.strip_prefix("did you mean `")?;
    rest.strip_suffix("`?")
}

/// `response 200: not_shown("…")` as the last member of the endpoint.
fn not_shown_response(analysis: &Analysis, span: Span) -> Option<(String, TextEdit)> {
    let index = &analysis.index;
    let endpoint = index.enclosing(span.start as usize)?;
    let end = index.declarations[endpoint].full.end as usize;
    let text = analysis.text();
    let closing = text[..end].rfind('}')?;
    let line_start = text[..closing].rfind('\n').map_or(0, |i| i + 1);
    let insert_at = analysis.lines.position(text, line_start);
    let line = "    response 200: not_shown(\"Response body\")\n".to_string();
    Some((
        "Add `response 200: not_shown(…)` until the source says".into(),
        TextEdit::new(Range::new(insert_at, insert_at), line),
    ))
}

/// The whole unused declaration, its doc comments and annotations, and the blank line after.
fn remove_declaration(analysis: &Analysis, span: Span) -> Option<(String, TextEdit)> {
    let index = &analysis.index;
    let d = index.declarations.iter().find(|d| {
        d.parent.is_none() && d.name_span.start <= span.start && span.start <= d.name_span.end
    })?;
    let text = analysis.text();
    let mut end = d.full.end as usize;
    while text[end..].starts_with('\n') && end - (d.full.end as usize) < 2 {
        end += 1;
    }
    let range = analysis.range(Span::new(d.full.start as usize, end));
    Some((
        format!("Remove the unused {} `{}`", d.kind.word(), d.name),
        TextEdit::new(range, String::new()),
    ))
}
