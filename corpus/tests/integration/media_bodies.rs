//! Bodies other than JSON over real sockets: the generated client sends a multipart upload
//! with files beside fields, bytes and text as they are; the router reads each into the
//! typed input (or names every part that does not fit in the 422) and writes text and bytes
//! responses with their declared media types.

use crate::support;

use covenant_corpus::regressions::media as api;
use covenant_runtime::{Bytes, FilePart};
use std::sync::Arc;

use api::models::*;
use api::operations::*;
use api::server::{Answer, Context, MediaServer};

/// Answers what it received: sizes and names of an upload, the image's bytes, the text as
/// HTML.
struct Echo;

impl MediaServer for Echo {
    crate::support::accepts_key!("key", App, authenticate_app);

    async fn upload(&self, _: Context<(), Self>, input: UploadInput) -> Answer<UploadResponse> {
        let body = input.body;
        Ok(UploadResponse::Ok(Received {
            purpose: body.purpose,
            filename: body.file.filename.clone(),
            content_type: body.file.content_type.clone(),
            size: body.file.content.len() as i64,
            attachments: body.attachments.map_or(0, |a| a.len() as i64),
            thumbnail_size: body.thumbnail.map(|t| t.len() as i64),
            pages: body.pages,
        }))
    }

    async fn mirror_image(
        &self,
        _: Context<(), Self>,
        input: MirrorImageInput,
    ) -> Answer<MirrorImageResponse> {
        Ok(MirrorImageResponse::Ok(input.body))
    }

    async fn render(&self, _: Context<(), Self>, input: RenderInput) -> Answer<RenderResponse> {
        Ok(RenderResponse::Ok(format!("<p>{}</p>", input.body)))
    }

    async fn page(&self, _: Context<(), Self>, input: PageInput) -> Answer<PageResponse> {
        Ok(match input.name.as_str() {
            "home" => PageResponse::Ok("<h1>Home</h1>".into()),
            other => PageResponse::NotFound(format!("<h1>No page {other}</h1>")),
        })
    }

    async fn export(&self, _: Context<(), Self>, input: ExportInput) -> Answer<ExportResponse> {
        let rows: String = (1..=input.rows).map(|n| format!("{n},row {n}\n")).collect();
        Ok(ExportResponse::Ok {
            body: format!("id,name\n{rows}"),
            headers: ExportOkHeaders {
                content_disposition: "attachment; filename=\"export.csv\"".into(),
            },
        })
    }

    async fn checksum(
        &self,
        _: Context<(), Self>,
        input: ChecksumInput,
    ) -> Answer<ChecksumResponse> {
        let length = input.body.data.len() as i64;
        Ok(ChecksumResponse::Ok(ChecksumResult {
            data: input.body.data,
            length,
        }))
    }
}

async fn serve() -> String {
    support::serve(api::server::router(Arc::new(Echo), Default::default())).await
}

fn client(url: &str) -> api::client::Client {
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    api::client::Client::new(config).unwrap()
}

/// Not UTF-8, and holding what a multipart reader must not mistake for a boundary.
const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', b'-', b'-', 0, 255,
];

#[tokio::test]
async fn the_client_uploads_files_beside_fields_and_the_router_reads_each_part() {
    let url = serve().await;
    let input = UploadInput {
        idempotency_key: None,
        body: UploadRequest {
            file: FilePart::new("scan \"1\".png", "image/png", PNG),
            purpose: Purpose::Evidence,
            pages: Some(3),
            attachments: Some(vec![
                FilePart::new("a.txt", "text/plain", "first"),
                FilePart::new("b.txt", "text/plain", "second"),
            ]),
            thumbnail: Some(Bytes::from(&PNG[..4])),
        },
    };
    let UploadResponse::Ok(received) = client(&url).upload(input).await.unwrap();
    assert_eq!(
        received,
        Received {
            purpose: Purpose::Evidence,
            filename: Some("scan %221%22.png".into()),
            content_type: Some("image/png".into()),
            size: PNG.len() as i64,
            attachments: 2,
            thumbnail_size: Some(4),
            pages: Some(3),
        }
    );
}

