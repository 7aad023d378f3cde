//! Serving a router over TCP with the bounds a public server needs. hyper speaks HTTP/1.1;
//! this module decides how long a connection may sit, how many are served at once, and how
//! large a request head hyper reads before the router's own limits, which answer in the
//! API's error shape, take over.
//!
//! - A request's head must arrive within `header_read_timeout` of its first byte, however
//!   slowly it trickles in: a client sending one byte every few seconds is cut off.
//! - A connection with no request in progress and no bytes moving is closed after
//!   `idle_timeout`; a client that stops reading its response counts as idle.
//! - At most `max_connections` are served. A new connection beyond them takes the place of
//!   the one that has waited longest without a request in progress (a slow or idle client);
//!   when every connection is in the middle of a request, the new one is answered 503 and
//!   closed. So slow clients cannot lock out the others.

use super::{RejectionShape, ask_to_retry};
use axum::body::Body;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::Instant;
use tower::ServiceExt;

/// How connections are served.
#[derive(Clone, Debug)]
pub struct Transport {
    /// From a request's first byte to the end of its headers.
    pub header_read_timeout: Duration,
    /// How long a connection may sit with no request in progress and no bytes moving.
    pub idle_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// The most hyper buffers of one request head. Keep it above the router's URI and header
    /// caps ([`super::RequestLimits`]) so those answer in the API's shape; a head larger than
    /// this is refused by hyper itself, with an empty 414 or 431.
    pub max_head_bytes: usize,
    /// The most header lines hyper parses (an empty 431 beyond); above the router's cap.
    pub max_header_lines: usize,
    /// How long a shutdown waits for requests in progress.
    pub shutdown_grace: Duration,
    /// The shape of the errors the transport answers itself: the 503 of a connection beyond
    /// the cap, and hyper's refusals of heads it cannot read (400, 414, 431), which it
    /// would otherwise send with empty bodies. Set the API's shape when it has its own.
    pub rejections: RejectionShape,
}

/// Connections served at once when the process may open enough files.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Files kept free for everything but connections: the database, its journal, logs.
const FILES_RESERVED: u64 = 64;
/// How many 503 answers to connections beyond the cap are written at once; beyond them a
/// connection is closed unanswered, so a flood of connects cannot use up the process's files.
const BUSY_ANSWERS_AT_ONCE: usize = 32;
/// How long writing a 503 to a connection beyond the cap may take.
const BUSY_ANSWER_TIMEOUT: Duration = Duration::from_secs(1);
/// How long to wait before accepting again when the process is out of files.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

impl Default for Transport {
    fn default() -> Self {
        Transport {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: connections_within_file_limit(),
            max_head_bytes: 256 * 1024,
            max_header_lines: 512,
            shutdown_grace: Duration::from_secs(30),
            rejections: RejectionShape::default(),
        }
    }
}

/// [`DEFAULT_MAX_CONNECTIONS`], or fewer when the process's open-file limit would run out
/// first (each connection holds one file).
pub fn connections_within_file_limit() -> usize {
    let soft = open_file_limit().unwrap_or(u64::MAX);
    let room = soft.saturating_sub(FILES_RESERVED).max(16);
    room.min(DEFAULT_MAX_CONNECTIONS as u64) as usize
}

#[cfg(unix)]
fn open_file_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<u64> {
    None
}

/// Raises the process's soft open-file limit to its hard limit, as servers do at start, and
/// answers the soft limit in force.
#[cfg(unix)]
pub fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return limit.maximum;
        }
    }
    limit.current
}

#[cfg(not(unix))]
pub fn raise_open_file_limit() -> Option<u64> {
    None
}

