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

    pub fn is_value(&self) -> bool {
        matches!(self, Tristate::Value(_))
    }

    /// Converts the value, keeping absent and null.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Tristate<U> {
        match self {
            Tristate::Absent => Tristate::Absent,
            Tristate::Null => Tristate::Null,
            Tristate::Value(v) => Tristate::Value(f(v)),
        }
    }

    /// A reference to the dereferenced value: `Tristate<String>` reads as `Tristate<&str>`.
    pub fn as_deref(&self) -> Tristate<&T::Target>
    where
        T: std::ops::Deref,
    {
        self.as_ref().map(|v| &**v)
    }

    /// The value, or `default` when absent or null.
    pub fn unwrap_or(self, default: T) -> T {
        self.into_option().unwrap_or(default)
    }

    /// The double-option spelling serde users know: absent is `None`, null is `Some(None)`.
    pub fn into_nested(self) -> Option<Option<T>> {
        match self {
            Tristate::Absent => None,
            Tristate::Null => Some(None),
            Tristate::Value(v) => Some(Some(v)),
        }
    }

    /// Applies the state to a stored nullable value: absent leaves it, null clears it,
    /// a value replaces it.
    pub fn apply_to(self, target: &mut Option<T>) {
        self.apply_into(target);
    }

    /// [`Self::apply_to`] for a stored value of another type the value converts into.
    pub fn apply_into<U>(self, target: &mut Option<U>)
    where
        T: Into<U>,
    {
        self.apply_with(target, |t, v| *t = Some(v.into()), |t| *t = None);
    }

    /// Applies the state to any target, e.g. a row or an update statement: absent leaves
    /// it, null calls `clear`, a value calls `set`.
    pub fn apply_with<X: ?Sized>(
        self,
        target: &mut X,
        set: impl FnOnce(&mut X, T),
        clear: impl FnOnce(&mut X),
    ) {
        match self {
            Tristate::Absent => {}
            Tristate::Null => clear(target),
            Tristate::Value(v) => set(target, v),
        }
    }
}

impl<T> From<Option<Option<T>>> for Tristate<T> {
    /// The double-option spelling: `None` is absent, `Some(None)` is null.
    fn from(value: Option<Option<T>>) -> Self {
        match value {
            None => Tristate::Absent,
            Some(None) => Tristate::Null,
            Some(Some(v)) => Tristate::Value(v),
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
    fn helpers_keep_the_three_states() {
        let name: Tristate<String> = Tristate::Value("Ada".into());
        assert_eq!(name.as_deref(), Tristate::Value("Ada"));
        assert_eq!(name.clone().map(|n| n.len()), Tristate::Value(3));
        assert_eq!(Tristate::<u8>::Null.map(u32::from), Tristate::Null);
        assert_eq!(Tristate::<u8>::Absent.into_nested(), None);
        assert_eq!(Tristate::<u8>::Null.into_nested(), Some(None));
        assert_eq!(Tristate::from(Some(Some(4))), Tristate::Value(4));
        assert_eq!(Tristate::<u8>::Null.unwrap_or(9), 9);
        // Into another type, and into a target that is no Option at all.
        let mut stored: Option<u64> = Some(1);
        Tristate::Value(7u32).apply_into(&mut stored);
        assert_eq!(stored, Some(7));
        let mut column = String::from("kept");
        let set = |c: &mut String, v: String| *c = v;
        Tristate::Value("new".to_string()).apply_with(&mut column, set, String::clear);
        assert_eq!(column, "new");
        Tristate::Absent.apply_with(&mut column, set, String::clear);
        assert_eq!(column, "new");
        Tristate::Null.apply_with(&mut column, set, String::clear);
        assert_eq!(column, "");
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
