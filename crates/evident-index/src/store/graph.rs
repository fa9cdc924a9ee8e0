//! The call graph's rows: what a resolution pass loads (files, definitions,
//! imports, assignments, call sites), what an incremental run notes before a
//! file's rows change, and the edges it writes. Loading streams rows to the
//! caller, which builds its in-memory tables without a copy of each row.

use rusqlite::{params, Connection};

use crate::error::Result;

/// A definition as resolution needs it (`name` borrowed from the row, to intern).
pub(crate) struct SymbolRow<'a> {
    pub id: i64,
    pub file: i64,
    pub parent: Option<i64>,
    pub kind: String,
    pub name: &'a str,
    /// Only for methods outside any class (Rust `impl`, Go receivers).
    pub owner_path: Option<String>,
    /// One base class per line.
    pub bases: Option<String>,
}

pub(crate) struct ImportRow {
    pub file: i64,
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub binding: Option<String>,
    pub target: Option<String>,
}

/// A call site to resolve.
pub(crate) struct CallSite {
    pub id: i64,
    pub file: i64,
    pub enclosing: Option<i64>,
    pub callee: String,
}

/// Every file: id, path, language name.
pub(crate) fn for_each_file(
    conn: &Connection,
    mut f: impl FnMut(i64, String, String),
) -> Result<()> {
    let mut stmt = conn.prepare("SELECT id, path, lang FROM files")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get(1)?, r.get(2)?);
    }
    Ok(())
}

pub(crate) fn symbol_count(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT count(*) FROM symbols", [], |r| r.get(0))?;
    Ok(n as usize)
}

/// Every definition.
pub(crate) fn for_each_symbol(conn: &Connection, mut f: impl FnMut(SymbolRow<'_>)) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT id, file_id, parent_id, kind, name,
                CASE WHEN parent_id IS NULL AND kind = 'method' THEN qualified_name END, bases
         FROM symbols",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let name = r.get_ref(4)?.as_str().map_err(rusqlite::Error::from)?;
        f(SymbolRow {
            id: r.get(0)?,
            file: r.get(1)?,
            parent: r.get(2)?,
            kind: r.get(3)?,
            name,
            owner_path: r.get(5)?,
            bases: r.get(6)?,
        });
    }
    Ok(())
}

/// Every import binding.
pub(crate) fn for_each_import(conn: &Connection, mut f: impl FnMut(ImportRow)) -> Result<()> {
    let mut stmt =
        conn.prepare("SELECT file_id, module, name, alias, binding, target FROM imports")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(ImportRow {
            file: r.get(0)?,
            module: r.get(1)?,
            name: r.get(2)?,
            alias: r.get(3)?,
            binding: r.get(4)?,
            target: r.get(5)?,
        });
    }
    Ok(())
}

/// Every assignment `(file, enclosing definition, variable, value)`, in line order per file.
pub(crate) fn for_each_assignment(
    conn: &Connection,
    mut f: impl FnMut(i64, Option<i64>, String, String),
) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT file_id, enclosing_id, name, value FROM assignments ORDER BY file_id, line",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
    }
    Ok(())
}

/// The names a file defines (before its rows are replaced).
pub(crate) fn names_defined_in(conn: &Connection, file_id: i64) -> Result<Vec<String>> {
    let mut names = conn.prepare_cached("SELECT name FROM symbols WHERE file_id = ?1")?;
    let rows = names.query_map([file_id], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The calls whose edges point into a file.
pub(crate) fn calls_into(conn: &Connection, file_id: i64) -> Result<Vec<i64>> {
    let mut calls = conn.prepare_cached(
        "SELECT g.call_id FROM edges g JOIN symbols s ON s.id = g.callee_id WHERE s.file_id = ?1",
    )?;
    let rows = calls.query_map([file_id], |r| r.get::<_, i64>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every call site, after dropping every edge (a full resolution).
pub(crate) fn all_calls_without_edges(conn: &Connection) -> Result<Vec<CallSite>> {
    conn.execute("DELETE FROM edges", [])?;
    let mut stmt = conn.prepare("SELECT id, file_id, enclosing_id, callee FROM calls")?;
    let rows = stmt.query_map([], call_site)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The call sites an incremental run must resolve again, after dropping their
/// edges: those in `paths` (changed files, and their directories: Go imports
/// and Java globs target a package directory), those calling a name in
/// `names`, those made through an import of `paths`, and `calls`.
pub(crate) fn dirty_calls_without_edges<'a>(
    conn: &Connection,
    names: impl Iterator<Item = &'a String>,
    paths: impl Iterator<Item = &'a str>,
    calls: impl Iterator<Item = &'a i64>,
) -> Result<Vec<CallSite>> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS dirty_names(name TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS dirty_paths(path TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS dirty_calls(id INTEGER PRIMARY KEY);
         DELETE FROM dirty_names; DELETE FROM dirty_paths; DELETE FROM dirty_calls;",
    )?;
    {
        let mut name = conn.prepare("INSERT OR IGNORE INTO dirty_names VALUES (?1)")?;
        for n in names {
            name.execute([n])?;
        }
        let mut path = conn.prepare("INSERT OR IGNORE INTO dirty_paths VALUES (?1)")?;
        for p in paths {
            path.execute([p])?;
        }
        let mut call = conn.prepare("INSERT OR IGNORE INTO dirty_calls VALUES (?1)")?;
        for c in calls {
            call.execute([c])?;
        }
    }
    conn.execute_batch(
        // One statement per rule, each on its own index.
        "INSERT OR IGNORE INTO dirty_calls
           SELECT c.id FROM calls c
           WHERE c.file_id IN (SELECT id FROM files WHERE path IN (SELECT path FROM dirty_paths));
         INSERT OR IGNORE INTO dirty_calls
           SELECT c.id FROM calls c WHERE c.callee_name IN (SELECT name FROM dirty_names);
         INSERT OR IGNORE INTO dirty_calls
           SELECT c.id FROM imports i JOIN calls c ON c.file_id = i.file_id
           WHERE i.target IN (SELECT path FROM dirty_paths)
             AND (i.binding IS NULL OR c.callee_head = i.binding);
         DELETE FROM edges WHERE call_id IN (SELECT id FROM dirty_calls);",
    )?;
    let mut stmt = conn.prepare(
        "SELECT c.id, c.file_id, c.enclosing_id, c.callee FROM calls c
         WHERE c.id IN (SELECT id FROM dirty_calls)",
    )?;
    let rows = stmt.query_map([], call_site)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn call_site(r: &rusqlite::Row<'_>) -> rusqlite::Result<CallSite> {
    Ok(CallSite {
        id: r.get(0)?,
        file: r.get(1)?,
        enclosing: r.get(2)?,
        callee: r.get(3)?,
    })
}

/// One resolved edge.
pub(crate) fn insert_edge(
    conn: &Connection,
    call: &CallSite,
    callee_id: i64,
    confidence: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO edges(call_id, file_id, callee_id, confidence) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![call.id, call.file, callee_id, confidence])?;
    Ok(())
}
