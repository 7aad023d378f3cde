//! The language server in process, on a memory connection: a client that sends what an
//! editor sends and reads the answers, for the tests of this crate.

#![allow(dead_code)]

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, ResponseError};
use serde_json::{Value, json};
use std::time::Duration;

pub struct InProcess {
    client: Connection,
    server: Option<std::thread::JoinHandle<Result<(), String>>>,
    next: i32,
}

impl InProcess {
    pub fn start() -> InProcess {
        Self::start_with(json!({}))
    }

    /// A server given these settings as `initializationOptions`.
    pub fn start_with(options: Value) -> InProcess {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || covenant_lsp::serve(&server));
        let mut this = InProcess {
            client,
            server: Some(handle),
            next: 0,
        };
        this.request(
            "initialize",
            json!({ "capabilities": {}, "rootUri": null, "initializationOptions": options }),
        );
        this.notify("initialized", json!({}));
        this
    }

    pub fn notify(&self, method: &str, params: Value) {
        let message = Notification::new(method.into(), params);
        self.client
            .sender
            .send(Message::Notification(message))
            .unwrap();
    }

    /// The answer to one request; panics if it is an internal error or never comes.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        match self.answer(method, params) {
            Ok(result) => result,
            Err(error) => {
                let internal = ErrorCode::InternalError as i32;
                assert_ne!(error.code, internal, "{method}: {error:?}");
                Value::Null
            }
        }
    }

    /// The error a request is answered with, `None` if it succeeds.
    pub fn refusal(&mut self, method: &str, params: Value) -> Option<String> {
        self.answer(method, params).err().map(|e| e.message)
    }

    /// Sends a request and waits, at most 30 s, for its answer.
    fn answer(&mut self, method: &str, params: Value) -> Result<Value, ResponseError> {
        self.next += 1;
        let id = RequestId::from(self.next);
        let request = Request::new(id.clone(), method.into(), params);
        self.client.sender.send(Message::Request(request)).unwrap();
        loop {
            let message = self
                .client
                .receiver
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("{method}: no answer in 30 s"));
            match message {
                Message::Response(response) if response.id == id => {
                    return response.response_result;
                }
                // The server says so when handling a notification failed.
                Message::Notification(n) if n.method == "window/logMessage" => {
                    panic!("{}", n.params["message"]);
                }
                _ => {}
            }
        }
    }

    /// Opens `text` as the document `uri`.
    pub fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "covenant", "version": 1, "text": text } }),
        );
    }

    pub fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let result = self
            .server
            .take()
            .unwrap()
            .join()
            .expect("the server thread ends");
        assert!(result.is_ok(), "{result:?}");
    }
}
