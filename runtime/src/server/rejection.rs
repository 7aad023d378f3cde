//! How a router writes the errors it answers itself (400, 401, 403, 404, 405, 413, 422, 503): the
//! spec's error model when it declares one (`rejections` on its api), filled in from a
//! template, or `{"detail": …}` by default. A handler's own errors ([`Rejection`]) take the
//! same shape: the pipeline writes them at a status the endpoint declares for them.

use crate::contract::{EndpointDesc, StatusPattern};
use crate::issue::{Issue, LocPart};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The key of a template object standing for a value the router fills in.
const SLOT: &str = "$rejection";

/// The shape of a router's own errors.
#[derive(Clone, Debug, Default)]
pub struct RejectionShape {
    /// `None`: `{"detail": message}`, or `{"detail": [issues]}` for a 422.
    template: Option<Arc<Value>>,
    /// Whether the spec gave it (an API's or an endpoint's `rejections`), rather than the
    /// server's own configuration: an endpoint's own replaces only a spec's.
    from_spec: bool,
}

impl RejectionShape {
    /// The shape a spec declares: a JSON template in which `{"$rejection": "message"}`,
    /// `"status"`, `"param"` and `"issues"` stand for the rejection's message, status, the
    /// first problem's input (the key is left out when there is none) and the list of
    /// problems (`{"loc", "msg", "type"}` each; empty when there are none). `covenant
    /// generate` writes it from the spec; text that is not JSON keeps the default shape.
    pub fn from_template(text: &str) -> Self {
        RejectionShape {
            template: serde_json::from_str(text).ok().map(Arc::new),
            from_spec: false,
        }
    }

    /// The shape a spec's `rejections` declares, as a generated router sets it.
    pub fn from_spec(text: &str) -> Self {
        RejectionShape {
            from_spec: true,
            ..RejectionShape::from_template(text)
        }
    }

    /// Whether the spec gave this shape rather than the server's configuration.
    pub fn is_from_spec(&self) -> bool {
        self.from_spec
    }

    /// `{"detail": …}`: no spec shape was set.
    pub fn is_default(&self) -> bool {
        self.template.is_none()
    }

    /// The body of a rejection with this status and message, and the problems of a 422.
    pub fn body(&self, status: u16, message: &str, issues: Option<&[Issue]>) -> Value {
        let Some(template) = &self.template else {
            return match issues {
                Some(issues) => json!({ "detail": issues }),
                None => json!({ "detail": message }),
            };
        };
        let filled = Filled {
            status,
            message: match issues {
                Some(issues) => summary(issues),
                None => message.to_string(),
            },
            issues: issues.unwrap_or_default(),
        };
        filled.render(template).unwrap_or(Value::Null)
    }
}

/// An error a handler answers in its API's rejection shape: a status, a message and, for a
/// 422, the problems. A generated trait method returns `Result<Response, Rejection>`, so a
/// handler's fallible work ends in `?` and its errors read as the router's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    status: u16,
    message: String,
    issues: Option<Vec<Issue>>,
}

impl Rejection {
    /// The message of a 503: the service is up, what it depends on is not.
    pub const UNAVAILABLE: &str = "The service cannot answer now; retry shortly";
    /// The message of a 500; what went wrong is logged, not told.
    pub const INTERNAL: &str = "The service failed to answer; the fault is logged";

    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Rejection {
            status,
            message: message.into(),
            issues: None,
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(403, message)
    }

    /// A 422 naming every problem: the first [`crate::issue::MAX_LISTED`] and a count of the
    /// rest, as the router's own 422s.
    pub fn invalid(issues: &[Issue]) -> Self {
        Rejection {
            status: 422,
            message: String::new(),
            issues: Some(crate::issue::listed(issues)),
        }
    }

    /// 503: a retry may succeed.
    pub fn unavailable() -> Self {
        Self::new(503, Self::UNAVAILABLE)
    }

    /// 500: a fault of the service, which a retry will not mend.
    pub fn internal() -> Self {
        Self::new(500, Self::INTERNAL)
    }

