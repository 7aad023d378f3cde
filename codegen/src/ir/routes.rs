//! The route a router registers for a path: every placeholder segment a parameter named by
//! its position (`PathTemplate::route`), so two paths of one route collide for one method and
//! nothing else. `check` refuses that within one address; a router serving several
//! addresses at once checks them across. The rules are the runtime's [`PathTemplate`]'s,
//! applied to a spec's path texts.

use covenant_runtime::contract::{PathSegment, PathTemplate};

/// Runs `f` on the template of a path text.
fn with_template<R>(text: &str, f: impl FnOnce(PathTemplate<'_>) -> R) -> R {
    let segments: Vec<PathSegment<'_>> = PathTemplate::split(text).collect();
    f(PathTemplate::new(text, &segments))
}

/// The route a router registers for a path: `/calls/{_2}` for `/calls/{sid}.json`.
pub fn route_of(path: &str) -> String {
    with_template(path, |t| t.route())
}
