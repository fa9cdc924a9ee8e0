//! Vectors for search chunks, and nearest-neighbour ranking over them.
//!
//! The index knows nothing of models: an [`Embedder`] (an HTTP client, a local
//! model) is handed in. Each chunk is embedded from a short text (kind, name,
//! signature, doc comment, first lines), read from the file at embedding time.
//! Vectors are stored by the hash of that text and the model name, so a chunk
//! whose text did not change keeps its vector when its file is re-indexed:
//! only changed chunks are embedded again. Runs commit batch by batch; a
//! stopped run (Ctrl-C, an embedder that fails) keeps what it finished.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rusqlite::TransactionBehavior;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::indexer::Progress;
use crate::query::Index;
use crate::snippet::SnippetReader;
use crate::store;
use crate::store::vectors::{self as rows, PendingChunk};

/// Lines of a chunk's body that go into its embedding text.
const EMBED_LINES: u32 = 30;
/// The longest embedding text, in bytes (small models read 256 tokens at most).
const EMBED_MAX_BYTES: usize = 1500;

/// Something that turns texts into vectors, one per text, in order.
/// An embedder's failure, whatever its kind (an HTTP client's, a local model's).
pub type EmbedderError = Box<dyn std::error::Error + Send + Sync>;

pub trait Embedder {
    /// The model's name, stored with each vector.
    fn model(&self) -> &str;
    /// One unit vector per text, in order; the implementer's own error passes through.
    fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, EmbedderError>;
    /// Texts per call that suit this embedder when the caller names no
    /// number: a server's request size, or more for one run in-process.
    fn batch_size(&self) -> usize {
        32
    }
}

#[derive(Clone, Default)]
pub struct EmbedOptions {
    /// Chunks per embedder call and per transaction (default: the
    /// embedder's [`Embedder::batch_size`]).
    pub batch_size: Option<usize>,
    pub cancel: Option<Arc<AtomicBool>>,
    pub progress: Option<Arc<dyn Progress>>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EmbedSummary {
    /// Chunks sent to the embedder.
    pub embedded: u64,
    /// Chunks whose text already had a vector for this model.
    pub reused: u64,
    /// Chunks whose file could not be read (changed or removed since indexing).
    pub skipped: u64,
    /// Chunks with a vector for this model after the run.
    pub with_vectors: u64,
}

/// Embeds every chunk of the index at `root` that has no vector for the embedder's model.
pub fn embed_chunks(
    root: &Path,
    embedder: &dyn Embedder,
    options: &EmbedOptions,
) -> Result<EmbedSummary> {
    // Files are read through the sandbox, which compares canonical paths.
    let canonical = root
        .canonicalize()
        .map_err(|e| Error::io(root.to_path_buf(), e))?;
    let root = canonical.as_path();
    let _lock = store::lock_for_indexing(root)?;
    let (mut conn, created) = store::open_for_write(&store::index_path(root))?;
    if created {
        return Err(Error::NoIndex(root.to_path_buf()));
    }
    let config = Config::of_index(root, &conn)?;
    let model = embedder.model().to_string();
    let with_vectors = rows::vector_count(&conn, &model)?;
    // Every chunk has its vector: no need to look for the ones without.
    let pending = if with_vectors >= rows::chunk_count(&conn)? {
        Vec::new()
    } else {
        rows::chunks_without_vector(&conn, &model)?
    };
    let progress = options.progress.clone();
    if let Some(p) = &progress {
        p.start(pending.len() as u64);
    }
    let mut reader = SnippetReader::new(root, &config);
    let mut summary = EmbedSummary::default();
    let batch_size = options
        .batch_size
        .unwrap_or_else(|| embedder.batch_size())
        .max(1);
    let mut dimensions = rows::dimensions(&conn, &model);
    for batch in pending.chunks(batch_size) {
        if options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::SeqCst))
        {
            return Err(Error::Interrupted);
        }
        // (chunk id, text hash, text): a text that already has a vector is not embedded again.
        let mut items = Vec::with_capacity(batch.len());
        for chunk in batch {
            match embed_text(&mut reader, chunk) {
                Some(text) => {
                    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
                    items.push((chunk.id, hash, text));
                }
                None => summary.skipped += 1,
            }
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut vectors: Vec<Option<Vec<u8>>> = Vec::with_capacity(items.len());
        for (_, hash, _) in &items {
            let stored = rows::stored_vector(&tx, hash, &model)?;
            summary.reused += u64::from(stored.is_some());
            vectors.push(stored);
        }
        embed_missing(
            &tx,
            embedder,
            &model,
            &items,
            &mut vectors,
            &mut dimensions,
            &mut summary,
        )?;
        let written: Vec<(i64, Vec<u8>)> = (items.iter().zip(vectors))
            .filter_map(|((id, _, _), vector)| Some((*id, vector?)))
            .collect();
        rows::insert_chunk_vectors(&tx, &model, written)?;
        tx.commit()?;
        if let Some(p) = &progress {
            for chunk in batch {
                p.advance(&chunk.path);
            }
        }
    }
    if let Some(p) = &progress {
        p.finish();
    }
    summary.with_vectors = rows::vector_count(&conn, &model)?;
    Ok(summary)
}

