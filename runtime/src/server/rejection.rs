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

    /// The status an endpoint answers this rejection with: its own when the response the
    /// endpoint declares for it (exact, else its class, else `default`) is one a rejection is
    /// written into. Otherwise the endpoint lacks it, a fault of the service, said by the
    /// nearest such status: 500, another server error but 503, then (for a server error) 503,
    /// then a client error, and 503 last. Never a 422, whose body lists problems, for another
    /// rejection. `None` when no status will do.
    pub fn status_at<A, G>(
        &self,
        endpoint: &EndpointDesc<'_, A, G>,
        shape: &RejectionShape,
    ) -> Option<u16> {
        if writable(endpoint, shape, self.status, self.issues.is_some()) {
            return Some(self.status);
        }
        self.fallbacks(endpoint.rejected_at)
            .find(|status| writable(endpoint, shape, *status, false))
    }

    /// The statuses to try when the rejection's own will not do, nearest first.
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

    /// The endpoint's answer to this rejection, its body rendered once in the shape the spec
    /// gives the endpoint (`rejection_shape`, the one `rejected_at` was worked out for) at
    /// [`Self::status_at`], without a body where that status declares none. An endpoint
    /// that declares no status for it answers the rejection's own, which is logged: the spec
    /// does not say how it refuses.
    pub fn answer<A, G>(self, endpoint: &EndpointDesc<'_, A, G>) -> Response {
        let shape = endpoint
            .rejection_shape
            .map_or_else(RejectionShape::default, RejectionShape::from_spec);
        let status = match self.status_at(endpoint, &shape) {
            Some(status) => status,
            None => {
                tracing::warn!(
                    endpoint = endpoint.name,
                    status = self.status,
                    "the endpoint declares no status its rejection can be written in"
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
        let status = code.as_u16();
        if endpoint.response(status).is_some_and(|r| !r.has_body) {
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

/// Whether a rejection (listing problems or not) written at `status` is an instance of what
/// the endpoint declares for it ([`EndpointDesc::response`], as a client reads it): that response is one `generate` found the shape writes
/// (`rejected_at`), and in the default `{"detail": …}` shape a body listing problems is the
/// 422's alone.
fn writable<A, G>(
    endpoint: &EndpointDesc<'_, A, G>,
    shape: &RejectionShape,
    status: u16,
    lists_problems: bool,
) -> bool {
    let Some(response) = endpoint.response(status) else {
        return false;
    };
    if !endpoint.rejected_at.contains(&response.status) {
        return false;
    }
    if !shape.is_default() || !response.has_body {
        return true;
    }
    (response.status == StatusPattern::Exact(422)) == lists_problems
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

    /// An endpoint declaring `declared`, each with a body; those of `fitting` are the ones a
    /// rejection is written into.
    fn endpoint(
        declared: &[StatusPattern],
        fitting: &[StatusPattern],
    ) -> EndpointDesc<'static, (), ()> {
        let responses: Vec<crate::desc::ResponseDesc> = (declared.iter())
            .map(|status| crate::desc::ResponseDesc {
                status: *status,
                ..response(200, true)
            })
            .collect();
        EndpointDesc {
            responses: Box::leak(responses.into_boxed_slice()),
            rejected_at: Box::leak(fitting.to_vec().into_boxed_slice()),
            ..crate::desc::fixtures::endpoint(axum::http::Method::GET, "/", &[], &[])
        }
    }

    /// The status of `rejection` at an endpoint whose every declared status holds one.
    fn status_among(rejection: &Rejection, fitting: &[StatusPattern]) -> Option<u16> {
        rejection.status_at(&endpoint(fitting, fitting), &RejectionShape::default())
    }

    #[test]
    fn a_rejection_under_a_declared_class_or_default_keeps_its_status() {
        let client_errors = [StatusPattern::Class(4), StatusPattern::Exact(503)];
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &client_errors),
            Some(403)
        );
        assert_eq!(
            status_among(&Rejection::internal(), &client_errors),
            Some(503)
        );
        let default = [StatusPattern::Default];
        assert_eq!(status_among(&Rejection::unavailable(), &default), Some(503));
    }

    #[test]
    fn a_rejection_keeps_its_status_when_declared_and_falls_back_to_a_server_error() {
        let declared = exact(&[404, 422, 500, 503]);
        assert_eq!(
            status_among(&Rejection::not_found("x"), &declared),
            Some(404)
        );
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &declared),
            Some(500)
        );
        assert_eq!(
            status_among(&Rejection::unavailable(), &exact(&[404, 503])),
            Some(503)
        );
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &exact(&[404])),
            Some(404)
        );
        assert_eq!(
            status_among(&Rejection::internal(), &exact(&[404, 503])),
            Some(503)
        );
        // A client error is not told to retry while another status can say it.
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &exact(&[503, 404])),
            Some(404)
        );
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &exact(&[422, 503])),
            Some(503)
        );
        // A 422's body lists problems: no other rejection is written into it.
        assert_eq!(
            status_among(&Rejection::forbidden("x"), &exact(&[422])),
            None
        );
        assert_eq!(status_among(&Rejection::forbidden("x"), &[]), None);
    }

    #[test]
    fn a_status_is_judged_by_the_response_a_client_reads_it_as() {
        // A 404 of its own body, which no rejection fits, beside a `default` that does: the
        // 404 is not written over `default`'s body, which a client would not read as a 404.
        let own_404 = endpoint(
            &[StatusPattern::Exact(404), StatusPattern::Default],
            &[StatusPattern::Default],
        );
        let shape = RejectionShape::default();
        assert_eq!(
            Rejection::not_found("x").status_at(&own_404, &shape),
            Some(500)
        );
        // Problems are listed in the 422's body alone: a `4XX` of `{"detail": "…"}` holds a
        // message, not a list, so the nearest other status says it.
        let client_errors = [StatusPattern::Class(4), StatusPattern::Exact(500)];
        let issues = [issue(&[LocPart::key("body")], "Field required")];
        assert_eq!(
            Rejection::invalid(&issues)
                .status_at(&endpoint(&client_errors, &client_errors), &shape),
            Some(500)
        );
        let with_422 = exact(&[422, 500]);
        let no_list = Rejection::new(422, "a message, not a list");
        assert_eq!(
            no_list.status_at(&endpoint(&with_422, &with_422), &shape),
            Some(500)
        );
        // In a spec's shape a message goes wherever the shape is declared, a 422 too.
        let spec_shape = RejectionShape::from_spec(r#"{"error": {"$rejection": "message"}}"#);
        assert_eq!(
            no_list.status_at(&endpoint(&with_422, &with_422), &spec_shape),
            Some(422)
        );
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

    /// The answer of an endpoint declaring [`DECLARED`], in the spec's shape `template`
    /// (the default shape when `None`).
    fn answered(rejection: Rejection, template: Option<&'static str>) -> (u16, Option<Value>) {
        let endpoint = EndpointDesc {
            responses: &DECLARED,
            rejected_at: &FITTING,
            rejection_shape: template,
            ..crate::desc::fixtures::endpoint(axum::http::Method::GET, "/", &[], &[])
        };
        let response = rejection.answer(&endpoint);
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
        let shape = None;
        assert_eq!(
            answered(Rejection::not_found("No user 7"), shape),
            (404, Some(json!({"detail": "No user 7"})))
        );
        // Undeclared: the nearest server error, which does not repeat the reason.
        assert_eq!(
            answered(Rejection::forbidden("secret reason"), shape),
            (500, Some(json!({"detail": Rejection::INTERNAL})))
        );
        // A declared status without a body is answered without one.
        assert_eq!(answered(Rejection::new(409, "Taken"), shape), (409, None));
        let many: Vec<Issue> = (0..60)
            .map(|_| issue(&[LocPart::key("body")], "Field required"))
            .collect();
        let (status, body) = answered(Rejection::invalid(&many), shape);
        assert_eq!(status, 422);
        assert_eq!(
            body.and_then(|b| b["detail"].as_array().map(Vec::len)),
            Some(51)
        );
        // The spec's shape for the endpoint, whatever the router was configured with.
        let template = Some(r#"{"error": {"message": {"$rejection": "message"}}}"#);
        assert_eq!(
            answered(Rejection::not_found("No user 7"), template),
            (404, Some(json!({"error": {"message": "No user 7"}})))
        );
    }

    #[test]
    fn an_endpoint_declaring_no_status_for_rejections_answers_their_own() {
        let endpoint = crate::desc::fixtures::endpoint(axum::http::Method::GET, "/", &[], &[]);
        let response = Rejection::not_found("gone").answer(&endpoint);
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
