//! From a query's text to its search terms: code-aware words, weighted by
//! how they are written, and the FTS5 expression that never carries syntax.

use super::chunk::{identifiers, split_identifier};
use crate::lang::syntax;

/// A query is searched with at most this many distinct terms: FTS5's OR
/// of them is most of a long query's time ([`most_telling`] picks them).
pub(super) const MAX_QUERY_TERMS: usize = 64;

/// A query's distinct terms are read up to this many, in order of
/// appearance, before [`most_telling`] keeps [`MAX_QUERY_TERMS`] of them.
const MAX_READ_TERMS: usize = 512;

/// Words too common to help a ranking (English, one per line: data, not code).
pub(super) fn is_stopword(word: &str) -> bool {
    const STOPWORDS: &str = include_str!("stopwords.txt");
    STOPWORDS.lines().any(|w| w == word)
}

/// The most a query term weighs: a code-looking word said three times
/// should not drown the rest of the query.
pub(super) const MAX_TERM_WEIGHT: u32 = 3;

/// The FTS5 terms of a query: each word lowercased, compound identifiers also
/// as their parts and their joined form (as [`crate::search::chunk::code_terms`] indexes them).
pub fn query_terms(text: &str) -> Vec<String> {
    weighted_terms(text).into_iter().map(|(t, _)| t).collect()
}

/// [`query_terms`] with a weight each. People write a query in prose and
/// put the names they know in it: a word written as code (backticked, or an
/// identifier with `_`, inner capitals or dots, or a path) weighs one more,
/// and so does a word the query says again. FTS5's BM25 has no per-term
/// weights, so [`match_expression`] repeats a term as often as it weighs.
pub fn weighted_terms(text: &str) -> Vec<(String, u32)> {
    let mut terms: Vec<(String, u32)> = Vec::new();
    let mut add = |t: String, weight: u32| {
        if t.is_empty() {
            return;
        }
        if let Some(known) = terms.iter_mut().find(|(known, _)| *known == t) {
            known.1 = (known.1 + 1).min(MAX_TERM_WEIGHT);
        } else if terms.len() < MAX_READ_TERMS {
            terms.push((t, weight));
        }
    };
    let prose = text.lines().filter(|line| !is_trailer(line));
    for span in prose.flat_map(str::split_whitespace) {
        if span.contains("://") || span.contains('@') {
            continue; // a link or an address names no code
        }
        let code = looks_like_code(span);
        // A path's file and its directory name code; the directories above
        // (`/home/u/venv/lib/python3.12/site-packages/`) name a machine.
        let span = match span.rmatch_indices('/').nth(1) {
            Some((cut, _)) => &span[cut + 1..],
            None => span,
        };
        for word in identifiers(span) {
            let parts = split_identifier(word);
            match parts.len() {
                0 => {}
                1 => {
                    if code || !is_stopword(&parts[0]) {
                        add(parts[0].clone(), 1 + u32::from(code));
                    }
                }
                _ => {
                    add(parts.concat(), 2);
                    for part in parts {
                        add(part, 1);
                    }
                }
            }
        }
    }
    terms
}

/// A query's first this many joined pairs are looked up: each is one
/// full-text match.
const MAX_JOINS: usize = 128;

/// Two prose words in a row that code may write as one word (`env vars`:
/// `envvar`, `file name`: `filename`, `time zone`: `timezone`), each pair
/// joined, in order, once each. Punctuation and code spans break a run. The
/// caller keeps the joins the index holds, so a pair no code writes as one
/// word adds nothing.
pub(super) fn joined_pairs(text: &str) -> Vec<String> {
    let mut joins: Vec<String> = Vec::new();
    for line in text.lines().filter(|line| !is_trailer(line)) {
        if joins.len() >= MAX_JOINS {
            break;
        }
        let mut previous: Option<String> = None;
        for span in line.split_whitespace() {
            let word = span.trim_start_matches(['(', '"', '\'']);
            let bare = word.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
            let plain = bare.len() >= 2
                && bare.chars().all(|c| c.is_ascii_alphabetic())
                && !looks_like_code(span);
            let current = plain.then(|| bare.to_ascii_lowercase());
            if let (Some(a), Some(b)) = (&previous, &current) {
                let joined = format!("{a}{b}");
                let both_common = is_stopword(a) && is_stopword(b);
                if !both_common && joined.len() >= 5 && !joins.contains(&joined) {
                    joins.push(joined);
                }
            }
            // A run goes on only past a bare word.
            previous = current.filter(|_| bare.len() == word.len());
        }
    }
    joins.truncate(MAX_JOINS);
    joins
}

