//! The values a recorded session's answers made up (ids, tokens) that later requests use:
//! captured where they first appear and referred to after. Found and written in time linear
//! in the session, so a HAR file of 100,000 entries records in seconds: one automaton finds
//! every later mention of every value, another writes them as references.

use super::{Recorded, is_made_up, string_leaves};
use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A value the service made up, found in a response.
pub(super) struct Volatile {
    pub value: String,
    pub exchange: usize,
    pub path: String,
    pub name: String,
    /// The auth scheme whose credential this value is, where a tool hid it in later
    /// requests: the link token a response minted, sent hidden as `[Filtered]`.
    pub stands_for: Option<String>,
}

/// Every made-up value of the answers (`answers[i]` is exchange `i`'s) that a later request
/// mentions, in the order met, each under a name of its own.
pub(super) fn find(answers: &[Option<&Value>], requests: &[&Recorded]) -> Vec<Volatile> {
    let mut seen = HashSet::new();
    let mut candidates: Vec<(usize, String, String, String)> = Vec::new();
    for (i, answer) in answers.iter().enumerate() {
        let Some(body) = answer else {
            continue;
        };
        let mut leaves = Vec::new();
        string_leaves(body, "$", "value", &mut leaves);
        for (path, key, value) in leaves {
            if is_made_up(&key, &value) && seen.insert(value.clone()) {
                candidates.push((i, path, key, value));
            }
        }
    }
    let last_mention = last_mentions(&candidates, requests);
    let mut names = Names::default();
    candidates
        .into_iter()
        .zip(last_mention)
        .filter(|((exchange, ..), last)| last.is_some_and(|last| last > *exchange))
        .map(|((exchange, path, key, value), _)| Volatile {
            name: names.unique(&super::identifier(&key)),
            value,
            exchange,
            path,
            stands_for: None,
        })
        .collect()
}

/// For each candidate value, the last request that mentions it anywhere (path, query,
/// headers, body).
fn last_mentions(
    candidates: &[(usize, String, String, String)],
    requests: &[&Recorded],
) -> Vec<Option<usize>> {
    let mut last = vec![None; candidates.len()];
    let Ok(matcher) = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(candidates.iter().map(|(.., value)| value))
    else {
        return last;
    };
    for (j, request) in requests.iter().enumerate() {
        for found in matcher.find_overlapping_iter(&request_text(request)) {
            last[found.pattern().as_usize()] = Some(j);
        }
    }
    last
}

/// A request's text where a value may be mentioned, parts apart.
fn request_text(r: &Recorded) -> String {
    let mut text = r.path.clone();
    for (_, value) in r.query.iter().chain(&r.headers) {
        text.push('\0');
        text.push_str(value);
    }
    text.push('\0');
    text.push_str(&String::from_utf8_lossy(&r.body));
    text
}

/// Names handed out, each base counted, so the next unique one is found at once.
#[derive(Default)]
pub(super) struct Names {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Names {
    /// Names with these taken already.
    pub fn taking(taken: impl Iterator<Item = String>) -> Names {
        Names {
            taken: taken.collect(),
            next: HashMap::new(),
        }
    }

    /// An exchange's label: the endpoint, or `endpoint-2`, `endpoint-3`… after the first.
    pub fn unique_label(&mut self, endpoint: &str) -> String {
        if self.taken.insert(endpoint.to_string()) {
            return endpoint.to_string();
        }
        let n = self.next.entry(endpoint.to_string()).or_insert(2);
        loop {
            let label = format!("{endpoint}-{n}");
            *n += 1;
            if self.taken.insert(label.clone()) {
                return label;
            }
        }
    }

    /// `base`, or `base_2`, `base_3`… when the name is taken.
    pub fn unique(&mut self, base: &str) -> String {
        if self.taken.insert(base.to_string()) {
            return base.to_string();
        }
        let n = self.next.entry(base.to_string()).or_insert(2);
        loop {
            let name = format!("{base}_{n}");
            *n += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}

/// The volatiles of a session, indexed to write each exchange in time proportional to it.
pub(super) struct Index {
    list: Vec<Volatile>,
    by_value: HashMap<String, usize>,
    /// Over every value, leftmost-longest: the references a text is written with.
    matcher: Option<AhoCorasick>,
    by_exchange: HashMap<usize, Vec<usize>>,
    /// The volatiles that stand for a hidden credential: few, looked through for each.
    standing: Vec<usize>,
}

impl Index {
    pub fn new(list: Vec<Volatile>) -> Index {
        let by_value = list
            .iter()
            .enumerate()
            .map(|(i, v)| (v.value.clone(), i))
            .collect();
        let matcher = (!list.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(list.iter().map(|v| &v.value))
                    .ok()
            })
            .flatten();
        let mut by_exchange: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, v) in list.iter().enumerate() {
            by_exchange.entry(v.exchange).or_default().push(i);
        }
        let standing = (0..list.len())
            .filter(|i| list[*i].stands_for.is_some())
            .collect();
        Index {
            list,
            by_value,
            matcher,
            by_exchange,
            standing,
        }
    }

    /// The volatile an answer before `exchange` made up that is this whole text.
    pub fn earlier_whole(&self, text: &str, exchange: usize) -> Option<&Volatile> {
        let v = &self.list[*self.by_value.get(text)?];
        (v.exchange < exchange).then_some(v)
    }

    /// `text` with each value an answer before `exchange` made up written as its reference.
    pub fn fill(&self, text: &str, exchange: usize) -> String {
        let Some(matcher) = &self.matcher else {
            return text.to_string();
        };
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for found in matcher.find_iter(text) {
            let v = &self.list[found.pattern().as_usize()];
            if v.exchange >= exchange {
                continue;
            }
            out.push_str(&text[copied..found.start()]);
            out.push_str(&format!("{{{{{}}}}}", v.name));
            copied = found.end();
        }
        out.push_str(&text[copied..]);
        out
    }

    /// The latest volatile before `exchange` standing for `scheme`'s credential.
    pub fn minted_for(&self, scheme: &str, exchange: usize) -> Option<&Volatile> {
        self.standing
            .iter()
            .map(|i| &self.list[*i])
            .filter(|v| v.exchange < exchange && v.stands_for.as_deref() == Some(scheme))
            .max_by_key(|v| v.exchange)
    }

    /// The volatiles exchange `exchange`'s answer makes up: its captures.
    pub fn captured_at(&self, exchange: usize) -> impl Iterator<Item = &Volatile> {
        self.by_exchange
            .get(&exchange)
            .into_iter()
            .flatten()
            .map(|i| &self.list[*i])
    }
}
