//! An indexing run: walk, compare with what is stored, parse what changed in
//! parallel, and write it in batches.
//!
//! Crash safety: every batch is one transaction, and every file's rows are
//! written inside one batch, so a kill at any moment leaves each file either
//! as it was or as it is now, never half of each. Imports are resolved against
//! the set of files the walk found before anything is written, so each batch
//! is consistent with the run's final file set, and the next run resumes
//! where an interrupted one stopped.

mod outcome;
mod profile;
mod report;
mod run;

pub use report::{IndexOptions, Progress, Summary};
pub use run::index_repo;
