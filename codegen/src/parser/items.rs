//! Top-level items: one function per keyword.

use super::{Failed, PResult, Parser};
use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::diagnostic_codes;
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn file(&mut self) -> File {
        let mut items = Vec::new();
        while !self.at(Tok::Eof) {
            let before = self.pos;
            match self.attrs().and_then(|attrs| self.item(attrs)) {
                Ok(item) => items.push(item),
                Err(Failed) => self.recover_item(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        File { items }
    }

    fn item(&mut self, attrs: Attrs) -> PResult<Item> {
        let keyword = self.peek();
        let word = if keyword.kind == Tok::Ident {
            self.text_of(keyword)
        } else {
            ""
        };
        let (kind, head) = match word {
            "service" => {
                self.bump();
                let name = self.ident("the service's name")?;
                let head = keyword.span.to(name.span);
                let (props, _) = self.block(Self::prop)?;
                (ItemKind::Service(PropBlock { name, props }), head)
            }
            "api" => self.api()?,
            "auth" => self.auth()?,
            "open" | "enum" => self.enum_decl()?,
            "model" | "envelope" => {
                self.bump();
                let decl = self.model_named()?;
                let head = keyword.span.to(decl.name.span);
                let kind = if word == "model" {
                    ItemKind::Model(decl)
                } else {
                    ItemKind::Envelope(decl)
                };
                (kind, head)
            }
            "type" => {
                self.bump();
                let name = self.ident("the type's name")?;
                let head = keyword.span.to(name.span);
                self.expect(Tok::Eq, "`=`")?;
                let ty = self.type_expr()?;
                (ItemKind::Type(TypeAliasDecl { name, ty }), head)
            }
            "endpoint" => self.endpoint()?,
            "event" => self.event()?,
            "limit" => self.limit()?,
            "rate_limit" => {
                self.bump();
                let name = self.ident("the rate limit's name")?;
                let head = keyword.span.to(name.span);
                let (members, _) = self.block(Self::rate_member)?;
                (ItemKind::RateLimit(RateLimitDecl { name, members }), head)
            }
            "states" => {
                self.bump();
                let name = self.ident("the state machine's name")?;
                let head = keyword.span.to(name.span);
                let (members, _) = self.block(Self::state_member)?;
                (ItemKind::States(StatesDecl { name, members }), head)
            }
            "changelog" => {
                self.bump();
                let (entries, _) = self.block(|p| {
                    let date = p.string("a date such as \"2025-11\"")?;
                    p.expect(Tok::Colon, "`:`")?;
                    let text = p.string("what changed")?;
                    Ok(ChangeEntry { date, text })
                })?;
                (ItemKind::Changelog(entries), keyword.span)
            }
            "not_shown" => {
                self.bump();
                let what = self.string("what the source leaves open")?;
                let head = keyword.span.to(what.span);
                (ItemKind::NotShown(what), head)
            }
            _ => {
                let t = self.peek();
                let found = if t.kind == Tok::Ident {
                    format!("`{}`", self.text_of(t))
                } else {
                    t.kind.describe().to_string()
                };
                self.diags.push(
                    Diagnostic::error(
                        diagnostic_codes::SYNTAX,
                        t.span,
                        format!("expected an item, found {found}"),
                    )
                    .label("not the start of an item")
                    .help(
                        "items start with service, api, auth, enum, open enum, model, envelope, type, \
                             endpoint, event, limit, rate_limit, states, changelog or not_shown",
                    ),
                );
                return Err(Failed);
            }
        };
        Ok(Item { attrs, kind, head })
    }

    fn api(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let keyword = self.bump();
        let name = self.ident("the API's name")?;
        let head = keyword.span.to(name.span);
        let mut errors = Vec::new();
        let mut headers = Vec::new();
        let (members, _) = self.block(|p| {
            let status_follows = p.peek_at(1).kind == Tok::Int
                || (p.peek_at(1).kind == Tok::Ident && p.text_of(p.peek_at(1)) == "default");
            // `header "Name"?: T` (a field follows), as against a setting named `header`.
            let field_follows = matches!(p.peek_at(1).kind, Tok::Str | Tok::Ident)
                && matches!(p.peek_at(2).kind, Tok::Colon | Tok::Question);
            if p.at_word("error") && status_follows {
                p.bump();
                Ok(ApiMember::Error(p.error_decl()?))
            } else if p.at_word("header") && field_follows {
                p.bump();
                Ok(ApiMember::Header(p.field()?))
            } else {
                Ok(ApiMember::Setting(p.prop()?))
            }
        })?;
        let mut props = Vec::new();
        for m in members {
            let (attrs, span) = (m.attrs, m.span);
            match m.node {
                ApiMember::Setting(node) => props.push(Member { attrs, node, span }),
                ApiMember::Error(node) => errors.push(Member { attrs, node, span }),
                ApiMember::Header(node) => headers.push(Member { attrs, node, span }),
            }
        }
        Ok((
            ItemKind::Api(ApiDecl {
                name,
                props,
                errors,
                headers,
            }),
            head,
        ))
    }

    /// `auth name: header "Header-Name" { settings }`, or `bearer`, `basic`,
    /// `query "name"`, `cookie "name"`, `oauth2`.
    fn auth(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let keyword = self.bump();
        let name = self.ident("the auth scheme's name")?;
        let head = keyword.span.to(name.span);
        self.expect(
            Tok::Colon,
            "`:` and where the credential travels (header, bearer, basic, query, cookie, oauth2)",
        )?;
        let location = self.ident(
            "where the credential travels: header, bearer, basic, query, cookie or oauth2",
        )?;
        let key = match location.text.as_str() {
            "header" => Some(self.string("the header's name")?),
            "query" => Some(self.string("the query parameter's name")?),
            "cookie" => Some(self.string("the cookie's name")?),
            "bearer" | "basic" | "oauth2" => None,
            _ => {
                self.unknown_carrier(&location);
                return Err(Failed);
            }
        };
        let props = if self.at(Tok::LBrace) {
            self.block(Self::prop)?.0
        } else {
            Vec::new()
        };
        Ok((
            ItemKind::Auth(AuthDecl {
                name,
                location,
                key,
                props,
            }),
            head,
        ))
    }

    fn unknown_carrier(&mut self, location: &Ident) {
        let what = match location.text.as_str() {
            "openid" | "openIdConnect" | "mutual_tls" | "mutualTLS" | "digest" => {
                format!("`{}` auth schemes are not supported", location.text)
            }
            other => format!("unknown credential location `{other}`"),
        };
        self.diags.push(
            Diagnostic::error(diagnostic_codes::SYNTAX, location.span, what)
                .label("expected header, bearer, basic, query, cookie or oauth2")
                .help(
                    "write `auth token: bearer`, `auth key: header \"X-Api-Key\"`, \
                     `auth key: query \"api_key\"` or `auth session: cookie \"sid\"`",
                ),
        );
    }

    /// `open enum Name: int subset of Parent { values }`.
    fn enum_decl(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let first = self.peek();
        let open = self.eat_word("open").map(|t| t.span);
        self.expect_word("enum")?;
        let name = self.ident("the enum's name")?;
        let head = first.span.to(name.span);
        let repr = match self.eat(Tok::Colon) {
            Some(_) => Some(self.ident("the values' type (int)")?),
            None => None,
        };
        let parent = if self.eat_word("subset").is_some() {
            self.expect_word("of")?;
            Some(self.ident("the parent enum")?)
        } else {
            None
        };
        let (members, _) = self.block(|p| {
            let t = p.peek();
            match t.kind {
                Tok::Ident if p.text_of(t) == "not_shown" => {
                    p.bump();
                    Ok(EnumMember::NotShown(
                        p.string("what the source leaves open")?,
                    ))
                }
                Tok::Ident | Tok::Int => {
                    p.bump();
                    Ok(EnumMember::Value(EnumValue {
                        text: p.text_of(t).to_string(),
                        span: t.span,
                        is_int: t.kind == Tok::Int,
                    }))
                }
                Tok::Str => {
                    p.bump();
                    Ok(EnumMember::Value(EnumValue {
                        text: p.str_lit(t).value,
                        span: t.span,
                        is_int: false,
                    }))
                }
                _ => Err(p.unexpected("an enum value")),
            }
        })?;
        Ok((
            ItemKind::Enum(EnumDecl {
                name,
                open,
                repr,
                parent,
                members,
            }),
            head,
        ))
    }

    pub(super) fn model_named(&mut self) -> PResult<ModelDecl> {
        let name = self.ident("a name")?;
        self.model_body(name)
    }

    pub(super) fn model_body(&mut self, name: Ident) -> PResult<ModelDecl> {
        let (members, body_span) = self.block(Self::model_member)?;
        Ok(ModelDecl {
            name,
            members,
            body_span,
        })
    }

    fn endpoint(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let keyword = self.bump();
        let name = self.ident("the endpoint's name")?;
        let head = keyword.span.to(name.span);
        self.expect(Tok::Colon, "`:` and the HTTP method")?;
        let method = self.ident("an HTTP method")?;
        let path = self.string("the path")?;
        let (members, _) = self.block(Self::endpoint_member)?;
        Ok((
            ItemKind::Endpoint(EndpointDecl {
                name,
                method,
                path,
                members,
            }),
            head,
        ))
    }

    fn event(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let keyword = self.bump();
        let name = self.ident("the event's name")?;
        let head = keyword.span.to(name.span);
        self.expect(Tok::Colon, "`:` and the event type")?;
        let pattern = self.string("the event type, e.g. \"daily.data.{resource}.created\"")?;
        let members = if self.at(Tok::LBrace) {
            self.block(Self::event_member)?.0
        } else {
            Vec::new()
        };
        Ok((
            ItemKind::Event(EventDecl {
                name,
                pattern,
                members,
            }),
            head,
        ))
    }

    /// `limit name = 20 seconds { applies … }`.
    fn limit(&mut self) -> PResult<(ItemKind, crate::source::Span)> {
        let keyword = self.bump();
        let name = self.ident("the limit's name")?;
        let head = keyword.span.to(name.span);
        let value = match self.eat(Tok::Eq) {
            Some(_) if self.at_word("not_shown") => {
                let t = self.bump();
                let mut span = t.span;
                let mut what = "value".to_string();
                if self.eat(Tok::LParen).is_some() {
                    what = self.string("what the source leaves open")?.value;
                    span = span.to(self.expect(Tok::RParen, "`)`")?.span);
                }
                Some(Value {
                    kind: ValueKind::Ref(vec![Ident {
                        text: format!("not_shown:{what}"),
                        span,
                    }]),
                    span,
                })
            }
            Some(_) => Some(self.value()?),
            None => None,
        };
        let props = if self.at(Tok::LBrace) {
            self.block(Self::prop)?.0
        } else {
            Vec::new()
        };
        Ok((ItemKind::Limit(LimitDecl { name, value, props }), head))
    }

    pub(super) fn error_decl(&mut self) -> PResult<ErrorDecl> {
        let status = self.status()?;
        let mut ty = None;
        let mut media = None;
        if self.eat(Tok::Colon).is_some() {
            ty = Some(self.type_expr()?);
            if self.at(Tok::Str) {
                media = Some(self.string("the media type")?);
            }
        }
        let headers = if self.eat_word("headers").is_some() {
            self.block(|p| p.field())?.0
        } else {
            Vec::new()
        };
        Ok(ErrorDecl {
            status,
            ty,
            media,
            headers,
        })
    }

    pub(super) fn status(&mut self) -> PResult<Status> {
        if let Some(word) = self.eat_word("default") {
            return Ok(Status {
                code: 0,
                form: StatusForm::Default,
                span: word.span,
            });
        }
        let t = self.expect(Tok::Int, "a status code")?;
        let code = self.text_of(t).parse().unwrap_or(0);
        // `4XX`: the digit and `XX` written together.
        let next = self.peek();
        if next.kind == Tok::Ident
            && next.span.start == t.span.end
            && self.text_of(next).eq_ignore_ascii_case("XX")
        {
            let xx = self.bump();
            return Ok(Status {
                code,
                form: StatusForm::Class,
                span: t.span.to(xx.span),
            });
        }
        Ok(Status {
            code,
            form: StatusForm::Code,
            span: t.span,
        })
    }
}

/// What an `api` block holds, as read.
enum ApiMember {
    Setting(Prop),
    Error(ErrorDecl),
    Header(FieldDecl),
}
