//! Doc comments as HTML: plain text whose `backticked` spans are code. Everything else is
//! escaped, so a doc comment can never add markup of its own.

use maud::{Markup, html};

/// A doc comment: paragraphs split at blank lines, a paragraph of `- ` lines a list.
pub fn doc(text: Option<&str>) -> Markup {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return html! {};
    };
    html! {
        div.doc {
            @for para in paragraphs(text) {
                @let lines: Vec<&str> = para.lines().map(str::trim).collect();
                @if lines.iter().all(|l| l.starts_with("- ")) {
                    ul {
                        @for line in &lines {
                            li { (inline(&line[2..])) }
                        }
                    }
                } @else {
                    p { (inline(&lines.join(" "))) }
                }
            }
        }
    }
}

/// Text of one line with its backticked spans as `<code>`. A backtick without a partner
/// stays as it is.
pub fn inline(text: &str) -> Markup {
    html! {
        @for (code, part) in spans(text) {
            @if code { code { (part) } } @else { (part) }
        }
    }
}

/// The first sentence of a doc comment, for tables of contents.
pub fn summary(text: Option<&str>) -> Markup {
    let Some(text) = text else {
        return html! {};
    };
    let first = paragraphs(text).next().unwrap_or("");
    let line = first.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let end = sentence_end(&line).unwrap_or(line.len());
    inline(&line[..end])
}

fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    text.split("\n\n").map(str::trim).filter(|p| !p.is_empty())
}

/// Where the first sentence ends: after a `. ` outside code.
fn sentence_end(line: &str) -> Option<usize> {
    let mut in_code = false;
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'`' => in_code = !in_code,
            b'.' if !in_code && bytes.get(i + 1) == Some(&b' ') => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// The text cut at backticks: `(is_code, text)` pieces in order.
fn spans(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(len) = after.find('`') else {
            break;
        };
        if start > 0 {
            out.push((false, &rest[..start]));
        }
        out.push((true, &after[..len]));
        rest = &after[len + 1..];
    }
    if !rest.is_empty() {
        out.push((false, rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticks_become_code_and_the_rest_is_escaped() {
        let html = inline("Use `a<b>` & <script>alert(1)</script>").into_string();
        assert_eq!(
            html,
            "Use <code>a&lt;b&gt;</code> &amp; &lt;script&gt;alert(1)&lt;/script&gt;"
        );
    }

    #[test]
    fn a_lone_backtick_stays() {
        assert_eq!(inline("it`s").into_string(), "it`s");
        assert_eq!(inline("`a` b `c").into_string(), "<code>a</code> b `c");
    }

    #[test]
    fn paragraphs_and_lists() {
        let html = doc(Some("One\nline.\n\n- a\n- `b`")).into_string();
        assert_eq!(
            html,
            "<div class=\"doc\"><p>One line.</p><ul><li>a</li><li><code>b</code></li></ul></div>"
        );
    }

    #[test]
    fn summaries_stop_at_the_first_sentence() {
        let html = summary(Some("Lists `a. b` users. Then more.")).into_string();
        assert_eq!(html, "Lists <code>a. b</code> users.");
    }
}
