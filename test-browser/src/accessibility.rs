//! The accessibility check: axe-core, the engine browser audits use, run in the page as it
//! is. The repository does not vendor it: `.ci/run` installs npm's `axe-core`, pinned, outside
//! the repository and names its `axe.min.js` in `COVENANT_AXE_CORE`.

use crate::Browser;

/// The variable naming axe-core's `axe.min.js`.
pub const AXE_CORE: &str = "COVENANT_AXE_CORE";

/// Runs axe over the document and hands back one line per violation, or the error.
const RUN: &str = "const done = arguments[arguments.length - 1]; \
    axe.run(document, { resultTypes: ['violations'] }).then( \
      r => done(r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + \
        v.nodes.map(n => n.target.join(' ')).join(', '))), \
      e => done(['axe-core failed: ' + e]));";

impl Browser {
    /// Every violation axe-core finds on the page as it now is, one line each naming the rule,
    /// its impact and the elements; `None` outside CI when axe-core is not installed (CI
    /// installs it, so there its absence fails the test).
    pub async fn accessibility_violations(&self) -> Option<Vec<String>> {
        let Some(path) = std::env::var_os(AXE_CORE) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{AXE_CORE} must name axe-core's axe.min.js in CI (.ci/run installs it)"
            );
            eprintln!("accessibility check skipped: set {AXE_CORE} to axe-core's axe.min.js");
            return None;
        };
        let loaded = self.script("return typeof window.axe === 'object';").await;
        if loaded != serde_json::Value::Bool(true) {
            let source = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{AXE_CORE}={}: {e}", path.to_string_lossy()));
            self.script(&source).await;
        }
        let found = self
            .client
            .execute_async(RUN, Vec::new())
            .await
            .expect("run axe-core");
        let lines = found
            .as_array()
            .expect("a list of violations")
            .iter()
            .map(|line| line.as_str().unwrap_or_default().to_string())
            .collect();
        Some(lines)
    }
}
