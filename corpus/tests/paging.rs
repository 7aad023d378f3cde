//! Page streams of the generated client over real sockets: a bare array paged by `Link`
//! headers (relative and absolute links on the API's own address), a listing paged after
//! the last item's id while `has_more` holds, and a link away from the API's address, which
//! is not followed with the caller's credentials.

use covenant_corpus::regressions::paging as api;
use covenant_runtime::client::{ClientError, StreamExt};
use covenant_runtime::server::{AuthError, Unavailable};
use std::sync::Arc;

use api::models::{Item, ListAfterResult};
use api::operations::*;
use api::server::{Context, PagingServer};

/// Seven items, `i0` to `i6`; linked pages of three, relative links but one absolute one to
/// `origin` (or elsewhere when `origin` is foreign).
struct Server {
    origin: String,
}

fn item(n: usize) -> Item {
    Item {
        id: format!("i{n}"),
        n: n as i64,
    }
}

const COUNT: usize = 7;

impl PagingServer for Server {
    type Principal = ();

    async fn authenticate(&self, _: AuthScheme, credential: &str) -> Result<(), AuthError> {
        (credential == "key")
            .then_some(())
            .ok_or(AuthError::Unknown)
    }

    async fn gate_open(&self, _: Option<&()>, _: Gate) -> Result<bool, Unavailable> {
        Ok(true)
    }

    async fn list_linked(&self, _: Context<()>, input: ListLinkedInput) -> ListLinkedResponse {
        let page = input.page as usize;
        let items: Vec<Item> = (0..COUNT).skip((page - 1) * 3).take(3).map(item).collect();
        let link = (page * 3 < COUNT).then(|| match page {
            // The second link is absolute, on the API's own address.
            2 => format!("<{}/v1/linked?page=3>; rel=\"next\"", self.origin),
            _ => format!(
                "</v1/linked?page={}>; rel=\"next\", </v1/linked?page=3>; rel=\"last\"",
                page + 1
            ),
        });
        ListLinkedResponse::Ok {
            body: items,
            headers: ListLinkedOkHeaders { link },
        }
    }

    async fn list_after(&self, _: Context<()>, input: ListAfterInput) -> ListAfterResponse {
        let start = match &input.starting_after {
            Some(id) => id[1..].parse::<usize>().unwrap() + 1,
            None => 0,
        };
        let data: Vec<Item> = (start..COUNT)
            .take(input.limit as usize)
            .map(item)
            .collect();
        ListAfterResponse::Ok(ListAfterResult {
            object: "list".to_string(),
            has_more: start + data.len() < COUNT,
            data,
        })
    }
}

async fn client(origin: Option<&str>) -> api::client::Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = Server {
        origin: origin.unwrap_or(&url).to_string(),
    };
    let router = api::server::router(Arc::new(server), Default::default());
    tokio::spawn(async move { covenant_runtime::server::axum::serve(listener, router).await });
    let config = api::client::Config::new(url.clone())
        .with_base_url("https://example.test", url)
        .with_credential(AuthScheme::Key, "key");
    api::client::Client::new(config).unwrap()
}

fn ids(pages: &[Vec<Item>]) -> Vec<Vec<&str>> {
    pages
        .iter()
        .map(|p| p.iter().map(|i| i.id.as_str()).collect())
        .collect()
}

#[tokio::test]
async fn link_headers_page_a_bare_array_to_the_end() {
    let client = client(None).await;
    let pages: Vec<Vec<Item>> = client
        .list_linked_pages(ListLinkedInput::default())
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        ids(&pages),
        [vec!["i0", "i1", "i2"], vec!["i3", "i4", "i5"], vec!["i6"]]
    );
}

#[tokio::test]
async fn a_link_away_from_the_api_is_not_followed() {
    let client = client(Some("http://elsewhere.test")).await;
    let pages: Vec<Result<Vec<Item>, ClientError>> = client
        .list_linked_pages(ListLinkedInput::default())
        .collect()
        .await;
    assert_eq!(pages.len(), 3, "two pages, then the refusal");
    assert!(
        matches!(&pages[2], Err(ClientError::ForeignLink(url)) if url.starts_with("http://elsewhere.test")),
        "{:?}",
        pages[2]
    );
}

#[tokio::test]
async fn pages_follow_the_last_item_while_there_are_more() {
    let client = client(None).await;
    let pages: Vec<ListAfterResult> = client
        .list_after_pages(ListAfterInput {
            limit: 3,
            ..Default::default()
        })
        .map(Result::unwrap)
        .collect()
        .await;
    let data: Vec<Vec<Item>> = pages.into_iter().map(|p| p.data).collect();
    assert_eq!(
        ids(&data),
        [vec!["i0", "i1", "i2"], vec!["i3", "i4", "i5"], vec!["i6"]]
    );
}
