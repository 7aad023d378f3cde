//! Idempotency keys (`@idempotent(key: "Idempotency-Key")`): a request repeated with the key
//! of an earlier one, by the same caller, gets the earlier answer instead of running again,
//! so a client may retry a POST that timed out. The key of a request still running answers
//! 409; a key reused for another request answers 400.

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The header a replayed answer carries, as payment APIs name it.
pub const REPLAYED: &str = "idempotent-replayed";

/// One key, as the store sees it: whose it is, the key, and what the request was.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyedRequest {
    /// The caller: a digest of the credentials presented, so callers cannot share keys.
    pub caller: u64,
    pub endpoint: &'static str,
    pub key: String,
    /// A digest of the method, path, query and body: the same key with another request is
    /// a mistake, not a repeat.
    pub fingerprint: u64,
}

/// A finished answer, kept to be replayed.
#[derive(Clone, Debug)]
pub struct StoredResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl StoredResponse {
    /// The answer again, marked as a replay.
    pub fn replay(&self) -> Response {
        let mut response = (self.status, self.body.clone()).into_response();
        *response.headers_mut() = self.headers.clone();
        response.headers_mut().insert(
            HeaderName::from_static(REPLAYED),
            HeaderValue::from_static("true"),
        );
        response
    }
}

/// What a store says of a key when a request carrying it arrives.
#[derive(Debug)]
pub enum Claim {
    /// Unseen: the request runs, and its answer is given to [`IdempotencyStore::finish`].
    Fresh,
    /// Answered before: this is the answer.
    Replay(StoredResponse),
    /// The request that first carried the key is still running.
    InFlight,
    /// The key was first sent with another request.
    Mismatch,
}

/// Where answers to keyed requests are kept. The default keeps them in memory for a day,
/// which serves one process; several processes behind one address need a shared store.
pub trait IdempotencyStore: std::fmt::Debug + Send + Sync + 'static {
    fn claim(&self, request: &KeyedRequest) -> Claim;
    /// The answer of a claimed request. A 5xx is not kept: the request may be tried again.
    fn finish(&self, request: &KeyedRequest, response: StoredResponse);
    /// A claimed request ended without an answer worth keeping.
    fn release(&self, request: &KeyedRequest);
}

/// Keys in memory, each kept for `ttl` after it was first claimed, at most `capacity` of
/// them: past it the oldest are forgotten first.
#[derive(Debug)]
pub struct MemoryIdempotency {
    ttl: Duration,
    capacity: usize,
    state: Mutex<Kept>,
}

