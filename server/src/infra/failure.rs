//! Why a request could not be served: the service's errors, which of them a retry may mend,
//! and how each becomes the rejection the router writes at a status the endpoint declares.

use covenant_runtime::issue::{Issue, IssueKind, LocPart};
use covenant_runtime::server::Rejection;

/// A failure shared by every endpoint; endpoint-specific answers (the create-user conflict)
/// are built by the endpoint itself.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// 404 with this detail.
    #[error("not found: {0}")]
    NotFound(String),
    /// 422: one item per problem, as the router's own validation answers.
    #[error("{} problems with the request", .0.len())]
    Invalid(Vec<Issue>),
    /// 403 with this detail.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// 503: the database cannot be reached or is busy; a retry may succeed, and nothing of
    /// the request was kept.
    #[error("the database cannot answer now")]
    Unavailable(#[source] sqlx::Error),
    /// 500: a fault of the service (stored data it cannot read, a statement it got wrong);
    /// a retry will not mend it.
    #[error("the service failed")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl From<sqlx::Error> for Failure {
    fn from(error: sqlx::Error) -> Failure {
        if is_transient(&error) {
            Failure::Unavailable(error)
        } else {
            Failure::Internal(Box::new(error))
        }
    }
}

/// A value that does not serialize is a fault of the service.
impl From<serde_json::Error> for Failure {
    fn from(error: serde_json::Error) -> Failure {
        Failure::Internal(Box::new(error))
    }
}

/// Whether a retry may succeed: the pool or a connection failed, the database is starting,
/// stopping, failing over or out of connections, or a lock was not had in time. Decoding,
/// encoding, a statement the database refuses (sqlx's `Protocol` on SQLite), a missing
/// column and a broken constraint are not: they are faults of the service.
pub fn is_transient(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| transient_code(&code)),
        _ => false,
    }
}

/// SQLite's busy and locked results (extended codes), and PostgreSQL's: a connection lost or
/// refused, too many connections, a server shutting down or starting, a read-only standby
/// during a failover, a deadlock, a serialization conflict, a lock not had in time.
fn transient_code(code: &str) -> bool {
    matches!(
        code,
        "5" | "6"
            | "261"
            | "262"
            | "517"
            | "773"
            | "08000"
            | "08001"
            | "08003"
            | "08004"
            | "08006"
            | "25006"
            | "40001"
            | "40P01"
            | "53300"
            | "55P03"
            | "57P01"
            | "57P02"
            | "57P03"
            | "57P05"
    )
}

impl Failure {
    /// A 422 naming one field of the body.
    pub fn invalid_body(field: &[LocPart], msg: impl Into<String>, kind: IssueKind) -> Failure {
        Failure::Invalid(vec![issue("body", field, msg, kind)])
    }

    /// A 422 naming one query parameter.
    pub fn invalid_query(name: &'static str, msg: impl Into<String>, kind: IssueKind) -> Failure {
        Failure::Invalid(vec![issue("query", &[LocPart::key(name)], msg, kind)])
    }
}

/// The rejection the endpoint answers, so a handler answers a failure with `?`. Failures of
/// the service are logged here, inside the request's span (which carries the request id a
/// caller quotes when asking about them); their detail is not sent.
impl From<Failure> for Rejection {
    fn from(failure: Failure) -> Rejection {
        match failure {
            Failure::NotFound(detail) => Rejection::not_found(detail),
            Failure::Invalid(issues) => Rejection::invalid(&issues),
            Failure::Forbidden(detail) => Rejection::forbidden(detail),
            Failure::Unavailable(error) => {
                tracing::warn!(%error, "database unavailable");
                Rejection::unavailable()
            }
            Failure::Internal(error) => {
                tracing::error!(%error, "service fault");
                Rejection::internal()
            }
        }
    }
}

/// One item of a 422, in the shape and vocabulary of the router's own checks.
pub fn issue(
    root: &'static str,
    path: &[LocPart],
    msg: impl Into<String>,
    kind: IssueKind,
) -> Issue {
    let loc: Vec<LocPart> = std::iter::once(LocPart::key(root))
        .chain(path.iter().cloned())
        .collect();
    Issue::new(&loc, kind, msg)
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

/// A value of an open enum that this server cannot act on: the enum may gain values, and a
/// client keeps those it does not know, but the server serves only the ones of its catalogue.
pub fn unknown_value(
    root: &'static str,
    path: &[LocPart],
    what: &str,
    value: &str,
    known: &[&str],
) -> Issue {
    issue(
        root,
        path,
        format!(
            "`{}` is not a {what} of this service: expected one of {}",
            quoted(value),
            known.join(", ")
        ),
        IssueKind::Enum,
    )
}
