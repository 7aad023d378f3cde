//! Headers on responses, over real sockets: a hand-written server sets `Location`, `ETag`,
//! rate-limit counters and `Link`, answers 304 to a current entity tag, and the generated
//! client reads each back typed. A value that is no header text answers 500 rather than a
//! response without its declared header; `covenant mock` sends the example headers.

use crate::support;

use covenant_corpus::regressions::response_headers as api;
use std::sync::Arc;

use api::models::{Bucket, Note, NoteRequest};
use api::operations::*;
use api::server::{Answer, Context, HeadersServer};

/// Notes whose text is their entity tag; the note with id 13 has text no header can hold.
struct Server;

fn note(id: i64) -> Note {
    let text = if id == 13 { "line\nbreak" } else { "hello" };
    Note {
        id,
        text: text.to_string(),
    }
}

impl HeadersServer for Server {
    crate::support::accepts_key!("key", App, authenticate_app);

    async fn create_note(
        &self,
        _: Context<(), Self>,
        input: CreateNoteInput,
    ) -> Answer<CreateNoteResponse> {
        Ok(CreateNoteResponse::Created {
            headers: CreateNoteCreatedHeaders {
                location: "https://example.test/v1/notes/7".to_string(),
                etag: format!("\"{}\"", input.body.text),
            },
            body: Note {
                id: 7,
                text: input.body.text,
            },
        })
    }

    async fn get_note(&self, _: Context<(), Self>, input: GetNoteInput) -> Answer<GetNoteResponse> {
        let note = note(input.id);
        let etag = format!("\"{}\"", note.text);
        if input.if_none_match.as_deref() == Some(etag.as_str()) {
            return Ok(GetNoteResponse::NotModified {
                headers: GetNoteNotModifiedHeaders { etag },
            });
        }
        Ok(GetNoteResponse::Ok {
            body: note,
            headers: GetNoteOkHeaders {
                etag,
                x_ratelimit_remaining: 41,
                x_ratelimit_bucket: Some(Bucket::Reads),
                ..serde_json::from_str(r#"{"ETag":"","X-RateLimit-Remaining":0}"#).unwrap()
            },
        })
    }

    async fn open_note(
        &self,
        _: Context<(), Self>,
        input: OpenNoteInput,
    ) -> Answer<OpenNoteResponse> {
        Ok(OpenNoteResponse::Found {
            headers: OpenNoteFoundHeaders {
                location: format!("https://notes.example.test/{}", input.id),
            },
        })
    }

    async fn list_notes(
        &self,
        _: Context<(), Self>,
        input: ListNotesInput,
    ) -> Answer<ListNotesResponse> {
        let next = (input.page < 3).then(|| {
            format!(
                "<https://example.test/v1/notes?page={}>; rel=\"next\"",
                input.page + 1
            )
        });
        Ok(ListNotesResponse::Ok {
            body: vec![note(input.page)],
            headers: ListNotesOkHeaders {
                link: next,
                x_total_count: 3,
            },
        })
    }
}

use support::serve;

async fn client() -> (api::client::Client, String) {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let config = api::client::Config::new(url.clone())
        .with_base_url("https://example.test", url.clone())
        .with_credential(AuthScheme::Key, "key");
    (api::client::Client::new(config).unwrap(), url)
}

#[tokio::test]
async fn a_created_resource_says_where_it_lives() {
    let (client, url) = client().await;
    let input = CreateNoteInput {
        body: NoteRequest {
            text: "hi".to_string(),
        },
    };
    // The only status `create_note` declares: the pattern cannot fail.
    let CreateNoteResponse::Created { body, headers } = client.create_note(input).await.unwrap();
    assert_eq!(body.id, 7);
    assert_eq!(headers.location, "https://example.test/v1/notes/7");
    assert_eq!(headers.etag, "\"hi\"");

    let raw = reqwest::Client::new()
        .post(format!("{url}/v1/notes"))
        .header("X-Api-Key", "key")
        .json(&serde_json::json!({ "text": "hi" }))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 201);
    assert_eq!(raw.headers()["location"], "https://example.test/v1/notes/7");
    assert_eq!(raw.headers()["etag"], "\"hi\"");
}