/// The terms a long query is searched with. An issue report holds more
/// distinct words than a search can OR together: the user's own variable
/// names, a reproduction's setup, words of the prose that no code holds.
/// So when there are over [`MAX_QUERY_TERMS`], the terms no chunk holds go
/// first, then the commonest: the rest are kept by weight `×` inverse
/// document frequency, in their order of appearance. `chunks_with` is how
/// many of the `total` chunks hold a term.
pub(super) fn most_telling(
    weighted: Vec<(String, u32)>,
    chunks_with: impl Fn(&str) -> u64,
    total: u64,
) -> Vec<(String, u32)> {
    if weighted.len() <= MAX_QUERY_TERMS {
        return weighted;
    }
    let total = total.max(1) as f64;
    let mut telling: Vec<(usize, f64)> = weighted
        .iter()
        .enumerate()
        .filter_map(|(i, (term, weight))| {
            let held = chunks_with(term) as f64;
            // BM25's inverse document frequency, as FTS5 computes it.
            let idf = (1.0 + (total - held + 0.5) / (held + 0.5)).ln();
            (held > 0.0).then_some((i, f64::from(*weight) * idf))
        })
        .collect();
    telling.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    telling.truncate(MAX_QUERY_TERMS);
    telling.sort_by_key(|(i, _)| *i);
    let mut weighted: Vec<Option<(String, u32)>> = weighted.into_iter().map(Some).collect();
    telling
        .into_iter()
        .filter_map(|(i, _)| weighted[i].take())
        .collect()
}

/// A git trailer (`Co-authored-by: …`, `Signed-off-by: …`): people, not code.
pub(super) fn is_trailer(line: &str) -> bool {
    line.split_once(": ")
        .is_some_and(|(key, _)| key.ends_with("-by") && !key.contains(char::is_whitespace))
}

