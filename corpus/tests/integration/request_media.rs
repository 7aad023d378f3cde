//! A JSON request body of another JSON type (`merge-patch+json`), also read from YAML and
//! CBOR, over real sockets: the client labels it with its own type, the router reads every
//! declared type into the same value, and refuses any other naming them all.

use crate::support::serve;
use covenant_corpus::regressions::request_media as api;
use std::sync::Arc;

use api::models::{Note, NotePatch};
use api::operations::*;
use api::server::{Answer, Context, RequestMediaServer};

/// Answers the note the patch makes of an empty one.
struct Server;

impl RequestMediaServer for Server {
    crate::support::accepts_key!("key");

    async fn patch_note(
        &self,
        _: Context<(), Self>,
        input: PatchNoteInput,
    ) -> Answer<PatchNoteResponse> {
        Ok(PatchNoteResponse::Ok(Note {
            id: input.id,
            text: input.body.text.unwrap_or_default(),
            tags: input.body.tags.unwrap_or_default(),
        }))
    }
}

async fn send(url: &str, media: &str, body: Vec<u8>) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .patch(format!("{url}/notes/7"))
        .bearer_auth("key")
        .header("content-type", media)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

fn patched() -> serde_json::Value {
    serde_json::json!({"id": "7", "text": "hi", "tags": ["a", "b"]})
}

#[tokio::test]
async fn every_declared_type_reads_into_the_same_value() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let json = br#"{"text": "hi", "tags": ["a", "b"]}"#.to_vec();
    for media in [
        "application/merge-patch+json",
        "application/json",
        "application/merge-patch+json; charset=utf-8",
    ] {
        assert_eq!(
            send(&url, media, json.clone()).await,
            (200, patched()),
            "{media}"
        );
    }
    let yaml = b"text: hi\ntags:\n  - a\n  - b\n".to_vec();
    assert_eq!(
        send(&url, "application/apply-patch+yaml", yaml).await,
        (200, patched())
    );
    let mut cbor = Vec::new();
    ciborium::into_writer(
        &serde_json::json!({"text": "hi", "tags": ["a", "b"]}),
        &mut cbor,
    )
    .unwrap();
    assert_eq!(send(&url, "application/cbor", cbor).await, (200, patched()));
}

#[tokio::test]
async fn a_value_read_from_yaml_is_checked_as_json_is() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let (status, body) = send(
        &url,
        "application/apply-patch+yaml",
        b"text: [1, 2]\n".to_vec(),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("text"), "{body}");
    let (status, body) = send(
        &url,
        "application/apply-patch+yaml",
        b"text: [unclosed\n".to_vec(),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("YAML"), "{body}");
}

#[tokio::test]
async fn another_type_is_refused_naming_every_declared_one() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let (status, body) = send(&url, "application/xml", b"<note/>".to_vec()).await;
    assert_eq!(status, 415, "{body}");
    let detail = body["detail"].as_str().unwrap_or_default();
    for media in [
        "application/merge-patch+json",
        "application/apply-patch+yaml",
        "application/cbor",
    ] {
        assert!(detail.contains(media), "{detail}");
    }
}

#[tokio::test]
async fn the_client_sends_its_own_json_type() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let input = PatchNoteInput {
        id: "7".to_string(),
        body: NotePatch {
            text: Some("hi".to_string()),
            tags: None,
        },
    };
    let PatchNoteResponse::Ok(note) = client.patch_note(input).await.unwrap();
    assert_eq!(note.text, "hi");
}
