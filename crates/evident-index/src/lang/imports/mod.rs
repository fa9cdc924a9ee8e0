//! Import resolution: from an import's module text to a path in the repository.
//!
//! Resolution is a pure function of the import, the importing file's path and
//! the set of files being indexed, so an incremental run and a full rebuild
//! resolve every import the same way.

mod layout;
mod packages;
mod paths;
mod resolver;
mod rules;
#[cfg(test)]
mod tests;

pub use packages::{declared_elsewhere, DeclaredPackages};
pub(crate) use paths::{join, normalize};
pub use resolver::Resolver;