/// A whitespace-free piece of prose that is code: `` `x` ``, `a_b`, `aB`,
/// `a.b`, `dir/file.ext`, `f()`, `a::b`.
pub(super) fn looks_like_code(span: &str) -> bool {
    let span = span.trim_matches(|c: char| {
        matches!(
            c,
            ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']'
        )
    });
    let span = span.strip_suffix('.').unwrap_or(span);
    let inner_capital = span
        .chars()
        .zip(span.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    // Two or more names joined, one of them a word (not `e.g.`).
    let joined = |sep: &str| {
        let parts: Vec<&str> = span.split(sep).collect();
        parts.len() > 1
            && parts.iter().all(|p| !p.is_empty())
            && parts
                .iter()
                .any(|p| p.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
    };
    span.contains('`')
        || span.contains('_')
        || inner_capital
        || span.ends_with("()")
        || joined(".")
        || (joined("/")
            && span
                .rsplit('/')
                .next()
                .is_some_and(|file| file.contains('.')))
        || joined(syntax::PATH_SEPARATOR)
}

/// A MATCH expression that is always valid FTS5: quoted terms joined by OR,
/// each repeated as often as it weighs (BM25 adds a phrase's score once per
/// time the expression names it).
pub(super) fn match_expression(terms: &[(String, u32)]) -> String {
    terms
        .iter()
        .flat_map(|(t, weight)| {
            let quoted = format!("\"{}\"", t.replace('"', ""));
            std::iter::repeat_n(quoted, *weight as usize)
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_become_quoted_terms_only() {
        assert_eq!(
            query_terms("getCollectionName"),
            ["getcollectionname", "get", "collection", "name"]
        );
        assert_eq!(
            query_terms("where is the collection name"),
            ["collection", "name"]
        );
        assert_eq!(
            query_terms("\" * NEAR( AND"),
            ["near"],
            "FTS5 syntax is just words"
        );
        assert!(query_terms("?? !! ...").is_empty());
        assert_eq!(
            match_expression(&weighted_terms("NEAR(a, b) OR c*")),
            "\"near\" OR \"b\" OR \"c\""
        );
    }

    #[test]
    fn prose_pairs_are_joined_as_code_would_write_them() {
        assert_eq!(
            joined_pairs("Fix help text when using env vars with defaults"),
            [
                "fixhelp",
                "helptext",
                "textwhen",
                "whenusing",
                "usingenv",
                "envvars",
                "varswith",
                "withdefaults"
            ]
        );
        assert_eq!(
            joined_pairs("a file name, then `time` zone; set_up it\nnew\nline"),
            ["filename"],
            "punctuation, code and line ends break a run"
        );
        assert!(
            joined_pairs("it is on").is_empty(),
            "too short or all common"
        );
        let letter = |i: usize| char::from(b'a' + (i % 26) as u8);
        let long: String = (0..400)
            .map(|i| format!("q{}{} ", letter(i / 26), letter(i)))
            .collect();
        assert_eq!(
            joined_pairs(&long).len(),
            MAX_JOINS,
            "a long text's first pairs"
        );
    }

    #[test]
    fn a_long_query_keeps_the_terms_that_tell_most() {
        let short = weighted_terms("parse the option value");
        assert_eq!(
            most_telling(short.clone(), |_| 0, 100),
            short,
            "under the cap: all"
        );
        // 70 terms: "common" is in every chunk, 64 words in one chunk each,
        // 3 in half the chunks, "absent" and "gone" in none.
        let word = |i: usize| {
            format!(
                "x{}{}",
                (b'a' + (i / 26) as u8) as char,
                (b'a' + (i % 26) as u8) as char
            )
        };
        let mut text = String::from("common absent ");
        for i in 0..67 {
            text.push_str(&word(i));
            text.push(' ');
        }
        text.push_str("gone");
        let weighted = weighted_terms(&text);
        assert_eq!(weighted.len(), 70);
        let rare: Vec<String> = (0..64).map(word).collect();
        let held = |t: &str| match t {
            "common" => 100,
            "absent" | "gone" => 0,
            t if rare.iter().any(|r| r == t) => 1,
            _ => 50,
        };
        let kept: Vec<String> = most_telling(weighted, held, 100)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(kept, rare, "the rarest 64, in order; none no chunk holds");
    }

    #[test]
    fn words_written_as_code_or_said_again_weigh_more() {
        assert_eq!(
            weighted_terms("Fix `echo` when get_text is called twice; text"),
            [
                ("fix".to_string(), 1),
                ("echo".to_string(), 2),
                ("when".to_string(), 1),
                ("gettext".to_string(), 2),
                ("get".to_string(), 1),
                ("text".to_string(), 2),
                ("called".to_string(), 1),
                ("twice".to_string(), 1),
            ]
        );
        for code in [
            "click.echo",
            "src/core.py",
            "Context.invoke()",
            "isTTY",
            "std::fs",
            "`x`.",
        ] {
            assert!(looks_like_code(code), "{code}");
        }
        for prose in [
            "echo",
            "end.",
            "(see",
            "U.S",
            "e.g.",
            "and/or",
            "quoted/escaped",
        ] {
            assert!(!looks_like_code(prose), "{prose}");
        }
        assert_eq!(
            query_terms(
                "Fix it, see https://github.com/o/r/pull/1\n\nCo-authored-by: A B <a@b.org>"
            ),
            ["fix", "see"],
            "links, addresses and trailers name no code"
        );
        assert_eq!(
            query_terms("File \"/home/u/venv/lib/site-packages/click/core.py\", line 9"),
            ["file", "click", "core", "py", "line", "9"],
            "a path's file and its directory, not the machine's directories"
        );
        assert_eq!(
            match_expression(&weighted_terms("the `parser` parser")),
            "\"parser\" OR \"parser\" OR \"parser\""
        );
    }
}
