//! The modules of the crates that hold the service, the conformance runner and the project
//! on disk depend on each other one way: no module uses one that uses
//! it, directly or around a loop. A circle makes a newcomer read both ends to understand
//! either; this keeps new ones from creeping in. The crate root (`lib.rs`), which wires the
//! modules together, is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules of `src/`, each with the other modules its code (tests aside) names through
/// `crate::`. A module is a top-level one or, in the folders of `layers`, one within a layer,
/// named `layer/module`. The crate root and each layer's `mod.rs` only declare modules.
fn module_uses(src: &Path, layers: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let parts: Vec<String> = (relative.components())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let module = match parts.as_slice() {
            [layer, inner, ..] if layers.contains(&layer.as_str()) => {
                if inner == "mod.rs" {
                    continue;
                }
                format!("{layer}/{}", inner.trim_end_matches(".rs"))
            }
            [first, ..] => first.trim_end_matches(".rs").to_string(),
            [] => continue,
        };
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let named = uses.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            named.extend(modules_named(&code[at + "crate::".len()..], layers));
        }
        named.remove(&module);
    }
    let known: BTreeSet<String> = uses.keys().cloned().collect();
    for named in uses.values_mut() {
        named.retain(|m| known.contains(m));
    }
    uses
}

/// The modules the path after a `crate::` names: `store::Tx` names `store`; `{a, b::c}` both;
/// `infra::store` (`infra` a layer) names `infra/store`, and `infra::{store, keys}` each.
fn modules_named(rest: &str, layers: &[&str]) -> Vec<String> {
    if let Some(list) = rest.strip_prefix('{') {
        return top_level_items(list)
            .into_iter()
            .flat_map(|item| modules_named(item.trim(), layers))
            .collect();
    }
    let first = first_word(rest);
    if !layers.contains(&first.as_str()) {
        return vec![first];
    }
    let after = rest[first.len()..].strip_prefix("::").unwrap_or_default();
    let inner: Vec<String> = match after.strip_prefix('{') {
        Some(list) => top_level_items(list)
            .iter()
            .map(|item| first_word(item.trim()))
            .collect(),
        None => vec![first_word(after)],
    };
    inner.iter().map(|m| format!("{first}/{m}")).collect()
}

/// The comma-separated items of a `{…}` list whose opening brace is already read, up to its
/// closing brace; nested lists stay whole.
fn top_level_items(list: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0, Vec::new());
    for (at, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&list[start..at]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
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

/// The server's layers, from the handlers down: a module may use modules of its own layer
/// and of those below it, never above.
const SERVER_LAYERS: [&str; 4] = ["api", "background", "domain", "infra"];

/// Every circle among the modules of the crate in `folder`, as a loop of names.
fn circles_in(folder: &str, layers: &[&str]) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join("src");
    let uses = module_uses(&src, layers);
    let circles = (uses.keys())
        .filter_map(|m| circle_through(&uses, m))
        .map(|circle| circle.join(" → "))
        .collect();
    (uses, circles)
}

#[test]
fn no_module_of_the_runner_uses_one_that_uses_it() {
    let (uses, circles) = circles_in("conformance", &[]);
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
fn no_module_of_the_service_uses_one_that_uses_it_nor_a_layer_above_its_own() {
    let (uses, circles) = circles_in("server", &SERVER_LAYERS);
    assert!(
        uses["domain/users"].contains("infra/store"),
        "the uses are read: {uses:?}"
    );
    assert!(
        !uses["infra/store"].contains("infra/user_cache"),
        "{uses:?}"
    );
    assert!(circles.is_empty(), "{}", circles.join("\n"));
    let rank = |module: &str| {
        SERVER_LAYERS
            .iter()
            .position(|l| module.starts_with(&format!("{l}/")))
    };
    let upward: Vec<String> = (uses.iter())
        .flat_map(|(from, named)| named.iter().map(move |to| (from, to)))
        .filter(|(from, to)| matches!((rank(from), rank(to)), (Some(a), Some(b)) if b < a))
        .map(|(from, to)| format!("{from} → {to}"))
        .collect();
    assert!(
        upward.is_empty(),
        "uses of a layer above: {}",
        upward.join(", ")
    );
    for layer in SERVER_LAYERS {
        assert!(
            uses.keys().any(|m| m.starts_with(&format!("{layer}/"))),
            "{layer}: {uses:?}"
        );
    }
}

#[test]
fn no_module_of_the_project_uses_one_that_uses_it() {
    let (uses, circles) = circles_in("project", &[]);
    assert!(
        uses["format"].contains("config"),
        "the uses are read: {uses:?}"
    );
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}
