//! Auth schemes: where a credential travels, what it identifies, its settings; and the
//! schemes and scopes an endpoint requires.

use super::Lowerer;
use super::annotations::Site;
use super::references::ReplacementScope;
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;

const KNOWN_SETTINGS: &[&str] = &[
    "principal",
    "scopes",
    "same_as",
    "lifetime",
    "single_use",
    "not_shown",
    "authorization_url",
    "token_url",
    "refresh_url",
    "flows",
];

impl Lowerer<'_> {
    pub(super) fn lower_auth(&mut self, decl: &ast::AuthDecl, attrs: &ast::Attrs) -> AuthScheme {
        let annots = self.annots(attrs, Site::Auth);
        let deprecated = self.deprecation(&annots).map(|(dep, target)| {
            if let Some((name, span)) = target {
                self.queue_replacement(ReplacementScope::Auth, name, span);
            }
            dep
        });
        let key = || {
            decl.key
                .as_ref()
                .map(|k| k.value.clone())
                .unwrap_or_default()
        };
        let carrier = match decl.location.text.as_str() {
            "header" => Carrier::Header(key()),
            "query" => Carrier::Query(key()),
            "cookie" => Carrier::Cookie(key()),
            "basic" => Carrier::Basic,
            _ => Carrier::Bearer,
        };
        if let Some(k) = &decl.key
            && !is_token(&k.value)
        {
            self.error(
                diagnostic_codes::BAD_SETTING,
                k.span,
                format!("`{}` cannot name a {}", k.value, decl.location.text),
            )
            .label("not an HTTP token")
            .help("use letters, digits and `-`, `_`, `.`");
        }
        let mut scheme = AuthScheme {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            carrier,
            oauth2: (decl.location.text == "oauth2").then(OAuthFlows::default),
            principal: String::new(),
            scopes: Vec::new(),
            alias_of: None,
            lifetime: None,
            lifetime_provenance: Provenance::Document,
            single_use: false,
            single_use_provenance: Provenance::Document,
            deprecated,
            provenance: self.provenance(&annots),
            not_shown: Vec::new(),
        };
        for prop in &decl.props {
            self.auth_setting(&mut scheme, prop);
        }
        if !scheme.principal.is_empty() && scheme.alias_of.is_some() {
            self.error(diagnostic_codes::BAD_SETTING, decl.name.span, format!("auth `{}` is a second place for another scheme's credentials and names a principal of its own", decl.name.text))
                .label("`same_as` and `principal`")
                .help("drop `principal`: a `same_as` scheme identifies what its target does, and the router authenticates it as its target");
        }
        if scheme.principal.is_empty() && scheme.alias_of.is_none() {
            self.error(diagnostic_codes::BAD_SETTING, decl.name.span, format!("auth `{}` does not say what it identifies", decl.name.text))
                .label("no `principal`")
                .help("add `{ principal team }` (or `same_as other_scheme` for a second header of one scheme)");
        }
        if let Some(flows) = &scheme.oauth2
            && flows.authorization_url.is_none()
            && flows.token_url.is_none()
        {
            self.error(
                diagnostic_codes::BAD_SETTING,
                decl.name.span,
                format!("oauth2 scheme `{}` says nowhere to get a token", decl.name.text),
            )
            .label("no `authorization_url` and no `token_url`")
            .help("add `token_url \"https://…/token\"` (client credentials), and `authorization_url` for the authorization code flow");
        }
        if let Some(flows) = &scheme.oauth2 {
            for flow in &flows.stated {
                let (authorization, token) = flow.urls();
                let missing = match (authorization, token) {
                    (true, _) if flows.authorization_url.is_none() => Some("authorization_url"),
                    (_, true) if flows.token_url.is_none() => Some("token_url"),
                    _ => None,
                };
                if let Some(missing) = missing {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        decl.name.span,
                        format!(
                            "the {} flow of `{}` has no `{missing}`",
                            flow.describe(),
                            decl.name.text
                        ),
                    )
                    .label(format!("no `{missing}`"))
                    .help(format!(
                        "add `{missing} \"https://…\"`, or leave the flow out of `flows`"
                    ));
                }
            }
        }
        scheme
    }

    fn auth_setting(&mut self, scheme: &mut AuthScheme, prop: &ast::Member<ast::Prop>) {
        let p = &prop.node;
        let annots = self.annots(&prop.attrs, Site::Other);
        let source = self.provenance(&annots);
        match p.key.text.as_str() {
            "lifetime" => scheme.lifetime_provenance = source,
            "single_use" => scheme.single_use_provenance = source,
            _ => self.unrecorded_source(&annots, "the auth scheme"),
        }
        match p.key.text.as_str() {
            "principal" => {
                if let Some(w) = self.word_props(p).first() {
                    scheme.principal = w.text.clone();
                }
            }
            // Several `scopes` lines add up, so each scope can carry its own annotations.
            "scopes" => {
                for scope in self.scope_values(p) {
                    if !scheme.scopes.contains(&scope) {
                        scheme.scopes.push(scope);
                    }
                }
            }
            "same_as" => {
                if let Some(w) = self.word_props(p).first() {
                    match self.auths.get(&w.text) {
                        Some((id, _)) => scheme.alias_of = Some(*id),
                        None => self.unknown_auth(w),
                    }
                }
            }
            "lifetime" => match p.values.as_slice() {
                [
                    ast::Value {
                        kind: ValueKind::Quantity { amount, unit },
                        ..
                    },
                ] => {
                    scheme.lifetime = Some(Quantity {
                        amount: *amount,
                        unit: unit.text.clone(),
                    })
                }
                _ => {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        p.key.span,
                        "`lifetime` takes a duration such as `10 minutes`",
                    )
                    .label("expected a duration");
                }
            },
            "single_use" => match p.values.as_slice() {
                [
                    ast::Value {
                        kind: ValueKind::Bool(b),
                        ..
                    },
                ] => scheme.single_use = *b,
                _ => {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        p.key.span,
                        "`single_use` takes true or false",
                    )
                    .label("expected a boolean");
                }
            },
            "not_shown" => {
                for v in &p.values {
                    if let ValueKind::Str(s) = &v.kind {
                        let lit = ast::StrLit {
                            value: s.clone(),
                            span: v.span,
                        };
                        let what = self.record_not_shown(&lit, format!("auth {}", scheme.name));
                        scheme.not_shown.push(what);
                    }
                }
            }
            "authorization_url" | "token_url" | "refresh_url" => self.oauth_url(scheme, p),
            "flows" => self.oauth_flows(scheme, p),
            _ => self.unknown_setting(p, "an auth scheme", KNOWN_SETTINGS),
        }
    }

    /// `flows authorization_code, implicit`: the grants a client may use.
    fn oauth_flows(&mut self, scheme: &mut AuthScheme, p: &ast::Prop) {
        let Some(flows) = scheme.oauth2.as_mut() else {
            self.error(
                diagnostic_codes::BAD_SETTING,
                p.key.span,
                "`flows` is a setting of oauth2 schemes",
            )
            .label("not an oauth2 scheme")
            .help("declare the scheme as `auth name: oauth2 { … }`");
            return;
        };
        let mut stated = Vec::new();
        let mut bad = Vec::new();
        for v in &p.values {
            let word = match &v.kind {
                ValueKind::Ref(path) if path.len() == 1 => path[0].text.as_str(),
                _ => "",
            };
            match OAuthFlow::ALL.into_iter().find(|f| f.word() == word) {
                Some(flow) if !stated.contains(&flow) => stated.push(flow),
                _ => bad.push(v.span),
            }
        }
        flows.stated = stated;
        for span in bad {
            let words: Vec<&str> = OAuthFlow::ALL.iter().map(|f| f.word()).collect();
            self.error(
                diagnostic_codes::BAD_SETTING,
                span,
                "not an OAuth 2.0 flow, or one named twice",
            )
            .label("expected a flow")
            .help(format!("flows: {}", words.join(", ")));
        }
    }

    /// `token_url "…"` and its siblings, which only OAuth2 schemes have.
    fn oauth_url(&mut self, scheme: &mut AuthScheme, p: &ast::Prop) {
        let Some(url) = self.string_prop(p) else {
            return;
        };
        let Some(flows) = scheme.oauth2.as_mut() else {
            self.error(
                diagnostic_codes::BAD_SETTING,
                p.key.span,
                format!("`{}` is a setting of oauth2 schemes", p.key.text),
            )
            .label(format!(
                "`{}` is a {} scheme",
                scheme.name,
                crate::ir::carrier_syntax(&scheme.carrier)
            ))
            .help("declare the scheme as `auth name: oauth2 { … }`");
            return;
        };
        let slot = match p.key.text.as_str() {
            "authorization_url" => &mut flows.authorization_url,
            "token_url" => &mut flows.token_url,
            _ => &mut flows.refresh_url,
        };
        *slot = Some(url);
    }

    /// The scopes of a `scopes` line: names, or quoted strings for scopes such as `read:org`.
    fn scope_values(&mut self, prop: &ast::Prop) -> Vec<String> {
        let mut out = Vec::new();
        for v in &prop.values {
            match &v.kind {
                ValueKind::Ref(path) if path.len() == 1 => out.push(path[0].text.clone()),
                ValueKind::Str(s) if is_scope(s) => out.push(s.clone()),
                _ => {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        v.span,
                        "`scopes` takes names or quoted scopes",
                    )
                    .label("not a scope")
                    .help("a scope is printable text without spaces or quotes: `repo`, `\"read:org\"`");
                }
            }
        }
        out
    }

    /// The schemes of an endpoint's `auth` clause, and the scopes each needs there.
    /// In `a & b`, the first scheme gives the principal and the others are sent with it.
    pub(super) fn lower_auth_clause(
        &mut self,
        auth: &mut AuthRequirement,
        optional: bool,
        together: bool,
        refs: &[ast::AuthRef],
        schemes: &[AuthScheme],
    ) {
        for (position, r) in refs.iter().enumerate() {
            let Some((id, _)) = self.auths.get(&r.scheme.text).copied() else {
                self.unknown_auth(&r.scheme);
                continue;
            };
            if optional {
                auth.optional.push(id);
            } else if together && position > 0 {
                self.check_sent_together(auth, id, &r.scheme, schemes);
                auth.all_of.push(id);
            } else {
                auth.any_of.push(id);
            }
            if r.scopes.is_empty() {
                continue;
            }
            let declared = declared_scopes(schemes, id);
            let mut scopes = Vec::new();
            for scope in &r.scopes {
                if declared.contains(&scope.value) {
                    if !scopes.contains(&scope.value) {
                        scopes.push(scope.value.clone());
                    }
                } else {
                    self.unknown_scope(&r.scheme.text, scope, &declared);
                }
            }
            auth.scopes.push((id, scopes));
        }
    }

    /// A scheme sent beside others needs a place of its own: two credentials in one header
    /// could not both be sent.
    fn check_sent_together(
        &mut self,
        auth: &AuthRequirement,
        id: AuthId,
        name: &ast::Ident,
        schemes: &[AuthScheme],
    ) {
        let carrier = |id: AuthId| &schemes[id.index()].carrier;
        // Header names are one name in any case (RFC 9110 §5.1).
        let same_place = |a: &Carrier, b: &Carrier| match (a, b) {
            (Carrier::Header(a), Carrier::Header(b)) => a.eq_ignore_ascii_case(b),
            (a, b) => a == b,
        };
        let clash = auth
            .any_of
            .iter()
            .chain(&auth.all_of)
            .find(|other| **other == id || same_place(carrier(**other), carrier(id)));
        if let Some(other) = clash {
            let other = &schemes[other.index()].name;
            self.error(
                diagnostic_codes::BAD_AUTH_TOGETHER,
                name.span,
                format!("`{}` cannot be sent together with `{other}`", name.text),
            )
            .label(format!("read from {}", carrier(id).describe()))
            .help(if *other == name.text {
                "name each scheme once".to_string()
            } else {
                format!("`{other}` is read from the same place; schemes sent together travel apart")
            });
        }
    }

    fn unknown_scope(&mut self, scheme: &str, scope: &ast::StrLit, declared: &[String]) {
        let known: Vec<&str> = declared.iter().map(String::as_str).collect();
        let help = match super::annotations::closest(&scope.value, &known) {
            Some(c) => format!("did you mean `{c}`?"),
            None if known.is_empty() => {
                format!(
                    "declare it in the scheme: `auth {scheme}: … {{ scopes {} }}`",
                    scope.value
                )
            }
            None => format!("`{scheme}` declares: {}", known.join(", ")),
        };
        self.error(
            diagnostic_codes::UNKNOWN_SCOPE,
            scope.span,
            format!("auth `{scheme}` declares no scope `{}`", scope.value),
        )
        .label("unknown scope")
        .help(help);
    }

    pub(super) fn unknown_auth(&mut self, name: &ast::Ident) {
        let mut known: Vec<&str> = self.auths.keys().map(String::as_str).collect();
        known.sort_unstable();
        let help = match super::annotations::closest(&name.text, &known) {
            Some(c) => format!("did you mean `{c}`?"),
            None => format!("declared schemes: {}", known.join(", ")),
        };
        self.error(
            diagnostic_codes::UNKNOWN_AUTH_SCHEME,
            name.span,
            format!("unknown auth scheme `{}`", name.text),
        )
        .label("no `auth` item has this name")
        .help(help);
    }
}

/// The scopes scheme `id` declares (those of its primary, for a second header).
fn declared_scopes(schemes: &[AuthScheme], id: AuthId) -> Vec<String> {
    let scheme = &schemes[id.index()];
    match scheme.alias_of {
        Some(primary) => schemes[primary.index()].scopes.clone(),
        None => scheme.scopes.clone(),
    }
}

/// A header, query parameter or cookie name an HTTP request can carry (RFC 9110 `token`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// An OAuth2 scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`.
fn is_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}
