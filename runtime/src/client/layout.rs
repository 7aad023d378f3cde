//! Laying a typed input out as a request: each field of the input struct goes to the path,
//! the query, a header or the body, as the endpoint's descriptor says. Serialized straight
//! from the typed input: parameters to text, the body to JSON bytes or form fields.

use crate::contract::TemplateValue;
use crate::desc::{BodyMedia, Encoding, EndpointDesc, Location, TypeDesc};
use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeStruct, Serializer};
use std::fmt;

/// A request's parts, before the base address and credentials are added.
#[derive(Debug, Default)]
pub struct Layout {
    /// The path with its placeholders filled in, still without the base address.
    pub path: String,
    /// Names are the parameters' own, or bracketed below them (`filter[status]`).
    pub query: Vec<(String, String)>,
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<Vec<u8>>,
    /// The body's `Content-Type`: its media type, with the boundary of a multipart body.
    pub content_type: Option<String>,
}

/// Why an input did not lay out.
#[derive(Debug)]
pub struct LayoutError(pub String);

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LayoutError {}

impl ser::Error for LayoutError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        LayoutError(msg.to_string())
    }
}

/// Lays `input` out for `endpoint`.
pub fn layout<I: Serialize, A, G>(
    endpoint: &EndpointDesc<A, G>,
    input: &I,
) -> Result<Layout, LayoutError> {
    let mut out = Layout::default();
    let mut path_values = Vec::new();
    input.serialize(InputWriter {
        endpoint_params: endpoint.params,
        body_media: endpoint.body_media,
        body_type: endpoint.body,
        path_values: &mut path_values,
        out: &mut out,
    })?;
    out.path = endpoint
        .path
        .fill(|name| {
            let (_, text) = path_values.iter().find(|(n, _)| *n == name)?;
            Some(TemplateValue::Text(text.as_str().into()))
        })
        .map_err(|e| LayoutError(e.to_string()))?;
    Ok(out)
}

struct InputWriter<'a> {
    endpoint_params: &'static [crate::desc::ParamDesc],
    body_media: BodyMedia,
    body_type: Option<&'static TypeDesc>,
    /// Path parameters' texts, filled into the template once every field is written.
    path_values: &'a mut Vec<(&'static str, String)>,
    out: &'a mut Layout,
}

impl InputWriter<'_> {
    fn place(&mut self, name: &'static str, texts: Vec<String>) -> Result<(), LayoutError> {
        let Some(param) = self.endpoint_params.iter().find(|p| p.field.name == name) else {
            return Err(LayoutError(format!(
                "the endpoint has no input named {name}"
            )));
        };
        match param.location {
            Location::Path => {
                let Some(text) = texts.last() else {
                    return Ok(());
                };
                self.path_values.push((name, text.clone()));
            }
            Location::Query => match param.field.encoding.separator() {
                Some(sep) if !texts.is_empty() => {
                    let joined = texts.join(&sep.to_string());
                    self.out.query.push((name.to_string(), joined));
                }
                _ => self
                    .out
                    .query
                    .extend(texts.into_iter().map(|t| (name.to_string(), t))),
            },
            Location::Header => self
                .out
                .headers
                .extend(texts.into_iter().map(|t| (name, t))),
        }
        Ok(())
    }
}

impl SerializeStruct for InputWriter<'_> {
    type Ok = ();
    type Error = LayoutError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), LayoutError> {
        if key == "body" {
            let media = self.body_media;
            let (content_type, bytes) = match media {
                BodyMedia::Json | BodyMedia::JsonAs(_) => (
                    media.content_type().to_string(),
                    serde_json::to_vec(value).map_err(|e| LayoutError(e.to_string()))?,
                ),
                BodyMedia::Form => (
                    media.content_type().to_string(),
                    form_body(self.body_type, value)?,
                ),
                BodyMedia::Multipart => multipart_body(self.body_type, value)?,
                BodyMedia::Raw(media) => (media.to_string(), raw_body(self.body_type, value)?),
                // A spec streams answers only (`check` refuses a streamed request body).
                BodyMedia::Stream(media) => {
                    let items = match serde_json::to_value(value) {
                        Ok(serde_json::Value::Array(items)) => items,
                        _ => return Err(LayoutError("a stream is a list".into())),
                    };
                    (
                        media.to_string(),
                        crate::streams::write_items(media, &items),
                    )
                }
            };
            self.out.content_type = Some(content_type);
            self.out.body = Some(bytes);
            return Ok(());
        }
        let deep = self.endpoint_params.iter().any(|p| {
            p.field.name == key
                && p.location == Location::Query
                && p.field.encoding == Encoding::Deep
        });
        if deep {
            let value = serde_json::to_value(value).map_err(|e| LayoutError(e.to_string()))?;
            let mut pairs = Vec::new();
            crate::text::text_pairs(key, &value, Encoding::Deep, &mut pairs);
            self.out.query.extend(pairs);
            return Ok(());
        }
        let texts = value.serialize(TextWriter)?;
        self.place(key, texts)
    }

    fn end(self) -> Result<(), LayoutError> {
        Ok(())
    }
}

