//! `covenant lsp`: the language server of the covenant spec language, over stdio.
//!
//! Everything it says comes from the checker itself (`check_with_tree`), never a second
//! parser: the diagnostics are `check`'s, with their codes, notes and help; hover shows the
//! validated spec's wire form and provenance; formatting is `fmt`'s; the code lens is
//! `diff`'s verdict against a git ref.
//!
//! Bounded by design: a document is checked at most once per batch of edits however fast
//! they arrive (edits that queued while a check ran are applied together); a request on a
//! document that no longer checks is answered from its text's parse tree and the last spec
//! of it that checked; a file past [`MAX_DOCUMENT_BYTES`] is not checked at all; and a
//! handler that panicked answers its request with an error instead of ending the server.

mod actions;
mod analysis;
mod completion;
mod diagnostics;
mod formatting;
mod hover;
mod index;
mod lens;
mod navigation;
mod position;
mod rename;
mod semantic;
mod server;
mod wire;

pub use server::Server;

use lsp_server::Connection;

/// The largest document the server checks (16 MiB). The checker is linear in the text,
/// so this only bounds memory: the largest spec here, an imported Kubernetes API, is 6 MB.
pub const MAX_DOCUMENT_BYTES: usize = 16 << 20;

/// Serves one client on stdin and stdout until it says `exit`.
pub fn run_stdio() -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    serve(&connection)?;
    drop(connection);
    io_threads.join().map_err(|e| format!("stdio: {e}"))
}

/// Serves one client on a connection: the handshake, then every message until `exit`.
pub fn serve(connection: &Connection) -> Result<(), String> {
    let capabilities =
        serde_json::to_value(server::capabilities()).map_err(|e| format!("capabilities: {e}"))?;
    let params = connection
        .initialize(capabilities)
        .map_err(|e| format!("initialize: {e}"))?;
    let params: lsp_types::InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("initialize: {e}"))?;
    Server::new(&params).run(connection)
}
