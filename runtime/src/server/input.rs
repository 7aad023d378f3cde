//! Reading a request's inputs into the endpoint's typed input. The happy path deserializes
//! parameters from their text and the body from its bytes straight into the input type, then
//! runs its generated `validate()`; only a request that does not deserialize takes the slow
//! walk over JSON values that names every problem.

use crate::deep;
use crate::desc::{Encoding, EndpointDesc, FieldDesc, TypeDesc};
use crate::issue::{Issue, IssueKind, LocPart};
use crate::text_de::Text;
use crate::validate::Validate;
use crate::walk;
use axum::http::request::Parts;
use serde::de::value::{Error as DeError, MapDeserializer};
use serde::de::{Deserializer, Error as _, IntoDeserializer, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The raw inputs of one request: each parameter's occurrences as text, and the body.
pub struct RawInputs<'a> {
    params: Vec<(&'static str, Vec<&'a str>)>,
    /// `None` when the request has no body, or only white space.
    body: Option<&'a [u8]>,
    /// A form body's fields, each with its occurrences, for an endpoint whose body is a form.
    form: Option<Vec<(String, Vec<String>)>>,
    /// A body already read into JSON, with the parts that did not read: a multipart body,
    /// or a JSON body whose integral numbers were rewritten as integers.
    read_body: Option<(Value, Vec<Issue>)>,
    /// The body is read as it is (text or bytes), not as JSON.
    raw: bool,
    /// A form field of one value was sent more than once: the typed reader stops, and
    /// [`RawInputs::explain`] names it.
    form_repeats: bool,
    /// Query parameters written in brackets (`@style(deep)`), read into JSON by their type,
    /// with what did not read.
    deep: Vec<(&'static str, Value, Vec<Issue>)>,
}

/// A form body's fields in order of first appearance, each with every value it was given.
fn form_fields(bytes: &[u8]) -> Vec<(String, Vec<String>)> {
    let mut fields: indexmap::IndexMap<String, Vec<String>> = indexmap::IndexMap::new();
    for (name, value) in form_urlencoded::parse(bytes) {
        fields
            .entry(name.into_owned())
            .or_default()
            .push(value.into_owned());
    }
    fields.into_iter().collect()
}

/// The items of a list written joined (`ids=1,2`), split; as they are when written
/// repeated. An empty value is an empty list.
fn split_items<'a>(encoding: Encoding, sent: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    match encoding.separator() {
        Some(sep) => sent
            .filter(|v| !v.is_empty())
            .flat_map(|v| v.split(sep))
            .collect(),
        None => sent.collect(),
    }
}

/// A query parameter written in brackets (`filter[status]=open`), read by its type: `None`
/// when it was not sent.
fn deep_param(
    field: &'static FieldDesc,
    query: &[(Cow<'_, str>, Cow<'_, str>)],
) -> Option<(&'static str, Value, Vec<Issue>)> {
    let mut node = deep::Node::new();
    let mut sent = false;
    let mut issues = Vec::new();
    let mut loc = vec![LocPart::key("query"), LocPart::key(field.name)];
    for (key, value) in query {
        let keys = match deep::split_key(key) {
            Some((name, keys)) if name == field.name => keys,
            _ if key == field.name => Vec::new(),
            _ => continue,
        };
        sent = true;
        if keys.len() > deep::MAX_KEYS {
            issues.push(deep::too_deep(&loc));
            continue;
        }
        node.insert(&keys, value);
    }
    if !sent {
        return None;
    }
    let value = deep::read(&field.ty, &node, false, &mut loc, &mut issues);
    Some((field.name, value.unwrap_or(Value::Null), issues))
}

/// Splits the values of form fields declared joined (`@style(comma)`) into their items.
fn split_form_items(ty: &TypeDesc, fields: &mut [(String, Vec<String>)]) {
    for f in ty
        .model_fields()
        .iter()
        .filter(|f| f.encoding.separator().is_some())
    {
        if let Some((_, values)) = fields.iter_mut().find(|(name, _)| name == f.name) {
            let joined = std::mem::take(values);
            let items = split_items(f.encoding, joined.iter().map(String::as_str));
            *values = items.into_iter().map(str::to_string).collect();
        }
    }
}

/// Whether a form writes some field in brackets (`items[0][price]`), as a field of its
/// model that holds a list or an object is written.
fn in_brackets(ty: &TypeDesc, fields: &[(String, Vec<String>)]) -> bool {
    let declared = ty.model_fields();
    fields.iter().any(|(name, _)| {
        deep::split_key(name).is_some() && !declared.iter().any(|f| f.name == name)
    })
}

