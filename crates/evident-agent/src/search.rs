//! The one search service. The CLI's `evident search`, the agent's
//! `search_code` and MCP's `search_code` all run a query through
//! [`SearchService::search`], so the same query gets the same answer
//! whoever asks: the query's embedding (when an embedder is configured and
//! the chunks have vectors for it), the fall back to BM25 with a note saying
//! why, and the optional rerank by a chat model with its score cache.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use evident_index::{Embedder, Evidence, Index, QueryVector, SearchMode, SearchQuery};

use crate::rerank::{rerank, RerankOutcome, Reranker};

/// An embedder usable from parallel tool calls.
pub type SharedEmbedder = Box<dyn Embedder + Send>;

/// The search service's embedder, for a background job that embeds new chunks
/// (MCP after each refresh). It takes the embedder's lock per batch, so
/// queries keep being embedded between batches.
#[derive(Clone)]
pub struct EmbedderHandle {
    embedder: Arc<Mutex<SharedEmbedder>>,
    model: String,
}

impl Embedder for EmbedderHandle {
    fn model(&self) -> &str {
        &self.model
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, evident_index::EmbedderError> {
        let embedder = self
            .embedder
            .lock()
            .map_err(|_| "the embedder failed earlier".to_string())?;
        embedder.embed(texts)
    }
    fn batch_size(&self) -> usize {
        self.embedder.lock().map_or(32, |e| e.batch_size())
    }
}

/// The results, what the caller should be told about how they were found,
/// and how long the steps took (for `EVIDENT_PROFILE`).
#[derive(Debug, Default)]
pub struct SearchAnswer {
    pub results: Vec<Evidence>,
    pub notes: Vec<String>,
    pub timings: Vec<(&'static str, Duration)>,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// `--mode vector` with no way to embed the query or no vectors to compare.
    #[error("vector search: {0}")]
    NoVectors(String),
    #[error(transparent)]
    Index(#[from] evident_index::Error),
}

/// Embedding and reranking as configured, shared by every caller.
pub struct SearchService {
    /// The query embedder, or why there is none.
    embedder: Result<Arc<Mutex<SharedEmbedder>>, String>,
    reranker: Option<Reranker>,
}

/// What every door says when search cannot use vectors, and why.
pub fn bm25_only(why: &str) -> String {
    format!("{why}, so hybrid search ranks by BM25 only")
}

impl SearchService {
    /// Full text only; `why` says why there is no embedder (for the notes).
    pub fn without_embedder(why: impl Into<String>) -> SearchService {
        SearchService {
            embedder: Err(why.into()),
            reranker: None,
        }
    }

    pub fn with_embedder(embedder: SharedEmbedder) -> SearchService {
        SearchService {
            embedder: Ok(Arc::new(Mutex::new(embedder))),
            reranker: None,
        }
    }

    /// Reranks the fused top results with a chat model.
    pub fn with_reranker(mut self, reranker: Reranker) -> SearchService {
        self.reranker = Some(reranker);
        self
    }

    /// The embedder, shared, for embedding chunks in the background.
    pub fn embedder_handle(&self) -> Option<EmbedderHandle> {
        let embedder = self.embedder.as_ref().ok()?;
        let model = embedder.lock().ok()?.model().to_string();
        Some(EmbedderHandle {
            embedder: embedder.clone(),
            model,
        })
    }

    /// Whether an embedder is configured (whether hybrid search can be asked for).
    pub fn has_embedder(&self) -> bool {
        self.embedder.is_ok()
    }

    /// Runs `request` over `index` (the repository at `root`).
    pub fn search(
        &self,
        root: &Path,
        index: &Index,
        request: &SearchQuery,
    ) -> Result<SearchAnswer, SearchError> {
        let mut answer = SearchAnswer::default();
        let depth = match &self.reranker {
            Some(reranker) => request.limit.max(reranker.top),
            None => request.limit,
        };
        // The request as asked; the mode and the vector as this service can serve them.
        let mut query = SearchQuery {
            limit: depth,
            mode: SearchMode::Bm25,
            vector: None,
            ..request.clone()
        };
        if request.mode != SearchMode::Bm25 {
            match self.query_vector(index, &request.text, &mut answer) {
                Ok(vector) => {
                    query.mode = request.mode;
                    query.vector = Some(vector);
                }
                Err(why) if request.mode == SearchMode::Vector => {
                    return Err(SearchError::NoVectors(why))
                }
                Err(why) => answer.notes.push(bm25_only(&why)),
            }
        }
        let started = Instant::now();
        answer.results = index.search(&query)?;
        answer.timings.push(("search", started.elapsed()));
        if let Some(reranker) = &self.reranker {
            let outcome = rerank(root, &request.text, &mut answer.results, reranker);
            if let RerankOutcome::FellBack(why) = outcome {
                answer
                    .notes
                    .push(format!("rerank skipped: {why}; results are in fused order"));
            }
            answer.results.truncate(request.limit);
        }
        if !request.explain {
            for ev in &mut answer.results {
                ev.reason = None;
            }
        }
        Ok(answer)
    }

    /// The query's embedding, or why there is none to use.
    fn query_vector(
        &self,
        index: &Index,
        query: &str,
        answer: &mut SearchAnswer,
    ) -> Result<QueryVector, String> {
        let embedder = self.embedder.as_ref().map_err(Clone::clone)?;
        let embedder = embedder
            .lock()
            .map_err(|_| "the embedder failed earlier".to_string())?;
        let model = embedder.model().to_string();
        if index.vector_count(&model).map_err(|e| e.to_string())? == 0 {
            return Err(format!(
                "no chunk has a vector for {model}: run `evident embed`"
            ));
        }
        let started = Instant::now();
        let embedded = embedder.embed(&[query.to_string()]);
        answer.timings.push(("embed query", started.elapsed()));
        match embedded {
            Ok(mut vectors) if vectors.len() == 1 => Ok(QueryVector {
                model,
                values: vectors.remove(0),
            }),
            Ok(_) => Err(format!("{model} gave no vector for the query")),
            Err(e) => Err(format!("embedding the query failed ({e})")),
        }
    }
}
