//! A scenario's normalized transcript: what was sent and received, in a stable text a
//! snapshot can hold. Volatile values are replaced only here, when written, so captures and
//! matchers always saw the real values: secrets by their reference, captured and `let`
//! values by `[name]`, other UUIDs by `[uuid-N]` in order of appearance, instants by
//! `[timestamp]`.

use crate::exec::{Incoming, Outgoing};
use crate::secrets::Redactor;
use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::LazyLock;

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b").unwrap()
});
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{4})-(\d{2})-(\d{2})\b").unwrap());
/// Dates this close to the run's day are taken as computed from it (a window ending today)
/// and written relative to it; dates further off are the cassette's or the data's own.
const RELATIVE_DAYS: i64 = 31;
static INSTANT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?").unwrap()
});

/// Replaces volatile values consistently across one transcript.
pub struct Normalizer {
    /// Real value → placeholder, longest first.
    known: Vec<(String, String)>,
    /// Finds the known values; `None` until needed, and again after one is added.
    matcher: Option<AhoCorasick>,
    uuids: HashMap<String, String>,
    /// `{{$unique}}` values of this run: `<run id>-<n>`.
    unique: Option<Regex>,
    /// The run's day, which near dates are written relative to.
    today: chrono::NaiveDate,
}

impl Normalizer {
    /// `secrets` map real values to references; `named` holds captured and `let` values,
    /// whose names say more than a secret's reference and so are preferred.
    pub fn new(
        secrets: &[(String, String)],
        named: &[(String, Value)],
        run_id: &str,
    ) -> Normalizer {
        let mut known: Vec<(String, String)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for (name, value) in named {
            if let Value::String(s) = value
                && s.len() >= 4
                && seen.insert(s)
            {
                known.push((s.clone(), format!("[{name}]")));
            }
        }
        for (value, reference) in secrets {
            if seen.insert(value) {
                known.push((value.clone(), reference.clone()));
            }
        }
        known.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        Normalizer {
            known,
            matcher: None,
            uuids: HashMap::new(),
            unique: (!run_id.is_empty())
                .then(|| Regex::new(&format!(r"{}-\d+", regex::escape(run_id))).ok())
                .flatten(),
            today: chrono::Utc::now().date_naive(),
        }
    }

    pub fn text(&mut self, s: &str) -> String {
        let matches = self.known_matches(s);
        self.number_secrets(&matches);
        let mut out = String::with_capacity(s.len());
        let mut copied = 0;
        for (start, end, i) in matches {
            out.push_str(&s[copied..start]);
            out.push_str(&self.known[i].1);
            copied = end;
        }
        out.push_str(&s[copied..]);
        let out = UUID
            .replace_all(&out, |c: &regex::Captures| {
                let next = self.uuids.len() + 1;
                self.uuids
                    .entry(c[0].to_ascii_lowercase())
                    .or_insert_with(|| format!("[uuid-{next}]"))
                    .clone()
            })
            .into_owned();
        let out = INSTANT.replace_all(&out, "[timestamp]");
        let out = DATE.replace_all(&out, |c: &regex::Captures| relative_date(&c[0], self.today));
        match &self.unique {
            Some(unique) => unique.replace_all(&out, "[unique]").into_owned(),
            None => out.into_owned(),
        }
    }

    /// Where known values stand in `text`, in order, with their index in `known`; one pass
    /// of one automaton, built again only when a value is added.
    fn known_matches(&mut self, text: &str) -> Vec<(usize, usize, usize)> {
        if self.matcher.is_none() && !self.known.is_empty() {
            self.matcher = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(Some(crate::secrets::AUTOMATON))
                .build(self.known.iter().map(|(v, _)| v))
                .ok();
        }
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        matcher
            .find_iter(text)
            .filter(|m| crate::secrets::stands_alone(text, m.start(), m.end()))
            .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
            .collect()
    }

