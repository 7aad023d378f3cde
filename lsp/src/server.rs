//! The server's state (the open documents, the project, the client's settings) and the
//! loop that routes each message to its handler.

use crate::analysis::Analysis;
use crate::{MAX_DOCUMENT_BYTES, semantic};
use crate::{actions, completion, diagnostics, formatting, hover, lens, navigation, rename};
use covenant_codegen::Spec;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as notify, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

/// What the server offers: every feature it has, documents synced by incremental edits.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["@".into(), ":".into(), " ".into(), "(".into()]),
            ..Default::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: semantic::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![lens::DIFF_COMMAND.into()],
            work_done_progress_options: Default::default(),
        }),
        ..Default::default()
    }
}

/// Settings a client may send in `initializationOptions` or `workspace/didChangeConfiguration`
/// (under a `covenant` key there).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Whether a rename may change a name written on the wire (a field, a parameter, an enum
    /// value): off, such a rename is refused, since it breaks every client.
    pub rename_wire_names: bool,
    /// The git ref the `diff` code lens compares with.
    pub diff_against: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rename_wire_names: false,
            diff_against: "main".into(),
        }
    }
}

struct Document {
    version: i32,
    text: String,
    /// `None` after an edit, until something asks.
    analysis: Option<Analysis>,
    /// The spec of the last text that checked, to answer from while the text does not.
    last_good: Option<Arc<Spec>>,
    /// The version whose diagnostics the client has.
    published: Option<i32>,
}

impl Document {
    fn new(version: i32, text: String) -> Document {
        Document {
            version,
            text,
            analysis: None,
            last_good: None,
            published: None,
        }
    }

    /// The analysis of the current text, checking it if an edit made it stale (a stand-in
    /// that answers nothing for a document past the size bound).
    fn analysis(&mut self, uri: &Url) -> &Analysis {
        self.analysis.get_or_insert_with(|| {
            let name = uri
                .to_file_path()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| uri.to_string());
            let analysis = if self.text.len() > MAX_DOCUMENT_BYTES {
                Analysis::oversized(&name)
            } else {
                Analysis::new(&name, self.text.clone())
            };
            if let Some(spec) = &analysis.spec {
                self.last_good = Some(spec.clone());
            }
            analysis
        })
    }
}

pub struct Server {
    documents: HashMap<Url, Document>,
    /// Closed documents whose diagnostics the client still shows.
    closed: Vec<Url>,
    root: Option<PathBuf>,
    settings: Settings,
    old_versions: lens::OldVersions,
}

/// A failed request, as the client is told.
pub type Refusal = (ErrorCode, String);

