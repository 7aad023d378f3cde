//! `multipart/form-data` bodies (RFC 7578): a model's fields as parts, `file` fields as file
//! parts with their name and media type. The client and `conform` write them from the body's
//! JSON form; the router reads them (with multer) back into that form, where the model's walk
//! and the typed reader take over as for any body.

use crate::binary::{Bytes, FilePart};
use crate::desc::{FieldDesc, TypeDesc};
use crate::issue::{Issue, IssueKind, LocPart};
use serde_json::{Map, Value};

/// One part of a multipart body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    /// Present for a file part.
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub content: Vec<u8>,
}

impl Part {
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Self {
        Part {
            name: name.into(),
            filename: None,
            content_type: None,
            content: text.into().into_bytes(),
        }
    }
}

/// How a field of a multipart body is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// A file part, from `{"filename", "content_type", "content": base64}`.
    File,
    /// An `application/octet-stream` part, from base64 text.
    Bytes,
    /// A part holding the value's text.
    Text,
}

/// How each field of a body of type `ty` is sent, as its descriptor says.
pub fn kind_in(ty: &TypeDesc, field: &str) -> PartKind {
    match ty
        .model_fields()
        .iter()
        .find(|f| f.name == field)
        .map(|f| item_type(&f.ty))
    {
        Some(TypeDesc::File) => PartKind::File,
        Some(TypeDesc::Bytes) => PartKind::Bytes,
        _ => PartKind::Text,
    }
}

/// The parts of a body given in its JSON form, each field as `kind_of` says (a list is one
/// part per item). `null` fields are left out.
pub fn parts_of(body: &Value, kind_of: impl Fn(&str) -> PartKind) -> Result<Vec<Part>, String> {
    let Value::Object(fields) = body else {
        return Err("a multipart body is an object of its parts".into());
    };
    let mut parts = Vec::new();
    for (name, value) in fields {
        let kind = kind_of(name);
        let items: &[Value] = match value {
            Value::Array(items) => items,
            Value::Null => &[],
            one => std::slice::from_ref(one),
        };
        for item in items {
            parts.push(part_of(name, kind, item)?);
        }
    }
    Ok(parts)
}

fn part_of(name: &str, kind: PartKind, value: &Value) -> Result<Part, String> {
    match kind {
        PartKind::File => {
            let file: FilePart = serde_json::from_value(value.clone())
                .map_err(|e| format!("`{name}` is no file ({{\"filename\", \"content_type\", \"content\": base64}}): {e}"))?;
            Ok(Part {
                name: name.to_string(),
                filename: Some(file.filename.unwrap_or_else(|| name.to_string())),
                content_type: Some(
                    file.content_type
                        .unwrap_or_else(|| "application/octet-stream".into()),
                ),
                content: file.content.into_vec(),
            })
        }
        PartKind::Bytes => {
            let text = value
                .as_str()
                .ok_or_else(|| format!("`{name}` is no base64 text"))?;
            Ok(Part {
                name: name.to_string(),
                filename: None,
                content_type: Some("application/octet-stream".into()),
                content: Bytes::from_base64(text)
                    .map_err(|e| format!("`{name}` is {e}"))?
                    .into_vec(),
            })
        }
        PartKind::Text => Ok(Part::text(name, crate::text::plain(value))),
    }
}

