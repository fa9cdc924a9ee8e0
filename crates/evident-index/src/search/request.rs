//! What a search asks: its text, lists, grouping, filters and limit.

pub use super::grouping::SearchGroup;
use super::signals::Signals;
use crate::error::{Error, Result};
use crate::evidence::Kind;

/// The longest query accepted, in characters: room for a commit message, an
/// issue's text with its stack trace and logs, the way people search an
/// unfamiliar code base (bug reports run past 4,000 characters).
pub const MAX_QUERY_CHARS: usize = 16_000;

/// Which lists rank the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    /// Full-text (BM25) only.
    #[default]
    Bm25,
    /// Nearest vectors only (needs [`SearchQuery::vector`]).
    Vector,
    /// Both lists fused by reciprocal rank fusion.
    Hybrid,
}

/// The query's embedding, by the model that made it (the one the chunks were embedded with).
#[derive(Debug, Clone)]
pub struct QueryVector {
    pub model: String,
    pub values: Vec<f32>,
}

/// What a search asks for: the one request type of every door (the CLI,
/// the agent's `search_code`, MCP, the web page) and of [`Index::search`].
/// The doors hand it to `evident_agent::SearchService`, which adds the
/// query's `vector` when it has an embedder.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
    pub kind: Option<Kind>,
    /// A glob (`src/**/*.py`), or a file or directory prefix.
    pub path: Option<String>,
    /// Only files of this language or document format (`python`,
    /// `markdown`: the names `evident status` lists).
    pub language: Option<String>,
    pub mode: SearchMode,
    pub vector: Option<QueryVector>,
    /// RRF's k: a result at rank r in a list adds 1 / (k + r).
    pub rrf_k: f64,
    /// What one result stands for; a group's score sums its chunks' scores.
    pub group: SearchGroup,
    /// What besides the words ranks; `None`: the defaults for `group`.
    pub signals: Option<Signals>,
    /// Keep each result's `reason` (how it ranked) at the doors. The index
    /// always writes it; the search service drops it unless asked.
    pub explain: bool,
}

impl SearchQuery {
    pub fn new(text: impl Into<String>) -> Self {
        SearchQuery {
            text: text.into(),
            limit: 10,
            kind: None,
            path: None,
            language: None,
            mode: SearchMode::Bm25,
            vector: None,
            rrf_k: DEFAULT_RRF_K,
            group: SearchGroup::default(),
            signals: None,
            explain: false,
        }
    }
}

pub const DEFAULT_RRF_K: f64 = 60.0;

/// `--path`: a glob, or a file or directory prefix.
pub(super) enum PathFilter {
    Glob(globset::GlobMatcher),
    Prefix(String),
}

impl PathFilter {
    pub(super) fn new(pattern: &str) -> Result<PathFilter> {
        if pattern.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    Error::InvalidArgument(format!("--path {pattern:?} is not a valid glob: {e}"))
                })?;
            Ok(PathFilter::Glob(glob.compile_matcher()))
        } else {
            Ok(PathFilter::Prefix(
                pattern.trim_end_matches('/').to_string(),
            ))
        }
    }

    pub(super) fn matches(&self, path: &str) -> bool {
        match self {
            PathFilter::Glob(glob) => glob.is_match(path),
            PathFilter::Prefix(prefix) => {
                prefix.is_empty()
                    || prefix == "."
                    || path == prefix
                    || path.starts_with(&format!("{prefix}/"))
            }
        }
    }
}
