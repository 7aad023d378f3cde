//! Every secret a run has seen, so none is ever written down: the credentials, environment
//! variables named as secrets, every credential a request carried, and every value of a
//! field the spec marks `@secret`, in requests and responses. Each is known with the forms
//! it takes on the way (percent-encoded in a URL, escaped in JSON, base64 in a Basic
//! header), whatever its length.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use base64::Engine;
use covenant_codegen::ir::{Carrier, Field, Spec, Type};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

/// One secret value in one of its forms, and what stands for it in anything written.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    pub value: String,
    /// `{{credentials.team_api_key}}`, `{{env.TOKEN}}` or `[secret:key]`.
    pub reference: String,
}

/// The secrets of one run; shared by its scenarios, which learn secrets as they go. The
/// sorted list and the redactor are built once per change, not once per use: a run reads
/// them on every exchange and learns something new on few.
#[derive(Default)]
pub struct SecretBook {
    known: RwLock<Known>,
}

/// Says how many secrets there are, never which: a debug print must not leak one.
impl std::fmt::Debug for SecretBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretBook")
            .field("secrets", &self.read().secrets.len())
            .finish()
    }
}

/// The secrets sorted longest first, and the redactor built from them.
type Built = (Arc<Vec<(String, String)>>, Arc<Redactor>);

#[derive(Default)]
struct Known {
    secrets: Vec<Secret>,
    values: HashSet<String>,
    /// The sorted list and its redactor, until the next secret is learnt.
    built: Option<Built>,
}

impl SecretBook {
    pub fn new() -> SecretBook {
        SecretBook::default()
    }

    /// Adds `value` and its derived forms, all standing for `reference`. An empty value
    /// says nothing and is not added; a value already known keeps its first reference.
    pub fn add(&self, value: &str, reference: &str) {
        if value.is_empty() || self.read().values.contains(value) {
            return;
        }
        let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
        for form in forms(value) {
            if known.values.insert(form.clone()) {
                known.secrets.push(Secret {
                    value: form,
                    reference: reference.to_string(),
                });
                known.built = None;
            }
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Known> {
        self.known.read().unwrap_or_else(|e| e.into_inner())
    }

    /// A value of a field the spec's types mark `@secret`, named after the field: a secret
    /// by declaration, however short.
    pub fn add_field_value(&self, field: &str, value: &str) {
        self.add(value, &format!("[secret:{field}]"));
    }

    /// Adds a value seen in traffic when it can be told apart from ordinary data: a short
    /// or repetitive one (a mock's `"text"`, a user name `admin`) would be reported as a
    /// secret wherever the same word appears, so it is not learnt. Credentials given to the
    /// run are added whatever they are ([`SecretBook::add`]).
    pub fn learn(&self, value: &str, reference: &str) {
        if distinctive(value) {
            self.add(value, reference);
        }
    }

    /// Every secret, longest first so a secret containing another is replaced whole.
    pub fn snapshot(&self) -> Arc<Vec<(String, String)>> {
        self.built().0
    }

    /// A redactor for the secrets known now.
    pub fn redactor(&self) -> Arc<Redactor> {
        self.built().1
    }

    fn built(&self) -> Built {
        if let Some(built) = &self.read().built {
            return built.clone();
        }
        let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
        if let Some(built) = &known.built {
            return built.clone();
        }
        let mut sorted: Vec<(String, String)> = known
            .secrets
            .iter()
            .map(|s| (s.value.clone(), s.reference.clone()))
            .collect();
        sorted.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        let redactor = Arc::new(Redactor::new(sorted.clone()));
        let built = (Arc::new(sorted), redactor);
        known.built = Some(built.clone());
        built
    }

    /// Learns the credentials a request carries, in every place the spec's auth schemes
    /// put them: a named header, a Bearer token, Basic user and password, a cookie, a query
    /// parameter.
    pub fn learn_credentials(
        &self,
        carriers: &[(String, Carrier)],
        headers: &[(String, String)],
        query: &[(String, String)],
    ) {
        for (scheme, carrier) in carriers {
            let reference = format!("[secret:{scheme}]");
            match carrier {
                Carrier::Query(name) => query
                    .iter()
                    .filter(|(n, _)| n == name)
                    .for_each(|(_, v)| self.learn(v, &reference)),
                Carrier::Header(name) => {
                    header_values(headers, name).for_each(|v| self.learn(v, &reference))
                }
                Carrier::Bearer => header_values(headers, "authorization")
                    .filter_map(|v| strip_scheme(v, "bearer"))
                    .for_each(|v| self.learn(v, &reference)),
                Carrier::Basic => {
                    for encoded in header_values(headers, "authorization")
                        .filter_map(|v| strip_scheme(v, "basic"))
                    {
                        self.learn(encoded, &reference);
                        self.learn_basic(encoded, &reference);
                    }
                }
                Carrier::Cookie(name) => {
                    for cookie in header_values(headers, "cookie") {
                        for pair in cookie.split(';') {
                            if let Some((n, v)) = pair.trim().split_once('=')
                                && n == name
                            {
                                self.learn(v, &reference);
                            }
                        }
                    }
                }
            }
        }
    }

    fn learn_basic(&self, encoded: &str, reference: &str) {
        let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) else {
            return;
        };
        let decoded = String::from_utf8_lossy(&decoded);
        let (user, password) = decoded.split_once(':').unwrap_or((&decoded, ""));
        self.learn(user, reference);
        self.learn(password, reference);
    }

    /// Learns every string under a key in `names`, at any depth: what an answer of no
    /// declared shape (an undeclared status, a hostile server) holds in a field the spec
    /// calls secret somewhere.
    pub fn learn_by_name(&self, names: &[String], value: &Value) {
        match value {
            Value::Object(fields) => {
                for (key, v) in fields {
                    if names.iter().any(|n| n == key) {
                        let mut found = Vec::new();
                        strings(v, key, &mut found);
                        // Found by name alone, in an answer of no declared shape: only what
                        // can be told apart from ordinary data.
                        found
                            .iter()
                            .for_each(|(f, s)| self.learn(s, &format!("[secret:{f}]")));
                    } else {
                        self.learn_by_name(names, v);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.learn_by_name(names, v)),
            _ => {}
        }
    }

    /// Learns the values of `@secret` fields in an answer of type `ty`. An answer's value is
    /// the target's to choose (a mock's `"text"`), so only one that can be told apart from
    /// ordinary data is learnt; a request's is added whatever it is ([`add_field_value`]).
    ///
    /// [`add_field_value`]: SecretBook::add_field_value
    pub fn learn_body(&self, spec: &Spec, ty: &Type, value: &Value) {
        let mut found = Vec::new();
        secret_values(spec, ty, value, &mut found);
        for (field, value) in found {
            self.learn(&value, &format!("[secret:{field}]"));
        }
    }
}

fn header_values<'a>(
    headers: &'a [(String, String)],
    name: &'a str,
) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The credential after `Bearer ` or `Basic `, whatever the case of the scheme's name.
fn strip_scheme<'a>(value: &'a str, scheme: &str) -> Option<&'a str> {
    let (word, rest) = value.trim().split_once(' ')?;
    word.eq_ignore_ascii_case(scheme).then(|| rest.trim())
}

