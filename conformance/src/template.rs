//! `{{name}}` templates: captures and `let` values by name, `credentials.KEY`, `env.NAME`,
//! and generators (`$uuid`, `$unique`, `$now`, `$now+1h`, `$date-7d`).

use chrono::{Duration, SecondsFormat, Utc};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a template cannot be filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError(pub String);

/// Where values come from outside a scenario: the credentials file and the environment.
#[derive(Clone, Debug, Default)]
pub struct Globals {
    pub credentials: HashMap<String, String>,
    pub env: HashMap<String, String>,
    /// Distinguishes this run's generated ids from an earlier run's against the same target.
    pub run_id: String,
}

impl Globals {
    /// Credentials, and the environment variables the cassettes name.
    pub fn new(credentials: HashMap<String, String>) -> Globals {
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
            .map(|(k, v)| (v.clone(), format!("{{{{credentials.{k}}}}}")))
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

    /// Fills in a string; a string that is exactly one `{{name}}` of a non-string value
    /// becomes that value (a captured number stays a number).
    pub fn value(&self, template: &Value) -> Result<Value, TemplateError> {
        match template {
            Value::String(s) => self.string_value(s),
            Value::Array(items) => items.iter().map(|v| self.value(v)).collect(),
            Value::Object(fields) => fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.value(v)?)))
                .collect::<Result<serde_json::Map<_, _>, _>>()
                .map(Value::Object),
            other => Ok(other.clone()),
        }
    }

    fn string_value(&self, s: &str) -> Result<Value, TemplateError> {
        if let Some(name) = whole_reference(s) {
            let v = self.lookup(name)?;
            return Ok(v);
        }
        self.string(s).map(Value::String)
    }

    /// Fills in every `{{name}}` of a string.
    pub fn string(&self, template: &str) -> Result<String, TemplateError> {
        self.string_encoding(template, &|text| text.to_string())
    }

    /// Fills in a path: each value filled in is one percent-encoded segment, so a captured
    /// `../../x?y=1` stays inside the segment it was put in.
    pub fn path(&self, template: &str) -> Result<String, TemplateError> {
        self.string_encoding(template, &covenant_runtime::text::path_segment)
    }

    /// Fills in every `{{name}}` of a string, each value written through `encode`.
    fn string_encoding(
        &self,
        template: &str,
        encode: &dyn Fn(&str) -> String,
    ) -> Result<String, TemplateError> {
        if !template.contains("{{") {
            return Ok(template.to_string());
        }
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find("}}")
                .ok_or_else(|| TemplateError(format!("`{{{{` without `}}}}` in `{template}`")))?;
            let name = after[..end].trim();
            match self.lookup(name)? {
                Value::String(s) => out.push_str(&encode(&s)),
                other => out.push_str(&encode(&other.to_string())),
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn lookup(&self, name: &str) -> Result<Value, TemplateError> {
        if let Some(generator) = name.strip_prefix('$') {
            return self.generate(generator).map(Value::String);
        }
        if let Some(key) = name.strip_prefix("credentials.") {
            return self
                .globals
                .credentials
                .get(key)
                .map(|v| Value::String(v.clone()))
                .ok_or_else(|| TemplateError(format!("the credentials have no `{key}`")));
        }
        if let Some(var) = name.strip_prefix("env.") {
            return self
                .globals
                .env
                .get(var)
                .map(|v| Value::String(v.clone()))
                .ok_or_else(|| TemplateError(format!("environment variable `{var}` is not set")));
        }
        self.values
            .get(name)
            .cloned()
            .ok_or_else(|| TemplateError(format!("`{{{{{name}}}}}` is not defined here")))
    }

    fn generate(&self, generator: &str) -> Result<String, TemplateError> {
        match generator {
            "open" => Ok("{{".into()),
            "close" => Ok("}}".into()),
            "uuid" => Ok(uuid::Uuid::new_v4().to_string()),
            "unique" => Ok(format!(
                "{}-{}",
                self.globals.run_id,
                UNIQUE.fetch_add(1, Ordering::Relaxed)
            )),
            _ => time_generator(generator)
                .ok_or_else(|| TemplateError(format!("unknown generator `${generator}`"))),
        }
    }
}

/// `now`, `now+1h`, `now-30m`, `date`, `date+7d`: RFC 3339 instants and ISO dates, UTC.
fn time_generator(generator: &str) -> Option<String> {
    let (base, offset) = match generator.find(['+', '-']) {
        Some(i) => (&generator[..i], Some(&generator[i..])),
        None => (generator, None),
    };
    let offset = match offset {
        Some(o) => parse_offset(o)?,
        None => Duration::zero(),
    };
    let at = Utc::now() + offset;
    match base {
        "now" => Some(at.to_rfc3339_opts(SecondsFormat::Secs, true)),
        "date" => Some(at.date_naive().to_string()),
        _ => None,
    }
}

/// `+30s`, `-5m`, `+2h`, `+7d`.
pub fn parse_offset(text: &str) -> Option<Duration> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    parse_duration(rest).map(|d| d * sign)
}

