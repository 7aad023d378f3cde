//! Go to definition, find references, symbols and folding: the index read back.

use crate::analysis::Analysis;
use crate::index::{Declaration, Kind};
use covenant_codegen::Diagnostics;
use covenant_codegen::lexer::{Tok, lex_with_comments};
use lsp_types::{
    DocumentSymbol, FoldingRange, FoldingRangeKind, GotoDefinitionResponse, Location, Position,
    SymbolInformation, SymbolKind, Url,
};

pub fn definition(
    analysis: &Analysis,
    uri: &Url,
    position: Position,
) -> Option<GotoDefinitionResponse> {
    let index = &analysis.index;
    let declaration = index.declaration_of(index.at(analysis.offset(position))?)?;
    let span = index.declarations[declaration].name_span;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        uri.clone(),
        analysis.range(span),
    )))
}

pub fn references(
    analysis: &Analysis,
    uri: &Url,
    position: Position,
    with_declaration: bool,
) -> Option<Vec<Location>> {
    let index = &analysis.index;
    let declaration = index.declaration_of(index.at(analysis.offset(position))?)?;
    let spans = index.occurrences(declaration);
    let skip = usize::from(!with_declaration);
    Some(
        spans
            .into_iter()
            .skip(skip)
            .map(|span| Location::new(uri.clone(), analysis.range(span)))
            .collect(),
    )
}

fn symbol_kind(kind: Kind) -> SymbolKind {
    match kind {
        Kind::Service => SymbolKind::MODULE,
        Kind::Api => SymbolKind::NAMESPACE,
        Kind::Auth => SymbolKind::KEY,
        Kind::Enum => SymbolKind::ENUM,
        Kind::Model | Kind::Envelope => SymbolKind::STRUCT,
        Kind::TypeAlias => SymbolKind::TYPE_PARAMETER,
        Kind::Endpoint => SymbolKind::FUNCTION,
        Kind::Event => SymbolKind::EVENT,
        Kind::Limit | Kind::RateLimit => SymbolKind::CONSTANT,
        Kind::States => SymbolKind::INTERFACE,
        Kind::State | Kind::EnumValue => SymbolKind::ENUM_MEMBER,
        Kind::Field => SymbolKind::FIELD,
        Kind::Param => SymbolKind::PROPERTY,
    }
}

/// The most entries of an outline: no editor shows more, and a generated spec of hundreds
/// of thousands of fields would otherwise answer a hundred megabytes.
pub const MAX_SYMBOLS: usize = 10_000;

/// The outline: each top-level declaration with its members, the first [`MAX_SYMBOLS`].
pub fn document_symbols(analysis: &Analysis) -> Vec<DocumentSymbol> {
    let index = &analysis.index;
    index
        .declarations
        .iter()
        .take(MAX_SYMBOLS)
        .enumerate()
        .filter(|(_, d)| d.parent.is_none())
        .map(|(i, d)| {
            let children = index
                .children(i)
                .take_while(|(child, _)| *child < MAX_SYMBOLS)
                .map(|(_, child)| symbol(analysis, child, None))
                .collect::<Vec<_>>();
            symbol(analysis, d, (!children.is_empty()).then_some(children))
        })
        .collect()
}

#[allow(deprecated)] // `deprecated` is a required field of the type, superseded by `tags`.
fn symbol(
    analysis: &Analysis,
    d: &Declaration,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    DocumentSymbol {
        name: d.name.clone(),
        detail: Some(d.kind.word().to_string()),
        kind: symbol_kind(d.kind),
        tags: None,
        deprecated: None,
        range: analysis.range(d.full.to(d.name_span)),
        selection_range: analysis.range(d.name_span),
        children,
    }
}

/// The top-level declarations of one document whose name holds the query (any case).
#[allow(deprecated)] // as above
pub fn workspace_symbols(analysis: &Analysis, uri: &Url, query: &str) -> Vec<SymbolInformation> {
    let query = query.to_lowercase();
    analysis
        .index
        .declarations
        .iter()
        .filter(|d| d.parent.is_none() && d.name.to_lowercase().contains(&query))
        .map(|d| SymbolInformation {
            name: d.name.clone(),
            kind: symbol_kind(d.kind),
            tags: None,
            deprecated: None,
            location: Location::new(uri.clone(), analysis.range(d.name_span)),
            container_name: None,
        })
        .collect()
}

/// Every block spanning lines (`{ … }`), and each run of two or more comment lines.
pub fn folding_ranges(analysis: &Analysis) -> Vec<FoldingRange> {
    let text = analysis.text();
    let tokens = lex_with_comments(text, &mut Diagnostics::default());
    let line = |offset: u32| analysis.lines.position(text, offset as usize).line;
    let mut ranges = Vec::new();
    let mut open = Vec::new();
    let mut comments: Option<(u32, u32)> = None;
    for token in &tokens {
        let is_comment = matches!(token.kind, Tok::LineComment | Tok::DocComment);
        if is_comment {
            let here = line(token.span.start);
            comments = match comments {
                Some((first, last)) if here == last + 1 => Some((first, here)),
                other => {
                    push_comment_fold(&mut ranges, other);
                    Some((here, here))
                }
            };
            continue;
        }
        push_comment_fold(&mut ranges, comments.take());
        match token.kind {
            Tok::LBrace => open.push(line(token.span.start)),
            Tok::RBrace => {
                if let Some(start) = open.pop() {
                    let end = line(token.span.start);
                    if end > start {
                        ranges.push(FoldingRange {
                            start_line: start,
                            end_line: end.saturating_sub(1).max(start),
                            kind: Some(FoldingRangeKind::Region),
                            ..Default::default()
                        });
                    }
                }
            }
            _ => {}
        }
    }
    ranges
}

fn push_comment_fold(ranges: &mut Vec<FoldingRange>, run: Option<(u32, u32)>) {
    if let Some((first, last)) = run
        && last > first
    {
        ranges.push(FoldingRange {
            start_line: first,
            end_line: last,
            kind: Some(FoldingRangeKind::Comment),
            ..Default::default()
        });
    }
}
