//! Credentials wherever a scheme says they travel (a named header, Bearer, Basic, a query
//! parameter, a cookie, OAuth2 tokens), over real sockets: the generated client sends each,
//! a hand-written server learns which scheme it came as, scopes are asked of the server,
//! and refusals carry the challenges HTTP clients expect. The server leaves `delete_note`
//! out: the trait's default answers its declared 501.

use crate::support;

use covenant_corpus::regressions::credentials as api;
use covenant_runtime::server::{AuthError, Unavailable};
use std::sync::Arc;

use api::operations::{
    AuthScheme, WhoamiAppInput, WhoamiAppResponse, WhoamiInput, WhoamiResponse, WriteNoteInput,
    WriteNoteResponse,
};
use api::server::{Answer, Caller, Context, CredentialsServer};

/// Who a credential is: the scheme it came as and the scopes it was granted.
#[derive(Clone, Debug)]
struct Who {
    scheme: AuthScheme,
    scopes: Vec<&'static str>,
}

/// Accepts one credential per scheme; the OAuth token `oauth-token` is the `oauth` scheme's,
/// although `token` (also Bearer) is tried first.
struct Server;

/// The one credential each scheme accepts, with its scopes.
fn who(scheme: AuthScheme, credential: &str) -> Result<Who, AuthError> {
    let (expected, scopes): (&str, &[&'static str]) = match scheme {
        AuthScheme::Key => ("app-key", &[]),
        AuthScheme::Token => ("user-token", &["read"]),
        AuthScheme::Login => ("ada:secret", &[]),
        AuthScheme::QueryKey => ("query-key", &[]),
        AuthScheme::Session => ("session-1", &[]),
        AuthScheme::Oauth => ("oauth-token", &["read", "write", "notes:admin"]),
        AuthScheme::ClientId => ("app-1", &[]),
        AuthScheme::ClientSecret => ("app-1-secret", &[]),
    };
    if credential == expected {
        Ok(Who {
            scheme,
            scopes: scopes.to_vec(),
        })
    } else {
        Err(AuthError::Unknown)
    }
}

/// An app and a user are both a `Who` here.
fn either(caller: &Caller<Server>) -> &Who {
    match caller {
        Caller::App(who) | Caller::User(who) => who,
    }
}

impl CredentialsServer for Server {
    type App = Who;
    type User = Who;

    async fn authenticate_app(
        &self,
        scheme: AuthScheme,
        credential: &str,
    ) -> Result<Who, AuthError> {
        who(scheme, credential)
    }

    async fn authenticate_user(
        &self,
        scheme: AuthScheme,
        credential: &str,
    ) -> Result<Who, AuthError> {
        who(scheme, credential)
    }

    async fn gate_open(
        &self,
        _: Option<&Caller<Self>>,
        _: api::operations::Gate,
    ) -> Result<bool, Unavailable> {
        Ok(true)
    }

    async fn has_scopes(
        &self,
        caller: &Caller<Self>,
        _scheme: AuthScheme,
        scopes: &'static [&'static str],
    ) -> Result<bool, Unavailable> {
        Ok(scopes.iter().all(|s| either(caller).scopes.contains(s)))
    }

    /// An app's key or a user's token: the endpoint takes either kind.
    async fn whoami(
        &self,
        ctx: Context<Caller<Self>, Self>,
        _: WhoamiInput,
    ) -> Answer<WhoamiResponse> {
        Ok(WhoamiResponse::Ok(api::models::Caller {
            scheme: either(&ctx.principal).scheme.name().to_string(),
        }))
    }

    /// The app's id gives the principal; its secret arrives beside it.
    async fn whoami_app(
        &self,
        ctx: Context<Who, Self>,
        _: WhoamiAppInput,
    ) -> Answer<WhoamiAppResponse> {
        let secret = ctx
            .also_as(AuthScheme::ClientSecret)
            .map(|caller| either(caller).scheme.name());
        Ok(WhoamiAppResponse::Ok(api::models::Caller {
            scheme: format!(
                "{} with {}",
                ctx.principal.scheme.name(),
                secret.unwrap_or("nothing")
            ),
        }))
    }

    async fn write_note(
        &self,
        ctx: Context<Who, Self>,
        _: WriteNoteInput,
    ) -> Answer<WriteNoteResponse> {
        Ok(WriteNoteResponse::Created(api::models::Caller {
            scheme: ctx.principal.scheme.name().to_string(),
        }))
    }
}

async fn serve() -> String {
    support::serve(api::server::router(Arc::new(Server), Default::default())).await
}

fn client(url: &str, scheme: AuthScheme, credential: &str) -> api::client::Client {
    let config = api::client::Config::new(url.to_string())
        .with_base_url("https://example.test", url.to_string())
        .with_credential(scheme, credential.to_string());
    api::client::Client::new(config).unwrap()
}

#[tokio::test]
async fn the_client_sends_each_scheme_where_it_travels_and_the_server_learns_which() {
    let url = serve().await;
    for (scheme, credential) in [
        (AuthScheme::Key, "app-key"),
        (AuthScheme::Token, "user-token"),
        (AuthScheme::Login, "ada:secret"),
        (AuthScheme::QueryKey, "query-key"),
        (AuthScheme::Session, "session-1"),
        (AuthScheme::Oauth, "oauth-token"),
    ] {
        let answer = client(&url, scheme, credential)
            .whoami(WhoamiInput::default())
            .await
            .unwrap();
        let WhoamiResponse::Ok(caller) = answer else {
            panic!("{scheme:?} is accepted: {answer:?}");
        };
        assert_eq!(caller.scheme, scheme.name(), "{scheme:?} arrives as itself");
    }
}

