//! Answers that are a stream of JSON values: server-sent events (`text/event-stream`, one
//! value in each event's `data`) and JSON lines (`application/x-ndjson`,
//! `application/jsonl`: one value per line). A spec states such an answer as a list of its
//! items (`response 200: Chunk[] "text/event-stream"`); these functions write the list as
//! the stream and read a stream back into the list, item by item.

use serde_json::Value;

/// The media types written as a stream of JSON values.
const STREAM_MEDIA: [&str; 4] = [
    "text/event-stream",
    "application/x-ndjson",
    "application/ndjson",
    "application/jsonl",
];

/// What ends an OpenAI-style event stream: an event whose data is no value but this word.
const DONE: &str = "[DONE]";

/// Whether a media type (parameters aside, any case) is a stream of JSON values.
pub fn is_stream_media(media: &str) -> bool {
    let essence = essence(media);
    STREAM_MEDIA.contains(&essence.as_str())
}

fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn is_event_stream(media: &str) -> bool {
    essence(media) == "text/event-stream"
}

/// The stream of `items` in `media`: an event per item, or a line per item.
pub fn write_items(media: &str, items: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        let json = item.to_string();
        if is_event_stream(media) {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(json.as_bytes());
            out.extend_from_slice(b"\n\n");
        } else {
            out.extend_from_slice(json.as_bytes());
            out.push(b'\n');
        }
    }
    out
}

/// The items of a stream in `media`, in order; the first that is no JSON is named by its
/// place. Comments, `event:`, `id:` and `retry:` fields and a closing `[DONE]` are no items.
pub fn read_items(media: &str, body: &[u8]) -> Result<Vec<Value>, String> {
    let text =
        std::str::from_utf8(body).map_err(|e| format!("the stream is no UTF-8 text: {e}"))?;
    if is_event_stream(media) {
        read_events(text)
    } else {
        read_lines(text)
    }
}

/// The stream read back as the JSON array the spec's list type describes.
pub fn as_json_array(media: &str, body: &[u8]) -> Result<Vec<u8>, String> {
    let items = read_items(media, body)?;
    serde_json::to_vec(&Value::Array(items)).map_err(|e| e.to_string())
}

/// Server-sent events (HTML's event stream format): events end at a blank line; an
/// event's `data` lines are joined by newlines.
fn read_events(text: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut data: Option<String> = None;
    let mut event = 0;
    let mut finish = |data: &mut Option<String>, items: &mut Vec<Value>| -> Result<(), String> {
        if let Some(text) = data.take() {
            event += 1;
            if text.trim() == DONE {
                return Ok(());
            }
            let value = serde_json::from_str(&text)
                .map_err(|e| format!("event {event} holds no JSON value: {e}"))?;
            items.push(value);
        }
        Ok(())
    };
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            finish(&mut data, &mut items)?;
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_string()),
            }
        }
    }
    finish(&mut data, &mut items)?;
    Ok(items)
}

/// JSON lines: one value per line; blank lines are none.
fn read_lines(text: &str) -> Result<Vec<Value>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line)
                .map_err(|e| format!("line {} holds no JSON value: {e}", index + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_written_read_back() {
        let items = vec![json!({"delta": "Hel"}), json!({"delta": "lo\nthere"})];
        for media in ["text/event-stream", "application/x-ndjson; charset=utf-8"] {
            let written = write_items(media, &items);
            assert_eq!(read_items(media, &written).unwrap(), items, "{media}");
        }
        assert_eq!(
            String::from_utf8(write_items("text/event-stream", &items[..1])).unwrap(),
            "data: {\"delta\":\"Hel\"}\n\n"
        );
    }

    #[test]
    fn event_fields_comments_and_done_are_no_items() {
        let stream = ": keep-alive\r\nevent: chunk\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nretry: 10\n\ndata: {\"a\":2}\n\ndata: [DONE]\n\n";
        let items = read_items("text/event-stream", stream.as_bytes()).unwrap();
        assert_eq!(items, [json!({"a": 1}), json!({"a": 2})]);
        // The last event needs no blank line after it.
        let unended = read_items("text/event-stream", b"data: 3").unwrap();
        assert_eq!(unended, [json!(3)]);
    }

    #[test]
    fn a_broken_item_is_named_by_its_place() {
        let events = read_items("text/event-stream", b"data: 1\n\ndata: {oops\n\n");
        assert!(
            events
                .unwrap_err()
                .starts_with("event 2 holds no JSON value")
        );
        let lines = read_items("application/jsonl", b"1\n\n{oops\n");
        assert!(lines.unwrap_err().starts_with("line 3 holds no JSON value"));
    }

    #[test]
    fn stream_media_are_told_apart() {
        assert!(is_stream_media("Text/Event-Stream; charset=utf-8"));
        assert!(is_stream_media("application/x-ndjson"));
        assert!(!is_stream_media("text/plain"));
    }
}