type Slot = (u64, &'static str, String);

/// The entries, and their slots in the order they were claimed, to expire from the front.
#[derive(Debug, Default)]
struct Kept {
    entries: HashMap<Slot, Entry>,
    order: VecDeque<(Instant, Slot)>,
}

impl Kept {
    /// Forgets what expired, and the oldest beyond `capacity`.
    fn trim(&mut self, now: Instant, ttl: Duration, capacity: usize) {
        while let Some((claimed, slot)) = self.order.front() {
            let expired = now.duration_since(*claimed) >= ttl;
            if !expired && self.entries.len() < capacity {
                break;
            }
            // A slot released and claimed again is queued twice: only its latest claim counts.
            if self
                .entries
                .get(slot)
                .is_some_and(|e| e.claimed == *claimed)
            {
                self.entries.remove(slot);
            }
            self.order.pop_front();
        }
    }
}

#[derive(Debug)]
struct Entry {
    fingerprint: u64,
    claimed: Instant,
    answer: Option<StoredResponse>,
}

impl MemoryIdempotency {
    pub fn new(ttl: Duration, capacity: usize) -> Self {
        MemoryIdempotency {
            ttl,
            capacity: capacity.max(1),
            state: Mutex::new(Kept::default()),
        }
    }

    fn slot(request: &KeyedRequest) -> Slot {
        (request.caller, request.endpoint, request.key.clone())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemoryIdempotency {
    /// A day, as payment APIs keep their keys; up to 100,000 of them.
    fn default() -> Self {
        MemoryIdempotency::new(Duration::from_secs(24 * 60 * 60), 100_000)
    }
}

impl IdempotencyStore for MemoryIdempotency {
    fn claim(&self, request: &KeyedRequest) -> Claim {
        let mut kept = self.state();
        let now = Instant::now();
        kept.trim(now, self.ttl, self.capacity);
        let slot = Self::slot(request);
        match kept.entries.get(&slot) {
            Some(e) if e.fingerprint != request.fingerprint => Claim::Mismatch,
            Some(Entry {
                answer: Some(answer),
                ..
            }) => Claim::Replay(answer.clone()),
            Some(_) => Claim::InFlight,
            None => {
                kept.order.push_back((now, slot.clone()));
                kept.entries.insert(
                    slot,
                    Entry {
                        fingerprint: request.fingerprint,
                        claimed: now,
                        answer: None,
                    },
                );
                Claim::Fresh
            }
        }
    }

    fn finish(&self, request: &KeyedRequest, response: StoredResponse) {
        if response.status.is_server_error() {
            return self.release(request);
        }
        if let Some(entry) = self.state().entries.get_mut(&Self::slot(request)) {
            entry.answer = Some(response);
        }
    }

    fn release(&self, request: &KeyedRequest) {
        self.state().entries.remove(&Self::slot(request));
    }
}

/// A digest of the parts of a request that make it this request.
pub fn fingerprint(method: &str, path_and_query: &str, body: Option<&[u8]>) -> u64 {
    let mut hasher = DefaultHasher::new();
    (method, path_and_query, body).hash(&mut hasher);
    hasher.finish()
}

/// A digest of the credentials a caller presented.
pub fn caller<'a>(credentials: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = DefaultHasher::new();
    for credential in credentials {
        credential.hash(&mut hasher);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(key: &str, fingerprint: u64) -> KeyedRequest {
        KeyedRequest {
            caller: 1,
            endpoint: "create",
            key: key.to_string(),
            fingerprint,
        }
    }

    fn answer(status: StatusCode) -> StoredResponse {
        StoredResponse {
            status,
            headers: HeaderMap::new(),
            body: Bytes::from_static(b"{}"),
        }
    }

    #[test]
    fn a_key_is_claimed_once_then_replayed_and_never_shared_across_requests() {
        let store = MemoryIdempotency::default();
        assert!(matches!(store.claim(&request("k", 1)), Claim::Fresh));
        assert!(matches!(store.claim(&request("k", 1)), Claim::InFlight));
        store.finish(&request("k", 1), answer(StatusCode::CREATED));
        let Claim::Replay(stored) = store.claim(&request("k", 1)) else {
            panic!("expected a replay");
        };
        assert_eq!(stored.replay().headers()[REPLAYED], "true");
        assert!(matches!(store.claim(&request("k", 2)), Claim::Mismatch));
        let other_caller = KeyedRequest {
            caller: 2,
            ..request("k", 2)
        };
        assert!(matches!(store.claim(&other_caller), Claim::Fresh));
    }

    #[test]
    fn past_its_capacity_the_store_forgets_the_oldest_keys() {
        let store = MemoryIdempotency::new(Duration::from_secs(60), 2);
        for key in ["a", "b", "c"] {
            assert!(matches!(store.claim(&request(key, 1)), Claim::Fresh));
            store.finish(&request(key, 1), answer(StatusCode::OK));
        }
        assert!(matches!(store.claim(&request("c", 1)), Claim::Replay(_)));
        assert!(
            matches!(store.claim(&request("a", 1)), Claim::Fresh),
            "forgotten"
        );
    }

    #[test]
    fn a_server_error_is_not_kept_and_keys_expire() {
        let store = MemoryIdempotency::new(Duration::from_millis(20), 10);
        assert!(matches!(store.claim(&request("k", 1)), Claim::Fresh));
        store.finish(&request("k", 1), answer(StatusCode::BAD_GATEWAY));
        assert!(matches!(store.claim(&request("k", 1)), Claim::Fresh));
        store.finish(&request("k", 1), answer(StatusCode::OK));
        std::thread::sleep(Duration::from_millis(30));
        assert!(matches!(store.claim(&request("k", 1)), Claim::Fresh));
    }
}