/// Writes parts as one body: the `Content-Type` (with its boundary) and the bytes.
pub fn encode(parts: &[Part]) -> (String, Vec<u8>) {
    let boundary = boundary_for(parts);
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let mut disposition = format!(
            "Content-Disposition: form-data; name=\"{}\"",
            quoted(&part.name)
        );
        if let Some(filename) = &part.filename {
            disposition.push_str(&format!("; filename=\"{}\"", quoted(filename)));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(media) = &part.content_type {
            body.extend_from_slice(format!("Content-Type: {media}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(&part.content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A boundary that occurs in no part.
fn boundary_for(parts: &[Part]) -> String {
    loop {
        // Hyphenated, so transcripts that stand in for UUIDs stand in for it too.
        let boundary = format!("covenant-{}", uuid::Uuid::new_v4());
        let inside = |content: &[u8]| {
            content
                .windows(boundary.len())
                .any(|w| w == boundary.as_bytes())
        };
        if !parts.iter().any(|p| inside(&p.content)) {
            return boundary;
        }
    }
}

/// A name or file name inside quotes, escaped as browsers do (WHATWG HTML, "multipart/form-data
/// encoding algorithm").
fn quoted(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Reads a received body into its parts; the error says why it is no multipart body.
#[cfg(feature = "server")]
pub async fn parse(
    content_type: Option<&str>,
    body: axum::body::Bytes,
) -> Result<Vec<Part>, String> {
    let content_type =
        content_type.ok_or("no Content-Type: send multipart/form-data with its boundary")?;
    let boundary = multer::parse_boundary(content_type).map_err(|_| {
        format!("Content-Type {content_type} is not multipart/form-data with a boundary")
    })?;
    let stream = futures_util::stream::once(async move { Ok::<_, std::convert::Infallible>(body) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    let mut parts = Vec::new();
    let broken = |e: multer::Error| format!("the multipart body is malformed: {e}");
    while let Some(field) = multipart.next_field().await.map_err(broken)? {
        let name = field.name().unwrap_or_default().to_string();
        let filename = field.file_name().map(str::to_string);
        let content_type = field.content_type().map(ToString::to_string);
        let content = field.bytes().await.map_err(broken)?.to_vec();
        parts.push(Part {
            name,
            filename,
            content_type,
            content,
        });
    }
    Ok(parts)
}

/// A received body's parts as the JSON object its model's walk checks: each declared field
/// read as its type asks (a file as `{filename, content_type, content}`, bytes as base64,
/// anything else from its text), a field the model does not declare as text; with a problem
/// for each part that does not read.
pub fn coerce(ty: &TypeDesc, parts: &[Part]) -> (Value, Vec<Issue>) {
    let declared = ty.model_fields();
    let mut names: Vec<&str> = Vec::new();
    for part in parts {
        if !names.contains(&part.name.as_str()) {
            names.push(&part.name);
        }
    }
    let mut out = Map::new();
    let mut issues = Vec::new();
    for name in names {
        let of_name: Vec<&Part> = parts.iter().filter(|p| p.name == name).collect();
        let loc = [LocPart::key("body"), LocPart::Key(name.to_string().into())];
        let field = declared.iter().find(|f| f.name == name);
        match read_field(field, &of_name, &loc) {
            Ok(value) => drop(out.insert(name.to_string(), value)),
            Err(issue) => issues.push(issue),
        }
    }
    (Value::Object(out), issues)
}

fn read_field(field: Option<&FieldDesc>, parts: &[&Part], loc: &[LocPart]) -> Result<Value, Issue> {
    let ty = field.map_or(&TypeDesc::String, |f| &f.ty);
    let list = matches!(ty, TypeDesc::List(_));
    let item = item_type(ty);
    let binary = |part: &Part| match item {
        TypeDesc::File => serde_json::to_value(FilePart {
            filename: part.filename.clone(),
            content_type: part.content_type.clone(),
            content: Bytes(part.content.clone()),
        })
        .unwrap_or(Value::Null),
        _ => Value::String(Bytes(part.content.clone()).to_base64()),
    };
    if matches!(item, TypeDesc::File | TypeDesc::Bytes) {
        let mut values: Vec<Value> = parts.iter().map(|p| binary(p)).collect();
        return Ok(match (list, values.pop()) {
            (true, last) => Value::Array(values.into_iter().chain(last).collect()),
            (false, last) => last.unwrap_or(Value::Null),
        });
    }
    let Some(field) = field else {
        // A part the model does not declare is kept as text, as a form's would be.
        let last = parts.last().map(|p| String::from_utf8_lossy(&p.content));
        return Ok(Value::String(last.unwrap_or_default().into_owned()));
    };
    let texts = parts
        .iter()
        .map(|p| {
            std::str::from_utf8(&p.content)
                .map_err(|_| Issue::new(loc, IssueKind::StringType, "Input should be UTF-8 text"))
        })
        .collect::<Result<Vec<&str>, Issue>>()?;
    crate::walk::coerce_param(&field.ty, &texts, loc)
}

/// The type of one part of a field: a list's item, or the field's own.
fn item_type(ty: &TypeDesc) -> &TypeDesc {
    match ty {
        TypeDesc::List(inner) => inner,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::{Constraints, ModelDesc, Presence};
    use serde_json::json;

    const fn field(name: &'static str, ty: TypeDesc) -> FieldDesc {
        FieldDesc {
            name,
            ty,
            presence: Presence::Required,
            has_default: false,
            format: true,
            constraints: Constraints::NONE,
            encoding: crate::contract::Encoding::Repeated,
        }
    }

    static UPLOAD: ModelDesc = ModelDesc {
        name: "Upload",
        groups: &[],
        fields: &[
            field("purpose", TypeDesc::String),
            field("pages", TypeDesc::Int),
            field("file", TypeDesc::File),
            field("thumbs", TypeDesc::List(&TypeDesc::Bytes)),
        ],
    };

    #[test]
    fn a_body_becomes_parts_and_reads_back_as_its_json_form() {
        let body = json!({
            "purpose": "dispute \"evidence\"",
            "pages": 3,
            "file": {"filename": "scan.pdf", "content_type": "application/pdf", "content": "JVBERi0="},
            "thumbs": ["AQI=", "AwQ="],
        });
        let ty = TypeDesc::Model(&UPLOAD);
        let parts = parts_of(&body, |name| kind_in(&ty, name)).unwrap();
        assert_eq!(parts.len(), 5);
        assert_eq!(parts[2].filename.as_deref(), Some("scan.pdf"));
        assert_eq!(parts[2].content, b"%PDF-");
        let (content_type, bytes) = encode(&parts);
        assert!(content_type.starts_with("multipart/form-data; boundary=covenant-"));
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("name=\"purpose\"\r\n\r\ndispute \"evidence\"\r\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "name=\"file\"; filename=\"scan.pdf\"\r\nContent-Type: application/pdf\r\n"
            )
        );
        let (read, issues) = coerce(&ty, &parts);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(read, body);
    }

    #[test]
    fn a_part_that_does_not_read_is_named() {
        let parts = [Part::text("pages", "three"), Part::text("purpose", "x")];
        let (read, issues) = coerce(&TypeDesc::Model(&UPLOAD), &parts);
        assert_eq!(read, json!({"purpose": "x"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].json_path(), "$.body.pages");
        assert_eq!(issues[0].kind, IssueKind::IntParsing);
    }

    #[cfg(feature = "server")]
    #[tokio::test]
    async fn what_is_encoded_parses_back_part_for_part() {
        let parts = vec![
            Part::text("na\"me", "line one\r\nline two"),
            Part {
                name: "file".into(),
                filename: Some("photo.png".into()),
                content_type: Some("image/png".into()),
                content: vec![0x89, b'P', b'N', b'G', 0, 255, b'\r', b'\n', b'-', b'-'],
            },
        ];
        let (content_type, body) = encode(&parts);
        let read = parse(Some(&content_type), body.into()).await.unwrap();
        assert_eq!(read[1], parts[1]);
        assert_eq!(read[0].name, "na%22me");
        assert_eq!(read[0].content, parts[0].content);
        let broken = parse(Some("multipart/form-data"), axum::body::Bytes::new()).await;
        assert!(broken.unwrap_err().contains("boundary"));
    }

    #[test]
    fn names_are_escaped_inside_quotes() {
        assert_eq!(quoted("a\"b\r\nc"), "a%22b%0D%0Ac");
    }
}
