//! Whether one `@pattern` accepts only strings another accepts: a changed pattern that only
//! narrows tightens the constraint (clients' values may now be refused), one that only
//! widens loosens it, and only a pattern neither way is "changed" on both sides.
//!
//! Patterns match anywhere in the value, as the runtime's `regex::Regex::is_match` does, so
//! each is compiled to an unanchored DFA and the two are walked together over every byte:
//! a string the new pattern matches and the old does not exists exactly when some walk
//! reaches a match of the new automaton while the old one has matched nowhere. Bounded:
//! patterns whose automata are too large, or walks too long, are answered "unknown".

use regex_automata::Anchored;
use regex_automata::dfa::{Automaton, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use std::collections::HashSet;

/// How the strings two patterns accept compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Same,
    /// The new pattern accepts a subset of the old one's strings.
    Narrower,
    Wider,
    /// Each accepts a string the other refuses.
    Neither,
}

/// The most state pairs one comparison visits.
const MAX_PAIRS: usize = 50_000;
/// The largest automaton built for a pattern, in bytes.
const MAX_DFA_BYTES: usize = 2 << 20;

/// How the strings `new` accepts compare with those `old` accepts; `None` when either does
/// not compile or the comparison is past its bounds.
pub fn compare(old: &str, new: &str) -> Option<Order> {
    let (old, new) = (Dfa::new(old)?, Dfa::new(new)?);
    let new_in_old = !new.accepts_what_other_refuses(&old)?;
    let old_in_new = !old.accepts_what_other_refuses(&new)?;
    Some(match (new_in_old, old_in_new) {
        (true, true) => Order::Same,
        (true, false) => Order::Narrower,
        (false, true) => Order::Wider,
        (false, false) => Order::Neither,
    })
}

struct Dfa {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Dfa {
    fn new(pattern: &str) -> Option<Dfa> {
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .dfa_size_limit(Some(MAX_DFA_BYTES))
                    .determinize_size_limit(Some(MAX_DFA_BYTES)),
            )
            .build(pattern)
            .ok()?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::No))
            .ok()?;
        Some(Dfa { dfa, start })
    }

    /// Whether a match has been seen by the time the walk is at `state` and the text ends.
    fn matches_at_end(&self, state: StateID) -> bool {
        self.dfa.is_match_state(state) || self.dfa.is_match_state(self.dfa.next_eoi_state(state))
    }

    /// Whether some string matches `self` and not `other`; `None` past the bounds.
    fn accepts_what_other_refuses(&self, other: &Dfa) -> Option<bool> {
        let mut seen = HashSet::new();
        let mut queue = vec![(self.start, other.start)];
        seen.insert((self.start, other.start));
        while let Some((mine, theirs)) = queue.pop() {
            // Once the other has matched, every longer string holds that match too.
            if other.dfa.is_match_state(theirs) {
                continue;
            }
            if self.matches_at_end(mine) && !other.matches_at_end(theirs) {
                return Some(true);
            }
            if self.dfa.is_dead_state(mine) {
                continue;
            }
            for byte in 0..=255u8 {
                let next = (
                    self.dfa.next_state(mine, byte),
                    other.dfa.next_state(theirs, byte),
                );
                if seen.insert(next) {
                    if seen.len() > MAX_PAIRS {
                        return None;
                    }
                    queue.push(next);
                }
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compare_by_the_strings_they_accept() {
        assert_eq!(compare("^[a-z]+$", "^[a-z]{1,8}$"), Some(Order::Narrower));
        assert_eq!(compare("^[a-z]{1,8}$", "^[a-z]+$"), Some(Order::Wider));
        assert_eq!(compare("^[0-9]+$", "^[a-z]+$"), Some(Order::Neither));
        assert_eq!(compare("^(a|b)$", "^[ab]$"), Some(Order::Same));
        // Unanchored: `abc` is found wherever `bc` is not necessarily, and not the reverse.
        assert_eq!(compare("bc", "abc"), Some(Order::Narrower));
        assert_eq!(compare("(", "a"), None);
    }
}