/// Serves `router` on `listener` until `shutdown` completes, then lets requests in progress
/// finish (within [`Transport::shutdown_grace`]).
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    transport: Transport,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let transport = Arc::new(transport);
    let registry = Arc::new(Registry::default());
    let busy_answers = Arc::new(Semaphore::new(BUSY_ANSWERS_AT_ONCE));
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    back_off_if_out_of_files(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        match registry.admit(transport.max_connections) {
            Some(connection) => {
                let router = router.clone();
                let transport = transport.clone();
                let registry = registry.clone();
                let stopping = stopping.clone();
                tokio::spawn(async move {
                    serve_connection(stream, router, &transport, &connection, stopping).await;
                    registry.leave(connection.id);
                });
            }
            None => refuse(stream, &transport, &busy_answers),
        }
    }
    drop(listener);
    let _ = stop.send(true);
    registry.drained(transport.shutdown_grace).await;
    Ok(())
}

/// Out of files (or memory) for a new socket: wait for some to close instead of spinning.
/// Any other error belongs to one connection that broke off while being accepted.
async fn back_off_if_out_of_files(error: &io::Error) {
    let broken_off = matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    );
    if !broken_off {
        tracing::warn!(%error, "cannot accept a connection");
        tokio::time::sleep(ACCEPT_BACKOFF).await;
    }
}

/// Answers a connection beyond the cap with the busy 503, or closes it unanswered when too
/// many such answers are being written already.
fn refuse(mut stream: TcpStream, transport: &Transport, busy_answers: &Arc<Semaphore>) {
    let Ok(permit) = busy_answers.clone().try_acquire_owned() else {
        return;
    };
    let answer = transport.answer(503, BUSY);
    tokio::spawn(async move {
        let write = async {
            stream.write_all(&answer).await?;
            stream.shutdown().await?;
            drain(&mut stream).await
        };
        let _ = tokio::time::timeout(BUSY_ANSWER_TIMEOUT, write).await;
        drop(permit);
    });
}

/// Why a connection was answered 503 without its request reaching the router.
const BUSY: &str = "The server is serving as many connections as it can; retry shortly";
/// The most of a refused client's request read (and dropped) after its answer.
const DRAINED_AT_MOST: usize = 64 * 1024;

/// Reads what the client sent until it closes, so closing the socket with its request
/// unread does not reset the connection and lose the answer just written.
async fn drain(stream: &mut TcpStream) -> io::Result<()> {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 4096];
    let mut read = 0;
    while read < DRAINED_AT_MOST {
        match stream.read(&mut buffer).await? {
            0 => break,
            n => read += n,
        }
    }
    Ok(())
}

impl Transport {
    /// A whole HTTP/1.1 answer of this status in the rejection shape, closing the
    /// connection.
    fn answer(&self, status: u16, detail: &str) -> Vec<u8> {
        let reason = axum::http::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("Error");
        let body = self.rejections.body(status, detail, None).to_string();
        let mut headers = axum::http::HeaderMap::new();
        if let Ok(status) = axum::http::StatusCode::from_u16(status) {
            ask_to_retry(status, &mut headers);
        }
        let retry: String = (headers.iter())
            .filter_map(|(name, value)| Some(format!("{name}: {}\r\n", value.to_str().ok()?)))
            .collect();
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n{retry}\
             connection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }

    /// The busy 503 for a request on a connection whose place was given away.
    fn busy_response(&self) -> axum::response::Response {
        let body = self.rejections.body(503, BUSY, None).to_string();
        let mut response = axum::response::Response::builder()
            .status(503)
            .header("content-type", "application/json")
            .header("connection", "close")
            .body(Body::from(body))
            .unwrap_or_default();
        ask_to_retry(response.status(), response.headers_mut());
        response
    }

    /// hyper's refusal of a head it could not read, said in the rejection shape.
    fn refusal(&self, hyper_head: &[u8]) -> Vec<u8> {
        let status = hyper_head
            .get(9..12)
            .and_then(|code| std::str::from_utf8(code).ok())
            .and_then(|code| code.parse::<u16>().ok())
            .unwrap_or(400);
        let detail = match status {
            414 => format!(
                "The request URI is longer than this server reads ({} bytes of head)",
                self.max_head_bytes
            ),
            431 => format!(
                "The request's headers are larger than this server reads ({} bytes or {} lines)",
                self.max_head_bytes, self.max_header_lines
            ),
            _ => "The request is not valid HTTP/1.1: its request line, a header or its \
                  Content-Length could not be read"
                .to_string(),
        };
        self.answer(status, &detail)
    }
}

