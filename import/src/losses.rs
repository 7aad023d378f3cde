//! What an import could not state exactly: each loss with the JSON pointer of the document's
//! part, what the document said there and what the spec says instead. The same losses are
//! written into the spec (`@lossy`) and into the report.

use serde::Serialize;

/// One thing the spec says less exactly than the document.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, Hash)]
pub struct Loss {
    /// Where in the imported document (RFC 6901, as a URI fragment: `#/paths/~1pets/get`).
    pub pointer: String,
    /// The construct of the document, in its own words (`a default response`).
    pub construct: String,
    /// What the spec says instead (`left out`, `a string`).
    pub written: String,
    /// The document is at fault here rather than saying more than the spec can (it
    /// contradicts itself, or breaks OpenAPI's rules): the spec states one reading exactly,
    /// so this is reported apart from the losses.
    #[serde(skip)]
    pub fault: bool,
}

impl Loss {
    pub fn new(pointer: &str, construct: impl Into<String>, written: impl Into<String>) -> Loss {
        Loss {
            pointer: if pointer.starts_with('#') {
                pointer.to_string()
            } else {
                format!("#{pointer}")
            },
            construct: construct.into(),
            written: written.into(),
            fault: false,
        }
    }

    /// A part of the document that contradicts another, or breaks OpenAPI's rules.
    pub fn fault(pointer: &str, construct: impl Into<String>, written: impl Into<String>) -> Loss {
        Loss {
            fault: true,
            ..Loss::new(pointer, construct, written)
        }
    }

    /// The text of its `@lossy` annotation's second argument.
    pub fn note(&self) -> String {
        format!("{}: {}", self.construct, self.written)
    }
}

/// How completely one operation of the document is stated.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Completeness {
    /// Everything it and the types it reaches say is in the spec.
    Full,
    /// It is in the spec, with the losses listed.
    WithLosses,
    /// It is not in the spec.
    LeftOut,
}

/// One operation of the document and what became of it.
#[derive(Clone, Debug, Serialize)]
pub struct OperationReport {
    pub pointer: String,
    pub method: String,
    pub path: String,
    /// The endpoint's name in the spec, unless it was left out.
    pub endpoint: Option<String>,
    pub status: Completeness,
    /// Every loss of the operation and of the types it reaches.
    pub losses: Vec<Loss>,
    /// Where the document, in the operation or the types it reaches, is at fault: it
    /// contradicts itself (no answer satisfies every part) or breaks OpenAPI's rules, so a
    /// tool that checks answers against the document (Schemathesis) cannot pass it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Loss>,
}

/// The whole account of an import.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub source: String,
    pub operations: Vec<OperationReport>,
    /// Every loss once, in the document's order of discovery.
    pub losses: Vec<Loss>,
    /// Every fault of the document once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Loss>,
}

impl Report {
    pub fn count(&self, status: Completeness) -> usize {
        self.operations
            .iter()
            .filter(|o| o.status == status)
            .count()
    }

    /// `imported N operations: F stated fully, L with losses, O left out`.
    pub fn summary(&self) -> String {
        format!(
            "imported {} operations: {} stated fully, {} with losses, {} left out",
            self.operations.len(),
            self.count(Completeness::Full),
            self.count(Completeness::WithLosses),
            self.count(Completeness::LeftOut)
        )
    }

    /// The report as text a reviewer reads: each operation that lost something, with its
    /// losses, then the summary.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for op in &self.operations {
            let status = match op.status {
                Completeness::Full => continue,
                Completeness::WithLosses => "with losses",
                Completeness::LeftOut => "left out",
            };
            out.push_str(&format!(
                "{} {} ({}): {status}\n",
                op.method.to_uppercase(),
                op.path,
                op.endpoint.as_deref().unwrap_or("-")
            ));
            for loss in &op.losses {
                out.push_str(&format!(
                    "    {}: {} ({})\n",
                    loss.pointer, loss.construct, loss.written
                ));
            }
        }
        if !self.faults.is_empty() {
            out.push_str("where the document is at fault (the spec follows one reading):\n");
        }
        for fault in &self.faults {
            out.push_str(&format!(
                "    {}: {} ({})\n",
                fault.pointer, fault.construct, fault.written
            ));
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }
}
