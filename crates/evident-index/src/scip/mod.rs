//! SCIP import: a compiler's index (`index.scip`, written by scip-typescript,
//! scip-python, rust-analyzer, scip-java, ...) merged into the graph.
//!
//! [`sync`] runs at the end of every indexing run: it finds the SCIP file
//! (named with `--scip`, remembered from an earlier run, or `index.scip` at
//! the root), imports it when it is new or changed, and checks each document
//! against its file as it is now ([`check`]): a document whose file changed
//! since is stale and answers nothing until the SCIP file is written again.
//! Fresh documents then decide `def` and call edges first, with confidence
//! `precise` ([`lookup`]); tree-sitter resolution answers wherever SCIP is
//! silent. This module must not resolve anything itself, nor read a path
//! SCIP names that the index does not hold.

mod check;
mod lookup;
mod read;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub(crate) use lookup::{definitions_at, Answer, Calls};

use crate::error::{Error, Result};
use crate::store::scip::{self as rows, Document, SOURCE};
use crate::store::{self, graph as graph_rows};

/// Meta key: the SCIP file's path, size and modification time when it was
/// imported (the file in use is `rows::SOURCE`).
const FINGERPRINT: &str = "scip_fingerprint";

/// The file name looked for at the root when none is named.
pub const DEFAULT_FILE: &str = "index.scip";

/// What a sync changed for call resolution, and what to tell the user.
#[derive(Debug, Default)]
pub(crate) struct Synced {
    /// The SCIP file was imported, replaced or dropped: every call again.
    pub all: bool,
    /// Calls whose SCIP answer may have changed with a document's state.
    pub calls: Vec<i64>,
    /// Documents found stale in this run, with why.
    pub newly_stale: Vec<(String, String)>,
    /// The SCIP file imported in this run, if one was.
    pub imported: Option<PathBuf>,
    /// The SCIP file that was in use and is gone.
    pub dropped: Option<String>,
    /// Why the SCIP file could not be read: the run goes on without it.
    pub unreadable: Option<String>,
}

/// The SCIP file a run uses: `named`, else the one an earlier run used,
/// else `index.scip` at the root when there is one.
pub(crate) fn source(
    conn: &Connection,
    root: &Path,
    named: Option<&Path>,
) -> Result<Option<PathBuf>> {
    if let Some(path) = named {
        let path = root.join(path);
        if !path.is_file() {
            return Err(Error::NoSuchPath(path));
        }
        return Ok(Some(path));
    }
    if let Some(remembered) = store::meta(conn, SOURCE)? {
        return Ok(Some(PathBuf::from(remembered)));
    }
    let default = root.join(DEFAULT_FILE);
    Ok(default.is_file().then_some(default))
}

/// The SCIP file an existing index remembers (kept across `--rebuild`).
pub(crate) fn remembered(conn: &Connection) -> Result<Option<PathBuf>> {
    Ok(store::meta(conn, SOURCE)?.map(PathBuf::from))
}

/// Brings the SCIP rows up to date with the SCIP file and with the files
/// `changed` in this run (written or removed).
pub(crate) fn sync(
    conn: &Connection,
    root: &Path,
    named: Option<&Path>,
    changed: &HashSet<String>,
) -> Result<Synced> {
    let Some(source) = self::source(conn, root, named)? else {
        return Ok(Synced::default());
    };
    let Some(fingerprint) = fingerprint(&source) else {
        // The remembered file is gone: its data goes with it.
        let had = rows::any(conn)?;
        rows::clear(conn)?;
        store::remove_meta(conn, &[SOURCE, FINGERPRINT])?;
        return Ok(Synced {
            all: had,
            dropped: Some(source.to_string_lossy().into_owned()),
            ..Synced::default()
        });
    };
    let indexed: HashSet<String> = graph_rows::all_paths(conn)?.into_iter().collect();
    if store::meta(conn, FINGERPRINT)?.as_deref() != Some(fingerprint.as_str()) {
        let had = rows::any(conn)?;
        rows::clear(conn)?;
        let documents = match read::read_index(&source) {
            Ok(documents) => documents,
            Err(e @ (Error::Scip { .. } | Error::Io { .. })) => {
                // Tried again on the next run (the fingerprint is not kept).
                store::remove_meta(conn, &[FINGERPRINT])?;
                return Ok(Synced {
                    all: had,
                    unreadable: Some(e.to_string()),
                    ..Synced::default()
                });
            }
            Err(e) => return Err(e),
        };
        let mut synced = write_documents(conn, root, &indexed, documents)?;
        store::set_meta(conn, SOURCE, &source.to_string_lossy())?;
        store::set_meta(conn, FINGERPRINT, &fingerprint)?;
        synced.all = true;
        synced.imported = Some(source);
        return Ok(synced);
    }
    // The same SCIP file: check again the documents of the files that changed.
    let mut documents = Vec::new();
    for path in changed {
        if let Some(doc) = rows::document(conn, path)? {
            rows::remove_document(conn, path)?;
            documents.push(doc);
        }
    }
    let paths: Vec<String> = documents.iter().map(|d| d.path.clone()).collect();
    let mut synced = write_documents(conn, root, &indexed, documents)?;
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    synced.calls = rows::calls_reaching(conn, &paths)?;
    Ok(synced)
}

/// Checks and writes `documents`; returns those found stale.
fn write_documents(
    conn: &Connection,
    root: &Path,
    indexed: &HashSet<String>,
    documents: Vec<Document>,
) -> Result<Synced> {
    let mut symbols = rows::symbol_ids(conn)?;
    let mut synced = Synced::default();
    for doc in documents {
        if !indexed.contains(&doc.path) {
            rows::insert_document(conn, &mut symbols, &doc, None, "not_indexed", None)?;
            continue;
        }
        let placed = match std::fs::read_to_string(root.join(&doc.path)) {
            Ok(text) => check::place(&doc, &text),
            Err(e) => Err(format!("the file could not be read as text: {e}")),
        };
        match placed {
            Ok(placed) => {
                rows::insert_document(conn, &mut symbols, &doc, Some(&placed), "fresh", None)?
            }
            Err(why) => {
                rows::insert_document(conn, &mut symbols, &doc, None, "stale", Some(&why))?;
                synced.newly_stale.push((doc.path.clone(), why));
            }
        }
    }
    Ok(synced)
}

/// The SCIP file's path, size and modification time, as the import saw them;
/// `None` when the file is gone.
fn fingerprint(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "{} {} {}",
        path.display(),
        meta.len(),
        modified.as_nanos()
    ))
}
