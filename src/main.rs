//! `covenant`: the one command line of the toolkit.

mod commands;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Generating code builds and drops millions of small token trees: mimalloc makes
/// `generate` about a quarter faster than the system allocator (`cargo bench -p
/// covenant-import --bench import`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Compile one declarative API spec into models, server, client, schemas and conformance runs.
#[derive(Parser)]
#[command(name = "covenant", version, about)]
#[command(
    after_help = "Exit status: 0 success, 1 the spec (or the checked output) is invalid, \
                        2 usage or I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a spec and print its summary, or its diagnostics.
    ///
    /// Exit status: 0 valid, 1 invalid spec, 2 usage or I/O error.
    Check(commands::check::CheckArgs),
    /// Write generated/ (Rust crate, JSON Schemas, OpenAPI, reference site) from the spec, or
    /// `--check` it.
    ///
    /// Exit status: 0 written or up to date, 1 invalid spec or stale output, 2 usage or I/O error.
    Generate(commands::generate::GenerateArgs),
    /// Serve the reference server of the service (SQLite in DATA_DIR by default, PostgreSQL
    /// with --database-url) or the generated mock (`--mock`), and write
    /// `DATA_DIR/credentials.json` with its address and keys.
    ///
    /// Exit status: 0 stopped by Ctrl-C or SIGTERM, 2 cannot listen, open the database or
    /// write the data folder.
    #[cfg(feature = "reference")]
    Serve(commands::serve::ServeArgs),
    /// Serve any spec at once, without generating or compiling code: requests checked as the
    /// generated router checks them, answers from the spec's examples, and
    /// `DATA_DIR/credentials.json` with the address and a key for every auth scheme.
    ///
    /// Exit status: 0 stopped by Ctrl-C or SIGTERM, 1 invalid spec, 2 cannot listen or write
    /// the data folder.
    Mock(commands::mock::MockArgs),
    /// Replay cassettes against an implementation and check every response against the spec
    /// and the cassettes; with neither --target nor --credentials, against the reference
    /// server on a fresh embedded database in a temporary folder.
    ///
    /// Exit status: 0 every scenario passed (expected failures failed as listed), 1 conformance
    /// failures (or an expected failure passed), 2 usage or cassette errors (nothing was sent),
    /// 3 the target cannot be reached.
    Conform(commands::conform::ConformArgs),
    /// Write the suite's mechanical cassettes from the spec (each input constraint violated
    /// once, the auth matrix, unknown ids), or `--check` them.
    ///
    /// Exit status: 0 written or up to date, 1 invalid spec or stale output, 2 usage or I/O error.
    Cassettes(commands::cassettes::CassettesArgs),
    /// Record a cassette: a proxy forwarding to a live implementation (`--upstream`), or a
    /// HAR file turned into one (`--from-har`). Secrets are written as references.
    ///
    /// Exit status: 0 recorded (the proxy stopped by Ctrl-C), 2 usage or I/O error.
    Record(commands::record::RecordArgs),
    /// Every change between two versions of a spec, judged by who it breaks (clients,
    /// servers, generated Rust code) with the conformance scenarios exercising each: two spec
    /// files, or the spec against a git ref (`--against main`). Severities and the version
    /// bump that excuses a breaking change are set in `[diff]` of covenant.toml.
    ///
    /// Exit status: 0 no failing change (or the version was bumped as required), 1 a failing
    /// change or an invalid spec, 2 usage or I/O error.
    Diff(commands::diff::DiffArgs),
    /// Write spec files in the canonical layout: comments, doc comments and the author's line
    /// breaks kept; indentation, spacing and blank lines made canonical. Or `--check` them,
    /// printing a diff.
    ///
    /// Exit status: 0 formatted (or already canonical), 1 a file is not canonical (with
    /// --check) or does not parse, 2 usage or I/O error.
    Fmt(commands::fmt::FmtArgs),
    /// Serve the Language Server Protocol over stdin and stdout, for an editor: diagnostics
    /// as you type, hover, go to definition, references, rename, completion, formatting,
    /// semantic colours and a code lens with `diff`'s verdict against `main`.
    ///
    /// Exit status: 0 the editor asked it to exit, 2 the connection failed.
    Lsp,
    /// Write a spec from an OpenAPI 3.0, 3.1 or Swagger 2.0 document (JSON or YAML), marking
    /// with `@lossy` whatever it states less exactly; the last line counts the operations.
    ///
    /// Exit status: 0 imported without loss, 1 imported with losses, 2 the document cannot be
    /// read (its file:line:col) or the spec cannot be written.
    Import(commands::import::ImportArgs),
    /// Write the spec's reference site: static pages for every API, endpoint, model, enum,
    /// event and auth scheme, with a search, that work opened from disk. Or `--check` it.
    ///
    /// Exit status: 0 written or up to date, 1 invalid spec or stale site, 2 usage or I/O error.
    Docs(commands::docs::DocsArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let args: Vec<String> = std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let refused = !matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            );
            if refused && args.first().is_some_and(|a| a == "conform") {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                let reason = first.strip_prefix("error: ").unwrap_or(first);
                commands::conform::refused_command_line(&args[1..], reason);
            }
            e.exit()
        }
    };
    match cli.command {
        Command::Check(args) => commands::check::run(&args),
        Command::Generate(args) => commands::generate::run(&args),
        #[cfg(feature = "reference")]
        Command::Serve(args) => commands::serve::run(args),
        Command::Mock(args) => commands::mock::run(&args),
        Command::Conform(args) => commands::conform::run(args),
        Command::Cassettes(args) => commands::cassettes::run(&args),
        Command::Record(args) => commands::record::run(&args),
        Command::Diff(args) => commands::diff::run(&args),
        Command::Fmt(args) => commands::fmt::run(&args),
        Command::Lsp => match covenant_lsp::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::from(commands::EXIT_USAGE)
            }
        },
        Command::Import(args) => commands::import::run(&args),
        Command::Docs(args) => commands::docs::run(&args),
    }
}
