//! Lists and objects written as text over real sockets: joined query lists, a query filter
//! and a form in brackets. The router reads each by its declared type and names every part
//! that does not read; the client writes them so; the mock reads them alike.

use crate::support::{self, problems, serve};
use covenant_corpus::regressions::encodings as api;
use serde_json::{Value, json};
use std::sync::Arc;

use api::models::{Found, Order};
use api::operations::*;
use api::server::{Answer, Context, EncodingsServer};

/// Echoes what it read.
struct Server;

impl EncodingsServer for Server {
    support::accepts_key!("key");

    async fn search(&self, _: Context<(), Self>, input: SearchInput) -> Answer<SearchResponse> {
        Ok(SearchResponse::Ok(Found {
            ids: input.ids.unwrap_or_default(),
            tags: input.tags.unwrap_or_default(),
            states: input.states.unwrap_or_default(),
            created: input.created,
            labels: input.labels,
        }))
    }

    async fn create_order(
        &self,
        _: Context<(), Self>,
        input: CreateOrderInput,
    ) -> Answer<CreateOrderResponse> {
        let body = serde_json::to_value(&input.body).unwrap();
        Ok(CreateOrderResponse::Created(
            serde_json::from_value::<Order>(body).unwrap(),
        ))
    }

    async fn count_search(
        &self,
        _: Context<(), Self>,
        input: CountSearchInput,
    ) -> Answer<CountSearchResponse> {
        Ok(match input.ids {
            Some(ids) => CountSearchResponse::Ok {
                headers: CountSearchOkHeaders {
                    x_total_count: ids.len() as i64,
                },
            },
            None => CountSearchResponse::NotFound,
        })
    }
}

async fn started() -> String {
    serve(api::server::router(Arc::new(Server), Default::default())).await
}

async fn get(url: &str, query: &str) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .get(format!("{url}/search?{query}"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or_default())
}

async fn post_form(url: &str, form: &str) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{url}/orders"))
        .bearer_auth("key")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or_default())
}

const QUERY: &str = "ids=1,2,3&tags=a|b&states=open%20closed\
    &created[gte]=5&created[lt]=9&labels[team]=core&labels[tier]=gold";

fn found() -> Value {
    json!({
        "ids": [1, 2, 3],
        "tags": ["a", "b"],
        "states": ["open", "closed"],
        "created": {"gte": 5, "lt": 9},
        "labels": {"team": "core", "tier": "gold"}
    })
}

#[tokio::test]
async fn joined_lists_and_a_filter_in_brackets_read_as_their_types() {
    let url = started().await;
    let (status, body) = get(&url, QUERY).await;
    assert_eq!((status, body), (200, found()));
    // Percent-encoded brackets are the same keys; an empty joined list is no item.
    let (status, body) = get(&url, "ids=&created%5Bgt%5D=1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ids"], json!([]));
    assert_eq!(body["created"], json!({"gt": 1}));
}

#[tokio::test]
async fn every_part_that_does_not_read_is_named_where_it_stands() {
    let url = started().await;
    let (status, body) = get(&url, "ids=1,x&created[gte]=soon&created[lt][deep]=1").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        problems(&body),
        [
            (
                r#"["query","ids",1]"#.to_string(),
                "Input should be a valid integer, unable to parse string as an integer".to_string()
            ),
            (
                r#"["query","created","gte"]"#.to_string(),
                "Input should be a valid integer, unable to parse string as an integer".to_string()
            ),
            (
                r#"["query","created","lt"]"#.to_string(),
                "Input should be a single value, not keys in brackets".to_string()
            ),
        ]
    );
    let eleven = (1..=11)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let (status, body) = get(&url, &format!("ids={eleven}")).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problems(&body)[0].0, r#"["query","ids"]"#);
}

#[tokio::test]
async fn the_client_writes_what_the_router_reads() {
    let url = started().await;
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let input: SearchInput = serde_json::from_value(found()).unwrap();
    let answer = client.search(input).await.unwrap();
    let SearchResponse::Ok(echoed) = answer;
    assert_eq!(serde_json::to_value(echoed).unwrap(), found());
    let order = json!({
        "customer": "cus_1",
        "items": [{"price": "p 1", "quantity": 2}, {"price": "p&2"}],
        "metadata": {"order id": "6735"},
        "expand": ["customer", "items"]
    });
    let input: CreateOrderInput = serde_json::from_value(json!({ "body": order })).unwrap();
    let answer = client.create_order(input).await.unwrap();
    let CreateOrderResponse::Created(created) = answer;
    assert_eq!(serde_json::to_value(created).unwrap(), order);
}

