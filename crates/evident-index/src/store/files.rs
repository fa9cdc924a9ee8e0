//! The rows of indexed files: what an indexing run reads back to compare
//! (stat data, skips, stored imports) and writes (a file's definitions,
//! imports, assignments, calls and chunks, all in the caller's transaction).

use std::collections::HashMap;

use rusqlite::{params, Connection, Transaction};

use crate::error::Result;
use crate::lang::extract::{last_identifier, FileFacts};
use crate::lang::imports::DeclaredPackages;
use crate::search::chunk::{self, Chunk};
use crate::walk::Skipped;

/// What the index holds about a file's content, to compare with the disk.
pub(crate) struct StoredFile {
    pub id: i64,
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// A file to write: its identity and stat data, and what extraction found.
pub(crate) struct NewFile<'a> {
    pub rel: &'a str,
    pub lang: &'a str,
    pub hash: &'a str,
    pub size: u64,
    pub mtime_ns: i64,
    pub facts: &'a FileFacts,
    /// Each import's resolved target, in `facts.imports` order.
    pub targets: &'a [Option<String>],
    pub chunks: &'a [Chunk],
}

/// A stored import, to resolve again when the file set changes.
pub(crate) struct StoredImport {
    pub id: i64,
    pub path: String,
    pub lang: String,
    pub module: String,
    pub name: Option<String>,
    pub target: Option<String>,
}

/// Index-wide totals, from the per-file counts (no scan of the big tables).
pub(crate) struct Totals {
    pub files: u64,
    pub definitions: u64,
    pub imports: u64,
    pub calls: u64,
    pub syntax_errors: u64,
}

/// Every indexed file by path.
pub(crate) fn stored_files(conn: &Connection) -> Result<HashMap<String, StoredFile>> {
    let mut stmt = conn.prepare("SELECT id, path, hash, size, mtime_ns FROM files")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(1)?,
            StoredFile {
                id: r.get(0)?,
                hash: r.get(2)?,
                size: r.get::<_, i64>(3)? as u64,
                mtime_ns: r.get(4)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The languages the index holds.
pub(crate) fn stored_languages(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT DISTINCT lang FROM files")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every indexed file's path and language, by path.
pub(crate) fn paths_and_languages(conn: &Connection) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare("SELECT path, lang FROM files ORDER BY path")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The packages the indexed files declare where their directories do not
/// spell them (of the languages whose files belong to a declared package).
pub(crate) fn declared_packages(conn: &Connection) -> Result<DeclaredPackages> {
    let languages: Vec<&str> = crate::lang::LANGUAGES
        .iter()
        .filter(|l| l.package_by_declaration)
        .map(|l| l.name)
        .collect();
    let marks = vec!["?"; languages.len()].join(", ");
    let sql = format!("SELECT path, lang, module FROM files WHERE lang IN ({marks})");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(&languages), |r| {
        Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?))
    })?;
    let rows: Vec<(String, String, String)> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(DeclaredPackages::from_rows(rows))
}

