//! Queries built piece by piece (filters that depend on which parameters were sent), the
//! `LIKE` pattern for "contains", and the opaque cursors of paged listings.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub type Query<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// A value bound to a numbered placeholder.
pub enum Bind {
    Int(i64),
    Text(String),
}

/// `WHERE` clauses and their values, numbered `$1…` in order.
#[derive(Default)]
pub struct Filter {
    clauses: Vec<String>,
    binds: Vec<Bind>,
}

impl Filter {
    /// The placeholder of a new value, to write into a clause.
    pub fn placeholder(&mut self, bind: Bind) -> String {
        self.binds.push(bind);
        format!("${}", self.binds.len())
    }

    pub fn clause(&mut self, clause: String) {
        self.clauses.push(clause);
    }

    /// `column IN (…)`; an empty list matches nothing.
    pub fn one_of(&mut self, column: &str, values: impl IntoIterator<Item = Bind>) {
        let placeholders: Vec<String> = values.into_iter().map(|v| self.placeholder(v)).collect();
        if placeholders.is_empty() {
            self.clause("1 = 0".to_string());
        } else {
            self.clause(format!("{column} IN ({})", placeholders.join(", ")));
        }
    }

    /// ` WHERE a AND b …`, or nothing.
    pub fn sql(&self) -> String {
        if self.clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", self.clauses.join(" AND "))
        }
    }

    pub fn bind<'q>(&'q self, mut query: Query<'q>) -> Query<'q> {
        for bind in &self.binds {
            query = match bind {
                Bind::Int(v) => query.bind(*v),
                Bind::Text(v) => query.bind(v.as_str()),
            };
        }
        query
    }
}

/// A case-insensitive `LIKE … ESCAPE '\'` pattern matching the text anywhere, with `%`, `_`
/// and `\` in it taken literally. The column it is matched against holds lower-case text.
pub fn contains_pattern(text: &str) -> String {
    let mut escaped = String::from("%");
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped.push('%');
    escaped
}

/// Cursors are opaque to callers: the position, encoded.
pub fn encode_cursor(position: &str) -> String {
    URL_SAFE_NO_PAD.encode(position.as_bytes())
}

/// The position of a listing paged by a sequence number, newest first: before the cursor's
/// position, or from the newest when none (or an empty one) is sent.
pub fn seq_cursor(cursor: Option<&str>) -> Result<i64, crate::infra::failure::Failure> {
    match cursor.filter(|c| !c.is_empty()) {
        Some(cursor) => decode_cursor(cursor)
            .and_then(|c| c.parse::<i64>().ok())
            .ok_or_else(|| {
                crate::infra::failure::Failure::invalid_query(
                    "next_cursor",
                    "Not a cursor this service issued",
                    covenant_runtime::issue::IssueKind::Value,
                )
            }),
        None => Ok(i64::MAX),
    }
}

pub fn decode_cursor(cursor: &str) -> Option<String> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    String::from_utf8(bytes).ok()
}
