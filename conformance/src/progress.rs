//! Progress while a run goes: a bar on a terminal, one plain line per scenario otherwise,
//! or nothing.

use crate::outcome::{ScenarioResult, Verdict};
use indicatif::{ProgressBar, ProgressStyle};

pub enum Progress {
    Bar(ProgressBar),
    Lines,
    Quiet,
}

impl Progress {
    /// A bar when standard error is a terminal, plain lines otherwise.
    pub fn for_terminal() -> Progress {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} scenarios {msg}",
                )
                .expect("the template is valid"),
            );
            Progress::Bar(bar)
        } else {
            Progress::Lines
        }
    }

    pub fn start(&self, scenarios: usize) {
        if let Progress::Bar(bar) = self {
            bar.set_length(scenarios as u64);
        }
    }

    pub fn finished(&self, result: &ScenarioResult) {
        let word = verdict_word(result.verdict);
        match self {
            // Failures are told once, in the summary, in suite order.
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines => println!("{word} {} ({:.0} ms)", result.id, result.duration_ms),
            Progress::Quiet => {}
        }
    }

    pub fn done(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// A fixed-width word for a verdict, so lines align.
pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Passed => "pass ",
        Verdict::Failed => "FAIL ",
        Verdict::ExpectedFailure => "xfail",
        Verdict::UnexpectedPass => "XPASS",
        Verdict::Skipped => "skip ",
    }
}
