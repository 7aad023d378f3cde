//! Completion from what the cursor follows on its line: annotation names and their
//! arguments, types, auth schemes, status codes, an enum's values in a default, and the
//! words that start an item or an endpoint's member.

use crate::analysis::Analysis;
use crate::index::Kind;
use covenant_codegen::Spec;
use covenant_codegen::vocabulary::{
    ENDPOINT_MEMBERS, ITEM_KEYWORDS, PRIMITIVES, SOURCES, annotations,
};
use lsp_types::{CompletionItem, CompletionItemKind, CompletionResponse, Position};
use regex::Regex;
use std::sync::LazyLock;

/// The statuses offered after `response` and `error`, besides those the spec already uses.
const STATUSES: &[(&str, &str)] = &[
    ("200", "OK"),
    ("201", "Created"),
    ("202", "Accepted"),
    ("204", "No Content"),
    ("301", "Moved Permanently"),
    ("302", "Found"),
    ("304", "Not Modified"),
    ("400", "Bad Request"),
    ("401", "Unauthorized"),
    ("403", "Forbidden"),
    ("404", "Not Found"),
    ("409", "Conflict"),
    ("410", "Gone"),
    ("413", "Content Too Large"),
    ("415", "Unsupported Media Type"),
    ("422", "Unprocessable Content"),
    ("429", "Too Many Requests"),
    ("500", "Internal Server Error"),
    ("503", "Service Unavailable"),
    ("4XX", "any client error"),
    ("5XX", "any server error"),
    ("default", "any other status"),
];

/// What the text before the cursor asks for.
#[derive(Debug, PartialEq)]
enum Context {
    Annotation,
    AnnotationArgument(String),
    Type,
    AuthScheme,
    Status,
    EnumValue(String),
    Keyword,
}

/// What a pattern's match says is wanted.
type Reading = fn(&regex::Captures) -> Context;

/// The text before the cursor, tried against each pattern in turn: the first that matches
/// says what is wanted.
static PATTERNS: LazyLock<Vec<(Regex, Reading)>> = LazyLock::new(|| {
    let rules: Vec<(&str, Reading)> = vec![
        (r"@\w*$", |_| Context::Annotation),
        (r"@(\w+)\([^)]*$", |c| {
            Context::AnnotationArgument(c[1].to_string())
        }),
        (r"^\s*auth\??\s+[\w\s|&(),]*$", |_| Context::AuthScheme),
        (r"^\s*(response|error)\s+[\w\s,]*$", |_| Context::Status),
        (r":\s*([A-Za-z_]\w*)\s*(\|\s*null\s*)?=\s*\w*$", |c| {
            Context::EnumValue(c[1].to_string())
        }),
        (r"(:|\||<|,|\(|\bbody|\brejections)\s*\w*$", |_| {
            Context::Type
        }),
        (r"^\s*\w*$", |_| Context::Keyword),
    ];
    rules
        .into_iter()
        .map(|(pattern, make)| (Regex::new(pattern).expect("a valid pattern"), make))
        .collect()
});

fn context(before: &str) -> Option<Context> {
    PATTERNS
        .iter()
        .find_map(|(pattern, make)| pattern.captures(before).map(|captures| make(&captures)))
}

pub fn complete(
    analysis: &Analysis,
    spec: Option<&Spec>,
    position: Position,
) -> CompletionResponse {
    let offset = analysis.offset(position);
    let text = analysis.text();
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let items = match context(before) {
        Some(Context::Annotation) => words(annotations(), CompletionItemKind::FUNCTION),
        Some(Context::AnnotationArgument(name)) => annotation_arguments(&name, spec),
        Some(Context::Type) => types(analysis),
        Some(Context::AuthScheme) => declared(analysis, Kind::Auth, CompletionItemKind::KEYWORD),
        Some(Context::Status) => statuses(),
        Some(Context::EnumValue(ty)) => enum_values(analysis, &ty),
        Some(Context::Keyword) => keywords(analysis, offset),
        None => Vec::new(),
    };
    CompletionResponse::Array(items)
}

