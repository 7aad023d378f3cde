//! Limits and rate limits: the values a service bounds its inputs and calls by.

use super::*;

#[derive(Clone, Debug)]
pub struct Limit {
    pub name: String,
    pub doc: Option<String>,
    pub value: LimitValue,
    /// Endpoints, or `endpoint.param` inputs, the limit governs.
    pub applies_to: Vec<LimitTarget>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LimitValue {
    Quantity(Quantity),
    /// Stated by the constraints of the inputs it applies to.
    FromConstraints,
    NotShown(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct LimitTarget {
    pub endpoint: EndpointId,
    pub param: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    pub amount: f64,
    pub unit: String,
}

/// What a unit measures, so `60 seconds` and `1 minute` compare as one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Time,
    Size,
    Miles,
    Characters,
    Items,
}

impl Quantity {
    /// What the quantity measures and its amount in that dimension's base unit (seconds,
    /// bytes); `None` for a unit the language does not have.
    pub fn measure(&self) -> Option<(Dimension, f64)> {
        let (dimension, scale) = match self.unit.as_str() {
            "second" | "seconds" => (Dimension::Time, 1.0),
            "minute" | "minutes" => (Dimension::Time, 60.0),
            "hour" | "hours" => (Dimension::Time, 3600.0),
            "day" | "days" => (Dimension::Time, 86_400.0),
            "bytes" => (Dimension::Size, 1.0),
            "kibibytes" => (Dimension::Size, 1024.0),
            "mebibytes" => (Dimension::Size, 1024.0 * 1024.0),
            "miles" => (Dimension::Miles, 1.0),
            "characters" => (Dimension::Characters, 1.0),
            "items" => (Dimension::Items, 1.0),
            _ => return None,
        };
        Some((dimension, self.amount * scale))
    }

    /// How `self` compares with `other`; `None` when they measure different things. Bare
    /// counts (`20`, no unit) compare with each other.
    pub fn compare(&self, other: &Quantity) -> Option<std::cmp::Ordering> {
        if self.unit == other.unit {
            return self.amount.partial_cmp(&other.amount);
        }
        match (self.measure()?, other.measure()?) {
            ((a, x), (b, y)) if a == b => x.partial_cmp(&y),
            _ => None,
        }
    }
}

/// `20 seconds`, or a bare count: `20`.
impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.unit.is_empty() {
            write!(f, "{}", self.amount)
        } else {
            write!(f, "{} {}", self.amount, self.unit)
        }
    }
}

#[derive(Clone, Debug)]
pub struct RateLimit {
    pub name: String,
    pub doc: Option<String>,
    pub applies_to: Vec<EndpointId>,
    /// What the rate is counted per, e.g. `provider`.
    pub per: Option<String>,
    pub tiers: Vec<RateTier>,
    pub not_shown: Vec<String>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RateTier {
    pub doc: Option<String>,
    /// How many providers this tier covers; `None` for the default tier.
    pub providers: Option<u32>,
    /// At most this many at a time, with no time-based throttling.
    pub concurrent: Option<u32>,
    /// At most `count` per `window`.
    pub count: Option<u32>,
    pub window: Option<Quantity>,
    pub note: Option<String>,
    pub is_default: bool,
    /// The keys (of `per`) this tier governs, in spec order; the default tier governs every
    /// key no tier names.
    pub assigned: Vec<String>,
    /// Where the tier, and which keys it governs, comes from.
    pub provenance: Provenance,
}
