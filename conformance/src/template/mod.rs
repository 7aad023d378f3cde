//! Filling in templates (split once, when the plan is compiled: [`text`]): captures and `let` values by name,
//! `credentials.KEY`, `env.NAME`, and generators (`$uuid`, `$unique`, `$now`, `$now+1h`,
//! `$date-7d`).

pub mod text;

use chrono::{SecondsFormat, Utc};
pub use covenant_runtime::credentials::Credentials;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use text::{Generator, Piece, Reference, Text, Tree};

/// Why a template cannot be filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError(pub String);

/// Where values come from outside a scenario: the credentials file and the environment.
#[derive(Clone, Debug, Default)]
pub struct Globals {
    pub credentials: Credentials,
    pub env: HashMap<String, String>,
    /// Distinguishes this run's generated ids from an earlier run's against the same target.
    pub run_id: String,
}

impl Globals {
    /// Credentials, and the environment variables the cassettes name.
    pub fn new(credentials: Credentials) -> Globals {
        Globals {
            credentials,
            env: std::env::vars().collect(),
            run_id: uuid::Uuid::new_v4().simple().to_string()[..8].to_string(),
        }
    }

    /// Every secret value with the reference that names it. Every credential is a secret
    /// but the URLs of the bases, which reports name on purpose; so is every environment
    /// variable whose name says key, token, secret or password. Length does not matter.
    pub fn secrets(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .credentials
            .iter()
            .filter(|(_, v)| !v.is_empty() && !is_url(v))
            .map(|(k, v)| (v.to_string(), format!("{{{{credentials.{k}}}}}")))
            .collect();
        out.extend(
            self.env
                .iter()
                .filter(|(k, v)| is_secret_name(k) && !v.is_empty())
                .map(|(k, v)| (v.clone(), format!("{{{{env.{k}}}}}"))),
        );
        out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        out
    }
}

fn is_url(value: &str) -> bool {
    value.starts_with("http://") || value.starts_with("https://")
}

fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD"]
        .iter()
        .any(|w| upper.contains(w))
}

static UNIQUE: AtomicU64 = AtomicU64::new(0);

/// The values a scenario's templates see.
pub struct Scope<'g> {
    pub globals: &'g Globals,
    pub values: HashMap<String, Value>,
}

impl<'g> Scope<'g> {
    pub fn new(globals: &'g Globals) -> Self {
        Scope {
            globals,
            values: HashMap::new(),
        }
    }

    /// Fills in a tree; a string that is exactly one reference of a non-string value
    /// becomes that value (a captured number stays a number).
    pub fn tree(&self, tree: &Tree) -> Result<Value, TemplateError> {
        match tree {
            Tree::Json(value) => Ok(value.clone()),
            Tree::Text(text) => self.text_value(text),
            Tree::Array(items) => items.iter().map(|t| self.tree(t)).collect(),
            Tree::Object(fields) => fields
                .iter()
                .map(|(k, t)| Ok((k.clone(), self.tree(t)?)))
                .collect::<Result<serde_json::Map<_, _>, _>>()
                .map(Value::Object),
        }
    }

    /// A text's value: the referenced value itself when the text is one reference.
    pub fn text_value(&self, text: &Text) -> Result<Value, TemplateError> {
        match text.whole() {
            Some(reference) => self.reference(reference),
            None => self.text(text).map(Value::String),
        }
    }

    /// Fills in every reference of a text.
    pub fn text(&self, text: &Text) -> Result<String, TemplateError> {
        self.fill(text, &|value| Ok(value.to_string()))
    }

    /// Fills in a path: each value filled in is one percent-encoded segment, so a captured
    /// `x/y?z=1` stays inside the segment it was put in; a value of `.` or `..`, which URL
    /// normalisation would resolve into another route, is refused.
    pub fn path(&self, text: &Text) -> Result<String, TemplateError> {
        self.fill(text, &|value| match value {
            "." | ".." => Err(TemplateError(format!(
                "`{value}` cannot be a path segment: it would call another route"
            ))),
            _ => Ok(covenant_runtime::contract::encode_segment(value).into_owned()),
        })
    }

    /// Fills in every reference of a text, each value written through `encode`.
    fn fill(
        &self,
        text: &Text,
        encode: &dyn Fn(&str) -> Result<String, TemplateError>,
    ) -> Result<String, TemplateError> {
        let mut out = String::new();
        for piece in text.pieces() {
            match piece {
                Piece::Literal(literal) => out.push_str(literal),
                Piece::Reference(reference) => match self.reference(reference)? {
                    Value::String(s) => out.push_str(&encode(&s)?),
                    other => out.push_str(&encode(&other.to_string())?),
                },
            }
        }
        Ok(out)
    }