#[tokio::test]
async fn endpoints_ask_for_their_scopes() {
    let url = serve().await;
    let note = || WriteNoteInput {
        api_key: None,
        body: api::models::WriteNoteRequest {
            text: "hello".into(),
        },
    };
    // The oauth token holds write and notes:admin; the user token only read.
    let written = client(&url, AuthScheme::Oauth, "oauth-token")
        .write_note(note())
        .await
        .unwrap();
    assert!(
        matches!(written, WriteNoteResponse::Created(ref c) if c.scheme == "oauth"),
        "{written:?}"
    );
    let refused = client(&url, AuthScheme::Token, "user-token")
        .write_note(note())
        .await
        .unwrap();
    assert!(
        matches!(refused, WriteNoteResponse::Forbidden(_)),
        "{refused:?}"
    );
    // A session needs no scope here.
    let session = client(&url, AuthScheme::Session, "session-1")
        .write_note(note())
        .await
        .unwrap();
    assert!(
        matches!(session, WriteNoteResponse::Created(_)),
        "{session:?}"
    );

    let raw = reqwest::Client::new()
        .post(format!("{url}/v1/notes"))
        .bearer_auth("user-token")
        .json(&serde_json::json!({"text": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 403);
    assert_eq!(
        raw.headers()["www-authenticate"],
        "Bearer error=\"insufficient_scope\", scope=\"write\""
    );
    let body: serde_json::Value = raw.json().await.unwrap();
    assert!(body["detail"].as_str().unwrap().contains("write"), "{body}");
}

#[tokio::test]
async fn a_method_left_out_answers_the_declared_501() {
    let url = serve().await;
    let answer = client(&url, AuthScheme::Session, "session-1")
        .delete_note(api::operations::DeleteNoteInput {
            note_id: covenant_runtime::Uuid(uuid::Uuid::nil()),
        })
        .await
        .unwrap();
    let api::operations::DeleteNoteResponse::NotImplemented(problem) = answer else {
        panic!("the default body answers 501: {answer:?}");
    };
    assert_eq!(problem.detail, "delete_note is not implemented yet");
}

#[tokio::test]
async fn refusals_say_where_to_send_credentials_and_challenge_http_schemes() {
    let url = serve().await;
    let http = reqwest::Client::new();
    let whoami = format!("{url}/v1/whoami");

    let missing = http.get(&whoami).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    let challenges: Vec<&str> = missing
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        challenges,
        ["Bearer", "Basic realm=\"api\", charset=\"UTF-8\""]
    );
    let body: serde_json::Value = missing.json().await.unwrap();
    let detail = body["detail"].as_str().unwrap();
    for place in [
        "the X-Api-Key header",
        "a Bearer token in the Authorization header",
        "Basic credentials",
        "the api_key query parameter",
        "the sid cookie",
    ] {
        assert!(detail.contains(place), "{detail}");
    }

    let malformed = http
        .get(&whoami)
        .header("authorization", "Basic not base64!")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 401);
    let body: serde_json::Value = malformed.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("Malformed Basic"),
        "{body}"
    );

    let wrong_cookie = http
        .get(&whoami)
        .header("cookie", "theme=dark; sid=stolen")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_cookie.status(), 401);

    let cookie_among_others = http
        .get(&whoami)
        .header("cookie", "theme=dark; sid=session-1")
        .send()
        .await
        .unwrap();
    assert_eq!(cookie_among_others.status(), 200);

    let in_query = http
        .get(format!("{whoami}?api_key=query-key"))
        .send()
        .await
        .unwrap();
    assert_eq!(in_query.status(), 200);
}

#[tokio::test]
async fn schemes_sent_together_are_each_required_and_each_checked() {
    let url = serve().await;
    let both = api::client::Config::new(url.clone())
        .with_base_url("https://example.test", url.clone())
        .with_credential(AuthScheme::ClientId, "app-1".to_string())
        .with_credential(AuthScheme::ClientSecret, "app-1-secret".to_string());
    let answer = api::client::Client::new(both)
        .unwrap()
        .whoami_app(WhoamiAppInput::default())
        .await
        .unwrap();
    let WhoamiAppResponse::Ok(caller) = answer else {
        panic!("the id and secret together are accepted: {answer:?}");
    };
    assert_eq!(caller.scheme, "client_id with client_secret");

    // A client with the id alone sends nothing, and says what it lacks.
    let refused = client(&url, AuthScheme::ClientId, "app-1")
        .whoami_app(WhoamiAppInput::default())
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("client_secret"), "{refused}");

    let http = reqwest::Client::new();
    let app = format!("{url}/v1/app");
    let detail = |answer: reqwest::Response| async move {
        assert_eq!(answer.status(), 401);
        let body: serde_json::Value = answer.json().await.unwrap();
        body["detail"].as_str().unwrap().to_string()
    };
    let none = http.get(&app).send().await.unwrap();
    assert_eq!(
        detail(none).await,
        "Missing credentials: send the X-Client-Id header, with the X-Client-Secret header"
    );
    let id_alone = http
        .get(&app)
        .header("x-client-id", "app-1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        detail(id_alone).await,
        "Missing credentials: send the X-Client-Secret header as well"
    );
    let wrong_secret = http
        .get(&app)
        .header("x-client-id", "app-1")
        .header("x-client-secret", "guess")
        .send()
        .await
        .unwrap();
    assert_eq!(
        detail(wrong_secret).await,
        "Invalid credentials in the X-Client-Secret header"
    );
}