    /// Secrets learnt from `@secret` fields (`[secret:key]`) are numbered per field in the
    /// order they first appear, so two keys of one transcript stay apart and the numbers
    /// are the same on every run.
    fn number_secrets(&mut self, matches: &[(usize, usize, usize)]) {
        for &(_, _, i) in matches {
            if !is_unnumbered_secret(&self.known[i].1) {
                continue;
            }
            let field = self.known[i].1["[secret:".len()..self.known[i].1.len() - 1].to_string();
            let prefix = format!("[secret:{field}#");
            let mut taken: Vec<&str> = self
                .known
                .iter()
                .map(|(_, p)| p.as_str())
                .filter(|p| p.starts_with(&prefix))
                .collect();
            taken.sort_unstable();
            taken.dedup();
            let numbered = format!("[secret:{field}#{}]", taken.len() + 1);
            // Every form of the value (percent-encoded, escaped) takes the same number.
            let reference = self.known[i].1.clone();
            let forms = crate::secrets::forms(&self.known[i].0);
            for (v, p) in &mut self.known {
                if *p == reference && forms.contains(v) {
                    *p = numbered.clone();
                }
            }
        }
    }

    pub fn json(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|i| self.json(i)).collect()),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (self.text(k), self.json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Values under keys that name a token, key, secret or cursor are made up per run even
    /// when no later request uses them: each gets a numbered placeholder, kept wherever the
    /// value appears again (inside a URL, say).
    fn register_volatile(&mut self, v: &Value) {
        match v {
            Value::Object(fields) => {
                for (key, value) in fields {
                    let lower = key.to_ascii_lowercase();
                    let volatile = ["token", "key", "secret", "password", "cursor"]
                        .iter()
                        .any(|w| lower.contains(w));
                    match value {
                        Value::String(s) if volatile && s.len() >= 8 => {
                            if !self.known.iter().any(|(k, _)| k == s) {
                                let n = self
                                    .known
                                    .iter()
                                    .filter(|(_, p)| p.starts_with(&format!("[{lower}-")))
                                    .count()
                                    + 1;
                                self.known.push((s.clone(), format!("[{lower}-{n}]")));
                                self.known
                                    .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
                                self.matcher = None;
                            }
                        }
                        other => self.register_volatile(other),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| self.register_volatile(i)),
            _ => {}
        }
    }

    /// [`Self::register_volatile`] for the start of a pretty-printed body, which no longer
    /// parses: each `"key": "value"` line whose key names a token, key, secret, password or
    /// cursor.
    fn register_volatile_lines(&mut self, text: &str) {
        static PAIR: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r#"(?m)^\s*("(?:[^"\\]|\\.)*"): ("(?:[^"\\]|\\.)*"),?$"#).unwrap()
        });
        for pair in PAIR.captures_iter(text) {
            let (Ok(Value::String(key)), Ok(value)) = (
                serde_json::from_str::<Value>(&pair[1]),
                serde_json::from_str::<Value>(&pair[2]),
            ) else {
                continue;
            };
            self.register_volatile(&Value::Object([(key, value)].into_iter().collect()));
        }
    }

    fn body(&mut self, bytes: &[u8]) -> String {
        if bytes.is_empty() {
            return String::new();
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => {
                self.register_volatile(&v);
                let v = self.json(&v);
                serde_json::to_string_pretty(&v).unwrap_or_default()
            }
            Err(_) => self.text(&String::from_utf8_lossy(bytes)),
        }
    }

    /// The start of a body too long to show whole, cut as [`keep_for_transcript`] cut it,
    /// its text normalized. Its length is left out: it may change from run to run where the
    /// start does not, and a snapshot would differ for nothing.
    fn cut_body(&mut self, start: &[u8]) -> String {
        let text = String::from_utf8_lossy(start);
        self.register_volatile_lines(&text);
        format!(
            "{}\n… [the rest is not shown: a transcript shows the first {} bytes of this body]",
            self.text(&text),
            start.len()
        )
    }
}

