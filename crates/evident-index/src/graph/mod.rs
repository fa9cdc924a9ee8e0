//! The call graph: resolving each stored call site to the definitions it may
//! call ([`calls`], run at the end of an indexing run), and the queries over
//! the resulting edges ([`query`]: callers, callees, impact, the whole graph;
//! [`def`]: go-to-definition; [`lookup`]: the definitions a SYMBOL names).

pub(crate) mod calls;
pub(crate) mod def;
mod first_page;
mod keys;
mod keyword;
pub(crate) mod lookup;
pub(crate) mod map;
mod precise;
pub(crate) mod query;
pub(crate) mod references;
