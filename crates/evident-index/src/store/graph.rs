//! The call graph's rows: what a resolution pass loads (files, definitions,
//! imports, assignments, call sites), what an incremental run notes before a
//! file's rows change, and the edges it writes. Loading streams rows to the
//! caller, which builds its in-memory tables without a copy of each row.

use rusqlite::{params, Connection};

use crate::error::Result;
use crate::graph::query::Target;

/// A definition as resolution needs it (`name` borrowed from the row, to intern).
pub(crate) struct SymbolRow<'a> {
    pub id: i64,
    pub file: i64,
    pub parent: Option<i64>,
    pub kind: &'a str,
    pub name: &'a str,
    /// Only for methods outside any class (Rust `impl`, Go receivers, C++
    /// `void Foo::bar() {}` in a namespace).
    pub owner_path: Option<String>,
    /// One base class per line.
    pub bases: Option<String>,
    pub declaration: bool,
    pub start_line: u32,
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
    pub line: u32,
}

/// Every file by path: id, path, language name.
pub(crate) fn for_each_file_by_path(
    conn: &Connection,
    mut f: impl FnMut(i64, String, String),
) -> Result<()> {
    let mut stmt = conn.prepare("SELECT id, path, lang FROM files ORDER BY path")?;
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

/// `('class', 'struct', …)`: the class-like kinds as an SQL list, from
/// `Kind::is_class_like`, the one place that says which kinds they are.
fn class_like_kinds() -> &'static str {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQL.get_or_init(|| {
        let kinds: Vec<String> = crate::evidence::Kind::ALL
            .iter()
            .filter(|k| k.is_class_like())
            .map(|k| format!("'{}'", k.as_str()))
            .collect();
        format!("({})", kinds.join(", "))
    })
}

/// Which definitions [`for_each_symbol`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SymbolFilter<'a> {
    All,
    Id(i64),
    File(i64),
    Name(&'a str),
    /// Those that name bases (classes; a partial index keeps this cheap).
    WithBases,
}

/// The definitions `filter` selects, in their canonical order: by path, then
/// line, then id (all of them in table order). Lists in id order would
/// depend on the order files were written in, and resolution on them.
pub(crate) fn for_each_symbol(
    conn: &Connection,
    filter: SymbolFilter<'_>,
    mut f: impl FnMut(SymbolRow<'_>),
) -> Result<()> {
    // Files are joined only to order by path (a join per row of a full read costs).
    let (condition, key): (&str, Option<rusqlite::types::Value>) = match filter {
        SymbolFilter::All => ("", None),
        SymbolFilter::Id(id) => ("WHERE s.id = ?1", Some(id.into())),
        SymbolFilter::File(file) => (
            "WHERE s.file_id = ?1 ORDER BY s.start_line, s.id",
            Some(file.into()),
        ),
        // The name index folds case: it finds the candidates, `=` keeps the exact ones.
        SymbolFilter::Name(name) => (
            "JOIN files f ON f.id = s.file_id
             WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 ORDER BY f.path, s.start_line, s.id",
            Some(name.to_string().into()),
        ),
        SymbolFilter::WithBases => (
            "JOIN files f ON f.id = s.file_id
             WHERE s.bases IS NOT NULL ORDER BY f.path, s.start_line, s.id",
            None,
        ),
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT s.id, s.file_id, s.parent_id, s.kind, s.name,
                CASE WHEN s.kind = 'method' AND (p.id IS NULL OR p.kind NOT IN {})
                THEN s.qualified_name END,
                s.bases, s.declaration, s.start_line
         FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id {condition}",
        class_like_kinds()
    ))?;
    let mut rows = match key {
        Some(key) => stmt.query([key])?,
        None => stmt.query([])?,
    };
    while let Some(r) = rows.next()? {
        let name = r.get_ref(4)?.as_str().map_err(rusqlite::Error::from)?;
        let kind = r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
        f(SymbolRow {
            id: r.get(0)?,
            file: r.get(1)?,
            parent: r.get(2)?,
            kind,
            name,
            owner_path: r.get(5)?,
            bases: r.get(6)?,
            declaration: r.get::<_, i64>(7)? != 0,
            start_line: r.get(8)?,
        });
    }
    Ok(())
}

