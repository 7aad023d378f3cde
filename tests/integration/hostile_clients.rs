//! `covenant serve` against clients that misbehave on purpose, over raw sockets: slow heads,
//! idle connections, more connections than the cap, slow bodies, and heads too large or
//! unreadable. Every refusal is JSON, and well-behaved clients are served throughout. Run on
//! SQLite, and on PostgreSQL when `COVENANT_TEST_POSTGRES_URL` names a server.

use crate::common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Short timeouts, so the test sees them pass.
const LIMITS: &[&str] = &[
    "--header-timeout",
    "1",
    "--idle-timeout",
    "2",
    "--request-timeout",
    "1.5",
    "--max-connections",
    "6",
];

/// Runs `check` with the address and team key of a server on SQLite, then on PostgreSQL
/// when one is configured.
fn on_each_database(check: impl Fn(&str, &str)) {
    on_each_database_with(LIMITS, check);
}

/// [`on_each_database`] with these limits.
fn on_each_database_with(limits: &[&str], check: impl Fn(&str, &str)) {
    let dir = common::scratch_dir("hostile");
    let server = common::serve(dir.path(), limits);
    check_served(&server, dir.path(), &check);
    drop(server);
    if let Some(url) = common::fresh_postgres_database() {
        let dir = common::scratch_dir("hostile-pg");
        let mut args = limits.to_vec();
        args.extend(["--database-url", &url]);
        let server = common::serve(dir.path(), &args);
        check_served(&server, dir.path(), &check);
    }
}

fn check_served(server: &common::Served, dir: &std::path::Path, check: &impl Fn(&str, &str)) {
    let credentials = common::credentials(dir);
    let key = credentials["team_api_key"].as_str().unwrap();
    check(server.base_url.trim_start_matches("http://"), key);
}

/// A create whose body never comes: the router waits on it, busy.
fn body_never_sent(key: &str) -> String {
    format!(
        "POST /v2/user HTTP/1.1\r\nHost: x\r\nx-service-api-key: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"client_user_id\":"
    )
}

/// How long until the server closes `stream`, reading (and discarding) what it sends.
fn closed_after(stream: &mut TcpStream, started: Instant, within: Duration) -> Duration {
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut sink = [0u8; 4096];
    while started.elapsed() < within {
        match stream.read(&mut sink) {
            Ok(0) => return started.elapsed(),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return started.elapsed(),
            Ok(_) | Err(_) => {}
        }
    }
    panic!("the server kept the connection open for {within:?}");
}

/// Whether a well-behaved client is answered now (401 without a key).
fn served(host: &str) -> bool {
    common::call(&format!("http://{host}"), "GET", "/v2/providers", "", None).0 == 401
}

/// One raw exchange: the status, and the body as JSON (the test fails when it is not).
fn raw(host: &str, request: &[u8]) -> (u16, serde_json::Value) {
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(request);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let body = serde_json::from_str(body).unwrap_or_else(|_| panic!("JSON body: {body:?}"));
    (status, body)
}

