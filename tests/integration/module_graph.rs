//! The modules of the crates that hold the service, the conformance runner and the project
//! on disk depend on each other one way: no module uses one that uses
//! it, directly or around a loop. A circle makes a newcomer read both ends to understand
//! either; this keeps new ones from creeping in. The crate root (`lib.rs`), which wires the
//! modules together, is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules of `src/`, each with the sibling modules its code (tests aside)
/// names as `crate::module`.
fn module_uses(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let named = uses.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            if let Some(list) = rest.strip_prefix('{') {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                named.extend(list.split(',').map(|part| first_word(part.trim())));
            } else {
                named.insert(first_word(rest));
            }
        }
        named.remove(&module);
    }
    let known: BTreeSet<String> = uses.keys().cloned().collect();
    for named in uses.values_mut() {
        named.retain(|m| known.contains(m));
    }
    uses
}

fn first_word(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// A module that reaches itself through the modules it uses, with the loop.
fn circle_through(uses: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in &uses[&module] {
            if next == start {
                return Some([path.clone(), vec![start.to_string()]].concat());
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
            }
        }
    }
    None
}

/// Every circle among the top-level modules of the crate in `folder`, as a loop of names.
fn circles_in(folder: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join("src");
    let uses = module_uses(&src);
    let circles = (uses.keys())
        .filter_map(|m| circle_through(&uses, m))
        .map(|circle| circle.join(" → "))
        .collect();
    (uses, circles)
}

#[test]
fn no_module_of_the_runner_uses_one_that_uses_it() {
    let (uses, circles) = circles_in("conformance");
    assert!(uses.len() > 20, "{uses:?}");
    assert!(
        uses["runner"].contains("plan"),
        "the uses are read: {uses:?}"
    );
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

/// Handlers down to the store: the caches belong to the service and the auth module that
/// consults them, not to the store, which tells whoever keeps rows of its writes.
#[test]
fn no_module_of_the_service_uses_one_that_uses_it() {
    let (uses, circles) = circles_in("server");
    assert!(
        uses["users"].contains("store"),
        "the uses are read: {uses:?}"
    );
    assert!(!uses["store"].contains("user_cache"), "{uses:?}");
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

#[test]
fn no_module_of_the_project_uses_one_that_uses_it() {
    let (uses, circles) = circles_in("project");
    assert!(
        uses["format"].contains("config"),
        "the uses are read: {uses:?}"
    );
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}