/// Each declaration (a prototype, a method declared in its class) with a
/// definition of the same qualified name and kind, of every declaration or
/// of one: `(declaration, its language, definition, its language)`, in id order.
pub(crate) fn for_each_declaration_defined(
    conn: &Connection,
    declaration: Option<i64>,
    mut f: impl FnMut(i64, &str, i64, &str),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT d.id, fd.lang, s.id, fs.lang
         FROM symbols d JOIN files fd ON fd.id = d.file_id
         JOIN symbols s ON s.qualified_name = d.qualified_name AND s.kind = d.kind
              AND s.declaration = 0
         JOIN files fs ON fs.id = s.file_id
         WHERE d.declaration = 1 {}
         ORDER BY d.id, s.id",
        if declaration.is_some() {
            "AND d.id = ?1"
        } else {
            ""
        }
    ))?;
    let mut rows = match declaration {
        Some(id) => stmt.query([id])?,
        None => stmt.query([])?,
    };
    while let Some(r) = rows.next()? {
        let declared_in = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        let defined_in = r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
        f(r.get(0)?, declared_in, r.get(2)?, defined_in);
    }
    Ok(())
}

/// Every import binding, or one file's, in the order they were written.
pub(crate) fn for_each_import(
    conn: &Connection,
    file: Option<i64>,
    mut f: impl FnMut(ImportRow),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT file_id, module, name, alias, binding, target FROM imports {} ORDER BY rowid",
        if file.is_some() {
            "WHERE file_id = ?1"
        } else {
            ""
        }
    ))?;
    let mut rows = match file {
        Some(id) => stmt.query([id])?,
        None => stmt.query([])?,
    };
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
    paths: impl Iterator<Item = &'a str>,
    calls: impl Iterator<Item = &'a i64>,
) -> Result<usize> {
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
pub(crate) fn call_count(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT coalesce(sum(calls), 0) FROM files", [], |r| {
        r.get(0)
    })?;
    Ok(n as usize)
}

