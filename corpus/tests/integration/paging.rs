//! Page streams of the generated client over real sockets: a bare array paged by `Link`
//! headers (relative and absolute links on the API's own address, each page asked with the
//! first request's header parameters), a listing paged after
//! the last item's id while `has_more` holds, a link away from the API's address, which
//! is not followed with the caller's credentials, a cursor nested in the answer that is empty
//! on the last page, the next page's address in the answer, and an offset.

use covenant_corpus::regressions::paging as api;
use covenant_runtime::client::{ClientError, StreamExt};
use std::sync::Arc;

use api::models::{
    Item, ListAfterResult, ListByUrlResult, ListMeta, ListNestedResult, ListOffsetResult, PageMeta,
};
use api::operations::*;
use api::server::{Answer, Context, PagingServer};

/// Seven items, `i0` to `i6`; linked pages of three, relative links but one absolute one to
/// `origin` (or elsewhere when `origin` is foreign).
struct Server {
    origin: String,
    /// The `X-Account` of every linked page asked for.
    accounts: std::sync::Mutex<Vec<Option<String>>>,
    /// The `X-Account` of every page asked for by its address.
    url_accounts: std::sync::Mutex<Vec<Option<String>>>,
}

/// The items from `start`, `limit` of them, and where the next page starts (`None` at the end).
fn slice(start: usize, limit: usize) -> (Vec<Item>, Option<usize>) {
    let items: Vec<Item> = (start..COUNT).take(limit).map(item).collect();
    let end = start + items.len();
    (items, (end < COUNT).then_some(end))
}

fn item(n: usize) -> Item {
    Item {
        id: format!("i{n}"),
        n: n as i64,
    }
}

const COUNT: usize = 7;

impl PagingServer for Server {
    crate::support::accepts_key!("key", App, authenticate_app);

    async fn list_linked(
        &self,
        _: Context<(), Self>,
        input: ListLinkedInput,
    ) -> Answer<ListLinkedResponse> {
        self.accounts.lock().unwrap().push(input.x_account.clone());
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
        Ok(ListLinkedResponse::Ok {
            body: items,
            headers: ListLinkedOkHeaders { link },
        })
    }

    async fn list_after(
        &self,
        _: Context<(), Self>,
        input: ListAfterInput,
    ) -> Answer<ListAfterResponse> {
        let start = match &input.starting_after {
            Some(id) => id[1..].parse::<usize>().unwrap() + 1,
            None => 0,
        };
        let data: Vec<Item> = (start..COUNT)
            .take(input.limit as usize)
            .map(item)
            .collect();
        Ok(ListAfterResponse::Ok(ListAfterResult {
            object: "list".to_string(),
            has_more: start + data.len() < COUNT,
            data,
        }))
    }

    async fn list_nested(
        &self,
        _: Context<(), Self>,
        input: ListNestedInput,
    ) -> Answer<ListNestedResponse> {
        let start = input.r#continue.map_or(0, |c| c[1..].parse().unwrap());
        let (items, next) = slice(start, input.limit as usize);
        Ok(ListNestedResponse::Ok(ListNestedResult {
            metadata: ListMeta {
                // Kubernetes writes an empty cursor on the last page.
                r#continue: Some(next.map_or(String::new(), |n| format!("c{n}"))),
                resource_version: Some("42".into()),
            },
            items,
        }))
    }

    async fn list_by_url(
        &self,
        _: Context<(), Self>,
        input: ListByUrlInput,
    ) -> Answer<ListByUrlResponse> {
        self.url_accounts
            .lock()
            .unwrap()
            .push(input.x_account.clone());
        let start = input.token.map_or(0, |t| t.parse().unwrap());
        let (messages, next) = slice(start, 3);
        Ok(ListByUrlResponse::Ok(ListByUrlResult {
            meta: PageMeta {
                next_page_url: next.map(|n| format!("/v1/by-url?token={n}")),
            },
            messages,
        }))
    }

    async fn list_offset(
        &self,
        _: Context<(), Self>,
        input: ListOffsetInput,
    ) -> Answer<ListOffsetResponse> {
        let (results, _) = slice(input.offset as usize, input.limit as usize);
        Ok(ListOffsetResponse::Ok(ListOffsetResult { results }))
    }
}

async fn client(origin: Option<&str>) -> (api::client::Client, Arc<Server>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = Arc::new(Server {
        origin: origin.unwrap_or(&url).to_string(),
        accounts: Default::default(),
        url_accounts: Default::default(),
    });
    let router = api::server::router(server.clone(), Default::default());
    let transport = covenant_runtime::server::transport::Transport::default();
    covenant_runtime::server::spawn_on(listener, router, transport)
        .unwrap()
        .detach();
    let config = api::client::Config::new(url.clone())
        .with_base_url("https://example.test", url)
        .with_credential(AuthScheme::Key, "key");
    (api::client::Client::new(config).unwrap(), server)
}

fn ids(pages: &[Vec<Item>]) -> Vec<Vec<&str>> {
    pages
        .iter()
        .map(|p| p.iter().map(|i| i.id.as_str()).collect())
        .collect()
}

#[tokio::test]
async fn link_headers_page_a_bare_array_to_the_end() {
    let (client, server) = client(None).await;
    let input = ListLinkedInput {
        x_account: Some("acct_1".to_string()),
        ..Default::default()
    };
    let pages: Vec<Vec<Item>> = client
        .list_linked_pages(input)
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        ids(&pages),
        [vec!["i0", "i1", "i2"], vec!["i3", "i4", "i5"], vec!["i6"]]
    );
    let accounts = server.accounts.lock().unwrap().clone();
    assert_eq!(
        accounts,
        vec![Some("acct_1".to_string()); 3],
        "every page in one account"
    );
}

#[tokio::test]
async fn a_link_away_from_the_api_is_not_followed() {
    let (client, _) = client(Some("http://elsewhere.test")).await;
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
    let (client, _) = client(None).await;
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

const THREES: [&[&str]; 3] = [&["i0", "i1", "i2"], &["i3", "i4", "i5"], &["i6"]];

#[tokio::test]
async fn a_nested_cursor_pages_until_it_is_empty() {
    let (client, _) = client(None).await;
    let pages: Vec<ListNestedResult> = client
        .list_nested_pages(ListNestedInput::default())
        .map(Result::unwrap)
        .collect()
        .await;
    let items: Vec<Vec<Item>> = pages.into_iter().map(|p| p.items).collect();
    assert_eq!(ids(&items), THREES);
}

#[tokio::test]
async fn the_next_pages_address_in_the_answer_is_followed_with_the_first_headers() {
    let (client, server) = client(None).await;
    let input = ListByUrlInput {
        x_account: Some("acct_1".to_string()),
        ..Default::default()
    };
    let pages: Vec<ListByUrlResult> = client
        .list_by_url_pages(input)
        .map(Result::unwrap)
        .collect()
        .await;
    let items: Vec<Vec<Item>> = pages.into_iter().map(|p| p.messages).collect();
    assert_eq!(ids(&items), THREES);
    let accounts = server.url_accounts.lock().unwrap().clone();
    assert_eq!(accounts, vec![Some("acct_1".to_string()); 3]);
}

#[tokio::test]
async fn an_offset_moves_past_the_items_seen_until_a_short_page() {
    let (client, _) = client(None).await;
    let pages: Vec<ListOffsetResult> = client
        .list_offset_pages(ListOffsetInput::default())
        .map(Result::unwrap)
        .collect()
        .await;
    let items: Vec<Vec<Item>> = pages.into_iter().map(|p| p.results).collect();
    assert_eq!(ids(&items), THREES);
}
