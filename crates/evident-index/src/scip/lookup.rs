//! What fresh SCIP documents say at a call site ([`Calls`]) or at a
//! position ([`definitions_at`]), in the index's terms: the definition row
//! at the place SCIP defines a symbol.

use std::cell::RefCell;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::lang::{self, syntax, LanguageSpec};
use crate::store::graph as graph_rows;
use crate::store::scip as rows;

/// SCIP's answer for one call site.
#[derive(Debug, PartialEq)]
pub(crate) enum Answer {
    /// The definitions it runs.
    Defined(Vec<i64>),
    /// A symbol no document of the repository defines: outside it, by name.
    Outside(String),
    /// SCIP has nothing to say here (no occurrence, a stale or unknown
    /// target): tree-sitter resolution decides.
    Silent,
}

/// Answers call sites from SCIP during one resolution pass.
pub(crate) struct Calls<'c> {
    conn: &'c Connection,
    /// Whether any SCIP document is stored; when not, every answer is silent.
    present: bool,
    files: RefCell<FxHashMap<i64, Option<(String, &'static LanguageSpec)>>>,
}

impl<'c> Calls<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Result<Self> {
        Ok(Calls {
            conn,
            present: rows::any(conn)?,
            files: RefCell::default(),
        })
    }

    /// What SCIP says the call of `callee` at `file:line` runs: the symbol
    /// of a reference on that line spelled as the called name.
    pub(crate) fn answer(&self, file: i64, line: u32, callee: &str) -> Result<Answer> {
        if !self.present {
            return Ok(Answer::Silent);
        }
        let Some((path, spec)) = self.file(file)? else {
            return Ok(Answer::Silent);
        };
        let called = syntax::dotted(syntax::without_new(callee));
        let Some(name) = called.rsplit('.').next().filter(|n| !n.is_empty()) else {
            return Ok(Answer::Silent);
        };
        let mut symbols: Vec<i64> = rows::occurrences_on_line(self.conn, &path, line)?
            .into_iter()
            .filter(|o| !o.definition && o.name == name)
            .map(|o| o.symbol)
            .collect();
        symbols.sort_unstable();
        symbols.dedup();
        // Two symbols spelled alike on one line (`a.get(b.get())`): which is
        // this call's is not known by line and name alone.
        let [symbol] = symbols[..] else {
            return Ok(Answer::Silent);
        };
        let (defined, elsewhere) = rows::definitions_of(self.conn, symbol)?;
        if defined.is_empty() {
            if elsewhere {
                return Ok(Answer::Silent);
            }
            let text = rows::symbol_text(self.conn, symbol)?;
            return Ok(outside_name(&text).map_or(Answer::Silent, Answer::Outside));
        }
        let mut ids = Vec::new();
        for (path, line, name) in &defined {
            let Some((id, kind)) = rows::symbol_at(self.conn, path, *line, name)? else {
                // A definition the index does not hold (a field, an object
                // key): tree-sitter decides for the whole call.
                return Ok(Answer::Silent);
            };
            // The index's calls of a class run its constructor, when it has one.
            let constructor = match kind.as_str() {
                "class" => rows::constructor_of(self.conn, id, spec.constructors)?,
                _ => None,
            };
            ids.push(constructor.unwrap_or(id));
        }
        Ok(Answer::Defined(ids))
    }

    fn file(&self, file: i64) -> Result<Option<(String, &'static LanguageSpec)>> {
        if let Some(known) = self.files.borrow().get(&file) {
            return Ok(known.clone());
        }
        let (path, _) = graph_rows::file_path_and_module(self.conn, file)?;
        let lang = graph_rows::file_language(self.conn, file)?;
        let found = lang::by_name(&lang).map(|spec| (path, spec));
        self.files.borrow_mut().insert(file, found.clone());
        Ok(found)
    }
}

/// A definition SCIP gives for a position.
pub(crate) struct Definition {
    pub path: String,
    pub line: u32,
    pub name: String,
    /// The index's definition there, when it holds one.
    pub symbol: Option<i64>,
    /// SCIP's symbol, as written.
    pub scip_symbol: String,
}

/// SCIP's definitions of the identifier at `path:line:col` (1-based; the
/// column counts characters), when a fresh document has an occurrence there
/// and a fresh document defines its symbol.
pub(crate) fn definitions_at(
    conn: &Connection,
    path: &str,
    line: u32,
    col: u32,
) -> Result<Vec<Definition>> {
    if !rows::any(conn)? {
        return Ok(Vec::new());
    }
    let col = col.saturating_sub(1);
    let occurrences = rows::occurrences_on_line(conn, path, line)?;
    let Some(at) = occurrences
        .iter()
        .find(|o| o.start_col <= col && col < o.end_col)
    else {
        return Ok(Vec::new());
    };
    let (defined, _) = rows::definitions_of(conn, at.symbol)?;
    let scip_symbol = rows::symbol_text(conn, at.symbol)?;
    let mut out = Vec::new();
    for (path, line, name) in defined {
        let symbol = rows::symbol_at(conn, &path, line, &name)?.map(|(id, _)| id);
        out.push(Definition {
            path,
            line,
            name,
            symbol,
            scip_symbol: scip_symbol.clone(),
        });
    }
    Ok(out)
}

/// A symbol outside the repository as a dotted name (`os.path.join`,
/// `Array.reduce`): its descriptors' names, without the namespaces when
/// they are a file's path (`lib/` `lib.es5.d.ts/`).
fn outside_name(symbol: &str) -> Option<String> {
    use scip::types::descriptor::Suffix;
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let is_namespace = |d: &scip::types::Descriptor| {
        matches!(
            d.suffix.enum_value(),
            Ok(Suffix::Namespace | Suffix::Package)
        )
    };
    let paths = parsed
        .descriptors
        .iter()
        .any(|d| is_namespace(d) && d.name.contains('.'));
    let names: Vec<&str> = parsed
        .descriptors
        .iter()
        .filter(|d| !(paths && is_namespace(d)))
        .filter(|d| !matches!(d.suffix.enum_value(), Ok(Suffix::Meta)))
        .map(|d| d.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    (!names.is_empty()).then(|| names.join("."))
}

#[cfg(test)]
mod tests {
    use super::outside_name;

    #[test]
    fn outside_symbols_read_as_dotted_names() {
        let ts = "scip-typescript npm typescript 5.9.3 lib/`lib.es5.d.ts`/Array#reduce().";
        assert_eq!(outside_name(ts).as_deref(), Some("Array.reduce"));
        let py = "scip-python python python-stdlib 3.11 os/path/join().";
        assert_eq!(outside_name(py).as_deref(), Some("os.path.join"));
    }
}