fn call_site(r: &rusqlite::Row<'_>) -> rusqlite::Result<CallSite> {
    Ok(CallSite {
        id: r.get(0)?,
        file: r.get(1)?,
        enclosing: r.get(2)?,
        callee: r.get(3)?,
        line: r.get(4)?,
    })
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

/// A call with its stored arguments (`encode_arguments`).
pub(crate) type ArgumentSite = (CallSite, Option<String>);

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

// ---- Reads for the graph queries (callers, callees, impact, graph, def) ----

/// How [`targets`] matches a symbol.
pub(crate) enum TargetMatch {
    /// By name or by full qualified name (both indexed).
    NameOrQualified,
    /// By qualified-name suffix (`Store.open`, `store::open`): a scan.
    QualifiedSuffix,
}

/// The definitions `symbol` names, in or under `rel` when given; a full
/// qualified-name match first.
pub(crate) fn targets(
    conn: &Connection,
    how: TargetMatch,
    symbol: &str,
    rel: Option<&str>,
) -> Result<Vec<Target>> {
    let condition = match how {
        // `symbols_name` is case-insensitive: the NOCASE term lets SQLite use it.
        TargetMatch::NameOrQualified => {
            "(s.name = ?1 COLLATE NOCASE AND s.name = ?1) OR s.qualified_name = ?1"
        }
        TargetMatch::QualifiedSuffix => {
            "s.qualified_name LIKE '%.' || ?1 OR s.qualified_name LIKE '%::' || ?1"
        }
    };
    let mut sql = format!(
        "SELECT s.id, f.path, s.kind, s.name, s.qualified_name, s.start_line, s.end_line
         FROM symbols s JOIN files f ON f.id = s.file_id WHERE ({condition})"
    );
    if rel.is_some() {
        sql += " AND (f.path = ?2 OR f.path LIKE ?2 || '/%')";
    }
    sql += " ORDER BY (s.qualified_name = ?1) DESC, f.path, s.start_line";
    let mut stmt = conn.prepare(&sql)?;
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
    let rows = match rel {
        Some(rel) => stmt
            .query_map(params![symbol, rel], map)?
            .collect::<rusqlite::Result<_>>()?,
        None => stmt
            .query_map(params![symbol], map)?
            .collect::<rusqlite::Result<_>>()?,
    };
    Ok(rows)
}

/// Definition names starting with `prefix` or containing `part` (at most 2,000), for suggestions.
pub(crate) fn names_like(conn: &Connection, prefix: &str, part: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT name FROM symbols WHERE name LIKE ?1 || '%' OR name LIKE '%' || ?2 || '%' LIMIT 2000",
    )?;
    let rows = stmt.query_map(params![prefix, part], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A call made inside a definition, and what it resolves to.
pub(crate) struct CallInside {
    pub path: String,
    pub line: u32,
    pub callee: String,
    /// `qualified name (confidence)`, comma-separated; `None` when unresolved.
    pub resolved: Option<String>,
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

/// A resolved call into one of a frontier's definitions, as the narrow
/// `edges_callee` index holds it: the call's text is read only for the sites
/// that are listed ([`call_text`]).
pub(crate) struct IncomingCall {
    pub callee: i64,
    pub file: i64,
    pub line: u32,
    pub call: i64,
    pub confidence: String,
    pub enclosing: Option<i64>,
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

/// One definition, by id.
pub(crate) struct DefinitionRow {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
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

/// One resolved edge of the whole graph, with both ends described.
pub(crate) struct EdgeRow {
    pub caller: String,
    pub callee: String,
    pub path: String,
    pub line: u32,
    pub confidence: String,
    pub callee_kind: String,
    pub callee_path: String,
    pub callee_start: u32,
    /// `None` for module-level code.
    pub caller_kind: Option<String>,
    pub caller_start: Option<u32>,
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

/// A call on one line: its text and name, and a definition it resolves to.
pub(crate) struct CallOnLine {
    pub callee: String,
    pub callee_name: String,
    pub target: Option<i64>,
    pub confidence: Option<String>,
}

/// The calls on `line` of a file, shortest callee text first (one row per edge).
pub(crate) fn calls_on_line(conn: &Connection, file_id: i64, line: u32) -> Result<Vec<CallOnLine>> {
    let mut stmt = conn.prepare(
        "SELECT c.callee, c.callee_name, t.id, g.confidence FROM calls c
         LEFT JOIN edges g ON g.call_id = c.id LEFT JOIN symbols t ON t.id = g.callee_id
         WHERE c.file_id = ?1 AND c.line = ?2 ORDER BY length(c.callee)",
    )?;
    let rows = stmt.query_map(params![file_id, line], |r| {
        Ok(CallOnLine {
            callee: r.get(0)?,
            callee_name: r.get(1)?,
            target: r.get(2)?,
            confidence: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A definition visible by name from a line of its file, and how deep its scope is.
pub(crate) struct InScope {
    pub id: i64,
    /// The first line of the enclosing definition (0 at module level): larger is innermost.
    pub scope_start: u32,
    pub parent_kind: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: String,
}

/// The definitions named `name` in a file that are at module level or
/// children of a definition enclosing `line`, innermost scope first.
pub(crate) fn definitions_in_scope(
    conn: &Connection,
    file_id: i64,
    name: &str,
    line: u32,
) -> Result<Vec<InScope>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, coalesce(p.start_line, 0), p.kind, s.start_line, s.end_line, s.signature
         FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
         WHERE s.file_id = ?1 AND s.name = ?2
           AND (s.parent_id IS NULL OR (p.start_line <= ?3 AND p.end_line >= ?3))
         ORDER BY 2 DESC, s.start_line",
    )?;
    let rows = stmt.query_map(params![file_id, name, line], |r| {
        Ok(InScope {
            id: r.get(0)?,
            scope_start: r.get(1)?,
            parent_kind: r.get(2)?,
            start_line: r.get(3)?,
            end_line: r.get(4)?,
            signature: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The language a file was indexed as.
pub(crate) fn file_language(conn: &Connection, file_id: i64) -> Result<String> {
    Ok(conn
        .prepare_cached("SELECT lang FROM files WHERE id = ?1")?
        .query_row([file_id], |r| r.get(0))?)
}

/// Top-level definitions a file imports under the local name `binding`,
/// through re-exports (`from .impl import f` in a package's `__init__.py`,
/// `export * from`) up to a few files deep.
pub(crate) fn definitions_imported_as(
    conn: &Connection,
    file_id: i64,
    binding: &str,
) -> Result<Vec<i64>> {
    let mut frontier: Vec<(String, String)> = conn
        .prepare_cached(
            "SELECT i.target, i.name FROM imports i
             WHERE i.file_id = ?1 AND i.binding = ?2 AND i.target IS NOT NULL AND i.name IS NOT NULL",
        )?
        .query_map(params![file_id, binding], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut top = conn.prepare_cached(
        "SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.path = ?1 AND s.parent_id IS NULL AND s.name = ?2",
    )?;
    let mut onward = conn.prepare_cached(
        "SELECT i.target, coalesce(nullif(i.name, '*'), ?2) FROM imports i JOIN files f ON f.id = i.file_id
         WHERE f.path = ?1 AND i.target IS NOT NULL AND i.target != ?1
           AND (i.binding = ?2 OR i.name = '*')",
    )?;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..4 {
        let mut found: Vec<i64> = Vec::new();
        let mut next = Vec::new();
        for (target, name) in frontier {
            if !seen.insert((target.clone(), name.clone())) {
                continue;
            }
            let ids: Vec<i64> = top
                .query_map(params![target, name], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            if ids.is_empty() {
                let more: Vec<(String, String)> = onward
                    .query_map(params![target, name], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                next.extend(more);
            }
            found.extend(ids);
        }
        if !found.is_empty() || next.is_empty() {
            return Ok(found);
        }
        frontier = next;
    }
    Ok(Vec::new())
}

/// The module a file imports under the local name `binding` (`import a.b as
/// m`, `from pkg import mod`): `(path, module, line count)`.
pub(crate) fn module_imported_as(
    conn: &Connection,
    file_id: i64,
    binding: &str,
) -> Option<(String, String, u32)> {
    let (path, module, lines, name): (String, String, u32, Option<String>) = conn
        .query_row(
            "SELECT tf.path, tf.module, tf.line_count, i.name FROM imports i JOIN files tf ON tf.path = i.target
             WHERE i.file_id = ?1 AND i.binding = ?2 LIMIT 1",
            params![file_id, binding],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .ok()?;
    // `from pkg import name` names a module only when the target is that module's file.
    let names_module = name.is_none_or(|name| {
        let last = module.rsplit(['.', ':', '/']).next().unwrap_or(&module);
        last == name
    });
    names_module.then_some((path, module, lines))
}

/// `(qualified name, kind, start, end)` of a definition.
pub(crate) fn definition_summary(conn: &Connection, id: i64) -> Result<(String, String, u32, u32)> {
    Ok(conn
        .prepare_cached(
            "SELECT qualified_name, kind, start_line, end_line FROM symbols WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?)
}

/// A call site nothing resolved, with where it is.
pub(crate) struct UnresolvedCall {
    pub path: String,
    pub line: u32,
    pub callee: String,
    /// The enclosing definition's qualified name, or the file's module.
    pub caller: String,
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
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM calls c WHERE {condition}"),
        [name],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare(&format!(
        "SELECT f.path, c.line, c.callee, coalesce(e.qualified_name, f.module, f.path)
         FROM calls c JOIN files f ON f.id = c.file_id LEFT JOIN symbols e ON e.id = c.enclosing_id
         WHERE {condition} ORDER BY f.path, c.line LIMIT {limit}"
    ))?;
    let rows = stmt.query_map([name], |r| {
        Ok(UnresolvedCall {
            path: r.get(0)?,
            line: r.get(1)?,
            callee: r.get(2)?,
            caller: r.get(3)?,
        })
    })?;
    Ok((rows.collect::<rusqlite::Result<_>>()?, total as usize))
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

/// The innermost definition (not a variable) whose body holds `line`: a
/// definition's own first line (`class Meta(self.form_class.Meta):`, its
/// decorators, defaults) belongs to the scope around it, unless it is all
/// on that line.
pub(crate) fn scope_at(conn: &Connection, file_id: i64, line: u32) -> Result<Option<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM symbols WHERE file_id = ?1 AND start_line <= ?2 AND end_line >= ?2
           AND (start_line < ?2 OR end_line = start_line)
           AND kind NOT IN ('variable', 'constant')
         ORDER BY start_line DESC, end_line ASC LIMIT 1",
    )?;
    let mut rows = stmt.query(params![file_id, line])?;
    Ok(match rows.next()? {
        Some(r) => Some(r.get(0)?),
        None => None,
    })
}

/// Where an attribute binding was made: `(path, line)` of the assignment
/// in `scope` whose name ends in `attribute` and whose value is `stored`.
pub(crate) fn binding_site(
    conn: &Connection,
    file_id: i64,
    scope: Option<i64>,
    attribute: &str,
    stored: &str,
) -> Result<Option<(String, u32)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, a.line, a.name FROM assignments a JOIN files f ON f.id = a.file_id
         WHERE a.file_id = ?1 AND a.enclosing_id IS ?2 AND a.value = ?3 ORDER BY a.line",
    )?;
    let mut rows = stmt.query(params![file_id, scope, stored])?;
    while let Some(r) = rows.next()? {
        let name: String = r.get(2)?;
        if name == attribute || name.rsplit('.').next() == Some(attribute) {
            return Ok(Some((r.get(0)?, r.get(1)?)));
        }
    }
    Ok(None)
}

/// Every file path, for an import resolver outside an indexing run.
pub(crate) fn all_paths(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT path FROM files")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The module paths of the imports written across `line` of a file.
pub(crate) fn import_modules_on_line(
    conn: &Connection,
    file_id: i64,
    line: u32,
) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT module FROM imports WHERE file_id = ?1 AND start_line <= ?2 AND end_line >= ?2",
    )?;
    let rows = stmt.query_map(params![file_id, line], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A file's line count and module path, by path.
pub(crate) fn file_lines_and_module(
    conn: &Connection,
    path: &str,
) -> Result<Option<(u32, String)>> {
    let mut stmt = conn.prepare_cached("SELECT line_count, module FROM files WHERE path = ?1")?;
    let mut rows = stmt.query(params![path])?;
    Ok(match rows.next()? {
        Some(r) => Some((r.get(0)?, r.get(1)?)),
        None => None,
    })
}

/// A stored file's facts for the types that flow, as `graph::calls::flow_facts`
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
        let class_like = kind
            .as_deref()
            .and_then(crate::evidence::Kind::parse)
            .is_some_and(|k| k.is_class_like());
        if kind.is_none() || class_like || name == "return" || name.contains('.') {
            out.push(format!("{owner}\t{name}\t{value}"));
        }
    }
    // Must match `graph::calls::flow_facts`: definitions other files reach.
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

/// The files that import any of `paths`, directly or through other
/// importers, `paths` themselves left out.
pub(crate) fn importers_closure<'a>(
    conn: &Connection,
    paths: impl Iterator<Item = &'a String>,
) -> Result<Vec<String>> {
    let mut seen: std::collections::HashSet<String> = paths.cloned().collect();
    let mut frontier: Vec<String> = seen.iter().cloned().collect();
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target = ?1",
    )?;
    while let Some(path) = frontier.pop() {
        let importers: Vec<String> = stmt
            .query_map([&path], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for importer in importers {
            if seen.insert(importer.clone()) {
                out.push(importer.clone());
                frontier.push(importer);
            }
        }
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

/// One file's bindings: `(enclosing id, name, stored value)`, in line order.
pub(crate) fn for_each_assignment_in(
    conn: &Connection,
    file_id: i64,
    mut f: impl FnMut(Option<i64>, String, String),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT enclosing_id, name, value FROM assignments WHERE file_id = ?1 ORDER BY line, id",
    )?;
    let mut rows = stmt.query([file_id])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get(1)?, r.get(2)?);
    }
    Ok(())
}
