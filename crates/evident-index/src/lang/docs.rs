//! Documents (Markdown, reStructuredText, AsciiDoc, plain text): the
//! knowledge base that `sources` lists and `source` reads by document ID.
//! A document is indexed as a file whose chunks are its heading sections;
//! sections are never symbols, so no call can resolve to a heading.
//!
//! Formats are data: a row of [`DOC_FORMATS`] names the extensions and the
//! heading style.

use crate::evidence::Kind;
use crate::search::chunk::{code_terms, Chunk, MAX_CHUNK_LINES, OVERLAP_LINES};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadingStyle {
    /// `# Title` (outside code fences), or a line underlined with `===` / `---`.
    Markdown,
    /// A line underlined (and maybe overlined) with one punctuation character;
    /// levels in order of first use.
    Rst,
    /// `= Title`, `== Title`, ...
    AsciiDoc,
    /// No headings: the whole file is one section.
    Plain,
}

#[derive(Debug)]
pub struct DocFormat {
    /// Stored in `files.lang`.
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub headings: HeadingStyle,
}

pub static DOC_FORMATS: &[DocFormat] = &[
    DocFormat {
        name: "markdown",
        extensions: &["md", "markdown", "mdx"],
        headings: HeadingStyle::Markdown,
    },
    DocFormat {
        name: "rst",
        extensions: &["rst"],
        headings: HeadingStyle::Rst,
    },
    DocFormat {
        name: "asciidoc",
        extensions: &["adoc", "asciidoc"],
        headings: HeadingStyle::AsciiDoc,
    },
    DocFormat {
        name: "text",
        extensions: &["txt"],
        headings: HeadingStyle::Plain,
    },
];

pub fn for_path(path: &str) -> Option<&'static DocFormat> {
    let ext = path.rsplit('/').next()?.rsplit_once('.')?.1;
    DOC_FORMATS
        .iter()
        .find(|f| f.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

pub fn by_name(name: &str) -> Option<&'static DocFormat> {
    DOC_FORMATS.iter().find(|f| f.name == name)
}

/// The stable ID of the document at `path`: the same for as long as the path is.
pub fn doc_id(path: &str) -> String {
    format!(
        "doc-{:012x}",
        xxhash_rust::xxh3::xxh3_64(path.as_bytes()) & 0xffff_ffff_ffff
    )
}

/// A heading and the lines under it, up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: String,
    pub level: u32,
    pub start_line: u32,
    pub end_line: u32,
}

/// A heading: the line of its first line, its title, its level.
type Heading = (u32, String, u32);

/// The sections of a document; text before the first heading is a section
/// titled with the file name.
pub fn sections(format: &DocFormat, rel: &str, text: &str) -> Vec<Section> {
    let lines: Vec<&str> = text.lines().collect();
    let file_name = rel.rsplit('/').next().unwrap_or(rel);
    let mut headings = match format.headings {
        HeadingStyle::Markdown => markdown_headings(&lines),
        HeadingStyle::Rst => rst_headings(&lines),
        HeadingStyle::AsciiDoc => asciidoc_headings(&lines),
        HeadingStyle::Plain => Vec::new(),
    };
    // A generated giant's headings past the cap are text of the last section
    // before them: each section is a chunk, and each chunk costs a row.
    headings.truncate(crate::lang::extract::MAX_FACTS_PER_FILE);
    let total = lines.len() as u32;
    let mut out = Vec::new();
    let first = headings.first().map_or(total + 1, |h| h.0);
    if first > 1
        && lines[..(first - 1) as usize]
            .iter()
            .any(|l| !l.trim().is_empty())
    {
        out.push(Section {
            title: file_name.to_string(),
            level: 0,
            start_line: 1,
            end_line: first - 1,
        });
    }
    for (k, (start, title, level)) in headings.iter().enumerate() {
        let end = headings.get(k + 1).map_or(total, |next| next.0 - 1);
        out.push(Section {
            title: title.clone(),
            level: *level,
            start_line: *start,
            end_line: end.max(*start),
        });
    }
    out
}

/// `#` headings and setext (`===`, `---` underlined) ones, outside fences.
fn markdown_headings(lines: &[&str]) -> Vec<Heading> {
    let mut headings = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        for marker in ["```", "~~~"] {
            if trimmed.starts_with(marker) {
                fence = match fence {
                    Some(open) if open == marker => None,
                    None => Some(marker),
                    other => other,
                };
            }
        }
        if fence.is_some() || trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let title = line[hashes..].trim().trim_end_matches('#').trim();
            headings.push((i as u32 + 1, title.to_string(), hashes as u32));
        } else if i + 1 < lines.len() && !line.trim().is_empty() && !line.starts_with(' ') {
            let under = lines[i + 1].trim_end();
            let level = if under.len() >= 3 && under.chars().all(|c| c == '=') {
                1
            } else if under.len() >= 3
                && under.chars().all(|c| c == '-')
                && !line.trim_start().starts_with(['-', '*', '|'])
            {
                2
            } else {
                0
            };
            if level > 0 {
                headings.push((i as u32 + 1, line.trim().to_string(), level));
            }
        }
    }
    headings
}

