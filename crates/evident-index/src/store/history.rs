//! The rows of HEAD's recent history (`history_*`): replaced whole when
//! HEAD moves, and searched by message.

use rusqlite::{params, Connection, Transaction};

use crate::error::Result;
use crate::history::PastCommit;

/// The meta key holding the commit the stored history was read at.
const HEAD_KEY: &str = "history_head";

/// The commit the stored history was read at (`None`: none is stored).
pub(crate) fn stored_head(conn: &Connection) -> Result<Option<String>> {
    super::meta(conn, HEAD_KEY)
}

/// Replaces the stored history by `commits`, read at `head` (`None`: the
/// root has no history, and none is kept).
pub(crate) fn replace(tx: &Transaction, head: Option<&str>, commits: &[PastCommit]) -> Result<()> {
    tx.execute_batch(
        "DELETE FROM history_fts; DELETE FROM history_paths; DELETE FROM history_commits;",
    )?;
    let mut commit =
        tx.prepare_cached("INSERT INTO history_commits(id, oid, subject) VALUES (?1, ?2, ?3)")?;
    let mut text = tx.prepare_cached("INSERT INTO history_fts(rowid, message) VALUES (?1, ?2)")?;
    let mut path =
        tx.prepare_cached("INSERT OR IGNORE INTO history_paths(commit_id, path) VALUES (?1, ?2)")?;
    for (id, c) in (1i64..).zip(commits) {
        let subject = c.message.lines().next().unwrap_or_default();
        commit.execute(params![id, c.oid, subject])?;
        text.execute(params![id, c.message])?;
        for p in &c.paths {
            path.execute(params![id, p])?;
        }
    }
    match head {
        Some(head) => super::set_meta(tx, HEAD_KEY, head),
        None => super::remove_meta(tx, &[HEAD_KEY]),
    }
}

/// A past commit whose message matches a query.
#[derive(Debug, Clone)]
pub(crate) struct MatchedCommit {
    pub oid: String,
    pub subject: String,
    /// BM25, higher is better.
    pub score: f64,
    pub paths: Vec<String>,
}

/// The `limit` commits whose messages best match the FTS5 `expression`,
/// best first, each with the paths it changed.
pub(crate) fn matching(
    conn: &Connection,
    expression: &str,
    limit: usize,
) -> Result<Vec<MatchedCommit>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT c.id, c.oid, c.subject, m.rank FROM
           (SELECT rowid, bm25(history_fts) AS rank FROM history_fts
            WHERE history_fts MATCH ?1 ORDER BY rank LIMIT {limit}) m
         JOIN history_commits c ON c.id = m.rowid ORDER BY m.rank"
    ))?;
    let found: Vec<(i64, MatchedCommit)> = stmt
        .query_map([expression], |r| {
            Ok((
                r.get(0)?,
                MatchedCommit {
                    oid: r.get(1)?,
                    subject: r.get(2)?,
                    score: -r.get::<_, f64>(3)?,
                    paths: Vec::new(),
                },
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut paths = conn.prepare_cached("SELECT path FROM history_paths WHERE commit_id = ?1")?;
    let mut out = Vec::with_capacity(found.len());
    for (id, mut commit) in found {
        commit.paths = paths
            .query_map([id], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        out.push(commit);
    }
    Ok(out)
}

/// How much the stored commits changed `path`, the newer the more: each
/// commit that changed it counts `e^(-age / fade)`, where `age` is how many
/// commits came after it (0 for the newest kept).
pub(crate) fn recency(conn: &Connection, path: &str, fade: f64) -> Result<f64> {
    let mut stmt = conn.prepare_cached("SELECT commit_id FROM history_paths WHERE path = ?1")?;
    let ids = stmt.query_map([path], |r| r.get::<_, i64>(0))?;
    let mut total = 0.0;
    for id in ids {
        // Commits are stored newest first, from id 1.
        total += (-((id? - 1) as f64) / fade).exp();
    }
    Ok(total)
}

/// How many commits the stored history holds.
pub(crate) fn commit_count(conn: &Connection) -> Result<u64> {
    let count: i64 = conn.query_row("SELECT count(*) FROM history_commits", [], |r| r.get(0))?;
    Ok(count.max(0) as u64)
}
