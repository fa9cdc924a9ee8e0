//! Search chunks: the pieces of a file that full-text (and later vector)
//! search ranks. Every definition is a chunk (its signature, doc comment and
//! own body, without the bodies of definitions nested in it; long bodies split
//! into overlapping windows that keep the definition's name), and code outside
//! top-level definitions is cut into windows.
//!
//! Code-aware tokens: SQLite's `unicode61` tokenizer splits `get_collection_name`
//! at the underscores but keeps `getCollectionName` whole. [`code_terms`] adds,
//! for every identifier, its parts (`get`, `collection`, `name`) and its joined
//! lowercase form (`getcollectionname`), so all spellings of a name meet, and
//! the same function turns a query into terms.

use crate::evidence::Kind;
use crate::lang::extract::FileFacts;

/// Longest body, in lines, kept in one chunk; longer ones are split.
pub const MAX_CHUNK_LINES: u32 = 80;
/// Lines shared by consecutive windows of one body.
pub const OVERLAP_LINES: u32 = 10;
/// Window size for code outside definitions.
pub const WINDOW_LINES: u32 = 50;

/// One chunk, with the text each search column gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub kind: Kind,
    pub name: String,
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Index into the file's definitions, for definition chunks.
    pub definition: Option<usize>,
    pub name_text: String,
    pub signature_doc: String,
    pub body: String,
}

/// The chunks of one file. Linear in the file's lines and definitions (a
/// generated file can hold 200,000 one-line definitions).
pub fn chunks(facts: &FileFacts, rel: &str, source: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = definition_chunks(facts, &lines);
    out.extend(outside_chunks(facts, rel, &lines));
    out
}

/// A line longer than this is read by columns in a definition's chunk: only
/// the definition's own part of it, and at most this much of that. Without
/// it, each of the thousands of definitions on one minified line would copy
/// the whole line into its chunk.
pub const MAX_LINE_BYTES: usize = 1000;

/// What a definition's chunks hold of the file: its lines, without the
/// lines after the first of each nested definition, and on a long line only
/// its own columns.
struct OwnText<'a> {
    lines: &'a [&'a str],
    start: (u32, u32),
    end: (u32, u32),
    /// Nested definitions' line ranges, sorted by start.
    skip: &'a [(u32, u32)],
}

