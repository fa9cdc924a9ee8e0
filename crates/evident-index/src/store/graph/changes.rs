//! What an incremental run notes before a file's rows change: its names,
//! the edges into it, its imports and what it tells the types that flow.

use rusqlite::{params, Connection};

use super::rows::class_like_kinds;
use crate::error::Result;

/// The names a file defines (before its rows are replaced).
pub(crate) fn names_defined_in(conn: &Connection, file_id: i64) -> Result<Vec<String>> {
    let mut names = conn.prepare_cached("SELECT name FROM symbols WHERE file_id = ?1")?;
    let rows = names.query_map([file_id], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The edges into `file_id`'s definitions: `(call, callee, callee's
/// qualified name, kind)`.
pub(crate) fn edges_into(
    conn: &Connection,
    file_id: i64,
) -> Result<Vec<(i64, i64, String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.call_id, g.callee_id, s.qualified_name, s.kind
         FROM edges g JOIN symbols s ON s.id = g.callee_id WHERE s.file_id = ?1",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `file_id`'s definitions: `(id, qualified name, kind)`.
pub(crate) fn definition_keys(
    conn: &Connection,
    file_id: i64,
) -> Result<Vec<(i64, String, String)>> {
    let mut stmt =
        conn.prepare_cached("SELECT id, qualified_name, kind FROM symbols WHERE file_id = ?1")?;
    let rows = stmt.query_map([file_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `file_id`'s definitions as other files' resolution reads them (qualified
/// name, kind, declared or defined), in the file's order: candidates are
/// ranked by it.
pub(crate) fn definition_surface(conn: &Connection, file_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT qualified_name, kind, declaration FROM symbols WHERE file_id = ?1
         ORDER BY start_line, id",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok(format!(
            "{}\t{}\t{}",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `file_id`'s imports as text, sorted, for noticing a change.
pub(crate) fn import_rows(conn: &Connection, file_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT module, coalesce(name, ''), coalesce(alias, ''), coalesce(binding, ''), coalesce(target, '')
         FROM imports WHERE file_id = ?1",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok([
            r.get::<_, String>(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
        ]
        .join("\t"))
    })?;
    let mut out: Vec<String> = rows.collect::<rusqlite::Result<_>>()?;
    out.sort();
    Ok(out)
}

/// Points edges at the new rows of the definitions they reached: `(call,
/// old callee, new callee)`, in one statement (a new id may equal another
/// edge's old one).
pub(crate) fn remap_edges(conn: &Connection, moves: &[(i64, i64, i64)]) -> Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS remap(call_id INTEGER, old INTEGER, new INTEGER,
                                              PRIMARY KEY (call_id, old)) WITHOUT ROWID;
         DELETE FROM remap;",
    )?;
    {
        let mut insert = conn.prepare_cached("INSERT OR IGNORE INTO remap VALUES (?1, ?2, ?3)")?;
        for (call, old, new) in moves {
            insert.execute(params![call, old, new])?;
        }
    }
    conn.execute_batch(
        // `call_id IN remap` reaches the rows through `edges_call`; without
        // it the update scanned every edge, once per changed file.
        "UPDATE edges SET callee_id = (SELECT r.new FROM remap r
                                        WHERE r.call_id = edges.call_id AND r.old = edges.callee_id)
         WHERE call_id IN (SELECT call_id FROM remap)
           AND EXISTS (SELECT 1 FROM remap r WHERE r.call_id = edges.call_id AND r.old = edges.callee_id);",
    )?;
    Ok(())
}

/// A stored file's facts for the types that flow, as `graph::calls::invalidation::flow_facts`
/// writes them from extraction.
pub(crate) fn flow_facts_of(conn: &Connection, file_id: i64) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(
        "SELECT coalesce(e.qualified_name, ''), e.kind, a.name, a.value
         FROM assignments a LEFT JOIN symbols e ON e.id = a.enclosing_id
         WHERE a.file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    while let Some(r) = rows.next()? {
        let (owner, kind, name, value): (String, Option<String>, String, String) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
        let scope = kind.as_deref().and_then(crate::evidence::Kind::parse);
        if crate::lang::extract::is_exported_binding(scope, &name) {
            out.push(format!("{owner}\t{name}\t{value}"));
        }
    }
    // Must match `graph::calls::invalidation::flow_facts`: definitions other files reach.
    let mut stmt = conn.prepare_cached(
        "SELECT s.qualified_name, s.kind, p.kind FROM symbols s
         LEFT JOIN symbols p ON p.id = s.parent_id WHERE s.file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    while let Some(r) = rows.next()? {
        let (qualified, kind, parent): (String, String, Option<String>) =
            (r.get(0)?, r.get(1)?, r.get(2)?);
        let reachable = parent
            .as_deref()
            .is_none_or(|p| crate::evidence::Kind::parse(p).is_some_and(|k| k.is_class_like()));
        if reachable {
            out.push(format!("{qualified}\t<definition>\t{kind}"));
        }
    }
    let mut stmt = conn.prepare_cached(
        "SELECT qualified_name, bases FROM symbols WHERE file_id = ?1 AND bases IS NOT NULL AND bases != ''",
    )?;
    let mut rows = stmt.query([file_id])?;
    while let Some(r) = rows.next()? {
        let (qualified, bases): (String, String) = (r.get(0)?, r.get(1)?);
        out.push(format!("{qualified}\t<bases>\t{bases}"));
    }
    out.sort();
    Ok(out)
}

/// The files that define classes named in `names`, and those defining
/// their bases (by last name), up to `depth` levels.
pub(crate) fn files_of_classes_and_ancestors(
    conn: &Connection,
    names: &std::collections::HashSet<String>,
    depth: usize,
) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT f.path, s.bases FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND s.kind IN {}",
        class_like_kinds()
    ))?;
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut paths = std::collections::BTreeSet::new();
    let mut frontier: Vec<String> = names.iter().cloned().collect();
    for _ in 0..depth {
        let mut next = Vec::new();
        for name in frontier {
            if !seen.insert(name.clone()) {
                continue;
            }
            let rows: Vec<(String, Option<String>)> = stmt
                .query_map([&name], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            for (path, bases) in rows {
                paths.insert(path);
                for base in bases.iter().flat_map(|b| b.lines()) {
                    next.push(crate::lang::extract::last_identifier(base).to_string());
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    Ok(paths.into_iter().collect())
}
