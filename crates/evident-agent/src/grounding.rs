//! Grounded answers: every `path:line` or `path:start-end` an answer cites is
//! checked against the evidence the session gathered and against the
//! repository. A citation is `supported` when a gathered record covers its
//! lines; `unseen` when the lines exist but the model never looked at them;
//! `missing` when there is no such file or line.

use evident_index::{Evidence, Index};
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
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
