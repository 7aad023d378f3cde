//! How parameters read from text: one place, so the typed reader and the walk that
//! explains a rejection agree.

/// `true`/`false` and the spellings form and query strings use for them.
pub fn parse_bool(raw: &str) -> Option<bool> {
    let is = |options: &[&str]| options.iter().any(|o| raw.eq_ignore_ascii_case(o));
    if is(&["true", "1", "yes", "on"]) {
        Some(true)
    } else if is(&["false", "0", "no", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// A finite number: JSON has no `NaN` or infinities.
pub fn parse_number(raw: &str) -> Option<f64> {
    raw.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// A parameter of a union type, read as the first of integer, number, boolean and string
/// its text is: the one reading of the typed reader and the walk.
pub enum Scalar<'a> {
    Int(i64),
    Number(f64),
    Bool(bool),
    Text(&'a str),
}

pub fn parse_scalar(raw: &str) -> Scalar<'_> {
    if let Ok(n) = raw.parse::<i64>() {
        Scalar::Int(n)
    } else if let Some(n) = parse_number(raw) {
        Scalar::Number(n)
    } else if let Some(b) = parse_bool(raw) {
        Scalar::Bool(b)
    } else {
        Scalar::Text(raw)
    }
}
