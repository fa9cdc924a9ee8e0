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

use crate::config::Config;
use crate::error::{Error, Result};
use crate::store::scip::{self as rows, Document, Placed, SOURCE};
use crate::store::{self, graph as graph_rows};
use crate::walk::sandbox;

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
    if let Some(remembered) = remembered(conn)? {
        return Ok(Some(remembered));
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
    (root, config): (&Path, &Config),
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
    let place = &Placing {
        root,
        config,
        indexed: graph_rows::all_paths(conn)?.into_iter().collect(),
    };
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
        let newly_stale = write_documents(conn, place, documents)?;
        store::set_meta(conn, SOURCE, &source.to_string_lossy())?;
        store::set_meta(conn, FINGERPRINT, &fingerprint)?;
        return Ok(Synced {
            all: true,
            newly_stale,
            imported: Some(source),
            ..Synced::default()
        });
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
    let newly_stale = write_documents(conn, place, documents)?;
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    Ok(Synced {
        calls: rows::calls_reaching(conn, &paths)?,
        newly_stale,
        ..Synced::default()
    })
}

/// Where the run's documents are placed: the indexed files, read through
/// the sandbox like every other reader of file text.
struct Placing<'a> {
    root: &'a Path,
    config: &'a Config,
    indexed: HashSet<String>,
}

impl Placing<'_> {
    /// `None`: the index does not hold the document's file.
    fn place(&self, doc: &Document) -> Option<std::result::Result<Vec<Placed>, String>> {
        if !self.indexed.contains(&doc.path) {
            return None;
        }
        let read = || {
            let file = sandbox::resolve_in_canonical(self.root, &doc.path, &self.config.secrets)
                .map_err(|e| e.to_string())?;
            let bytes = sandbox::read_admitted(&file, &doc.path, self.config.max_file_size)?;
            String::from_utf8(bytes).map_err(|_| "the file is not UTF-8 text".to_string())
        };
        Some(read().and_then(|text| check::place(doc, &text)))
    }
}

/// Checks and writes `documents`; returns those found stale, with why.
fn write_documents(
    conn: &Connection,
    placing: &Placing<'_>,
    documents: Vec<Document>,
) -> Result<Vec<(String, String)>> {
    let mut symbols = rows::symbol_ids(conn)?;
    let mut stale = Vec::new();
    for doc in documents {
        match placing.place(&doc) {
            None => rows::insert_document(conn, &mut symbols, &doc, None, "not_indexed", None)?,
            Some(Ok(placed)) => {
                rows::insert_document(conn, &mut symbols, &doc, Some(&placed), "fresh", None)?
            }
            Some(Err(why)) => {
                rows::insert_document(conn, &mut symbols, &doc, None, "stale", Some(&why))?;
                stale.push((doc.path.clone(), why));
            }
        }
    }
    Ok(stale)
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