async fn serve_connection(
    stream: TcpStream,
    router: axum::Router,
    transport: &Arc<Transport>,
    connection: &Arc<Connection>,
    mut stopping: watch::Receiver<bool>,
) {
    let io = hyper_util::rt::TokioIo::new(Watched {
        inner: stream,
        connection: connection.clone(),
        transport: transport.clone(),
        refusal: None,
    });
    let watched = connection.clone();
    let transport_for_refusal = transport.clone();
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let (router, connection) = (router.clone(), watched.clone());
            let refused = transport_for_refusal.clone();
            async move {
                if !connection.begin_request() {
                    // Its place went to a new connection as its head completed.
                    return Ok(refused.busy_response());
                }
                let response = router.oneshot(request.map(Body::new)).await;
                connection.set(Phase::Idle(Instant::now()));
                response
            }
        });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(None)
        .max_buf_size(transport.max_head_bytes.max(8192))
        .max_headers(transport.max_header_lines)
        .serve_connection(io, service);
    tokio::pin!(served);
    let mut shutting_down = *stopping.borrow();
    if shutting_down {
        served.as_mut().graceful_shutdown();
    }
    loop {
        let deadline = connection.deadline(transport);
        tokio::select! {
            finished = served.as_mut() => {
                if let Err(error) = finished {
                    tracing::debug!(%error, "connection ended");
                }
                return;
            }
            () = tokio::time::sleep_until(deadline) => {
                if connection.expired(transport) {
                    tracing::debug!("connection closed: timed out");
                    return;
                }
            }
            () = connection.head_began.notified() => {}
            () = connection.evicted.notified() => {
                tracing::debug!("connection closed: its place went to a new one");
                return;
            }
            _ = stopping.changed(), if !shutting_down => {
                shutting_down = true;
                served.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Where a connection is between requests.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// No request in progress since this instant (or since bytes last moved).
    Idle(Instant),
    /// A request's head began arriving at this instant.
    Head(Instant),
    /// The router is answering a request.
    Busy,
    /// Its place went to a new connection; no request may begin on it.
    Evicted,
}

/// One connection's phase, and the signals that its place was given to another or that a
/// head began (its deadline is then the header timeout's, not the idle one's).
struct Connection {
    id: u64,
    phase: Mutex<Phase>,
    evicted: Notify,
    head_began: Notify,
}

impl Connection {
    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = phase;
    }

    /// Bytes arrived: an idle connection begins a request's head.
    fn read_some(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if let Phase::Idle(_) = *phase {
            *phase = Phase::Head(Instant::now());
            self.head_began.notify_one();
        }
    }

    fn is_reading_head(&self) -> bool {
        matches!(self.phase(), Phase::Head(_))
    }

    /// Bytes left: a response still being written keeps its connection from idling out.
    fn wrote_some(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if let Phase::Idle(_) = *phase {
            *phase = Phase::Idle(Instant::now());
        }
    }

    /// When this connection's phase times out; while busy, when to look again.
    fn deadline(&self, transport: &Transport) -> Instant {
        match self.phase() {
            Phase::Idle(since) => since + transport.idle_timeout,
            Phase::Head(since) => since + transport.header_read_timeout,
            Phase::Busy => Instant::now() + transport.header_read_timeout,
            Phase::Evicted => Instant::now(),
        }
    }

    /// A request begins, unless the connection's place was given away: checked and set
    /// under one lock, so an eviction never drops a request the router has begun.
    fn begin_request(&self) -> bool {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*phase, Phase::Evicted) {
            return false;
        }
        *phase = Phase::Busy;
        true
    }

    /// Gives this connection's place away, unless a request is in progress on it.
    fn evict(&self) -> bool {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*phase, Phase::Busy) {
            return false;
        }
        *phase = Phase::Evicted;
        self.evicted.notify_one();
        true
    }

    fn expired(&self, transport: &Transport) -> bool {
        !matches!(self.phase(), Phase::Busy) && self.deadline(transport) <= Instant::now()
    }

    /// Since when this connection has waited without a request in progress.
    fn waiting_since(&self) -> Option<Instant> {
        match self.phase() {
            Phase::Idle(since) | Phase::Head(since) => Some(since),
            Phase::Busy | Phase::Evicted => None,
        }
    }
}

