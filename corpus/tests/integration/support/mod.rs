//! What the corpus's socket tests share.

use covenant_runtime::server::axum;

/// The auth half of a test server's trait: the one key `$key` accepted under every scheme,
/// identifying a principal of no content (the spec's `principal caller`, or the one named).
/// `AuthScheme` is the calling module's.
macro_rules! accepts_key {
    ($key:literal) => {
        crate::support::accepts_key!($key, Caller, authenticate_caller);
    };
    ($key:literal, $principal:ident, $authenticate:ident) => {
        type $principal = ();

        async fn $authenticate(
            &self,
            _: AuthScheme,
            credential: &str,
        ) -> Result<(), covenant_runtime::server::AuthError> {
            (credential == $key)
                .then_some(())
                .ok_or(covenant_runtime::server::AuthError::Unknown)
        }
    };
}
pub(crate) use accepts_key;

/// POSTs `body` as JSON to `url` with the bearer key `key`; answers the status and the JSON
/// answer (`null` for none).
pub async fn post_json(url: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
    let answer = reqwest::Client::new()
        .post(url)
        .bearer_auth("key")
        .json(body)
        .send()
        .await
        .expect("the request is sent");
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or_default())
}

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

/// A 422's problems as (place, message) pairs, in order.
pub fn problems(body: &serde_json::Value) -> Vec<(String, String)> {
    body["detail"]
        .as_array()
        .unwrap_or_else(|| panic!("no detail in {body}"))
        .iter()
        .map(|i| (i["loc"].to_string(), i["msg"].as_str().unwrap().to_string()))
        .collect()
}

/// The validated IR of `regressions/<name>.covenant`.
pub fn regression_spec(name: &str) -> covenant_codegen::ir::Spec {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("regressions/{name}.covenant"));
    let (_, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked.spec.expect("the regression spec checks")
}
