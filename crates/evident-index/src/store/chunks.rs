//! The search chunks' reads: full-text matches (FTS5 with BM25), chunks by
//! id, and documents with their heading sections.

use rusqlite::{params_from_iter, Connection, OptionalExtension};

use crate::error::Result;

/// A chunk as ranking needs it.
#[derive(Clone)]
pub(crate) struct ChunkRow {
    pub id: i64,
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
    pub file_id: i64,
    /// The definition, for definition chunks.
    pub symbol_id: Option<i64>,
}

const CHUNK_COLUMNS: &str = "c.id, f.path, c.start_line, c.end_line, c.kind, c.name, \
     c.qualified_name, c.file_id, c.symbol_id";

fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        id: r.get(0)?,
        path: r.get(1)?,
        start: r.get(2)?,
        end: r.get(3)?,
        kind: r.get(4)?,
        name: r.get(5)?,
        qualified: r.get(6)?,
        file_id: r.get(7)?,
        symbol_id: r.get(8)?,
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
    // Without a kind to filter on, the best `limit` are cut from the full
    // text index alone and only they are joined to their rows: a query of
    // common words matches tens of thousands of chunks.
    let mut sql = match kind {
        None => format!(
            "SELECT {CHUNK_COLUMNS}, m.rank FROM
               (SELECT rowid, bm25(chunks_fts, {weights}) AS rank FROM chunks_fts
                WHERE chunks_fts MATCH ?1 ORDER BY rank LIMIT {limit}) m
             JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id"
        ),
        Some(_) => format!(
            "SELECT {CHUNK_COLUMNS}, bm25(chunks_fts, {weights}) AS rank
             FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
             WHERE chunks_fts MATCH ?1 AND c.kind = ?2"
        ),
    };
    let mut args = vec![expression.to_string()];
    if let Some(kind) = kind {
        args.push(kind.to_string());
    }
    sql += &format!(" ORDER BY rank LIMIT {limit}");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
        Ok((chunk_row(r)?, r.get::<_, f64>(9)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The files whose whole text matches an FTS5 `expression`, best first:
/// each file's id, its path and its BM25 score (higher is better) under the
/// column `weights` (`path, text`).
pub(crate) fn whole_files(
    conn: &Connection,
    expression: &str,
    weights: &str,
    limit: usize,
) -> Result<Vec<(i64, String, f64)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT f.id, f.path, m.rank FROM
           (SELECT rowid, bm25(files_fts, {weights}) AS rank FROM files_fts
            WHERE files_fts MATCH ?1 ORDER BY rank LIMIT {limit}) m
         JOIN files f ON f.id = m.rowid ORDER BY m.rank"
    ))?;
    let rows = stmt.query_map([expression], |r| {
        Ok((r.get(0)?, r.get(1)?, -r.get::<_, f64>(2)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many chunks hold each of `terms` (FTS5's vocabulary of
/// `chunks_fts`, through a temporary `fts5vocab` table: the index itself
/// is not written). The vocabulary holds stems, so each term is looked up
/// by its stem ([`stems`]).
pub(crate) fn chunks_holding(
    conn: &Connection,
    terms: &[(String, u32)],
) -> Result<std::collections::HashMap<String, u64>> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)",
    )?;
    let words: Vec<&str> = terms.iter().map(|(t, _)| t.as_str()).collect();
    let stems = stems(conn, &words)?;
    let mut stmt = conn.prepare_cached("SELECT doc FROM temp.chunks_vocab WHERE term = ?1")?;
    let mut held = std::collections::HashMap::new();
    for (term, stem) in words.iter().zip(&stems) {
        let count: Option<i64> = match stem {
            Some(stem) => stmt.query_row([stem], |r| r.get(0)).optional()?,
            None => None,
        };
        held.insert(term.to_string(), count.unwrap_or(0).max(0) as u64);
    }
    Ok(held)
}

/// Those of `terms` that some chunk holds: each a one-row full-text match,
/// which the table's own tokenizer stems, so no vocabulary is read.
pub(crate) fn terms_held(conn: &Connection, terms: &[&str]) -> Result<Vec<bool>> {
    let mut stmt =
        conn.prepare_cached("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT 1")?;
    terms
        .iter()
        .map(|t| {
            let quoted = format!("\"{}\"", t.replace('"', ""));
            Ok(stmt.exists([quoted])?)
        })
        .collect()
}

/// How many chunks the index holds.
pub(crate) fn chunk_count(conn: &Connection) -> Result<u64> {
    let total: i64 = conn.query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?;
    Ok(total.max(0) as u64)
}

/// Each word as the full-text tables store it: put through their own
/// tokenizer (a temporary FTS5 table, one row per word), so a lookup in
/// their vocabulary meets exactly the stem SQLite wrote. `None` for a
/// word the tokenizer keeps nothing of; the first term of one it splits.
pub(crate) fn stems(conn: &Connection, words: &[&str]) -> Result<Vec<Option<String>>> {
    conn.execute_batch(concat!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem_words USING fts5(word, tokenize = '",
        super::schema::text_tokenizer!(),
        "');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem_vocab USING fts5vocab(temp, stem_words, instance);
         DELETE FROM temp.stem_words;"
    ))?;
    let mut insert =
        conn.prepare_cached("INSERT INTO temp.stem_words(rowid, word) VALUES (?1, ?2)")?;
    for (i, word) in words.iter().enumerate() {
        insert.execute(rusqlite::params![i as i64, word])?;
    }
    let mut out = vec![None; words.len()];
    let mut read =
        conn.prepare_cached("SELECT doc, term FROM temp.stem_vocab WHERE offset = 0 ORDER BY doc")?;
    let rows = read.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (doc, term) = row?;
        if let Some(slot) = usize::try_from(doc).ok().and_then(|d| out.get_mut(d)) {
            *slot = Some(term);
        }
    }
    Ok(out)
}

/// Chunks by id, in one query.
pub(crate) fn chunks_by_id(
    conn: &Connection,
    ids: &[i64],
) -> Result<std::collections::HashMap<i64, ChunkRow>> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let list = id_list(ids);
    let mut stmt = conn.prepare(&format!(
        "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({list})"
    ))?;
    let rows = stmt.query_map([], chunk_row)?;
    rows.map(|r| r.map(|row| (row.id, row)).map_err(Into::into))
        .collect()
}

