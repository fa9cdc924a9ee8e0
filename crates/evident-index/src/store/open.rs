//! Opening the database file: for a run (creating it), for queries (also on
//! read-only media), a side file that a rebuild fills while readers keep the
//! old index, the swap that puts it in place, and the damage check.

use std::path::{Path, PathBuf};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};

use super::schema::{ensure_secondary_indexes, INDEX_DIR, INDEX_FILE, SCHEMA, SCHEMA_VERSION};
use crate::error::{DbError, Error, Result};

/// Where a rebuild writes before its result replaces the index.
const SIDE_FILE: &str = "rebuild.db";

/// Left by a reader that met a damaged page, for the next run to act on.
const DAMAGE_MARK: &str = "damaged";

pub fn index_path(root: &Path) -> PathBuf {
    root.join(INDEX_DIR).join(INDEX_FILE)
}

fn side_path(root: &Path) -> PathBuf {
    root.join(INDEX_DIR).join(SIDE_FILE)
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // A run resolving calls cycles through more statements than the default
    // 16, and one evicted is parsed again at each use.
    conn.set_prepared_statement_cache_capacity(128);
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    Ok(())
}

fn corrupt(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Corrupt {
        path: path.to_path_buf(),
        source: source.into(),
    }
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

/// Opens (creating when absent) the index file at `path` for an indexing
/// run. Returns the connection and whether the database was created now.
pub(crate) fn open_for_write(path: &Path) -> Result<(Connection, bool)> {
    if path.is_dir() {
        return Err(Error::IndexIsDirectory(path.to_path_buf()));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let conn = Connection::open(path)?;
    configure(&conn)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(corrupt(path))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Fewer, larger checkpoints and a bigger page cache for bulk writes.
    conn.pragma_update(None, "wal_autocheckpoint", 8192)?;
    conn.pragma_update(None, "cache_size", -8192)?;
    let created = create_schema_if_absent(&conn, path)?;
    if !created {
        check_version(&conn, path)?;
        // Queries need them, and a fresh index interrupted mid-load lacks them.
        ensure_secondary_indexes(&conn)?;
    }
    Ok((conn, created))
}

/// Creates the tables when the file has none. IMMEDIATE: two indexers
/// starting together must not both create the schema.
fn create_schema_if_absent(conn: &Connection, path: &Path) -> Result<bool> {
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)
        .map_err(corrupt(path))?;
    let has_meta: bool = tx
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(corrupt(path))?
        > 0;
    if !has_meta {
        let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables > 0 {
            // Tables but no `meta`: not a file this program made whole.
            return Err(Error::Corrupt {
                path: path.to_path_buf(),
                source: DbError::message("its `meta` table is missing"),
            });
        }
        tx.execute_batch(SCHEMA)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', ?1)",
            params![SCHEMA_VERSION.to_string()],
        )?;
    }
    tx.commit()?;
    Ok(!has_meta)
}

/// A new, empty index in the side file, for a rebuild. Nothing reads it
/// until [`swap_in`], so it is written without a journal on disk or syncs.
pub(crate) fn open_side_file(root: &Path) -> Result<Connection> {
    let path = side_path(root);
    remove_with_journals(&path)?;
    let conn = Connection::open(&path)?;
    configure(&conn)?;
    conn.pragma_update(None, "journal_mode", "MEMORY")?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    conn.pragma_update(None, "cache_size", -65536)?;
    create_schema_if_absent(&conn, &path)?;
    Ok(conn)
}

/// Removes what a rebuild that was killed left (the run lock is held, so
/// no rebuild is writing it).
pub(crate) fn remove_side_file(root: &Path) -> Result<()> {
    remove_with_journals(&side_path(root))
}

