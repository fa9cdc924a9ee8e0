//! `evident`'s integration tests, one binary: each file is a module.

mod ask;
mod callers_pages;
mod cli;
mod daemon;
mod local_embed;
mod map;
mod mcp;
mod mcp_escape;
mod possible_callers;
mod probe;
mod rerank;
mod search_doors;
mod setup;
mod shell;
