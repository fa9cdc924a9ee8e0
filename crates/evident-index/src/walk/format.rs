//! What kind of file a path is: code in a language, or a document.

use crate::lang::docs::{self, DocFormat};
use crate::lang::{self, LanguageSpec};

/// What kind of file a candidate is: code in a language, or a document.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    Code(&'static LanguageSpec),
    Doc(&'static DocFormat),
}

impl Format {
    pub fn for_path(rel: &str) -> Option<Format> {
        match lang::for_path(rel) {
            Some(spec) => Some(Format::Code(spec)),
            None => docs::for_path(rel).map(Format::Doc),
        }
    }

    /// The name stored in `files.lang`.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Code(spec) => spec.name,
            Format::Doc(format) => format.name,
        }
    }
}