impl OwnText<'_> {
    /// The first kept line at or after `n`, if any up to `last`. Nested
    /// definitions do not overlap and come sorted, so each is found by a
    /// binary search and jumped over.
    fn next_kept(&self, mut n: u32, last: u32) -> Option<u32> {
        while n <= last {
            let before = self.skip.partition_point(|&(start, _)| start < n);
            match before.checked_sub(1).map(|i| self.skip[i]) {
                Some((_, end)) if n <= end => n = end + 1,
                _ => return Some(n),
            }
        }
        None
    }

    fn line(&self, n: u32) -> &str {
        let line = self.lines[(n - 1) as usize];
        if line.len() <= MAX_LINE_BYTES {
            return line;
        }
        let from = if n == self.start.0 {
            self.start.1 as usize
        } else {
            0
        };
        let to = if n == self.end.0 {
            self.end.1 as usize
        } else {
            line.len()
        };
        let from = floor_boundary(line, from.min(line.len()));
        let to = floor_boundary(line, to.clamp(from, line.len()).min(from + MAX_LINE_BYTES));
        &line[from..to]
    }

    /// The kept lines of `from..=to`, one per line.
    fn text(&self, from: u32, to: u32) -> String {
        let total = self.lines.len() as u32;
        let mut out = String::new();
        let mut n = from.max(1);
        while let Some(kept) = self.next_kept(n, to.min(total)) {
            out.push_str(self.line(kept));
            out.push('\n');
            n = kept + 1;
        }
        out
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Lines `from..=to` whole, for code outside definitions.
fn line_text(lines: &[&str], from: u32, to: u32) -> String {
    let total = lines.len() as u32;
    let mut out = String::new();
    for n in from.max(1)..=to.min(total) {
        out.push_str(lines[(n - 1) as usize]);
        out.push('\n');
    }
    out
}

/// One chunk per definition (long ones in windows), its nested definitions
/// cut to their first line. A window that holds none of the definition's
/// own lines (only lines of definitions nested in it) is left out, so the
/// chunks of deeply nested code stay linear in its size.
fn definition_chunks(facts: &FileFacts, lines: &[&str]) -> Vec<Chunk> {
    // A class's attributes and fields (`objects = Manager()`) are searched
    // as part of their class's chunk, not as chunks of their own: they are
    // many, and their text is the class's.
    let in_class_body = |d: &crate::lang::extract::Definition| {
        matches!(d.kind, Kind::Variable | Kind::Constant | Kind::Property)
            && d.parent
                .and_then(|p| facts.definitions.get(p))
                .is_some_and(|p| p.kind.is_class_like())
    };
    let mut children: Vec<Vec<(u32, u32)>> = vec![Vec::new(); facts.definitions.len()];
    for d in facts.definitions.iter().filter(|d| !in_class_body(d)) {
        if let Some(parent) = d.parent {
            children[parent].push((d.start_line, d.end_line));
        }
    }
    let mut out = Vec::new();
    for (i, d) in facts.definitions.iter().enumerate() {
        if in_class_body(d) {
            continue;
        }
        let own = OwnText {
            lines,
            start: (d.start_line, d.columns.0),
            end: (d.end_line, d.columns.1),
            skip: &children[i],
        };
        let name_text = code_terms(&format!("{} {}", d.name, d.qualified_name));
        let signature_doc = code_terms(&format!(
            "{}\n{}",
            d.signature,
            d.doc.as_deref().unwrap_or("")
        ));
        let spans = own_windows(&own, d.start_line, d.end_line);
        for (k, (start, end)) in spans.into_iter().enumerate() {
            out.push(Chunk {
                kind: d.kind,
                name: d.name.clone(),
                qualified_name: d.qualified_name.clone(),
                start_line: start,
                end_line: end,
                definition: Some(i),
                name_text: name_text.clone(),
                signature_doc: if k == 0 {
                    signature_doc.clone()
                } else {
                    String::new()
                },
                body: code_terms(&own.text(start, end)),
            });
        }
    }
    out
}

/// The windows of `[start, end]` (as [`windows`] cuts them) that hold a
/// kept line, found by jumping over nested definitions: the first window
/// always, as it holds the name.
fn own_windows(own: &OwnText<'_>, start: u32, end: u32) -> Vec<(u32, u32)> {
    let step = MAX_CHUNK_LINES - OVERLAP_LINES;
    let mut out = Vec::new();
    let mut s = start;
    loop {
        let e = (s + MAX_CHUNK_LINES - 1).min(end);
        if out.is_empty() || own.next_kept(s, e).is_some() {
            out.push((s, e));
        }
        if e >= end {
            return out;
        }
        // The next window that can hold a kept line: the one after this,
        // or the first to reach the next kept line past this one.
        let Some(next) = own.next_kept(e + 1, end) else {
            return out;
        };
        let reach = next.saturating_sub(MAX_CHUNK_LINES - 1).max(s + step);
        s = start + (reach - start).div_ceil(step) * step;
    }
}

/// The code outside top-level definitions, in windows.
fn outside_chunks(facts: &FileFacts, rel: &str, lines: &[&str]) -> Vec<Chunk> {
    let total = lines.len() as u32;
    let mut out = Vec::new();
    // `depth[n]` > 0: line n is inside one.
    let mut depth = vec![0i32; total as usize + 2];
    for d in facts.definitions.iter().filter(|d| d.parent.is_none()) {
        let (s, e) = (d.start_line.clamp(1, total + 1), d.end_line.clamp(0, total));
        if s <= e {
            depth[s as usize] += 1;
            depth[e as usize + 1] -= 1;
        }
    }
    let file_name = rel.rsplit('/').next().unwrap_or(rel).to_string();
    let mut run_start: Option<u32> = None;
    let mut inside = 0;
    for n in 1..=total + 1 {
        inside += depth[n as usize];
        let outside = n <= total && inside == 0;
        match (outside, run_start) {
            (true, None) => run_start = Some(n),
            (false, Some(start)) => {
                for (s, e) in windows(start, n - 1, WINDOW_LINES, OVERLAP_LINES / 2) {
                    let text = line_text(lines, s, e);
                    if text.trim().is_empty() {
                        continue;
                    }
                    out.push(Chunk {
                        kind: Kind::Chunk,
                        name: file_name.clone(),
                        qualified_name: facts.module.clone(),
                        start_line: s,
                        end_line: e,
                        definition: None,
                        name_text: code_terms(&file_name),
                        signature_doc: String::new(),
                        body: code_terms(&text),
                    });
                }
                run_start = None;
            }
            _ => {}
        }
    }
    out
}

/// `[start, end]` cut into windows of at most `size` lines, `overlap` shared.
fn windows(start: u32, end: u32, size: u32, overlap: u32) -> Vec<(u32, u32)> {
    if end < start {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut s = start;
    loop {
        let e = (s + size - 1).min(end);
        out.push((s, e));
        if e == end {
            return out;
        }
        s = e + 1 - overlap.min(size - 1);
    }
}

/// `text` followed by the extra terms of its compound identifiers: the parts
/// of camelCase/PascalCase names and the joined lowercase form of any
/// identifier with parts (`get_collection_name` → `getcollectionname`).
pub fn code_terms(text: &str) -> String {
    let mut extra = String::new();
    for word in identifiers(text) {
        // Most words are plain: decide that without allocating.
        let compound = word.contains('_')
            || word.as_bytes().windows(2).any(|w| {
                (w[0].is_ascii_lowercase() || w[0].is_ascii_digit()) && w[1].is_ascii_uppercase()
            })
            || word.as_bytes().windows(3).any(|w| {
                w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
            })
            || !word.is_ascii();
        if !compound {
            continue;
        }
        let parts = split_identifier(word);
        if parts.len() < 2 {
            continue;
        }
        let has_humps =
            word.chars().any(|c| c.is_uppercase()) && word.chars().any(|c| c.is_lowercase());
        if has_humps {
            for part in &parts {
                extra.push_str(part);
                extra.push(' ');
            }
        }
        extra.push_str(&parts.concat());
        extra.push(' ');
    }
    if extra.is_empty() {
        return text.to_string();
    }
    format!("{text}\n{extra}")
}

/// Runs of letters, digits and underscores.
pub fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// `getCollectionName`, `get_collection_name`, `GetCollectionName`, `HTTPServer2`
/// → lowercase parts (`get collection name`, `http server2`).
pub fn split_identifier(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let boundary = i > 0
                && c.is_uppercase()
                && (chars[i - 1].is_lowercase()
                    || chars[i - 1].is_ascii_digit()
                    || chars.get(i + 1).is_some_and(|n| n.is_lowercase())
                        && chars[i - 1].is_uppercase());
            if boundary && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_every_way() {
        assert_eq!(
            split_identifier("getCollectionName"),
            ["get", "collection", "name"]
        );
        assert_eq!(
            split_identifier("get_collection_name"),
            ["get", "collection", "name"]
        );
        assert_eq!(
            split_identifier("GetCollectionName"),
            ["get", "collection", "name"]
        );
        assert_eq!(split_identifier("HTTPServer"), ["http", "server"]);
        assert_eq!(split_identifier("__init__"), ["init"]);
        assert_eq!(split_identifier("x"), ["x"]);
    }

    #[test]
    fn code_terms_add_parts_and_the_joined_form() {
        let t = code_terms("def getCollectionName(kind):");
        assert!(t.ends_with("get collection name getcollectionname "), "{t}");
        assert!(code_terms("HTTPServer").ends_with("http server httpserver "));
        let t = code_terms("get_collection_name");
        assert!(t.ends_with("getcollectionname "), "{t}");
        assert_eq!(code_terms("plain words only"), "plain words only");
    }

    /// The windows a definition's chunks get are the plain windows of its
    /// range that hold one of its own lines, found without visiting each.
    #[test]
    fn own_windows_are_the_windows_with_own_lines() {
        let lines: Vec<String> = (1..=1000).map(|n| format!("line {n}")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let nested = [
            vec![],
            vec![(5, 400)],
            vec![(2, 150), (160, 161), (300, 990)],
            vec![(100, 999)],
        ];
        for skip in &nested {
            let own = OwnText {
                lines: &lines,
                start: (1, 0),
                end: (1000, u32::MAX),
                skip,
            };
            let expected: Vec<(u32, u32)> = windows(1, 1000, MAX_CHUNK_LINES, OVERLAP_LINES)
                .into_iter()
                .enumerate()
                .filter(|&(k, (s, e))| k == 0 || own.next_kept(s, e).is_some())
                .map(|(_, w)| w)
                .collect();
            let slow: Vec<(u32, u32)> = windows(1, 1000, MAX_CHUNK_LINES, OVERLAP_LINES)
                .into_iter()
                .enumerate()
                .filter(|&(k, (s, e))| {
                    k == 0 || (s..=e).any(|n| !skip.iter().any(|&(a, b)| n > a && n <= b))
                })
                .map(|(_, w)| w)
                .collect();
            assert_eq!(expected, slow, "{skip:?}");
            assert_eq!(own_windows(&own, 1, 1000), expected, "{skip:?}");
        }
    }

    /// On a line past `MAX_LINE_BYTES` a definition holds its own columns,
    /// at most that many bytes of them; a short line is whole.
    #[test]
    fn a_long_line_gives_each_definition_its_own_columns() {
        let long = format!(
            "{}function f(){{return 1}}{}",
            "x".repeat(2000),
            "y".repeat(5000)
        );
        let lines = ["short line", long.as_str()];
        let own = |start, end| OwnText {
            lines: &lines,
            start,
            end,
            skip: &[],
        };
        assert_eq!(
            own((2, 2000), (2, 2023)).text(2, 2),
            "function f(){return 1}y\n"
        );
        assert_eq!(own((1, 3), (2, 10)).text(1, 1), "short line\n");
        let rest = own((2, 2000), (2, u32::MAX)).text(2, 2);
        assert_eq!(rest.len(), MAX_LINE_BYTES + 1);
        assert!(rest.starts_with("function f()"));
    }

    #[test]
    fn windows_overlap_and_cover() {
        assert_eq!(windows(1, 10, 80, 10), [(1, 10)]);
        assert_eq!(windows(1, 100, 80, 10), [(1, 80), (71, 100)]);
        assert_eq!(windows(5, 4, 80, 10), []);
    }
}
