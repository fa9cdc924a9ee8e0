//! The vectors' rows: one vector per (embedding text hash, model), stored as
//! little-endian `f32`s, and each chunk's link to the text it was embedded from.

use rusqlite::{params, Connection, Transaction};

use crate::error::Result;

/// A chunk with no vector for the model yet, and what its embedding text is made of.
pub(crate) struct PendingChunk {
    pub id: i64,
    pub path: String,
    pub kind: String,
    pub qualified: String,
    pub start: u32,
    pub end: u32,
    pub signature: Option<String>,
    pub doc: Option<String>,
}

/// The chunks with no vector for `model`, in path and line order.
pub(crate) fn chunks_without_vector(conn: &Connection, model: &str) -> Result<Vec<PendingChunk>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, f.path, c.kind, c.qualified_name, c.start_line, c.end_line, s.signature, s.doc
         FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id
         WHERE c.embed_hash IS NULL
            OR NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.embed_hash AND v.model = ?1)
         ORDER BY f.path, c.start_line",
    )?;
    let rows = stmt.query_map([model], |r| {
        Ok(PendingChunk {
            id: r.get(0)?,
            path: r.get(1)?,
            kind: r.get(2)?,
            qualified: r.get(3)?,
            start: r.get(4)?,
            end: r.get(5)?,
            signature: r.get(6)?,
            doc: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The dimensions of `model`'s stored vectors, when it has any.
pub(crate) fn dimensions(conn: &Connection, model: &str) -> Option<usize> {
    conn.query_row(
        "SELECT length(vector) / 4 FROM vectors WHERE model = ?1 LIMIT 1",
        [model],
        |r| r.get::<_, i64>(0),
    )
    .ok()
    .map(|n| n as usize)
}

/// Whether the text with this hash already has a vector for `model`.
pub(crate) fn has_vector(tx: &Transaction, hash: &str, model: &str) -> Result<bool> {
    let mut known = tx.prepare_cached("SELECT 1 FROM vectors WHERE hash = ?1 AND model = ?2")?;
    Ok(known.exists(params![hash, model])?)
}

pub(crate) fn insert_vector(
    tx: &Transaction,
    hash: &str,
    model: &str,
    vector: &[f32],
) -> Result<()> {
    let blob: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
    tx.prepare_cached("INSERT OR REPLACE INTO vectors(hash, model, vector) VALUES (?1, ?2, ?3)")?
        .execute(params![hash, model, blob])?;
    Ok(())
}

/// Links a chunk to the text it was embedded from.
pub(crate) fn link_chunk(tx: &Transaction, chunk_id: i64, hash: &str) -> Result<()> {
    tx.prepare_cached("UPDATE chunks SET embed_hash = ?2 WHERE id = ?1")?
        .execute(params![chunk_id, hash])?;
    Ok(())
}

/// How many chunks have a vector for `model`.
pub(crate) fn vector_count(conn: &Connection, model: &str) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.embed_hash AND v.model = ?1",
        [model],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

/// Every chunk with a vector for `model`, with that vector.
pub(crate) fn for_each_vector(
    conn: &Connection,
    model: &str,
    mut f: impl FnMut(i64, Vec<f32>) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, v.vector FROM chunks c JOIN vectors v ON v.hash = c.embed_hash AND v.model = ?1",
    )?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        let vector = blob
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        f(r.get(0)?, vector)?;
    }
    Ok(())
}