impl Server {
    pub fn new(params: &InitializeParams) -> Server {
        #[allow(deprecated)] // `root_uri` is what older clients, Neovim 0.7's among them, send.
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|folders| folders.first())
            .map(|folder| folder.uri.clone())
            .or_else(|| params.root_uri.clone())
            .and_then(|uri| uri.to_file_path().ok());
        let settings = params
            .initialization_options
            .clone()
            .and_then(|options| serde_json::from_value(options).ok())
            .unwrap_or_default();
        Server {
            documents: HashMap::new(),
            closed: Vec::new(),
            root,
            settings,
            old_versions: lens::OldVersions::default(),
        }
    }

    /// Routes messages until `shutdown` and `exit`. Messages that queued while one was
    /// handled are taken together, so a burst of typed edits is checked once.
    pub fn run(mut self, connection: &Connection) -> Result<(), String> {
        self.load_project();
        self.publish(connection)?;
        loop {
            let Ok(first) = connection.receiver.recv() else {
                return Ok(());
            };
            let batch: Vec<Message> = std::iter::once(first)
                .chain(connection.receiver.try_iter())
                .collect();
            for message in batch {
                match message {
                    Message::Request(request) => {
                        if connection
                            .handle_shutdown(&request)
                            .map_err(|e| e.to_string())?
                        {
                            return Ok(());
                        }
                        let response = self.answer(request);
                        send(connection, Message::Response(response))?;
                    }
                    Message::Notification(notification) => {
                        let method = notification.method.clone();
                        if !self.notified(notification) {
                            let message = format!(
                                "covenant lsp: handling {method} failed; the document may be stale until it is reopened"
                            );
                            let params = LogMessageParams {
                                typ: MessageType::ERROR,
                                message,
                            };
                            let log = Notification::new(notify::LogMessage::METHOD.into(), params);
                            send(connection, Message::Notification(log))?;
                        }
                    }
                    Message::Response(_) => {}
                }
            }
            self.publish(connection)?;
        }
    }

    /// The project's spec (`covenant.toml`'s `spec`), checked without being opened, so its
    /// problems and symbols are there before any file is.
    fn load_project(&mut self) {
        let Some(root) = &self.root else { return };
        let Ok(project) = covenant_project::config::Project::read_from(&root.join("covenant.toml"))
        else {
            return;
        };
        let Some(spec) = project.spec else { return };
        let path = root.join(spec);
        if let (Ok(text), Ok(uri)) = (std::fs::read_to_string(&path), Url::from_file_path(&path)) {
            self.closed.retain(|closed| *closed != uri);
            self.documents
                .entry(uri)
                .or_insert_with(|| Document::new(0, text));
        }
    }

    /// Diagnostics for every document whose client has not seen its current version.
    fn publish(&mut self, connection: &Connection) -> Result<(), String> {
        for uri in std::mem::take(&mut self.closed) {
            let params = PublishDiagnosticsParams::new(uri, Vec::new(), None);
            let message = Notification::new(notify::PublishDiagnostics::METHOD.into(), params);
            send(connection, Message::Notification(message))?;
        }
        let stale: Vec<Url> = self
            .documents
            .iter()
            .filter(|(_, d)| d.published != Some(d.version))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in stale {
            let version = self.documents[&uri].version;
            let analysis = self.documents.get_mut(&uri).map(|d| d.analysis(&uri));
            let list = match analysis {
                Some(analysis) if analysis.oversized => vec![diagnostics::too_large()],
                Some(analysis) => diagnostics::to_lsp(analysis, &uri),
                None => Vec::new(),
            };
            let params = PublishDiagnosticsParams::new(uri.clone(), list, Some(version));
            let message = Notification::new(notify::PublishDiagnostics::METHOD.into(), params);
            send(connection, Message::Notification(message))?;
            if let Some(document) = self.documents.get_mut(&uri) {
                document.published = Some(version);
            }
        }
        Ok(())
    }

    /// Handles a notification; whether it went through (a handler that panicked is caught,
    /// and the client told, rather than ending the server).
    fn notified(&mut self, notification: Notification) -> bool {
        catch_unwind(AssertUnwindSafe(|| self.notification(notification))).is_ok()
    }

    fn notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            notify::DidOpenTextDocument::METHOD => {
                if let Some(p) = params::<DidOpenTextDocumentParams>(notification.params) {
                    let item = p.text_document;
                    let mut document = Document::new(item.version, item.text);
                    // The project's spec, checked from disk at the start, lends its last good
                    // spec to an editor's text of it that does not check.
                    if let Some(before) = self.documents.get(&item.uri) {
                        document.last_good = before.last_good.clone();
                    }
                    self.documents.insert(item.uri, document);
                }
            }
            notify::DidChangeTextDocument::METHOD => {
                if let Some(p) = params::<DidChangeTextDocumentParams>(notification.params)
                    && let Some(document) = self.documents.get_mut(&p.text_document.uri)
                {
                    for change in p.content_changes {
                        apply_change(&mut document.text, change);
                    }
                    document.version = p.text_document.version;
                    document.analysis = None;
                }
            }
            notify::DidCloseTextDocument::METHOD => {
                if let Some(p) = params::<DidCloseTextDocumentParams>(notification.params) {
                    self.documents.remove(&p.text_document.uri);
                    self.closed.push(p.text_document.uri);
                    // The project's spec stays checked, as it is on disk.
                    self.load_project();
                }
            }
            notify::DidChangeConfiguration::METHOD => {
                if let Some(p) = params::<DidChangeConfigurationParams>(notification.params) {
                    let settings = p.settings.get("covenant").cloned().unwrap_or(p.settings);
                    if let Ok(settings) = serde_json::from_value(settings) {
                        self.settings = settings;
                    }
                }
            }
            _ => {}
        }
    }

    /// Answers one request, an error for one that failed or panicked.
    fn answer(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        match catch_unwind(AssertUnwindSafe(|| self.request(request))) {
            Ok(Ok(result)) => Response::new_ok(id, result),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "the covenant language server failed on this request".into(),
            ),
        }
    }

    fn request(&mut self, request: Request) -> Result<serde_json::Value, Refusal> {
        let Request { method, params, .. } = request;
        let result = match method.as_str() {
            req::HoverRequest::METHOD => {
                let p: HoverParams = parse(params)?;
                let at = p.text_document_position_params;
                let (analysis, spec) = view(&mut self.documents, &at.text_document.uri)?;
                json(hover::hover(analysis, spec.as_deref(), at.position))
            }
            req::GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = parse(params)?;
                let at = p.text_document_position_params;
                let uri = at.text_document.uri;
                let (analysis, _) = view(&mut self.documents, &uri)?;
                json(navigation::definition(analysis, &uri, at.position))
            }
            req::References::METHOD => {
                let p: ReferenceParams = parse(params)?;
                let at = p.text_document_position;
                let uri = at.text_document.uri;
                let (analysis, _) = view(&mut self.documents, &uri)?;
                let with_declaration = p.context.include_declaration;
                json(navigation::references(
                    analysis,
                    &uri,
                    at.position,
                    with_declaration,
                ))
            }
            req::DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(navigation::document_symbols(analysis))
            }
            req::WorkspaceSymbolRequest::METHOD => {
                let p: WorkspaceSymbolParams = parse(params)?;
                json(self.workspace_symbols(&p.query))
            }
            req::PrepareRenameRequest::METHOD => {
                let p: TextDocumentPositionParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(rename::prepare(analysis, p.position, &self.settings)?)
            }
            req::Rename::METHOD => {
                let p: RenameParams = parse(params)?;
                let at = p.text_document_position;
                let uri = at.text_document.uri;
                let (analysis, _) = view(&mut self.documents, &uri)?;
                json(rename::rename(
                    analysis,
                    &uri,
                    at.position,
                    &p.new_name,
                    &self.settings,
                )?)
            }
            req::Completion::METHOD => {
                let p: CompletionParams = parse(params)?;
                let at = p.text_document_position;
                let (analysis, spec) = view(&mut self.documents, &at.text_document.uri)?;
                json(completion::complete(analysis, spec.as_deref(), at.position))
            }
            req::Formatting::METHOD => {
                let p: DocumentFormattingParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(formatting::whole(analysis))
            }
            req::RangeFormatting::METHOD => {
                let p: DocumentRangeFormattingParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(formatting::range(analysis, p.range))
            }
            req::FoldingRangeRequest::METHOD => {
                let p: FoldingRangeParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(navigation::folding_ranges(analysis))
            }
            req::SemanticTokensFullRequest::METHOD => {
                let p: SemanticTokensParams = parse(params)?;
                let (analysis, _) = view(&mut self.documents, &p.text_document.uri)?;
                json(semantic::tokens(analysis))
            }
            req::CodeActionRequest::METHOD => {
                let p: CodeActionParams = parse(params)?;
                let uri = p.text_document.uri.clone();
                let (analysis, _) = view(&mut self.documents, &uri)?;
                json(actions::code_actions(analysis, &uri, p.range))
            }
            req::CodeLensRequest::METHOD => {
                let p: CodeLensParams = parse(params)?;
                let uri = p.text_document.uri;
                let (analysis, _) = view(&mut self.documents, &uri)?;
                let settings = &self.settings;
                json(lens::code_lenses(
                    analysis,
                    &uri,
                    settings,
                    &mut self.old_versions,
                ))
            }
            req::ExecuteCommand::METHOD => {
                let p: ExecuteCommandParams = parse(params)?;
                let uri = lens::command_document(&p)?;
                let (analysis, _) = view(&mut self.documents, &uri)?;
                let (root, settings) = (self.root.as_deref(), &self.settings);
                let old_versions = &mut self.old_versions;
                json(lens::execute(
                    analysis,
                    &uri,
                    &p,
                    root,
                    settings,
                    old_versions,
                )?)
            }
            _ => {
                return Err((
                    ErrorCode::MethodNotFound,
                    format!("no handler for {method}"),
                ));
            }
        };
        result.map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    fn workspace_symbols(&mut self, query: &str) -> Vec<SymbolInformation> {
        let mut symbols = Vec::new();
        for (uri, document) in &mut self.documents {
            let analysis = document.analysis(uri);
            symbols.extend(navigation::workspace_symbols(analysis, uri, query));
        }
        symbols.sort_by(|a, b| {
            (&a.name, a.location.uri.as_str()).cmp(&(&b.name, b.location.uri.as_str()))
        });
        symbols
    }
}