/// Puts the finished side file in place of the index. A sound index takes
/// the side file's pages in one write transaction (SQLite's backup), so a
/// reader sees the old index until it commits and the new one after, and
/// connections held open (MCP, `serve`) stay valid. An index that is absent,
/// or too damaged to write to, is replaced by renaming.
pub(crate) fn swap_in(root: &Path, side: Connection) -> Result<()> {
    let live = index_path(root);
    let side_file = side_path(root);
    let copied = live.is_file() && copy_pages(&side, &live).is_ok();
    drop(side);
    if copied {
        return remove_with_journals(&side_file);
    }
    remove_with_journals(&live)?;
    std::fs::rename(&side_file, &live).map_err(|e| Error::io(&side_file, e))?;
    // Readers expect WAL: it is what lets them read during the next run.
    let conn = Connection::open(&live)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    Ok(())
}

fn copy_pages(side: &Connection, live: &Path) -> Result<()> {
    let mut dest = Connection::open(live)?;
    configure(&dest)?;
    dest.pragma_update(None, "journal_mode", "WAL")?;
    {
        let backup = Backup::new(side, &mut dest)?;
        // All pages in one step: one transaction, never a half-copied index.
        match backup.step(-1)? {
            StepResult::Done => {}
            _ => return Err(Error::Db(DbError::message("the index stayed busy"))),
        }
    }
    // Best effort: readers may hold the log; the next checkpoint takes it.
    let _ = dest.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    Ok(())
}

/// Whether SQLite's page-level check finds the file whole. Reads every
/// page of every table and index (about a second per GB), so it runs where
/// a user asks (`status`) and where a run has its own reasons to suspect
/// the file. Table by table: over the whole file, SQLite (3.44 and later)
/// also re-derives each full-text index from its documents, which took a
/// minute on the Linux kernel's index. The tables' own check (the shadow
/// tables included) still reads every page; what it skips is FTS5's pass
/// over its segments' contents, whose damage a query still meets.
pub(crate) fn quick_check(conn: &Connection) -> Result<()> {
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema
             WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut damage = Vec::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("PRAGMA quick_check(\"{table}\")"))?;
        let verdicts = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for verdict in verdicts {
            let verdict = verdict?;
            if verdict != "ok" && damage.len() < 3 {
                damage.push(verdict);
            }
        }
    }
    if damage.is_empty() {
        return Ok(());
    }
    Err(Error::Damaged(DbError::message(&damage.join("; "))))
}

/// Records that a reader found the index at `root` damaged, so that the next
/// run checks it and builds it again. Best effort: on a read-only medium
/// there is nowhere to record it, and nothing can be rebuilt there either.
pub fn mark_damaged(root: &Path) {
    let _ = std::fs::write(root.join(INDEX_DIR).join(DAMAGE_MARK), b"");
}

pub(crate) fn damage_marked(root: &Path) -> bool {
    root.join(INDEX_DIR).join(DAMAGE_MARK).exists()
}

