//! The SQLite file: schema, versioning, and opening it for reading or writing.
//!
//! One database per repository at `<repo>/.evident/index.db`, in WAL mode so
//! readers never block on an indexing run.

pub(crate) mod chunks;
pub(crate) mod files;
pub(crate) mod graph;
pub mod parse_cache;
pub(crate) mod reads;
mod scores;
pub(crate) mod vectors;
pub use scores::ScoreCache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::error::{Error, Result};

/// Bump on any change to the tables below *or to what extraction and
/// resolution produce* (queries, qualified-name rules): unchanged files are not
/// re-parsed, so only a version change makes old rows go. Older indexes are
/// refused with advice to rebuild.
pub const SCHEMA_VERSION: u32 = 14;

pub const INDEX_DIR: &str = ".evident";
pub const INDEX_FILE: &str = "index.db";

const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,  -- relative, '/'-separated
    lang          TEXT NOT NULL,
    module        TEXT NOT NULL,         -- prefix of the file's qualified names
    hash          TEXT NOT NULL,         -- git blob id of the content (walk::git)
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    line_count    INTEGER NOT NULL,
    syntax_errors INTEGER NOT NULL,      -- 1 when tree-sitter recovered from errors
    definitions   INTEGER NOT NULL,      -- row counts, so totals need no table scan
    imports       INTEGER NOT NULL,
    calls         INTEGER NOT NULL
);

CREATE TABLE symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL,
    parent_id      INTEGER,              -- enclosing definition in the same file
    kind           TEXT NOT NULL,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    signature      TEXT NOT NULL,
    doc            TEXT,
    bases          TEXT,                 -- base classes, one per line
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    declaration    INTEGER NOT NULL DEFAULT 0  -- 1: declared here, defined where the same qualified name has 0
);

CREATE TABLE imports (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    module     TEXT NOT NULL,
    name       TEXT,                     -- '*' for glob imports
    alias      TEXT,
    binding    TEXT,                     -- the local name it binds; NULL for globs
    target     TEXT                      -- resolved repo path (a file, or a package directory)
);

CREATE TABLE calls (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL,
    line         INTEGER NOT NULL,
    callee       TEXT NOT NULL,
    callee_name  TEXT NOT NULL,          -- last identifier of the callee
    callee_head  TEXT NOT NULL,          -- first identifier of the callee
    enclosing_id INTEGER,                -- innermost enclosing definition
    arguments    TEXT                    -- as written, unit-separated (`encode_arguments`)
);

-- Local variables bound to constructor calls (`x = Cls()`), for `x.m()`.
CREATE TABLE assignments (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL,
    line         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    value        TEXT NOT NULL,
    enclosing_id INTEGER
);

-- The call graph: which definition(s) a call site resolves to.
-- The call's line and enclosing definition are copied from `calls`, so that
-- `callers` and `impact` walk one covering index (`edges_callee`) and read
-- nothing else for the sites they only count.
CREATE TABLE edges (
    call_id    INTEGER NOT NULL,
    file_id    INTEGER NOT NULL,         -- the calling file
    callee_id  INTEGER NOT NULL,         -- symbols.id
    confidence TEXT NOT NULL,            -- exact | inferred | name_only
    line       INTEGER NOT NULL,         -- = calls.line
    caller_id  INTEGER                   -- = calls.enclosing_id (NULL: module level)
);

-- Calls that reach outside the repository: a name imported from a module
-- that is not in it (`os.path.join`, `requests.get`, a method inherited from
-- `unittest.TestCase`), or a builtin (`len`, `console.log`). Named, not dropped:
-- unresolved means that nothing is known.
CREATE TABLE externals (
    call_id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,            -- the calling file
    target  TEXT NOT NULL,               -- the dotted name outside the repository
    kind    TEXT NOT NULL                -- external | builtin
);

-- Calls whose resolution used what a parameter of `function` was given at
-- the calls of that function in the same file (argument flow): when one of
-- those calls is resolved again, so are these.
CREATE TABLE argument_calls (
    call_id  INTEGER NOT NULL,
    file_id  INTEGER NOT NULL,
    function TEXT NOT NULL,              -- the function's name, as calls name it
    PRIMARY KEY (call_id, function)
) WITHOUT ROWID;

CREATE TABLE skipped (
    path   TEXT PRIMARY KEY,
    reason TEXT NOT NULL
) WITHOUT ROWID;

