//! The vectors' rows: one vector per (embedding text hash, model), so an
//! unchanged text is never embedded twice; and each chunk's vector, packed
//! by ranges of chunk ids into blocks (`vector_blocks`), the table vector
//! search scans: a few hundred rows to step through instead of one per
//! chunk. A block is the only place a chunk's vector is kept.
//!
//! The invariant: a block holds vectors of chunks that exist, each in the
//! block of its id ([`check_no_stray_vectors`]). A chunk's
//! rows go with [`forget_chunks`]; vectors come with [`insert_chunk_vectors`].

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

/// The chunks with no vector for `model`, in path and line order. Only the
/// blocks of ids holding fewer vectors than chunks are looked into: after a
/// one-file edit that is one or two blocks, not every chunk.
pub(crate) fn chunks_without_vector(conn: &Connection, model: &str) -> Result<Vec<PendingChunk>> {
    let short: Vec<i64> = conn
        .prepare(&format!(
            "SELECT p.block FROM (SELECT id / {BLOCK_CHUNKS} AS block, count(*) AS n
                                  FROM chunks GROUP BY block) p
             LEFT JOIN vector_blocks b ON b.model = ?1 AND b.block = p.block
             WHERE coalesce(b.count, 0) < p.n"
        ))?
        .query_map([model], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, f.path, c.kind, c.qualified_name, c.start_line, c.end_line, s.signature, s.doc
         FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id
         WHERE c.id BETWEEN ?1 AND ?2",
    )?;
    let mut out = Vec::new();
    for block in short {
        let first = block * BLOCK_CHUNKS;
        let held = read_block(conn, model, block)?;
        let rows = stmt.query_map(params![first, first + BLOCK_CHUNKS - 1], |r| {
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
        for row in rows {
            let row = row?;
            if !held.contains_key(&row.id) {
                out.push(row);
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.start).cmp(&(&b.path, b.start)));
    Ok(out)
}

/// The dimensions of `model`'s stored vectors, when it has any.
pub(crate) fn dimensions(conn: &Connection, model: &str) -> Option<usize> {
    conn.query_row(
        "SELECT length(vector) - 4 FROM vectors WHERE model = ?1 LIMIT 1",
        [model],
        |r| r.get::<_, i64>(0),
    )
    .ok()
    .map(|n| n.max(0) as usize)
}

/// The quantised vector `model` gave the text with this hash, when it has one.
pub(crate) fn stored_vector(tx: &Transaction, hash: &str, model: &str) -> Result<Option<Vec<u8>>> {
    Ok(tx
        .prepare_cached("SELECT vector FROM vectors WHERE hash = ?1 AND model = ?2")?
        .query_row(params![hash, model], |r| r.get(0))
        .optional()?)
}

/// Keeps a text's quantised vector ([`quantise`]) by the text's hash.
pub(crate) fn insert_vector(
    tx: &Transaction,
    hash: &str,
    model: &str,
    quantised: &[u8],
) -> Result<()> {
    tx.prepare_cached("INSERT OR REPLACE INTO vectors(hash, model, vector) VALUES (?1, ?2, ?3)")?
        .execute(params![hash, model, quantised])?;
    Ok(())
}

/// Chunk ids per block: a block is rewritten whole when one of its vectors
/// changes, and a scan steps through one row per block.
const BLOCK_CHUNKS: i64 = 128;

/// One block's entries: each chunk id with its quantised vector, by id.
type Entries = std::collections::BTreeMap<i64, Vec<u8>>;

fn block_of(chunk_id: i64) -> i64 {
    chunk_id.div_euclid(BLOCK_CHUNKS)
}

/// The entries of `model`'s block `block` (none when it has no row).
fn read_block(conn: &Connection, model: &str, block: i64) -> Result<Entries> {
    let mut stmt = conn.prepare_cached(
        "SELECT count, vectors FROM vector_blocks WHERE model = ?1 AND block = ?2",
    )?;
    let mut entries = Entries::new();
    let mut rows = stmt.query(params![model, block])?;
    if let Some(r) = rows.next()? {
        let count = r.get::<_, i64>(0)?.max(0) as usize;
        let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        for_each_entry(model, count, blob, |id, entry| {
            entries.insert(id, entry.to_vec());
            Ok(())
        })?;
    }
    Ok(entries)
}

/// Writes `model`'s block `block` as `entries`, or drops it when they are none.
fn write_block(tx: &Transaction, model: &str, block: i64, entries: &Entries) -> Result<()> {
    if entries.is_empty() {
        tx.prepare_cached("DELETE FROM vector_blocks WHERE model = ?1 AND block = ?2")?
            .execute(params![model, block])?;
        return Ok(());
    }
    let mut packed = Vec::with_capacity(entries.values().map(|v| v.len() + 8).sum());
    for (id, vector) in entries {
        packed.extend_from_slice(&id.to_le_bytes());
        packed.extend_from_slice(vector);
    }
    tx.prepare_cached(
        "INSERT OR REPLACE INTO vector_blocks(model, block, count, vectors) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![model, block, entries.len() as i64, packed])?;
    Ok(())
}

/// Gives chunks their quantised vectors for `model`, replacing any they had.
pub(crate) fn insert_chunk_vectors(
    tx: &Transaction,
    model: &str,
    vectors: Vec<(i64, Vec<u8>)>,
) -> Result<()> {
    let mut by_block: std::collections::BTreeMap<i64, Vec<(i64, Vec<u8>)>> = Default::default();
    for entry in vectors {
        by_block.entry(block_of(entry.0)).or_default().push(entry);
    }
    for (block, new) in by_block {
        let mut entries = read_block(tx, model, block)?;
        entries.extend(new);
        write_block(tx, model, block, &entries)?;
    }
    Ok(())
}

/// Takes the vectors of `chunk_ids` (chunks about to go) out of every
/// model's blocks.
pub(crate) fn forget_chunks(tx: &Transaction, chunk_ids: &[i64]) -> Result<()> {
    let blocks: std::collections::BTreeSet<i64> =
        chunk_ids.iter().map(|id| block_of(*id)).collect();
    if blocks.is_empty() {
        return Ok(());
    }
    let gone: std::collections::HashSet<i64> = chunk_ids.iter().copied().collect();
    let models: Vec<String> = tx
        .prepare_cached("SELECT DISTINCT model FROM vector_blocks")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for model in &models {
        for &block in &blocks {
            let mut entries = read_block(tx, model, block)?;
            let before = entries.len();
            entries.retain(|id, _| !gone.contains(id));
            if entries.len() != before {
                write_block(tx, model, block, &entries)?;
            }
        }
    }
    Ok(())
}

/// How every vector is stored: a vector scaled to unit length, as one signed byte per dimension and the
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

/// How many chunks there are (every chunk's vector rows belong to a chunk:
/// the integrity check's invariant).
pub(crate) fn chunk_count(conn: &Connection) -> Result<u64> {
    let n: i64 = conn.query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?;
    Ok(n as u64)
}

/// How many chunks have a vector for `model`.
pub(crate) fn vector_count(conn: &Connection, model: &str) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT coalesce(sum(count), 0) FROM vector_blocks WHERE model = ?1",
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
        conn.prepare_cached("SELECT count, vectors FROM vector_blocks WHERE model = ?1")?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        let count = r.get::<_, i64>(0)?.max(0) as usize;
        let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        for_each_entry(model, count, blob, |id, vector| {
            let (scale, bytes) = vector.split_at(4);
            f(
                id,
                f32::from_le_bytes(scale.try_into().expect("4 bytes")),
                bytes,
            )
        })?;
    }
    Ok(())
}

/// Each entry of a block's blob: the chunk id and its quantised vector.
/// Entries of one model are alike in size: the id, the scale, the bytes.
fn for_each_entry(
    model: &str,
    count: usize,
    blob: &[u8],
    mut f: impl FnMut(i64, &[u8]) -> Result<()>,
) -> Result<()> {
    let entry = blob.len() / count.max(1);
    if entry < 12 || entry * count != blob.len() {
        return Err(crate::error::Error::InvalidArgument(format!(
            "inconsistent index: a vector block of {model} holds {} bytes for {count} vectors",
            blob.len()
        )));
    }
    for e in blob.chunks_exact(entry) {
        let (id, vector) = e.split_at(8);
        f(i64::from_le_bytes(id.try_into().expect("8 bytes")), vector)?;
    }
    Ok(())
}

/// Fails when a stored vector belongs to no chunk or sits in another
/// chunk's block ([`stray_vectors`]): the integrity check's rule.
pub(crate) fn check_no_stray_vectors(conn: &Connection) -> Result<()> {
    match stray_vectors(conn)? {
        0 => Ok(()),
        n => Err(crate::error::Error::InvalidArgument(format!(
            "inconsistent index: {n} stored vectors belong to no chunk, or sit in another chunk's block"
        ))),
    }
}

/// Every block entry of every model whose chunk is not in `chunks`, or that
/// sits in another chunk's block: the integrity check's count, which must be 0.
fn stray_vectors(conn: &Connection) -> Result<u64> {
    let chunks: std::collections::HashSet<i64> = conn
        .prepare("SELECT id FROM chunks")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare("SELECT model, block, count, vectors FROM vector_blocks")?;
    let mut rows = stmt.query([])?;
    let mut stray = 0;
    while let Some(r) = rows.next()? {
        let (model, block): (String, i64) = (r.get(0)?, r.get(1)?);
        let count = r.get::<_, i64>(2)?.max(0) as usize;
        let blob = r.get_ref(3)?.as_blob().map_err(rusqlite::Error::from)?;
        for_each_entry(&model, count, blob, |id, _| {
            stray += u64::from(!chunks.contains(&id) || block_of(id) != block);
            Ok(())
        })?;
    }
    Ok(stray)
}