/// Underlined (and overlined) titles; levels in the order their characters
/// first appear.
fn rst_headings(lines: &[&str]) -> Vec<Heading> {
    let mut headings = Vec::new();
    let mut order: Vec<char> = Vec::new();
    let is_rule = |s: &str| {
        let s = s.trim_end();
        let first = s.chars().next();
        s.len() >= 2
            && first.is_some_and(|c| "=-~^\"'`#*+:.".contains(c))
            && s.chars().all(|c| Some(c) == first)
    };
    let mut i = 0;
    while i + 1 < lines.len() {
        let (line, under) = (lines[i], lines[i + 1]);
        if !line.trim().is_empty()
            && !is_rule(line)
            && is_rule(under)
            && under.trim_end().len() >= line.trim().len()
        {
            let c = under.chars().next().unwrap();
            let overlined = i > 0 && is_rule(lines[i - 1]) && lines[i - 1].starts_with(c);
            let level = match order.iter().position(|&o| o == c) {
                Some(p) => p as u32 + 1,
                None => {
                    order.push(c);
                    order.len() as u32
                }
            };
            let start = if overlined { i as u32 } else { i as u32 + 1 };
            headings.push((start, line.trim().to_string(), level));
            i += 2;
            continue;
        }
        i += 1;
    }
    headings
}

/// `=` headings.
fn asciidoc_headings(lines: &[&str]) -> Vec<Heading> {
    let mut headings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let marks = line.chars().take_while(|&c| c == '=').count();
        if (1..=6).contains(&marks) && line[marks..].starts_with(' ') {
            headings.push((i as u32 + 1, line[marks..].trim().to_string(), marks as u32));
        }
    }
    headings
}

/// Search chunks of a document: one per section (long ones in windows).
pub fn chunks(format: &DocFormat, rel: &str, text: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for section in sections(format, rel, text) {
        // Sections are told apart by qualified name: a repeated title gets a number.
        let n = seen.entry(section.title.clone()).or_insert(0);
        *n += 1;
        let qualified_name = match *n {
            1 => format!("{rel}#{}", section.title),
            n => format!("{rel}#{} ({n})", section.title),
        };
        let mut start = section.start_line;
        loop {
            let end = (start + MAX_CHUNK_LINES - 1).min(section.end_line);
            let body: String = lines[(start - 1) as usize..end as usize].join("\n");
            out.push(Chunk {
                kind: Kind::Doc,
                name: section.title.clone(),
                qualified_name: qualified_name.clone(),
                start_line: start,
                end_line: end,
                definition: None,
                name_text: code_terms(&section.title),
                signature_doc: String::new(),
                body: code_terms(&body),
            });
            if end >= section.end_line {
                break;
            }
            start = end + 1 - OVERLAP_LINES;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(format: &str, text: &str) -> Vec<(String, u32, u32, u32)> {
        sections(by_name(format).unwrap(), "docs/guide.x", text)
            .into_iter()
            .map(|s| (s.title, s.level, s.start_line, s.end_line))
            .collect()
    }

    #[test]
    fn headings_past_the_cap_are_text_of_the_last_section() {
        let cap = crate::lang::extract::MAX_FACTS_PER_FILE;
        let text: String = (0..cap + 10).map(|k| format!("# h{k}\ntext\n")).collect();
        let sections = titles("markdown", &text);
        assert_eq!(sections.len(), cap);
        let last = sections.last().unwrap();
        assert_eq!(last.0, format!("h{}", cap - 1));
        assert_eq!(last.3 as usize, 2 * (cap + 10), "to the end of the file");
    }

    #[test]
    fn markdown_headings_not_in_fences() {
        let text = "intro line\n# Install\nrun it\n```sh\n# not a heading\n```\nSetup\n=====\nmore\n## Use\nend\n";
        assert_eq!(
            titles("markdown", text),
            [
                ("guide.x".into(), 0, 1, 1),
                ("Install".into(), 1, 2, 6),
                ("Setup".into(), 1, 7, 9),
                ("Use".into(), 2, 10, 11)
            ]
        );
    }

    #[test]
    fn rst_and_asciidoc_headings() {
        let rst = "=====\nTitle\n=====\n\nIntro\n\nUsage\n-----\ntext\n\nMore\n----\n";
        assert_eq!(
            titles("rst", rst),
            [
                ("Title".into(), 1, 1, 6),
                ("Usage".into(), 2, 7, 10),
                ("More".into(), 2, 11, 12)
            ]
        );
        let adoc = "= Guide\nhello\n== Part\nbody\n";
        assert_eq!(
            titles("asciidoc", adoc),
            [("Guide".into(), 1, 1, 2), ("Part".into(), 2, 3, 4)]
        );
        assert_eq!(
            titles("text", "just\ntext\n"),
            [("guide.x".into(), 0, 1, 2)]
        );
    }

    #[test]
    fn doc_ids_are_stable_and_distinct() {
        assert_eq!(doc_id("docs/a.md"), doc_id("docs/a.md"));
        assert_ne!(doc_id("docs/a.md"), doc_id("docs/b.md"));
        assert!(doc_id("x").starts_with("doc-") && doc_id("x").len() == 16);
    }
}