-- Search chunks (see chunk.rs); their text lives only in the full-text index.
CREATE TABLE chunks (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL,
    symbol_id      INTEGER,              -- the definition, for definition chunks
    kind           TEXT NOT NULL,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL
);

-- Vectors by the hash of the text they embed: a chunk whose text did not
-- change finds its vector again after its file is re-indexed. Every vector
-- is stored unit-length and quantised to one signed byte per dimension,
-- after a little-endian f32 scale (`value ≈ byte × scale`): about 260 bytes
-- for 256 dimensions, which fit a page's row (f32s spilled each row to a
-- page of its own and made this the largest table).
CREATE TABLE vectors (
    hash   TEXT NOT NULL,
    model  TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (hash, model)
) WITHOUT ROWID;

-- Each chunk's vector for a model, as in `vectors`.
CREATE TABLE chunk_vectors (
    chunk_id INTEGER NOT NULL,
    model    TEXT NOT NULL,
    vector   BLOB NOT NULL,
    PRIMARY KEY (chunk_id, model)
) WITHOUT ROWID;

-- `chunk_vectors` packed by ranges of chunk ids (id / 128), the rows vector
-- search scans: each entry is the chunk id (little-endian i64) and its
-- `chunk_vectors` blob. Rewritten from `chunk_vectors` whenever that changes.
CREATE TABLE vector_blocks (
    model   TEXT NOT NULL,
    block   INTEGER NOT NULL,
    count   INTEGER NOT NULL,
    vectors BLOB NOT NULL,
    PRIMARY KEY (model, block)
);

-- Contentless: snippets are read from the files, so the text is not stored twice.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    name, signature_doc, body, path,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
";

/// Secondary indexes. A fresh index is bulk-loaded without them and they are
/// built once at the end, which is much cheaper than maintaining them row by row.
const SECONDARY_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS symbols_qualified ON symbols(qualified_name);
CREATE INDEX IF NOT EXISTS symbols_with_bases ON symbols(id) WHERE bases IS NOT NULL;
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS imports_module ON imports(module);
CREATE INDEX IF NOT EXISTS imports_target ON imports(target);
CREATE INDEX IF NOT EXISTS calls_file ON calls(file_id);
CREATE INDEX IF NOT EXISTS calls_callee_name ON calls(callee_name);
CREATE INDEX IF NOT EXISTS assignments_file ON assignments(file_id);
CREATE INDEX IF NOT EXISTS edges_call ON edges(call_id);
CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee_id, file_id, line, caller_id, call_id, confidence);
CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id);
CREATE INDEX IF NOT EXISTS externals_file ON externals(file_id);
CREATE INDEX IF NOT EXISTS argument_calls_file ON argument_calls(file_id, function);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
";

/// Builds the secondary indexes if they are missing (after a bulk load, or
/// after a run that was interrupted before building them).
pub(crate) fn ensure_secondary_indexes(conn: &Connection) -> Result<()> {
    conn.execute_batch(SECONDARY_INDEXES)?;
    Ok(())
}

pub fn index_path(root: &Path) -> PathBuf {
    root.join(INDEX_DIR).join(INDEX_FILE)
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    Ok(())
}