/// Embeds the batch's texts that have no stored vector, checking that
/// every vector has the model's dimensions, and stores them by text hash.
fn embed_missing(
    tx: &rusqlite::Transaction<'_>,
    embedder: &dyn Embedder,
    model: &str,
    items: &[(i64, String, String)],
    vectors: &mut [Option<Vec<u8>>],
    dimensions: &mut Option<usize>,
    summary: &mut EmbedSummary,
) -> Result<()> {
    let to_embed: Vec<usize> = (0..items.len()).filter(|&i| vectors[i].is_none()).collect();
    if to_embed.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> = to_embed.iter().map(|&i| items[i].2.clone()).collect();
    let embedded = embedder.embed(&texts).map_err(|error| Error::Embedding {
        message: error.to_string(),
        embedded: summary.embedded,
    })?;
    if embedded.len() != texts.len() {
        return Err(Error::Embedding {
            message: format!("{} vectors for {} texts", embedded.len(), texts.len()),
            embedded: summary.embedded,
        });
    }
    for (&i, vector) in to_embed.iter().zip(embedded) {
        if *dimensions.get_or_insert(vector.len()) != vector.len() || vector.is_empty() {
            return Err(Error::Embedding {
                message: format!(
                    "model {model} gave a vector of {} dimensions after ones of {}",
                    vector.len(),
                    dimensions.unwrap_or(0)
                ),
                embedded: summary.embedded,
            });
        }
        let quantised = rows::quantise(&vector);
        rows::insert_vector(tx, &items[i].1, model, &quantised)?;
        vectors[i] = Some(quantised);
    }
    summary.embedded += to_embed.len() as u64;
    Ok(())
}

