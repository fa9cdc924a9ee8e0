//! Extraction: one file's text in, its definitions, imports and call sites out.
//!
//! This module knows no grammar. It runs the language's query (see
//! `queries/README.md` for the capture names) and applies language-neutral
//! rules: nesting by byte ranges, methods inside class-like scopes, doc
//! comments right above a definition, qualified names from the module path.

mod captures;
mod facts;
mod nesting;
mod parse;
mod parts;
mod text;
mod unpack;

pub use facts::{
    decode_arguments, encode_arguments, glob_brings, import_binding, is_exported_binding,
    Assignment, Binding, Call, Definition, FileFacts, Import, DECORATED, ELEMENTS, TYPE_ALIAS,
};
pub use parse::Context;
pub use parts::{extract, extract_in, MAX_FACTS_PER_FILE, PART_BYTES};
pub(in crate::lang) use text::position_skipping;
pub use text::{count_lines, first_identifier, last_identifier};