#[test]
fn a_head_sent_a_byte_at_a_time_is_cut_off_while_others_are_served() {
    // An idle timeout far above the header timeout: the head's own deadline must cut it off.
    let limits = ["--header-timeout", "1", "--idle-timeout", "30"];
    on_each_database_with(&limits, |host, _key| {
        let mut slow = TcpStream::connect(host).unwrap();
        let started = Instant::now();
        let mut trickle = slow.try_clone().unwrap();
        std::thread::spawn(move || {
            for byte in b"GET /v2/providers HTTP/1.1\r\nHost: x\r\nX-Slow: "
                .iter()
                .cycle()
            {
                if trickle.write_all(&[*byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        assert!(served(host), "another client is served meanwhile");
        let closed = closed_after(&mut slow, started, Duration::from_secs(10));
        assert!(
            closed >= Duration::from_millis(900) && closed < Duration::from_secs(4),
            "the header timeout (1 s) closed it after {closed:?}"
        );
    });
}

#[test]
fn an_idle_connection_is_closed_after_the_idle_timeout_not_the_header_timeout() {
    on_each_database(|host, _key| {
        let mut idle = TcpStream::connect(host).unwrap();
        let started = Instant::now();
        let closed = closed_after(&mut idle, started, Duration::from_secs(10));
        assert!(
            closed >= Duration::from_millis(1900) && closed < Duration::from_secs(5),
            "the idle timeout (2 s) closed it after {closed:?}"
        );
        // After a whole request on a kept-alive connection, the same.
        let mut kept = TcpStream::connect(host).unwrap();
        kept.write_all(b"GET /v2/providers HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let started = Instant::now();
        let closed = closed_after(&mut kept, started, Duration::from_secs(10));
        assert!(
            closed >= Duration::from_millis(1900) && closed < Duration::from_secs(5),
            "a kept-alive connection idles out after 2 s, not 1: {closed:?}"
        );
    });
}

#[test]
fn connections_beyond_the_cap_take_the_place_of_idle_ones_or_get_a_json_503() {
    on_each_database(|host, key| {
        // Six idle connections fill the cap; a client is still served, in the place of one.
        let mut idle: Vec<TcpStream> = (0..6).map(|_| TcpStream::connect(host).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(200));
        assert!(served(host), "a new client takes the longest idle place");
        let started = Instant::now();
        let closed = closed_after(&mut idle[0], started, Duration::from_secs(1));
        assert!(
            closed < Duration::from_secs(1),
            "the oldest idle one gave its place"
        );
        drop(idle);
        std::thread::sleep(Duration::from_millis(300));

        // Six requests whose bodies never come keep every place busy: a new one is 503.
        let busy: Vec<TcpStream> = (0..6)
            .map(|_| {
                let mut stream = TcpStream::connect(host).unwrap();
                stream.write_all(body_never_sent(key).as_bytes()).unwrap();
                stream
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let (status, body) = raw(host, b"GET /v2/providers HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(status, 503, "{body}");
        assert!(body["detail"].as_str().unwrap().contains("retry"), "{body}");
        // A refused request the server never reads still gets its answer, not a reset.
        let mut large = b"POST /v2/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: 60000\r\n\r\n"
            .to_vec();
        large.resize(large.len() + 60_000, b' ');
        let mut refused = TcpStream::connect(host).unwrap();
        refused.write_all(&large).unwrap();
        // The answer has been written and the socket closed by the time it is read.
        std::thread::sleep(Duration::from_millis(300));
        refused
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut answer = Vec::new();
        let read = refused.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 503"), "{read:?}: {answer}");
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("\r\nretry-after: 1\r\n"),
            "{answer}"
        );
        drop(busy);
    });
}

#[test]
fn a_body_that_never_arrives_is_answered_503_after_the_request_timeout() {
    on_each_database(|host, key| {
        let started = Instant::now();
        let (status, body) = raw(host, body_never_sent(key).as_bytes());
        let took = started.elapsed();
        assert_eq!(status, 503, "{body}");
        assert!(
            body["detail"].as_str().unwrap().contains("1.5 seconds"),
            "{body}"
        );
        assert!(took >= Duration::from_millis(1400) && took < Duration::from_secs(5));
    });
}

#[test]
fn heads_too_large_or_unreadable_are_refused_in_json() {
    on_each_database(|host, _key| {
        // Above the router's caps, below the transport's: the router's own answers.
        let long_uri = format!(
            "GET /v2/providers?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
            "a".repeat(9 * 1024)
        );
        let (status, body) = raw(host, long_uri.as_bytes());
        assert_eq!(status, 414, "{body}");
        assert!(body["detail"].as_str().unwrap().contains("8192"), "{body}");

        let many: String = (0..150).map(|i| format!("X-Many-{i}: v\r\n")).collect();
        let request = format!("GET /v2/providers HTTP/1.1\r\nHost: x\r\n{many}\r\n");
        let (status, body) = raw(host, request.as_bytes());
        assert_eq!(status, 431, "{body}");

        let big = format!(
            "GET /v2/providers HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
            "b".repeat(70 * 1024)
        );
        let (status, body) = raw(host, big.as_bytes());
        assert_eq!(status, 431, "{body}");

        // Beyond what the transport reads, or not HTTP at all: its refusals, in JSON too.
        let huge = format!(
            "GET /v2/providers HTTP/1.1\r\nHost: x\r\nX-Huge: {}\r\n\r\n",
            "h".repeat(300 * 1024)
        );
        let (status, body) = raw(host, huge.as_bytes());
        assert_eq!(status, 431, "{body}");
        let huge_uri = format!(
            "GET /v2/providers?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
            "u".repeat(300 * 1024)
        );
        let (status, body) = raw(host, huge_uri.as_bytes());
        assert!(status == 414 || status == 431, "{status} {body}");
        for unreadable in [
            &b"GET /v2/providers HTTP/1.1\r\nHost: x\r\nBad\x01Name: y\r\n\r\n"[..],
            b"POST /v2/user HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n",
            b"POST /v2/user HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
        ] {
            let (status, body) = raw(host, unreadable);
            assert_eq!(status, 400, "{body}");
            assert!(body["detail"].as_str().unwrap().contains("HTTP/1.1"));
        }
        assert!(served(host), "and the server goes on serving");
    });
}
