//! Call sites to resolve, and the edges, outside targets and argument
//! calls a pass writes.

use rusqlite::{params, Connection};

use super::rows::{call_site, ArgumentSite, CallSite};
use crate::error::Result;

/// Every call site, after dropping every edge (a full resolution).
pub(crate) fn all_calls_without_edges(conn: &Connection) -> Result<Vec<CallSite>> {
    // Every edge is written again: without their indexes, built once after
    // (`ensure_secondary_indexes`), the writes cost about half.
    conn.execute_batch(
        "DELETE FROM edges; DELETE FROM externals; DELETE FROM argument_calls;
         DROP INDEX IF EXISTS edges_call; DROP INDEX IF EXISTS edges_callee;
         DROP INDEX IF EXISTS edges_file; DROP INDEX IF EXISTS externals_file;",
    )?;
    every_call(conn)
}

/// Every call site, by file path, then in its file's order: the order a
/// pass meets calls in, which what it learns on the way (cycles cut, outside
/// values named) may depend on, must not depend on the order files were
/// written in (a resumed run, a branch switch).
pub(crate) fn every_call(conn: &Connection) -> Result<Vec<CallSite>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, c.file_id, c.enclosing_id, c.callee, c.line
         FROM calls c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.id",
    )?;
    let rows = stmt.query_map([], call_site)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks the call sites an incremental run must resolve again (the temp
/// table `dirty_calls`) and returns how many: those in `paths` (changed
/// files, and their directories: Go imports and Java globs target a package
/// directory), those calling a name in `names`, those made through an import
/// of `paths`, and `calls`. [`take_dirty_calls`] then drops their edges.
pub(crate) fn mark_dirty_calls<'a>(
    conn: &Connection,
    names: impl Iterator<Item = &'a String>,
    (paths, importees): (impl Iterator<Item = &'a str>, impl Iterator<Item = &'a str>),
    calls: impl Iterator<Item = &'a i64>,
) -> Result<usize> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS dirty_names(name TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS dirty_paths(path TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS dirty_importees(path TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS dirty_calls(id INTEGER PRIMARY KEY);
         DELETE FROM dirty_names; DELETE FROM dirty_paths; DELETE FROM dirty_importees;
         DELETE FROM dirty_calls;",
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
        let mut importee = conn.prepare("INSERT OR IGNORE INTO dirty_importees VALUES (?1)")?;
        for p in importees {
            importee.execute([p])?;
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
           WHERE i.target IN (SELECT path FROM dirty_importees)
             AND (i.binding IS NULL OR c.callee_head = i.binding);
         -- Argument flow stays inside a file: a call of a function resolved
         -- again resolves again the calls of its file that used what the
         -- function's calls pass.
         INSERT OR IGNORE INTO dirty_calls
           SELECT a.call_id FROM calls c
           JOIN argument_calls a ON a.file_id = c.file_id AND a.function = c.callee_name
           WHERE c.id IN (SELECT id FROM dirty_calls);",
    )?;
    let marked: i64 = conn.query_row("SELECT count(*) FROM dirty_calls", [], |r| r.get(0))?;
    Ok(marked as usize)
}

/// The calls [`mark_dirty_calls`] marked, after dropping their edges.
pub(crate) fn take_dirty_calls(conn: &Connection) -> Result<Vec<CallSite>> {
    conn.execute_batch(
        "DELETE FROM argument_calls WHERE call_id IN (SELECT id FROM dirty_calls);
         DELETE FROM edges WHERE call_id IN (SELECT id FROM dirty_calls);
         DELETE FROM externals WHERE call_id IN (SELECT id FROM dirty_calls);",
    )?;
    let mut stmt = conn.prepare(
        "SELECT c.id, c.file_id, c.enclosing_id, c.callee, c.line
         FROM calls c JOIN files f ON f.id = c.file_id
         WHERE c.id IN (SELECT id FROM dirty_calls) ORDER BY f.path, c.id",
    )?;
    let rows = stmt.query_map([], call_site)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many call sites the index holds (from the files' counts).
/// How many files the index holds.
pub(crate) fn file_count(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?;
    Ok(n as usize)
}

pub(crate) fn call_count(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT coalesce(sum(calls), 0) FROM files", [], |r| {
        r.get(0)
    })?;
    Ok(n as usize)
}

/// A call whose resolution used argument flow (see `argument_calls`).
pub(crate) fn insert_argument_call(
    conn: &Connection,
    call: &CallSite,
    function: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO argument_calls(call_id, file_id, function) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![call.id, call.file, function])?;
    Ok(())
}

/// The calls of `file` whose callee's last identifier is `name`, with their
/// arguments (`None` past `limit`): the calls that may bind a parameter.
pub(crate) fn calls_named_in(
    conn: &Connection,
    file: i64,
    name: &str,
    limit: usize,
) -> Result<Option<Vec<ArgumentSite>>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, file_id, enclosing_id, callee, line, arguments FROM calls
         WHERE callee_name = ?1 AND file_id = ?2 ORDER BY id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![name, file, limit as i64 + 1], |r| {
        Ok((call_site(r)?, r.get(5)?))
    })?;
    let sites: Vec<ArgumentSite> = rows.collect::<rusqlite::Result<_>>()?;
    Ok((sites.len() <= limit).then_some(sites))
}

/// A call that reaches outside the repository (`kind`: external or builtin).
pub(crate) fn insert_external(
    conn: &Connection,
    call: &CallSite,
    target: &str,
    kind: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO externals(call_id, file_id, target, kind) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![call.id, call.file, target, kind])?;
    Ok(())
}

/// One resolved edge.
pub(crate) fn insert_edge(
    conn: &Connection,
    call: &CallSite,
    callee_id: i64,
    confidence: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO edges(call_id, file_id, callee_id, confidence, line, caller_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        call.id,
        call.file,
        callee_id,
        confidence,
        call.line,
        call.enclosing
    ])?;
    Ok(())
}