/// `[today]`, `[today-13d]`, `[today+2d]` for a date near `today`; the date as it is
/// otherwise.
fn relative_date(text: &str, today: chrono::NaiveDate) -> String {
    let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") else {
        return text.to_string();
    };
    match (date - today).num_days() {
        0 => "[today]".to_string(),
        n if n.abs() <= RELATIVE_DAYS => format!("[today{n:+}d]"),
        _ => text.to_string(),
    }
}

/// The most of a response body a transcript shows, so a run's memory and its reports grow
/// by no more per exchange, whatever a target sends.
pub const SHOWN_BODY: usize = 64 * 1024;

/// The most of the body of a response that failed a transcript shows: its failures tell
/// what went wrong, and a hostile target's answers all fail.
pub const SHOWN_FAILED_BODY: usize = 1024;

/// The most body text all the transcripts of one run hold; once it is spent, bodies are
/// named, not shown, so memory stays flat however many exchanges a run has.
pub const TRANSCRIPT_BUDGET: usize = 32 * 1024 * 1024;

/// How much of a response body a transcript holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    Whole,
    /// Its first bytes.
    Start,
    /// None: the run's [`TRANSCRIPT_BUDGET`] was spent.
    Withheld,
}

/// Keeps of a response body what its transcript shows, once the body is judged: all of a
/// body up to `limit` bytes; of a longer one, the first `limit` bytes of its pretty-printed
/// JSON (`json`, when it is an object or an array) or of its bytes. The cut never falls
/// inside a secret `secrets` knows, nor inside a character.
pub fn keep_for_transcript(
    body: &mut Vec<u8>,
    json: Option<&Value>,
    limit: usize,
    secrets: &Redactor,
) -> Kept {
    if body.len() <= limit {
        return Kept::Whole;
    }
    let structured = json.filter(|v| v.is_object() || v.is_array());
    let mut start = match structured.and_then(|v| serde_json::to_string_pretty(v).ok()) {
        Some(pretty) => pretty.into_bytes(),
        None => std::mem::take(body),
    };
    let mut end = limit.min(start.len());
    // Half a secret would not be recognised, nor redacted, later.
    let around = String::from_utf8_lossy(&start[..(limit + 1024).min(start.len())]).into_owned();
    if let Some((span, _)) = secrets
        .find(&around)
        .into_iter()
        .find(|(span, _)| span.start < end && span.end > end)
    {
        end = span.start.min(end);
    }
    start.truncate(end);
    // A character cut in two is dropped; bytes that were never text stay as they are.
    if let Err(e) = std::str::from_utf8(&start)
        && e.error_len().is_none()
    {
        start.truncate(e.valid_up_to());
    }
    start.shrink_to_fit();
    *body = start;
    Kept::Start
}

/// Replaces each value `paths` select by its shape, for values that differ from run to run:
/// `"[number]"`, `"[string]"`, `"[array]"`, an object's keys with their values' shapes;
/// `null` and booleans stay as they are.
pub fn show_shapes(value: &mut Value, paths: &[serde_json_path::JsonPath]) {
    for path in paths {
        let pointers: Vec<String> = path
            .query_located(value)
            .locations()
            .map(|location| location.to_json_pointer())
            .collect();
        for pointer in pointers {
            if let Some(selected) = value.pointer_mut(&pointer) {
                *selected = shape(selected);
            }
        }
    }
}

fn shape(value: &Value) -> Value {
    match value {
        Value::Number(_) => Value::from("[number]"),
        Value::String(_) => Value::from("[string]"),
        Value::Array(_) => Value::from("[array]"),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
        plain => plain.clone(),
    }
}

fn is_unnumbered_secret(placeholder: &str) -> bool {
    placeholder.starts_with("[secret:") && !placeholder.contains('#')
}

/// One exchange as the transcript shows it.
pub struct Entry<'a> {
    pub label: &'a str,
    pub endpoint: &'a str,
    pub request: &'a Outgoing,
    pub response: Result<&'a Incoming, String>,
    /// Response headers worth showing: `content-type` and those the cassette expects.
    pub shown_headers: &'a [String],
    /// How much of the response body the response holds.
    pub response_kept: Kept,
    /// Events the exchange awaited, by type, with their envelopes as delivered.
    pub events: &'a [(String, Value)],
}