/// Row ids as an SQL list: integers only, so nothing needs quoting.
fn id_list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// How a set of search results is linked in the code: the pairs of
/// definitions where the first calls the second, the pairs `(definition,
/// its parent)`, and the pairs of files where the first imports the second.
pub(crate) struct Links {
    pub calls: Vec<(i64, i64)>,
    pub parents: Vec<(i64, i64)>,
    pub imports: Vec<(i64, i64)>,
}

/// The [`Links`] among `symbols` and among `files`; a kind of link not
/// `wanted` (calls, parents, imports) is not read.
pub(crate) fn links_among(
    conn: &Connection,
    symbols: &[i64],
    files: &[i64],
    wanted: [bool; 3],
) -> Result<Links> {
    let [calls, parents, imports] = wanted;
    let pairs = |sql: String, ids: &[i64], wanted: bool| -> Result<Vec<(i64, i64)>> {
        if ids.is_empty() || !wanted {
            return Ok(Vec::new());
        }
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    };
    let (s, f) = (id_list(symbols), id_list(files));
    Ok(Links {
        calls: pairs(
            format!(
                "SELECT DISTINCT c.enclosing_id, e.callee_id FROM edges e JOIN calls c ON c.id = e.call_id
                 WHERE e.callee_id IN ({s}) AND c.enclosing_id IN ({s}) AND c.enclosing_id != e.callee_id"
            ),
            symbols,
            calls,
        )?,
        parents: pairs(
            format!("SELECT id, parent_id FROM symbols WHERE id IN ({s}) AND parent_id IS NOT NULL"),
            symbols,
            parents,
        )?,
        imports: pairs(
            format!(
                "SELECT DISTINCT i.file_id, t.id FROM imports i JOIN files t ON t.path = i.target
                 WHERE i.file_id IN ({f}) AND t.id IN ({f}) AND i.file_id != t.id"
            ),
            files,
            imports,
        )?,
    })
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

/// Every file's id and path: what the spans of a query are resolved
/// against ([`crate::search::mentions`]).
pub(crate) fn file_paths(conn: &Connection) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached("SELECT id, path FROM files")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `(count, largest id, sum of ids)` of the files: a file added or removed
/// changes them (a new row takes a new id).
pub(crate) fn file_set_summary(conn: &Connection) -> Result<(i64, i64, i64)> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0) FROM files",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?)
}

/// A definition a query may name.
pub(crate) struct NamedDefinition {
    pub id: i64,
    pub file_id: i64,
    pub qualified: String,
    pub start: u32,
    pub end: u32,
}

/// The definitions named exactly `name` (case-sensitive), through the
/// name index; at most `limit`.
pub(crate) fn definitions_named(
    conn: &Connection,
    name: &str,
    limit: usize,
) -> Result<Vec<NamedDefinition>> {
    // `symbols_name` is case-insensitive: the NOCASE term lets SQLite use it.
    let mut stmt = conn.prepare_cached(
        "SELECT id, file_id, qualified_name, start_line, end_line FROM symbols
         WHERE name = ?1 COLLATE NOCASE AND name = ?1 ORDER BY id LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![name, limit as i64], |r| {
        Ok(NamedDefinition {
            id: r.get(0)?,
            file_id: r.get(1)?,
            qualified: r.get(2)?,
            start: r.get(3)?,
            end: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One definition by its id.
pub(crate) fn definition(conn: &Connection, id: i64) -> Result<Option<NamedDefinition>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, file_id, qualified_name, start_line, end_line FROM symbols WHERE id = ?1",
    )?;
    let row = stmt.query_row([id], |r| {
        Ok(NamedDefinition {
            id: r.get(0)?,
            file_id: r.get(1)?,
            qualified: r.get(2)?,
            start: r.get(3)?,
            end: r.get(4)?,
        })
    });
    match row {
        Ok(d) => Ok(Some(d)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The chunks of some files, each file's in line order.
pub(crate) fn chunks_of_files(conn: &Connection, file_ids: &[i64]) -> Result<Vec<ChunkRow>> {
    if file_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = id_list(file_ids);
    let mut stmt = conn.prepare(&format!(
        "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.file_id IN ({list}) ORDER BY c.file_id, c.start_line, c.id"
    ))?;
    let rows = stmt.query_map([], chunk_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What the definitions `callers` run: `(caller, callee, callee's file)` for
/// each call inside a caller's lines (a class runs its methods' calls) that
/// the resolver tied to a definition by more than its name alone.
pub(crate) fn callees_of(conn: &Connection, callers: &[i64]) -> Result<Vec<(i64, i64, i64)>> {
    if callers.is_empty() {
        return Ok(Vec::new());
    }
    let list = id_list(callers);
    let mut stmt = conn.prepare(&format!(
        "SELECT DISTINCT d.id, e.callee_id, s.file_id FROM symbols d
         JOIN calls c ON c.file_id = d.file_id AND c.line BETWEEN d.start_line AND d.end_line
         JOIN edges e ON e.call_id = c.id JOIN symbols s ON s.id = e.callee_id
         WHERE d.id IN ({list}) AND e.confidence != 'name_only' AND e.callee_id != d.id"
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
