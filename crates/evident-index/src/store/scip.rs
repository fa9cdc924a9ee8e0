//! The rows of an imported SCIP index (`scip_documents`, `scip_symbols`,
//! `scip_occurrences`): written by `scip::sync`, read by `def` and by call
//! resolution. Only documents in state `fresh` answer anything.

use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap;

use crate::error::Result;

/// Meta key: the SCIP file in use.
pub(crate) const SOURCE: &str = "scip_source";

/// One document of the index: a file, by its path relative to the root
/// the indexer ran in.
pub(crate) struct Document {
    pub path: String,
    /// Offsets count UTF-16 code units (SCIP's default, and what the
    /// TypeScript and Pyright-based indexers write); else UTF-8 bytes.
    pub utf16: bool,
    pub occurrences: Vec<Occurrence>,
}

/// One occurrence on one line (SCIP's 0-based line and offsets); one that
/// spans lines names nothing a position can point at and is left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Occurrence {
    pub line: u32,
    pub start: u32,
    pub end: u32,
    /// Globally unique: a local's symbol (`local 3`) is prefixed with its
    /// document's path and a NUL, as locals are unique per document only.
    pub symbol: String,
    pub definition: bool,
}

/// An occurrence placed in the file: 1-based line, 0-based character
/// columns (what `def` is asked with), and the text between them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    pub line: u32,
    pub start_col: u32,
    pub end_col: u32,
    pub name: String,
}

/// Drops every SCIP row.
pub(crate) fn clear(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "DELETE FROM scip_documents; DELETE FROM scip_symbols; DELETE FROM scip_occurrences;",
    )?;
    Ok(())
}

/// Whether any SCIP document is stored (every query below is skipped when not).
pub(crate) fn any(conn: &Connection) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM scip_documents LIMIT 1", [], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Writes one document: its state, and each occurrence as SCIP wrote it
/// with, when the document is fresh, where it falls in the file.
pub(crate) fn insert_document(
    conn: &Connection,
    symbols: &mut FxHashMap<String, i64>,
    doc: &Document,
    placed: Option<&[Placed]>,
    state: &str,
    reason: Option<&str>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO scip_documents(path, utf16, state, reason) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![doc.path, doc.utf16, state, reason])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO scip_occurrences(path, raw_line, raw_start, raw_end, symbol_id, definition,
                                      line, start_col, end_col, name)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (i, o) in doc.occurrences.iter().enumerate() {
        let symbol = symbol_id(conn, symbols, &o.symbol)?;
        let at = placed.and_then(|p| p.get(i));
        insert.execute(params![
            doc.path,
            o.line,
            o.start,
            o.end,
            symbol,
            o.definition,
            at.map(|p| p.line),
            at.map(|p| p.start_col),
            at.map(|p| p.end_col),
            at.map(|p| p.name.as_str()),
        ])?;
    }
    Ok(())
}

fn symbol_id(conn: &Connection, known: &mut FxHashMap<String, i64>, symbol: &str) -> Result<i64> {
    if let Some(id) = known.get(symbol) {
        return Ok(*id);
    }
    conn.prepare_cached("INSERT OR IGNORE INTO scip_symbols(symbol) VALUES (?1)")?
        .execute([symbol])?;
    let id = conn
        .prepare_cached("SELECT id FROM scip_symbols WHERE symbol = ?1")?
        .query_row([symbol], |r| r.get(0))?;
    known.insert(symbol.to_string(), id);
    Ok(id)
}

/// Every stored symbol, by its text (to add documents to).
pub(crate) fn symbol_ids(conn: &Connection) -> Result<FxHashMap<String, i64>> {
    let mut stmt = conn.prepare("SELECT symbol, id FROM scip_symbols")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The stored document at `path`, rebuilt from its rows as SCIP wrote them.
pub(crate) fn document(conn: &Connection, path: &str) -> Result<Option<Document>> {
    let utf16: Option<bool> = conn
        .query_row(
            "SELECT utf16 FROM scip_documents WHERE path = ?1",
            [path],
            |r| r.get(0),
        )
        .optional()?;
    let Some(utf16) = utf16 else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
        "SELECT o.raw_line, o.raw_start, o.raw_end, s.symbol, o.definition
         FROM scip_occurrences o JOIN scip_symbols s ON s.id = o.symbol_id
         WHERE o.path = ?1 ORDER BY o.rowid",
    )?;
    let rows = stmt.query_map([path], |r| {
        Ok(Occurrence {
            line: r.get(0)?,
            start: r.get(1)?,
            end: r.get(2)?,
            symbol: r.get(3)?,
            definition: r.get(4)?,
        })
    })?;
    let occurrences = rows.collect::<rusqlite::Result<_>>()?;
    Ok(Some(Document {
        path: path.to_string(),
        utf16,
        occurrences,
    }))
}

/// Drops the document at `path` (to write it again).
pub(crate) fn remove_document(conn: &Connection, path: &str) -> Result<()> {
    conn.execute("DELETE FROM scip_documents WHERE path = ?1", [path])?;
    conn.execute("DELETE FROM scip_occurrences WHERE path = ?1", [path])?;
    Ok(())
}

