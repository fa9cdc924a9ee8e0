//! Grounded answers: every `path:line` or `path:start-end` an answer cites is
//! checked against the evidence the session gathered and against the
//! repository. A citation is `supported` when a gathered record covers its
//! lines; `unseen` when the lines exist but the model never looked at them;
//! `missing` when there is no such file or line.
//!
//! Small models often name a file or a function without its line. When the
//! name came from gathered evidence, [`attach`] gives the line, and the
//! session appends it to the answer marked as added by evident.

use evident_index::{Evidence, Index, Kind};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Support {
    Supported,
    Unseen,
    Missing,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Citation {
    pub text: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub support: Support,
    /// Appended by evident for a file or name the answer gave without a line.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub added: bool,
}

/// The `path:line` and `path:start-end` references in `answer`, in order, once each.
pub fn citations(answer: &str) -> Vec<(String, String, u32, u32)> {
    let mut out: Vec<(String, String, u32, u32)> = Vec::new();
    let separators = |c: char| c.is_whitespace() || "()[]{}<>`'\",;|*".contains(c);
    for token in answer.split(separators) {
        let token = token.trim_end_matches(['.', ':', '!', '?']);
        let Some((path, lines)) = token.rsplit_once(':') else {
            continue;
        };
        // `path:12:5` (a column) cites line 12.
        let (path, lines) = match path.rsplit_once(':') {
            Some((p, l)) if l.chars().all(|c| c.is_ascii_digit()) && !l.is_empty() => (p, l),
            _ => (path, lines),
        };
        if path.is_empty() || !(path.contains('.') || path.contains('/')) || path.contains("://") {
            continue;
        }
        let (start, end) = match lines.split_once(['-', '–']) {
            Some((a, b)) => (a.parse::<u32>(), b.trim_start_matches('L').parse::<u32>()),
            None => (lines.parse::<u32>(), lines.parse::<u32>()),
        };
        let (Ok(start), Ok(end)) = (start, end) else {
            continue;
        };
        let path = path.trim_start_matches("./").to_string();
        if start == 0 || end < start || out.iter().any(|c| c.0 == token) {
            continue;
        }
        out.push((token.to_string(), path, start, end));
    }
    out
}

/// Checks each citation of `answer` against `gathered` and the index.
pub fn check(answer: &str, gathered: &[Evidence], index: Option<&Index>) -> Vec<Citation> {
    citations(answer)
        .into_iter()
        .map(|(text, path, start, end)| {
            let covered = gathered
                .iter()
                .any(|ev| ev.path == path && ev.start_line <= start && end <= ev.end_line);
            let support = if covered {
                Support::Supported
            } else if index.is_some_and(|index| {
                index
                    .read(&path, i64::from(end), i64::from(end))
                    .is_ok_and(|ev| ev.end_line == end)
            }) {
                Support::Unseen
            } else {
                Support::Missing
            };
            Citation {
                text,
                path,
                start_line: start,
                end_line: end,
                support,
                added: false,
            }
        })
        .collect()
}

/// The most lines [`attach`] adds to one answer.
const MAX_ATTACHED: usize = 8;

/// `path:line` (or `path:start-end`) for each gathered record that `answer`
/// names without citing a line in its file: by its path or file name, or by
/// a name that reads as code (`get_collection_name`, `` `send` ``, `send()`,
/// `Session.send`). A name that is also a plain word ("search") does not count
/// unless it is written as code.
pub fn attach(answer: &str, gathered: &[Evidence]) -> Vec<String> {
    let cited: Vec<String> = citations(answer).into_iter().map(|c| c.1).collect();
    let mut added: Vec<String> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    for ev in gathered {
        if added.len() == MAX_ATTACHED {
            break;
        }
        if cited.contains(&ev.path) || files.contains(&ev.path.as_str()) {
            continue;
        }
        let file_name = ev.path.rsplit('/').next().unwrap_or(&ev.path);
        let short = ev.name.rsplit(['.', ':']).next().unwrap_or(&ev.name);
        let by_name =
            names_as_code(answer, short) || (ev.name != short && mentions(answer, &ev.name));
        let by_file =
            mentions(answer, &ev.path) || (file_name.contains('.') && mentions(answer, file_name));
        if by_name || by_file {
            files.push(&ev.path);
            let location = if ev.start_line == ev.end_line {
                format!("{}:{}", ev.path, ev.start_line)
            } else {
                ev.location()
            };
            // Named only by its file: the lines say which definition they are.
            let is_definition = !matches!(
                ev.kind,
                Kind::Chunk | Kind::Doc | Kind::Call | Kind::Import | Kind::DiffHunk | Kind::File
            );
            added.push(if !by_name && is_definition && !mentions(answer, short) {
                format!("{location} ({})", ev.name)
            } else {
                location
            });
        }
    }
    added
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `text` holds `word` with no name character on either side.
fn mentions(text: &str, word: &str) -> bool {
    !word.is_empty()
        && text.match_indices(word).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char)
        })
}

