//! `evident-index` owns everything evident knows about a repository: walking
//! it, parsing it with tree-sitter, storing definitions, imports and call
//! sites in one SQLite file (all SQL lives in `store/`), resolving imports and
//! calls, answering queries with [`Evidence`], and reading the settings
//! (`evident.toml` and the user's config, [`Settings`]).
//!
//! The principal types are [`index_repo`], which brings a repository's
//! index up to date, and [`Index`], which every query goes through and which
//! answers with [`Evidence`]:
//!
//! ```no_run
//! use evident_index::{index_repo, Index, IndexOptions, SymbolQuery};
//!
//! let root = std::path::Path::new(".");
//! index_repo(root, &IndexOptions::default())?;
//! for evidence in Index::open(root)?.symbols("main", &SymbolQuery::default())? {
//!     println!("{} {}", evidence.location(), evidence.name);
//! }
//! # Ok::<(), evident_index::Error>(())
//! ```
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

// The pipeline, in the order a file travels through it:
mod diff; //          what a git diff touched
mod graph; //         call resolution and graph queries
mod history; //       HEAD's recent commits: messages and the files they changed
mod indexer; //       one indexing run: compare, parse in parallel, write in batches
pub mod lang; //      the language table, extraction, import rules, documents
pub mod limits; //    how long a name or path may be, for every door
mod modules; //       files by name and module path, and what a module exports
pub mod printable; // text from a repository made safe to print
mod query; //         `Index` and its queries
mod scip; //          a compiler's index (SCIP) merged into the graph
pub mod search; //    chunks, full text, vectors, fusion
pub mod snippet; //   real lines for Evidence
pub mod sources; //   the documents knowledge base
pub mod store; //     the SQLite file: schema, version, locks
pub mod walk; //      which files; the sandbox for every read; freshness by stat

pub mod config;
pub mod error;
pub mod evidence;
pub mod settings;

pub use config::Config;
pub use diff::{Change, DiffReport, DiffRequest, Touched};
pub use error::{Error, Result};
pub use evidence::{Evidence, Kind};
pub use graph::map::{DependencyMap, HotDefinition, MapEdge, MapLevel, MapNode, HOT_DEFINITIONS};
pub use graph::query::{
    CallGraph, Callers, GraphEdge, GraphNode, Impact, Page, Possible, Target, DEFAULT_IMPACT_DEPTH,
    MAX_CALLERS_DEPTH, MAX_IMPACT_DEPTH, MAX_POSSIBLE,
};
pub use indexer::{index_repo, IndexOptions, Progress, Summary};
pub use lang::extract;
pub use printable::printable;
pub use query::{find_root, HistoryStatus, Index, Staleness, Status, SymbolQuery, MAX_READ_LINES};
pub use search::signals::{Signals, SIGNAL_NAMES};
pub use search::vectors::{embed_chunks, EmbedOptions, EmbedSummary, Embedder, EmbedderError};
pub use search::{
    QueryVector, SearchGroup, SearchMode, SearchQuery, DEFAULT_RRF_K, MAX_QUERY_CHARS,
};
pub use settings::Settings;
pub use sources::{SourcePart, MAX_NAME_FILTER_CHARS};
pub use store::parse_cache::ParseCacheSettings;
pub use store::scip::ScipStatus;
pub use walk::freshness::StatSnapshot;
pub use walk::memory::WalkMemory;
pub use walk::sandbox;
