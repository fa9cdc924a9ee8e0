//! The rows a dependency map is folded from: files with their definition
//! counts, calls and imports counted per pair of files, the most-called
//! definitions, and (for a map of definitions) calls per pair of them.

use rusqlite::Connection;

use crate::error::Result;

pub(crate) struct MapFile {
    pub id: i64,
    pub path: String,
    pub lang: String,
    pub definitions: usize,
    pub lines: usize,
}

/// Every indexed file (documents too: a map shows what is there).
pub(crate) fn map_files(conn: &Connection) -> Result<Vec<MapFile>> {
    let mut stmt =
        conn.prepare("SELECT id, path, lang, definitions, line_count FROM files ORDER BY path")?;
    let rows = stmt.query_map([], |r| {
        Ok(MapFile {
            id: r.get(0)?,
            path: r.get(1)?,
            lang: r.get(2)?,
            definitions: r.get::<_, i64>(3)? as usize,
            lines: r.get::<_, i64>(4)? as usize,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The files under `under` (every file when it is empty), as SQL over `?1`.
const FILES_UNDER: &str = "SELECT id FROM files WHERE ?1 = '' OR path = ?1 OR path LIKE ?1 || '/%'";

/// `(calling file, called file, resolved calls)` for every pair with one
/// whose calling file is under `under`; a call resolved by its name alone
/// (a guess among same-named definitions) is no dependency.
pub(crate) fn calls_between_files(
    conn: &Connection,
    under: &str,
) -> Result<Vec<(i64, i64, usize)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT g.file_id, t.file_id, count(*) FROM edges g JOIN symbols t ON t.id = g.callee_id
         WHERE g.confidence != 'name_only' AND g.file_id IN ({FILES_UNDER})
         GROUP BY g.file_id, t.file_id"
    ))?;
    let rows = stmt.query_map([under], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `(importing file, resolved target path, import statements)` for the
/// importing files under `under`.
pub(crate) fn imports_between_files(
    conn: &Connection,
    under: &str,
) -> Result<Vec<(i64, String, usize)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT file_id, target, count(*) FROM imports
         WHERE target IS NOT NULL AND file_id IN ({FILES_UNDER}) GROUP BY file_id, target"
    ))?;
    let rows = stmt.query_map([under], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(crate) struct CalledDefinition {
    pub qualified_name: String,
    pub kind: String,
    pub file_id: i64,
    pub start_line: u32,
    pub callers: usize,
}

/// The `limit` definitions under `under` with the most resolved call sites.
pub(crate) fn most_called(
    conn: &Connection,
    limit: usize,
    under: &str,
) -> Result<Vec<CalledDefinition>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT t.qualified_name, t.kind, t.file_id, t.start_line, c.n FROM
           (SELECT callee_id, count(*) AS n FROM edges
            WHERE ?1 = '' OR callee_id IN (SELECT id FROM symbols WHERE file_id IN ({FILES_UNDER}))
            GROUP BY callee_id ORDER BY n DESC, callee_id LIMIT ?2) c
         JOIN symbols t ON t.id = c.callee_id ORDER BY c.n DESC, t.qualified_name"
    ))?;
    let rows = stmt.query_map(rusqlite::params![under, limit as i64], |r| {
        Ok(CalledDefinition {
            qualified_name: r.get(0)?,
            kind: r.get(1)?,
            file_id: r.get(2)?,
            start_line: r.get(3)?,
            callers: r.get::<_, i64>(4)? as usize,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(crate) struct DefinitionRow {
    pub qualified_name: String,
    pub kind: String,
    pub file_id: i64,
    pub start_line: u32,
}

/// The definitions of one file, in line order.
pub(crate) fn definitions_of(conn: &Connection, file_id: i64) -> Result<Vec<DefinitionRow>> {
    let mut stmt = conn.prepare(
        "SELECT qualified_name, kind, file_id, start_line FROM symbols
         WHERE file_id = ?1 AND declaration = 0 ORDER BY start_line",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok(DefinitionRow {
            qualified_name: r.get(0)?,
            kind: r.get(1)?,
            file_id: r.get(2)?,
            start_line: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `(caller, callee, calls)` by qualified name for the calls made in
/// `file_id` (a module-level call's caller is the file's module), with the
/// callee's row.
pub(crate) fn calls_from_file(
    conn: &Connection,
    file_id: i64,
) -> Result<Vec<(String, DefinitionRow, usize)>> {
    let mut stmt = conn.prepare(
        "SELECT coalesce(e.qualified_name, f.module), t.qualified_name, t.kind, t.file_id, t.start_line, count(*)
         FROM edges g JOIN files f ON f.id = g.file_id JOIN symbols t ON t.id = g.callee_id
         LEFT JOIN symbols e ON e.id = g.caller_id
         WHERE g.file_id = ?1 GROUP BY 1, 2, 4",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        let callee = DefinitionRow {
            qualified_name: r.get(1)?,
            kind: r.get(2)?,
            file_id: r.get(3)?,
            start_line: r.get(4)?,
        };
        Ok((r.get(0)?, callee, r.get::<_, i64>(5)? as usize))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