/// Appends one exchange to a transcript.
pub fn write_entry(out: &mut String, n: &mut Normalizer, entry: &Entry) {
    let path = path_and_query(&entry.request.url);
    let _ = writeln!(
        out,
        "## {} {}: {} {}",
        entry.label,
        entry.endpoint,
        entry.request.method,
        n.text(&path)
    );
    let mut headers: Vec<&(String, String)> = entry.request.headers.iter().collect();
    headers.sort();
    for (name, value) in headers {
        let _ = writeln!(out, "> {}: {}", name.to_ascii_lowercase(), n.text(value));
    }
    if let Some(body) = &entry.request.body {
        out.push_str(&n.body(body));
        out.push('\n');
    }
    out.push('\n');
    match &entry.response {
        Ok(response) => {
            let _ = writeln!(out, "< {}", response.status);
            for name in entry.shown_headers {
                if let Some(value) = response.header(name) {
                    let _ = writeln!(out, "< {}: {}", name.to_ascii_lowercase(), n.text(value));
                }
            }
            let body = match entry.response_kept {
                Kept::Whole => n.body(&response.body),
                Kept::Start => n.cut_body(&response.body),
                Kept::Withheld => format!(
                    "[body not shown: the run's transcripts hold {} MiB of bodies at most]",
                    TRANSCRIPT_BUDGET >> 20
                ),
            };
            if !body.is_empty() {
                out.push_str(&body);
                out.push('\n');
            }
        }
        Err(problem) => {
            let _ = writeln!(out, "< no response: {problem}");
        }
    }
    out.push('\n');
    for (event_type, envelope) in entry.events {
        let _ = writeln!(out, "<< event {}", n.text(event_type));
        let mut shown = serde_json::to_vec(envelope).unwrap_or_default();
        let kept = keep_for_transcript(
            &mut shown,
            Some(envelope),
            SHOWN_BODY,
            &Redactor::new(Vec::new()),
        );
        let text = match kept {
            Kept::Whole => {
                n.register_volatile(envelope);
                serde_json::to_string_pretty(&n.json(envelope)).unwrap_or_default()
            }
            _ => n.cut_body(&shown),
        };
        out.push_str(&text);
        out.push_str("\n\n");
    }
}

