//! Strings with a format, parsed exactly as strictly as JSON Schema's `format` keyword
//! (RFC 3339 `full-date` and `date-time`, RFC 9562 hyphenated UUIDs), so that serde and the
//! emitted schemas accept and reject the same strings.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub expected: &'static str,
    pub found: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a valid {}", self.found, self.expected)
    }
}

impl std::error::Error for FormatError {}

fn error(expected: &'static str, found: &str) -> FormatError {
    FormatError {
        expected,
        found: found.chars().take(64).collect(),
    }
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub chrono::NaiveDate);

impl FromStr for Date {
    type Err = FormatError;
    fn from_str(s: &str) -> Result<Self, FormatError> {
        let b = s.as_bytes();
        let shape = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shape {
            return Err(error("date (YYYY-MM-DD)", s));
        }
        chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map(Date)
            .map_err(|_| error("date (YYYY-MM-DD)", s))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%d"))
    }
}

/// A date and time with an offset, RFC 3339.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateTime(pub chrono::DateTime<chrono::FixedOffset>);

impl FromStr for DateTime {
    type Err = FormatError;
    fn from_str(s: &str) -> Result<Self, FormatError> {
        const EXPECTED: &str = "date-time (RFC 3339, e.g. 2024-05-01T12:00:00Z)";
        // chrono also accepts a space between date and time; RFC 3339's date-time does not.
        let separator = s.as_bytes().get(10).copied();
        if !matches!(separator, Some(b'T' | b't'))
            || s.get(..10).and_then(|d| Date::from_str(d).ok()).is_none()
        {
            return Err(error(EXPECTED, s));
        }
        chrono::DateTime::parse_from_rfc3339(s)
            .map(DateTime)
            .map_err(|_| error(EXPECTED, s))
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
    }
}

/// A UUID in its hyphenated form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub uuid::Uuid);

impl Uuid {
    pub fn new_v4_from(bytes: [u8; 16]) -> Self {
        Uuid(uuid::Builder::from_random_bytes(bytes).into_uuid())
    }
}

impl FromStr for Uuid {
    type Err = FormatError;
    fn from_str(s: &str) -> Result<Self, FormatError> {
        // uuid also accepts braced, URN and unhyphenated forms; the JSON format does not.
        let b = s.as_bytes();
        let hyphens = [8, 13, 18, 23];
        let shape = b.len() == 36
            && b.iter().enumerate().all(|(i, c)| {
                if hyphens.contains(&i) {
                    *c == b'-'
                } else {
                    c.is_ascii_hexdigit()
                }
            });
        if !shape {
            return Err(error("uuid", s));
        }
        uuid::Uuid::parse_str(s)
            .map(Uuid)
            .map_err(|_| error("uuid", s))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.hyphenated())
    }
}

macro_rules! string_serde {
    ($($ty:ident),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}
string_serde!(Date, DateTime, Uuid);

/// Whether `s` is an e-mail address as JSON Schema's `email` format checks it.
pub(crate) fn is_email(s: &str) -> bool {
    email_address::EmailAddress::is_valid(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_strict() {
        assert!("2024-02-29".parse::<Date>().is_ok());
        for bad in [
            "2023-02-29",
            "2024-2-01",
            "+2024-02-01",
            "2024-02-01 ",
            "20240201",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad}");
        }
    }

    #[test]
    fn date_times_need_t_and_an_offset() {
        let dt: DateTime = "2024-05-01T12:00:00.5+02:00".parse().unwrap();
        assert_eq!(dt.to_string(), "2024-05-01T12:00:00.500+02:00");
        assert_eq!(
            "2024-05-01t12:00:00z"
                .parse::<DateTime>()
                .unwrap()
                .to_string(),
            "2024-05-01T12:00:00Z"
        );
        for bad in [
            "2024-05-01 12:00:00Z",
            "2024-05-01T12:00:00",
            "2024-05-01",
            "yesterday",
        ] {
            assert!(bad.parse::<DateTime>().is_err(), "{bad}");
        }
    }

    #[test]
    fn uuids_must_be_hyphenated() {
        let id: Uuid = "67E55044-10B1-426F-9247-BB680E5FE0C8".parse().unwrap();
        assert_eq!(id.to_string(), "67e55044-10b1-426f-9247-bb680e5fe0c8");
        for bad in [
            "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
            "67e5504410b1426f9247bb680e5fe0c8",
            "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
        ] {
            assert!(bad.parse::<Uuid>().is_err(), "{bad}");
        }
    }
}
