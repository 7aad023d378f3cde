//! Members of blocks: model fields, endpoint clauses, event clauses, states, tiers.

use super::{PResult, Parser};
use crate::ast::*;
use crate::lexer::Tok;

impl Parser<'_> {
    /// `scheme` or `scheme(scope, "scope:with:colons")`.
    fn auth_ref(&mut self) -> PResult<AuthRef> {
        let scheme = self.ident("an auth scheme")?;
        let mut scopes = Vec::new();
        if self.eat(Tok::LParen).is_some() {
            while !self.at(Tok::RParen) {
                let t = self.peek();
                match t.kind {
                    Tok::Str => scopes.push(self.string("a scope")?),
                    _ => {
                        let word = self.ident("a scope (a name, or a quoted string)")?;
                        scopes.push(StrLit {
                            value: word.text,
                            span: word.span,
                        });
                    }
                }
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
        }
        Ok(AuthRef { scheme, scopes })
    }

    /// A tag: a name, or a quoted string for one that is not (`"Pet Store"`).
    fn tag(&mut self) -> PResult<Ident> {
        if self.at(Tok::Str) {
            let text = self.string("a tag")?;
            return Ok(Ident {
                text: text.value,
                span: text.span,
            });
        }
        self.ident("a tag")
    }

    pub(super) fn model_member(&mut self) -> PResult<ModelMember> {
        let fields_next =
            self.peek_at(1).kind == Tok::Ident && self.text_of(self.peek_at(1)) == "fields";
        if self.at_word("not_shown") && (self.peek_at(1).kind == Tok::Str || fields_next) {
            self.bump();
            let fields = self.eat_word("fields").is_some();
            let what = self.string("what the source leaves open")?;
            return Ok(ModelMember::NotShown { what, fields });
        }
        Ok(ModelMember::Field(self.field()?))
    }

    pub(super) fn endpoint_member(&mut self) -> PResult<EndpointMember> {
        let t = self.peek();
        if t.kind != Tok::Ident {
            return Err(self.unexpected("an endpoint clause"));
        }
        let word = self.text_of(t);
        // A clause keyword directly followed by `:` or `?:` would be a field; endpoints
        // have none, so every word here is a clause.
        match word {
            "api" => {
                self.bump();
                Ok(EndpointMember::Api(self.ident("an API name")?))
            }
            "auth" => {
                self.bump();
                let optional = self.eat(Tok::Question).is_some();
                let mut schemes = vec![self.auth_ref()?];
                // `a | b`: one of them; `a & b`: both. A clause says one or the other, and
                // what may be sent as well (`auth?`) is one scheme at a time.
                let joiner = match self.peek().kind {
                    Tok::Amp if !optional => Some(Tok::Amp),
                    Tok::Pipe => Some(Tok::Pipe),
                    _ => None,
                };
                if let Some(joiner) = joiner {
                    while self.eat(joiner).is_some() {
                        schemes.push(self.auth_ref()?);
                    }
                }
                let together = joiner == Some(Tok::Amp);
                if matches!(self.peek().kind, Tok::Pipe | Tok::Amp) {
                    let expected = if optional {
                        "`|` or the end of the clause (`auth?` schemes are sent one by one)"
                    } else {
                        "the end of the clause (a clause is `a | b` or `a & b`, not both)"
                    };
                    return Err(self.unexpected(expected));
                }
                Ok(EndpointMember::Auth {
                    optional,
                    schemes,
                    together,
                })
            }
            "public" => Ok(EndpointMember::Public(self.bump().span)),
            "tags" => {
                self.bump();
                let mut tags = vec![self.tag()?];
                while self.eat(Tok::Comma).is_some() {
                    tags.push(self.tag()?);
                }
                Ok(EndpointMember::Tags(tags))
            }
            "path" | "query" | "header" => {
                self.bump();
                let location = match word {
                    "path" => ParamLocation::Path,
                    "query" => ParamLocation::Query,
                    _ => ParamLocation::Header,
                };
                Ok(EndpointMember::Param(location, self.field()?))
            }
            "body" => {
                let keyword = self.bump();
                // `form` or `multipart` before a type or `{`; a model named so is `body form`
                // alone.
                let next = self.peek_at(1).kind;
                let encoding = [
                    ("form", BodyEncoding::Form),
                    ("multipart", BodyEncoding::Multipart),
                ]
                .into_iter()
                .find(|(word, _)| self.at_word(word))
                .filter(|_| matches!(next, Tok::Ident | Tok::LBrace))
                .map(|(_, encoding)| (encoding, self.bump().span));
                Ok(EndpointMember::Body(
                    self.body_decl(keyword.span)?,
                    encoding,
                ))
            }
            "response" => {
                let keyword = self.bump();
                let mut statuses = vec![self.status()?];
                while self.eat(Tok::Comma).is_some() {
                    statuses.push(self.status()?);
                }
                let body = if self.at(Tok::Colon) || self.at(Tok::LBrace) {
                    self.eat(Tok::Colon);
                    Some(self.body_decl(keyword.span)?)
                } else {
                    None
                };
                let headers = if self.eat_word("headers").is_some() {
                    self.block(|p| p.field())?.0
                } else {
                    Vec::new()
                };
                Ok(EndpointMember::Response {
                    statuses,
                    body,
                    headers,
                })
            }
            "error" => {
                self.bump();
                Ok(EndpointMember::Error(self.error_decl()?))
            }
            "rejections" => {
                self.bump();
                Ok(EndpointMember::Rejections(self.ident("a model's name")?))
            }
            "not_shown" => {
                self.bump();
                Ok(EndpointMember::NotShown(
                    self.string("what the source leaves open")?,
                ))
            }
            _ => Err(self.unexpected(
                "an endpoint clause (api, auth, public, tags, path, query, header, body, \
                 response, error, rejections, not_shown)",
            )),
        }
    }

    /// A type, or `{ fields }` written in place.
    fn body_decl(&mut self, at: crate::source::Span) -> PResult<BodyDecl> {
        if self.at(Tok::LBrace) {
            let name = Ident {
                text: String::new(),
                span: at,
            };
            return Ok(BodyDecl::Inline(self.model_body(name)?));
        }
        let ty = self.type_expr()?;
        let media = if self.at(Tok::Str) {
            Some(self.string("the media type")?)
        } else {
            None
        };
        Ok(BodyDecl::Type(ty, media))
    }

    pub(super) fn event_member(&mut self) -> PResult<EventMember> {
        if self.at_word("not_shown") && self.peek_at(1).kind == Tok::Str {
            self.bump();
            return Ok(EventMember::NotShown(
                self.string("what the source leaves open")?,
            ));
        }
        if self.at_word("placeholder") && self.peek_at(1).kind == Tok::Ident {
            self.bump();
            return Ok(EventMember::Placeholder(self.field()?));
        }
        Ok(EventMember::Field(self.field()?))
    }

    pub(super) fn rate_member(&mut self) -> PResult<RateMember> {
        if self.at_word("not_shown") && self.peek_at(1).kind == Tok::Str {
            self.bump();
            return Ok(RateMember::NotShown(
                self.string("what the source leaves open")?,
            ));
        }
        if (self.at_word("tier") || self.at_word("default")) && self.peek_at(1).kind == Tok::LParen
        {
            let keyword = self.bump();
            let is_default = self.text_of(keyword) == "default";
            return Ok(RateMember::Tier {
                is_default,
                args: self.args_in_parens()?,
            });
        }
        Ok(RateMember::Prop(self.prop()?))
    }

    /// `state`, `from -> to on trigger when "condition"`, or `not_shown "…"`.
    pub(super) fn state_member(&mut self) -> PResult<StateMember> {
        if self.at_word("not_shown") && self.peek_at(1).kind == Tok::Str {
            self.bump();
            return Ok(StateMember::NotShown(
                self.string("what the source leaves open")?,
            ));
        }
        let from = self.ident("a state")?;
        if self.eat(Tok::Arrow).is_none() {
            return Ok(StateMember::State(from));
        }
        let to = self.ident("the next state")?;
        let on = match self.eat_word("on") {
            Some(_) => Some(self.ident("the endpoint or event that triggers it")?),
            None => None,
        };
        let when = match self.eat_word("when") {
            Some(_) => Some(self.string("the condition")?),
            None => None,
        };
        Ok(StateMember::Transition { from, to, on, when })
    }
}
