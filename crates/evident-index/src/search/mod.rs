//! Full-text search over chunks (SQLite FTS5, BM25 with per-column weights:
//! name > signature and doc > body > path, see [`signals`]), with code-aware terms and an
//! exact-name signal. User text never reaches FTS5 as syntax: a query becomes
//! a list of quoted alphanumeric terms.

mod candidates;
pub mod chunk;
mod declared;
mod grouping;
mod history;
mod links;
pub(crate) mod mentions;
mod request;
mod run;
mod scoring;
pub mod signals;
pub mod spans;
mod terms;
pub mod vectors;
mod whole;

pub use request::{
    QueryVector, SearchGroup, SearchMode, SearchQuery, DEFAULT_RRF_K, MAX_QUERY_CHARS,
};
pub use terms::{query_terms, weighted_terms};