/// A form with fields in brackets, read into JSON by the body's model.
fn deep_form(ty: &'static TypeDesc, fields: &[(String, Vec<String>)]) -> (Value, Vec<Issue>) {
    let mut node = deep::Node::new();
    let mut issues = Vec::new();
    let mut loc = vec![LocPart::key("body")];
    for (key, values) in fields {
        let (name, keys) = deep::split_key(key).unwrap_or((key.as_str(), Vec::new()));
        if keys.len() > deep::MAX_KEYS {
            loc.push(LocPart::Key(name.to_string().into()));
            issues.push(deep::too_deep(&loc));
            loc.pop();
            continue;
        }
        let mut path = vec![name];
        path.extend(keys);
        for value in values {
            node.insert(&path, value);
        }
    }
    let value = deep::read(ty, &node, true, &mut loc, &mut issues);
    (value.unwrap_or(Value::Null), issues)
}

impl<'a> RawInputs<'a> {
    /// Gathers the inputs an endpoint declares from the matched path (`path` answers a
    /// placeholder's value), the query pairs, the headers and the body.
    pub fn gather<A, G>(
        endpoint: &EndpointDesc<A, G>,
        path: impl Fn(&str) -> Option<&'a str>,
        query: &'a [(Cow<'a, str>, Cow<'a, str>)],
        parts: &'a Parts,
        body: Option<&'a [u8]>,
    ) -> Self {
        use crate::desc::Location;
        let mut deep = Vec::new();
        let params = endpoint
            .params
            .iter()
            .map(|p| {
                let name = p.field.name;
                let raws: Vec<&'a str> = match p.location {
                    Location::Path => path(name).into_iter().collect(),
                    Location::Query if p.field.encoding == Encoding::Deep => {
                        deep.extend(deep_param(&p.field, query));
                        Vec::new()
                    }
                    Location::Query => {
                        let sent = query.iter().filter(|(k, _)| k == name);
                        split_items(p.field.encoding, sent.map(|(_, v)| v.as_ref()))
                    }
                    Location::Header => parts
                        .headers
                        .get_all(name)
                        .iter()
                        .filter_map(|v| v.to_str().ok())
                        .collect(),
                };
                (name, raws)
            })
            .collect();
        let raw = endpoint.body_media.is_raw();
        // Text or bytes are the body whatever they hold, white space or nothing.
        let body = body.filter(|b| raw || !b.iter().all(u8::is_ascii_whitespace));
        let mut form = (endpoint.body_media == crate::desc::BodyMedia::Form)
            .then(|| form_fields(body.unwrap_or_default()));
        let mut read_body = None;
        if let (Some(fields), Some(ty)) = (&mut form, endpoint.body) {
            split_form_items(ty, fields);
            if in_brackets(ty, fields) {
                read_body = Some(deep_form(ty, fields));
                form = None;
            }
        }
        let form_repeats = match (&form, endpoint.body) {
            (Some(fields), Some(ty)) => walk::repeated_form_scalars(ty, fields).next().is_some(),
            _ => false,
        };
        RawInputs {
            params,
            body,
            form,
            read_body,
            raw,
            form_repeats,
            deep,
        }
    }

    /// Gives a multipart body, read by [`crate::multipart`] into its JSON form.
    pub fn with_multipart(mut self, body: (Value, Vec<Issue>)) -> Self {
        self.read_body = Some(body);
        self
    }

    /// The typed input, or the serde error that stopped it.
    pub fn deserialize<I: serde::de::DeserializeOwned>(&self) -> Result<I, DeError> {
        if self.form_repeats {
            return Err(DeError::custom(
                "a form field of one value was sent more than once",
            ));
        }
        let form: Option<Vec<(&str, Vec<&str>)>> = self.form.as_ref().map(|fields| {
            fields
                .iter()
                .map(|(name, values)| (name.as_str(), values.iter().map(String::as_str).collect()))
                .collect()
        });
        let body = match (&form, &self.read_body) {
            (Some(fields), _) => Some(InputValue::Form(fields)),
            (None, Some((_, issues))) if !issues.is_empty() => {
                return Err(DeError::custom("a part of the body did not read"));
            }
            (None, Some((value, _))) => Some(InputValue::Json(value)),
            (None, None) if self.raw => self.body.map(InputValue::Raw),
            (None, None) => self.body.map(InputValue::Body),
        };
        if self.deep.iter().any(|(_, _, issues)| !issues.is_empty()) {
            return Err(DeError::custom("a parameter in brackets did not read"));
        }
        let entries = self
            .params
            .iter()
            .filter(|(_, raws)| !raws.is_empty())
            .map(|(name, raws)| (*name, InputValue::Text(raws)))
            .chain(
                self.deep
                    .iter()
                    .map(|(name, value, _)| (*name, InputValue::Json(value))),
            )
            .chain(body.map(|b| ("body", b)));
        I::deserialize(MapDeserializer::new(entries))
    }

    /// These inputs with a JSON body's integral numbers (`1290.0`) written as integers where
    /// the endpoint takes an integer; `None` when there are none. The typed reader refuses
    /// them, JSON Schema does not.
    fn with_integers<A, G>(&self, endpoint: &EndpointDesc<A, G>) -> Option<RawInputs<'a>> {
        let (Some(bytes), Some(ty), None, None, false) = (
            self.body,
            endpoint.body,
            &self.form,
            &self.read_body,
            self.raw,
        ) else {
            return None;
        };
        let mut value: Value = serde_json::from_slice(bytes).ok()?;
        walk::integers_from_integral_numbers(ty, &mut value).then(|| RawInputs {
            params: self.params.clone(),
            body: self.body,
            form: None,
            read_body: Some((value, Vec::new())),
            raw: false,
            form_repeats: false,
            deep: self.deep.clone(),
        })
    }

    /// Every problem of inputs that did not deserialize, found by walking the endpoint's
    /// descriptors over them as JSON values.
    pub fn explain<A, G>(&self, endpoint: &EndpointDesc<A, G>) -> Vec<Issue> {
        let mut inputs = Map::new();
        let mut issues = Vec::new();
        // Inputs already reported as unreadable, so the walk does not also call them missing.
        let mut unreadable: Vec<Vec<LocPart>> = Vec::new();
        for (p, (_, raws)) in endpoint.params.iter().zip(&self.params) {
            if raws.is_empty() {
                continue;
            }
            let loc = [
                LocPart::key(p.location.as_str()),
                LocPart::key(p.field.name),
            ];
            match walk::coerce_param(&p.field.ty, raws, &loc) {
                Ok(v) => drop(inputs.insert(p.field.name.to_string(), v)),
                Err(issue) => {
                    unreadable.push(loc.to_vec());
                    issues.push(issue);
                }
            }
        }
        for (name, value, problems) in &self.deep {
            inputs.insert(name.to_string(), value.clone());
            unreadable.extend(problems.iter().map(|p| p.loc.clone()));
            issues.extend(problems.iter().cloned());
        }
        if let Some((value, problems)) = &self.read_body {
            // `null`: no multipart body at all, already reported.
            if !value.is_null() {
                inputs.insert("body".to_string(), value.clone());
            }
            unreadable.extend(problems.iter().map(|p| p.loc.clone()));
            issues.extend(problems.iter().cloned());
        } else if self.raw {
            if let (Some(bytes), Some(crate::desc::TypeDesc::String)) = (self.body, endpoint.body)
                && let Err(e) = std::str::from_utf8(bytes)
            {
                let msg = format!("The body is not UTF-8 text: {e}");
                issues.push(Issue::new(
                    &[LocPart::key("body")],
                    IssueKind::StringType,
                    msg,
                ));
            }
        } else if let (Some(fields), Some(ty)) = (&self.form, endpoint.body) {
            let (body, problems) = walk::coerce_form(ty, fields);
            inputs.insert("body".to_string(), body);
            // A field whose text did not read is not also missing.
            unreadable.extend(problems.iter().map(|p| p.loc.clone()));
            issues.extend(problems);
        } else if let Some(bytes) = self.body {
            match serde_json::from_slice::<Value>(bytes) {
                Ok(v) => drop(inputs.insert("body".to_string(), v)),
                Err(e) => {
                    unreadable.push(vec![LocPart::key("body")]);
                    issues.push(json_error(bytes, &e));
                }
            }
        }
        let unreadable_names: Vec<&str> = unreadable
            .iter()
            .filter_map(|loc| match loc.last() {
                Some(LocPart::Key(name)) => Some(name.as_ref()),
                _ => None,
            })
            .collect();
        let body_present = self.body.is_some() || self.form.is_some() || self.read_body.is_some();
        let checked = walk::check_inputs(endpoint, &inputs, body_present, &unreadable_names);
        issues.extend(
            checked
                .into_iter()
                .filter(|i| !(i.kind == IssueKind::Missing && unreadable.contains(&i.loc))),
        );
        issues
    }
}

