//! Reads for `def`: what a line calls, which definitions a scope sees,
//! what an import binds.

use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{CallOnLine, InScope};
use crate::error::Result;
use crate::lang::extract::Binding;
use crate::lang::syntax;

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

/// The definitions named `name` in a file that are at module level or
/// children of a definition enclosing `line`, innermost scope first. A
/// method outside any class (`res.send = function send() {}`, a Go
/// method, `Foo.prototype.hi`) is its owner's, not the file's by bare name,
/// as the call graph's table has it.
pub(crate) fn definitions_in_scope(
    conn: &Connection,
    file_id: i64,
    name: &str,
    line: u32,
) -> Result<Vec<InScope>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, coalesce(p.start_line, 0), p.kind, s.start_line, s.end_line, s.signature,
                s.kind
         FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
         WHERE s.file_id = ?1 AND s.name = ?2
           AND (s.parent_id IS NULL AND s.kind != 'method'
                OR (p.start_line <= ?3 AND p.end_line >= ?3))
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
            kind: r.get(6)?,
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
/// `export * from`) and module-level aliases (`module.exports = Layer`, what
/// `default` names) up to a few files deep. On an import's own lines the
/// imported name counts too (`flatten` in `import {flatten as fl}`).
pub(crate) fn definitions_imported_as(
    conn: &Connection,
    file_id: i64,
    binding: &str,
    line: u32,
) -> Result<Vec<i64>> {
    let frontier: Vec<(String, String)> = conn
        .prepare_cached(
            "SELECT i.target, i.name FROM imports i
             WHERE i.file_id = ?1 AND i.target IS NOT NULL AND i.name IS NOT NULL
               AND (i.binding = ?2 OR (i.name = ?2 AND ?3 BETWEEN i.start_line AND i.end_line))",
        )?
        .query_map(params![file_id, binding, line], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    follow_exports(conn, frontier)
}

/// Top-level definitions named `name` that a glob import of the file
/// brings in, when no import names it.
pub(crate) fn definitions_globbed(conn: &Connection, file_id: i64, name: &str) -> Result<Vec<i64>> {
    // A glob import that binds no name of its own (`from m import *`,
    // `use m::*`) brings in whatever its module defines or exports, as
    // call resolution reads it. A later glob rebinds what an earlier one
    // bound, so the last module that has the name wins.
    let globbed: Vec<String> = conn
        .prepare_cached(
            "SELECT i.target FROM imports i
             WHERE i.file_id = ?1 AND i.target IS NOT NULL AND i.name = '*' AND i.binding IS NULL
             ORDER BY i.start_line DESC",
        )?
        .query_map(params![file_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for target in globbed {
        if !glob_of_brings(conn, &target, name)? {
            continue;
        }
        let ids = follow_exports(conn, vec![(target, name.to_string())])?;
        if !ids.is_empty() {
            return Ok(ids);
        }
    }
    Ok(Vec::new())
}

/// Whether a glob import of the module at `path` brings `name` (its
/// `__all__`, see `lang::extract::glob_brings`).
fn glob_of_brings(conn: &Connection, path: &str, name: &str) -> Result<bool> {
    glob_of_brings_any(conn, path, std::iter::once(name))
}

/// Whether a glob import of the module at `path` brings any of `names`.
pub(super) fn glob_of_brings_any<'n>(
    conn: &Connection,
    path: &str,
    mut names: impl Iterator<Item = &'n str>,
) -> Result<bool> {
    let file: Option<(i64, String)> = conn
        .prepare_cached("SELECT id, lang FROM files WHERE path = ?1")?
        .query_row([path], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((file, lang)) = file else {
        return Ok(true);
    };
    let list = super::symbols::names_list_of(conn, file)?;
    let leaves_private = crate::lang::by_name(&lang).is_some_and(|l| l.glob_leaves_private);
    Ok(names.any(|name| crate::lang::extract::glob_brings(list.as_deref(), name, leaves_private)))
}

/// The top-level definitions the module at `path` defines or exports as
/// `name` (`Client` of `httpx/__init__.py` is `httpx/_client.py`'s), through
/// the same re-exports and aliases as [`definitions_imported_as`].
pub(crate) fn definitions_exported_as(
    conn: &Connection,
    path: &str,
    name: &str,
) -> Result<Vec<i64>> {
    follow_exports(conn, vec![(path.to_string(), name.to_string())])
}

/// `(module path, name)` pairs followed to the definitions they stand for,
/// a few modules deep: a top-level definition of the name, else the
/// module's own import or alias of it.
fn follow_exports(conn: &Connection, mut frontier: Vec<(String, String)>) -> Result<Vec<i64>> {
    let mut top = conn.prepare_cached(
        "SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.path = ?1 AND s.parent_id IS NULL AND s.name = ?2",
    )?;
    let mut aliases = conn.prepare_cached(
        "SELECT a.value FROM assignments a JOIN files f ON f.id = a.file_id
         WHERE f.path = ?1 AND a.name = ?2 AND a.enclosing_id IS NULL",
    )?;
    let mut onward = conn.prepare_cached(
        "SELECT i.target, coalesce(nullif(i.name, '*'), ?2), i.name = '*'
         FROM imports i JOIN files f ON f.id = i.file_id
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
                let more: Vec<(String, String, bool)> = onward
                    .query_map(params![target, name], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                for (onto, as_name, glob) in more {
                    if !glob || glob_of_brings(conn, &onto, &as_name)? {
                        next.push((onto, as_name));
                    }
                }
                for value in aliases.query_map(params![target, name], |r| r.get::<_, String>(0))? {
                    let value = value?;
                    if let (Binding::Alias, alias) = Binding::decode(&value) {
                        if syntax::is_identifier(alias) {
                            next.push((target.clone(), alias.to_string()));
                        }
                    }
                }
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
    // `from pkg import name` names a module only when the target is that
    // module's file. A `default` that names no definition (`const u =
    // require('./u')` of a module that only fills `exports.x`) is the module.
    let names_module = name.is_none_or(|name| {
        let last = module.rsplit(['.', ':', '/']).next().unwrap_or(&module);
        last == name || name == "default"
    });
    names_module.then_some((path, module, lines))
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

/// How far above a keyword argument the call that passes it may start.
const MAX_CALL_SPAN: u32 = 40;

/// The definitions the nearest call at or above `line` resolves to (not by
/// name only), when that call passes `name` by keyword (`f(name=...)`);
/// `None` when no call near `line` passes it.
pub(crate) fn keyword_call_targets(
    conn: &Connection,
    file_id: i64,
    line: u32,
    name: &str,
) -> Result<Option<Vec<i64>>> {
    let mut calls = conn.prepare_cached(
        "SELECT c.id, c.arguments FROM calls c
         WHERE c.file_id = ?1 AND c.line BETWEEN ?2 AND ?3 AND c.arguments IS NOT NULL
         ORDER BY c.line DESC",
    )?;
    let passes = |arguments: &str| {
        crate::lang::extract::decode_arguments(arguments)
            .any(|a| a.split_once('=').is_some_and(|(key, _)| key.trim() == name))
    };
    let near: Vec<(i64, String)> = calls
        .query_map(
            params![file_id, line.saturating_sub(MAX_CALL_SPAN), line],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .collect::<rusqlite::Result<_>>()?;
    let call = near.into_iter().find(|(_, arguments)| passes(arguments));
    let Some((call_id, _)) = call else {
        return Ok(None);
    };
    let targets = conn
        .prepare_cached(
            "SELECT callee_id FROM edges WHERE call_id = ?1 AND confidence != 'name_only'",
        )?
        .query_map([call_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(targets))
}

/// Top-level definitions named `name` in files of language `lang` that
/// import nothing, with their paths: the candidates for a script's global
/// (whether a file is a script is the language's rule, read from its text).
pub(crate) fn unimported_top_level(
    conn: &Connection,
    lang: &str,
    name: &str,
) -> Result<Vec<(i64, String)>> {
    let found = conn
        .prepare_cached(
            "SELECT s.id, f.path FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.name = ?1 AND s.parent_id IS NULL AND f.lang = ?2 AND f.imports = 0
             ORDER BY s.id",
        )?
        .query_map(params![name, lang], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(found)
}
