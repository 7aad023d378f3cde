//! Answers streamed item by item over real sockets: the router writes a handler's list as
//! server-sent events or JSON lines, the generated client reads each back into the list (an
//! OpenAI-style stream with comments, event names and a closing `[DONE]` too), and
//! `covenant mock` streams its example the same way.

use crate::support::{self, serve};
use covenant_corpus::regressions::streams as api;
use covenant_runtime::server::axum;
use std::sync::Arc;

use api::models::{ChatRequest, Chunk};
use api::operations::*;
use api::server::{Answer, Context, StreamsServer};

/// Answers a prompt word by word.
struct Server;

fn chunk(index: i64, delta: &str) -> Chunk {
    Chunk {
        index,
        delta: delta.to_string(),
    }
}

impl StreamsServer for Server {
    support::accepts_key!("key");

    async fn chat(&self, _: Context<(), Self>, input: ChatInput) -> Answer<ChatResponse> {
        let words = input.body.prompt.split(' ').enumerate();
        Ok(ChatResponse::Ok(
            words.map(|(i, w)| chunk(i as i64, w)).collect(),
        ))
    }

    async fn export(&self, _: Context<(), Self>, _: ExportInput) -> Answer<ExportResponse> {
        Ok(ExportResponse::Ok(vec![chunk(0, "a"), chunk(1, "b\nc")]))
    }
}

fn client(url: &str) -> api::client::Client {
    let config = api::client::Config::new(url.to_string())
        .with_credential(AuthScheme::Key, "key".to_string());
    api::client::Client::new(config).unwrap()
}

fn chat_input(prompt: &str) -> ChatInput {
    ChatInput {
        body: ChatRequest {
            prompt: prompt.into(),
        },
    }
}

#[tokio::test]
async fn a_list_is_written_as_events_and_lines_and_read_back_item_by_item() {
    let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
    let http = reqwest::Client::new();
    let sent = http
        .post(format!("{url}/chat"))
        .bearer_auth("key")
        .json(&serde_json::json!({"prompt": "hi there"}))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.headers()["content-type"], "text/event-stream");
    assert_eq!(
        sent.text().await.unwrap(),
        "data: {\"index\":0,\"delta\":\"hi\"}\n\ndata: {\"index\":1,\"delta\":\"there\"}\n\n"
    );
    let lines = http
        .get(format!("{url}/export"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(lines.headers()["content-type"], "application/x-ndjson");
    assert_eq!(
        lines.text().await.unwrap(),
        "{\"index\":0,\"delta\":\"a\"}\n{\"index\":1,\"delta\":\"b\\nc\"}\n"
    );

    let ChatResponse::Ok(chunks) = client(&url).chat(chat_input("hi there")).await.unwrap();
    assert_eq!(chunks, [chunk(0, "hi"), chunk(1, "there")]);
    let ExportResponse::Ok(chunks) = client(&url).export(ExportInput {}).await.unwrap();
    assert_eq!(chunks, [chunk(0, "a"), chunk(1, "b\nc")]);
}

/// An upstream that streams as OpenAI does: comments to keep the line open, named events,
/// data over two lines, and `[DONE]` at the end.
#[tokio::test]
async fn the_client_reads_a_stream_written_another_way() {
    let stream = ": ping\r\n\r\nevent: chunk\r\ndata: {\"index\": 0,\r\ndata: \"delta\": \"Hel\"}\r\n\r\ndata: {\"index\": 1, \"delta\": \"lo\"}\r\n\r\ndata: [DONE]\r\n\r\n";
    let route = axum::routing::post(move || async move {
        (
            [("content-type", "text/event-stream; charset=utf-8")],
            stream,
        )
    });
    let url = serve(axum::Router::new().route("/chat", route)).await;
    let ChatResponse::Ok(chunks) = client(&url).chat(chat_input("x")).await.unwrap();
    assert_eq!(chunks, [chunk(0, "Hel"), chunk(1, "lo")]);

    let broken = axum::routing::post(|| async {
        (
            [("content-type", "text/event-stream")],
            "data: {\"index\": 0,\n\n",
        )
    });
    let url = serve(axum::Router::new().route("/chat", broken)).await;
    let refused = client(&url).chat(chat_input("x")).await.unwrap_err();
    assert!(
        refused.to_string().contains("event 1 holds no JSON value"),
        "{refused}"
    );
}

#[tokio::test]
async fn the_mock_streams_its_example() {
    let spec = support::regression_spec("streams");
    let url = serve(support::spec_mock(&spec, |_, _| Some("key".into()))).await;
    let ExportResponse::Ok(chunks) = client(&url).export(ExportInput {}).await.unwrap();
    assert!(!chunks.is_empty());
    let answer = reqwest::Client::new()
        .get(format!("{url}/export"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["content-type"], "application/x-ndjson");
    let text = answer.text().await.unwrap();
    assert_eq!(text.lines().count(), chunks.len(), "{text}");
}

/// The OpenAPI document says the answer is text whose items are chunks.
#[test]
fn openapi_states_the_stream_and_its_items() {
    let spec = support::regression_spec("streams");
    let documents = covenant_codegen::emit::openapi::documents(&spec);
    let (_, text) = documents.iter().next().unwrap();
    let openapi: serde_json::Value = serde_json::from_str(text).unwrap();
    let content = &openapi["paths"]["/chat"]["post"]["responses"]["200"]["content"];
    let schema = &content["text/event-stream"]["schema"];
    assert_eq!(schema["type"], "string");
    assert_eq!(
        schema["x-item-schema"]["$ref"],
        "#/components/schemas/Chunk"
    );
}