/// A value and the forms it takes in traffic and in reports: percent-encoded (every byte
/// but letters and digits, and form encoding), escaped inside a JSON string, and base64 as
/// a Basic header holds a user with no password.
pub fn forms(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    let mut push = |form: String| {
        if !form.is_empty() && !out.contains(&form) {
            out.push(form);
        }
    };
    push(utf8_percent_encode(value, NON_ALPHANUMERIC).to_string());
    push(form_urlencoded::byte_serialize(value.as_bytes()).collect());
    let json = Value::String(value.to_string()).to_string();
    push(json[1..json.len() - 1].to_string());
    let base64 = base64::engine::general_purpose::STANDARD;
    push(base64.encode(format!("{value}:")));
    out
}

/// The names of every field and parameter the spec marks `@secret`.
pub fn secret_field_names(spec: &Spec) -> Vec<String> {
    let fields = spec.models.iter().flat_map(|m| &m.fields);
    let params = spec
        .endpoints
        .iter()
        .flat_map(|e| e.params.iter().map(|p| &p.field));
    let mut names: Vec<String> = fields
        .chain(params)
        .filter(|f| f.secret)
        .map(|f| f.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every string held by a `@secret` field of a value of type `ty`, with the field's name.
pub fn secret_values(spec: &Spec, ty: &Type, value: &Value, out: &mut Vec<(String, String)>) {
    let mut found = Vec::new();
    marked_values(spec, ty, value, &|f| f.secret, &mut found);
    out.extend(found.into_iter().map(|(f, v)| (f.name.clone(), v)));
}

/// Every string held by a field `marked` picks in a value of type `ty`, with the field. The
/// walk follows the type, so it is as deep as the value and no deeper.
pub fn marked_values<'s>(
    spec: &'s Spec,
    ty: &Type,
    value: &Value,
    marked: &dyn Fn(&Field) -> bool,
    out: &mut Vec<(&'s Field, String)>,
) {
    match (ty, value) {
        (Type::Model(id), Value::Object(fields)) => {
            for field in &spec.model(*id).fields {
                let Some(v) = fields.get(&field.name) else {
                    continue;
                };
                if marked(field) {
                    let mut texts = Vec::new();
                    strings(v, &field.name, &mut texts);
                    out.extend(texts.into_iter().map(|(_, text)| (field, text)));
                } else {
                    marked_values(spec, &field.ty, v, marked, out);
                }
            }
        }
        (Type::List(item, _), Value::Array(items)) => items
            .iter()
            .for_each(|v| marked_values(spec, item, v, marked, out)),
        (Type::Map(item, _), Value::Object(fields)) => fields
            .values()
            .for_each(|v| marked_values(spec, item, v, marked, out)),
        (Type::Union(members), _) => members
            .iter()
            .for_each(|m| marked_values(spec, m, value, marked, out)),
        // A declared union never holds itself in place (E0141): each step goes deeper into
        // the value.
        (Type::NamedUnion(id), _) => spec
            .union(*id)
            .members
            .iter()
            .for_each(|m| marked_values(spec, m, value, marked, out)),
        _ => {}
    }
}

/// Every string under `value`: a marked field holding a model (a person's address) marks
/// every text in it.
fn strings(value: &Value, field: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) => out.push((field.to_string(), s.clone())),
        Value::Array(items) => items.iter().for_each(|v| strings(v, field, out)),
        Value::Object(fields) => fields.values().for_each(|v| strings(v, field, out)),
        _ => {}
    }
}

