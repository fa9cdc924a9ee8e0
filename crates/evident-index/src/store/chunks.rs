//! The search chunks' reads: full-text matches (FTS5 with BM25), chunks by
//! id, and documents with their heading sections.

use rusqlite::{params_from_iter, Connection};

use crate::error::Result;

/// A chunk as ranking needs it.
pub(crate) struct ChunkRow {
    pub id: i64,
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
}

const CHUNK_COLUMNS: &str =
    "c.id, f.path, c.start_line, c.end_line, c.kind, c.name, c.qualified_name";

fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        id: r.get(0)?,
        path: r.get(1)?,
        start: r.get(2)?,
        end: r.get(3)?,
        kind: r.get(4)?,
        name: r.get(5)?,
        qualified: r.get(6)?,
    })
}

/// The chunks matching an FTS5 `expression` (built from quoted terms only),
/// best first, with their BM25 score (lower is better) under the column
/// `weights` (`name, signature_doc, body, path`).
pub(crate) fn full_text(
    conn: &Connection,
    expression: &str,
    weights: &str,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<(ChunkRow, f64)>> {
    let mut sql = format!(
        "SELECT {CHUNK_COLUMNS}, bm25(chunks_fts, {weights}) AS rank
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
         WHERE chunks_fts MATCH ?1"
    );
    let mut args = vec![expression.to_string()];
    if let Some(kind) = kind {
        args.push(kind.to_string());
        sql += " AND c.kind = ?2";
    }
    sql += &format!(" ORDER BY rank LIMIT {limit}");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
        Ok((chunk_row(r)?, r.get::<_, f64>(7)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One chunk by id.
pub(crate) fn chunk(conn: &Connection, id: i64) -> Result<ChunkRow> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1"
    ))?;
    Ok(stmt.query_row([id], chunk_row)?)
}

/// The documents (files of these `formats`), by path: `(path, line count, first heading)`.
pub(crate) fn documents(
    conn: &Connection,
    formats: &[&str],
) -> Result<Vec<(String, u32, Option<String>)>> {
    let placeholders = vec!["?"; formats.len()].join(", ");
    let sql = format!(
        "SELECT f.path, f.line_count,
                (SELECT c.name FROM chunks c WHERE c.file_id = f.id ORDER BY c.start_line LIMIT 1)
         FROM files f WHERE f.lang IN ({placeholders}) ORDER BY f.path"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(formats.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A document's sections in order: `(heading, first line, last line)`.
pub(crate) fn sections(conn: &Connection, path: &str) -> Result<Vec<(String, u32, u32)>> {
    let mut stmt = conn.prepare(
        "SELECT c.name, min(c.start_line), max(c.end_line) FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE f.path = ?1 AND c.kind = 'doc' GROUP BY c.qualified_name ORDER BY min(c.start_line)",
    )?;
    let rows = stmt.query_map([path], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
