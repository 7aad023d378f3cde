//! Personal data in recorded traffic: every value of a field the spec marks `@personal`
//! (a name, an e-mail address, a phone number, a birth date) is written as a stand-in of the
//! same shape, valid where the value was and invalid where it was not, so a recording replays
//! without carrying a person's data and tests what it tested. A name or an address is
//! replaced wherever a string is that value; a date or a short value only under the key of
//! a personal field, so `1990-05-04` sent as a birth date does not turn an unrelated
//! `ingestion_end` of the same day into the epoch.

use crate::contract::Contract;
use crate::secrets::marked_values;
use covenant_codegen::ir::{Primitive, Type};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Each personal value of the recorded requests with its stand-in.
#[derive(Debug, Default)]
pub struct StandIns {
    by_value: HashMap<String, StandIn>,
    /// The names of the personal fields values were learnt under.
    personal_fields: HashSet<String>,
}

#[derive(Debug)]
struct StandIn {
    text: String,
    /// Replaced under any key, not only under the key of a personal field: a name or an
    /// address of four characters or more with a letter in it. A date (an unrelated
    /// `ingestion_end` of the same day would become the epoch) or a short value (a fuzzer's
    /// `0` is also an index of a 422's `loc`) is replaced only under a personal key.
    anywhere: bool,
}

impl StandIns {
    /// Learns the personal values of a request body sent to `endpoint` and of the answer
    /// with `status`, each by its declared type.
    pub fn learn(&mut self, contract: &Contract, endpoint: &str, request: &Value) {
        if let Some(ty) = contract.request_body_type(endpoint) {
            self.learn_typed(contract, ty, request);
        }
    }

    /// Learns the personal values of an answer of `endpoint` with `status`.
    pub fn learn_answer(&mut self, contract: &Contract, endpoint: &str, status: u16, body: &Value) {
        if let Some(ty) = contract.response_body_type(endpoint, status) {
            self.learn_typed(contract, ty, body);
        }
    }

    fn learn_typed(&mut self, contract: &Contract, ty: &Type, body: &Value) {
        let mut found = Vec::new();
        marked_values(&contract.spec, ty, body, &|f| f.personal, &mut found);
        for (field, value) in found {
            let item = match &field.ty {
                Type::List(item, _) => item.as_ref(),
                ty => ty,
            };
            self.personal_fields.insert(field.name.clone());
            let date = matches!(item, Type::Primitive(Primitive::Date | Primitive::DateTime));
            // Under a person's address the key is the model's (`zip`), not the marked
            // field's: its values are replaced wherever a string is one, but the shortest.
            let in_model = matches!(item, Type::Model(_));
            let length = value.chars().count();
            let anywhere = !date
                && ((length >= 4 && value.chars().any(char::is_alphabetic))
                    || (in_model && length >= 3));
            self.by_value
                .entry(value.clone())
                .or_insert_with(|| StandIn {
                    text: stand_in(item, &value),
                    anywhere,
                });
        }
    }

    /// The stand-in of a whole recorded string under `key`, when it is a personal value
    /// there.
    pub fn get(&self, key: &str, value: &str) -> Option<&str> {
        self.by_value
            .get(value)
            .filter(|s| s.anywhere || self.personal_fields.contains(key))
            .map(|s| s.text.as_str())
    }
}

/// A value of the same shape that says nothing about anyone: valid dates and instants are
/// the epoch, letters become `x` (or `X`), digits `5`, everything else stays, so an e-mail
/// address stays one, a phone number keeps its `+`, and a malformed date stays malformed.
fn stand_in(ty: &Type, value: &str) -> String {
    let valid_date = || chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok();
    let valid_instant = || chrono::DateTime::parse_from_rfc3339(value).is_ok();
    match ty {
        Type::Primitive(Primitive::Date) if valid_date() => "1970-01-01".into(),
        Type::Primitive(Primitive::DateTime) if valid_instant() => "1970-01-01T00:00:00Z".into(),
        _ => value
            .chars()
            .map(|c| match c {
                'a'..='z' => 'x',
                'A'..='Z' => 'X',
                '0'..='9' => '5',
                other => other,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_keep_the_shape() {
        let text = Type::Primitive(Primitive::String);
        assert_eq!(stand_in(&text, "Jane.Doe@corp.com"), "Xxxx.Xxx@xxxx.xxx");
        assert_eq!(stand_in(&text, "+1 415 555 0100"), "+5 555 555 5555");
        let date = Type::Primitive(Primitive::Date);
        assert_eq!(stand_in(&date, "1990-05-04"), "1970-01-01");
        // A malformed date stays malformed: the recorded 422 still follows.
        assert_eq!(stand_in(&date, "1990-02-30"), "5555-55-55");
    }
}
