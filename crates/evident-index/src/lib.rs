//! `evident-index` owns everything evident knows about a repository: walking
//! it, parsing it with tree-sitter, storing definitions, imports and call
//! sites in one SQLite file, resolving imports, and answering queries with
//! [`Evidence`].
//!
//! It must not know about language models, HTTP or the agent: every answer it
//! gives is a list of `Evidence` (or a typed [`Error`]), and it never writes
//! anywhere but `<repo>/.evident/` (and one line in `.git/info/exclude`).
//!
//! ```no_run
//! use evident_index::{Index, IndexOptions};
//! let summary = evident_index::index_repo(std::path::Path::new("."), &IndexOptions::default())?;
//! let index = Index::open(std::path::Path::new("."))?;
//! for hit in index.symbols("get_collection_name", &Default::default())? {
//!     println!("{}:{} {}", hit.path, hit.start_line, hit.name);
//! }
//! # Ok::<(), evident_index::Error>(())
//! ```

mod callgraph;
pub mod chunk;
pub mod config;
mod diff;
pub mod docs;
pub mod embed;
pub mod error;
pub mod evidence;
pub mod extract;
pub mod freshness;
mod graph_query;
mod indexer;
pub mod lang;
mod query;
pub mod resolve;
pub mod sandbox;
pub mod search;
pub mod snippet;
pub mod sources;
pub mod store;
pub mod walk;

pub use config::Config;
pub use diff::{Change, DiffReport, DiffRequest, Touched};
pub use embed::{embed_chunks, EmbedOptions, EmbedSummary, Embedder};
pub use error::{Error, Result};
pub use evidence::{Evidence, Kind};
pub use freshness::StatSnapshot;
pub use graph_query::{
    CallGraph, GraphEdge, GraphNode, Impact, Target, DEFAULT_IMPACT_DEPTH, MAX_CALLERS_DEPTH,
    MAX_IMPACT_DEPTH,
};
pub use indexer::{index_repo, IndexOptions, Progress, Summary};
pub use query::{find_root, Index, Staleness, Status, SymbolQuery, MAX_READ_LINES};
pub use search::{QueryVector, SearchMode, SearchQuery, DEFAULT_RRF_K, MAX_QUERY_CHARS};
pub use sources::{SourcePart, MAX_NAME_FILTER_CHARS};
