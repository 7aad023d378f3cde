//! How a failure shows a value: below both the matchers and the expectations they judge.

use serde_json::Value;

/// A value as a failure shows it: compact JSON, long values cut.
pub fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 200 {
        let cut: String = text.chars().take(200).collect();
        format!("{cut}…")
    } else {
        text
    }
}
