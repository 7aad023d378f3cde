//! Reading a document: JSON or YAML text into one JSON value, with the line and column of
//! whatever cannot be read, and which OpenAPI it speaks.

use serde_json::Value;

/// Why a document could not be imported at all.
#[derive(Debug)]
pub enum ImportError {
    /// The text is neither JSON nor YAML; `line` and `column` count from 1.
    Unreadable {
        line: usize,
        column: usize,
        message: String,
    },
    /// The text is data, but no OpenAPI 3 or Swagger 2.0 document.
    NotOpenApi(String),
}

impl ImportError {
    /// The error as `file:line:col: message`, the way compilers print one.
    pub fn render(&self, file: &str) -> String {
        match self {
            ImportError::Unreadable {
                line,
                column,
                message,
            } => format!("{file}:{line}:{column}: {message}"),
            ImportError::NotOpenApi(message) => format!("{file}: {message}"),
        }
    }
}

/// The dialect of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Swagger2,
    OpenApi30,
    OpenApi31,
}

/// Deepest nesting of arrays and objects a document may have. Real documents stay far
/// below it; past it, a hostile one would only exhaust the stack of every step after.
pub const MAX_DEPTH: usize = 128;

/// The document as a JSON value, whichever of JSON and YAML it is written in.
pub fn read(text: &str) -> Result<Value, ImportError> {
    let looks_like_json = text.trim_start().starts_with('{');
    let value = if looks_like_json {
        read_json(text)?
    } else {
        read_yaml(text)?
    };
    if depth_exceeds(&value, MAX_DEPTH) {
        return Err(ImportError::NotOpenApi(format!(
            "the document nests deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(value)
}

fn read_json(text: &str) -> Result<Value, ImportError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // serde_json refuses nesting past 128 itself, with a line and column.
    let value = serde::Deserialize::deserialize(&mut deserializer).map_err(|e| {
        ImportError::Unreadable {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        }
    })?;
    deserializer.end().map_err(|e| ImportError::Unreadable {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    Ok(value)
}

fn read_yaml(text: &str) -> Result<Value, ImportError> {
    let deserializer = serde_yaml_ng::Deserializer::from_str(text);
    serde::Deserializer::deserialize_any(deserializer, JsonVisitor).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        ImportError::Unreadable {
            line,
            column,
            message: strip_position(&e.to_string()),
        }
    })
}

/// Builds JSON's data from YAML's: keys that are numbers (`200:` of responses) become their
/// text, and whole numbers past 64 bits become floating-point numbers, as JSON parsers
/// read them.
struct JsonVisitor;

impl<'de> serde::de::Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(float(v as f64))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(float(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(JsonSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key_seed(JsonSeed)? {
            let key = match key {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let value = map.next_value_seed(JsonSeed)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

struct JsonSeed;

impl<'de> serde::de::DeserializeSeed<'de> for JsonSeed {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// serde's messages end in " at line L column C", which `render` already says first.
fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

fn depth_exceeds(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    false
}

/// Which OpenAPI the document speaks, from its `openapi` or `swagger` field.
pub fn dialect(document: &Value) -> Result<Dialect, ImportError> {
    if let Some(version) = document.get("openapi").and_then(Value::as_str) {
        return if version.starts_with("3.0") {
            Ok(Dialect::OpenApi30)
        } else if version.starts_with("3.1") || version.starts_with("3.2") {
            Ok(Dialect::OpenApi31)
        } else {
            Err(ImportError::NotOpenApi(format!(
                "OpenAPI {version} is not supported (3.0, 3.1 and Swagger 2.0 are)"
            )))
        };
    }
    match document.get("swagger") {
        Some(Value::String(v)) if v == "2.0" => Ok(Dialect::Swagger2),
        Some(v) => Err(ImportError::NotOpenApi(format!(
            "Swagger {v} is not supported (2.0 is)"
        ))),
        None => Err(ImportError::NotOpenApi(
            "no `openapi` or `swagger` field: not an OpenAPI document".to_string(),
        )),
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `pointer` with `segment` appended.
pub fn join(pointer: &str, segment: &str) -> String {
    format!("{pointer}/{}", escape(segment))
}

/// The value a local `$ref` (`#/components/schemas/Pet`) names.
pub fn resolve<'a>(document: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded: String = percent_decode(pointer);
    document.pointer(&decoded)
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(high * 16 + low);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(digit: u8) -> Option<u8> {
    (digit as char).to_digit(16).map(|d| d as u8)
}