pub(crate) fn clear_damage_mark(root: &Path) {
    let _ = std::fs::remove_file(root.join(INDEX_DIR).join(DAMAGE_MARK));
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

/// An index opened for queries.
pub(crate) struct Opened {
    pub conn: Connection,
    /// The file sits where SQLite cannot keep its shared-memory file (a
    /// read-only mount): it is read as it is, and no run can refresh it.
    pub read_only_medium: bool,
}

/// Opens an existing index read-only.
pub(crate) fn open_for_read(root: &Path) -> Result<Connection> {
    Ok(open_index_for_read(root)?.conn)
}

/// Opens an existing index read-only, on a read-only medium too.
pub(crate) fn open_index_for_read(root: &Path) -> Result<Opened> {
    let path = index_path(root);
    if path.is_dir() {
        return Err(Error::IndexIsDirectory(path));
    }
    if !path.is_file() {
        return Err(Error::NoIndex(path));
    }
    match open_checked(&path, false) {
        Ok(conn) => Ok(Opened {
            conn,
            read_only_medium: false,
        }),
        // A WAL database can be read without its `-shm` file only as an
        // immutable file, which is exact when the log holds nothing.
        Err(Opening::CannotOpen(first)) if !log_has_frames(&path) => {
            match open_checked(&path, true) {
                Ok(conn) => Ok(Opened {
                    conn,
                    read_only_medium: true,
                }),
                Err(_) => Err(Error::Corrupt {
                    path,
                    source: first.into(),
                }),
            }
        }
        Err(Opening::CannotOpen(e)) => Err(Error::ReadOnlyWithLog {
            path,
            source: e.into(),
        }),
        Err(Opening::Failed(e)) => Err(e),
    }
}

enum Opening {
    /// SQLite could not open the file or its journals for reading.
    CannotOpen(rusqlite::Error),
    Failed(Error),
}

fn open_checked(path: &Path, immutable: bool) -> Result<Connection, Opening> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let opened = if immutable {
        let uri = format!("file:{}?immutable=1", uri_path(path));
        Connection::open_with_flags(uri, flags)
    } else {
        Connection::open_with_flags(path, flags - OpenFlags::SQLITE_OPEN_URI)
    };
    let conn = opened.map_err(|e| Opening::Failed(corrupt(path)(e)))?;
    configure(&conn).map_err(|e| Opening::Failed(e.into()))?;
    // One read transaction for the connection's life: every statement of a
    // query sees the same committed state. Without it, a query's second
    // statement could read the index a rebuild swapped in after its first
    // (other row ids: "no rows"). Connections for queries are short-lived
    // (one command, one tool call, one request), so the snapshot is too.
    conn.execute_batch("BEGIN DEFERRED")
        .map_err(|e| Opening::Failed(e.into()))?;
    // A run killed (or still running) before its first commit leaves a
    // database with no tables: that is no index yet, not a damaged one.
    let tables: i64 = match conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)) {
        Ok(n) => n,
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::CannotOpen) => {
            return Err(Opening::CannotOpen(e))
        }
        Err(e) => return Err(Opening::Failed(corrupt(path)(e))),
    };
    if tables == 0 {
        return Err(Opening::Failed(Error::NoIndex(path.to_path_buf())));
    }
    check_version(&conn, path).map_err(Opening::Failed)?;
    Ok(conn)
}

/// A path as a `file:` URI's path: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

fn log_has_frames(path: &Path) -> bool {
    let log = PathBuf::from(format!("{}-wal", path.display()));
    std::fs::metadata(log).is_ok_and(|m| m.len() > 0)
}

fn check_version(conn: &Connection, path: &Path) -> Result<()> {
    let found: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(corrupt(path))?;
    match found {
        Some(v) if v == SCHEMA_VERSION.to_string() => Ok(()),
        other => Err(Error::SchemaMismatch {
            path: path.to_path_buf(),
            found: other.unwrap_or_else(|| "none".into()),
            expected: SCHEMA_VERSION,
        }),
    }
}

/// Removes the index files so the next open starts from an empty schema.
pub fn remove_index(root: &Path) -> Result<()> {
    remove_with_journals(&index_path(root))
}

fn remove_with_journals(path: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(file, e)),
        }
    }
    Ok(())
}

/// Keeps the index's write-ahead log between the runs of a resident
/// process. While it is open, a run's connection is not the last one to
/// close, so closing does not copy the log into the database file (every
/// page the run wrote, and an fsync, on the way to the answer);
/// [`checkpoint_log`] makes that copy when nothing waits for it.
pub struct LogKeeper {
    _conn: Connection,
}

/// A [`LogKeeper`] for the index at `root`, which must exist. Read-write,
/// so that when it closes last (the daemon stops) it copies the log and
/// removes it, as any run's end did.
pub fn keep_log(root: &Path) -> Result<LogKeeper> {
    let conn = open_existing(root)?;
    // A connection joins the log (and holds it open) at its first read.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
    Ok(LogKeeper { _conn: conn })
}

/// Copies what the write-ahead log holds into the database file, as far as
/// no reader still needs the log (SQLite's passive checkpoint).
pub fn checkpoint_log(root: &Path) -> Result<()> {
    let conn = open_existing(root)?;
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
    Ok(())
}

/// The index at `root`, read-write, never created.
fn open_existing(root: &Path) -> Result<Connection> {
    let path = index_path(root);
    if !path.is_file() {
        return Err(Error::NoIndex(path));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&path, flags)?;
    configure(&conn)?;
    Ok(conn)
}
