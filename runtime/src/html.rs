//! The frame of every HTML page the toolkit writes, the reference site's and a server's own
//! (a hosted widget), so they agree on what every page needs: the document type, the
//! language, the character set and the viewport.

use maud::{DOCTYPE, Markup, html};

/// A whole page: `head` holds what the page adds to the frame's head (styles, a referrer
/// policy), `body` the `body` element itself, so a page sets its own attributes on it.
pub fn page(title: &str, head: Markup, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                (head)
            }
            (body)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_the_frame_and_what_it_adds() {
        let page = page(
            "Pets · Shop",
            html! { meta name="referrer" content="no-referrer"; },
            html! { body data-root="." { main { "hello" } } },
        )
        .into_string();
        assert!(
            page.starts_with("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        );
        assert!(page.contains("<title>Pets · Shop</title><meta name=\"referrer\""));
        assert!(page.ends_with("<body data-root=\".\"><main>hello</main></body></html>"));
    }
}
