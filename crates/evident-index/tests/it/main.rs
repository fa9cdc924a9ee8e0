//! `evident-index`'s integration tests, one binary: each file is a module.

mod callgraph;
mod common;
mod diff;
mod edit_scenarios;
mod extract_languages;
mod git_changes;
mod history;
mod indexing;
mod invariants;
mod long_queries;
mod search;
