//! The secrets recorded requests send, and the stand-ins a cassette holds in their place.

use super::header_credentials::{Found, Reach, is_credential_header, unquoted};
use super::{escape_braces, identifier, map_strings};
use crate::cassette::Exchange;
use aho_corasick::AhoCorasick;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

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
    reach: Reach,
    /// The value as a recorded text of the cassette reads (braces escaped).
    escaped: String,
    name: String,
    stand_in: String,
}

impl RequestSecrets {
    /// Names what a header holds: a percent-encoded value gets the encoding of its decoded
    /// value's stand-in.
    pub(super) fn name_found(&mut self, found: Found) {
        let stand_in = (found.encodes.as_ref())
            .and_then(|decoded| self.by_value.get(decoded))
            .map(|&i| encode_like(&found.value, &self.named[i].stand_in));
        self.name_as(&found.field, found.value, found.reach, stand_in);
    }

    pub(super) fn name(&mut self, field: &str, value: String, reach: Reach) {
        self.name_as(field, value, reach, None);
    }

    fn name_as(&mut self, field: &str, value: String, reach: Reach, stand_in: Option<String>) {
        if value.is_empty() {
            return;
        }
        if let Some(&known) = self.by_value.get(&value) {
            // A cookie's value a request also sends as a secret is one everywhere.
            if reach == Reach::Everywhere && self.named[known].reach != reach {
                self.named[known].reach = reach;
                self.finder = std::sync::OnceLock::new();
            }
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
        let stand_in = stand_in.unwrap_or_else(|| self::stand_in(&value, self.named.len() as u64));
        self.by_value.insert(value.clone(), self.named.len());
        self.named.push(Named {
            escaped: escape_braces(&value),
            value,
            reach,
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
        // A whole text that is a secret, and one that is any secret a cookie may hold.
        let whole = |text: &str| {
            let i = escaped.get(text)?;
            (self.named[*i].reach == Reach::Everywhere).then(|| reference(*i))
        };
        let in_cookie = |text: &str| escaped.get(text).map(|i| reference(*i));
        let within = |text: &str| match automaton {
            Some(finder) if !inner.is_empty() => {
                let mut out = String::with_capacity(text.len());
                finder.replace_all_with(text, &mut out, |m, _, dst| {
                    dst.push_str(&reference(inner[m.pattern().as_usize()]));
                    true
                });
                out
            }
            // No automaton could be built: each secret in turn, longest first.
            _ => (inner.iter()).fold(text.to_string(), |text, i| {
                text.replace(&self.named[*i].escaped, &reference(*i))
            }),
        };
        // A header's credential is replaced after its scheme word however short it is.
        let after_scheme = |text: &str| {
            let (scheme, rest) = text.split_once(' ')?;
            let credential = rest.trim();
            let at = rest.find(credential)?;
            let reference = whole(credential)?;
            let (lead, trail) = (&rest[..at], &rest[at + credential.len()..]);
            (!scheme.is_empty()).then(|| format!("{scheme} {lead}{reference}{trail}"))
        };
        // A header's value, and a string under a header's name in a body (a webhook
        // endpoint's custom headers), read as that header reads.
        let under = |name: &str, text: &str| {
            if name.eq_ignore_ascii_case("cookie") {
                return refer_cookies(text, &in_cookie, &within);
            }
            whole(text)
                .or_else(|| {
                    is_credential_header(name)
                        .then(|| after_scheme(text))
                        .flatten()
                })
                .unwrap_or_else(|| within(text))
        };
        let request = &mut exchange.request;
        if let Some(body) = &mut request.body {
            refer_header_pairs(body, &under);
            *body = map_strings(body, "", &under);
        }
        if let Some(raw) = &mut request.raw_body {
            *raw = within(raw);
        }
        request.path = within(&request.path);
        for (header, value) in request.headers.iter_mut() {
            *value = match whole(value) {
                Some(reference) => reference,
                None if header.eq_ignore_ascii_case("cookie") => under(header, value),
                None => after_scheme(value).unwrap_or_else(|| within(value)),
            };
        }
        for value in request.query.values_mut() {
            *value = map_strings(value, "", &under);
        }
        if let Some(body) = &mut exchange.expect.body {
            refer_header_pairs(body, &under);
            *body = map_strings(body, "", &under);
        }
    }

    fn new_finder(&self) -> Finder {
        let escaped = (self.named.iter().enumerate())
            .map(|(i, n)| (n.escaped.clone(), i))
            .collect();
        // Inside a longer text, only a secret that cannot be ordinary text of it.
        let mut inner: Vec<usize> = (0..self.named.len())
            .filter(|i| {
                let named = &self.named[*i];
                named.reach == Reach::Everywhere && crate::secrets::distinctive(&named.value)
            })
            .collect();
        inner.sort_by_key(|i| std::cmp::Reverse(self.named[*i].value.len()));
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
}

/// Each header written as a name and a value in a body (`{"name": "Cookie", "value": …}`)
/// with its value read as that header's.
fn refer_header_pairs(body: &mut Value, under: &dyn Fn(&str, &str) -> String) {
    match body {
        Value::Object(fields) => {
            if let (Some(Value::String(name)), Some(Value::String(value))) =
                (fields.get("name"), fields.get("value"))
                && is_credential_header(name)
            {
                let referred = under(name, value);
                fields.insert("value".into(), Value::String(referred));
            }
            fields
                .values_mut()
                .for_each(|v| refer_header_pairs(v, under));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| refer_header_pairs(v, under)),
        _ => {}
    }
}

/// A `Cookie` header with each secret cookie value, however short, as its reference, and
/// a secret inside a longer value (`sid=<token>.sig`) as its own.
fn refer_cookies(
    header: &str,
    whole: &dyn Fn(&str) -> Option<String>,
    within: &dyn Fn(&str) -> String,
) -> String {
    header
        .split(';')
        .map(|pair| {
            let (name, value) = match pair.split_once('=') {
                Some((name, value)) => (Some(name), value),
                // A cookie without a name: the whole pair, its spaces kept.
                None => (None, pair),
            };
            let lead = &value[..value.len() - value.trim_start().len()];
            let bare = value.trim();
            let quoted = unquoted(bare);
            let value = match whole(quoted) {
                Some(reference) if quoted.len() < bare.len() => format!("{lead}\"{reference}\""),
                Some(reference) => format!("{lead}{reference}"),
                None => within(value),
            };
            match name {
                Some(name) => format!("{name}={value}"),
                None => value,
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `decoded` (a stand-in of the value `encoded` decodes to) percent-encoded where `encoded`
/// is: each character written as `%XX` there is written so here.
fn encode_like(encoded: &str, decoded: &str) -> String {
    let mut escaped_chars = Vec::new();
    let (bytes, mut i, mut pending) = (encoded.as_bytes(), 0, Vec::new());
    while i < bytes.len() {
        let escape = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| &bytes[i + 1..i + 3])
            .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                pending.push(byte);
                i += 3;
                if std::str::from_utf8(&pending).is_ok() {
                    escaped_chars.push(true);
                    pending.clear();
                }
            }
            None => {
                let c = encoded[i..].chars().next().unwrap_or_default();
                escaped_chars.push(false);
                i += c.len_utf8().max(1);
            }
        }
    }
    let mut out = String::with_capacity(encoded.len());
    for (c, escaped) in decoded
        .chars()
        .zip(escaped_chars.into_iter().chain(std::iter::repeat(false)))
    {
        match escaped {
            true => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            false => out.push(c),
        }
    }
    out
}

/// A made-up value of the secret's shape, drawn from `seed`, never the secret itself.
fn stand_in(secret: &str, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let draw = |rng: &mut ChaCha8Rng| -> String {
        secret
            .chars()
            .map(|c| match c {
                'a'..='f' => rng.random_range('a'..='f'),
                'A'..='F' => rng.random_range('A'..='F'),
                'G'..='Z' => rng.random_range('G'..='Z'),
                '0'..='9' => rng.random_range('0'..='9'),
                // Another script's letter or digit becomes an ASCII one, of as many chars.
                c if c.is_numeric() => rng.random_range('0'..='9'),
                c if c.is_alphanumeric() => rng.random_range('g'..='z'),
                other => other,
            })
            .collect()
    };
    // A short secret may be drawn again by chance: drawn anew until it differs.
    let mut made = draw(&mut rng);
    for _ in 0..16 {
        if made != secret {
            return made;
        }
        made = draw(&mut rng);
    }
    // Nothing to vary (punctuation alone): letters of its length.
    let mut letters = || {
        secret
            .chars()
            .map(|_| rng.random_range('a'..='z'))
            .collect::<String>()
    };
    let mut made = letters();
    while made == secret {
        made = letters();
    }
    made
}

#[cfg(test)]
mod tests {
    use super::super::header_credentials::{credentials_in_headers, names_a_credential};
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
    fn a_secret_of_no_ascii_letter_or_digit_still_gets_a_stand_in_of_its_length() {
        for secret in ["пароль-ключ", "!@#$%^&*", "密码密码密码"] {
            let made = stand_in(secret, 1);
            assert_ne!(made, secret);
            assert_eq!(made.chars().count(), secret.chars().count(), "{made}");
            assert!(made.is_ascii(), "{made}");
        }
    }

    fn exchange_with(headers: Value, body: Value) -> Exchange {
        serde_json::from_value(serde_json::json!({
            "id": "x",
            "endpoint": "root",
            "request": {"method": "POST", "path": "/", "headers": headers, "body": body},
            "expect": {"status": 200, "body": body}
        }))
        .unwrap()
    }

    fn secrets_of(headers: &Value) -> RequestSecrets {
        let mut found = Vec::new();
        credentials_in_headers(headers, &mut found);
        let mut secrets = RequestSecrets::default();
        for f in found {
            secrets.name_found(f);
        }
        secrets
    }

    #[test]
    fn a_session_cookie_is_referred_to_and_a_preference_is_sent_as_it_was() {
        let headers = serde_json::json!({"Cookie": "session=abc; theme=dark; sidebar=open"});
        let mut found = Vec::new();
        credentials_in_headers(&headers, &mut found);
        assert_eq!(
            found,
            [Found {
                field: "cookie_session".into(),
                value: "abc".into(),
                reach: Reach::Cookies,
                encodes: None,
            }]
        );
        let secrets = secrets_of(&headers);
        // A body that holds the same short words is left alone: they are ordinary text.
        let body = serde_json::json!({"note": "abc", "theme": "dark"});
        let mut exchange = exchange_with(
            serde_json::json!({"cookie": "session=abc; theme=dark"}),
            body.clone(),
        );
        secrets.refer(&mut exchange);
        assert_eq!(
            exchange.request.headers["cookie"],
            "session={{secret_cookie_session}}; theme=dark"
        );
        assert_eq!(exchange.request.body, Some(body.clone()));
        assert_eq!(exchange.expect.body, Some(body));
    }

    #[test]
    fn a_token_inside_a_cookie_or_a_cookie_without_a_name_is_referred_to() {
        let token = "tok_9f8e7d6c5b4a";
        let signed = format!("sid={token}.sig9; Secure");
        let secrets =
            secrets_of(&serde_json::json!({"Cookie": format!("{token}"), "x-api-key": token}));
        let mut exchange = exchange_with(
            serde_json::json!({"cookie": signed}),
            serde_json::json!({"echo": token}),
        );
        secrets.refer(&mut exchange);
        let cookie = &exchange.request.headers["cookie"];
        assert!(!cookie.contains(token), "{cookie}");
        assert!(cookie.starts_with("sid={{secret_"), "{cookie}");
        assert!(cookie.ends_with(".sig9; Secure"), "{cookie}");
        // The body's echo of the token, sent and expected, is referred to as well.
        assert_eq!(
            exchange.expect.body,
            Some(serde_json::json!({"echo": "{{secret_cookie}}"}))
        );
        assert_eq!(exchange.request.body, exchange.expect.body);
        let bare = secrets_of(&serde_json::json!({"Cookie": " abc"}));
        let mut exchange = exchange_with(serde_json::json!({"cookie": " abc"}), Value::Null);
        bare.refer(&mut exchange);
        assert_eq!(exchange.request.headers["cookie"], " {{secret_cookie}}");
    }

    #[test]
    fn an_ordinary_cookie_however_long_is_sent_as_it_was_and_its_value_left_alone_elsewhere() {
        let cookie = "tz=America/New_York; redirect=/orders/12345/items; author_view=compact; \
                      cart_id=7; sort_key=created_at";
        let headers = serde_json::json!({"Cookie": cookie});
        let mut found = Vec::new();
        credentials_in_headers(&headers, &mut found);
        assert_eq!(found, [], "none of these is a credential");
        let body = serde_json::json!({"tz": "America/New_York", "next": "/orders/12345/items"});
        // The ordinary cookies beside a session's: only the session is referred to.
        let secrets = secrets_of(&serde_json::json!({"Cookie": format!("{cookie}; sid=abc")}));
        let mut exchange = exchange_with(serde_json::json!({"cookie": cookie}), body.clone());
        secrets.refer(&mut exchange);
        assert_eq!(exchange.request.headers["cookie"], cookie);
        assert_eq!(exchange.request.body, Some(body.clone()));
        assert_eq!(exchange.expect.body, Some(body));
        assert!(names_a_credential("auth") && names_a_credential("next-auth.session-token"));
        assert!(names_a_credential("api_key") && names_a_credential("connect.sid"));
    }

    #[test]
    fn a_credential_under_a_header_name_inside_a_body_is_referred_to_however_short() {
        let body = serde_json::json!({
            "headers": {"Cookie": "session=abc; theme=dark", "Authorization": "Bearer abc1234"},
            "note": "abc1234 abc"
        });
        let secrets = secrets_of(&body);
        let mut exchange = exchange_with(serde_json::json!({}), body);
        secrets.refer(&mut exchange);
        let sent = exchange.request.body.unwrap();
        assert_eq!(
            sent["headers"],
            serde_json::json!({
                "Cookie": "session={{secret_cookie_session}}; theme=dark",
                "Authorization": "Bearer {{secret_authorization}}"
            })
        );
        assert_eq!(
            sent["note"], "abc1234 abc",
            "short words elsewhere are ordinary text"
        );
    }

    #[test]
    fn a_quoted_or_percent_encoded_cookie_is_named_as_its_token_reads_elsewhere() {
        let token = "tok_9f8e7d6c5b4a";
        let encoded = "s%3Aab12cd34ef56gh78.Zx9";
        let cookie = format!("sid=\"{token}\"; connect.sid={encoded}");
        let headers = serde_json::json!({"Cookie": cookie});
        let secrets = secrets_of(&headers);
        let body = serde_json::json!({"token": token, "signed": "s:ab12cd34ef56gh78.Zx9"});
        let mut exchange = exchange_with(headers, body);
        secrets.refer(&mut exchange);
        let sent = &exchange.request.headers["Cookie"];
        assert!(!sent.contains(token) && !sent.contains(encoded), "{sent}");
        assert!(
            sent.starts_with("sid=\"{{secret_cookie_sid}}\"; "),
            "{sent}"
        );
        let body = exchange.request.body.unwrap();
        assert_eq!(body["token"], "{{secret_cookie_sid}}");
        assert_eq!(body["signed"], "{{secret_cookie_connect_sid}}");
    }

    #[test]
    fn everyday_values_stay_and_tokens_wrapped_in_punctuation_are_found() {
        let cookie = "region=us-east-1; tz=UTC+05:30; locale=en_US.UTF-8; \
                      auth_redirect=/orders/12345/items";
        let headers = serde_json::json!({"Cookie": cookie});
        let secrets = secrets_of(&headers);
        let body = serde_json::json!({"region": "us-east-1", "next": "/orders/12345/items"});
        let mut exchange = exchange_with(headers, body.clone());
        exchange.request.path = "/regions/us-east-1/orders/12345/items".into();
        secrets.refer(&mut exchange);
        assert_eq!(exchange.request.body, Some(body));
        assert_eq!(
            exchange.request.path,
            "/regions/us-east-1/orders/12345/items"
        );
        let sent = &exchange.request.headers["Cookie"];
        assert!(
            sent.starts_with("region=us-east-1; tz=UTC+05:30; locale=en_US.UTF-8; "),
            "{sent}"
        );

        // WordPress' signed cookie: `|` between its parts, under a name of no credential word.
        let value = "admin%7C1700000000%7CAbCdEf0123456789xYz%7C9e1f2a3b4c5d6e7f8091";
        let wordpress = format!("wordpress_3f2a={value}; theme=dark");
        let mut found = Vec::new();
        credentials_in_headers(&serde_json::json!({"Cookie": wordpress}), &mut found);
        let values: Vec<&str> = found.iter().map(|f| f.value.as_str()).collect();
        assert!(values.contains(&value), "{found:?}");
        // A bare token beside named cookies is a secret; a lone flag is not.
        let mut found = Vec::new();
        let bare = "tok9f8e7d6c5b4a3f2e1; Secure; theme=dark";
        credentials_in_headers(&serde_json::json!({"Cookie": bare}), &mut found);
        let values: Vec<&str> = found.iter().map(|f| f.value.as_str()).collect();
        assert_eq!(values, ["tok9f8e7d6c5b4a3f2e1"]);
    }

    #[test]
    fn a_percent_encoded_cookie_and_its_decoded_echo_get_stand_ins_that_still_agree() {
        let headers = serde_json::json!({"Cookie": "XSRF-TOKEN=abc123xyz789def456%3D%3D"});
        let secrets = secrets_of(&headers);
        let lets = secrets.lets();
        let decoded = lets["secret_cookie_xsrf_token"].as_str().unwrap();
        let encoded = lets["secret_cookie_xsrf_token_2"].as_str().unwrap();
        assert!(
            decoded.ends_with("==") && decoded != "abc123xyz789def456==",
            "{decoded}"
        );
        assert_eq!(encoded, decoded.replace('=', "%3D"));
        let body = serde_json::json!({"xsrf": "abc123xyz789def456=="});
        let mut exchange = exchange_with(headers, body);
        secrets.refer(&mut exchange);
        let body = exchange.request.body.unwrap();
        assert_eq!(body["xsrf"], "{{secret_cookie_xsrf_token}}");
        assert_eq!(
            exchange.request.headers["Cookie"],
            "XSRF-TOKEN={{secret_cookie_xsrf_token_2}}"
        );
    }

    #[test]
    fn credentials_in_lists_and_name_value_pairs_are_referred_to_with_their_spacing() {
        let body = serde_json::json!({
            "headers": {"Authorization": ["Bearer  abc1234"]},
            "pairs": [{"name": "Authorization", "value": "Bearer xyz9876"},
                      {"name": "Accept", "value": "Bearer xyz9876"}]
        });
        let secrets = secrets_of(&body);
        let mut exchange = exchange_with(serde_json::json!({}), body);
        secrets.refer(&mut exchange);
        let sent = exchange.request.body.unwrap();
        assert_eq!(
            sent["headers"]["Authorization"][0],
            "Bearer  {{secret_authorization}}"
        );
        assert_eq!(
            sent["pairs"][0]["value"],
            "Bearer {{secret_authorization_2}}"
        );
        assert_eq!(
            sent["pairs"][1]["value"], "Bearer xyz9876",
            "a short word after a scheme is a credential only under a credential's name"
        );
    }
}