/// The files skipped by the last run, by path.
pub(crate) fn skipped(conn: &Connection) -> Result<Vec<Skipped>> {
    let mut stmt = conn.prepare("SELECT path, reason FROM skipped ORDER BY path")?;
    let rows = stmt.query_map([], |r| {
        Ok(Skipped {
            rel: r.get(0)?,
            reason: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Forgets every recorded skip.
pub(crate) fn clear_skipped(tx: &Transaction) -> Result<()> {
    tx.execute("DELETE FROM skipped", [])?;
    Ok(())
}

pub(crate) fn insert_skipped(tx: &Transaction, s: &Skipped) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO skipped(path, reason) VALUES (?1, ?2)
         ON CONFLICT(path) DO UPDATE SET reason = excluded.reason",
    )?
    .execute(params![s.rel, s.reason])?;
    Ok(())
}

/// New stat data for a file whose content did not change.
pub(crate) fn touch_file(tx: &Transaction, id: i64, size: u64, mtime_ns: i64) -> Result<()> {
    tx.prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1")?
        .execute(params![id, size as i64, mtime_ns])?;
    Ok(())
}

/// Removes a file and all its rows.
pub(crate) fn delete_file(tx: &Transaction, id: i64) -> Result<()> {
    delete_rows(tx, id)?;
    tx.execute("DELETE FROM files WHERE id = ?1", [id])?;
    Ok(())
}

/// Writes one file's rows (replacing the old ones of `existing`), in the caller's transaction.
pub(crate) fn write_file(tx: &Transaction, p: &NewFile, existing: Option<i64>) -> Result<()> {
    let facts = p.facts;
    let mut ids = match existing {
        Some(id) => SymbolIds::kept_from(tx, id, facts)?,
        None => SymbolIds::default(),
    };
    let file_id = file_row(tx, p, existing)?;
    let symbol_ids = insert_symbols(tx, file_id, facts, &mut ids)?;
    insert_imports(tx, file_id, p)?;
    insert_assignments(tx, file_id, facts, &symbol_ids)?;
    insert_calls(tx, file_id, facts, &symbol_ids)?;
    insert_chunks(tx, file_id, p, &symbol_ids)
}

/// The file's own row, updated in place (its old rows deleted) or new; its id.
fn file_row(tx: &Transaction, p: &NewFile, existing: Option<i64>) -> Result<i64> {
    let facts = p.facts;
    let counts = (
        facts.definitions.len() as i64,
        facts.imports.len() as i64,
        facts.calls.len() as i64,
    );
    let Some(id) = existing else {
        tx.prepare_cached(
            "INSERT INTO files(path, lang, module, hash, size, mtime_ns, line_count, syntax_errors,
                               definitions, imports, calls)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            p.rel,
            p.lang,
            facts.module,
            p.hash,
            p.size as i64,
            p.mtime_ns,
            facts.line_count,
            facts.has_syntax_errors,
            counts.0,
            counts.1,
            counts.2
        ])?;
        return Ok(tx.last_insert_rowid());
    };
    delete_rows(tx, id)?;
    tx.prepare_cached(
        "UPDATE files SET lang = ?2, module = ?3, hash = ?4, size = ?5, mtime_ns = ?6,
         line_count = ?7, syntax_errors = ?8, definitions = ?9, imports = ?10, calls = ?11
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        p.lang,
        facts.module,
        p.hash,
        p.size as i64,
        p.mtime_ns,
        facts.line_count,
        facts.has_syntax_errors,
        counts.0,
        counts.1,
        counts.2
    ])?;
    Ok(id)
}

/// The definitions' rows, parents first; their row ids, in order.
fn insert_symbols(
    tx: &Transaction,
    file_id: i64,
    facts: &FileFacts,
    ids: &mut SymbolIds,
) -> Result<Vec<i64>> {
    let mut symbol_ids: Vec<i64> = Vec::with_capacity(facts.definitions.len());
    let mut insert = tx.prepare_cached(
        "INSERT INTO symbols(file_id, parent_id, kind, name, qualified_name, signature, doc, bases,
                                 start_line, end_line, declaration, id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for d in &facts.definitions {
        // Parents precede children in source order, so their ids exist.
        let parent = d.parent.map(|i| symbol_ids[i]);
        let id = ids.next(&d.qualified_name, d.kind.as_str());
        insert.execute(params![
            file_id,
            parent,
            d.kind.as_str(),
            d.name,
            d.qualified_name,
            d.signature,
            d.doc,
            (!d.bases.is_empty()).then(|| d.bases.join("\n")),
            d.start_line,
            d.end_line,
            d.declaration,
            id
        ])?;
        symbol_ids.push(tx.last_insert_rowid());
    }
    insert_base_names(tx, file_id, facts, &symbol_ids)?;
    Ok(symbol_ids)
}

/// Each class's bases by last identifier, once per class and name.
fn insert_base_names(
    tx: &Transaction,
    file_id: i64,
    facts: &FileFacts,
    symbol_ids: &[i64],
) -> Result<()> {
    let mut insert =
        tx.prepare_cached("INSERT INTO base_names(name, symbol_id, file_id) VALUES (?1, ?2, ?3)")?;
    for (d, id) in facts.definitions.iter().zip(symbol_ids) {
        let mut names: Vec<&str> = d.bases.iter().map(|b| last_identifier(b)).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            insert.execute(params![name, id, file_id])?;
        }
    }
    Ok(())
}

