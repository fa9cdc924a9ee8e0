//! Reads for the graph queries: targets by name, the calls inside and
//! into a definition, and a definition's rows.

use rusqlite::{params, Connection};

use super::rows::{
    class_like_kinds, CallInside, DefinitionRow, EdgeRow, IncomingCall, Target, TargetMatch,
    UnresolvedCall,
};
use crate::error::Result;

/// The definitions `symbol` names, in or under `rel` when given; a full
/// qualified-name match first.
pub(crate) fn targets(
    conn: &Connection,
    how: TargetMatch,
    symbol: &str,
    rel: Option<&str>,
) -> Result<Vec<Target>> {
    let last = last_segment(symbol);
    let mut stmt = conn.prepare(&targets_sql(how, rel.is_some()))?;
    let map = |r: &rusqlite::Row| {
        Ok(Target {
            id: r.get(0)?,
            path: r.get(1)?,
            kind: r.get(2)?,
            name: r.get(3)?,
            qualified_name: r.get(4)?,
            start_line: r.get(5)?,
            end_line: r.get(6)?,
        })
    };
    // A statement names the arguments it uses: the highest one sets the count.
    let values = [symbol, last, rel.unwrap_or_default()];
    let used = &values[..stmt.parameter_count()];
    let rows = stmt.query_map(rusqlite::params_from_iter(used), map)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// [`targets`]'s statement: `?1` the symbol, `?2` its last name, `?3` the path.
pub(crate) fn targets_sql(how: TargetMatch, with_path: bool) -> String {
    let condition = match how {
        TargetMatch::NameOrQualified => NAMED_OR_QUALIFIED,
        TargetMatch::QualifiedSuffix => {
            "s.id IN (SELECT id FROM symbols WHERE name = ?2 COLLATE NOCASE)
             AND (s.qualified_name LIKE '%.' || ?1 OR s.qualified_name LIKE '%::' || ?1)"
        }
    };
    let mut sql = format!(
        "SELECT s.id, f.path, s.kind, s.name, s.qualified_name, s.start_line, s.end_line
         FROM symbols s JOIN files f ON f.id = s.file_id WHERE ({condition})"
    );
    if with_path {
        sql += " AND (f.path = ?3 OR f.path LIKE ?3 || '/%')";
    }
    sql += " ORDER BY (s.qualified_name = ?1) DESC, f.path, s.start_line";
    sql
}

/// What follows a qualified name's last separator (`open` in `Store.open`
/// and `store::open`): a definition's qualified name ends in its name.
pub(crate) fn last_segment(symbol: &str) -> &str {
    let start = (crate::lang::qualified_separators().iter())
        .filter_map(|sep| symbol.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    &symbol[start..]
}

/// Definitions (`s`) named `?1`, case and all, or qualified as `?1`: two
/// searches of their indexes. Written as one `OR`, SQLite's planner reads
/// every definition instead (3.5 million of them in the Linux kernel).
pub(crate) const NAMED_OR_QUALIFIED: &str =
    "s.id IN (SELECT id FROM symbols WHERE name = ?1 COLLATE NOCASE AND name = ?1
              UNION ALL SELECT id FROM symbols WHERE qualified_name = ?1)";

/// Definition names starting with `prefix` or containing `part` (at most 2,000), for suggestions.
pub(crate) fn names_like(conn: &Connection, prefix: &str, part: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT name FROM symbols WHERE name LIKE ?1 || '%' OR name LIKE '%' || ?2 || '%' LIMIT 2000",
    )?;
    let rows = stmt.query_map(params![prefix, part], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The calls made inside a definition (nested definitions included).
pub(crate) fn calls_inside(conn: &Connection, symbol_id: i64) -> Result<Vec<CallInside>> {
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE inside(id) AS (
             SELECT ?1 UNION SELECT s.id FROM symbols s JOIN inside ON s.parent_id = inside.id)
         SELECT c.id, f.path, c.line, c.callee,
                group_concat(t.qualified_name || ' (' || g.confidence || ')', ', ')
         FROM calls c JOIN files f ON f.id = c.file_id
         LEFT JOIN edges g ON g.call_id = c.id LEFT JOIN symbols t ON t.id = g.callee_id
         WHERE c.enclosing_id IN (SELECT id FROM inside)
         GROUP BY c.id ORDER BY c.line, c.callee",
    )?;
    let rows = stmt.query_map([symbol_id], |r| {
        Ok(CallInside {
            path: r.get(1)?,
            line: r.get(2)?,
            callee: r.get(3)?,
            resolved: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The calls into `callees`, by site: path, line, then call.
pub(crate) fn incoming_calls(conn: &Connection, callees: &[i64]) -> Result<Vec<IncomingCall>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.callee_id, g.file_id, g.line, g.call_id, g.confidence, g.caller_id
         FROM edges g JOIN files f ON f.id = g.file_id
         WHERE g.callee_id IN (SELECT value FROM json_each(?1))
         ORDER BY f.path, g.line, g.call_id",
    )?;
    let ids = serde_json::to_string(callees).unwrap_or_else(|_| "[]".into());
    let rows = stmt.query_map([ids], |r| {
        Ok(IncomingCall {
            callee: r.get(0)?,
            file: r.get(1)?,
            line: r.get(2)?,
            call: r.get(3)?,
            confidence: r.get(4)?,
            enclosing: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The files whose calls reach `callee`, by path, each with how many: one
/// pass over the covering index `edges_callee`, which holds the calls of
/// one file together.
pub(crate) fn incoming_files(conn: &Connection, callee: i64) -> Result<Vec<(String, i64, usize)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, g.file_id, count(*) FROM edges g JOIN files f ON f.id = g.file_id
         WHERE g.callee_id = ?1 GROUP BY g.file_id",
    )?;
    let mut files: Vec<(String, i64, usize)> = stmt
        .query_map([callee], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize))
        })?
        .collect::<rusqlite::Result<_>>()?;
    files.sort_unstable();
    Ok(files)
}

/// How many resolved calls reach `callee` (the sum of [`incoming_files`]'
/// counts: every edge's file is indexed), from the covering index alone.
pub(crate) fn incoming_count(conn: &Connection, callee: i64) -> Result<usize> {
    let mut stmt = conn.prepare_cached("SELECT count(*) FROM edges WHERE callee_id = ?1")?;
    let n: i64 = stmt.query_row([callee], |r| r.get(0))?;
    Ok(n as usize)
}

/// The calls of one file that reach `callee`, in [`incoming_calls`]' order.
pub(crate) fn incoming_in_file(
    conn: &Connection,
    callee: i64,
    file: i64,
) -> Result<Vec<IncomingCall>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.line, g.call_id, g.confidence, g.caller_id FROM edges g
         WHERE g.callee_id = ?1 AND g.file_id = ?2 ORDER BY g.line, g.call_id",
    )?;
    let rows = stmt.query_map([callee, file], |r| {
        Ok(IncomingCall {
            callee,
            file,
            line: r.get(0)?,
            call: r.get(1)?,
            confidence: r.get(2)?,
            enclosing: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A call's callee as written (`self.store.get`).
pub(crate) fn call_text(conn: &Connection, call: i64) -> Result<String> {
    Ok(conn
        .prepare_cached("SELECT callee FROM calls WHERE id = ?1")?
        .query_row([call], |r| r.get(0))?)
}

/// `(path, module)` of a file.
pub(crate) fn file_path_and_module(conn: &Connection, file_id: i64) -> Result<(String, String)> {
    Ok(conn
        .prepare_cached("SELECT path, module FROM files WHERE id = ?1")?
        .query_row([file_id], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

pub(crate) fn definition(conn: &Connection, id: i64) -> Result<DefinitionRow> {
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, s.start_line, s.end_line, s.kind, s.name, s.qualified_name
         FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?1",
    )?;
    Ok(stmt.query_row([id], |r| {
        Ok(DefinitionRow {
            path: r.get(0)?,
            start: r.get(1)?,
            end: r.get(2)?,
            kind: r.get(3)?,
            name: r.get(4)?,
            qualified: r.get(5)?,
        })
    })?)
}

/// Every resolved edge from calls in files in or under `rel` (all when empty).
pub(crate) fn edges_under(conn: &Connection, rel: &str) -> Result<Vec<EdgeRow>> {
    let mut stmt = conn.prepare(
        "SELECT coalesce(e.qualified_name, f.module), t.qualified_name, f.path, c.line, g.confidence,
                t.kind, tf.path, t.start_line, e.kind, e.start_line
         FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
         JOIN symbols t ON t.id = g.callee_id JOIN files tf ON tf.id = t.file_id
         LEFT JOIN symbols e ON e.id = c.enclosing_id
         WHERE ?1 = '' OR f.path = ?1 OR f.path LIKE ?1 || '/%'
         ORDER BY f.path, c.line, t.qualified_name",
    )?;
    let rows = stmt.query_map([rel], |r| {
        Ok(EdgeRow {
            caller: r.get(0)?,
            callee: r.get(1)?,
            path: r.get(2)?,
            line: r.get(3)?,
            confidence: r.get(4)?,
            callee_kind: r.get(5)?,
            callee_path: r.get(6)?,
            callee_start: r.get(7)?,
            caller_kind: r.get(8)?,
            caller_start: r.get(9)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `(qualified name, kind, start, end)` of a definition.
pub(crate) fn definition_summary(conn: &Connection, id: i64) -> Result<(String, String, u32, u32)> {
    Ok(conn
        .prepare_cached(
            "SELECT qualified_name, kind, start_line, end_line FROM symbols WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?)
}

/// The call sites named `name` that no edge resolves (only those written
/// with a receiver, `x.name(...)`, when `with_receiver`): at most `limit`, in
/// file order, and how many there are in all.
pub(crate) fn unresolved_calls_named(
    conn: &Connection,
    name: &str,
    with_receiver: bool,
    limit: usize,
) -> Result<(Vec<UnresolvedCall>, usize)> {
    let receiver = if with_receiver {
        " AND c.callee != c.callee_name"
    } else {
        ""
    };
    let condition = format!(
        "c.callee_name = ?1 AND NOT EXISTS (SELECT 1 FROM edges g WHERE g.call_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM externals x WHERE x.call_id = c.id){receiver}"
    );
    // One pass: counting apart would test every call of the name twice.
    let mut stmt = conn.prepare(&format!(
        "SELECT f.path, c.line, c.callee, coalesce(e.qualified_name, f.module, f.path)
         FROM calls c JOIN files f ON f.id = c.file_id LEFT JOIN symbols e ON e.id = c.enclosing_id
         WHERE {condition}"
    ))?;
    let mut calls: Vec<UnresolvedCall> = stmt
        .query_map([name], |r| {
            Ok(UnresolvedCall {
                path: r.get(0)?,
                line: r.get(1)?,
                callee: r.get(2)?,
                caller: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let total = calls.len();
    calls.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    calls.truncate(limit);
    Ok((calls, total))
}

/// The class a constructor belongs to, when the class is named `class_name`
/// (`Foo()` reaches `Foo.__init__`; the name `Foo` names the class).
pub(crate) fn class_of_constructor(conn: &Connection, id: i64, class_name: &str) -> Option<i64> {
    conn.prepare_cached(&format!(
        "SELECT p.id FROM symbols s JOIN symbols p ON p.id = s.parent_id
         WHERE s.id = ?1 AND p.name = ?2 AND p.kind IN {}",
        class_like_kinds()
    ))
    .ok()?
    .query_row(rusqlite::params![id, class_name], |r| r.get(0))
    .ok()
}

/// The declarations (`declaration = 1`) of the definition `id`: the same
/// qualified name and kind elsewhere (a header's prototype).
pub(crate) fn declarations_of(conn: &Connection, id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT d.id FROM symbols s JOIN symbols d
           ON d.qualified_name = s.qualified_name AND d.kind = s.kind AND d.declaration = 1
         WHERE s.id = ?1 AND s.declaration = 0 ORDER BY d.id",
    )?;
    let ids = stmt
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