    /// 500 for this fault, which is logged here: the caller learns only that it was.
    pub fn fault(fault: impl std::fmt::Display) -> Self {
        tracing::error!(%fault, "a fault of the service");
        Self::internal()
    }

    pub fn status(&self) -> u16 {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn issues(&self) -> Option<&[Issue]> {
        self.issues.as_deref()
    }

    /// The status an endpoint answers this rejection with: its own when the endpoint declares
    /// it (itself, by its class or by `default`) in a shape the rejection fits (`fitting`).
    /// Otherwise the endpoint lacks it, a fault of the service, said by the nearest declared
    /// status: 500, another server error but 503, then (for a server error) 503, then a
    /// client error, and 503 last. Never a 422, whose body lists problems, for another
    /// rejection. `None` when nothing but a 422 fits.
    pub fn status_among(&self, fitting: &[StatusPattern]) -> Option<u16> {
        if self.declared_among(fitting) {
            return Some(self.status);
        }
        self.fallbacks(fitting).next()
    }

    fn declared_among(&self, fitting: &[StatusPattern]) -> bool {
        fitting.iter().any(|p| p.covers(self.status))
    }

    /// The statuses to try when the rejection's own is not declared, nearest first.
    fn fallbacks(&self, fitting: &[StatusPattern]) -> impl Iterator<Item = u16> + use<> {
        let server_error = self.status >= 500;
        let rank = move |status: u16| match status {
            500 => 0,
            503 if server_error => 2,
            503 => 4,
            s if s >= 500 => 1,
            _ => 3,
        };
        let mut ranked: Vec<u16> = fitting
            .iter()
            .map(|p| p.representative())
            .filter(|s| *s != 422)
            .collect();
        ranked.sort_by_key(|s| rank(*s));
        ranked.dedup();
        ranked.into_iter()
    }

    /// The endpoint's answer to this rejection, its body rendered once in `shape`: at
    /// [`Self::status_among`] the statuses the endpoint writes rejections into
    /// (`rejected_at`), without a body where that status declares none. An endpoint that
    /// declares no such status answers the rejection's own, which is logged: the spec does
    /// not say how it refuses.
    pub fn answer<A, G>(
        self,
        shape: &RejectionShape,
        endpoint: &EndpointDesc<'_, A, G>,
    ) -> Response {
        let status = match self.status_among(endpoint.rejected_at) {
            Some(status) => status,
            None => {
                tracing::warn!(
                    endpoint = endpoint.name,
                    status = self.status,
                    "the endpoint declares no status its rejections are written into"
                );
                self.status
            }
        };
        if status != self.status {
            tracing::warn!(
                endpoint = endpoint.name,
                declared = ?endpoint.rejected_at,
                status,
                "a rejection of status {} is answered with the nearest declared status",
                self.status
            );
        }
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if !declares_body(endpoint, status) {
            return code.into_response();
        }
        let own = status == self.status;
        let message = if own {
            self.message.as_str()
        } else {
            Self::INTERNAL
        };
        let issues = own.then_some(self.issues.as_deref()).flatten();
        super::json(code, &shape.body(status, message, issues))
    }
}

/// Whether the response the endpoint declares for `status` (itself, its class or
/// `default`) has a body; an undeclared status is written with one.
fn declares_body<A, G>(endpoint: &EndpointDesc<'_, A, G>, status: u16) -> bool {
    let exact = endpoint
        .responses
        .iter()
        .find(|r| r.status == StatusPattern::Exact(status));
    let class = || {
        endpoint
            .responses
            .iter()
            .find(|r| matches!(r.status, StatusPattern::Class(c) if u16::from(c) == status / 100))
    };
    let default = || {
        endpoint
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Default)
    };
    exact
        .or_else(class)
        .or_else(default)
        .is_none_or(|r| r.has_body)
}

/// What a template's slots are filled with.
struct Filled<'a> {
    status: u16,
    message: String,
    issues: &'a [Issue],
}

