//! Recursive-descent parser of the spec language. It never stops at the first error: a
//! broken member is skipped to the next line of its block, a broken item to the next item,
//! and every problem becomes a diagnostic.

mod items;
mod members;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::diagnostic_codes;
use crate::lexer::{Tok, Token, lex};
use crate::source::Span;

/// Parses a whole file. The tree is partial where diagnostics were reported.
pub fn parse(text: &str, diags: &mut Diagnostics) -> File {
    let tokens = lex(text, diags);
    let mut parser = Parser::new(text, tokens, diags);
    parser.file()
}

/// The problem was already reported; the caller only has to recover.
pub(crate) struct Failed;
pub(crate) type PResult<T> = Result<T, Failed>;

/// Words that start an item; recovery after a broken item resumes at one of them.
pub const ITEM_KEYWORDS: &[&str] = &[
    "service",
    "api",
    "auth",
    "open",
    "enum",
    "model",
    "envelope",
    "type",
    "endpoint",
    "event",
    "limit",
    "rate_limit",
    "states",
    "changelog",
    "not_shown",
];

/// Units a number may carry in a value (`20 seconds`).
pub const UNITS: &[&str] = &[
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "miles",
    "characters",
    "items",
    "bytes",
    "kibibytes",
    "mebibytes",
];

pub(crate) struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    /// Whether token `i` is the first on its line; recovery resumes at such tokens.
    line_first: Vec<bool>,
    pos: usize,
    depth: usize,
    /// How deep the type or value being read nests (`map<string, (A | B[])[]>`): bounded,
    /// so no input exhausts the stack of the parser or of any pass after it.
    nesting: usize,
    diags: &'a mut Diagnostics,
}

/// The deepest a type or a value may nest. Real specs stay under ten.
pub const MAX_NESTING: usize = 64;

impl<'a> Parser<'a> {
    fn new(text: &'a str, tokens: Vec<Token>, diags: &'a mut Diagnostics) -> Self {
        let mut line_first = Vec::with_capacity(tokens.len());
        let mut prev_end = 0usize;
        for t in &tokens {
            let gap = text.get(prev_end..t.span.start as usize).unwrap_or("");
            line_first.push(prev_end == 0 || gap.contains('\n'));
            prev_end = t.span.end as usize;
        }
        Parser {
            text,
            tokens,
            line_first,
            pos: 0,
            depth: 0,
            nesting: 0,
            diags,
        }
    }

    // ---- token access -------------------------------------------------------------------

