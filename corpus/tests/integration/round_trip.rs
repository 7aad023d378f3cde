//! Every endpoint of every corpus spec, end to end: the generated client sends a valid input
//! over a real socket to the generated router serving the generated mock, and decodes what
//! the mock answers. The decoded answer must be the spec's example for that endpoint, so
//! the router's encoding and the client's decoding of every response type agree.
//!
//! The same calls go to `covenant mock`'s router built from the spec at run time, and a set
//! of malformed requests goes to both: the two must answer alike, status and body.

use crate::support;

use covenant_codegen::samples::Samples;
use std::path::Path;

use crate::probes;

/// Checks a spec's path and answers its IR.
fn spec(relative: &str) -> covenant_codegen::ir::Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked
        .spec
        .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)))
}

use support::serve;

/// `covenant mock`'s router for the spec, with the keys the generated mock is given: the
/// i-th auth scheme's key is `key:i`.
async fn spec_mock(spec: &covenant_codegen::ir::Spec) -> String {
    serve(support::spec_mock(spec, |i, _| Some(format!("key:{i}")))).await
}

/// Malformed and well-formed requests of every endpoint, sent to the generated router and to
/// the spec mock: the answers must be the same.
async fn probes_agree(spec: &covenant_codegen::ir::Spec, generated: &str, spec_mock: &str) {
    // A declared redirect is an answer to compare, not a place to go.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for probe in probes::of(spec) {
        let generated = probe.send(&http, generated).await;
        let from_spec = probe.send(&http, spec_mock).await;
        assert_eq!(generated, from_spec, "{}", probe.what());
    }
}

macro_rules! round_trip {
    ($test:ident, $api:path, $spec:literal) => {
        #[tokio::test]
        async fn $test() {
            use $api as api;
            let spec = spec($spec);
            let mut mock = api::mock::MockServer::new();
            for (i, scheme) in api::operations::AuthScheme::ALL.iter().enumerate() {
                mock = mock.with_key(&format!("key:{i}"), *scheme);
            }
            let router = api::server::router(std::sync::Arc::new(mock), Default::default());
            let url = serve(router).await;
            let spec_mock = spec_mock(&spec).await;
            let mut config = api::client::Config::new(url.clone());
            for api_decl in &spec.apis {
                config = config.with_base_url(&api_decl.base_url, url.clone());
            }
            for (i, scheme) in api::operations::AuthScheme::ALL.iter().enumerate() {
                config = config.with_credential(*scheme, format!("key:{i}"));
            }
            let client = api::client::Client::new(config).unwrap();
            let samples = Samples::new(&spec);
            for ep in &spec.endpoints {
                let input = samples.endpoint_input(ep);
                let answer = client
                    .call_by_name(&ep.name, input.clone())
                    .await
                    .unwrap_or_else(|e| panic!("{} with {input}: {e}", ep.name));
                let example = api::mock::MockServer::example(&ep.name)
                    .unwrap_or_else(|| panic!("{} has an example", ep.name));
                assert_eq!(answer, example, "{} with {input}", ep.name);
            }
            probes_agree(&spec, &url, &spec_mock).await;
        }
    };
}

round_trip!(
    petstore,
    covenant_corpus::petstore,
    "specs/petstore.covenant"
);
round_trip!(github, covenant_corpus::github, "specs/github.covenant");
round_trip!(
    payments,
    covenant_corpus::payments,
    "specs/payments.covenant"
);
round_trip!(
    union_default,
    covenant_corpus::regressions::union_default,
    "regressions/union_default.covenant"
);
round_trip!(
    recursive,
    covenant_corpus::regressions::recursive,
    "regressions/recursive.covenant"
);
round_trip!(
    quoted_names,
    covenant_corpus::regressions::quoted_names,
    "regressions/quoted_names.covenant"
);
round_trip!(
    prelude_names,
    covenant_corpus::regressions::prelude_names,
    "regressions/prelude_names.covenant"
);
round_trip!(
    trait_method_names,
    covenant_corpus::regressions::trait_method_names,
    "regressions/trait_method_names.covenant"
);
round_trip!(
    camel_case,
    covenant_corpus::regressions::camel_case,
    "regressions/camel_case.covenant"
);
round_trip!(
    deprecated_use,
    covenant_corpus::regressions::deprecated_use,
    "regressions/deprecated_use.covenant"
);
round_trip!(
    credentials,
    covenant_corpus::regressions::credentials,
    "regressions/credentials.covenant"
);
round_trip!(
    response_headers,
    covenant_corpus::regressions::response_headers,
    "regressions/response_headers.covenant"
);
round_trip!(
    idempotency,
    covenant_corpus::regressions::idempotency,
    "regressions/idempotency.covenant"
);
round_trip!(
    paging,
    covenant_corpus::regressions::paging,
    "regressions/paging.covenant"
);
round_trip!(
    media,
    covenant_corpus::regressions::media,
    "regressions/media.covenant"
);