impl Filled<'_> {
    /// The template with its slots filled; `None` for a slot with nothing to say (its key
    /// is then left out).
    fn render(&self, template: &Value) -> Option<Value> {
        match template {
            Value::Object(fields) => {
                if let (1, Some(Value::String(slot))) = (fields.len(), fields.get(SLOT)) {
                    return self.slot(slot);
                }
                let filled: Map<String, Value> = fields
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), self.render(v)?)))
                    .collect();
                Some(Value::Object(filled))
            }
            other => Some(other.clone()),
        }
    }

    fn slot(&self, slot: &str) -> Option<Value> {
        match slot {
            "message" => Some(Value::String(self.message.clone())),
            "status" => Some(Value::from(self.status)),
            "issues" => serde_json::to_value(self.issues).ok(),
            "param" => self.issues.first().map(|i| Value::String(param(&i.loc))),
            _ => None,
        }
    }
}

/// Where the first problem is, without the location: `amount`, `metadata.plan`, `items[0]`;
/// the location itself (`body`) for a problem of the whole input, such as broken JSON,
/// whose loc ends in a character offset.
fn param(loc: &[LocPart]) -> String {
    if let (Some(LocPart::Key(location)), Some(LocPart::Index(_))) = (loc.first(), loc.get(1)) {
        return location.to_string();
    }
    let mut out = String::new();
    for (i, part) in loc.iter().enumerate().skip(1) {
        match part {
            LocPart::Key(k) => {
                if i > 1 {
                    out.push('.');
                }
                out.push_str(k);
            }
            LocPart::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    if out.is_empty() {
        loc.first()
            .map(|p| match p {
                LocPart::Key(k) => k.to_string(),
                LocPart::Index(n) => n.to_string(),
            })
            .unwrap_or_default()
    } else {
        out
    }
}

/// One line naming every problem, for a model with a message but no list of problems.
fn summary(issues: &[Issue]) -> String {
    let parts: Vec<String> = issues
        .iter()
        .map(|i| format!("{}: {}", param(&i.loc), i.msg))
        .collect();
    format!("Invalid request: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issue::IssueKind;

    fn exact(statuses: &[u16]) -> Vec<StatusPattern> {
        statuses.iter().map(|s| StatusPattern::Exact(*s)).collect()
    }

    #[test]
    fn a_rejection_under_a_declared_class_or_default_keeps_its_status() {
        let client_errors = [StatusPattern::Class(4), StatusPattern::Exact(503)];
        assert_eq!(
            Rejection::forbidden("x").status_among(&client_errors),
            Some(403)
        );
        assert_eq!(
            Rejection::internal().status_among(&client_errors),
            Some(503)
        );
        let default = [StatusPattern::Default];
        assert_eq!(Rejection::unavailable().status_among(&default), Some(503));
    }

    #[test]
    fn a_rejection_keeps_its_status_when_declared_and_falls_back_to_a_server_error() {
        let declared = exact(&[404, 422, 500, 503]);
        assert_eq!(Rejection::not_found("x").status_among(&declared), Some(404));
        assert_eq!(Rejection::forbidden("x").status_among(&declared), Some(500));
        assert_eq!(
            Rejection::unavailable().status_among(&exact(&[404, 503])),
            Some(503)
        );
        assert_eq!(
            Rejection::forbidden("x").status_among(&exact(&[404])),
            Some(404)
        );
        assert_eq!(
            Rejection::internal().status_among(&exact(&[404, 503])),
            Some(503)
        );
        // A client error is not told to retry while another status can say it.
        assert_eq!(
            Rejection::forbidden("x").status_among(&exact(&[503, 404])),
            Some(404)
        );
        assert_eq!(
            Rejection::forbidden("x").status_among(&exact(&[422, 503])),
            Some(503)
        );
        // A 422's body lists problems: no other rejection is written into it.
        assert_eq!(Rejection::forbidden("x").status_among(&exact(&[422])), None);
        assert_eq!(Rejection::forbidden("x").status_among(&[]), None);
    }

    const fn response(status: u16, has_body: bool) -> crate::desc::ResponseDesc {
        crate::desc::ResponseDesc {
            status: StatusPattern::Exact(status),
            has_body,
            media: crate::desc::BodyMedia::Json,
            bytes: false,
            headers: &[],
            provenance: crate::desc::Provenance::Document,
        }
    }

    /// An endpoint declaring a 404 and a 500 with bodies, a 409 without, and a 422.
    static DECLARED: [crate::desc::ResponseDesc; 4] = [
        response(404, true),
        response(409, false),
        response(422, true),
        response(500, true),
    ];

    static FITTING: [StatusPattern; 4] = [
        StatusPattern::Exact(404),
        StatusPattern::Exact(409),
        StatusPattern::Exact(422),
        StatusPattern::Exact(500),
    ];

    fn answered(rejection: Rejection, shape: &RejectionShape) -> (u16, Option<Value>) {
        let endpoint = EndpointDesc {
            responses: &DECLARED,
            rejected_at: &FITTING,
            ..crate::desc::fixtures::endpoint(axum::http::Method::GET, "/", &[], &[])
        };
        let response = rejection.answer(shape, &endpoint);
        let status = response.status().as_u16();
        let body = futures_util::FutureExt::now_or_never(axum::body::to_bytes(
            response.into_body(),
            usize::MAX,
        ))
        .and_then(Result::ok)
        .expect("a rendered body is ready");
        (status, serde_json::from_slice(&body).ok())
    }

    #[test]
    fn a_rejection_is_rendered_once_in_the_shape_at_a_declared_status() {
        let shape = RejectionShape::default();
        assert_eq!(
            answered(Rejection::not_found("No user 7"), &shape),
            (404, Some(json!({"detail": "No user 7"})))
        );
        // Undeclared: the nearest server error, which does not repeat the reason.
        assert_eq!(
            answered(Rejection::forbidden("secret reason"), &shape),
            (500, Some(json!({"detail": Rejection::INTERNAL})))
        );
        // A declared status without a body is answered without one.
        assert_eq!(answered(Rejection::new(409, "Taken"), &shape), (409, None));
        let many: Vec<Issue> = (0..60)
            .map(|_| issue(&[LocPart::key("body")], "Field required"))
            .collect();
        let (status, body) = answered(Rejection::invalid(&many), &shape);
        assert_eq!(status, 422);
        assert_eq!(
            body.and_then(|b| b["detail"].as_array().map(Vec::len)),
            Some(51)
        );
    }

    #[test]
    fn an_endpoint_declaring_no_status_for_rejections_answers_their_own() {
        let endpoint = crate::desc::fixtures::endpoint(axum::http::Method::GET, "/", &[], &[]);
        let response = Rejection::not_found("gone").answer(&RejectionShape::default(), &endpoint);
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }

    fn issue(loc: &[LocPart], msg: &str) -> Issue {
        Issue::new(loc, IssueKind::Missing, msg)
    }

    #[test]
    fn the_default_shape_is_detail() {
        let shape = RejectionShape::default();
        assert_eq!(
            shape.body(404, "No route", None),
            json!({"detail": "No route"})
        );
        let issues = [issue(
            &[LocPart::key("body"), LocPart::key("a")],
            "Field required",
        )];
        assert_eq!(
            shape.body(422, "", Some(&issues)),
            json!({"detail": [{"loc": ["body", "a"], "msg": "Field required", "type": "missing"}]})
        );
    }

    #[test]
    fn a_template_is_filled_and_empty_slots_left_out() {
        let shape = RejectionShape::from_template(
            r#"{"error": {"type": "invalid_request_error", "message": {"$rejection": "message"},
                "param": {"$rejection": "param"}, "code": {"$rejection": "status"}}}"#,
        );
        assert_eq!(
            shape.body(401, "Missing credentials", None),
            json!({"error": {"type": "invalid_request_error", "message": "Missing credentials", "code": 401}})
        );
        let issues = [
            issue(
                &[LocPart::key("body"), LocPart::key("amount")],
                "Field required",
            ),
            issue(&[LocPart::key("query"), LocPart::key("limit")], "Too big"),
        ];
        assert_eq!(
            shape.body(422, "", Some(&issues)),
            json!({"error": {
                "type": "invalid_request_error",
                "message": "Invalid request: amount: Field required; limit: Too big",
                "param": "amount",
                "code": 422
            }})
        );
    }
}
