//! Personal data in recorded traffic: every value of a field the spec marks `@personal`
//! (a name, an e-mail address, a phone number, a birth date) is written as a stand-in of the
//! same shape, the same stand-in wherever the value appears, so a recording replays without
//! carrying a person's data.

use crate::contract::Contract;
use crate::secrets::marked_values;
use covenant_codegen::ir::{Primitive, Type};
use serde_json::Value;
use std::collections::HashMap;

/// Each personal value of the recorded requests with its stand-in.
#[derive(Debug, Default)]
pub struct StandIns {
    by_value: HashMap<String, String>,
}

impl StandIns {
    /// Learns the personal values of one request body sent to `endpoint`.
    pub fn learn(&mut self, contract: &Contract, endpoint: &str, body: &Value) {
        let Some(ty) = contract.request_body_type(endpoint) else {
            return;
        };
        let mut found = Vec::new();
        marked_values(&contract.spec, ty, body, &|f| f.personal, &mut found);
        for (field, value) in found {
            let item = match &field.ty {
                Type::List(item) => item.as_ref(),
                ty => ty,
            };
            self.by_value
                .entry(value.clone())
                .or_insert_with(|| stand_in(item, &value));
        }
    }

    /// The stand-in of a recorded string, when it is a personal value.
    pub fn get(&self, value: &str) -> Option<&str> {
        self.by_value.get(value).map(String::as_str)
    }
}

/// A value of the same shape that says nothing about anyone: dates and instants are the
/// epoch, letters become `x` (or `X`), digits `5`, everything else stays, so an e-mail
/// address stays one and a phone number keeps its `+`.
fn stand_in(ty: &Type, value: &str) -> String {
    match ty {
        Type::Primitive(Primitive::Date) => "1970-01-01".into(),
        Type::Primitive(Primitive::DateTime) => "1970-01-01T00:00:00Z".into(),
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
        assert_eq!(
            stand_in(&Type::Primitive(Primitive::Date), "1990-05-04"),
            "1970-01-01"
        );
    }
}
