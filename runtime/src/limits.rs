//! Limits a spec states, as generated code carries them: a service reads its rates and
//! bounds from the spec rather than keeping a copy that could drift.

use std::time::Duration;

/// A rate a service applies per key (per provider, per team, …), in tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    pub name: &'static str,
    /// What the rate is counted per, e.g. `provider`.
    pub per: Option<&'static str>,
    pub tiers: &'static [RateTier],
}

/// One tier: the keys it governs and their rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateTier {
    /// The keys this tier governs; the default tier governs every key no other names.
    pub assigned: &'static [&'static str],
    pub is_default: bool,
    pub rate: Rate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// At most this many at a time, with no time-based throttling.
    Concurrent(u32),
    /// At most `count` within any `window`.
    Windowed { count: u32, window: Duration },
}

impl RateLimit {
    /// The tier that governs `key`: the one that names it, else the default; `None` when
    /// neither does (the key is not limited).
    pub fn tier_for(&self, key: &str) -> Option<&'static RateTier> {
        self.tiers
            .iter()
            .find(|tier| tier.assigned.contains(&key))
            .or_else(|| self.tiers.iter().find(|tier| tier.is_default))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LIMIT: RateLimit = RateLimit {
        name: "pulls",
        per: Some("provider"),
        tiers: &[
            RateTier {
                assigned: &["oura", "whoop"],
                is_default: false,
                rate: Rate::Concurrent(250),
            },
            RateTier {
                assigned: &[],
                is_default: true,
                rate: Rate::Windowed {
                    count: 8,
                    window: Duration::from_secs(60),
                },
            },
        ],
    };

    #[test]
    fn a_named_key_has_its_tier_and_others_the_default() {
        assert_eq!(LIMIT.tier_for("whoop").unwrap().rate, Rate::Concurrent(250));
        assert!(LIMIT.tier_for("fitbit").unwrap().is_default);
    }
}
