//! Why a request could not be served, and how each endpoint's response says so.

use health_api::models::{ValidationIssue, ValidationIssueLocItem};

/// A failure shared by every endpoint; endpoint-specific answers (the create-user conflict)
/// are built by the endpoint itself.
#[derive(Debug)]
pub enum Failure {
    /// 404 with this detail.
    NotFound(String),
    /// 422: one item per problem, as the router's own validation answers.
    Invalid(Vec<ValidationIssue>),
    /// 403 with this detail.
    Forbidden(String),
    /// 503: the database is down or busy; nothing of the request was kept.
    Unavailable,
}

impl From<sqlx::Error> for Failure {
    fn from(error: sqlx::Error) -> Failure {
        tracing::error!(%error, "database failure");
        Failure::Unavailable
    }
}

impl Failure {
    /// A 422 naming one field of the body.
    pub fn invalid_body(field: &[&str], msg: impl Into<String>, kind: &str) -> Failure {
        Failure::Invalid(vec![issue("body", field, msg, kind)])
    }

    /// A 422 naming one query parameter.
    pub fn invalid_query(name: &str, msg: impl Into<String>, kind: &str) -> Failure {
        Failure::Invalid(vec![issue("query", &[name], msg, kind)])
    }
}

/// One item of a 422, in the shape and vocabulary of the router's own checks.
pub fn issue(root: &str, path: &[&str], msg: impl Into<String>, kind: &str) -> ValidationIssue {
    ValidationIssue {
        loc: std::iter::once(root)
            .chain(path.iter().copied())
            .map(|part| ValidationIssueLocItem::String(part.to_string()))
            .collect(),
        msg: msg.into(),
        r#type: kind.to_string(),
    }
}

/// The first problems of a 422 and an item counting the rest, as the router's own 422s list
/// them ([`covenant_runtime::issue::MAX_LISTED`]).
pub fn listed(mut detail: Vec<ValidationIssue>) -> Vec<ValidationIssue> {
    let max = covenant_runtime::issue::MAX_LISTED;
    if detail.len() > max {
        let more = covenant_runtime::issue::too_many(detail.len() - max);
        detail.truncate(max);
        detail.push(ValidationIssue {
            loc: Vec::new(),
            msg: more.msg,
            r#type: "too_many_errors".to_string(),
        });
    }
    detail
}

/// An input quoted in a message, cut to its first 64 characters: a 422 names the value, it
/// does not echo a hostile one whole.
pub fn quoted(input: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 64;
    match input.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &input[..cut]).into(),
        None => input.into(),
    }
}

pub const UNAVAILABLE: &str = "The service cannot answer now; retry shortly";

/// Turns `Result<Response, Failure>` into the endpoint's response: each generated response
/// enum has the variants of its API's shared errors.
macro_rules! answer {
    ($response:ident, $result:expr) => {
        match $result {
            Ok(response) => response,
            Err($crate::failure::Failure::NotFound(detail)) => {
                $response::NotFound(health_api::models::NotFoundError { detail })
            }
            Err($crate::failure::Failure::Invalid(detail)) => {
                $response::UnprocessableEntity(health_api::models::ValidationError {
                    detail: $crate::failure::listed(detail),
                })
            }
            Err($crate::failure::Failure::Forbidden(detail)) => {
                $response::Forbidden(health_api::models::ErrorMessage { detail })
            }
            Err($crate::failure::Failure::Unavailable) => {
                $response::ServiceUnavailable(health_api::models::ErrorMessage {
                    detail: $crate::failure::UNAVAILABLE.to_string(),
                })
            }
        }
    };
}
pub(crate) use answer;
