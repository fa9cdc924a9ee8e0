//! The rerank score cache, `<repo>/.evident/rerank.db`: a model's relevance
//! score for (query, candidate text hash, model), so asking again costs
//! nothing. A file of its own, so the index can be rebuilt without losing
//! scores and a cache that cannot be opened never blocks a search.

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Result;

pub struct ScoreCache {
    conn: Connection,
}

impl ScoreCache {
    /// Opens (creating when needed) the cache of the repository at `root`.
    pub fn open(root: &Path) -> Result<ScoreCache> {
        let conn = Connection::open(root.join(".evident").join("rerank.db"))?;
        conn.busy_timeout(Duration::from_secs(2))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS scores (
                query TEXT NOT NULL, text_hash TEXT NOT NULL, model TEXT NOT NULL, score REAL NOT NULL,
                PRIMARY KEY (query, text_hash, model)) WITHOUT ROWID;",
        )?;
        Ok(ScoreCache { conn })
    }

    /// The cached score, if any (a read that fails counts as a miss).
    pub fn get(&self, query: &str, text_hash: &str, model: &str) -> Option<f64> {
        self.conn
            .query_row(
                "SELECT score FROM scores WHERE query = ?1 AND text_hash = ?2 AND model = ?3",
                params![query, text_hash, model],
                |r| r.get(0),
            )
            .optional()
            .ok()
            .flatten()
    }

    /// Stores a score; a write that fails only costs the next search time.
    pub fn put(&self, query: &str, text_hash: &str, model: &str, score: f64) {
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO scores VALUES (?1, ?2, ?3, ?4)",
            params![query, text_hash, model, score],
        );
    }
}
