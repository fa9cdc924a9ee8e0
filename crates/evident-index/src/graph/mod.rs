//! The call graph: resolving each stored call site to the definitions it may
//! call ([`calls`], run at the end of an indexing run), and the queries over
//! the resulting edges ([`query`]: callers, callees, impact, the whole graph,
//! go-to-definition).

pub(crate) mod calls;
pub(crate) mod query;
pub(crate) mod references;
