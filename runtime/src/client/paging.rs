//! Page streams: a listing fetched page by page as the stream is read, whichever way the
//! spec says the next page is asked for.

use super::ClientError;
use futures_util::Stream;
use std::future::Future;

/// Pages as a stream: `fetch` answers one page and the request of the next, if any. An
/// error ends the stream after it is yielded.
pub fn paginate<I, T, F, Fut>(first: I, fetch: F) -> impl Stream<Item = Result<T, ClientError>>
where
    F: FnMut(I) -> Fut,
    Fut: Future<Output = Result<(T, Option<I>), ClientError>>,
{
    futures_util::stream::unfold((Some(first), fetch), |(next, mut fetch)| async move {
        let input = next?;
        match fetch(input).await {
            Ok((page, next)) => Some((Ok(page), (next, fetch))),
            Err(e) => Some((Err(e), (None, fetch))),
        }
    })
}

/// A page of a listing paged by `Link` headers: the first, from the caller's input, or one
/// the service linked to (an absolute URL), asked with the first input's header parameters.
#[derive(Clone, Debug)]
pub enum PageRequest<I> {
    First(I),
    Next { url: String, input: I },
}

/// The request of the page after one fetched from `from`, whose `Link` header is `link`: its
/// `rel="next"` target resolved against `from` (RFC 3986), or `None` on the last page.
pub fn next_page<I>(link: Option<&str>, from: &reqwest::Url, input: I) -> Option<PageRequest<I>> {
    let target = next_link(link)?;
    let url = from.join(&target).ok()?;
    Some(PageRequest::Next {
        url: url.to_string(),
        input,
    })
}

/// The request of the page after one fetched from `from`, whose body gives the next page's
/// URL as `url` (absent or empty on the last page), resolved against `from` (RFC 3986).
pub fn next_url<I>(url: Option<&str>, from: &reqwest::Url, input: I) -> Option<PageRequest<I>> {
    let target = url.map(str::trim).filter(|u| !u.is_empty())?;
    let url = from.join(target).ok()?;
    Some(PageRequest::Next {
        url: url.to_string(),
        input,
    })
}

/// The target of the `rel="next"` link of a `Link` header (RFC 8288), if there is one:
/// `<https://api.example.com/items?page=2>; rel="next", <…>; rel="last"`.
pub fn next_link(header: Option<&str>) -> Option<String> {
    let mut rest = header?;
    while let Some(open) = rest.find('<') {
        let close = open + rest[open..].find('>')?;
        let target = &rest[open + 1..close];
        let params_end = rest[close..].find('<').map_or(rest.len(), |i| close + i);
        // Up to the comma before the next link.
        let params = rest[close + 1..params_end].trim_end().trim_end_matches(',');
        if params.split(';').any(is_rel_next) {
            return Some(target.trim().to_string());
        }
        rest = &rest[params_end..];
    }
    None
}

/// Whether a link parameter is `rel=next`, `rel="next"` or a `rel` list holding `next`.
fn is_rel_next(param: &str) -> bool {
    let Some((name, value)) = param.split_once('=') else {
        return false;
    };
    name.trim().eq_ignore_ascii_case("rel")
        && value
            .trim()
            .trim_matches('"')
            .split_ascii_whitespace()
            .any(|rel| rel.eq_ignore_ascii_case("next"))
}

#[cfg(test)]
mod tests {
    use super::next_link;

    #[test]
    fn the_next_link_is_found_among_others() {
        let github = "<https://api.github.com/repositories/1/issues?page=2>; rel=\"next\", \
                      <https://api.github.com/repositories/1/issues?page=5>; rel=\"last\"";
        assert_eq!(
            next_link(Some(github)).as_deref(),
            Some("https://api.github.com/repositories/1/issues?page=2")
        );
        let reordered =
            "</items?page=1>; rel=prev, </items?page=3>; title=\"x\"; REL=\"next last\"";
        assert_eq!(next_link(Some(reordered)).as_deref(), Some("/items?page=3"));
    }

    #[test]
    fn a_relative_link_resolves_against_the_page_it_came_with() {
        let from = reqwest::Url::parse("https://x.test/v1/items?page=1").unwrap();
        let next = |link: &str| match super::next_page(Some(link), &from, ()) {
            Some(super::PageRequest::Next { url, .. }) => url,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            next("<?page=2>; rel=next"),
            "https://x.test/v1/items?page=2"
        );
        assert_eq!(
            next("<more?page=2>; rel=next"),
            "https://x.test/v1/more?page=2"
        );
        assert_eq!(next("</v2/items>; rel=next"), "https://x.test/v2/items");
    }

    #[test]
    fn without_a_next_link_the_listing_ends() {
        assert_eq!(next_link(None), None);
        assert_eq!(next_link(Some("</items?page=1>; rel=\"prev\"")), None);
        assert_eq!(next_link(Some("garbage")), None);
        assert_eq!(next_link(Some("<unclosed; rel=next")), None);
    }
}