    fn peek(&self) -> Token {
        self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> Token {
        self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)]
    }

    fn at(&self, kind: Tok) -> bool {
        self.peek().kind == kind
    }

    fn text_of(&self, t: Token) -> &'a str {
        self.text.get(t.span.range()).unwrap_or("")
    }

    /// Whether the next token is the identifier `word`.
    fn at_word(&self, word: &str) -> bool {
        let t = self.peek();
        t.kind == Tok::Ident && self.text_of(t) == word
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        match t.kind {
            Tok::LBrace => self.depth += 1,
            Tok::RBrace => self.depth = self.depth.saturating_sub(1),
            Tok::Eof => return t,
            _ => {}
        }
        self.pos += 1;
        t
    }

    fn eat(&mut self, kind: Tok) -> Option<Token> {
        self.at(kind).then(|| self.bump())
    }

    fn eat_word(&mut self, word: &str) -> Option<Token> {
        self.at_word(word).then(|| self.bump())
    }

    fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => Err(self.unexpected(what)),
        }
    }

    fn expect_word(&mut self, word: &str) -> PResult<Token> {
        match self.eat_word(word) {
            Some(t) => Ok(t),
            None => Err(self.unexpected(&format!("`{word}`"))),
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.expect(Tok::Ident, what)?;
        Ok(Ident {
            text: self.text_of(t).to_string(),
            span: t.span,
        })
    }

    fn string(&mut self, what: &str) -> PResult<StrLit> {
        let t = self.expect(Tok::Str, what)?;
        Ok(self.str_lit(t))
    }

    fn str_lit(&self, t: Token) -> StrLit {
        let raw = self.text_of(t);
        let inner = raw
            .strip_prefix('"')
            .map(|s| s.strip_suffix('"').unwrap_or(s))
            .unwrap_or(raw);
        StrLit {
            value: unescape(inner),
            span: t.span,
        }
    }

    /// Reports "expected X, found Y" at the next token.
    fn unexpected(&mut self, expected: &str) -> Failed {
        let t = self.peek();
        let found = match t.kind {
            Tok::Ident => format!("`{}`", self.text_of(t)),
            Tok::Str | Tok::Int | Tok::Float => {
                format!("{} `{}`", t.kind.describe(), self.text_of(t))
            }
            other => other.describe().to_string(),
        };
        self.diags.push(
            Diagnostic::error(
                diagnostic_codes::SYNTAX,
                t.span,
                format!("expected {expected}, found {found}"),
            )
            .label(format!("expected {expected}")),
        );
        Failed
    }

    // ---- recovery -----------------------------------------------------------------------

    /// Skips the rest of a broken member: to the first token of a later line at the block's
    /// depth, or to the block's closing brace.
    fn recover_member(&mut self, block_depth: usize) {
        let start = self.pos;
        loop {
            let t = self.peek();
            if t.kind == Tok::Eof || (self.depth <= block_depth && t.kind == Tok::RBrace) {
                return;
            }
            if self.pos > start && self.depth == block_depth && self.line_first[self.pos] {
                return;
            }
            self.bump();
        }
    }

    /// Skips a broken item up to the next line that starts an item at the top level. That
    /// may be the very token the item broke on when it starts its line unindented
    /// (`auth a: bearer` then `auth b: …`); an item that broke on its own first token is
    /// stepped over by the caller.
    fn recover_item(&mut self) {
        let start = self.pos;
        loop {
            let t = self.peek();
            if t.kind == Tok::Eof {
                return;
            }
            let unindented = {
                let at = t.span.start as usize;
                at == 0 || self.text.as_bytes().get(at - 1) == Some(&b'\n')
            };
            if (self.pos > start || unindented)
                && self.depth == 0
                && self.line_first[self.pos]
                && self.starts_item()
            {
                return;
            }
            self.bump();
        }
    }

    fn starts_item(&self) -> bool {
        let t = self.peek();
        match t.kind {
            Tok::At | Tok::DocComment => true,
            Tok::Ident => ITEM_KEYWORDS.contains(&self.text_of(t)),
            _ => false,
        }
    }

    // ---- shared pieces ------------------------------------------------------------------

    /// Doc comments and annotations before an item or member.
    fn attrs(&mut self) -> PResult<Attrs> {
        let mut doc_lines: Vec<&str> = Vec::new();
        let mut annotations = Vec::new();
        loop {
            if let Some(t) = self.eat(Tok::DocComment) {
                let line = self.text_of(t).trim_start_matches("///");
                doc_lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end());
            } else if self.at(Tok::At) {
                annotations.push(self.annotation()?);
            } else {
                break;
            }
        }
        let doc = (!doc_lines.is_empty()).then(|| doc_lines.join("\n").trim().to_string());
        Ok(Attrs {
            doc: doc.filter(|d| !d.is_empty()),
            annotations,
        })
    }

    fn annotation(&mut self) -> PResult<Annotation> {
        let at = self.expect(Tok::At, "`@`")?;
        let name = self.ident("annotation name")?;
        let mut args = Vec::new();
        let mut end = name.span;
        if self.eat(Tok::LParen).is_some() {
            while !self.at(Tok::RParen) {
                args.push(self.arg()?);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
            end = self.expect(Tok::RParen, "`,` or `)`")?.span;
        }
        Ok(Annotation {
            name,
            args,
            span: at.span.to(end),
        })
    }

    /// `value` or `name: value`, inside annotation and tier parentheses.
    fn arg(&mut self) -> PResult<Arg> {
        if self.at(Tok::Ident) && self.peek_at(1).kind == Tok::Colon {
            let name = self.ident("argument name")?;
            self.bump();
            let value = self.value()?;
            return Ok(Arg {
                name: Some(name),
                value,
            });
        }
        Ok(Arg {
            name: None,
            value: self.value()?,
        })
    }

    fn args_in_parens(&mut self) -> PResult<Vec<Arg>> {
        self.expect(Tok::LParen, "`(`")?;
        let mut args = Vec::new();
        while !self.at(Tok::RParen) {
            args.push(self.arg()?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.expect(Tok::RParen, "`,` or `)`")?;
        Ok(args)
    }

    fn value(&mut self) -> PResult<Value> {
        self.nested(Self::value_inner)
    }

    fn value_inner(&mut self) -> PResult<Value> {
        let t = self.peek();
        let kind = match t.kind {
            Tok::Str => {
                self.bump();
                ValueKind::Str(self.str_lit(t).value)
            }
            Tok::Int | Tok::Float => {
                self.bump();
                let text = self.text_of(t);
                let number = if t.kind == Tok::Int {
                    match text.parse::<i64>() {
                        Ok(n) => ValueKind::Int(n),
                        Err(_) => {
                            self.diags.push(
                                Diagnostic::error(
                                    diagnostic_codes::SYNTAX,
                                    t.span,
                                    "integer out of range",
                                )
                                .label("does not fit in 64 bits"),
                            );
                            return Err(Failed);
                        }
                    }
                } else {
                    ValueKind::Float(text.parse().unwrap_or(0.0))
                };
                if self.at(Tok::Ident) && UNITS.contains(&self.text_of(self.peek())) {
                    let unit = self.ident("unit")?;
                    let amount = match number {
                        ValueKind::Int(n) => n as f64,
                        ValueKind::Float(f) => f,
                        _ => 0.0,
                    };
                    return Ok(Value {
                        span: t.span.to(unit.span),
                        kind: ValueKind::Quantity { amount, unit },
                    });
                }
                number
            }
            Tok::LBracket => {
                self.bump();
                let mut items = Vec::new();
                while !self.at(Tok::RBracket) {
                    items.push(self.value()?);
                    if self.eat(Tok::Comma).is_none() {
                        break;
                    }
                }
                let end = self.expect(Tok::RBracket, "`,` or `]`")?;
                return Ok(Value {
                    kind: ValueKind::List(items),
                    span: t.span.to(end.span),
                });
            }
            Tok::Ident => match self.text_of(t) {
                "true" | "false" => {
                    self.bump();
                    ValueKind::Bool(self.text_of(t) == "true")
                }
                "null" => {
                    self.bump();
                    ValueKind::Null
                }
                _ => {
                    let mut path = vec![self.ident("name")?];
                    while self.at(Tok::Dot) && self.peek_at(1).kind == Tok::Ident {
                        self.bump();
                        path.push(self.ident("name")?);
                    }
                    let span = path[0].span.to(path[path.len() - 1].span);
                    return Ok(Value {
                        kind: ValueKind::Ref(path),
                        span,
                    });
                }
            },
            _ => return Err(self.unexpected("a value")),
        };
        Ok(Value { kind, span: t.span })
    }

    /// `key value, value`: ends at the first value not followed by a comma.
    fn prop(&mut self) -> PResult<Prop> {
        let key = self.ident("setting name")?;
        let mut values = vec![self.value()?];
        while self.eat(Tok::Comma).is_some() {
            values.push(self.value()?);
        }
        Ok(Prop { key, values })
    }

    /// `A | B[] | null`.
    fn type_expr(&mut self) -> PResult<TypeExpr> {
        self.nested(Self::type_expr_inner)
    }

    /// Reports the next token as nesting past [`MAX_NESTING`].
    fn too_deep(&mut self) {
        let t = self.peek();
        self.diags.push(
            Diagnostic::error(
                diagnostic_codes::SYNTAX,
                t.span,
                format!("nested more than {MAX_NESTING} levels deep"),
            )
            .label("too deep")
            .help("name the inner part as a model of its own"),
        );
    }

    /// Runs `read` one level deeper, refusing to go past [`MAX_NESTING`].
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            self.too_deep();
            return Err(Failed);
        }
        self.nesting += 1;
        let result = read(self);
        self.nesting -= 1;
        result
    }

    fn type_expr_inner(&mut self) -> PResult<TypeExpr> {
        let first = self.type_atom()?;
        let mut span = first.span;
        let mut alternatives = vec![first];
        while self.eat(Tok::Pipe).is_some() {
            let atom = self.type_atom()?;
            span = span.to(atom.span);
            alternatives.push(atom);
        }
        Ok(TypeExpr { alternatives, span })
    }

    fn type_atom(&mut self) -> PResult<TypeAtom> {
        if let Some(open) = self.eat(Tok::LParen) {
            let inner = self.type_expr()?;
            let close = self.expect(Tok::RParen, "`|` or `)`")?;
            let atom = TypeAtom {
                kind: TypeAtomKind::Group(Box::new(inner)),
                span: open.span.to(close.span),
            };
            return Ok(self.list_suffix(atom));
        }
        if self.at(Tok::LBracket) {
            let t = self.peek();
            self.diags.push(
                Diagnostic::error(
                    diagnostic_codes::SYNTAX,
                    t.span,
                    "expected a type, found `[`",
                )
                .label("lists are written after their item type")
                .help("write a list as `T[]`, e.g. `string[]`"),
            );
            return Err(Failed);
        }
        if self.at(Tok::Str) {
            let value = self.string("a constant")?;
            return Ok(self.list_suffix(TypeAtom {
                span: value.span,
                kind: TypeAtomKind::Constant(value),
            }));
        }
        if self.at(Tok::Int) {
            let t = self.peek();
            self.bump();
            let Ok(n) = self.text_of(t).parse::<i64>() else {
                self.diags.push(
                    Diagnostic::error(
                        diagnostic_codes::SYNTAX,
                        t.span,
                        "a whole number out of range",
                    )
                    .label("beyond a 64-bit integer"),
                );
                return Err(Failed);
            };
            let value = Value {
                kind: ValueKind::Int(n),
                span: t.span,
            };
            return Ok(self.list_suffix(TypeAtom {
                span: t.span,
                kind: TypeAtomKind::ScalarConstant(value),
            }));
        }
        let name = self.ident("a type")?;
        let atom = match name.text.as_str() {
            "null" => TypeAtom {
                kind: TypeAtomKind::Null,
                span: name.span,
            },
            "true" | "false" => TypeAtom {
                kind: TypeAtomKind::ScalarConstant(Value {
                    kind: ValueKind::Bool(name.text == "true"),
                    span: name.span,
                }),
                span: name.span,
            },
            "not_shown" => {
                let mut span = name.span;
                let mut what = None;
                if self.eat(Tok::LParen).is_some() {
                    let s = self.string("what the source leaves open")?;
                    span = span.to(self.expect(Tok::RParen, "`)`")?.span);
                    what = Some(s);
                }
                TypeAtom {
                    kind: TypeAtomKind::NotShown(what),
                    span,
                }
            }
            "map" if self.at(Tok::Lt) => self.map_type(name.span)?,
            _ => TypeAtom {
                span: name.span,
                kind: TypeAtomKind::Named(name),
            },
        };
        Ok(self.list_suffix(atom))
    }

    /// `map<K, T>` after its `map`; lowering checks that the key type is `string`.
    fn map_type(&mut self, start: crate::source::Span) -> PResult<TypeAtom> {
        self.bump();
        let key = self.ident("the key type, `string`")?;
        self.expect(Tok::Comma, "`,` and the value type")?;
        let value = self.type_expr()?;
        let end = self.expect(Tok::Gt, "`>` closing the map type")?;
        Ok(TypeAtom {
            kind: TypeAtomKind::Map {
                key,
                value: Box::new(value),
            },
            span: start.to(end.span),
        })
    }

    /// Any number of `[]` after a type; each is a level of nesting.
    fn list_suffix(&mut self, mut atom: TypeAtom) -> TypeAtom {
        let mut levels = 0;
        while self.at(Tok::LBracket) && self.peek_at(1).kind == Tok::RBracket {
            levels += 1;
            if self.nesting + levels > MAX_NESTING {
                self.too_deep();
                // Skip the rest of the suffix so recovery does not report each `[]`.
                while self.at(Tok::LBracket) && self.peek_at(1).kind == Tok::RBracket {
                    self.bump();
                    self.bump();
                }
                return atom;
            }
            self.bump();
            let end = self.bump();
            atom = TypeAtom {
                span: atom.span.to(end.span),
                kind: TypeAtomKind::List(Box::new(atom)),
            };
        }
        atom
    }

    /// `name?: Type = default`.
    fn field(&mut self) -> PResult<FieldDecl> {
        let t = self.peek();
        let name = match t.kind {
            Tok::Ident => {
                self.bump();
                FieldName {
                    text: self.text_of(t).to_string(),
                    span: t.span,
                    quoted: false,
                }
            }
            Tok::Str => {
                self.bump();
                let s = self.str_lit(t);
                FieldName {
                    text: s.value,
                    span: t.span,
                    quoted: true,
                }
            }
            _ => return Err(self.unexpected("a field name")),
        };
        let optional = self.eat(Tok::Question).map(|t| t.span);
        self.expect(Tok::Colon, "`:` and the field's type")?;
        let ty = self.type_expr()?;
        let default = match self.eat(Tok::Eq) {
            Some(eq) if self.line_first[self.pos] || self.at(Tok::RBrace) => {
                self.diags.push(
                    Diagnostic::error(
                        diagnostic_codes::SYNTAX,
                        eq.span,
                        "expected a default value after `=`",
                    )
                    .label("nothing follows on this line"),
                );
                return Err(Failed);
            }
            Some(_) => Some(self.value()?),
            None => None,
        };
        Ok(FieldDecl {
            name,
            optional,
            ty,
            default,
        })
    }

    /// Parses `{ member* }`, recovering per member, with `member` parsing one member.
    fn block<T>(
        &mut self,
        mut member: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<(Vec<Member<T>>, Span)> {
        let open = self.expect(Tok::LBrace, "`{`")?;
        let depth = self.depth;
        let mut members = Vec::new();
        while !self.at(Tok::RBrace) && !self.at(Tok::Eof) {
            let start = self.peek().span;
            let parsed = self.attrs().and_then(|attrs| {
                let node = member(self)?;
                Ok(Member {
                    attrs,
                    node,
                    span: start.to(self.tokens[self.pos.saturating_sub(1)].span),
                })
            });
            match parsed {
                Ok(m) => {
                    members.push(m);
                    self.eat(Tok::Comma);
                }
                Err(Failed) => self.recover_member(depth),
            }
        }
        let close = self.expect(Tok::RBrace, "`}`")?;
        Ok((members, open.span.to(close.span)))
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
