//! The whole index as sorted text, for comparing two indexes (an incremental
//! run against a clean build) and for checking that rows agree.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, Result};

/// Every row of the index as text, with row ids replaced by what they point
/// at, sorted: two indexes of the same files dump identically. Fails when a
/// row belongs to no file or a file's stored counts disagree with its rows,
/// which would mean a half-written file.
pub(crate) fn canonical_dump(conn: &Connection) -> Result<Vec<String>> {
    const QUERIES: [&str; 14] = [
        "SELECT 'file', path, lang, module, hash, size, line_count, syntax_errors,
                definitions, imports, calls FROM files",
        "SELECT 'symbol', f.path, s.kind, s.name, s.qualified_name, s.signature, s.doc,
                s.start_line, s.end_line, p.qualified_name, s.bases, s.declaration
         FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id",
        "SELECT 'base name', f.path, s.qualified_name, b.name
         FROM base_names b JOIN symbols s ON s.id = b.symbol_id JOIN files f ON f.id = b.file_id",
        "SELECT 'import', f.path, i.start_line, i.end_line, i.module, i.name, i.alias, i.binding, i.target
         FROM imports i JOIN files f ON f.id = i.file_id",
        "SELECT 'call', f.path, c.line, c.callee, c.callee_name, c.callee_head, e.qualified_name, c.arguments
         FROM calls c JOIN files f ON f.id = c.file_id LEFT JOIN symbols e ON e.id = c.enclosing_id",
        "SELECT 'argument call', f.path, c.line, c.callee, a.function
         FROM argument_calls a JOIN calls c ON c.id = a.call_id JOIN files f ON f.id = c.file_id",
        "SELECT 'edge', f.path, c.line, c.callee, t.path, s.qualified_name, s.start_line, g.confidence
         FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
         JOIN symbols s ON s.id = g.callee_id JOIN files t ON t.id = s.file_id",
        "SELECT 'external', f.path, c.line, c.callee, x.target, x.kind
         FROM externals x JOIN calls c ON c.id = x.call_id JOIN files f ON f.id = c.file_id",
        "SELECT 'skipped', path, reason FROM skipped",
        "SELECT 'chunk', f.path, c.kind, c.name, c.qualified_name, c.start_line, c.end_line, s.qualified_name
         FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id",
        "SELECT 'assignment', f.path, a.line, a.name, a.value, e.qualified_name
         FROM assignments a JOIN files f ON f.id = a.file_id LEFT JOIN symbols e ON e.id = a.enclosing_id",
        "SELECT 'scip document', path, utf16, state, reason FROM scip_documents",
        "SELECT 'scip occurrence', o.path, o.raw_line, o.raw_start, o.raw_end, s.symbol, o.definition,
                o.line, o.start_col, o.end_col, o.name
         FROM scip_occurrences o JOIN scip_symbols s ON s.id = o.symbol_id",
        "SELECT 'history', c.oid, c.subject, p.path
         FROM history_paths p JOIN history_commits c ON c.id = p.commit_id",
    ];
    const CHECKS: [&str; 13] = [
        "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunks_fts)",
        "SELECT (SELECT count(*) FROM files) - (SELECT count(*) FROM files_fts)",
        "SELECT (SELECT count(*) FROM history_commits) - (SELECT count(*) FROM history_fts)",
        "SELECT count(*) FROM assignments WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM edges WHERE call_id NOT IN (SELECT id FROM calls)",
        "SELECT count(*) FROM edges g JOIN calls c ON c.id = g.call_id
         WHERE g.line != c.line OR g.caller_id IS NOT c.enclosing_id OR g.file_id != c.file_id",
        "SELECT count(*) FROM edges WHERE callee_id NOT IN (SELECT id FROM symbols)",
        "SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM imports WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM base_names b LEFT JOIN symbols s ON s.id = b.symbol_id
         WHERE s.file_id IS NOT b.file_id",
        "SELECT count(*) FROM calls WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM files f WHERE
            definitions != (SELECT count(*) FROM symbols WHERE file_id = f.id)
         OR imports != (SELECT count(*) FROM imports WHERE file_id = f.id)
         OR calls != (SELECT count(*) FROM calls WHERE file_id = f.id)",
    ];
    for check in CHECKS {
        let n: i64 = conn.query_row(check, [], |r| r.get(0))?;
        if n != 0 {
            return Err(Error::InvalidArgument(format!(
                "inconsistent index: {n} rows fail `{check}`"
            )));
        }
    }
    super::vectors::check_no_stray_vectors(conn)?;
    let mut rows = Vec::new();
    for sql in QUERIES {
        let mut stmt = conn.prepare(sql)?;
        let n = stmt.column_count();
        let mapped = stmt.query_map([], |r| {
            let mut fields = Vec::with_capacity(n);
            for i in 0..n {
                fields.push(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    other => format!("{other:?}"),
                });
            }
            Ok(fields.join(" | "))
        })?;
        for row in mapped {
            rows.push(row?);
        }
    }
    rows.extend(full_text_digests(conn)?);
    rows.sort();
    Ok(rows)
}

/// One row per chunk in the full-text index: how many term instances it
/// holds and an order-independent hash of them (term, column, offset). The
/// table is contentless, so its terms are read through `fts5vocab`.
fn full_text_digests(conn: &Connection) -> Result<Vec<String>> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms
         USING fts5vocab(main, chunks_fts, instance)",
    )?;
    let mut per_doc: HashMap<i64, (u64, u64)> = HashMap::new();
    let mut stmt = conn.prepare("SELECT doc, term, col, offset FROM temp.chunks_fts_terms")?;
    let mut instances = stmt.query([])?;
    while let Some(r) = instances.next()? {
        let term = r.get_ref(1)?.as_bytes().unwrap_or_default();
        let col = r.get_ref(2)?.as_str().unwrap_or_default();
        let offset: i64 = r.get(3)?;
        let mut key = Vec::with_capacity(term.len() + col.len() + 10);
        key.extend_from_slice(term);
        key.push(0);
        key.extend_from_slice(col.as_bytes());
        key.extend_from_slice(&offset.to_le_bytes());
        let entry = per_doc.entry(r.get(0)?).or_default();
        entry.0 += 1;
        entry.1 = entry.1.wrapping_add(xxhash_rust::xxh3::xxh3_64(&key));
    }
    let mut chunk = conn.prepare(
        "SELECT f.path, c.kind, c.qualified_name, c.start_line, c.end_line
         FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1",
    )?;
    let mut rows = Vec::with_capacity(per_doc.len());
    for (doc, (count, digest)) in per_doc {
        let row = chunk
            .query_row([doc], |r| {
                Ok(format!(
                    "fts | {} | {} | {} | {} | {} | {count} | {digest:016x}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?
                ))
            })
            .optional()?;
        match row {
            Some(row) => rows.push(row),
            None => {
                return Err(Error::InvalidArgument(format!(
                    "inconsistent index: full-text row {doc} belongs to no chunk"
                )))
            }
        }
    }
    Ok(rows)
}
