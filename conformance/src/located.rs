//! Where in its cassette a run-time failure's expectation is written, as a compiler names a
//! line: `file:line:col` and the line itself. A body mismatch at `$.data[0].id` points at
//! that value of `expect.body`; a status at `expect.status`; a capture at its name; a
//! failure the spec alone finds (a schema, a content type) at the exchange's `expect`.

use crate::cassette::locate::{Locator, Step};
use crate::cassette::{Capture, Exchange};
use crate::outcome::{Failure, FailureKind, Location};

/// Sets `at` on every failure of the exchange at `index` of the cassette `locator` reads.
pub fn locate_failures(
    locator: &Locator,
    file: &str,
    exchange: &Exchange,
    index: usize,
    failures: &mut [Failure],
) {
    for failure in failures {
        let mut steps: Vec<Step> = vec!["exchanges".into(), index.into()];
        steps.extend(steps_within(exchange, failure));
        let at = locator.position(&steps);
        failure.at = Some(Location {
            file: file.to_string(),
            line: at.line,
            col: at.col,
            excerpt: locator.line(at.line).trim_end().to_string(),
        });
    }
}

fn steps_within(exchange: &Exchange, failure: &Failure) -> Vec<Step> {
    let expect = |rest: Vec<Step>| {
        let mut steps: Vec<Step> = vec!["expect".into()];
        steps.extend(rest);
        steps
    };
    match failure.kind {
        // A delivery's failures, and one that did not arrive, point at what awaits it.
        _ if failure.path.starts_with("$event") || exchange_awaits(exchange, failure) => {
            vec!["events".into()]
        }
        FailureKind::Status => expect(vec!["status".into()]),
        FailureKind::Body => expect(
            std::iter::once("body".into())
                .chain(json_path_steps(&failure.path))
                .collect(),
        ),
        FailureKind::Header => {
            let name = failure
                .path
                .strip_prefix("header ")
                .unwrap_or(&failure.path);
            match exchange
                .expect
                .headers
                .keys()
                .find(|k| k.eq_ignore_ascii_case(name))
            {
                Some(written) => expect(vec!["headers".into(), written.as_str().into()]),
                None => expect(vec!["status".into()]),
            }
        }
        FailureKind::Capture => exchange
            .capture
            .iter()
            .find(|(_, capture)| match capture {
                Capture::Body(path) => *path == failure.path,
                Capture::Header { header } => failure.path == format!("header {header}"),
            })
            .map(|(name, _)| vec!["capture".into(), name.as_str().into()])
            .unwrap_or_else(|| vec!["capture".into()]),
        FailureKind::Template => vec!["request".into()],
        FailureKind::Event => vec!["events".into()],
        FailureKind::Schema | FailureKind::ContentType => expect(vec!["status".into()]),
        FailureKind::Timeout | FailureKind::Transport => vec!["request".into()],
    }
}

/// Whether a capture failure is of an awaited event's capture.
fn exchange_awaits(exchange: &Exchange, failure: &Failure) -> bool {
    failure.kind == FailureKind::Capture
        && exchange
            .events
            .iter()
            .any(|e| e.capture.values().any(|p| *p == failure.path))
}

/// `$.data[0]["odd key"].id` as steps; an unreadable rest is left off, so the location
/// falls back to the deepest value it names.
fn json_path_steps(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut rest = path.strip_prefix('$').unwrap_or(path);
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            steps.push(Step::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if rest.starts_with("[\"") {
            let mut keys = serde_json::Deserializer::from_str(&rest[1..]).into_iter::<String>();
            let Some(Ok(key)) = keys.next() else { break };
            let after = &rest[1 + keys.byte_offset()..];
            steps.push(Step::Key(key));
            let Some(after) = after.strip_prefix(']') else {
                break;
            };
            rest = after;
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else { break };
            let Ok(i) = after[..end].parse::<usize>() else {
                break;
            };
            steps.push(Step::Index(i));
            rest = &after[end + 1..];
        } else {
            break;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_become_steps() {
        assert_eq!(
            json_path_steps("$.data[0][\"odd key\"].id"),
            vec![
                Step::Key("data".into()),
                Step::Index(0),
                Step::Key("odd key".into()),
                Step::Key("id".into())
            ]
        );
        assert_eq!(json_path_steps("$"), vec![]);
    }
}
