//! When two routes collide: routers (axum's) refuse two paths of one shape, and two paths
//! whose placeholders differ in name at one position. `check` refuses both within one
//! address; a router serving several addresses at once checks them across. The rules are
//! the runtime's [`PathTemplate`]'s, applied to a spec's path texts.

use covenant_runtime::contract::{PathSegment, PathTemplate};

/// Runs `f` on the template of a path text.
fn with_template<R>(text: &str, f: impl FnOnce(PathTemplate<'_>) -> R) -> R {
    let segments: Vec<PathSegment<'_>> = PathTemplate::split(text).collect();
    f(PathTemplate::new(text, &segments))
}

/// The first position where two paths, equal up to there, hold placeholders of different
/// names.
pub fn placeholder_clash(a: &str, b: &str) -> Option<(String, String)> {
    with_template(a, |a| with_template(b, |b| a.placeholder_clash(&b)))
}

/// The path with every placeholder replaced by `{}`: two routes of one shape collide.
pub fn route_shape(path: &str) -> String {
    with_template(path, |t| t.shape())
}

/// Whether a router serving both paths at once would refuse one of them (for the same
/// method, or for any method when their placeholders are named apart).
pub fn collide(a: &str, b: &str, same_method: bool) -> bool {
    with_template(a, |a| with_template(b, |b| a.collides(&b, same_method)))
}
