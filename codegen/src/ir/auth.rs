//! Auth in the IR: the schemes a spec declares (where a credential travels, what it
//! identifies, OAuth 2.0 flows) and what an endpoint requires of them.

use super::*;

#[derive(Clone, Debug)]
pub struct AuthScheme {
    pub name: String,
    pub doc: Option<String>,
    pub carrier: Carrier,
    /// Where an OAuth2 client gets its tokens, for `oauth2` schemes (their tokens travel as
    /// Bearer tokens).
    pub oauth2: Option<OAuthFlows>,
    /// What a valid credential identifies, e.g. `team` or `management`.
    pub principal: String,
    /// Scopes a credential of this scheme can have (org, team; OAuth2 scopes), which
    /// endpoints may require.
    pub scopes: Vec<String>,
    /// A second header for the same credentials, kept for deployed clients.
    pub alias_of: Option<AuthId>,
    pub lifetime: Option<Quantity>,
    /// Where the lifetime comes from (`@source(…)` on the `lifetime` setting).
    pub lifetime_provenance: Provenance,
    pub single_use: bool,
    /// Where `single_use` comes from (`@source(…)` on the setting).
    pub single_use_provenance: Provenance,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    pub not_shown: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AuthRequirement {
    /// One of these must be presented. Empty only for public endpoints.
    pub any_of: Vec<AuthId>,
    /// Must be presented as well as the one of `any_of` (`auth a & b`): each credential is
    /// checked on its own, as OpenAPI's requirement objects of several schemes say.
    pub all_of: Vec<AuthId>,
    /// May be presented in addition.
    pub optional: Vec<AuthId>,
    /// Scopes a credential of a scheme must hold here; schemes not listed need none.
    pub scopes: Vec<(AuthId, Vec<String>)>,
    pub public: bool,
}

impl AuthRequirement {
    /// Every scheme the endpoint reads: accepted, sent together, and optional.
    pub fn every_scheme(&self) -> impl Iterator<Item = AuthId> + '_ {
        self.any_of
            .iter()
            .chain(&self.all_of)
            .chain(&self.optional)
            .copied()
    }

    /// The scopes required of a credential of `scheme`.
    pub fn scopes_of(&self, scheme: AuthId) -> &[String] {
        self.scopes
            .iter()
            .find(|(s, _)| *s == scheme)
            .map_or(&[], |(_, scopes)| scopes.as_slice())
    }
}

/// Where a credential travels in a request, header and parameter names owned.
pub type Carrier = covenant_runtime::contract::Carrier<String>;

/// How the spec writes a carrier: `header "X-Api-Key"`, `bearer`.
pub fn carrier_syntax(carrier: &Carrier) -> String {
    match carrier {
        Carrier::Header(name) => format!("header \"{name}\""),
        Carrier::Bearer => "bearer".to_string(),
        Carrier::Basic => "basic".to_string(),
        Carrier::Query(name) => format!("query \"{name}\""),
        Carrier::Cookie(name) => format!("cookie \"{name}\""),
    }
}

/// An OAuth2 scheme's URLs and flows. Without `flows`, which URLs are given says which flow
/// a client may use: both authorization and token URLs, the authorization code flow; a token
/// URL alone, client credentials; an authorization URL alone, the implicit flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OAuthFlows {
    pub authorization_url: Option<String>,
    pub token_url: Option<String>,
    pub refresh_url: Option<String>,
    /// `flows authorization_code, implicit`: the flows stated, in order; empty when the URLs
    /// imply the one flow.
    pub stated: Vec<OAuthFlow>,
}

/// An OAuth 2.0 grant a client may use to get a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OAuthFlow {
    AuthorizationCode,
    Implicit,
    ClientCredentials,
    Password,
}

impl OAuthFlow {
    pub const ALL: [OAuthFlow; 4] = [
        OAuthFlow::AuthorizationCode,
        OAuthFlow::Implicit,
        OAuthFlow::ClientCredentials,
        OAuthFlow::Password,
    ];

    /// As the spec writes it.
    pub fn word(self) -> &'static str {
        match self {
            OAuthFlow::AuthorizationCode => "authorization_code",
            OAuthFlow::Implicit => "implicit",
            OAuthFlow::ClientCredentials => "client_credentials",
            OAuthFlow::Password => "password",
        }
    }

    /// As OpenAPI names it in `flows`.
    pub fn openapi_key(self) -> &'static str {
        match self {
            OAuthFlow::AuthorizationCode => "authorizationCode",
            OAuthFlow::Implicit => "implicit",
            OAuthFlow::ClientCredentials => "clientCredentials",
            OAuthFlow::Password => "password",
        }
    }

    /// Whether the flow sends the user to the authorization URL, and whether it asks the
    /// token URL for the token.
    pub fn urls(self) -> (bool, bool) {
        match self {
            OAuthFlow::AuthorizationCode => (true, true),
            OAuthFlow::Implicit => (true, false),
            OAuthFlow::ClientCredentials | OAuthFlow::Password => (false, true),
        }
    }

    /// In words, for readers.
    pub fn describe(self) -> &'static str {
        match self {
            OAuthFlow::AuthorizationCode => "authorization code",
            OAuthFlow::Implicit => "implicit",
            OAuthFlow::ClientCredentials => "client credentials",
            OAuthFlow::Password => "resource owner password",
        }
    }
}

impl OAuthFlows {
    /// The flows a client may use: those stated, else the one the URLs imply.
    pub fn flows(&self) -> Vec<OAuthFlow> {
        if !self.stated.is_empty() {
            return self.stated.clone();
        }
        match (&self.authorization_url, &self.token_url) {
            (Some(_), Some(_)) => vec![OAuthFlow::AuthorizationCode],
            (Some(_), None) => vec![OAuthFlow::Implicit],
            (None, Some(_)) => vec![OAuthFlow::ClientCredentials],
            (None, None) => Vec::new(),
        }
    }
}