/// Whether the match `start..end` of a secret in `text` is that secret: always for one of
/// [`SHORT`] bytes or more; for a shorter one, only where it is not inside a longer run of
/// letters and digits.
pub fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let alnum = |i: Option<&u8>| i.is_some_and(|b| b.is_ascii_alphanumeric());
    end - start >= SHORT
        || !(alnum(start.checked_sub(1).and_then(|i| bytes.get(i))) || alnum(bytes.get(end)))
}

/// Secrets shorter than this many bytes are replaced only as words of their own, and are
/// not learnt from traffic.
pub const SHORT: usize = 8;

/// Whether a value seen in traffic can be told apart from ordinary data: [`SHORT`]
/// characters or more, of at least four different ones.
pub fn distinctive(value: &str) -> bool {
    let distinct: std::collections::HashSet<char> = value.chars().take(64).collect();
    value.chars().count() >= SHORT && distinct.len() >= 4
}

/// The automaton redactors and transcripts search with. A run builds one again whenever it
/// learns a secret, so cheap building matters more than the last bit of search speed: a
/// DFA took a fifth of a run against a fast target.
pub const AUTOMATON: AhoCorasickKind = AhoCorasickKind::ContiguousNFA;

/// Replaces every known secret in a text by its reference, in one pass.
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    references: Vec<String>,
}

