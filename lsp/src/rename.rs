//! Rename: every occurrence of a declaration, refused where the new name would collide or
//! where the name is written on the wire and the client has not allowed that.

use crate::analysis::Analysis;
use crate::index::{Index, Kind, Target};
use crate::server::{Refusal, Settings};
use covenant_codegen::print::{is_identifier, quote};
use covenant_codegen::vocabulary::PRIMITIVES;
use covenant_codegen::{SourceFile, Span, check_source};
use lsp_server::ErrorCode;
use lsp_types::{Position, PrepareRenameResponse, TextEdit, Url, WorkspaceEdit};
use std::collections::HashMap;

/// The range of the name to rename and its text, or why it cannot be renamed.
pub fn prepare(
    analysis: &Analysis,
    position: Position,
    settings: &Settings,
) -> Result<Option<PrepareRenameResponse>, Refusal> {
    let index = &analysis.index;
    let Some((target, declaration)) = renamed(analysis, position, settings)? else {
        return Ok(None);
    };
    let span = match target {
        Target::Declaration(d) => index.declarations[d].name_span,
        Target::Reference(r) => index.references[r].span,
    };
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: analysis.range(span),
        placeholder: index.declarations[declaration].name.clone(),
    }))
}

pub fn rename(
    analysis: &Analysis,
    uri: &Url,
    position: Position,
    new_name: &str,
    settings: &Settings,
) -> Result<Option<WorkspaceEdit>, Refusal> {
    let index = &analysis.index;
    let Some((_, declaration)) = renamed(analysis, position, settings)? else {
        return Ok(None);
    };
    let d = &index.declarations[declaration];
    if d.name == new_name {
        return Ok(None);
    }
    if !d.kind.is_wire_name() && !is_identifier(new_name) {
        return Err(refused(&format!(
            "`{new_name}` is no name: letters, digits and `_`, not starting with a digit"
        )));
    }
    if new_name.is_empty() || new_name.contains(['\n', '"', '\\']) {
        return Err(refused(
            "a name cannot be empty or hold a line break, `\"` or `\\`",
        ));
    }
    if let Some(clash) = collision(index, declaration, new_name) {
        return Err(refused(&clash));
    }
    let replacements: Vec<(Span, String)> = index
        .occurrences(declaration)
        .into_iter()
        .map(|span| {
            let quoted = analysis.file.slice(span).starts_with('"');
            let text = if quoted || !is_identifier(new_name) {
                quote(new_name)
            } else {
                new_name.to_string()
            };
            (span, text)
        })
        .collect();
    still_checks(analysis, &replacements)?;
    let edits = replacements
        .into_iter()
        .map(|(span, text)| TextEdit::new(analysis.range(span), text))
        .collect();
    Ok(Some(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }))
}

/// Refuses a rename after which the spec has more errors than before: whatever names the
/// declaration in a way the index does not follow (an annotation's argument, say) would be
/// left behind, and the checker is the judge of that, not the index.
fn still_checks(analysis: &Analysis, replacements: &[(Span, String)]) -> Result<(), Refusal> {
    let mut text = analysis.text().to_string();
    let mut ordered: Vec<&(Span, String)> = replacements.iter().collect();
    ordered.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    for (span, new) in ordered {
        text.replace_range(span.range(), new);
    }
    let renamed = SourceFile::new(analysis.file.name.clone(), text);
    let checked = check_source(&renamed);
    if checked.diagnostics.error_count() <= analysis.diagnostics.error_count() {
        return Ok(());
    }
    let first = checked.diagnostics.items.iter().find(|d| d.is_error());
    let said = first.map_or(String::new(), |d| {
        format!(": {} at {}", d.message, renamed.location(d.span))
    });
    Err(refused(&format!(
        "the spec would no longer check after this rename{said}"
    )))
}

/// The name at `position` and the declaration a rename there renames: nothing where no
/// name is, a refusal for a name declared nowhere or one the settings keep.
fn renamed(
    analysis: &Analysis,
    position: Position,
    settings: &Settings,
) -> Result<Option<(Target, usize)>, Refusal> {
    let index = &analysis.index;
    let Some(target) = index.at(analysis.offset(position)) else {
        return Ok(None);
    };
    let Some(declaration) = index.declaration_of(target) else {
        return Err(refused("this name refers to nothing declared in this spec"));
    };
    allowed(index, declaration, settings)?;
    Ok(Some((target, declaration)))
}

fn allowed(index: &Index, declaration: usize, settings: &Settings) -> Result<(), Refusal> {
    let d = &index.declarations[declaration];
    if d.kind.is_wire_name() && !settings.rename_wire_names {
        return Err(refused(&format!(
            "`{}` is a {} name written on the wire: renaming it breaks every client. Set \
             `renameWireNames` in the covenant settings to rename it anyway",
            d.name,
            d.kind.word()
        )));
    }
    Ok(())
}

/// Why `new_name` cannot be the declaration's name, if it cannot.
fn collision(index: &Index, declaration: usize, new_name: &str) -> Option<String> {
    let d = &index.declarations[declaration];
    if d.kind.is_type() && PRIMITIVES.contains(&new_name) {
        return Some(format!("`{new_name}` is a built-in type"));
    }
    if d.kind.is_type() && ["null", "true", "false", "map"].contains(&new_name) {
        return Some(format!("`{new_name}` is a word of the language"));
    }
    let same_space = |other_kind: Kind| match d.parent {
        None if d.kind.is_type() => other_kind.is_type(),
        _ => other_kind == d.kind,
    };
    index
        .declarations
        .iter()
        .enumerate()
        .find(|(i, other)| {
            *i != declaration
                && other.parent == d.parent
                && same_space(other.kind)
                && other.name == new_name
        })
        .map(|(_, other)| format!("{} `{new_name}` is already declared", other.kind.word()))
}

fn refused(message: &str) -> Refusal {
    (ErrorCode::RequestFailed, message.to_string())
}