fn words<'a>(
    words: impl IntoIterator<Item = &'a str>,
    kind: CompletionItemKind,
) -> Vec<CompletionItem> {
    words
        .into_iter()
        .map(|word| CompletionItem {
            label: word.to_string(),
            kind: Some(kind),
            ..Default::default()
        })
        .collect()
}

fn annotation_arguments(name: &str, spec: Option<&Spec>) -> Vec<CompletionItem> {
    match name {
        "source" => words(SOURCES.iter().copied(), CompletionItemKind::ENUM_MEMBER),
        "deprecated" => words(
            ["since: ", "sunset: ", "use: "],
            CompletionItemKind::PROPERTY,
        ),
        "tracked_by" => spec.map_or_else(Vec::new, |spec| {
            words(
                spec.endpoints.iter().map(|e| e.name.as_str()),
                CompletionItemKind::FUNCTION,
            )
        }),
        _ => Vec::new(),
    }
}

fn types(analysis: &Analysis) -> Vec<CompletionItem> {
    let mut items = words(PRIMITIVES.iter().copied(), CompletionItemKind::KEYWORD);
    for d in analysis
        .index
        .declarations
        .iter()
        .filter(|d| d.parent.is_none() && d.kind.is_type())
    {
        items.push(CompletionItem {
            label: d.name.clone(),
            kind: Some(match d.kind {
                Kind::Enum => CompletionItemKind::ENUM,
                _ => CompletionItemKind::STRUCT,
            }),
            detail: Some(d.kind.word().to_string()),
            documentation: d.doc.clone().map(lsp_types::Documentation::String),
            ..Default::default()
        });
    }
    items
}

fn declared(analysis: &Analysis, kind: Kind, item_kind: CompletionItemKind) -> Vec<CompletionItem> {
    words(
        analysis
            .index
            .declarations
            .iter()
            .filter(|d| d.kind == kind)
            .map(|d| d.name.as_str()),
        item_kind,
    )
}

fn statuses() -> Vec<CompletionItem> {
    STATUSES
        .iter()
        .map(|(code, meaning)| CompletionItem {
            label: code.to_string(),
            kind: Some(CompletionItemKind::VALUE),
            detail: Some(meaning.to_string()),
            ..Default::default()
        })
        .collect()
}

fn enum_values(analysis: &Analysis, ty: &str) -> Vec<CompletionItem> {
    let index = &analysis.index;
    let Some(enumeration) = index
        .declarations
        .iter()
        .position(|d| d.parent.is_none() && d.kind == Kind::Enum && d.name == ty)
    else {
        return Vec::new();
    };
    words(
        index.children(enumeration).map(|(_, v)| v.name.as_str()),
        CompletionItemKind::ENUM_MEMBER,
    )
}

/// The words that may start a line here: an item's keyword at the top level, a member's
/// inside an endpoint.
fn keywords(analysis: &Analysis, offset: usize) -> Vec<CompletionItem> {
    let index = &analysis.index;
    let enclosing = index.enclosing(offset).map(|i| {
        let d = &index.declarations[i];
        d.parent.map_or(d.kind, |p| index.declarations[p].kind)
    });
    match enclosing {
        None => words(ITEM_KEYWORDS.iter().copied(), CompletionItemKind::KEYWORD),
        Some(Kind::Endpoint) => words(
            ENDPOINT_MEMBERS.iter().copied(),
            CompletionItemKind::KEYWORD,
        ),
        Some(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_before_the_cursor_names_what_is_wanted() {
        assert_eq!(context("    @max_l"), Some(Context::Annotation));
        assert_eq!(
            context("@source(tool"),
            Some(Context::AnnotationArgument("source".into()))
        );
        assert_eq!(context("    owner: Own"), Some(Context::Type));
        assert_eq!(context("    pets: Pet[] | "), Some(Context::Type));
        assert_eq!(context("    auth team_key | "), Some(Context::AuthScheme));
        assert_eq!(context("    response "), Some(Context::Status));
        assert_eq!(context("    error 4"), Some(Context::Status));
        assert_eq!(context("    response 200: "), Some(Context::Type));
        assert_eq!(
            context("    status?: Status = act"),
            Some(Context::EnumValue("Status".into()))
        );
        assert_eq!(context("    resp"), Some(Context::Keyword));
        assert_eq!(context("    \"quoted"), None);
    }
}
