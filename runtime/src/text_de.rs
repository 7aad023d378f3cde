//! Values written as text (query and path parameters, headers) deserialized as their type
//! asks: numbers and booleans parse from the text, a list takes every occurrence.

use serde::de::value::{BorrowedStrDeserializer, Error as DeError, SeqDeserializer};
use serde::de::{Deserializer, Error as _, IntoDeserializer, Unexpected, Visitor};

/// A parameter as text: each occurrence for a list, the last one for anything else; numbers
/// and booleans parse from it as the type asks.
#[derive(Clone, Copy)]
pub struct Text<'de>(pub &'de [&'de str]);

impl<'de> Text<'de> {
    fn last(self) -> &'de str {
        self.0.last().copied().unwrap_or_default()
    }

    fn invalid<V: Visitor<'de>>(self, visitor: &V) -> DeError {
        DeError::invalid_value(Unexpected::Str(self.last()), visitor)
    }
}

impl<'de> IntoDeserializer<'de, DeError> for Text<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

macro_rules! text_ints {
    ($($method:ident: $parse:ty => $visit:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            match self.last().parse::<$parse>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(self.invalid(&visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Text<'de> {
    type Error = DeError;

    /// Only a union asks for "any": the text reads as the first of integer, number, boolean
    /// and string it is, as the walk reads it.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        use crate::text::Scalar;
        match crate::text::parse_scalar(self.last()) {
            Scalar::Int(n) => visitor.visit_i64(n),
            Scalar::Number(n) => visitor.visit_f64(n),
            Scalar::Bool(b) => visitor.visit_bool(b),
            Scalar::Text(s) => visitor.visit_borrowed_str(s),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str(self.last())
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match crate::text::parse_bool(self.last()) {
            Some(b) => visitor.visit_bool(b),
            None => Err(self.invalid(&visitor)),
        }
    }

    text_ints!(
        deserialize_i8: i64 => visit_i64, deserialize_i16: i64 => visit_i64,
        deserialize_i32: i64 => visit_i64, deserialize_i64: i64 => visit_i64,
        deserialize_u8: u64 => visit_u64, deserialize_u16: u64 => visit_u64,
        deserialize_u32: u64 => visit_u64, deserialize_u64: u64 => visit_u64,
    );

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match crate::text::parse_number(self.last()) {
            Some(n) => visitor.visit_f64(n),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_bytes(self.last().as_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    /// A parameter that is there has a value: absence is the map entry's.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let items = self.0.iter().map(|raw| Text(std::slice::from_ref(raw)));
        visitor.visit_seq(SeqDeserializer::new(items))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        Err(DeError::invalid_type(
            Unexpected::Str(self.last()),
            &visitor,
        ))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_enum(BorrowedStrDeserializer::<DeError>::new(self.last()))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i128 u128 unit unit_struct tuple_struct
    }
}
