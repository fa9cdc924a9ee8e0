//! The vectors' rows: one vector per (embedding text hash, model), stored as
//! little-endian `f32`s, so an unchanged text is never embedded twice; and
//! each chunk's vector again, quantised, in the table vector search scans
//! (`chunk_vectors`).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

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
         WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id AND v.model = ?1)
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

/// The vector `model` gave the text with this hash, when it has one.
pub(crate) fn stored_vector(tx: &Transaction, hash: &str, model: &str) -> Result<Option<Vec<f32>>> {
    let blob: Option<Vec<u8>> = tx
        .prepare_cached("SELECT vector FROM vectors WHERE hash = ?1 AND model = ?2")?
        .query_row(params![hash, model], |r| r.get(0))
        .optional()?;
    Ok(blob.map(|blob| {
        blob.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }))
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

/// Gives a chunk its vector for `model` in the table search scans.
pub(crate) fn insert_chunk_vector(
    tx: &Transaction,
    chunk_id: i64,
    model: &str,
    vector: &[f32],
) -> Result<()> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO chunk_vectors(chunk_id, model, vector) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![chunk_id, model, quantise(vector)])?;
    Ok(())
}

/// A vector scaled to unit length, as one signed byte per dimension and the
/// scale that maps them back (`value ≈ byte × scale`), the scale first as a
/// little-endian `f32`.
pub(crate) fn quantise(values: &[f32]) -> Vec<u8> {
    let length = values.iter().map(|v| v * v).sum::<f32>().sqrt();
    let unit: Vec<f32> = if length > 0.0 {
        values.iter().map(|v| v / length).collect()
    } else {
        values.to_vec()
    };
    let values = &unit;
    let largest = values.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    let mut out = Vec::with_capacity(4 + values.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend(values.iter().map(|v| (v / scale).round() as i8 as u8));
    out
}

/// How many chunks have a vector for `model`.
pub(crate) fn vector_count(conn: &Connection, model: &str) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM chunk_vectors WHERE model = ?1",
        [model],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

/// Every chunk with a vector for `model`: its id, its scale and its bytes
/// (each an `i8` as its `u8` bit pattern).
pub(crate) fn for_each_vector(
    conn: &Connection,
    model: &str,
    mut f: impl FnMut(i64, f32, &[u8]) -> Result<()>,
) -> Result<()> {
    let mut stmt =
        conn.prepare_cached("SELECT chunk_id, vector FROM chunk_vectors WHERE model = ?1")?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        let Some((scale, bytes)) = blob.split_first_chunk::<4>() else {
            continue;
        };
        f(r.get(0)?, f32::from_le_bytes(*scale), bytes)?;
    }
    Ok(())
}
