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

use rusqlite::{params, TransactionBehavior};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::indexer::Progress;
use crate::query::Index;
use crate::snippet::SnippetReader;
use crate::store;

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
}

#[derive(Clone, Default)]
pub struct EmbedOptions {
    /// Chunks per embedder call and per transaction (default 32).
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

struct Pending {
    id: i64,
    path: String,
    kind: String,
    qualified: String,
    start: u32,
    end: u32,
    signature: Option<String>,
    doc: Option<String>,
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
    let (mut conn, created) = store::open_for_write(root)?;
    if created {
        return Err(Error::NoIndex(root.to_path_buf()));
    }
    let config = Config::load(root)?;
    let model = embedder.model().to_string();
    let pending: Vec<Pending> = conn
        .prepare(
            "SELECT c.id, f.path, c.kind, c.qualified_name, c.start_line, c.end_line, s.signature, s.doc
             FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id
             WHERE c.embed_hash IS NULL
                OR NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.embed_hash AND v.model = ?1)
             ORDER BY f.path, c.start_line",
        )?
        .query_map([&model], |r| {
            Ok(Pending {
                id: r.get(0)?,
                path: r.get(1)?,
                kind: r.get(2)?,
                qualified: r.get(3)?,
                start: r.get(4)?,
                end: r.get(5)?,
                signature: r.get(6)?,
                doc: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let progress = options.progress.clone();
    if let Some(p) = &progress {
        p.start(pending.len() as u64);
    }
    let mut reader = SnippetReader::new(root, &config);
    let mut summary = EmbedSummary::default();
    let batch_size = options.batch_size.unwrap_or(32).max(1);
    let mut dimensions: Option<usize> = conn
        .query_row(
            "SELECT length(vector) / 4 FROM vectors WHERE model = ?1 LIMIT 1",
            [&model],
            |r| r.get::<_, i64>(0),
        )
        .ok()
        .map(|n| n as usize);
    for batch in pending.chunks(batch_size) {
        if options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::SeqCst))
        {
            return Err(Error::Interrupted);
        }
        // (chunk id, text hash, text): texts that already have a vector are only linked.
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
        let mut to_embed = Vec::new();
        {
            let mut known =
                tx.prepare_cached("SELECT 1 FROM vectors WHERE hash = ?1 AND model = ?2")?;
            for (i, (_, hash, _)) in items.iter().enumerate() {
                if known.exists(params![hash, model])? {
                    summary.reused += 1;
                } else {
                    to_embed.push(i);
                }
            }
        }
        if !to_embed.is_empty() {
            let texts: Vec<String> = to_embed.iter().map(|&i| items[i].2.clone()).collect();
            let vectors = embedder.embed(&texts).map_err(|error| Error::Embedding {
                message: error.to_string(),
                embedded: summary.embedded,
            })?;
            if vectors.len() != texts.len() {
                return Err(Error::Embedding {
                    message: format!("{} vectors for {} texts", vectors.len(), texts.len()),
                    embedded: summary.embedded,
                });
            }
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO vectors(hash, model, vector) VALUES (?1, ?2, ?3)",
            )?;
            for (&i, vector) in to_embed.iter().zip(&vectors) {
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
                insert.execute(params![items[i].1, model, to_blob(vector)])?;
            }
            summary.embedded += to_embed.len() as u64;
        }
        {
            let mut link = tx.prepare_cached("UPDATE chunks SET embed_hash = ?2 WHERE id = ?1")?;
            for (id, hash, _) in &items {
                link.execute(params![id, hash])?;
            }
        }
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
    summary.with_vectors = conn.query_row(
        "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.embed_hash AND v.model = ?1",
        [&model],
        |r| r.get::<_, i64>(0),
    )? as u64;
    Ok(summary)
}

/// The text a chunk is embedded from; `None` when its file cannot be read.
fn embed_text(reader: &mut SnippetReader<'_>, chunk: &Pending) -> Option<String> {
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

fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

impl Index {
    /// How many chunks have a vector for `model`.
    pub fn vector_count(&self, model: &str) -> Result<u64> {
        let n: i64 = self.connection().query_row(
            "SELECT count(*) FROM chunks c JOIN vectors v ON v.hash = c.embed_hash AND v.model = ?1",
            [model],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The `k` chunks nearest to `query` by cosine similarity (brute force:
    /// a repository's chunks fit in memory), best first.
    pub(crate) fn nearest_chunks(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Vec<(i64, f32)>> {
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let query_norm = norm(query);
        if query_norm == 0.0 {
            return Ok(Vec::new());
        }
        let mut stmt = self.connection().prepare_cached(
            "SELECT c.id, v.vector FROM chunks c JOIN vectors v ON v.hash = c.embed_hash AND v.model = ?1",
        )?;
        let mut rows = stmt.query([model])?;
        let mut scored: Vec<(i64, f32)> = Vec::new();
        while let Some(r) = rows.next()? {
            let vector = from_blob(r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?);
            if vector.len() != query.len() {
                return Err(Error::InvalidArgument(format!(
                    "the query vector has {} dimensions, the stored ones for {model} have {}",
                    query.len(),
                    vector.len()
                )));
            }
            let dot: f32 = vector.iter().zip(query).map(|(a, b)| a * b).sum();
            let n = norm(&vector);
            if n > 0.0 {
                scored.push((r.get(0)?, dot / (n * query_norm)));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
        Ok(scored)
    }
}
