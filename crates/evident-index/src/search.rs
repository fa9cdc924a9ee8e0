//! Full-text search over chunks (SQLite FTS5, BM25 with per-column weights:
//! name > signature and doc > body > path), with code-aware terms and an
//! exact-name signal. User text never reaches FTS5 as syntax: a query becomes
//! a list of quoted alphanumeric terms.

use rusqlite::params_from_iter;

use crate::chunk::{identifiers, split_identifier};
use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::Budget;

/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// BM25 weights of the columns `name, signature_doc, body, path`.
const WEIGHTS: &str = "10.0, 5.0, 2.0, 1.0";

/// What [`Index::search`] looks for.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
    pub kind: Option<Kind>,
    /// A glob (`src/**/*.py`), or a file or directory prefix.
    pub path: Option<String>,
}

impl SearchQuery {
    pub fn new(text: impl Into<String>) -> Self {
        SearchQuery {
            text: text.into(),
            limit: 10,
            kind: None,
            path: None,
        }
    }
}

/// Words too common to help a ranking.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in",
    "is", "it", "of", "on", "or", "the", "this", "to", "what", "where", "which", "who", "why",
    "with",
];

/// The FTS5 terms of a query: each word lowercased, compound identifiers also
/// as their parts and their joined form (as [`crate::chunk::code_terms`] indexes them).
pub fn query_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut add = |t: String| {
        if !t.is_empty() && !terms.contains(&t) {
            terms.push(t);
        }
    };
    for word in identifiers(text) {
        let parts = split_identifier(word);
        match parts.len() {
            0 => {}
            1 => {
                if !STOPWORDS.contains(&parts[0].as_str()) {
                    add(parts[0].clone());
                }
            }
            _ => {
                add(parts.concat());
                for part in parts {
                    add(part);
                }
            }
        }
    }
    terms
}

/// A MATCH expression that is always valid FTS5: quoted terms joined by OR.
fn match_expression(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "")))
        .collect::<Vec<_>>()
        .join(" OR ")
}

impl Index {
    /// Chunks ranked by BM25 for `q`, best first; `score` is the BM25 score
    /// (higher is better), `reason` says why each ranks where it does.
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<Evidence>> {
        let text = q.text.trim();
        if text.is_empty() {
            return Err(Error::InvalidArgument("the search query is empty".into()));
        }
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(Error::InvalidArgument(format!(
                "the search query is {} characters long; the limit is {MAX_QUERY_CHARS}",
                text.chars().count()
            )));
        }
        let terms = query_terms(text);
        if terms.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "the query {text:?} has no words to search for (only punctuation or very common words)"
            )));
        }
        let path_filter = q
            .path
            .as_deref()
            .map(|p| PathFilter::new(&self.repo_rel(p)))
            .transpose()?;
        let mut sql = format!(
            "SELECT f.path, c.start_line, c.end_line, c.kind, c.name, c.qualified_name,
                    bm25(chunks_fts, {WEIGHTS}) AS rank
             FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
             WHERE chunks_fts MATCH ?1"
        );
        let mut args = vec![match_expression(&terms)];
        if let Some(kind) = q.kind {
            args.push(kind.as_str().to_string());
            sql += " AND c.kind = ?2";
        }
        // Fetch more than asked: the path filter and the exact-name signal reorder and drop.
        let fetch = if path_filter.is_some() {
            2000
        } else {
            (q.limit * 4).max(50)
        };
        sql += &format!(" ORDER BY rank LIMIT {fetch}");
        let mut stmt = self.connection().prepare(&sql)?;
        let rows = stmt
            .query_map(params_from_iter(args.iter()), |r| {
                Ok(Row {
                    path: r.get(0)?,
                    start: r.get(1)?,
                    end: r.get(2)?,
                    kind: r.get(3)?,
                    name: r.get(4)?,
                    qualified: r.get(5)?,
                    bm25: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let single_identifier =
            identifiers(text).count() == 1 && !text.contains(char::is_whitespace);
        let joined = split_identifier(text).concat();
        let mut ranked: Vec<(u8, usize, Row)> = rows
            .into_iter()
            .filter(|row| path_filter.as_ref().is_none_or(|f| f.matches(&row.path)))
            .enumerate()
            .map(|(bm25_rank, row)| {
                // The exact identifier first, then its other spellings, then BM25 order.
                let signal = if !single_identifier {
                    2
                } else if row.name == text || row.qualified == text {
                    0
                } else if split_identifier(&row.name).concat() == joined {
                    1
                } else {
                    2
                };
                (signal, bm25_rank, row)
            })
            .collect();
        ranked.sort_by_key(|(signal, bm25_rank, _)| (*signal, *bm25_rank));
        ranked.truncate(q.limit);
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(ranked.len());
        for (signal, bm25_rank, row) in ranked {
            let snippet = reader
                .snippet(&row.path, row.start, row.end, Budget::DEFINITION)
                .unwrap_or_else(|e| format!("[unavailable: {e}]"));
            let mut ev = Evidence::new(
                row.path,
                row.start,
                row.end,
                Kind::parse(&row.kind).unwrap_or(Kind::Chunk),
                row.name,
                snippet,
            );
            ev.qualified_name = Some(row.qualified);
            ev.score = Some(-row.bm25);
            ev.reason = Some(match signal {
                0 => format!("exact name; bm25 #{} ({:.3})", bm25_rank + 1, -row.bm25),
                1 => format!(
                    "same name, other spelling; bm25 #{} ({:.3})",
                    bm25_rank + 1,
                    -row.bm25
                ),
                _ => format!("bm25 #{} ({:.3})", bm25_rank + 1, -row.bm25),
            });
            out.push(ev);
        }
        Ok(out)
    }
}

struct Row {
    path: String,
    start: u32,
    end: u32,
    kind: String,
    name: String,
    qualified: String,
    bm25: f64,
}

/// `--path`: a glob, or a file or directory prefix.
enum PathFilter {
    Glob(globset::GlobMatcher),
    Prefix(String),
}

impl PathFilter {
    fn new(pattern: &str) -> Result<PathFilter> {
        if pattern.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    Error::InvalidArgument(format!("--path {pattern:?} is not a valid glob: {e}"))
                })?;
            Ok(PathFilter::Glob(glob.compile_matcher()))
        } else {
            Ok(PathFilter::Prefix(
                pattern.trim_end_matches('/').to_string(),
            ))
        }
    }

    fn matches(&self, path: &str) -> bool {
        match self {
            PathFilter::Glob(glob) => glob.is_match(path),
            PathFilter::Prefix(prefix) => {
                prefix.is_empty()
                    || prefix == "."
                    || path == prefix
                    || path.starts_with(&format!("{prefix}/"))
            }
        }
    }
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
            match_expression(&query_terms("NEAR(a, b) OR c*")),
            "\"near\" OR \"b\" OR \"c\""
        );
    }
}
