//! What a process keeps of the database between reads: a bounded map whose entries are all
//! dropped at once when the database may have changed them. A read takes a [`Ticket`] before
//! it begins; what it read is kept only if nothing was dropped meanwhile, so a read that
//! raced a change cannot put back what the change made stale.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

pub struct Kept<K, V> {
    state: Mutex<Entries<K, V>>,
    /// The most entries kept; beyond it the map starts over.
    max_entries: usize,
}

struct Entries<K, V> {
    /// Moves on each time the entries are dropped.
    generation: u64,
    map: HashMap<K, V>,
    /// While set, nothing is kept nor answered: the process cannot hear of changes.
    suspended: bool,
}

/// The generation a read began under.
#[derive(Clone, Copy, Debug)]
pub struct Ticket(u64);

impl<K: Eq + Hash, V: Clone> Kept<K, V> {
    pub fn new(max_entries: usize) -> Self {
        Kept {
            state: Mutex::new(Entries {
                generation: 0,
                map: HashMap::new(),
                suspended: false,
            }),
            max_entries,
        }
    }

    pub fn ticket(&self) -> Ticket {
        Ticket(self.lock().generation)
    }

    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        let state = self.lock();
        match state.suspended {
            true => None,
            false => state.map.get(key).cloned(),
        }
    }

    /// Keeps what a read found, unless entries were dropped since it took `began`.
    pub fn keep(&self, began: Ticket, key: K, value: V) {
        let mut state = self.lock();
        if state.generation != began.0 || state.suspended {
            return;
        }
        if state.map.len() >= self.max_entries {
            state.map.clear();
        }
        state.map.insert(key, value);
    }

    /// The database may have changed any entry: drop them all.
    pub fn clear(&self) {
        let mut state = self.lock();
        state.map.clear();
        state.generation += 1;
    }

    /// Stops keeping and answering, and drops what was kept: changes may now go unheard.
    pub fn suspend(&self) {
        let mut state = self.lock();
        state.suspended = true;
        state.map.clear();
        state.generation += 1;
    }

    /// Keeps and answers again, from nothing: every change is heard from now on.
    pub fn resume(&self) {
        let mut state = self.lock();
        state.suspended = false;
        state.map.clear();
        state.generation += 1;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<K, V>> {
        // A panic while holding the lock leaves a plain map behind: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_drops_what_was_kept_and_a_read_from_before_it_keeps_nothing() {
        let kept: Kept<String, u32> = Kept::new(10);
        kept.keep(kept.ticket(), "a".to_string(), 1);
        assert_eq!(kept.get("a"), Some(1));
        let began = kept.ticket();
        kept.clear();
        assert_eq!(kept.get("a"), None);
        kept.keep(began, "a".to_string(), 2);
        assert_eq!(kept.get("a"), None);
    }

    #[test]
    fn a_suspended_map_keeps_and_answers_nothing_and_resumes_empty() {
        let kept: Kept<String, u32> = Kept::new(10);
        kept.keep(kept.ticket(), "a".to_string(), 1);
        let began = kept.ticket();
        kept.suspend();
        assert_eq!(kept.get("a"), None);
        kept.keep(kept.ticket(), "b".to_string(), 2);
        assert_eq!(kept.get("b"), None);
        let during = kept.ticket();
        kept.resume();
        kept.keep(began, "a".to_string(), 3);
        kept.keep(during, "b".to_string(), 4);
        assert_eq!((kept.get("a"), kept.get("b")), (None, None));
        kept.keep(kept.ticket(), "c".to_string(), 5);
        assert_eq!(kept.get("c"), Some(5));
    }

    #[test]
    fn the_map_starts_over_beyond_its_bound() {
        let kept: Kept<u32, u32> = Kept::new(2);
        for n in 0..3 {
            kept.keep(kept.ticket(), n, n);
        }
        assert_eq!((kept.get(&0), kept.get(&2)), (None, Some(2)));
    }
}
