//! One file's way in: read, identified, parsed (or taken from the parse
//! cache), and its rows written.

use std::collections::HashMap;

use rusqlite::Transaction;

use super::report::Summary;
use crate::error::Result;
use crate::graph::calls::Invalidation;
use crate::lang::docs;
use crate::lang::extract::{self, FileFacts};
use crate::lang::imports::Resolver;
use crate::search::chunk::{self, Chunk};
use crate::store::files::{self, NewFile, StoredFile};
use crate::store::parse_cache::ParseCache;
use crate::walk::git::blob_id;
use crate::walk::{Candidate, Format, Skipped};

pub(super) enum Outcome {
    /// Same content as stored: only the stat data changes.
    Touched {
        rel: String,
        id: i64,
        size: u64,
        mtime_ns: i64,
        /// Whether the content was read to find that out.
        read: bool,
    },
    Parsed(Box<Parsed>),
    Failed(Skipped),
    Cancelled,
}

pub(super) struct Parsed {
    pub(super) rel: String,
    pub(super) lang: &'static str,
    pub(super) hash: String,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    pub(super) facts: FileFacts,
    pub(super) targets: Vec<Option<String>>,
    pub(super) chunks: Vec<Chunk>,
}

pub(super) fn outcome_path(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Parsed(p) => Some(&p.rel),
        Outcome::Failed(s) => Some(&s.rel),
        Outcome::Touched { rel, .. } => Some(rel),
        Outcome::Cancelled => None,
    }
}

/// Reads, identifies and (when the content changed) parses one file. `known`
/// is its blob id when git's index vouches for the working copy: a file whose
/// id is the stored one is not read at all. A file the parse cache has facts
/// for (same build, path and bytes) is not parsed.
pub(super) fn process(
    candidate: &Candidate,
    known: Option<&str>,
    stored: Option<&StoredFile>,
    resolver: &Resolver,
    fallbacks: &str,
    parse_cache: Option<&ParseCache>,
) -> Outcome {
    let touched = |s: &StoredFile, size: u64, read: bool| Outcome::Touched {
        rel: candidate.rel.clone(),
        id: s.id,
        size,
        mtime_ns: candidate.mtime_ns,
        read,
    };
    if let (Some(id), Some(s)) = (known, stored) {
        if s.hash == id {
            return touched(s, candidate.size, false);
        }
    }
    let skip = |reason: String| {
        Outcome::Failed(Skipped {
            rel: candidate.rel.clone(),
            reason,
        })
    };
    let bytes = match std::fs::read(&candidate.abs) {
        Ok(bytes) => bytes,
        Err(e) => return skip(format!("unreadable: {e}")),
    };
    if crate::snippet::looks_binary(&bytes) {
        return skip("binary (NUL bytes)".into());
    }
    let hash = known.map_or_else(|| blob_id(&bytes), str::to_string);
    let size = bytes.len() as u64;
    if let Some(s) = stored.filter(|s| s.hash == hash) {
        return touched(s, size, true);
    }
    // Not UTF-8 (Latin-1 sources, stray bytes): index what decodes, keep line numbers.
    let source = String::from_utf8_lossy(&bytes);
    let (facts, targets, chunks) = match candidate.format {
        Format::Code(spec) => {
            let crate_name = resolver.rust_crate_name(&candidate.rel);
            let context = extract::Context::of_repository(spec, crate_name, Some(fallbacks));
            let extract = || extract::extract_in(spec, &candidate.rel, &source, &context);
            let facts = match parse_cache {
                Some(cache) => {
                    let key = cache.key(spec.name, &candidate.rel, &hash, &context);
                    cache.get(&key).unwrap_or_else(|| {
                        let facts = extract();
                        cache.put(&key, &facts);
                        facts
                    })
                }
                None => extract(),
            };
            let targets = facts
                .imports
                .iter()
                .map(|i| resolver.resolve(spec, &candidate.rel, &i.module, i.name.as_deref()))
                .collect();
            let chunks = chunk::chunks(&facts, &candidate.rel, &source);
            (facts, targets, chunks)
        }
        // A document has sections (chunks), never symbols: no call may resolve to a heading.
        Format::Doc(format) => {
            let facts = FileFacts {
                line_count: source.lines().count() as u32,
                ..FileFacts::default()
            };
            (
                facts,
                Vec::new(),
                docs::chunks(format, &candidate.rel, &source),
            )
        }
    };
    Outcome::Parsed(Box::new(Parsed {
        rel: candidate.rel.clone(),
        lang: facts.read_as.unwrap_or(candidate.format.name()),
        hash,
        size,
        mtime_ns: candidate.mtime_ns,
        facts,
        targets,
        chunks,
    }))
}

pub(super) fn write_outcome(
    tx: &Transaction,
    outcome: Outcome,
    stored: &HashMap<String, StoredFile>,
    summary: &mut Summary,
    failed: &mut Vec<Skipped>,
    invalid: &mut Invalidation,
) -> Result<()> {
    match outcome {
        Outcome::Touched {
            id,
            size,
            mtime_ns,
            read,
            ..
        } => {
            files::touch_file(tx, id, size, mtime_ns)?;
            summary.read += u64::from(read);
        }
        Outcome::Failed(skipped) => {
            // A file that can no longer be read leaves the index rather than
            // keeping rows that no longer match it.
            if let Some(s) = stored.get(&skipped.rel) {
                invalid.note_old_rows(tx, s.id, &skipped.rel)?;
                files::delete_file(tx, s.id)?;
                summary.removed += 1;
            }
            files::insert_skipped(tx, &skipped)?;
            failed.push(skipped);
        }
        Outcome::Parsed(parsed) => {
            let existing = stored.get(&parsed.rel).map(|s| s.id);
            if let Some(id) = existing {
                invalid.note_old_rows(tx, id, &parsed.rel)?;
            }
            if let Some(line) = parsed.facts.symbols_end_line {
                summary.in_part.push(Skipped {
                    rel: parsed.rel.clone(),
                    reason: format!(
                        "symbols from lines 1-{} only (over {} definitions or calls); \
                         the rest is searched as text",
                        line.saturating_sub(1),
                        extract::MAX_FACTS_PER_FILE
                    ),
                });
            }
            let defined = parsed.facts.definitions.iter().map(|d| d.name.as_str());
            invalid.note_new_definitions(&parsed.rel, defined);
            invalid.note_new_flow(&parsed.rel, &parsed.facts);
            let new = NewFile {
                rel: &parsed.rel,
                lang: parsed.lang,
                hash: &parsed.hash,
                size: parsed.size,
                mtime_ns: parsed.mtime_ns,
                facts: &parsed.facts,
                targets: &parsed.targets,
                chunks: &parsed.chunks,
            };
            files::write_file(tx, &new, existing)?;
            if let Some(id) = existing {
                invalid.note_written(tx, id, &parsed.rel)?;
            }
            summary.parsed += 1;
            summary.read += 1;
        }
        Outcome::Cancelled => {}
    }
    Ok(())
}