impl Redactor {
    pub fn new(secrets: Vec<(String, String)>) -> Redactor {
        let (values, references): (Vec<String>, Vec<String>) = secrets.into_iter().unzip();
        let matcher = (!values.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .kind(Some(AUTOMATON))
                    .build(&values)
                    .ok()
            })
            .flatten();
        Redactor {
            matcher,
            references,
        }
    }

    /// Where secrets stand in `text`, in order: each span with the reference of its
    /// secret. A secret shorter than [`SHORT`] characters counts where it stands as a word
    /// of its own, not inside a longer run of letters and digits: a key `k` must not turn
    /// `bucket` into `buc[…]et`. Longer ones count wherever they are.
    pub fn find<'r>(&'r self, text: &str) -> Vec<(std::ops::Range<usize>, &'r str)> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        matcher
            .find_iter(text)
            .filter(|m| stands_alone(text, m.start(), m.end()))
            .map(|m| (m.range(), self.references[m.pattern().as_usize()].as_str()))
            .collect()
    }

    /// The text with every secret replaced by its reference.
    pub fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for (span, reference) in self.find(text) {
            out.push_str(&text[copied..span.start]);
            out.push_str(reference);
            copied = span.end;
        }
        out.push_str(&text[copied..]);
        out
    }

    /// Redacts a text in place.
    pub fn apply(&self, text: &mut String) {
        if self
            .matcher
            .as_ref()
            .is_some_and(|m| m.is_match(text.as_str()))
        {
            *text = self.text(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_secret_is_redacted_whatever_its_length() {
        let book = SecretBook::new();
        book.add("k y", "[secret:key]");
        book.add("ab", "{{credentials.pin}}");
        let r = book.redactor();
        assert_eq!(
            r.text("GET /link?t=k%20y&u=k+y {\"v\":\"k y\"} ab"),
            "GET /link?t=[secret:key]&u=[secret:key] {\"v\":\"[secret:key]\"} {{credentials.pin}}"
        );
        // A short secret inside a longer word is not that secret.
        assert_eq!(
            r.text("tab about x-ab: ab"),
            "tab about x-{{credentials.pin}}: {{credentials.pin}}"
        );
    }

    #[test]
    fn credentials_are_learnt_where_their_scheme_carries_them() {
        let book = SecretBook::new();
        let carriers = vec![
            ("bearer".to_string(), Carrier::Bearer),
            ("api".to_string(), Carrier::Header("X-Key".into())),
            ("q".to_string(), Carrier::Query("access_token".into())),
            ("session".to_string(), Carrier::Cookie("sid".into())),
        ];
        let headers = vec![
            (
                "authorization".to_string(),
                "Bearer tok1_a9f3c2".to_string(),
            ),
            ("x-key".to_string(), "key2_b81d7e".to_string()),
            ("cookie".to_string(), "a=1; sid=sid3_c4e8a1".to_string()),
        ];
        let query = vec![("access_token".to_string(), "tokq4_d2f9b0".to_string())];
        book.learn_credentials(&carriers, &headers, &query);
        let r = book.redactor();
        assert_eq!(
            r.text("tok1_a9f3c2 key2_b81d7e sid3_c4e8a1 tokq4_d2f9b0"),
            "[secret:bearer] [secret:api] [secret:session] [secret:q]"
        );
    }

    /// A mock answers `"text"` for every string: learnt as a key, every `"text"` of the
    /// report would read as a leaked secret. Values seen in traffic are learnt only when
    /// they can be told apart from ordinary data; credentials given to the run always are.
    #[test]
    fn short_or_common_values_seen_in_traffic_are_not_learnt() {
        let book = SecretBook::new();
        book.learn_credentials(
            &[("api".to_string(), Carrier::Header("X-Key".into()))],
            &[("x-key".to_string(), "text".to_string())],
            &[],
        );
        book.learn_by_name(
            &["key".to_string()],
            &serde_json::json!({"key": "aaaaaaaaaaaa", "other": {"key": "sk_live_4f9a1c"}}),
        );
        book.add("pin", "{{credentials.pin}}");
        let r = book.redactor();
        assert_eq!(
            r.text("text aaaaaaaaaaaa sk_live_4f9a1c pin"),
            "text aaaaaaaaaaaa [secret:key] {{credentials.pin}}"
        );
    }

    /// An answer's `@secret` values are the target's to choose: a mock's `"text"` is no
    /// secret of the run, a minted key is. A request's are the cassette's, however short.
    #[test]
    fn an_answers_secret_fields_are_learnt_only_when_they_can_be_told_apart() {
        let text = "service T {}\nmodel Minted {\n    @secret\n    key: string\n}\n";
        let source = covenant_codegen::source::SourceFile::new("t.covenant", text);
        let checked = covenant_codegen::check_source(&source);
        let spec = checked.spec.expect("the spec checks");
        let minted = Type::Model(covenant_codegen::ir::ModelId(0));
        let book = SecretBook::new();
        book.learn_body(&spec, &minted, &serde_json::json!({"key": "text"}));
        book.learn_body(&spec, &minted, &serde_json::json!({"key": "sk_4f9a1c7e"}));
        book.add_field_value("pin", "1234");
        assert_eq!(
            book.redactor().text("text sk_4f9a1c7e 1234"),
            "text [secret:key] [secret:pin]"
        );
    }

    #[test]
    fn basic_credentials_are_learnt_decoded_and_encoded() {
        let book = SecretBook::new();
        let encoded = base64::engine::general_purpose::STANDARD.encode("sk_user_1:pw_4f9a1c");
        book.learn_credentials(
            &[("basic".to_string(), Carrier::Basic)],
            &[("Authorization".to_string(), format!("Basic {encoded}"))],
            &[],
        );
        let r = book.redactor();
        assert_eq!(
            r.text(&format!("{encoded} sk_user_1 pw_4f9a1c")),
            "[secret:basic] [secret:basic] [secret:basic]"
        );
    }
}
