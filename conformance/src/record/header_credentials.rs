//! Where recorded requests hold credentials: under credential headers' names, in a request's
//! headers or a body's header maps, and in the cookies a `Cookie` header sends; and which
//! cookies are secrets, and how far.

use super::identifier;
use serde_json::Value;

/// Header names whose values are credentials wherever a request sends them, a header map
/// in a body included (a webhook endpoint's custom headers for its receiver).
const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
];

/// Where a secret's value is written as its reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// Wherever the recording holds it: a value that can be nothing else.
    Everywhere,
    /// Only inside a `Cookie` header: a short session cookie, whose value may as well be
    /// ordinary text elsewhere (`en` in a body is not the `lang` cookie).
    Cookies,
}

/// A credential a header holds, named for the cassette's `let`.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Found {
    pub field: String,
    pub value: String,
    pub reach: Reach,
    /// The value this one is the percent-encoding of (a cookie's), named just before it:
    /// its stand-in is the encoding of that value's, so a replay's two still agree.
    pub encodes: Option<String>,
}

/// The values under credential headers' names anywhere in a body, without a scheme word
/// (`Bearer`, `Basic`, `Token`). A cookie header gives each secret cookie's value under the
/// cookie's name, so its names and framing stay as they were.
pub(super) fn credentials_in_headers(body: &Value, out: &mut Vec<Found>) {
    match body {
        Value::Object(fields) => {
            // A header as a name and a value (`{"name": "Authorization", "value": …}`).
            if let (Some(Value::String(name)), Some(value)) =
                (fields.get("name"), fields.get("value"))
                && is_credential_header(name)
            {
                credentials_under(name, value, out);
            }
            for (key, value) in fields {
                match is_credential_header(key) {
                    true => credentials_under(key, value, out),
                    false => credentials_in_headers(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| credentials_in_headers(v, out)),
        _ => {}
    }
}

/// Whether a header of this name holds a credential wherever it is sent.
pub(super) fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
}

/// The credentials of a credential header's value: a string, or each of a list of them.
fn credentials_under(header: &str, value: &Value, out: &mut Vec<Found>) {
    let text = match value {
        Value::String(text) => text,
        Value::Array(items) => {
            return items.iter().for_each(|v| credentials_under(header, v, out));
        }
        _ => return,
    };
    let lower = header.to_ascii_lowercase();
    if lower == "cookie" {
        return secret_cookies(text, out);
    }
    let credential = text
        .split_once(' ')
        .filter(|(word, _)| {
            ["bearer", "basic", "token"].contains(&word.to_ascii_lowercase().as_str())
        })
        .map_or(text.as_str(), |(_, rest)| rest.trim());
    out.push(Found {
        field: identifier(&lower),
        value: credential.to_string(),
        reach: Reach::Everywhere,
        encodes: None,
    });
}

/// Parts of a cookie's name that say it holds a credential, however short its value
/// (`JSESSIONID`, `PHPSESSID`, `remember_token`, `XSRF-TOKEN`)...
const CREDENTIAL_COOKIE_PARTS: &[&str] = &[
    "session",
    "sessid",
    "token",
    "csrf",
    "xsrf",
    "secret",
    "passw",
    "jwt",
    "apikey",
    "api_key",
    "api-key",
    "remember",
    "logged_in",
];

/// ...and words that do when they stand alone (`connect.sid`, `auth`), not inside another (`sidebar`, `author_view`). An `id` or a `key` alone says nothing:
/// `cart_id` and `sort_key` are ordinary.
const CREDENTIAL_COOKIE_WORDS: &[&str] = &["sid", "uid", "sess", "auth", "login", "pass"];

/// Whether a cookie's name says it holds a credential.
pub(super) fn names_a_credential(cookie: &str) -> bool {
    let lower = cookie.to_ascii_lowercase();
    CREDENTIAL_COOKIE_PARTS.iter().any(|p| lower.contains(p))
        || (lower.split(|c: char| !c.is_ascii_alphanumeric()))
            .any(|word| CREDENTIAL_COOKIE_WORDS.contains(&word))
}

/// Whether a cookie's value can be nothing but a token: it holds a run of 16 letters and
/// digits, both mixed (a hash, a signature, base64 of random bytes), whatever surrounds it
/// (`admin|1700000000|9e1f…`, `eyJpdiI6…/…=`). A place (`America/New_York`), a path
/// (`/orders/7`), a region (`us-east-1`) or a locale (`en_US.UTF-8`) is ordinary data
/// whatever its length.
fn token_like(value: &str) -> bool {
    mixed_run(value, 16)
}

/// Whether `value` holds a run of `len` or more letters and digits, both present.
fn mixed_run(value: &str, len: usize) -> bool {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|run| {
            run.len() >= len
                && run.bytes().any(|b| b.is_ascii_alphabetic())
                && run.bytes().any(|b| b.is_ascii_digit())
        })
}

/// A cookie's value without the double quotes RFC 6265 lets it be wrapped in.
pub(super) fn unquoted(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
}

/// The cookies of a `Cookie` header that are secrets, each with where its value is one.
///
/// A value that can only be a token is a secret wherever the recording holds it, whatever
/// the cookie's name, as is one of a credential's name holding a run of 12 (a session id).
/// A cookie whose name says credential (`session`, `auth_token`) but whose value could be
/// ordinary data is a secret only inside `Cookie` headers
/// (`session=abc`: an `abc` in a body is ordinary text; `auth_redirect=/orders/7` in the
/// path is a path). Any other cookie (`theme=dark`, `tz=America/New_York`) is a
/// preference, sent as it was, or a replay would ask for something else. A header of one
/// pair without a name (`Cookie: <token>`) is one secret whole, as is a token beside
/// named cookies.
///
/// A quoted value is named without its quotes, and a percent-encoded one also as it
/// decodes, so the same token elsewhere, decoded, is found too.
fn secret_cookies(header: &str, out: &mut Vec<Found>) {
    let pairs: Vec<&str> = (header.split(';').map(str::trim))
        .filter(|p| !p.is_empty())
        .collect();
    for pair in &pairs {
        let (name, value) = match pair.split_once('=') {
            Some((name, value)) => (name.trim(), unquoted(value.trim())),
            // A lone word beside named cookies is no cookie (`Secure` copied by hand),
            // unless it can only be a token.
            None if pairs.len() > 1 && !token_like(pair) => continue,
            None => ("", unquoted(pair)),
        };
        let decoded = percent_encoding::percent_decode_str(value)
            .decode_utf8()
            .map_or_else(|_| value.to_string(), |d| d.into_owned());
        let named_secret = name.is_empty() || names_a_credential(name);
        let token = token_like(&decoded);
        if value.is_empty() || !(named_secret || token) {
            continue;
        }
        // A credential's name lowers the bar: a session's 12 hex digits are its own.
        let reach = match token || (named_secret && mixed_run(&decoded, 12)) {
            true => Reach::Everywhere,
            false => Reach::Cookies,
        };
        let field = match name {
            "" => "cookie".to_string(),
            name => identifier(&format!("cookie_{name}")),
        };
        let encodes = (decoded != value && reach == Reach::Everywhere).then(|| {
            out.push(Found {
                field: field.clone(),
                value: decoded.clone(),
                reach,
                encodes: None,
            });
            decoded
        });
        out.push(Found {
            field,
            value: value.to_string(),
            reach,
            encodes,
        });
    }
}