/// A document's analysis with the last spec of it that checked. A function of the
/// documents alone, so a handler may hold it beside the server's other fields.
fn view<'d>(
    documents: &'d mut HashMap<Url, Document>,
    uri: &Url,
) -> Result<(&'d Analysis, Option<Arc<Spec>>), Refusal> {
    let document = documents
        .get_mut(uri)
        .ok_or_else(|| (ErrorCode::InvalidParams, format!("{uri} is not open")))?;
    // Checked first, should an edit have made it stale: that may set `last_good`.
    document.analysis(uri);
    let last_good = document.last_good.clone();
    Ok((document.analysis(uri), last_good))
}

/// Applies one change of `didChange`: a range replaced, or the whole text.
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        Some(range) => {
            let lines = crate::position::LineIndex::new(text);
            let span = lines.span(text, range);
            let (start, end) = (
                span.start as usize,
                (span.end as usize).max(span.start as usize),
            );
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text,
    }
}

fn params<P: DeserializeOwned>(value: serde_json::Value) -> Option<P> {
    serde_json::from_value(value).ok()
}

fn parse<P: DeserializeOwned>(value: serde_json::Value) -> Result<P, Refusal> {
    serde_json::from_value(value).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

fn json<T: serde::Serialize>(value: T) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(value)
}

fn send(connection: &Connection, message: Message) -> Result<(), String> {
    connection
        .sender
        .send(message)
        .map_err(|_| "the client went away".to_string())
}