#[tokio::test]
async fn a_form_in_brackets_reads_lists_of_objects_and_maps() {
    let url = started().await;
    let form = "customer=cus_1&items[1][price]=p2&items[0][price]=p1&items[0][quantity]=2\
        &metadata[order]=6735&expand[]=customer&expand[]=items";
    let (status, body) = post_form(&url, form).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body,
        json!({
            "customer": "cus_1",
            "items": [{"price": "p1", "quantity": 2}, {"price": "p2"}],
            "metadata": {"order": "6735"},
            "expand": ["customer", "items"]
        })
    );
    let form = "customer=cus_1&customer=cus_2&items[0][quantity]=0&items[1][price]=p&items[x]=1";
    let (status, body) = post_form(&url, form).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        problems(&body),
        [
            (
                r#"["body","customer"]"#.to_string(),
                "Input should be one value; the field was sent 2 times".to_string()
            ),
            (
                r#"["body","items","x"]"#.to_string(),
                "Input should be a list item's index (`name[0]`) or `[]`".to_string()
            ),
            (
                r#"["body","items",0,"price"]"#.to_string(),
                "Field required".to_string()
            ),
            (
                r#"["body","items",0,"quantity"]"#.to_string(),
                "Input should be greater than or equal to 1".to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn the_mock_reads_brackets_and_joined_lists_alike() {
    let spec = support::regression_spec("encodings");
    let url = serve(support::spec_mock(&spec, |_, _| Some("key".into()))).await;
    let (status, body) = get(&url, QUERY).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = get(&url, "created[gte]=soon").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problems(&body)[0].0, r#"["query","created","gte"]"#);
    let (status, body) = post_form(&url, "customer=c&items[0][price]=p").await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = post_form(&url, "customer=c&items[0][quantity]=2").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problems(&body)[0].0, r#"["body","items",0,"price"]"#);
}

/// A HEAD declared apart from the GET of its path is its own endpoint: its handler answers,
/// with headers and no body, and the client calls it.
#[tokio::test]
async fn a_head_endpoint_answers_apart_from_the_get() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .head(format!("{url}/search?ids=4,5,6"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["x-total-count"], "3");
    assert!(answer.bytes().await.unwrap().is_empty());
    let config = api::client::Config::new(url.clone()).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let input = CountSearchInput {
        ids: Some(vec![1, 2]),
    };
    let counted = client.count_search(input).await.unwrap();
    assert!(
        matches!(&counted, CountSearchResponse::Ok { headers } if headers.x_total_count == 2),
        "{counted:?}"
    );
    let missing = client
        .count_search(CountSearchInput { ids: None })
        .await
        .unwrap();
    assert!(
        matches!(missing, CountSearchResponse::NotFound),
        "{missing:?}"
    );
    // The GET of the path still answers its body.
    let (status, body) = get(&url, "ids=7").await;
    assert_eq!((status, body["ids"].clone()), (200, json!([7])));
}

/// Hostile brackets: keys nested past the bound are refused, named where they stand, and a
/// form of many keys is read in one pass.
#[tokio::test]
async fn brackets_are_bounded_in_depth_and_read_in_one_pass() {
    let url = started().await;
    let deep = "[k]".repeat(covenant_runtime::deep::MAX_KEYS + 1);
    let (status, body) = post_form(
        &url,
        &format!("customer=c&items[0][price]=p&metadata{deep}=1"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        problems(&body),
        [(
            r#"["body","metadata"]"#.to_string(),
            "Input should be nested at most 32 keys deep in brackets".to_string()
        )]
    );
    let (status, body) = get(&url, &format!("created{deep}=1")).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problems(&body)[0].0, r#"["query","created"]"#);
    let many: String = (0..50_000).map(|i| format!("&metadata[k{i}]=v")).collect();
    let (status, body) = post_form(&url, &format!("customer=c&items[0][price]=p{many}")).await;
    assert_eq!(status, 201);
    assert_eq!(body["metadata"].as_object().unwrap().len(), 50_000);
}