/// `30s`, `5m`, `2h`, `7d`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let unit = text.chars().last()?;
    let amount: i64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    match unit {
        's' => Some(Duration::seconds(amount)),
        'm' => Some(Duration::minutes(amount)),
        'h' => Some(Duration::hours(amount)),
        'd' => Some(Duration::days(amount)),
        _ => None,
    }
}

/// A JSON value as a parameter's text: strings as they are, anything else as written.
pub use covenant_runtime::text::plain;

/// The name in a string that is exactly one reference, `{{name}}`.
pub fn whole_reference(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then(|| inner.trim())
}

/// Every name referenced in a string.
pub fn references(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim());
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn globals() -> Globals {
        Globals {
            credentials: [("team_api_key".to_string(), "sk_team_secret".to_string())].into(),
            env: HashMap::new(),
            run_id: "run1".into(),
        }
    }

    #[test]
    fn a_whole_reference_keeps_the_captured_type() {
        let g = globals();
        let mut scope = Scope::new(&g);
        scope.values.insert("n".into(), json!(3));
        assert_eq!(scope.value(&json!("{{n}}")).unwrap(), json!(3));
        assert_eq!(scope.value(&json!("page {{n}}")).unwrap(), json!("page 3"));
    }

    #[test]
    fn unknown_names_and_generators_are_errors() {
        let g = globals();
        let scope = Scope::new(&g);
        assert!(
            scope
                .string("{{missing}}")
                .unwrap_err()
                .0
                .contains("not defined")
        );
        assert!(
            scope
                .string("{{$nope}}")
                .unwrap_err()
                .0
                .contains("unknown generator")
        );
        assert!(scope.string("{{credentials.other}}").is_err());
    }

    #[test]
    fn literal_braces_are_written_as_open_and_close() {
        let g = globals();
        let scope = Scope::new(&g);
        assert_eq!(scope.string("a{{$open}}b{{$close}}").unwrap(), "a{{b}}");
        assert_eq!(scope.value(&json!("{{$open}}")).unwrap(), json!("{{"));
        let recorded = "x {{name}} }}";
        let escaped = crate::record::escape_braces(recorded);
        assert_eq!(scope.string(&escaped).unwrap(), recorded);
    }

    #[test]
    fn generators_fill_in_fresh_values() {
        let g = globals();
        let scope = Scope::new(&g);
        let a = scope.string("{{$unique}}").unwrap();
        let b = scope.string("{{$unique}}").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("run1-"));
        assert_eq!(scope.string("{{$uuid}}").unwrap().len(), 36);
        assert!(scope.string("{{$now-1h}}").unwrap().ends_with('Z'));
        assert_eq!(scope.string("{{$date+7d}}").unwrap().len(), 10);
    }

    #[test]
    fn a_value_filled_into_a_path_stays_one_segment() {
        let g = globals();
        let mut scope = Scope::new(&g);
        scope
            .values
            .insert("id".into(), json!("../../v1/org/x/team?steal=1"));
        assert_eq!(
            scope.path("/v2/user/{{id}}/info").unwrap(),
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