/// The text a chunk is embedded from; `None` when its file cannot be read.
fn embed_text(reader: &mut SnippetReader<'_>, chunk: &PendingChunk) -> Option<String> {
    let end = chunk.end.min(chunk.start + EMBED_LINES - 1);
    let lines = reader
        .snippet(
            &chunk.path,
            chunk.start,
            end,
            crate::snippet::Budget::UNBOUNDED,
        )
        .ok()?;
    let mut text = format!("{} {}\n", chunk.kind, chunk.qualified);
    for part in [&chunk.signature, &chunk.doc].into_iter().flatten() {
        text.push_str(part);
        text.push('\n');
    }
    text.push_str(&lines);
    if text.len() > EMBED_MAX_BYTES {
        let mut cut = EMBED_MAX_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    Some(text)
}

impl Index {
    /// How many chunks have a vector for `model`.
    pub fn vector_count(&self, model: &str) -> Result<u64> {
        rows::vector_count(self.connection(), model)
    }

    /// How many chunks have no vector for `model` yet.
    pub fn vectors_pending(&self, model: &str) -> Result<u64> {
        let chunks = rows::chunk_count(self.connection())?;
        Ok(chunks.saturating_sub(rows::vector_count(self.connection(), model)?))
    }
}

/// The `k` chunks nearest to `query` by cosine similarity (brute force
/// over the quantised vectors), best first. It reads through a
/// connection of its own, so it can run beside a full-text query.
pub(crate) fn nearest_chunks(
    root: &Path,
    model: &str,
    query: &[f32],
    k: usize,
) -> Result<Vec<(i64, f32)>> {
    let Some(query) = QuantisedQuery::new(query) else {
        return Ok(Vec::new());
    };
    let conn = store::open_for_read(root)?;
    let mut scored: Vec<(i64, f32)> = Vec::new();
    rows::for_each_vector(&conn, model, |id, scale, bytes| {
        if bytes.len() != query.bytes.len() {
            return Err(Error::InvalidArgument(format!(
                "the query vector has {} dimensions, the stored ones for {model} have {}",
                query.bytes.len(),
                bytes.len()
            )));
        }
        scored.push((id, query.cosine(scale, bytes)));
        Ok(())
    })?;
    // The best k, then those in order: no need to sort them all.
    if scored.len() > k && k > 0 {
        scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.truncate(k);
    Ok(scored)
}

/// A query vector quantised like the stored ones, so the scan is a byte dot
/// product (which the compiler vectorises).
struct QuantisedQuery {
    scale: f32,
    bytes: Vec<i16>,
}

impl QuantisedQuery {
    /// `None` for the zero vector, which is near nothing.
    fn new(values: &[f32]) -> Option<QuantisedQuery> {
        if values.iter().all(|v| *v == 0.0) {
            return None;
        }
        let stored = rows::quantise(values);
        let (scale, bytes) = stored.split_at(4);
        Some(QuantisedQuery {
            scale: f32::from_le_bytes(scale.try_into().expect("four bytes")),
            bytes: bytes.iter().map(|&b| i16::from(b as i8)).collect(),
        })
    }

    /// The cosine with a stored vector (`bytes × scale`). Both sides were
    /// scaled to unit length before quantising, so it is their dot product.
    fn cosine(&self, scale: f32, bytes: &[u8]) -> f32 {
        dot(bytes, &self.bytes) as f32 * scale * self.scale
    }
}

/// The dot product of stored bytes (`i8` bit patterns) and a quantised query.
fn dot(stored: &[u8], query: &[i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { dot_avx2(stored, query) };
    }
    dot_lanes(stored, query)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_avx2(stored: &[u8], query: &[i16]) -> i32 {
    dot_lanes(stored, query)
}

/// In fixed-width lanes of `i16` products, which the compiler turns into
/// multiply-and-add vector instructions.
#[inline(always)]
fn dot_lanes(stored: &[u8], query: &[i16]) -> i32 {
    const LANES: usize = 16;
    let mut lanes = [0i32; LANES];
    let blocks = stored.chunks_exact(LANES).zip(query.chunks_exact(LANES));
    for (b, q) in blocks {
        for i in 0..LANES {
            lanes[i] += i32::from(i16::from(b[i] as i8) * q[i]);
        }
    }
    let done = stored.len() / LANES * LANES;
    let tail: i32 = stored[done..]
        .iter()
        .zip(&query[done.min(query.len())..])
        .map(|(&b, &q)| i32::from(i16::from(b as i8) * q))
        .sum();
    lanes.iter().sum::<i32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random unit vectors.
    fn vectors(seed: u64, count: usize, dims: usize) -> Vec<Vec<f32>> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        (0..count)
            .map(|_| {
                let v: Vec<f32> = (0..dims).map(|_| next()).collect();
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.into_iter().map(|x| x / n).collect()
            })
            .collect()
    }

    #[test]
    fn quantised_search_keeps_the_exact_nearest_neighbours() {
        let dims = 256;
        let stored = vectors(7, 4000, dims);
        let quantised: Vec<Vec<u8>> = stored.iter().map(|v| rows::quantise(v)).collect();
        // Queries near some stored vectors, as real queries are near their answers.
        let noise = vectors(11, 50, dims);
        let (mut kept, mut total) = (0, 0);
        for (i, n) in noise.iter().enumerate() {
            let query: Vec<f32> = stored[i * 37]
                .iter()
                .zip(n)
                .map(|(a, b)| a + 1.5 * b)
                .collect();
            let exact_norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
            let top = |score: &dyn Fn(usize) -> f32| {
                let scores: Vec<f32> = (0..stored.len()).map(score).collect();
                let mut order: Vec<usize> = (0..stored.len()).collect();
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
                order.truncate(10);
                order
            };
            let exact = top(&|j| {
                stored[j]
                    .iter()
                    .zip(&query)
                    .map(|(a, b)| a * b)
                    .sum::<f32>()
                    / exact_norm
            });
            let q = QuantisedQuery::new(&query).unwrap();
            let approximate = top(&|j| {
                let (scale, bytes) = quantised[j].split_at(4);
                q.cosine(f32::from_le_bytes(scale.try_into().unwrap()), bytes)
            });
            kept += exact.iter().filter(|j| approximate.contains(j)).count();
            total += exact.len();
            let best = stored[exact[0]]
                .iter()
                .zip(&query)
                .map(|(a, b)| a * b)
                .sum::<f32>()
                / exact_norm;
            let (scale, bytes) = quantised[exact[0]].split_at(4);
            let estimate = q.cosine(f32::from_le_bytes(scale.try_into().unwrap()), bytes);
            assert!((best - estimate).abs() < 0.01, "{best} vs {estimate}");
        }
        let recall = kept as f64 / total as f64;
        assert!(recall >= 0.99, "recall@10 {recall}");
        assert!(QuantisedQuery::new(&[0.0; 4]).is_none());
    }
}
