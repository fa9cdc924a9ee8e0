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

/// Lines `from..=to`, leaving out the lines after the first of each range in
/// `skip` (sorted by start): nested definitions keep only their first line.
fn line_text(lines: &[&str], from: u32, to: u32, skip: &[(u32, u32)]) -> String {
    let total = lines.len() as u32;
    let mut out = String::new();
    let mut next_skip = skip.iter().peekable();
    for n in from.max(1)..=to.min(total) {
        while next_skip.peek().is_some_and(|&&(_, end)| end < n) {
            next_skip.next();
        }
        if next_skip
            .peek()
            .is_some_and(|&&(start, end)| n > start && n <= end)
        {
            continue;
        }
        out.push_str(lines[(n - 1) as usize]);
        out.push('\n');
    }
    out
}

/// One chunk per definition (long ones in windows), its nested definitions
/// cut to their first line.
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
        let name_text = code_terms(&format!("{} {}", d.name, d.qualified_name));
        let signature_doc = code_terms(&format!(
            "{}\n{}",
            d.signature,
            d.doc.as_deref().unwrap_or("")
        ));
        for (k, (start, end)) in windows(d.start_line, d.end_line, MAX_CHUNK_LINES, OVERLAP_LINES)
            .into_iter()
            .enumerate()
        {
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
                body: code_terms(&line_text(lines, start, end, &children[i])),
            });
        }
    }
    out
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
                    let text = line_text(lines, s, e, &[]);
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

    #[test]
    fn windows_overlap_and_cover() {
        assert_eq!(windows(1, 10, 80, 10), [(1, 10)]);
        assert_eq!(windows(1, 100, 80, 10), [(1, 80), (71, 100)]);
        assert_eq!(windows(5, 4, 80, 10), []);
    }
}
