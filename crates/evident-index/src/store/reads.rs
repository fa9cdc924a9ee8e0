//! The index's reads for queries: definitions by name, import sites, a
//! file's outline, stat data and counts. Rows come back typed; the query
//! modules turn them into Evidence (with snippets read from the files).

use std::collections::{HashMap, HashSet};

use rusqlite::{params, params_from_iter, Connection, OptionalExtension};

use crate::error::Result;

/// `text` with LIKE's wildcards and escape character escaped (for `ESCAPE '\'`).
pub(crate) fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// What [`symbol_matches`] looks for.
pub(crate) struct SymbolFilter<'a> {
    pub name: &'a str,
    /// Only exact name or qualified-name matches.
    pub exact: bool,
    pub kind: Option<&'a str>,
    /// Only in this file or under this directory (repository-relative).
    pub path: Option<&'a str>,
    pub limit: usize,
}

/// A definition that matches a name, and how well.
pub(crate) struct SymbolMatch {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
    /// 0: exact, 1: case-insensitive, 2: qualified-name suffix, 3: exported
    /// under the name asked for, 4: declared by a function's first line
    /// (`search/declared.rs`).
    pub rank: u32,
}

/// The doc comment of the definition named `qualified` that starts at
/// `start` in `path`, when it has one.
pub(crate) fn doc_comment(
    conn: &Connection,
    path: &str,
    qualified: &str,
    start: u32,
) -> Result<Option<String>> {
    let doc = conn
        .query_row(
            "SELECT s.doc FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE f.path = ?1 AND s.qualified_name = ?2 AND s.start_line = ?3",
            params![path, qualified, start],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?;
    Ok(doc.flatten())
}

/// Definitions named like `filter.name`: exact matches first, then
/// case-insensitive ones, then qualified-name suffixes (`Store.open`).
pub(crate) fn symbol_matches(conn: &Connection, filter: &SymbolFilter) -> Result<Vec<SymbolMatch>> {
    let (sql, args) = symbol_matches_sql(filter);
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
        Ok(SymbolMatch {
            path: r.get(0)?,
            start: r.get(1)?,
            end: r.get(2)?,
            kind: r.get(3)?,
            name: r.get(4)?,
            qualified: r.get(5)?,
            rank: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// [`symbol_matches`]'s statement and its arguments. Every branch searches
/// an index: a suffix's candidates are the definitions named its last
/// segment (a qualified name ends in its definition's name).
pub(crate) fn symbol_matches_sql(filter: &SymbolFilter) -> (String, Vec<String>) {
    let mut sql = String::from(
        "SELECT f.path, s.start_line, s.end_line, s.kind, s.name, s.qualified_name,
            CASE WHEN s.name = ?1 OR s.qualified_name = ?1 THEN 0
                 WHEN s.name = ?1 COLLATE NOCASE THEN 1 ELSE 2 END AS rank
         FROM symbols s JOIN files f ON f.id = s.file_id WHERE ",
    );
    let escaped = like_escape(filter.name);
    let mut args: Vec<String> = vec![filter.name.to_string()];
    if filter.exact {
        sql += super::graph::NAMED_OR_QUALIFIED;
    } else {
        args.push(format!("%.{escaped}"));
        args.push(format!("%::{escaped}"));
        args.push(super::graph::last_segment(filter.name).to_string());
        sql += "s.id IN (SELECT id FROM symbols WHERE name = ?1 COLLATE NOCASE
                         UNION ALL SELECT id FROM symbols WHERE qualified_name = ?1
                         UNION ALL SELECT id FROM symbols WHERE name = ?4 COLLATE NOCASE
                           AND (qualified_name LIKE ?2 ESCAPE '\\' OR qualified_name LIKE ?3 ESCAPE '\\'))";
    }
    if let Some(kind) = filter.kind {
        args.push(kind.to_string());
        sql += &format!(" AND s.kind = ?{}", args.len());
    }
    if let Some(rel) = filter.path {
        args.push(rel.to_string());
        args.push(format!("{}/%", like_escape(rel)));
        sql += &format!(
            " AND (f.path = ?{} OR f.path LIKE ?{} ESCAPE '\\')",
            args.len() - 1,
            args.len()
        );
    }
    sql += &format!(
        " ORDER BY rank, f.path, s.start_line LIMIT {}",
        filter.limit
    );
    (sql, args)
}

/// The qualified name of the innermost definition enclosing lines `start..=end` of `rel`.
pub(crate) fn enclosing_definition(
    conn: &Connection,
    rel: &str,
    start: u32,
    end: u32,
) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.path = ?1 AND s.start_line <= ?2 AND s.end_line >= ?3
         ORDER BY s.start_line DESC, s.end_line ASC LIMIT 1",
    )?;
    let mut rows = stmt.query(params![rel, start, end])?;
    Ok(match rows.next()? {
        Some(r) => Some(r.get(0)?),
        None => None,
    })
}

/// One imported name at an import site.
pub(crate) struct ImportBinding {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub target: Option<String>,
}

/// [`import_bindings`]' statement. Each way an import names the module is
/// its own index search, joined by `UNION ALL`: one `OR` over them made
/// SQLite read every import (a second and more on the Linux kernel).
/// `?1` the module, `?2` its repository path, `?3`/`?4` suffix patterns, `?5`
/// the module's prefixes (what `module.name` may split into).
pub(crate) const IMPORT_BINDINGS: &str = "
    WITH targets AS (
        -- Files the module names: by path, by module path, or by module-path suffix.
        SELECT path FROM files
        WHERE path = ?2 OR module = ?1 OR module LIKE ?3 ESCAPE '\\' OR module LIKE ?4 ESCAPE '\\'
        UNION SELECT ?2
    )
    SELECT f.path, i.start_line, i.end_line, i.module, i.name, i.alias, i.target
    FROM imports i JOIN files f ON f.id = i.file_id
    WHERE i.id IN (
        SELECT id FROM imports WHERE target IN (SELECT path FROM targets)
        UNION ALL SELECT id FROM imports WHERE module = ?1
        -- `from a.b import C` for `a.b.C`.
        UNION ALL SELECT id FROM imports
        WHERE module IN (SELECT value FROM json_each(?5)) AND name IS NOT NULL AND name != '*'
          AND (module || '.' || name = ?1 OR module || '::' || name = ?1)
        -- Every name of the package a file belongs to (`import a.b.*`,
        -- `using A.B;`), from a file of its language, wherever it lies.
        UNION ALL SELECT g.id FROM files t JOIN imports g ON g.module = t.module
        JOIN files gf ON gf.id = g.file_id
        WHERE t.path = ?2 AND t.module != '' AND g.name = '*' AND gf.lang = t.lang
    )
    ORDER BY f.path, i.start_line, i.name";

/// Every way `module` splits into a module and a name after it (`a` and
/// `a.b` for `a.b.C`), at any language's separator.
fn module_prefixes(module: &str) -> Vec<&str> {
    let mut prefixes: Vec<&str> = crate::lang::qualified_separators()
        .into_iter()
        .flat_map(|sep| module.match_indices(sep).map(|(i, _)| &module[..i]))
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    prefixes
}

/// Every import of `module` (a module path, or the repository path `as_path`):
/// by resolved target, by module text, or by `module.name`, in file order.
pub(crate) fn import_bindings(
    conn: &Connection,
    module: &str,
    as_path: &str,
) -> Result<Vec<ImportBinding>> {
    let escaped = like_escape(module);
    let mut stmt = conn.prepare(IMPORT_BINDINGS)?;
    let args = params![
        module,
        as_path,
        format!("%.{escaped}"),
        format!("%::{escaped}"),
        serde_json::to_string(&module_prefixes(module)).unwrap_or_else(|_| "[]".into()),
    ];
    let rows = stmt.query_map(args, |r| {
        Ok(ImportBinding {
            path: r.get(0)?,
            start: r.get(1)?,
            end: r.get(2)?,
            module: r.get(3)?,
            name: r.get(4)?,
            alias: r.get(5)?,
            target: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The id of an indexed file.
pub(crate) fn file_id(conn: &Connection, rel: &str) -> Option<i64> {
    conn.query_row("SELECT id FROM files WHERE path = ?1", [rel], |r| r.get(0))
        .ok()
}

/// One definition of a file's outline.
pub(crate) struct OutlineRow {
    pub id: i64,
    pub parent: Option<i64>,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
    pub signature: String,
}

/// A file's definitions in source order (parents before their children).
pub(crate) fn outline(conn: &Connection, file_id: i64) -> Result<Vec<OutlineRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, parent_id, start_line, end_line, kind, name, qualified_name, signature
         FROM symbols WHERE file_id = ?1 ORDER BY start_line, end_line DESC, id",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok(OutlineRow {
            id: r.get(0)?,
            parent: r.get(1)?,
            start: r.get(2)?,
            end: r.get(3)?,
            kind: r.get(4)?,
            name: r.get(5)?,
            qualified: r.get(6)?,
            signature: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every indexed file's stored `(size, mtime_ns)`, by path.
pub(crate) fn file_stats(conn: &Connection) -> Result<HashMap<String, (i64, i64)>> {
    let mut stmt = conn.prepare_cached("SELECT path, size, mtime_ns FROM files")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The paths the last run skipped.
pub(crate) fn skipped_paths(conn: &Connection) -> Result<HashSet<String>> {
    let mut stmt = conn.prepare_cached("SELECT path FROM skipped")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Files per language, most first.
pub(crate) fn files_by_language(conn: &Connection) -> Result<Vec<(String, u64)>> {
    let mut stmt = conn
        .prepare("SELECT lang, count(*) FROM files GROUP BY lang ORDER BY count(*) DESC, lang")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The index's row counts, for `status`.
pub(crate) struct Counts {
    pub definitions: u64,
    pub imports: u64,
    pub resolved_imports: u64,
    pub calls: u64,
    pub resolved_calls: u64,
    pub external_calls: u64,
    pub builtin_calls: u64,
    pub syntax_errors: u64,
}

pub(crate) fn counts(conn: &Connection) -> Result<Counts> {
    let count =
        |sql: &str| -> Result<u64> { Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
    Ok(Counts {
        definitions: count("SELECT count(*) FROM symbols")?,
        imports: count("SELECT count(*) FROM imports")?,
        resolved_imports: count("SELECT count(*) FROM imports WHERE target IS NOT NULL")?,
        calls: count("SELECT count(*) FROM calls")?,
        resolved_calls: count("SELECT count(DISTINCT call_id) FROM edges")?,
        external_calls: count("SELECT count(*) FROM externals WHERE kind = 'external'")?,
        builtin_calls: count("SELECT count(*) FROM externals WHERE kind = 'builtin'")?,
        syntax_errors: count("SELECT count(*) FROM files WHERE syntax_errors = 1")?,
    })
}

/// SQLite's own check of the file, then that every stored vector belongs
/// to a chunk: `Ok` when whole.
pub(crate) fn integrity_check(conn: &Connection) -> Result<()> {
    let verdict: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if verdict != "ok" {
        return Err(crate::error::Error::InvalidArgument(format!(
            "PRAGMA integrity_check: {verdict}"
        )));
    }
    super::vectors::check_no_stray_vectors(conn)
}
