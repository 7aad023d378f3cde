//! One module per subcommand.

pub mod cassettes;
pub mod check;
pub mod conform;
pub mod generate;
pub mod mock;
mod output;
pub mod record;
mod reference;
pub mod serve;

/// The spec `check` and friends read when given no path.
pub const DEFAULT_SPEC: &str = "spec/health.covenant";

/// Exit status for a usage or I/O error, as documented in `--help`.
pub const EXIT_USAGE: u8 = 2;
/// Exit status for an invalid spec.
pub const EXIT_INVALID: u8 = 1;

/// Listens on `address`; answers the listener and the URL it is reached at (`http://…`, the
/// port the system chose when asked for 0).
pub async fn listen(
    address: std::net::SocketAddr,
) -> Result<(tokio::net::TcpListener, String), String> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    Ok((listener, format!("http://{bound}")))
}

/// Writes `value` as pretty JSON to `dir/name`, whole or not at all: a reader never sees
/// half of it.
pub fn write_json_file(
    dir: &std::path::Path,
    name: &str,
    value: &impl serde::Serialize,
) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(name);
    let partial = dir.join(format!("{name}.partial"));
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// Reads and checks the spec; on failure prints the reason (an I/O error, or the spec's
/// diagnostics) and answers the exit status it calls for.
pub fn read_valid_spec(
    path: &std::path::Path,
) -> Result<covenant_codegen::Spec, std::process::ExitCode> {
    let (file, checked) = covenant_codegen::check_path(path).map_err(|e| {
        eprintln!("error: cannot read {}: {e}", path.display());
        std::process::ExitCode::from(EXIT_USAGE)
    })?;
    checked.spec.ok_or_else(|| {
        eprint!("{}", checked.diagnostics.render(&file));
        std::process::ExitCode::from(EXIT_INVALID)
    })
}
