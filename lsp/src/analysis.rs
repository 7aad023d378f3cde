//! One open document and what the checker says of it.

use crate::index::Index;
use crate::position::LineIndex;
use covenant_codegen::lexer::lex;
use covenant_codegen::{Diagnostics, SourceFile, Spec, check_with_tree};
use std::sync::Arc;

/// A text as the editor holds it, checked.
pub struct Analysis {
    pub file: SourceFile,
    pub lines: LineIndex,
    pub index: Index,
    /// Every diagnostic of `check`, in source order.
    pub diagnostics: Diagnostics,
    /// The validated spec of this text, when it checks.
    pub spec: Option<Arc<Spec>>,
    /// A document past the size the server checks, analysed as if empty: every request on
    /// it answers nothing, rather than an error an editor would show at each keystroke.
    pub oversized: bool,
}

impl Analysis {
    /// Checks `text` once, indexing the tree the check parsed.
    pub fn new(name: &str, text: String) -> Analysis {
        let file = SourceFile::new(name, text);
        let (ast, checked) = check_with_tree(&file);
        let tokens = lex(&file.text, &mut Diagnostics::default());
        let index = Index::build(&ast, &tokens, &file.text);
        Analysis {
            lines: LineIndex::new(&file.text),
            index,
            diagnostics: checked.diagnostics,
            spec: checked.spec.map(Arc::new),
            file,
            oversized: false,
        }
    }

    /// The stand-in for a document past [`crate::MAX_DOCUMENT_BYTES`].
    pub fn oversized(name: &str) -> Analysis {
        Analysis {
            oversized: true,
            ..Analysis::new(name, String::new())
        }
    }

    pub fn text(&self) -> &str {
        &self.file.text
    }

    pub fn range(&self, span: covenant_codegen::Span) -> lsp_types::Range {
        self.lines.range(&self.file.text, span)
    }

    pub fn offset(&self, position: lsp_types::Position) -> usize {
        self.lines.offset(&self.file.text, position)
    }
}
