//! Auth schemes and gates as endpoints name them, and where a fact of the spec comes from.

use std::fmt;
use std::hash::{Hash, Hasher};

/// An auth scheme of a spec: a generated `AuthScheme` enum, or a [`SchemeRef`].
pub trait Scheme: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static {
    /// The scheme's name in the spec.
    fn name(self) -> &'static str;
    /// Where the credential travels.
    fn carrier(self) -> Carrier;
    /// The scheme a credential in this header authenticates as: itself, or the scheme it
    /// is a second (deprecated) header of.
    fn primary(self) -> Self;
}

/// A feature or plan an endpoint requires: a generated `Gate` enum, or a [`GateRef`].
pub trait Gate: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// The `detail` of the 403 answered when the gate is closed.
    fn refusal(self) -> String;
}

/// Where a credential travels in a request, and how it is written there. `S` holds the
/// names: `&str` in the contract, `String` in a spec's IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carrier<S = &'static str> {
    /// The whole value of a named header.
    Header(S),
    /// `Authorization: Bearer <token>` (RFC 6750); OAuth2 access tokens travel so.
    Bearer,
    /// `Authorization: Basic <base64 of user:password>` (RFC 7617). The service is given
    /// the decoded `user:password`, and a client configures that text.
    Basic,
    /// A query parameter.
    Query(S),
    /// A cookie.
    Cookie(S),
}

impl<S: AsRef<str>> Carrier<S> {
    /// Where to send the credential, in words for an error message.
    pub fn describe(&self) -> String {
        match self {
            Carrier::Header(name) => format!("the {} header", name.as_ref()),
            Carrier::Bearer => "a Bearer token in the Authorization header".to_string(),
            Carrier::Basic => "Basic credentials in the Authorization header".to_string(),
            Carrier::Query(name) => format!("the {} query parameter", name.as_ref()),
            Carrier::Cookie(name) => format!("the {} cookie", name.as_ref()),
        }
    }

    /// The `Authorization` scheme word, for carriers that use one.
    pub fn authorization_scheme(&self) -> Option<&'static str> {
        match self {
            Carrier::Bearer => Some("Bearer"),
            Carrier::Basic => Some("Basic"),
            _ => None,
        }
    }

    /// The header the credential occupies, when it travels in one.
    pub fn header(&self) -> Option<&str> {
        match self {
            Carrier::Header(name) => Some(name.as_ref()),
            Carrier::Bearer | Carrier::Basic => Some("Authorization"),
            Carrier::Cookie(_) => Some("Cookie"),
            Carrier::Query(_) => None,
        }
    }

    /// The header a request carries `credential` in, and that header's value, where the
    /// value is the credential as it is (a named header, a Bearer token, a cookie). Basic
    /// credentials are encoded and query credentials are not in a header: `None`.
    pub fn header_value(&self, credential: &str) -> Option<(&str, String)> {
        match self {
            Carrier::Header(name) => Some((name.as_ref(), credential.to_string())),
            Carrier::Bearer => Some(("Authorization", format!("Bearer {credential}"))),
            Carrier::Cookie(name) => Some(("Cookie", format!("{}={credential}", name.as_ref()))),
            Carrier::Basic | Carrier::Query(_) => None,
        }
    }
}

/// Where a fact of the spec comes from (`@source(…)`): the interface document, the deployed
/// client library that fills what the document leaves open, or the toolkit's own choice
/// where neither says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provenance {
    /// The interface document.
    #[default]
    Document,
    /// The deployed client library.
    DeployedClient,
    /// The toolkit's own choice where the document is silent.
    Toolkit,
}

impl Provenance {
    /// The word `@source(…)` takes.
    pub fn word(self) -> &'static str {
        match self {
            Provenance::Document => "document",
            Provenance::DeployedClient => "deployed_client",
            Provenance::Toolkit => "toolkit",
        }
    }

    /// The value of the `x-source` extension of JSON Schemas and OpenAPI documents; `None`
    /// for the document, whose facts need no marker.
    pub fn x_source(self) -> Option<&'static str> {
        match self {
            Provenance::Document => None,
            Provenance::DeployedClient => Some("deployed-client"),
            Provenance::Toolkit => Some("toolkit"),
        }
    }

    pub fn is_document(self) -> bool {
        self == Provenance::Document
    }
}

/// An auth scheme of a contract built at run time.
#[derive(Debug)]
pub struct SchemeInfo<'a> {
    pub name: &'a str,
    pub carrier: Carrier<&'a str>,
    /// The index of the scheme a credential in this one's carrier authenticates as.
    pub primary: usize,
}

/// A scheme of a contract built at run time, as the router passes it around: an index into
/// the contract's schemes.
#[derive(Clone, Copy, Debug)]
pub struct SchemeRef<'a> {
    index: usize,
    table: &'a [SchemeInfo<'a>],
}

impl<'a> SchemeRef<'a> {
    pub fn new(index: usize, table: &'a [SchemeInfo<'a>]) -> Self {
        SchemeRef { index, table }
    }

    pub fn index(self) -> usize {
        self.index
    }

    pub fn info(self) -> &'a SchemeInfo<'a> {
        &self.table[self.index]
    }

    /// Whether credentials in this scheme's carrier authenticate as another scheme.
    pub fn is_alias(self) -> bool {
        self.info().primary != self.index
    }
}

impl PartialEq for SchemeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for SchemeRef<'_> {}

impl Hash for SchemeRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl Scheme for SchemeRef<'static> {
    fn name(self) -> &'static str {
        self.info().name
    }

    fn carrier(self) -> Carrier {
        self.info().carrier
    }

    fn primary(self) -> Self {
        SchemeRef::new(self.info().primary, self.table)
    }
}

/// A feature or plan of a contract built at run time: its index among the spec's gates,
/// and the refusal a closed one answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateRef<'a> {
    pub index: usize,
    pub refusal: &'a str,
}

impl Gate for GateRef<'static> {
    fn refusal(self) -> String {
        self.refusal.to_string()
    }
}
