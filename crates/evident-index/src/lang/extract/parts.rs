//! Reading a file whole or, past [`PART_BYTES`], in parts cut where a
//! top-level item starts.

use super::facts::FileFacts;
use super::parse::{extract_part, Context};
use super::text::count_lines;
use crate::lang::{self, LanguageSpec};

/// Parses `source` as `spec`'s language and extracts its facts.
pub fn extract(spec: &LanguageSpec, rel_path: &str, source: &str) -> FileFacts {
    extract_in(spec, rel_path, source, &Context::default())
}

/// Files larger than this are read in parts of about this size, cut where a
/// line starts a top-level item: a part's syntax tree, not the file's, is
/// what is held at once (a 50 MB generated file's tree takes gigabytes).
pub const PART_BYTES: usize = 1 << 20;

/// A file stops giving symbols after the part in which it passes this many
/// definitions or calls; the rest of it is still searched as text. Generated
/// giants hold millions: each costs memory in the run and in every later
/// call resolution, and none is a definition anyone looks up by name.
pub const MAX_FACTS_PER_FILE: usize = 50_000;

/// [`extract`] for a file of a repository described by `context`.
pub fn extract_in(
    spec: &LanguageSpec,
    rel_path: &str,
    source: &str,
    context: &Context,
) -> FileFacts {
    let line_count = count_lines(source);
    // The parser reads the text with same-length repairs (attribute macros
    // blanked, members separated); names and docs come from the text itself.
    let parsed_text = crate::lang::shown::parser_text(spec, source);
    if source.len() <= PART_BYTES {
        let mut facts = extract_part(spec, rel_path, source, &parsed_text, None, context);
        facts.line_count = line_count;
        facts.settle_name_lists();
        return facts;
    }
    // In parts. The first decides the language (a `.h` read as C++); every
    // part's rows carry the file's own lines, as a whole parse gives them.
    let mut facts = FileFacts::default();
    let mut spec = spec;
    let mut context = *context;
    let mut start = tree_sitter::Point { row: 0, column: 0 };
    let mut start_byte = 0;
    while start_byte < source.len() {
        if facts.definitions.len() >= MAX_FACTS_PER_FILE || facts.calls.len() >= MAX_FACTS_PER_FILE
        {
            facts.symbols_end_line = Some(start.row as u32 + 1);
            break;
        }
        let part = part_at(source, start_byte, start);
        let part_facts = extract_part(spec, rel_path, source, &parsed_text, Some(part), &context);
        if start_byte == 0 {
            if let Some(other) = part_facts.read_as.and_then(lang::by_name) {
                spec = other;
            }
            context.fallback_present = false;
            facts.module = part_facts.module.clone();
            facts.read_as = part_facts.read_as;
        }
        facts.append(part_facts);
        (start_byte, start) = (part.end_byte, part.end_point);
    }
    facts.line_count = line_count;
    facts.settle_name_lists();
    facts
}

/// Where a part that should end near `wanted` ends: the start of the first
/// line after `wanted` that starts a top-level item (unindented, after a
/// blank line, not a closing bracket), else of any unindented line, else of
/// any line, looking no further than a few parts ahead.
pub(super) fn part_end(source: &str, wanted: usize) -> usize {
    let bytes = source.as_bytes();
    if wanted >= bytes.len() {
        return bytes.len();
    }
    let starts_item = |at: usize| {
        bytes
            .get(at)
            .is_some_and(|b| !b.is_ascii_whitespace() && !matches!(b, b'}' | b')' | b']'))
    };
    let line_starts = |from: usize, to: usize| {
        let to = to.min(bytes.len());
        line_starts_in(&bytes[from..to]).map(move |i| from + i)
    };
    let horizon = wanted + 4 * PART_BYTES;
    let after_blank = line_starts(wanted, horizon)
        .find(|&at| starts_item(at) && at >= 2 && bytes[at - 2] == b'\n');
    let unindented = || line_starts(wanted, horizon).find(|&at| starts_item(at));
    let any = || line_starts(wanted, bytes.len()).next();
    let mut end = after_blank
        .or_else(unindented)
        .or_else(any)
        .unwrap_or(bytes.len());
    // Never inside a character (lines start after a `\n`, so this is only
    // for safety).
    while !source.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// The offsets within `bytes` at which a line starts after a newline.
pub(super) fn line_starts_in(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
}

/// The part of `source` from `start_byte` (at `start`) to where [`part_end`]
/// cuts it, with its end's row and column counted within the part only.
pub(super) fn part_at(
    source: &str,
    start_byte: usize,
    start: tree_sitter::Point,
) -> tree_sitter::Range {
    let end_byte = part_end(source, start_byte + PART_BYTES);
    let part = &source.as_bytes()[start_byte..end_byte];
    let newlines = part.iter().filter(|&&b| b == b'\n').count();
    let end_point = match part.iter().rposition(|&b| b == b'\n') {
        Some(last) => tree_sitter::Point {
            row: start.row + newlines,
            column: part.len() - last - 1,
        },
        None => tree_sitter::Point {
            row: start.row,
            column: start.column + part.len(),
        },
    };
    tree_sitter::Range {
        start_byte,
        end_byte,
        start_point: start,
        end_point,
    }
}
