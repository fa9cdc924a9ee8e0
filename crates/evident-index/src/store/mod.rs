//! The SQLite file: schema, versioning, and opening it for reading or writing.
//!
//! One database per repository at `<repo>/.evident/index.db`, in WAL mode so
//! readers never block on an indexing run.

pub(crate) mod chunks;
mod dump;
pub(crate) mod files;
pub(crate) mod graph;
pub(crate) mod history;
mod open;
pub mod parse_cache;
#[cfg(test)]
mod plans;
pub(crate) mod reads;
mod schema;
pub(crate) mod scip;
mod scores;
pub(crate) mod vectors;
pub use scores::ScoreCache;

pub(crate) use dump::canonical_dump;
pub use open::{
    checkpoint_log, index_path, keep_log, lock_for_indexing, mark_damaged, remove_index, LogKeeper,
};
pub(crate) use open::{
    clear_damage_mark, damage_marked, open_for_read, open_for_write, open_index_for_read,
    open_side_file, quick_check, remove_side_file, seed_from, swap_in,
};
pub(crate) use schema::ensure_secondary_indexes;
pub use schema::{INDEX_DIR, INDEX_FILE, SCHEMA_VERSION};

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Result;

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

pub(crate) fn remove_meta(conn: &Connection, keys: &[&str]) -> Result<()> {
    for key in keys {
        conn.execute("DELETE FROM meta WHERE key = ?1", [key])?;
    }
    Ok(())
}
