//! Semantic colours: every token the lexer gives, named by what the index says it is (a
//! model's name is a struct wherever it is written, a field a property, `string` a built-in
//! type), keywords by the words the parser gives meaning to.

use crate::analysis::Analysis;
use crate::index::Kind;
use covenant_codegen::Diagnostics;
use covenant_codegen::lexer::{Tok, lex_with_comments};
use covenant_codegen::vocabulary::{ENDPOINT_MEMBERS, ITEM_KEYWORDS};
use lsp_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensLegend,
    SemanticTokensResult,
};
use std::collections::HashMap;

const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::STRUCT,
    SemanticTokenType::ENUM,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::DECORATOR,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::EVENT,
    SemanticTokenType::VARIABLE,
];

const MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DOCUMENTATION,
    SemanticTokenModifier::DEFAULT_LIBRARY,
];

/// Words of the language besides those that start an item or an endpoint's member.
const OTHER_KEYWORDS: &[&str] = &[
    "subset",
    "of",
    "null",
    "true",
    "false",
    "map",
    "headers",
    "form",
    "multipart",
    "placeholder",
    "fields",
    "versions",
    "base",
    "when",
    "on",
    "GET",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

fn type_index(t: SemanticTokenType) -> u32 {
    TYPES.iter().position(|x| *x == t).unwrap_or(0) as u32
}

const DECLARATION: u32 = 1;
const DOCUMENTATION: u32 = 2;
const DEFAULT_LIBRARY: u32 = 4;

fn kind_type(kind: Kind) -> SemanticTokenType {
    match kind {
        Kind::Model | Kind::Envelope => SemanticTokenType::STRUCT,
        Kind::Enum => SemanticTokenType::ENUM,
        Kind::TypeAlias => SemanticTokenType::TYPE,
        Kind::EnumValue | Kind::State => SemanticTokenType::ENUM_MEMBER,
        Kind::Endpoint => SemanticTokenType::FUNCTION,
        Kind::Field => SemanticTokenType::PROPERTY,
        Kind::Param => SemanticTokenType::PARAMETER,
        Kind::Event => SemanticTokenType::EVENT,
        Kind::Api | Kind::Service | Kind::States => SemanticTokenType::NAMESPACE,
        Kind::Auth | Kind::Limit | Kind::RateLimit => SemanticTokenType::VARIABLE,
    }
}

pub fn tokens(analysis: &Analysis) -> SemanticTokensResult {
    let index = &analysis.index;
    let mut named: HashMap<u32, (SemanticTokenType, u32)> = HashMap::new();
    for d in &index.declarations {
        named.insert(d.name_span.start, (kind_type(d.kind), DECLARATION));
    }
    for r in &index.references {
        let kind = index.resolve(r).map(|d| index.declarations[d].kind);
        if let Some(kind) = kind {
            named.insert(r.span.start, (kind_type(kind), 0));
        }
    }
    for span in &index.builtins {
        named.insert(span.start, (SemanticTokenType::TYPE, DEFAULT_LIBRARY));
    }
    let text = analysis.text();
    let lexed = lex_with_comments(text, &mut Diagnostics::default());
    let mut data = Vec::with_capacity(lexed.len());
    let (mut line, mut column) = (0u32, 0u32);
    let mut after_at = false;
    for token in &lexed {
        let classified = match token.kind {
            Tok::LineComment => Some((SemanticTokenType::COMMENT, 0)),
            Tok::DocComment => Some((SemanticTokenType::COMMENT, DOCUMENTATION)),
            // A quoted name (`"x-request-id": string`) is coloured as the name it is.
            Tok::Str | Tok::UnterminatedStr => named
                .get(&token.span.start)
                .cloned()
                .or(Some((SemanticTokenType::STRING, 0))),
            Tok::Int | Tok::Float => Some((SemanticTokenType::NUMBER, 0)),
            Tok::At => Some((SemanticTokenType::DECORATOR, 0)),
            Tok::Ident if after_at => Some((SemanticTokenType::DECORATOR, 0)),
            Tok::Ident => named.get(&token.span.start).cloned().or_else(|| {
                let word = &text[token.span.range()];
                let keyword = ITEM_KEYWORDS.contains(&word)
                    || ENDPOINT_MEMBERS.contains(&word)
                    || OTHER_KEYWORDS.contains(&word);
                keyword.then_some((SemanticTokenType::KEYWORD, 0))
            }),
            _ => None,
        };
        after_at = token.kind == Tok::At;
        let Some((token_type, modifiers)) = classified else {
            continue;
        };
        let start = analysis.lines.position(text, token.span.start as usize);
        let length = text[token.span.range()].encode_utf16().count() as u32;
        let delta_line = start.line - line;
        let delta_start = if delta_line == 0 {
            start.character - column
        } else {
            start.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length,
            token_type: type_index(token_type),
            token_modifiers_bitset: modifiers,
        });
        (line, column) = (start.line, start.character);
    }
    SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })
}
