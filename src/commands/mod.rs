//! One module per subcommand.

pub mod cassettes;
pub mod check;
pub mod conform;
pub mod generate;
mod limits;
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

/// Writes `value`, which holds secrets, as pretty JSON to `dir/name`: whole or not at all (a
/// reader never sees half of it), on disk before this returns (a crash right after loses
/// nothing), and readable by its owner only (0600; a folder made for it is 0700), so no
/// other local user reads the keys.
pub fn write_json_file(
    dir: &std::path::Path,
    name: &str,
    value: &impl serde::Serialize,
) -> std::io::Result<std::path::PathBuf> {
    use std::io::Write;
    private_folder(dir)?;
    let path = dir.join(name);
    let partial = dir.join(format!("{name}.partial"));
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    let _ = std::fs::remove_file(&partial);
    let mut file = owner_only().open(&partial)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&partial, &path)?;
    // The rename itself is on disk once the folder is.
    std::fs::File::open(dir)?.sync_all()?;
    Ok(path)
}

/// Creates `dir` (and its parents) if missing, the folder itself 0700: a data folder holds
/// keys and the database.
pub fn private_folder(dir: &std::path::Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Options that create a new file readable and writable by its owner only.
fn owner_only() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
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