    fn reference(&self, reference: &Reference) -> Result<Value, TemplateError> {
        match reference {
            Reference::Generator(generator) => Ok(Value::String(self.generate(*generator))),
            Reference::Credential(key) => self
                .globals
                .credentials
                .get(key)
                .map(|v| Value::String(v.to_string()))
                .ok_or_else(|| TemplateError(format!("the credentials have no `{key}`"))),
            Reference::Env(var) => self
                .globals
                .env
                .get(var)
                .map(|v| Value::String(v.clone()))
                .ok_or_else(|| TemplateError(format!("environment variable `{var}` is not set"))),
            Reference::Value(name) => self
                .values
                .get(name)
                .cloned()
                .ok_or_else(|| TemplateError(format!("`{{{{{name}}}}}` is not defined here"))),
        }
    }

    fn generate(&self, generator: Generator) -> String {
        match generator {
            Generator::Open => "{{".into(),
            Generator::Close => "}}".into(),
            Generator::Uuid => uuid::Uuid::new_v4().to_string(),
            Generator::Unique => format!(
                "{}-{}",
                self.globals.run_id,
                UNIQUE.fetch_add(1, Ordering::Relaxed)
            ),
            Generator::Now(offset) => {
                (Utc::now() + offset).to_rfc3339_opts(SecondsFormat::Secs, true)
            }
            Generator::Date(offset) => (Utc::now() + offset).date_naive().to_string(),
        }
    }
}

/// A JSON value as a parameter's text: strings as they are, anything else as written.
pub use covenant_runtime::text::plain;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Fills in a string template as a cassette would hold it.
    fn string(scope: &Scope, template: &str) -> Result<String, TemplateError> {
        scope.text(&Text::parse(template).map_err(TemplateError)?)
    }

    fn value(scope: &Scope, template: Value) -> Result<Value, TemplateError> {
        let vet = |_: &Reference| None;
        let mut reader = text::Reader::new(&vet);
        let tree = reader.tree(&template);
        assert!(reader.problems.is_empty());
        scope.tree(&tree)
    }

    fn globals() -> Globals {
        Globals {
            credentials: [("team_api_key", "sk_team_secret")].into_iter().collect(),
            env: HashMap::new(),
            run_id: "run1".into(),
        }
    }

    #[test]
    fn a_whole_reference_keeps_the_captured_type() {
        let g = globals();
        let mut scope = Scope::new(&g);
        scope.values.insert("n".into(), json!(3));
        assert_eq!(value(&scope, json!("{{n}}")).unwrap(), json!(3));
        assert_eq!(value(&scope, json!("page {{n}}")).unwrap(), json!("page 3"));
    }

    #[test]
    fn unknown_names_and_generators_are_errors() {
        let g = globals();
        let scope = Scope::new(&g);
        assert!(
            string(&scope, "{{missing}}")
                .unwrap_err()
                .0
                .contains("not defined")
        );
        assert!(
            string(&scope, "{{$nope}}")
                .unwrap_err()
                .0
                .contains("unknown generator")
        );
        assert!(string(&scope, "{{credentials.other}}").is_err());
    }

    #[test]
    fn literal_braces_are_written_as_open_and_close() {
        let g = globals();
        let scope = Scope::new(&g);
        assert_eq!(string(&scope, "a{{$open}}b{{$close}}").unwrap(), "a{{b}}");
        assert_eq!(value(&scope, json!("{{$open}}")).unwrap(), json!("{{"));
        let recorded = "x {{name}} }}";
        let escaped = crate::record::escape_braces(recorded);
        assert_eq!(string(&scope, &escaped).unwrap(), recorded);
    }

    #[test]
    fn generators_fill_in_fresh_values() {
        let g = globals();
        let scope = Scope::new(&g);
        let a = string(&scope, "{{$unique}}").unwrap();
        let b = string(&scope, "{{$unique}}").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("run1-"));
        assert_eq!(string(&scope, "{{$uuid}}").unwrap().len(), 36);
        assert!(string(&scope, "{{$now-1h}}").unwrap().ends_with('Z'));
        assert_eq!(string(&scope, "{{$date+7d}}").unwrap().len(), 10);
    }

    #[test]
    fn a_value_filled_into_a_path_stays_one_segment() {
        let g = globals();
        let mut scope = Scope::new(&g);
        scope
            .values
            .insert("id".into(), json!("../../v1/org/x/team?steal=1"));
        assert_eq!(
            scope
                .path(&Text::parse("/v2/user/{{id}}/info").unwrap())
                .unwrap(),
            "/v2/user/..%2F..%2Fv1%2Forg%2Fx%2Fteam%3Fsteal%3D1/info"
        );
    }

    #[test]
    fn credentials_are_secrets_by_reference() {
        let secrets = globals().secrets();
        assert_eq!(
            secrets,
            vec![(
                "sk_team_secret".to_string(),
                "{{credentials.team_api_key}}".to_string()
            )]
        );
    }
}