/// A body as form fields, each written as its model's field says.
fn form_body<T: Serialize + ?Sized>(
    ty: Option<&TypeDesc>,
    value: &T,
) -> Result<Vec<u8>, LayoutError> {
    let encoding_of = |name: &str| ty.map_or(Encoding::Repeated, |ty| ty.field_encoding(name));
    match serde_json::to_value(value).map_err(|e| LayoutError(e.to_string()))? {
        serde_json::Value::Object(fields) => {
            Ok(crate::text::form_encode_with(&fields, encoding_of).into_bytes())
        }
        _ => Err(LayoutError("a form body is an object".into())),
    }
}

/// A body as parts: its `Content-Type` with the boundary, and the bytes.
fn multipart_body<T: Serialize + ?Sized>(
    ty: Option<&TypeDesc>,
    value: &T,
) -> Result<(String, Vec<u8>), LayoutError> {
    let json = serde_json::to_value(value).map_err(|e| LayoutError(e.to_string()))?;
    let ty = ty.unwrap_or(&TypeDesc::Object);
    let parts = crate::multipart::parts_of(&json, |name| crate::multipart::kind_in(ty, name))
        .map_err(LayoutError)?;
    Ok(crate::multipart::encode(&parts))
}

/// A body written as it is: the text, or the bytes (which serialize as base64).
fn raw_body<T: Serialize + ?Sized>(
    ty: Option<&TypeDesc>,
    value: &T,
) -> Result<Vec<u8>, LayoutError> {
    let json = serde_json::to_value(value).map_err(|e| LayoutError(e.to_string()))?;
    let serde_json::Value::String(text) = json else {
        return Err(LayoutError(
            "a body written as it is is text or bytes".into(),
        ));
    };
    match ty {
        Some(TypeDesc::Bytes) => crate::binary::Bytes::from_base64(&text)
            .map(crate::binary::Bytes::into_vec)
            .map_err(LayoutError),
        _ => Ok(text.into_bytes()),
    }
}

/// The serializer methods a writer does not support: each answers an error naming `what`.
macro_rules! unsupported {
    ($what:literal; $($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        fn $method(self, $(_: $ty),*) -> Result<Self::Ok, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
    )*};
}

macro_rules! unsupported_compounds {
    ($what:literal) => {
        type SerializeTuple = Impossible<Self::Ok, LayoutError>;
        type SerializeTupleStruct = Impossible<Self::Ok, LayoutError>;
        type SerializeTupleVariant = Impossible<Self::Ok, LayoutError>;
        type SerializeMap = Impossible<Self::Ok, LayoutError>;
        type SerializeStructVariant = Impossible<Self::Ok, LayoutError>;

        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, LayoutError> {
            Err(LayoutError(concat!("cannot lay out ", $what).into()))
        }
    };
}

impl<'a> Serializer for InputWriter<'a> {
    type Ok = ();
    type Error = LayoutError;
    type SerializeSeq = Impossible<(), LayoutError>;
    type SerializeStruct = Self;
    unsupported_compounds!("an input that is not a struct");
    unsupported!("an input that is not a struct";
        serialize_bool(v: bool), serialize_i8(v: i8), serialize_i16(v: i16),
        serialize_i32(v: i32), serialize_i64(v: i64), serialize_u8(v: u8),
        serialize_u16(v: u16), serialize_u32(v: u32), serialize_u64(v: u64),
        serialize_f32(v: f32), serialize_f64(v: f64), serialize_char(v: char),
        serialize_str(v: &str), serialize_bytes(v: &[u8]), serialize_none(),
        serialize_unit(), serialize_unit_struct(name: &'static str),
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), LayoutError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), LayoutError> {
        value.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, LayoutError> {
        Err(LayoutError(
            "cannot lay out an input that is not a struct".into(),
        ))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, LayoutError> {
        Ok(self)
    }
}

/// A parameter's value as text: one string per occurrence (none when absent, one per item
/// of a list).
struct TextWriter;

/// The items of a list parameter.
struct TextItems(Vec<String>);

impl SerializeSeq for TextItems {
    type Ok = Vec<String>;
    type Error = LayoutError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), LayoutError> {
        self.0.extend(value.serialize(TextWriter)?);
        Ok(())
    }

    fn end(self) -> Result<Vec<String>, LayoutError> {
        Ok(self.0)
    }
}

macro_rules! display_text {
    ($($method:ident: $ty:ty),* $(,)?) => {$(
        fn $method(self, v: $ty) -> Result<Vec<String>, LayoutError> {
            Ok(vec![v.to_string()])
        }
    )*};
}

impl Serializer for TextWriter {
    type Ok = Vec<String>;
    type Error = LayoutError;
    type SerializeSeq = TextItems;
    type SerializeStruct = Impossible<Vec<String>, LayoutError>;
    unsupported_compounds!("a parameter that is not text, a number, a boolean or a list");
    unsupported!("a parameter that is not text, a number, a boolean or a list";
        serialize_bytes(v: &[u8]), serialize_unit_struct(name: &'static str),
    );
    display_text!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_str: &str,
    );

