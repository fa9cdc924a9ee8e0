//! What a resolution pass loads: files, definitions, imports and
//! assignments, streamed to the caller's tables without a copy of each row.

use rusqlite::{Connection, OptionalExtension};

use super::rows::{class_like_kinds, ImportRow, SymbolFilter, SymbolRow};
use crate::error::Result;

/// Every file by path: id, path, language name.
pub(crate) fn for_each_file_by_path(
    conn: &Connection,
    mut f: impl FnMut(i64, String, String, String),
) -> Result<()> {
    let mut stmt = conn.prepare("SELECT id, path, lang, module FROM files ORDER BY path")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
    }
    Ok(())
}

pub(crate) fn symbol_count(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT count(*) FROM symbols", [], |r| r.get(0))?;
    Ok(n as usize)
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
        SymbolFilter::BaseNamed(name) => (
            "JOIN files f ON f.id = s.file_id
             WHERE s.id IN (SELECT symbol_id FROM base_names WHERE name = ?1)
             ORDER BY f.path, s.start_line, s.id",
            Some(name.to_string().into()),
        ),
        SymbolFilter::ParentsOfNamed(name) => (
            "WHERE s.id IN (SELECT parent_id FROM symbols
                            WHERE name = ?1 COLLATE NOCASE AND name = ?1)",
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

/// A file's list of the names a glob import of it brings, as stored
/// (`Binding::Names`, written `=...`, at the top level), if it has one.
pub(crate) fn names_list_of(conn: &Connection, file_id: i64) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT value FROM assignments
         WHERE file_id = ?1 AND enclosing_id IS NULL AND substr(value, 1, 1) = '='
         LIMIT 1",
    )?;
    Ok(stmt.query_row([file_id], |r| r.get(0)).optional()?)
}

/// Every file path, for an import resolver outside an indexing run.
pub(crate) fn all_paths(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT path FROM files")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
