//! A field that may be absent, `null`, or a value.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Absent, null, or a value: the three states of an optional, nullable field.
///
/// Generated fields use `#[serde(default, skip_serializing_if = "Tristate::is_absent")]`, so
/// a missing key deserializes to `Absent` and `Absent` writes no key.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tristate<T> {
    /// The key is missing: in a PATCH body, "leave unchanged".
    #[default]
    Absent,
    /// The key is `null`: in a PATCH body, "clear".
    Null,
    /// The key has a value: in a PATCH body, "set".
    Value(T),
}

impl<T> Tristate<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Tristate::Absent)
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Tristate::Null)
    }

    pub fn value(&self) -> Option<&T> {
        match self {
            Tristate::Value(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_ref(&self) -> Tristate<&T> {
        match self {
            Tristate::Absent => Tristate::Absent,
            Tristate::Null => Tristate::Null,
            Tristate::Value(v) => Tristate::Value(v),
        }
    }

    /// The value, collapsing absent and null to `None`.
    pub fn into_option(self) -> Option<T> {
        match self {
            Tristate::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Applies the state to a stored nullable value: absent leaves it, null clears it,
    /// a value replaces it.
    pub fn apply_to(self, target: &mut Option<T>) {
        match self {
            Tristate::Absent => {}
            Tristate::Null => *target = None,
            Tristate::Value(v) => *target = Some(v),
        }
    }
}

impl<T> From<Option<T>> for Tristate<T> {
    /// `None` becomes `Null`: an `Option` that exists was sent.
    fn from(value: Option<T>) -> Self {
        match value {
            Some(v) => Tristate::Value(v),
            None => Tristate::Null,
        }
    }
}

impl<T: Serialize> Serialize for Tristate<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // Only reached when a caller forgot `skip_serializing_if`; null is the closest.
            Tristate::Absent | Tristate::Null => serializer.serialize_none(),
            Tristate::Value(v) => serializer.serialize_some(v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Tristate<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(deserializer)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Patch {
        #[serde(default, skip_serializing_if = "Tristate::is_absent")]
        end: Tristate<u32>,
    }

    #[test]
    fn three_states_round_trip_exactly() {
        for (json, state) in [
            ("{}", Tristate::Absent),
            (r#"{"end":null}"#, Tristate::Null),
            (r#"{"end":7}"#, Tristate::Value(7)),
        ] {
            let parsed: Patch = serde_json::from_str(json).unwrap();
            assert_eq!(parsed.end, state);
            assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
        }
    }

    #[test]
    fn apply_to_leaves_clears_or_sets() {
        let mut stored = Some(1);
        Tristate::Absent.apply_to(&mut stored);
        assert_eq!(stored, Some(1));
        Tristate::Value(2).apply_to(&mut stored);
        assert_eq!(stored, Some(2));
        Tristate::Null.apply_to(&mut stored);
        assert_eq!(stored, None);
    }
}