/// The calls, in files other than `paths`, at a line where SCIP refers to
/// a symbol `paths` define: their resolution may change with those files'
/// SCIP state.
pub(crate) fn calls_reaching(conn: &Connection, paths: &[&str]) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT c.id FROM scip_occurrences d
         JOIN scip_occurrences r ON r.symbol_id = d.symbol_id AND r.definition = 0
         JOIN files f ON f.path = r.path
         JOIN calls c ON c.file_id = f.id AND c.line = r.raw_line + 1
         WHERE d.path = ?1 AND d.definition = 1",
    )?;
    for path in paths {
        let rows = stmt.query_map([path], |r| r.get(0))?;
        for id in rows {
            out.push(id?);
        }
    }
    Ok(out)
}

/// One occurrence in a fresh document, where it falls.
pub(crate) struct FreshOccurrence {
    pub start_col: u32,
    pub end_col: u32,
    pub name: String,
    pub symbol: i64,
    pub definition: bool,
}

/// The occurrences on `line` (1-based) of the fresh document at `path`.
pub(crate) fn occurrences_on_line(
    conn: &Connection,
    path: &str,
    line: u32,
) -> Result<Vec<FreshOccurrence>> {
    let mut stmt = conn.prepare_cached(
        "SELECT o.start_col, o.end_col, o.name, o.symbol_id, o.definition
         FROM scip_occurrences o JOIN scip_documents d ON d.path = o.path
         WHERE o.path = ?1 AND o.line = ?2 AND d.state = 'fresh'",
    )?;
    let rows = stmt.query_map(params![path, line], |r| {
        Ok(FreshOccurrence {
            start_col: r.get(0)?,
            end_col: r.get(1)?,
            name: r.get(2)?,
            symbol: r.get(3)?,
            definition: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Where a symbol is defined in a fresh document: path, line, name.
pub(crate) type FreshDefinition = (String, u32, String);

/// Where a symbol is defined in fresh documents, and whether a document
/// that is not fresh defines it too.
pub(crate) fn definitions_of(
    conn: &Connection,
    symbol: i64,
) -> Result<(Vec<FreshDefinition>, bool)> {
    let mut stmt = conn.prepare_cached(
        "SELECT o.path, o.line, o.name, d.state = 'fresh'
         FROM scip_occurrences o JOIN scip_documents d ON d.path = o.path
         WHERE o.symbol_id = ?1 AND o.definition = 1",
    )?;
    let rows = stmt.query_map([symbol], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<u32>>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, bool>(3)?,
        ))
    })?;
    let (mut fresh, mut elsewhere) = (Vec::new(), false);
    for row in rows {
        match row? {
            (path, Some(line), Some(name), true) => fresh.push((path, line, name)),
            _ => elsewhere = true,
        }
    }
    Ok((fresh, elsewhere))
}

/// A symbol's text.
pub(crate) fn symbol_text(conn: &Connection, symbol: i64) -> Result<String> {
    Ok(conn
        .prepare_cached("SELECT symbol FROM scip_symbols WHERE id = ?1")?
        .query_row([symbol], |r| r.get(0))?)
}

/// What came from a compiler's index, for `status`.
#[derive(Debug, Clone, Default)]
pub struct ScipStatus {
    /// The SCIP file imported.
    pub source: String,
    /// Documents that match their files and answer `def` and calls.
    pub fresh: u64,
    /// Documents whose files changed since the SCIP index was written.
    pub stale: u64,
    /// Documents for files the index does not hold.
    pub not_indexed: u64,
    /// Call edges SCIP decided (confidence `precise`).
    pub precise_edges: u64,
    /// Up to ten stale documents, with why.
    pub stale_examples: Vec<(String, String)>,
}

/// `None` when no SCIP index is in use.
pub(crate) fn status(conn: &Connection) -> Result<Option<ScipStatus>> {
    let Some(source) = super::meta(conn, SOURCE)? else {
        return Ok(None);
    };
    let count = |state: &str| -> Result<u64> {
        let n: i64 = conn.query_row(
            "SELECT count(*) FROM scip_documents WHERE state = ?1",
            [state],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    };
    let mut stmt = conn.prepare(
        "SELECT path, coalesce(reason, '') FROM scip_documents
         WHERE state = 'stale' ORDER BY path LIMIT 10",
    )?;
    let examples = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(Some(ScipStatus {
        source,
        fresh: count("fresh")?,
        stale: count("stale")?,
        not_indexed: count("not_indexed")?,
        precise_edges: conn.query_row(
            "SELECT count(*) FROM edges WHERE confidence = 'precise'",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64,
        stale_examples: examples.collect::<rusqlite::Result<_>>()?,
    }))
}

/// The innermost definition the index holds at `path:line` named `name`,
/// with its kind: what a SCIP definition there is, in evident's terms.
pub(crate) fn symbol_at(
    conn: &Connection,
    path: &str,
    line: u32,
    name: &str,
) -> Result<Option<(i64, String)>> {
    Ok(conn
        .prepare_cached(
            "SELECT s.id, s.kind FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE f.path = ?1 AND s.name = ?2 AND s.start_line <= ?3 AND s.end_line >= ?3
             ORDER BY s.start_line DESC LIMIT 1",
        )?
        .query_row(params![path, name, line], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// A class's own constructor among `names` (`__init__`, `constructor`).
pub(crate) fn constructor_of(conn: &Connection, class: i64, names: &[&str]) -> Result<Option<i64>> {
    let mut stmt =
        conn.prepare_cached("SELECT id FROM symbols WHERE parent_id = ?1 AND name = ?2 LIMIT 1")?;
    for name in names {
        if let Some(id) = stmt
            .query_row(params![class, name], |r| r.get(0))
            .optional()?
        {
            return Ok(Some(id));
        }
    }
    Ok(None)
}