#[tokio::test]
async fn a_current_entity_tag_answers_304_with_no_body() {
    let (client, _) = client().await;
    let first = client
        .get_note(GetNoteInput {
            id: 1,
            if_none_match: None,
        })
        .await
        .unwrap();
    let GetNoteResponse::Ok { headers, .. } = first else {
        panic!("expected 200, got {first:?}");
    };
    assert_eq!(headers.x_ratelimit_remaining, 41);
    assert_eq!(headers.x_ratelimit_bucket, Some(Bucket::Reads));
    assert_eq!(headers.cache_control, "private", "the spec's default");
    let again = client
        .get_note(GetNoteInput {
            id: 1,
            if_none_match: Some(headers.etag.clone()),
        })
        .await
        .unwrap();
    assert_eq!(
        again,
        GetNoteResponse::NotModified {
            headers: GetNoteNotModifiedHeaders { etag: headers.etag },
        }
    );
}

#[tokio::test]
async fn link_headers_page_a_bare_array_to_its_end() {
    let (client, _) = client().await;
    let mut page = 1;
    let mut seen = Vec::new();
    loop {
        let response = client.list_notes(ListNotesInput { page }).await.unwrap();
        let ListNotesResponse::Ok { body, headers } = response;
        assert_eq!(headers.x_total_count, 3);
        seen.extend(body.into_iter().map(|n| n.id));
        let Some(link) = headers.link else { break };
        let next = link.split("page=").nth(1).unwrap();
        page = next.split('>').next().unwrap().parse().unwrap();
    }
    assert_eq!(seen, [1, 2, 3]);
}

#[tokio::test]
async fn a_declared_redirect_is_answered_not_followed() {
    let (client, _) = client().await;
    let response = client.open_note(OpenNoteInput { id: 4 }).await.unwrap();
    assert_eq!(
        response,
        OpenNoteResponse::Found {
            headers: OpenNoteFoundHeaders {
                location: "https://notes.example.test/4".to_string()
            }
        }
    );
}

#[tokio::test]
async fn a_header_value_that_is_no_header_text_answers_500() {
    let (_, url) = client().await;
    let raw = reqwest::Client::new()
        .get(format!("{url}/v1/notes/13"))
        .header("X-Api-Key", "key")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 500);
    let body: serde_json::Value = raw.json().await.unwrap();
    assert!(body["detail"].as_str().unwrap().contains("ETag"), "{body}");
}

#[tokio::test]
async fn a_response_missing_a_declared_header_does_not_read() {
    let headers = covenant_runtime::headers::map_of(&[("ETag", "\"x\"")]);
    let error = GetNoteResponse::from_parts(200, &headers, br#"{"id":1,"text":"a"}"#).unwrap_err();
    assert!(error.contains("X-RateLimit-Remaining"), "{error}");
}

#[tokio::test]
async fn the_spec_mock_sends_each_declared_header_with_its_example() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions/response_headers.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).unwrap();
    let spec = checked.spec.unwrap();
    let url = serve(support::spec_mock(&spec, |i, _| {
        (i == 0).then(|| "key".to_string())
    }))
    .await;
    let raw = reqwest::Client::new()
        .get(format!("{url}/v1/notes/1"))
        .header("X-Api-Key", "key")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 200);
    let ok = &spec.endpoint_named("get_note").unwrap().responses[0];
    let examples = covenant_codegen::samples::Samples::new(&spec).headers(ok);
    assert_eq!(
        examples.len(),
        4,
        "every declared header, optional ones too"
    );
    for (name, value) in &examples {
        assert_eq!(raw.headers()[name.as_str()], value.as_str(), "{name}");
    }
    let headers = raw.headers().clone();
    let read = GetNoteResponse::from_parts(200, &headers, &raw.bytes().await.unwrap());
    assert!(matches!(read, Ok(GetNoteResponse::Ok { .. })), "{read:?}");
}
