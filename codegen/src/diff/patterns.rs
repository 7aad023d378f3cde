//! Whether one `@pattern` accepts only strings another accepts: a changed pattern that only
//! narrows tightens the constraint (clients' values may now be refused), one that only
//! widens loosens it, and only a pattern neither way is "changed" on both sides.
//!
//! Patterns match anywhere in the value, as the runtime's `regex::Regex::is_match` does, so
//! each is compiled to an unanchored DFA and the two are walked together over every byte,
//! with a third automaton that accepts only valid UTF-8 (no value is anything else): a
//! string the new pattern matches and the old does not exists exactly when some walk ends,
//! on valid UTF-8, with the new automaton having matched and the old one nowhere. Bounded:
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

/// The most states of a walk one comparison visits.
const MAX_PAIRS: usize = 50_000;
/// The largest automaton built for a pattern, in bytes.
const MAX_DFA_BYTES: usize = 2 << 20;

/// How the strings `new` accepts compare with those `old` accepts; `None` when either does
/// not compile or the comparison is past its bounds.
pub fn compare(old: &str, new: &str) -> Option<Order> {
    let (old, new) = (Dfa::new(old)?, Dfa::new(new)?);
    let utf8 = Dfa::new(r"^(?s:.)*$")?;
    let new_in_old = !new.accepts_what_other_refuses(&old, &utf8)?;
    let old_in_new = !old.accepts_what_other_refuses(&new, &utf8)?;
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

    /// Whether some string (valid UTF-8, as every value is) matches `self` and not `other`;
    /// `None` past the bounds. `utf8` accepts exactly the valid UTF-8 strings.
    fn accepts_what_other_refuses(&self, other: &Dfa, utf8: &Dfa) -> Option<bool> {
        // A walk: where `self` is (`None` once it has matched: every longer string holds that
        // match), where `other` is, and where the UTF-8 check is.
        type Walk = (Option<StateID>, StateID, StateID);
        let first: Walk = (Some(self.start), other.start, utf8.start);
        let mut seen: HashSet<Walk> = HashSet::from([first]);
        let mut queue = vec![first];
        while let Some((mine, theirs, valid)) = queue.pop() {
            // Once the other has matched, every longer string holds that match too.
            if other.dfa.is_match_state(theirs) || utf8.dfa.is_dead_state(valid) {
                continue;
            }
            let ends_matched = mine.is_none_or(|m| self.matches_at_end(m));
            if ends_matched && !other.matches_at_end(theirs) && utf8.matches_at_end(valid) {
                return Some(true);
            }
            let mine = match mine {
                // A match seen before this byte: every longer string holds it.
                Some(m) if self.dfa.is_match_state(m) => None,
                Some(m) if self.dfa.is_dead_state(m) => continue,
                other => other,
            };
            for byte in 0..=255u8 {
                let next = (
                    mine.map(|m| self.dfa.next_state(m, byte)),
                    other.dfa.next_state(theirs, byte),
                    utf8.dfa.next_state(valid, byte),
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
        // Only valid UTF-8 counts: `.` matches every character, so `^(?s).*$` every string.
        assert_eq!(compare("^(?s).*$", "^a"), Some(Order::Narrower));
        assert_eq!(compare("^é", "^(é|x)"), Some(Order::Wider));
    }
}