/// Takes the repository's indexing lock (`.evident/lock`), waiting for a run
/// in progress to finish. Released when the returned file is dropped or the
/// process ends, however it ends.
pub fn lock_for_indexing(root: &Path) -> Result<std::fs::File> {
    let dir = root.join(INDEX_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let path = dir.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(file)
}

/// Opens (creating when absent) the index for an indexing run.
/// Returns the connection and whether the database was created now.
pub(crate) fn open_for_write(root: &Path) -> Result<(Connection, bool)> {
    let dir = root.join(INDEX_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let path = index_path(root);
    let conn = Connection::open(&path)?;
    configure(&conn)?;
    let corrupt = |source: rusqlite::Error| Error::Corrupt {
        path: path.clone(),
        source: source.into(),
    };
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(corrupt)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Fewer, larger checkpoints and a bigger page cache for bulk writes.
    conn.pragma_update(None, "wal_autocheckpoint", 8192)?;
    conn.pragma_update(None, "cache_size", -8192)?;
    // IMMEDIATE: two indexers starting together must not both create the schema.
    let tx = rusqlite::Transaction::new_unchecked(&conn, rusqlite::TransactionBehavior::Immediate)
        .map_err(corrupt)?;
    let has_meta: bool = tx
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(corrupt)?
        > 0;
    if !has_meta {
        tx.execute_batch(SCHEMA)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', ?1)",
            params![SCHEMA_VERSION.to_string()],
        )?;
        tx.commit()?;
        return Ok((conn, true));
    }
    tx.commit()?;
    check_version(&conn, &path)?;
    // Queries need them, and a fresh index interrupted mid-load lacks them.
    ensure_secondary_indexes(&conn)?;
    Ok((conn, false))
}

/// Starts the index at `root` as a consistent copy of the index `source`
/// (another worktree's), taken in one read transaction while its indexer
/// may be writing. The copy is written beside the index and renamed into
/// place, so a kill leaves no index rather than part of one.
pub(crate) fn seed_from(root: &Path, source: &Path) -> Result<()> {
    let dir = root.join(INDEX_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let partial = dir.join("seed.partial");
    let _ = std::fs::remove_file(&partial);
    let conn = Connection::open_with_flags(
        source,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    check_version(&conn, source)?;
    conn.execute("VACUUM INTO ?1", [partial.to_string_lossy()])?;
    std::fs::rename(&partial, index_path(root)).map_err(|e| Error::io(&partial, e))
}

/// Opens an existing index read-only.
pub(crate) fn open_for_read(root: &Path) -> Result<Connection> {
    let path = index_path(root);
    if !path.is_file() {
        return Err(Error::NoIndex(path));
    }
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    // A run killed (or still running) before its first commit leaves a
    // database with no tables: that is no index yet, not a damaged one.
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|source| Error::Corrupt {
            path: path.clone(),
            source: source.into(),
        })?;
    if tables == 0 {
        return Err(Error::NoIndex(path));
    }
    check_version(&conn, &path)?;
    Ok(conn)
}

fn check_version(conn: &Connection, path: &Path) -> Result<()> {
    let found: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|source| Error::Corrupt {
            path: path.to_path_buf(),
            source: source.into(),
        })?;
    match found {
        Some(v) if v == SCHEMA_VERSION.to_string() => Ok(()),
        other => Err(Error::SchemaMismatch {
            path: path.to_path_buf(),
            found: other.unwrap_or_else(|| "none".into()),
            expected: SCHEMA_VERSION,
        }),
    }
}

pub(crate) fn meta(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?)
}