/// Posts a hand-written multipart body to the upload endpoint.
async fn post_parts(
    url: &str,
    parts: &[covenant_runtime::multipart::Part],
) -> (u16, serde_json::Value) {
    let (content_type, body) = covenant_runtime::multipart::encode(parts);
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/uploads"))
        .header("x-api-key", "key")
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn locations(body: &serde_json::Value) -> Vec<String> {
    body["detail"]
        .as_array()
        .unwrap_or_else(|| panic!("a list of problems: {body}"))
        .iter()
        .map(|issue| format!("{} {}", issue["loc"], issue["type"].as_str().unwrap_or("")))
        .collect()
}

#[tokio::test]
async fn every_part_that_does_not_fit_is_named() {
    use covenant_runtime::multipart::Part;
    let url = serve().await;
    let parts = [
        Part::text("purpose", "selfie"),
        Part::text("pages", "three"),
        Part {
            content: vec![0xff],
            ..Part::text("thumbnail", "")
        },
    ];
    let (status, body) = post_parts(&url, &parts).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        locations(&body),
        [
            r#"["body","pages"] int_parsing"#,
            r#"["body","file"] missing"#,
            r#"["body","purpose"] enum"#,
        ],
        "{body}"
    );
    let (status, body) = post_parts(&url, &[Part::text("pages", "0")]).await;
    assert_eq!(status, 422);
    assert!(
        locations(&body).contains(&r#"["body","pages"] greater_than_equal"#.to_string()),
        "{body}"
    );
}

#[tokio::test]
async fn a_repeated_upload_is_the_same_request_whatever_its_boundary() {
    use covenant_runtime::multipart::{Part, encode};
    let url = serve().await;
    let send = |purpose: &'static str| {
        let parts = [
            Part::text("purpose", purpose),
            Part {
                filename: Some("a.png".into()),
                content_type: Some("image/png".into()),
                ..Part::text("file", "png")
            },
        ];
        let (content_type, body) = encode(&parts);
        reqwest::Client::new()
            .post(format!("{url}/v1/uploads"))
            .header("x-api-key", "key")
            .header("idempotency-key", "upload-1")
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let first = send("avatar").await.unwrap();
    assert_eq!(first.status(), 200);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let repeat = send("avatar").await.unwrap();
    assert_eq!(repeat.status(), 200);
    assert_eq!(repeat.headers()["idempotent-replayed"], "true");
    let other = send("evidence").await.unwrap();
    assert_eq!(other.status(), 400, "the key sent with other parts");
}

#[tokio::test]
async fn a_body_that_is_no_multipart_body_is_refused_at_body() {
    let url = serve().await;
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/uploads"))
        .header("x-api-key", "key")
        .header("content-type", "application/json")
        .body(r#"{"purpose": "avatar"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body["detail"].as_array().unwrap().len(),
        1,
        "one problem: {body}"
    );
    assert_eq!(
        body["detail"][0]["loc"],
        serde_json::json!(["body"]),
        "{body}"
    );
    assert!(
        body["detail"][0]["msg"]
            .as_str()
            .unwrap()
            .contains("not multipart/form-data"),
        "{body}"
    );
}

#[tokio::test]
async fn bytes_travel_as_they_are_both_ways() {
    let url = serve().await;
    let input = MirrorImageInput {
        name: "logo".into(),
        body: Bytes::from(PNG),
    };
    let MirrorImageResponse::Ok(image) = client(&url).mirror_image(input).await.unwrap();
    assert_eq!(&image[..], PNG);
    let response = reqwest::Client::new()
        .put(format!("{url}/v1/images/logo"))
        .header("x-api-key", "key")
        .body(PNG.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "image/png");
    assert_eq!(&response.bytes().await.unwrap()[..], PNG);
}

#[tokio::test]
async fn text_travels_as_it_is_and_must_be_utf8() {
    let url = serve().await;
    let input = RenderInput {
        body: "# Título\n".into(),
    };
    let RenderResponse::Ok(html) = client(&url).render(input).await.unwrap();
    assert_eq!(html, "<p># Título\n</p>");
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/render"))
        .header("x-api-key", "key")
        .body(vec![b'a', 0xff])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body["detail"][0]["loc"],
        serde_json::json!(["body"]),
        "{body}"
    );
    assert!(
        body["detail"][0]["msg"].as_str().unwrap().contains("UTF-8"),
        "{body}"
    );
}

#[tokio::test]
async fn a_text_response_carries_its_media_type_and_headers() {
    let url = serve().await;
    let response = client(&url).export(ExportInput { rows: 1 }).await.unwrap();
    let ExportResponse::Ok { body, headers } = response;
    assert_eq!(body, "id,name\n1,row 1\n");
    assert_eq!(
        headers.content_disposition,
        "attachment; filename=\"export.csv\""
    );
    let raw = reqwest::Client::new()
        .get(format!("{url}/v1/export"))
        .header("x-api-key", "key")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.headers()["content-type"], "text/csv");
}

#[tokio::test]
async fn an_error_written_as_it_is_keeps_its_media_type() {
    let url = serve().await;
    let name = |name: &str| PageInput { name: name.into() };
    let found = client(&url).page(name("home")).await.unwrap();
    assert_eq!(found, PageResponse::Ok("<h1>Home</h1>".into()));
    let missing = client(&url).page(name("away")).await.unwrap();
    assert_eq!(
        missing,
        PageResponse::NotFound("<h1>No page away</h1>".into())
    );
    let raw = reqwest::Client::new()
        .get(format!("{url}/v1/pages/away"))
        .header("x-api-key", "key")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 404);
    assert_eq!(raw.headers()["content-type"], "text/html; charset=utf-8");
    // The router's own errors stay JSON: a missing key is no page.
    let unauthorized = reqwest::Client::new()
        .get(format!("{url}/v1/pages/away"))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), 401);
    assert!(
        unauthorized.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
}

#[tokio::test]
async fn bytes_inside_json_are_base64() {
    let url = serve().await;
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/checksum"))
        .header("x-api-key", "key")
        .header("content-type", "application/json")
        .body(r#"{"data": "aGVsbG8="}"#)
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body, serde_json::json!({"data": "aGVsbG8=", "length": 5}));
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/checksum"))
        .header("x-api-key", "key")
        .header("content-type", "application/json")
        .body(r#"{"data": "not base64!"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body["detail"][0]["loc"],
        serde_json::json!(["body", "data"]),
        "{body}"
    );
}
