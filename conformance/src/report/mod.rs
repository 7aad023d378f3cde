//! The reports of a run: a console summary, JUnit XML, a JSON report (read back by
//! `--rerun-failed`) and a self-contained HTML page with the coverage matrix.

pub mod console;
pub mod html;
pub mod junit;

use crate::outcome::{Report, file_stem};
use std::path::{Path, PathBuf};

/// File names inside the report folder.
pub const JSON_REPORT: &str = "report.json";
pub const JUNIT_REPORT: &str = "junit.xml";
pub const HTML_REPORT: &str = "report.html";
/// The folder of normalized transcripts, one file per scenario.
pub const TRANSCRIPTS: &str = "transcripts";

/// Writes every report file into `dir`; answers the paths written.
pub fn write_all(dir: &Path, report: &Report) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let json = dir.join(JSON_REPORT);
    std::fs::write(&json, serde_json::to_string_pretty(report)? + "\n")?;
    let junit = dir.join(JUNIT_REPORT);
    std::fs::write(&junit, junit::render(report))?;
    let html = dir.join(HTML_REPORT);
    std::fs::write(&html, html::render(report, dir))?;
    let transcripts = dir.join(TRANSCRIPTS);
    if transcripts.exists() {
        std::fs::remove_dir_all(&transcripts)?;
    }
    std::fs::create_dir_all(&transcripts)?;
    for s in &report.scenarios {
        std::fs::write(
            transcripts.join(format!("{}.txt", file_stem(&s.id))),
            &s.transcript,
        )?;
    }
    Ok(vec![json, junit, html, transcripts])
}

/// Removes every file a run writes into `dir`, so a run that stops early leaves no
/// earlier run's results behind.
pub fn clear(dir: &Path) -> std::io::Result<()> {
    for name in [JSON_REPORT, JUNIT_REPORT, HTML_REPORT] {
        match std::fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    match std::fs::remove_dir_all(dir.join(TRANSCRIPTS)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Reads a JSON report back.
pub fn read_json(dir: &Path) -> Result<Report, String> {
    let path = dir.join(JSON_REPORT);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read the last report: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