/// The imports' rows, each with its resolved target.
fn insert_imports(tx: &Transaction, file_id: i64, p: &NewFile) -> Result<()> {
    let facts = p.facts;
    let mut insert = tx.prepare_cached(
        "INSERT INTO imports(file_id, start_line, end_line, module, name, alias, binding, target)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (i, target) in facts.imports.iter().zip(p.targets) {
        insert.execute(params![
            file_id,
            i.start_line,
            i.end_line,
            i.module,
            i.name,
            i.alias,
            i.binding,
            target
        ])?;
    }
    Ok(())
}

/// The bindings' rows.
fn insert_assignments(
    tx: &Transaction,
    file_id: i64,
    facts: &FileFacts,
    symbol_ids: &[i64],
) -> Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO assignments(file_id, line, name, value, enclosing_id) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for a in &facts.assignments {
        insert.execute(params![
            file_id,
            a.line,
            a.name,
            a.value,
            a.enclosing.map(|i| symbol_ids[i])
        ])?;
    }
    Ok(())
}

/// The call sites' rows.
fn insert_calls(
    tx: &Transaction,
    file_id: i64,
    facts: &FileFacts,
    symbol_ids: &[i64],
) -> Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO calls(file_id, line, callee, callee_name, callee_head, enclosing_id, arguments)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for c in &facts.calls {
        insert.execute(params![
            file_id,
            c.line,
            c.callee,
            c.callee_name,
            c.callee_head,
            c.enclosing.map(|i| symbol_ids[i]),
            crate::lang::extract::encode_arguments(&c.arguments)
        ])?;
    }
    Ok(())
}

/// The search chunks' rows and their full-text entries.
fn insert_chunks(tx: &Transaction, file_id: i64, p: &NewFile, symbol_ids: &[i64]) -> Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO chunks(file_id, symbol_id, kind, name, qualified_name, start_line, end_line)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut insert_text = tx.prepare_cached(
            "INSERT INTO chunks_fts(rowid, name, signature_doc, body, path) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
    let path_text = chunk::code_terms(&p.rel.replace(['/', '.', '-'], " "));
    insert_file_text(tx, file_id, p, &path_text)?;
    for c in p.chunks {
        insert.execute(params![
            file_id,
            c.definition.map(|i| symbol_ids[i]),
            c.kind.as_str(),
            c.name,
            c.qualified_name,
            c.start_line,
            c.end_line
        ])?;
        let id = tx.last_insert_rowid();
        insert_text.execute(params![id, c.name_text, c.signature_doc, c.body, path_text])?;
    }
    Ok(())
}

/// The file's text as one full-text document: its chunks' text (already
/// with code terms), every file a row, so the table counts as `files` does.
fn insert_file_text(tx: &Transaction, file_id: i64, p: &NewFile, path_text: &str) -> Result<()> {
    let mut text = String::new();
    for c in p.chunks {
        for part in [&c.signature_doc, &c.body] {
            text.push_str(part);
            text.push('\n');
        }
    }
    tx.prepare_cached("INSERT INTO files_fts(rowid, path, text) VALUES (?1, ?2, ?3)")?
        .execute(params![file_id, path_text, text])?;
    Ok(())
}

/// The ids a rewritten file's definitions get. One that keeps its qualified
/// name and kind keeps its id, so the edges into it from other files stay
/// as they are (an edit of the file that defines `kmalloc` would otherwise
/// rewrite thousands of callers' edges). A key that occurs more than once,
/// before or now, gets new ids, in source order; new ids come after every
/// id in use, so none meets a kept one. A new file's ids are SQLite's.
#[derive(Default)]
struct SymbolIds {
    kept: HashMap<(String, String), i64>,
    next_new: Option<i64>,
}