/// Whether `text` names `name` as code: a name with `_` or an inner capital
/// anywhere as a word, any name in backticks or followed by `(`.
fn names_as_code(text: &str, name: &str) -> bool {
    if name.len() < 3 {
        return false;
    }
    let code_like = name.contains('_') || name.chars().skip(1).any(|c| c.is_uppercase());
    (code_like && mentions(text, name))
        || text.contains(&format!("`{name}`"))
        || text.contains(&format!("`{name}()`"))
        || text.contains(&format!("{name}("))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_named_only_by_their_file_say_which_definition_they_are() {
        let ev = Evidence::new(
            "duration.go",
            32,
            38,
            Kind::Method,
            "GetDuration",
            "func ...",
        );
        let gathered = std::slice::from_ref(&ev);
        assert_eq!(
            attach("It is in duration.go, lines 32-38.", gathered),
            ["duration.go:32-38 (GetDuration)"]
        );
        assert_eq!(
            attach("GetDuration in duration.go does it.", gathered),
            ["duration.go:32-38"]
        );
    }

    #[test]
    fn citations_are_found_in_prose() {
        let found = citations(
            "It is defined in `src/rag_common.py:4-6` and used at (app/main.py:12). \
             See https://x.org:80 and time 10:30, also lib.rs:7:3, and src/a.py:9-3.",
        );
        let texts: Vec<(&str, u32, u32)> = found.iter().map(|c| (c.1.as_str(), c.2, c.3)).collect();
        assert_eq!(
            texts,
            vec![
                ("src/rag_common.py", 4, 6),
                ("app/main.py", 12, 12),
                ("lib.rs", 7, 7)
            ]
        );
    }

    #[test]
    fn names_without_lines_get_the_line_they_came_from() {
        let gathered = [
            Evidence::new("ingest.py", 1, 1, evident_index::Kind::Import, "ingest", ""),
            Evidence::new(
                "query.py",
                5,
                5,
                evident_index::Kind::Call,
                "query.search",
                "",
            ),
            Evidence::new(
                "rag_common.py",
                4,
                5,
                evident_index::Kind::Function,
                "get_collection_name",
                "",
            ),
            Evidence::new("util.py", 1, 2, evident_index::Kind::Function, "search", ""),
        ];
        // Named by file, by qualified name, by a code-like name; `search` as a word is not a name.
        let added = attach(
            "ingest.py imports it, query.search calls get_collection_name; search is done elsewhere.",
            &gathered,
        );
        assert_eq!(
            added,
            vec!["ingest.py:1", "query.py:5", "rag_common.py:4-5"]
        );
        // A file already cited gets nothing more.
        assert_eq!(
            attach("See ingest.py:1.", &gathered[..1]),
            Vec::<String>::new()
        );
        // Backticks make a plain word a name.
        assert_eq!(
            attach("It is `search`.", &gathered[3..]),
            vec!["util.py:1-2"]
        );
    }

    #[test]
    fn support_comes_from_the_gathered_evidence() {
        let ev = Evidence::new("a.py", 10, 20, evident_index::Kind::Function, "f", "");
        let checked = check("a.py:12-14 and a.py:25 and b.py:1", &[ev], None);
        let support: Vec<&Support> = checked.iter().map(|c| &c.support).collect();
        assert_eq!(
            support,
            vec![&Support::Supported, &Support::Missing, &Support::Missing]
        );
    }
}
