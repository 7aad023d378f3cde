//! A Language Server Protocol client over a child process's stdin and stdout: framing,
//! requests matched to their answers, and notifications kept until asked for. What an
//! editor does, without the editor.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails rather than hangs.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications that arrived while waiting for something else.
    pub notifications: Vec<Value>,
}

impl Client {
    /// Starts `covenant lsp` and completes the handshake with `root` as the workspace.
    pub fn start(covenant: &Path, root: &Path, options: Value) -> Client {
        let mut child = Command::new(covenant)
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("covenant lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 0,
            notifications: Vec::new(),
        };
        let root_uri = file_uri(root);
        let answer = client.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "capabilities": {},
                "initializationOptions": options,
            }),
        );
        assert!(
            answer["capabilities"]["hoverProvider"] == json!(true),
            "{answer}"
        );
        client.notify("initialized", json!({}));
        client
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its answer: the result, or panics on an error.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        match self.try_request(method, params) {
            Ok(result) => result,
            Err(error) => panic!("{method} failed: {error}"),
        }
    }

    /// Sends a request and waits for its answer: the result or the error object.
    pub fn try_request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let answer =
            self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none());
        match answer.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(answer["result"].clone()),
        }
    }

    /// The diagnostics published for `uri` at `version` (the last of them, if several).
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let published = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        };
        if let Some(at) = self.notifications.iter().position(published) {
            let found = self.notifications.remove(at);
            return found["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        }
        let found = self.wait_for(published);
        found["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The next message `wanted` accepts; others are kept as notifications.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.notifications.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("no answer within {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            }
        }
    }

    /// `shutdown` then `exit`: the server's exit status.
    pub fn shutdown(mut self) -> std::process::ExitStatus {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The server's process id, to read its memory.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A position of the protocol: zero-based line and UTF-16 column of `needle`'s first
/// occurrence (plus `into` characters), as an editor's cursor would be.
pub fn position_of(text: &str, needle: &str, into: usize) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"))
        + into;
    let before = &text[..at];
    let line = before.matches('\n').count();
    let column = before
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .encode_utf16()
        .count();
    json!({ "line": line, "character": column })
}