/// Reads the typed input of a request, or every problem with it.
pub fn read<I, A, G>(endpoint: &EndpointDesc<A, G>, raw: &RawInputs<'_>) -> Result<I, Vec<Issue>>
where
    I: serde::de::DeserializeOwned + Validate,
{
    let read = raw.deserialize::<I>().or_else(|e| {
        raw.with_integers(endpoint)
            .and_then(|rewritten| rewritten.deserialize::<I>().ok())
            .ok_or(e)
    });
    match read {
        Ok(input) => input.validate().map(|()| input),
        Err(e) => {
            let issues = raw.explain(endpoint);
            if issues.is_empty() {
                // The descriptors and the types disagree: still the caller's input, still 422.
                let loc: &[LocPart] = if raw.body.is_some() {
                    &[LocPart::key("body")]
                } else {
                    &[]
                };
                Err(vec![Issue::new(loc, IssueKind::Value, e.to_string())])
            } else {
                Err(issues)
            }
        }
    }
}

/// A JSON syntax error, located by character offset: serde_json counts lines and byte
/// columns, a client counts characters.
fn json_error(bytes: &[u8], e: &serde_json::Error) -> Issue {
    let line_start = match e.line() {
        0 | 1 => 0,
        line => bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(bytes.len(), |(i, _)| i + 1),
    };
    let byte = (line_start + e.column().saturating_sub(1)).min(bytes.len());
    // Characters start at every byte that is not a UTF-8 continuation byte.
    let offset = bytes[..byte]
        .iter()
        .filter(|b| (**b & 0xC0) != 0x80)
        .count();
    Issue::new(
        &[LocPart::key("body"), LocPart::Index(offset)],
        IssueKind::JsonInvalid,
        format!("JSON decode error: {e}"),
    )
}

/// One input of the map the typed input deserializes from.
enum InputValue<'de> {
    Text(&'de [&'de str]),
    Body(&'de [u8]),
    /// A form body: its fields as text.
    Form(&'de [(&'de str, Vec<&'de str>)]),
    /// A body already read into JSON (a multipart body's parts, or rewritten integers).
    Json(&'de Value),
    /// A body read as it is: text for a `String`, bytes for anything else.
    Raw(&'de [u8]),
}

impl<'de> IntoDeserializer<'de, DeError> for InputValue<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// Each method goes to the text reader or to serde_json over the body bytes.
macro_rules! dispatch {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DeError> {
            match self {
                InputValue::Text(raws) => Text(raws).$method($($arg,)* visitor),
                InputValue::Body(bytes) => from_body(bytes, |de| de.$method($($arg,)* visitor)),
                InputValue::Form(fields) => {
                    let entries = fields.iter().map(|(name, values)| (*name, Text(values)));
                    MapDeserializer::new(entries).$method($($arg,)* visitor)
                }
                InputValue::Json(value) => value.$method($($arg,)* visitor).map_err(DeError::custom),
                InputValue::Raw(bytes) => raw_body(bytes, stringify!($method), visitor),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for InputValue<'de> {
    type Error = DeError;
    dispatch!(
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_u8(), deserialize_u16(),
        deserialize_u32(), deserialize_u64(), deserialize_f32(), deserialize_f64(),
        deserialize_char(), deserialize_str(), deserialize_string(), deserialize_bytes(),
        deserialize_byte_buf(), deserialize_option(), deserialize_unit(),
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize), deserialize_map(),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    );
}

/// A body read as it is: a `String` asks for text, which must be UTF-8; anything else
/// (`Bytes`) is given the bytes.
fn raw_body<'de, V: Visitor<'de>>(
    bytes: &'de [u8],
    method: &str,
    visitor: V,
) -> Result<V::Value, DeError> {
    if matches!(method, "deserialize_str" | "deserialize_string") {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| DeError::custom(format!("the body is not UTF-8 text: {e}")))?;
        visitor.visit_borrowed_str(text)
    } else {
        visitor.visit_borrowed_bytes(bytes)
    }
}

/// Runs serde_json over the whole body, trailing characters included.
fn from_body<'de, T>(
    bytes: &'de [u8],
    read: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>,
    ) -> Result<T, serde_json::Error>,
) -> Result<T, DeError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = read(&mut de).map_err(DeError::custom)?;
    de.end().map_err(DeError::custom)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::fixtures::{endpoint, param};
    use crate::desc::{Location, ParamDesc, PathSegment, Presence, TypeDesc};

    static PARAMS: [ParamDesc; 4] = [
        param(Location::Query, "n", TypeDesc::Int, Presence::Required),
        param(
            Location::Query,
            "ratio",
            TypeDesc::Number,
            Presence::Required,
        ),
        param(Location::Query, "flag", TypeDesc::Bool, Presence::Required),
        param(
            Location::Query,
            "tags",
            TypeDesc::List(&TypeDesc::String),
            Presence::Required,
        ),
    ];
    static ENDPOINT: EndpointDesc<(), ()> = endpoint(
        http::Method::POST,
        "/things",
        &[PathSegment::Literal("things")],
        &PARAMS,
    );

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Input {
        n: i64,
        ratio: f64,
        flag: bool,
        tags: Vec<String>,
        body: std::collections::BTreeMap<String, i64>,
    }

    impl Validate for Input {}

    fn read_query(query: &str, body: &[u8]) -> Result<Input, Vec<Issue>> {
        let request = axum::http::Request::builder()
            .uri(format!("/things?{query}"))
            .body(())
            .unwrap();
        let (parts, ()) = request.into_parts();
        let pairs: Vec<_> = form_urlencoded::parse(query.as_bytes()).collect();
        let raw = RawInputs::gather(&ENDPOINT, |_| None, &pairs, &parts, Some(body));
        read::<Input, _, _>(&ENDPOINT, &raw)
    }

    #[test]
    fn parameters_parse_from_text_and_the_body_from_bytes() {
        let input = read_query("n=7&ratio=0.5&flag=yes&tags=a&tags=b%20c", br#"{"k": 1}"#).unwrap();
        assert_eq!(
            input,
            Input {
                n: 7,
                ratio: 0.5,
                flag: true,
                tags: vec!["a".into(), "b c".into()],
                body: [("k".to_string(), 1)].into(),
            }
        );
    }

    #[test]
    fn a_syntax_error_is_located_by_characters() {
        let bytes = "{\r\n  \"é\": tru }".as_bytes();
        let e = serde_json::from_slice::<Value>(bytes).unwrap_err();
        let issue = json_error(bytes, &e);
        let text = std::str::from_utf8(bytes).unwrap();
        let LocPart::Index(offset) = issue.loc[1] else {
            panic!("{issue:?}")
        };
        assert_eq!(text.chars().nth(offset), Some(' '), "{offset} in {text:?}");
        assert_eq!(
            text.chars().take(offset).collect::<String>(),
            "{\r\n  \"é\": tru"
        );
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(untagged)]
    enum Shelf {
        Code(String),
        Number(i64),
    }

    #[test]
    fn a_union_parameter_reads_as_the_first_type_its_text_is() {
        let read = |raw: &'static str| {
            let raws: &'static [&'static str] = Box::leak(Box::new([raw]));
            <Shelf as serde::Deserialize>::deserialize(Text(raws)).unwrap()
        };
        assert_eq!(read("5"), Shelf::Number(5));
        assert_eq!(read("a5"), Shelf::Code("a5".into()));
        let name: String = serde::Deserialize::deserialize(Text(&["5"])).unwrap();
        assert_eq!(name, "5", "a string parameter stays text");
    }

    #[test]
    fn the_last_occurrence_of_a_scalar_wins() {
        let input = read_query("n=1&n=2&ratio=1&flag=0&tags=x", b"{}").unwrap();
        assert_eq!((input.n, input.flag), (2, false));
    }

    #[test]
    fn every_problem_is_named_when_the_input_does_not_deserialize() {
        let issues = read_query("n=seven&ratio=NaN&flag=maybe", b"{\"k\": ").unwrap_err();
        let found: Vec<(String, IssueKind)> =
            issues.iter().map(|i| (i.json_path(), i.kind)).collect();
        assert_eq!(
            found,
            [
                ("$.query.n".to_string(), IssueKind::IntParsing),
                ("$.query.ratio".to_string(), IssueKind::FloatParsing),
                ("$.query.flag".to_string(), IssueKind::BoolParsing),
                ("$.body[5]".to_string(), IssueKind::JsonInvalid),
                ("$.query.tags".to_string(), IssueKind::Missing),
            ]
        );
    }
}