/// The part of a URL after the authority: what the transcript shows of where it went.
fn path_and_query(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    match after_scheme.find('/') {
        Some(i) => after_scheme[i..].to_string(),
        None => "/".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_near_the_run_are_written_relative_to_it_and_others_as_they_are() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 24).unwrap();
        assert_eq!(relative_date("2026-11-24", today), "[today]");
        assert_eq!(relative_date("2026-11-11", today), "[today-13d]");
        assert_eq!(relative_date("2026-11-26", today), "[today+2d]");
        assert_eq!(relative_date("2024-02-29", today), "2024-02-29");
        assert_eq!(relative_date("2024-02-30", today), "2024-02-30");
        let mut n = Normalizer::new(&[], &[], "run1");
        let yesterday = (chrono::Utc::now().date_naive() - chrono::Days::new(1)).to_string();
        assert_eq!(n.text(&format!("from {yesterday}")), "from [today-1d]");
    }

    #[test]
    fn a_body_too_long_to_show_whole_shows_its_start() {
        let mut n = Normalizer::new(&[], &[], "run1");
        let items: Vec<Value> = (0..20_000).map(|i| json!({"n": i})).collect();
        let json = Value::Array(items);
        let mut body = serde_json::to_vec(&json).unwrap();
        assert_eq!(
            keep_for_transcript(
                &mut body,
                Some(&json),
                SHOWN_BODY,
                &Redactor::new(Vec::new())
            ),
            Kept::Start
        );
        assert_eq!(body.len(), SHOWN_BODY);
        let shown = n.cut_body(&body);
        assert!(
            shown.starts_with("[\n  {\n    \"n\": 0\n  },"),
            "{shown:.40}"
        );
        assert!(shown.ends_with(
            "… [the rest is not shown: a transcript shows the first 65536 bytes of this body]"
        ));
        let mut small = b"{\"a\":1}".to_vec();
        assert_eq!(
            keep_for_transcript(&mut small, None, 8, &Redactor::new(Vec::new())),
            Kept::Whole
        );
        assert_eq!(n.body(&small), "{\n  \"a\": 1\n}");
    }

    #[test]
    fn a_cut_never_splits_a_secret_and_tokens_in_the_start_are_numbered() {
        let secret = "sk_live_0123456789abcdef";
        let secrets = Redactor::new(vec![(secret.to_string(), "[secret:key]".to_string())]);
        let mut body = format!(
            "{{\"a\": \"{}\", \"api_key\": \"{secret}\"}}",
            "x".repeat(990)
        )
        .into_bytes();
        assert_eq!(
            keep_for_transcript(&mut body, None, 1017, &secrets),
            Kept::Start
        );
        let kept = String::from_utf8(body).unwrap();
        assert!(
            kept.ends_with("\"api_key\": \""),
            "cut where the key starts: {kept}"
        );
        let json = json!({"refresh_token": "rt_0123456789", "pad": "y".repeat(2000)});
        let mut body = serde_json::to_vec(&json).unwrap();
        keep_for_transcript(&mut body, Some(&json), 1000, &secrets);
        let mut n = Normalizer::new(&[], &[], "run1");
        let shown = n.cut_body(&body);
        assert!(shown.contains("[refresh_token-1]"), "{shown:.200}");
        assert!(!shown.contains("rt_0123456789"));
    }

    #[test]
    fn volatile_values_are_shown_by_their_shape() {
        let mut body = serde_json::json!({
            "data": [
                {"steps": 8123, "source": {"provider": "garmin"}, "samples": [1, 2]},
                {"steps": 402, "source": {"provider": "garmin"}, "samples": []}
            ],
            "kept": 1
        });
        let paths = ["$.data[*].steps", "$.data[*].samples", "$.missing"]
            .map(|p| serde_json_path::JsonPath::parse(p).unwrap());
        show_shapes(&mut body, &paths);
        assert_eq!(
            body,
            serde_json::json!({
                "data": [
                    {"steps": "[number]", "source": {"provider": "garmin"}, "samples": "[array]"},
                    {"steps": "[number]", "source": {"provider": "garmin"}, "samples": "[array]"}
                ],
                "kept": 1
            })
        );
        let mut whole = serde_json::json!({"a": {"b": "x", "c": [1], "d": null}});
        show_shapes(
            &mut whole,
            &[serde_json_path::JsonPath::parse("$.a").unwrap()],
        );
        assert_eq!(
            whole,
            serde_json::json!({"a": {"b": "[string]", "c": "[array]", "d": null}})
        );
    }

    #[test]
    fn one_value_keeps_one_placeholder() {
        let secrets = vec![("sk_secret_1".to_string(), "{{credentials.key}}".to_string())];
        let named = vec![(
            "user_id".to_string(),
            json!("11111111-2222-3333-4444-555555555555"),
        )];
        let mut n = Normalizer::new(&secrets, &named, "run1");
        let v = n.json(&json!({
            "user_id": "11111111-2222-3333-4444-555555555555",
            "other": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
            "again": "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE",
            "key": "Bearer sk_secret_1",
            "at": "2026-11-21T10:00:00.123+00:00",
            "client": "patient-run1-17"
        }));
        assert_eq!(
            v,
            json!({
                "user_id": "[user_id]",
                "other": "[uuid-1]",
                "again": "[uuid-1]",
                "key": "Bearer {{credentials.key}}",
                "at": "[timestamp]",
                "client": "patient-[unique]"
            })
        );
    }
}