pub(crate) fn set_meta(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// Every row of the index as text, with row ids replaced by what they point
/// at, sorted: two indexes of the same files dump identically. Fails when a
/// row belongs to no file or a file's stored counts disagree with its rows,
/// which would mean a half-written file.
pub(crate) fn canonical_dump(conn: &Connection) -> Result<Vec<String>> {
    const QUERIES: [&str; 10] = [
        "SELECT 'file', path, lang, module, hash, size, line_count, syntax_errors,
                definitions, imports, calls FROM files",
        "SELECT 'symbol', f.path, s.kind, s.name, s.qualified_name, s.signature, s.doc,
                s.start_line, s.end_line, p.qualified_name, s.bases, s.declaration
         FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id",
        "SELECT 'import', f.path, i.start_line, i.end_line, i.module, i.name, i.alias, i.binding, i.target
         FROM imports i JOIN files f ON f.id = i.file_id",
        "SELECT 'call', f.path, c.line, c.callee, c.callee_name, c.callee_head, e.qualified_name, c.arguments
         FROM calls c JOIN files f ON f.id = c.file_id LEFT JOIN symbols e ON e.id = c.enclosing_id",
        "SELECT 'argument call', f.path, c.line, c.callee, a.function
         FROM argument_calls a JOIN calls c ON c.id = a.call_id JOIN files f ON f.id = c.file_id",
        "SELECT 'edge', f.path, c.line, c.callee, t.path, s.qualified_name, s.start_line, g.confidence
         FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
         JOIN symbols s ON s.id = g.callee_id JOIN files t ON t.id = s.file_id",
        "SELECT 'external', f.path, c.line, c.callee, x.target, x.kind
         FROM externals x JOIN calls c ON c.id = x.call_id JOIN files f ON f.id = c.file_id",
        "SELECT 'skipped', path, reason FROM skipped",
        "SELECT 'chunk', f.path, c.kind, c.name, c.qualified_name, c.start_line, c.end_line, s.qualified_name
         FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id",
        "SELECT 'assignment', f.path, a.line, a.name, a.value, e.qualified_name
         FROM assignments a JOIN files f ON f.id = a.file_id LEFT JOIN symbols e ON e.id = a.enclosing_id",
    ];
    const CHECKS: [&str; 12] = [
        "SELECT count(*) FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)",
        "SELECT (SELECT count(*) FROM chunk_vectors) - (SELECT coalesce(sum(count), 0) FROM vector_blocks)",
        "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunks_fts)",
        "SELECT count(*) FROM assignments WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM edges WHERE call_id NOT IN (SELECT id FROM calls)",
        "SELECT count(*) FROM edges g JOIN calls c ON c.id = g.call_id
         WHERE g.line != c.line OR g.caller_id IS NOT c.enclosing_id OR g.file_id != c.file_id",
        "SELECT count(*) FROM edges WHERE callee_id NOT IN (SELECT id FROM symbols)",
        "SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM imports WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM calls WHERE file_id NOT IN (SELECT id FROM files)",
        "SELECT count(*) FROM files f WHERE
            definitions != (SELECT count(*) FROM symbols WHERE file_id = f.id)
         OR imports != (SELECT count(*) FROM imports WHERE file_id = f.id)
         OR calls != (SELECT count(*) FROM calls WHERE file_id = f.id)",
    ];
    for check in CHECKS {
        let n: i64 = conn.query_row(check, [], |r| r.get(0))?;
        if n != 0 {
            return Err(Error::InvalidArgument(format!(
                "inconsistent index: {n} rows fail `{check}`"
            )));
        }
    }
    let mut rows = Vec::new();
    for sql in QUERIES {
        let mut stmt = conn.prepare(sql)?;
        let n = stmt.column_count();
        let mapped = stmt.query_map([], |r| {
            let mut fields = Vec::with_capacity(n);
            for i in 0..n {
                fields.push(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    other => format!("{other:?}"),
                });
            }
            Ok(fields.join(" | "))
        })?;
        for row in mapped {
            rows.push(row?);
        }
    }
    rows.extend(full_text_digests(conn)?);
    rows.sort();
    Ok(rows)
}

/// One row per chunk in the full-text index: how many term instances it
/// holds and an order-independent hash of them (term, column, offset). The
/// table is contentless, so its terms are read through `fts5vocab`.
fn full_text_digests(conn: &Connection) -> Result<Vec<String>> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms
         USING fts5vocab(main, chunks_fts, instance)",
    )?;
    let mut per_doc: HashMap<i64, (u64, u64)> = HashMap::new();
    let mut stmt = conn.prepare("SELECT doc, term, col, offset FROM temp.chunks_fts_terms")?;
    let mut instances = stmt.query([])?;
    while let Some(r) = instances.next()? {
        let term = r.get_ref(1)?.as_bytes().unwrap_or_default();
        let col = r.get_ref(2)?.as_str().unwrap_or_default();
        let offset: i64 = r.get(3)?;
        let mut key = Vec::with_capacity(term.len() + col.len() + 10);
        key.extend_from_slice(term);
        key.push(0);
        key.extend_from_slice(col.as_bytes());
        key.extend_from_slice(&offset.to_le_bytes());
        let entry = per_doc.entry(r.get(0)?).or_default();
        entry.0 += 1;
        entry.1 = entry.1.wrapping_add(xxhash_rust::xxh3::xxh3_64(&key));
    }
    let mut chunk = conn.prepare(
        "SELECT f.path, c.kind, c.qualified_name, c.start_line, c.end_line
         FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1",
    )?;
    let mut rows = Vec::with_capacity(per_doc.len());
    for (doc, (count, digest)) in per_doc {
        let row = chunk
            .query_row([doc], |r| {
                Ok(format!(
                    "fts | {} | {} | {} | {} | {} | {count} | {digest:016x}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?
                ))
            })
            .optional()?;
        match row {
            Some(row) => rows.push(row),
            None => {
                return Err(Error::InvalidArgument(format!(
                    "inconsistent index: full-text row {doc} belongs to no chunk"
                )))
            }
        }
    }
    Ok(rows)
}

/// Removes the index files so the next open starts from an empty schema.
pub fn remove_index(root: &Path) -> Result<()> {
    let path = index_path(root);
    for suffix in ["", "-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(file, e)),
        }
    }
    Ok(())
}