/// The connections being served.
#[derive(Default)]
struct Registry {
    connections: Mutex<HashMap<u64, Arc<Connection>>>,
    next_id: AtomicU64,
}

impl Registry {
    /// A place for a new connection: a free one, or the place of the connection that has
    /// waited longest without a request in progress. `None` when every one is busy.
    fn admit(&self, cap: usize) -> Option<Arc<Connection>> {
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        if connections.len() >= cap {
            let mut waiting: Vec<(Instant, u64)> = connections
                .values()
                .filter_map(|c| c.waiting_since().map(|since| (since, c.id)))
                .collect();
            waiting.sort_unstable();
            // A connection may begin a request between the look and the eviction: then
            // the next longest waiting gives its place.
            let evicted = waiting
                .iter()
                .find(|(_, id)| connections.get(id).is_some_and(|c| c.evict()))?;
            connections.remove(&evicted.1);
        }
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            phase: Mutex::new(Phase::Idle(Instant::now())),
            evicted: Notify::new(),
            head_began: Notify::new(),
        });
        connections.insert(connection.id, connection.clone());
        Some(connection)
    }

    fn leave(&self, id: u64) {
        self.connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }

    fn is_empty(&self) -> bool {
        self.connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Waits until every connection has ended, or `grace` has passed.
    async fn drained(&self, grace: Duration) {
        let deadline = Instant::now() + grace;
        while !self.is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A socket that tells its connection when bytes move, and that says hyper's own refusals
/// of unreadable heads in the rejection shape.
struct Watched {
    inner: TcpStream,
    connection: Arc<Connection>,
    transport: Arc<Transport>,
    /// The answer sent in place of hyper's refusal, and how much of it is sent.
    refusal: Option<(Vec<u8>, usize)>,
}

impl Watched {
    /// Whether hyper is writing its own refusal: no request reached the router since the
    /// head began arriving, and hyper's answer is a 4xx without a body (the router answers
    /// every error with one).
    fn is_hyper_refusal(&self, first_bytes: &[u8]) -> bool {
        let head = String::from_utf8_lossy(&first_bytes[..first_bytes.len().min(512)]);
        self.connection.is_reading_head()
            && head.starts_with("HTTP/1.1 4")
            && head
                .to_ascii_lowercase()
                .contains("\r\ncontent-length: 0\r\n")
    }

    /// Tells the connection when a write moved bytes.
    fn note_written(&self, polled: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.connection.wrote_some();
        }
        polled
    }

    /// Sends what is left of the refusal; ready once all of it is sent.
    fn poll_refusal(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some((bytes, sent)) = &mut self.refusal else {
            return Poll::Ready(Ok(()));
        };
        while *sent < bytes.len() {
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *sent += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// hyper's bytes of `len`, starting with `first`: swallowed when they are (part of) its
    /// refusal, after the answer that replaces it is sent; else `None`.
    fn poll_replace(
        &mut self,
        cx: &mut Context<'_>,
        first: &[u8],
        len: usize,
    ) -> Option<Poll<io::Result<usize>>> {
        if self.refusal.is_none() && self.is_hyper_refusal(first) {
            self.refusal = Some((self.transport.refusal(first), 0));
        }
        self.refusal.as_ref()?;
        Some(self.poll_refusal(cx).map_ok(|()| len))
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.connection.read_some();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(replaced) = this.poll_replace(cx, buf, buf.len()) {
            return replaced;
        }
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.note_written(polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let len = bufs.iter().map(|b| b.len()).sum();
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &b[..]);
        if let Some(replaced) = this.poll_replace(cx, first, len) {
            return replaced;
        }
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.note_written(polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_refusal(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_refusal(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}