    fn serialize_none(self) -> Result<Vec<String>, LayoutError> {
        Ok(Vec::new())
    }

    fn serialize_unit(self) -> Result<Vec<String>, LayoutError> {
        Ok(Vec::new())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Vec<String>, LayoutError> {
        value.serialize(self)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Vec<String>, LayoutError> {
        Ok(vec![variant.to_string()])
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Vec<String>, LayoutError> {
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<TextItems, LayoutError> {
        Ok(TextItems(Vec::with_capacity(len.unwrap_or(0))))
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, LayoutError> {
        Err(LayoutError(
            "cannot lay out a parameter that is an object".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::fixtures::{endpoint, param};
    use crate::desc::{ParamDesc, PathSegment, Presence, TypeDesc};

    static PARAMS: [ParamDesc; 4] = [
        param(Location::Path, "id", TypeDesc::String, Presence::Optional),
        param(
            Location::Query,
            "tag",
            TypeDesc::List(&TypeDesc::String),
            Presence::Optional,
        ),
        param(Location::Query, "limit", TypeDesc::Int, Presence::Optional),
        param(
            Location::Header,
            "x-trace",
            TypeDesc::String,
            Presence::Optional,
        ),
    ];
    static ENDPOINT: EndpointDesc<(), ()> = endpoint(
        http::Method::PATCH,
        "/items/{id}",
        &[PathSegment::Literal("items"), PathSegment::Param("id")],
        &PARAMS,
    );

    #[derive(serde::Serialize)]
    struct Input {
        id: String,
        tag: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<i64>,
        #[serde(rename = "x-trace")]
        trace: Option<String>,
        body: serde_json::Map<String, serde_json::Value>,
    }

    fn input(id: &str) -> Input {
        Input {
            id: id.to_string(),
            tag: vec!["a b".into(), "c".into()],
            limit: Some(5),
            trace: None,
            body: serde_json::Map::from_iter([("k".to_string(), 1.into())]),
        }
    }

    #[test]
    fn a_json_body_of_another_json_type_is_labelled_so() {
        let patch: EndpointDesc<(), ()> = EndpointDesc {
            body_media: BodyMedia::JsonAs("application/merge-patch+json"),
            ..endpoint(
                http::Method::PATCH,
                "/items/{id}",
                &[PathSegment::Literal("items"), PathSegment::Param("id")],
                &PARAMS,
            )
        };
        let out = layout(&patch, &input("x")).unwrap();
        assert_eq!(
            out.content_type.as_deref(),
            Some("application/merge-patch+json")
        );
        assert_eq!(out.body.as_deref(), Some(&br#"{"k":1}"#[..]));
    }

    #[test]
    fn each_field_goes_where_the_descriptor_says() {
        let out = layout(&ENDPOINT, &input("x/y é")).unwrap();
        assert_eq!(out.path, "/items/x%2Fy%20%C3%A9");
        let query: Vec<(&str, &str)> = out
            .query
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(query, [("tag", "a b"), ("tag", "c"), ("limit", "5")]);
        assert!(out.headers.is_empty(), "an absent header is not sent");
        assert_eq!(out.body.as_deref(), Some(&br#"{"k":1}"#[..]));
    }

    #[test]
    fn a_path_segment_that_would_change_the_route_is_refused() {
        for id in ["", ".", ".."] {
            let e = layout(&ENDPOINT, &input(id)).unwrap_err();
            assert!(e.0.contains("path parameter id"), "{e}");
        }
    }
}
