//! When two routes collide: routers (axum's) refuse two paths of one shape, and two paths
//! whose placeholders differ in name at one position. `check` refuses both within one
//! address; a router serving several addresses at once checks them across.

/// The first position where two paths, equal up to there, hold placeholders of different
/// names.
pub fn placeholder_clash(a: &str, b: &str) -> Option<(String, String)> {
    let name = |seg: &str| {
        seg.strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .map(str::to_string)
    };
    for (x, y) in a.split('/').zip(b.split('/')) {
        match (name(x), name(y)) {
            (Some(p), Some(q)) if p != q => return Some((p, q)),
            (Some(_), Some(_)) => {}
            (None, None) if x == y => {}
            _ => return None,
        }
    }
    None
}

/// The path with every placeholder replaced by `{}`: two routes of one shape collide.
pub fn route_shape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut inside = false;
    for c in path.chars() {
        match c {
            '{' => {
                inside = true;
                out.push_str("{}");
            }
            '}' => inside = false,
            _ if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether a router serving both paths at once would refuse one of them (for the same
/// method, or for any method when their placeholders are named apart).
pub fn collide(a: &str, b: &str, same_method: bool) -> bool {
    placeholder_clash(a, b).is_some() || (same_method && route_shape(a) == route_shape(b))
}
