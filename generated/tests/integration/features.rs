//! A client never compiles axum and a server never compiles reqwest: the features keep the
//! two halves' dependency trees apart.

use std::process::Command;

fn normal_tree(feature: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-q",
            "-p",
            "health-api",
            "-e",
            "normal",
            "--no-default-features",
            "--features",
            feature,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn client_and_server_dependencies_stay_apart() {
    let client = normal_tree("client");
    assert!(
        client.contains("reqwest") && !client.contains("axum"),
        "client tree:\n{client}"
    );
    let server = normal_tree("server");
    assert!(
        server.contains("axum") && !server.contains("reqwest"),
        "server tree:\n{server}"
    );
}