impl SymbolIds {
    fn kept_from(tx: &Transaction, file_id: i64, facts: &FileFacts) -> Result<SymbolIds> {
        let mut new_keys: HashMap<(&str, &str), usize> = HashMap::new();
        for d in &facts.definitions {
            *new_keys
                .entry((d.qualified_name.as_str(), d.kind.as_str()))
                .or_default() += 1;
        }
        let mut old: HashMap<(String, String), Option<i64>> = HashMap::new();
        for (id, name, kind) in super::graph::definition_keys(tx, file_id)? {
            old.entry((name, kind))
                .and_modify(|e| *e = None)
                .or_insert(Some(id));
        }
        let kept = old
            .into_iter()
            .filter_map(|(key, id)| Some((key, id?)))
            .filter(|((name, kind), _)| new_keys.get(&(name.as_str(), kind.as_str())) == Some(&1))
            .collect();
        let max: i64 =
            tx.query_row("SELECT coalesce(max(id), 0) FROM symbols", [], |r| r.get(0))?;
        Ok(SymbolIds {
            kept,
            next_new: Some(max + 1),
        })
    }

    /// The id for the next definition, `None` for SQLite's choice.
    fn next(&mut self, qualified_name: &str, kind: &str) -> Option<i64> {
        let next_new = self.next_new.as_mut()?;
        if let Some(id) = self
            .kept
            .get(&(qualified_name.to_string(), kind.to_string()))
        {
            return Some(*id);
        }
        *next_new += 1;
        Some(*next_new - 1)
    }
}

/// Removes a file's rows from every table but `files`.
fn delete_rows(tx: &Transaction, file_id: i64) -> Result<()> {
    let chunk_ids: Vec<i64> = tx
        .prepare_cached("SELECT id FROM chunks WHERE file_id = ?1")?
        .query_map([file_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    super::vectors::forget_chunks(tx, &chunk_ids)?;
    for sql in [
        "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?1)",
        "DELETE FROM files_fts WHERE rowid = ?1",
        "DELETE FROM chunks WHERE file_id = ?1",
        "DELETE FROM symbols WHERE file_id = ?1",
        "DELETE FROM base_names WHERE file_id = ?1",
        "DELETE FROM imports WHERE file_id = ?1",
        "DELETE FROM calls WHERE file_id = ?1",
        "DELETE FROM edges WHERE file_id = ?1",
        "DELETE FROM externals WHERE file_id = ?1",
        "DELETE FROM argument_calls WHERE file_id = ?1",
        "DELETE FROM assignments WHERE file_id = ?1",
    ] {
        tx.prepare_cached(sql)?.execute([file_id])?;
    }
    Ok(())
}

/// Every stored import, with its file.
pub(crate) fn stored_imports(tx: &Transaction) -> Result<Vec<StoredImport>> {
    let mut stmt = tx.prepare(
        "SELECT i.id, f.path, f.lang, i.module, i.name, i.target
         FROM imports i JOIN files f ON f.id = i.file_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(StoredImport {
            id: r.get(0)?,
            path: r.get(1)?,
            lang: r.get(2)?,
            module: r.get(3)?,
            name: r.get(4)?,
            target: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A new target for a stored import.
pub(crate) fn set_import_target(tx: &Transaction, id: i64, target: Option<&str>) -> Result<()> {
    tx.prepare_cached("UPDATE imports SET target = ?2 WHERE id = ?1")?
        .execute(params![id, target])?;
    Ok(())
}

pub(crate) fn totals(conn: &Connection) -> Result<Totals> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(sum(definitions), 0), coalesce(sum(imports), 0),
                coalesce(sum(calls), 0), coalesce(sum(syntax_errors), 0) FROM files",
        [],
        |r| {
            Ok(Totals {
                files: r.get::<_, i64>(0)? as u64,
                definitions: r.get::<_, i64>(1)? as u64,
                imports: r.get::<_, i64>(2)? as u64,
                calls: r.get::<_, i64>(3)? as u64,
                syntax_errors: r.get::<_, i64>(4)? as u64,
            })
        },
    )?)
}
