//! The secrets recorded requests send, and the stand-ins a cassette holds in their place.

use super::{escape_braces, identifier, map_strings};
use crate::cassette::Exchange;
use aho_corasick::AhoCorasick;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

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

/// The values under credential headers' names anywhere in a body, without a scheme word
/// (`Bearer`, `Basic`, `Token`): `(name, value)`. A cookie header gives each cookie's
/// value under the cookie's name, so its names and framing stay as they were.
pub(super) fn credentials_in_headers(body: &Value, out: &mut Vec<(String, String)>) {
    match body {
        Value::Object(fields) => {
            for (key, value) in fields {
                let lower = key.to_ascii_lowercase();
                match value {
                    Value::String(text) if lower == "cookie" => {
                        for (name, value) in cookies(text) {
                            out.push((identifier(&format!("cookie_{name}")), value.into()));
                        }
                    }
                    Value::String(text) if CREDENTIAL_HEADERS.contains(&lower.as_str()) => {
                        let credential = text
                            .split_once(' ')
                            .filter(|(word, _)| {
                                ["bearer", "basic", "token"]
                                    .contains(&word.to_ascii_lowercase().as_str())
                            })
                            .map_or(text.as_str(), |(_, rest)| rest.trim());
                        out.push((identifier(&lower), credential.to_string()));
                    }
                    other => credentials_in_headers(other, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| credentials_in_headers(v, out)),
        _ => {}
    }
}

/// The `name=value` pairs of a `Cookie` header.
fn cookies(header: &str) -> impl Iterator<Item = (&str, &str)> {
    header.split(';').filter_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        Some((name.trim(), value.trim()))
    })
}

/// The `@secret` values recorded requests send, each written as a reference to a stand-in
/// the scenario's `let` holds (`"let": {"secret_access_token": "vp31.R4XDwbT-qrmhs-4"}`),
/// so no cassette holds one.
///
/// A stand-in keeps its secret's shape: its length, and each character's kind (a hex
/// letter for a hex letter, another letter of the same case, a digit for a digit, anything
/// else as it was). A server then judges the replay's request as it judged the recorded
/// one: a refused 4,097-character token is still too long, a well-formed key still well
/// formed. A stand-in is drawn from its position alone, so a recording gives the same
/// cassette each time and nothing of the secret but its shape.
#[derive(Default)]
pub(super) struct RequestSecrets {
    /// Each secret and its name, in the order met.
    named: Vec<Named>,
    /// The position in `named` of each secret.
    by_value: HashMap<String, usize>,
    taken: HashSet<String>,
    /// How texts are searched for the secrets, made once all are named.
    finder: std::sync::OnceLock<Finder>,
}

/// The secrets as the cassette's texts hold them: by whole text, and inside longer ones.
struct Finder {
    escaped: HashMap<String, usize>,
    /// The secrets that cannot be ordinary text of a longer one, in the automaton's order.
    inner: Vec<usize>,
    automaton: Option<AhoCorasick>,
}

struct Named {
    value: String,
    /// The value as a recorded text of the cassette reads (braces escaped).
    escaped: String,
    name: String,
    stand_in: String,
}

impl RequestSecrets {
    pub(super) fn name(&mut self, field: &str, value: String) {
        if value.is_empty() || self.by_value.contains_key(&value) {
            return;
        }
        let base = format!("secret_{}", identifier(field));
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.finder = std::sync::OnceLock::new();
        let stand_in = stand_in(&value, self.named.len() as u64);
        self.by_value.insert(value.clone(), self.named.len());
        self.named.push(Named {
            escaped: escape_braces(&value),
            value,
            name,
            stand_in,
        });
    }

    /// The scenario's `let`s that hold each stand-in.
    pub(super) fn lets(&self) -> Map<String, Value> {
        self.named
            .iter()
            .map(|n| (n.name.clone(), Value::String(escape_braces(&n.stand_in))))
            .collect()
    }

    /// Writes each secret of the exchange, request and expectation alike, as its
    /// reference: a whole string that is one, or one inside a header, query or path.
    pub(super) fn refer(&self, exchange: &mut Exchange) {
        if self.named.is_empty() {
            return;
        }
        let reference = |i: usize| format!("{{{{{}}}}}", self.named[i].name);
        let Finder {
            escaped,
            inner,
            automaton,
        } = self.finder.get_or_init(|| self.new_finder());
        let whole = |text: &str| escaped.get(text).map(|i| reference(*i));
        let within = |text: &str| match automaton {
            Some(finder) if !inner.is_empty() => {
                let mut out = String::with_capacity(text.len());
                finder.replace_all_with(text, &mut out, |m, _, dst| {
                    dst.push_str(&reference(inner[m.pattern().as_usize()]));
                    true
                });
                out
            }
            _ => text.to_string(),
        };
        let either = |_: &str, text: &str| whole(text).unwrap_or_else(|| within(text));
        let request = &mut exchange.request;
        if let Some(body) = &mut request.body {
            *body = map_strings(body, "", &either);
        }
        if let Some(raw) = &mut request.raw_body {
            *raw = within(raw);
        }
        request.path = within(&request.path);
        // A header's credential is replaced after its scheme word however short it is.
        let after_scheme = |text: &str| {
            let (scheme, credential) = text.split_once(' ')?;
            let i = *escaped.get(credential.trim())?;
            (!scheme.is_empty()).then(|| format!("{scheme} {}", reference(i)))
        };
        for (header, value) in request.headers.iter_mut() {
            *value = if header.eq_ignore_ascii_case("cookie") {
                self.refer_cookies(value, &whole)
            } else {
                whole(value)
                    .or_else(|| after_scheme(value))
                    .unwrap_or_else(|| within(value))
            };
        }
        for value in request.query.values_mut() {
            *value = map_strings(value, "", &either);
        }
        if let Some(body) = &mut exchange.expect.body {
            *body = map_strings(body, "", &either);
        }
    }

    fn new_finder(&self) -> Finder {
        let escaped = (self.named.iter().enumerate())
            .map(|(i, n)| (n.escaped.clone(), i))
            .collect();
        // Inside a longer text, only a secret that cannot be ordinary text of it.
        let inner: Vec<usize> = (0..self.named.len())
            .filter(|i| crate::secrets::distinctive(&self.named[*i].value))
            .collect();
        let automaton = AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(inner.iter().map(|i| &self.named[*i].escaped))
            .ok();
        Finder {
            escaped,
            inner,
            automaton,
        }
    }

    /// A `Cookie` header with each secret cookie value, however short, as its reference.
    fn refer_cookies(&self, header: &str, whole: &dyn Fn(&str) -> Option<String>) -> String {
        header
            .split(';')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) => match whole(value.trim()) {
                    Some(reference) => format!("{name}={reference}"),
                    None => pair.to_string(),
                },
                None => pair.to_string(),
            })
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// A made-up value of the secret's shape, drawn from `seed`, never the secret itself where
/// it holds a letter or digit.
fn stand_in(secret: &str, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let draw = |rng: &mut ChaCha8Rng| -> String {
        secret
            .chars()
            .map(|c| match c {
                'a'..='f' => rng.random_range('a'..='f'),
                'g'..='z' => rng.random_range('g'..='z'),
                'A'..='F' => rng.random_range('A'..='F'),
                'G'..='Z' => rng.random_range('G'..='Z'),
                '0'..='9' => rng.random_range('0'..='9'),
                other => other,
            })
            .collect()
    };
    // A short secret may be drawn again by chance: drawn anew until it differs.
    let mut made = draw(&mut rng);
    for _ in 0..16 {
        if made != secret {
            break;
        }
        made = draw(&mut rng);
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stand_in_keeps_the_shape_and_nothing_else() {
        let secret = "sk_live_4f9A1c-Zq";
        let made = stand_in(secret, 0);
        assert_ne!(made, secret);
        assert_eq!(made.len(), secret.len());
        for (s, m) in secret.chars().zip(made.chars()) {
            let kind = |c: char| {
                (
                    c.is_ascii_digit(),
                    c.is_ascii_hexdigit(),
                    c.is_ascii_lowercase(),
                    c.is_ascii_uppercase(),
                    if c.is_ascii_alphanumeric() { 'x' } else { c },
                )
            };
            assert_eq!(kind(s), kind(m), "{secret} → {made}");
        }
        assert_eq!(stand_in(secret, 0), made, "the same each time");
        assert_eq!(stand_in("a", 3).len(), 1);
        assert_ne!(stand_in("a", 3), "a");
    }

    #[test]
    fn cookie_values_are_referred_to_by_name_and_the_header_keeps_its_framing() {
        let mut found = Vec::new();
        let headers = serde_json::json!({"Cookie": "session=abc; theme=dark"});
        credentials_in_headers(&headers, &mut found);
        assert_eq!(
            found,
            [
                ("cookie_session".to_string(), "abc".to_string()),
                ("cookie_theme".to_string(), "dark".to_string())
            ]
        );
        let mut secrets = RequestSecrets::default();
        secrets.name("cookie_session", "abc".into());
        let mut exchange: Exchange = serde_json::from_value(serde_json::json!({
            "id": "x",
            "endpoint": "root",
            "request": {"method": "GET", "path": "/", "headers": {"cookie": "session=abc; theme=dark"}},
            "expect": {"status": 200}
        }))
        .unwrap();
        secrets.refer(&mut exchange);
        assert_eq!(
            exchange.request.headers["cookie"],
            "session={{secret_cookie_session}}; theme=dark"
        );
    }
}
