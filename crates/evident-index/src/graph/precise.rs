//! `def` from a compiler's index: where a fresh SCIP document has an
//! occurrence at the position, its symbol's definitions decide (confidence
//! `precise`), before any rule of tree-sitter resolution is tried.

use crate::error::Result;
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::Budget;

impl Index {
    /// SCIP's definitions of the identifier at `rel:line:col`; empty when
    /// SCIP has none there (no fresh document, no occurrence, or a symbol
    /// defined outside the repository or in a stale document).
    pub(super) fn precise_definitions(
        &self,
        rel: &str,
        line: u32,
        col: u32,
    ) -> Result<Vec<Evidence>> {
        let found = crate::scip::definitions_at(self.connection(), rel, line, col)?;
        let mut out = Vec::new();
        let mut reader = self.reader();
        for d in found {
            let mut ev = match d.symbol {
                Some(id) => self
                    .definitions_by_id(&[id])?
                    .pop()
                    .expect("one definition per id"),
                None => {
                    // A local, a parameter, a field: the line that binds it.
                    let snippet = reader.evidence(&d.path, d.line, d.line, Budget::DEFINITION);
                    Evidence::new(&d.path, d.line, d.line, Kind::Variable, &d.name, snippet)
                }
            };
            ev.confidence = Some("precise".into());
            let symbol = d.scip_symbol.rsplit('\0').next().unwrap_or_default();
            ev.reason = Some(format!(
                "the compiler's index (SCIP) defines `{symbol}` here"
            ));
            out.push(ev);
        }
        Ok(out)
    }
}
