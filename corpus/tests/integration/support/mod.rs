//! What the corpus's socket tests share.

use covenant_runtime::server::axum;

/// Serves a router on a fresh local port; answers its address.
pub async fn serve(router: axum::Router) -> String {
    let spawned = covenant_runtime::server::spawn(router).await;
    spawned.expect("serve on loopback").detach()
}

/// The router `covenant mock` serves for `spec`, accepting for each scheme the key `key_of`
/// gives it (none when it gives none).
pub fn spec_mock(
    spec: &covenant_codegen::ir::Spec,
    key_of: impl Fn(usize, &str) -> Option<String>,
) -> axum::Router {
    use covenant_runtime::server::mock;
    let contract = covenant_codegen::contract::build_static(spec);
    let mut keys = mock::Keys::default();
    for (index, scheme) in contract.scheme_refs().enumerate() {
        if let Some(key) = key_of(index, scheme.info().name) {
            keys.insert_key(key, scheme);
        }
    }
    let arena = bumpalo::Bump::new();
    let examples = covenant_codegen::contract::examples(spec, &arena);
    mock::router(&contract, examples, keys, Default::default()).router
}
