//! Full-text search over chunks (SQLite FTS5, BM25 with per-column weights:
//! name > signature and doc > body > path, see [`signals`]), with code-aware terms and an
//! exact-name signal. User text never reaches FTS5 as syntax: a query becomes
//! a list of quoted alphanumeric terms.

pub mod chunk;
pub(crate) mod mentions;
mod scoring;
pub mod signals;
pub mod spans;
pub mod vectors;

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::search::chunk::{identifiers, split_identifier};
use crate::search::signals::Signals;
use crate::snippet::Budget;
use crate::store::chunks::{self, ChunkRow};

/// The longest query accepted, in characters: room for a commit message, an
/// issue's text with its stack trace and logs, the way people search an
/// unfamiliar code base (bug reports run past 4,000 characters).
pub const MAX_QUERY_CHARS: usize = 16_000;
/// A long query's distinct terms, in order of appearance, are kept up to
/// this many (a subject line comes first).
const MAX_QUERY_TERMS: usize = 64;

/// Which lists rank the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    /// Full-text (BM25) only.
    #[default]
    Bm25,
    /// Nearest vectors only (needs [`SearchQuery::vector`]).
    Vector,
    /// Both lists fused by reciprocal rank fusion.
    Hybrid,
}

/// What one result stands for. The doors (CLI, agent, MCP) default to a
/// file: "where do I look" is the first question, one result per file saves
/// a model's context, and it ranks best on the localization benchmark
/// (BENCHMARKS.md). [`SearchQuery::new`] asks for chunks, the unit the
/// index stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchGroup {
    /// A chunk: a definition's body (or a window of it), code between definitions.
    Chunk,
    /// A file: the chunks of one file together ("where do I look").
    #[default]
    File,
    /// A definition: the windows of one long definition together.
    Definition,
}

impl SearchGroup {
    pub fn parse(text: &str) -> Option<SearchGroup> {
        match text {
            "chunk" => Some(SearchGroup::Chunk),
            "file" => Some(SearchGroup::File),
            "definition" => Some(SearchGroup::Definition),
            _ => None,
        }
    }
}

/// The query's embedding, by the model that made it (the one the chunks were embedded with).
#[derive(Debug, Clone)]
pub struct QueryVector {
    pub model: String,
    pub values: Vec<f32>,
}

/// What [`Index::search`] looks for.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
    pub kind: Option<Kind>,
    /// A glob (`src/**/*.py`), or a file or directory prefix.
    pub path: Option<String>,
    pub mode: SearchMode,
    pub vector: Option<QueryVector>,
    /// RRF's k: a result at rank r in a list adds 1 / (k + r).
    pub rrf_k: f64,
    /// What one result stands for; a group's score sums its chunks' scores.
    pub group: SearchGroup,
    /// What besides the words ranks; `None`: the defaults for `group`.
    pub signals: Option<Signals>,
}

impl SearchQuery {
    pub fn new(text: impl Into<String>) -> Self {
        SearchQuery {
            text: text.into(),
            limit: 10,
            kind: None,
            path: None,
            mode: SearchMode::Bm25,
            vector: None,
            rrf_k: DEFAULT_RRF_K,
            group: SearchGroup::Chunk,
            signals: None,
        }
    }
}

pub const DEFAULT_RRF_K: f64 = 60.0;
/// How deep each list goes before fusion.
const FUSION_DEPTH: usize = 100;

/// Words too common to help a ranking (English, one per line: data, not code).
fn is_stopword(word: &str) -> bool {
    const STOPWORDS: &str = include_str!("stopwords.txt");
    STOPWORDS.lines().any(|w| w == word)
}

/// The most a query term weighs: a code-looking word said three times
/// should not drown the rest of the query.
const MAX_TERM_WEIGHT: u32 = 3;

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
        } else if terms.len() < MAX_QUERY_TERMS {
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

/// A git trailer (`Co-authored-by: …`, `Signed-off-by: …`): people, not code.
fn is_trailer(line: &str) -> bool {
    line.split_once(": ")
        .is_some_and(|(key, _)| key.ends_with("-by") && !key.contains(char::is_whitespace))
}

/// A whitespace-free piece of prose that is code: `` `x` ``, `a_b`, `aB`,
/// `a.b`, `dir/file.ext`, `f()`, `a::b`.
fn looks_like_code(span: &str) -> bool {
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
        || joined("::")
}

/// A MATCH expression that is always valid FTS5: quoted terms joined by OR,
/// each repeated as often as it weighs (BM25 adds a phrase's score once per
/// time the expression names it).
fn match_expression(terms: &[(String, u32)]) -> String {
    terms
        .iter()
        .flat_map(|(t, weight)| {
            let quoted = format!("\"{}\"", t.replace('"', ""));
            std::iter::repeat_n(quoted, *weight as usize)
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

impl Index {
    /// Chunks ranked for `q`, best first. `score` is the BM25 score (bm25),
    /// the cosine similarity (vector) or the fused RRF score (hybrid);
    /// `reason` gives each result's rank and score in each list.
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
        let weighted = weighted_terms(text);
        let terms: Vec<String> = weighted.iter().map(|(t, _)| t.clone()).collect();
        if terms.is_empty() && q.mode != SearchMode::Vector {
            return Err(Error::InvalidArgument(format!(
                "the query {text:?} has no words to search for (only punctuation or very common words)"
            )));
        }
        let vector = match (q.mode, &q.vector) {
            (SearchMode::Bm25, _) => None,
            (_, Some(v)) => Some(v),
            (_, None) => {
                return Err(Error::InvalidArgument(
                    "vector ranking needs the query's embedding".into(),
                ))
            }
        };
        let path_filter = q
            .path
            .as_deref()
            .map(|p| PathFilter::new(&self.repo_rel(p)))
            .transpose()?;
        let signals = q.signals.unwrap_or_else(|| Signals::for_group(q.group));
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut by_id: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        // The two lists are read at once, the vector scan on a thread and a
        // connection of its own: hybrid costs the slower of the two.
        let root = self.root();
        let (full_text, nearest) = std::thread::scope(|scope| {
            let nearest = vector.map(|v| {
                let depth = if path_filter.is_some() {
                    2000
                } else {
                    FUSION_DEPTH
                };
                scope.spawn(move || vectors::nearest_chunks(root, &v.model, &v.values, depth))
            });
            let full_text = if q.mode == SearchMode::Vector {
                Ok(Vec::new())
            } else {
                // Fetch more than asked: the path filter and the exact-name signal reorder and drop.
                let fetch = if path_filter.is_some() {
                    2000
                } else {
                    (q.limit * 4).max(50).max(FUSION_DEPTH)
                };
                let kind = q.kind.map(|k| k.as_str());
                let expression = match_expression(&weighted);
                let weights = signals.column_weights();
                chunks::full_text(self.connection(), &expression, &weights, kind, fetch)
            };
            let nearest = nearest
                .map(|scan| scan.join().expect("the vector scan does not panic"))
                .transpose();
            (full_text, nearest)
        });
        let (full_text, nearest) = (full_text?, nearest?);
        {
            for (row, bm25) in full_text
                .into_iter()
                .filter(|(row, _)| path_filter.as_ref().is_none_or(|f| f.matches(&row.path)))
            {
                by_id.insert(row.id, candidates.len());
                let rank = candidates.len();
                candidates.push(Candidate {
                    row,
                    bm25: Some((rank, -bm25)),
                    vector: None,
                });
            }
        }
        if let Some(nearest) = nearest {
            let unseen: Vec<i64> = nearest
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| !by_id.contains_key(id))
                .collect();
            let mut rows = chunks::chunks_by_id(self.connection(), &unseen)?;
            let mut rank = 0;
            for (id, cosine) in nearest {
                if let Some(&i) = by_id.get(&id) {
                    candidates[i].vector = Some((rank, cosine));
                    rank += 1;
                    continue;
                }
                // The scan read its own snapshot: a chunk an indexer removed
                // since is left out.
                let Some(row) = rows.remove(&id) else {
                    continue;
                };
                if q.kind.is_some_and(|k| k.as_str() != row.kind)
                    || path_filter.as_ref().is_some_and(|f| !f.matches(&row.path))
                {
                    continue;
                }
                by_id.insert(id, candidates.len());
                candidates.push(Candidate {
                    row,
                    bm25: None,
                    vector: Some((rank, cosine)),
                });
                rank += 1;
            }
        }
        // The query's spans are read only when what they name counts.
        let (spans, mentions) = if signals.mentions > 0.0 {
            let spans = spans::read(text);
            let mentions = mentions::resolve(self.connection(), &spans)?;
            (spans, mentions)
        } else {
            (Vec::new(), Vec::new())
        };
        self.add_mentioned(&mut candidates, &mentions, q, path_filter.as_ref())?;
        let single_identifier =
            identifiers(text).count() == 1 && !text.contains(char::is_whitespace);
        let joined = split_identifier(text).concat();
        let fuse = scoring::Fusion::new(&candidates, q.rrf_k, &signals);
        // Tests, documents and the rest rank below the code unless the
        // query asks for them: "where do I look" is the code.
        let roles = scoring::RoleWeights::new(&terms, &signals);
        let weight = |c: &Candidate| roles.weight(&c.row).1;
        let mut ranked: Vec<(u8, f64, Candidate)> = candidates
            .into_iter()
            .map(|c| {
                // The exact identifier first, then its other spellings, then the lists' order.
                let signal = if !single_identifier {
                    2
                } else if c.row.name == text || c.row.qualified == text {
                    0
                } else if split_identifier(&c.row.name).concat() == joined {
                    1
                } else {
                    2
                };
                (signal, fuse.score(&c) * weight(&c), c)
            })
            .collect();
        ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let score_of = |c: &Candidate, fused: f64| match q.mode {
            SearchMode::Bm25 => c.bm25.map_or(0.0, |(_, s)| s) * weight(c),
            SearchMode::Vector => c.vector.map_or(0.0, |(_, s)| f64::from(s)) * weight(c),
            SearchMode::Hybrid => fused,
        };
        // Each group stands for its best chunk (the first met) and its
        // exact-name signal, scored by the sum of its chunks' scores: a file
        // that matches in many places beats one lucky chunk.
        let mut groups: Vec<Group> = Vec::new();
        let mut index_of: std::collections::HashMap<(String, String), usize> =
            std::collections::HashMap::new();
        for (signal, fused, c) in ranked {
            // One result per definition: code between definitions and
            // document sections are no definition.
            if q.group == SearchGroup::Definition
                && (c.row.kind == Kind::Chunk.as_str() || c.row.kind == Kind::Doc.as_str())
            {
                continue;
            }
            let score = score_of(&c, fused);
            let key = match q.group {
                SearchGroup::Chunk => (c.row.id.to_string(), String::new()),
                SearchGroup::File => (c.row.path.clone(), String::new()),
                SearchGroup::Definition => (c.row.path.clone(), c.row.qualified.clone()),
            };
            if let Some(&i) = index_of.get(&key) {
                let group = &mut groups[i];
                group.score += score;
                group.chunks += 1;
                group.symbols.extend(c.row.symbol_id);
            } else {
                index_of.insert(key, groups.len());
                groups.push(Group {
                    signal,
                    fused,
                    score,
                    chunks: 1,
                    symbols: c.row.symbol_id.into_iter().collect(),
                    borrowed: Vec::new(),
                    named: None,
                    best: c,
                });
            }
        }
        if q.group != SearchGroup::Chunk {
            if signals.length > 0.0 {
                for g in &mut groups {
                    g.score /= (g.chunks as f64).powf(signals.length);
                }
            }
            self.borrow_along_links(&mut groups, q.group, &signals)?;
        }
        scoring::credit_mentions(&mut groups, &mentions, &spans, q.group, &signals, &weight);
        groups.sort_by(|a, b| a.signal.cmp(&b.signal).then(b.score.total_cmp(&a.score)));
        groups.truncate(q.limit);
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(groups.len());
        for group in groups {
            let c = group.best;
            let snippet = reader.evidence(&c.row.path, c.row.start, c.row.end, Budget::DEFINITION);
            let mut reasons = Vec::new();
            match group.signal {
                0 => reasons.push("exact name".to_string()),
                1 => reasons.push("same name, other spelling".to_string()),
                _ => {}
            }
            let (role, counts) = roles.weight(&c.row);
            if counts != 1.0 {
                reasons.push(format!("{}: counts {counts:.2}", role.as_str()));
            }
            if let Some((rank, score)) = c.bm25 {
                reasons.push(format!("bm25 #{} ({score:.3})", rank + 1));
            } else if q.mode != SearchMode::Vector {
                reasons.push("bm25 -".to_string());
            }
            if let Some((rank, cosine)) = c.vector {
                reasons.push(format!("vector #{} ({cosine:.3})", rank + 1));
            } else if q.mode != SearchMode::Bm25 {
                reasons.push("vector -".to_string());
            }
            if q.mode == SearchMode::Hybrid {
                reasons.push(format!("{} {:.4}", fuse.name(), group.fused));
            }
            if q.group != SearchGroup::Chunk {
                let normalised = if signals.length > 0.0 {
                    format!(" / chunks^{}", signals.length)
                } else {
                    String::new()
                };
                reasons.push(format!(
                    "{} chunk(s) of this group, scores summed{normalised}",
                    group.chunks
                ));
            }
            if let Some(named) = &group.named {
                reasons.push(named.clone());
            }
            for (signal, amount) in &group.borrowed {
                reasons.push(format!("+{amount:.3} from {signal}"));
            }
            let row = c.row;
            let mut ev = Evidence::new(
                row.path,
                row.start,
                row.end,
                Kind::parse(&row.kind).unwrap_or(Kind::Chunk),
                row.name,
                snippet,
            );
            ev.qualified_name = Some(row.qualified);
            ev.score = Some(group.score);
            ev.reason = Some(reasons.join("; "));
            out.push(ev);
        }
        Ok(out)
    }
}

impl Index {
    /// The chunks of what the query names that the lists did not bring: a
    /// file named by a traceback may share no word with the query's prose.
    /// One chunk per mention: the definition's, else the one holding the
    /// frame's line, else the file's first.
    fn add_mentioned(
        &self,
        candidates: &mut Vec<Candidate>,
        mentions: &[mentions::Mention],
        q: &SearchQuery,
        path_filter: Option<&PathFilter>,
    ) -> Result<()> {
        let missing: Vec<&mentions::Mention> = mentions
            .iter()
            .filter(|m| path_filter.is_none_or(|f| f.matches(&m.path)))
            .filter(|m| {
                !candidates.iter().any(|c| {
                    c.row.file_id == m.file_id
                        && (m.symbol.is_none() || c.row.symbol_id == m.symbol)
                })
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut files: Vec<i64> = missing.iter().map(|m| m.file_id).collect();
        files.sort_unstable();
        files.dedup();
        let mut rows = chunks::chunks_of_files(self.connection(), &files)?;
        rows.retain(|r| q.kind.is_none_or(|k| k.as_str() == r.kind));
        let mut taken = std::collections::HashSet::new();
        for m in missing {
            let of_file: Vec<&ChunkRow> = rows.iter().filter(|r| r.file_id == m.file_id).collect();
            let holds_line = |r: &&&ChunkRow| m.line.is_some_and(|l| r.start <= l && l <= r.end);
            let pick = of_file
                .iter()
                .find(|r| m.symbol.is_some() && r.symbol_id == m.symbol)
                .or_else(|| of_file.iter().find(holds_line))
                .or(of_file.first());
            if let Some(row) = pick.filter(|r| taken.insert(r.id)) {
                candidates.push(Candidate {
                    row: (*row).clone(),
                    bm25: None,
                    vector: None,
                });
            }
        }
        Ok(())
    }

    /// Structure as a signal ([`signals`]): each group borrows from the
    /// groups it is linked to, by calls and classes (between the definitions
    /// of their chunks) and, for files, by imports.
    fn borrow_along_links(
        &self,
        groups: &mut [Group],
        group: SearchGroup,
        signals: &Signals,
    ) -> Result<()> {
        if signals.calls == 0.0 && signals.class == 0.0 && signals.imports == 0.0 {
            return Ok(());
        }
        let mut group_of_symbol = std::collections::HashMap::new();
        let mut group_of_file = std::collections::HashMap::new();
        for (i, g) in groups.iter().enumerate() {
            for &s in &g.symbols {
                group_of_symbol.insert(s, i);
            }
            if group == SearchGroup::File {
                group_of_file.insert(g.best.row.file_id, i);
            }
        }
        let symbols: Vec<i64> = group_of_symbol.keys().copied().collect();
        let files: Vec<i64> = group_of_file.keys().copied().collect();
        let wanted = [signals.calls, signals.class, signals.imports].map(|w| w > 0.0);
        let links = chunks::links_among(self.connection(), &symbols, &files, wanted)?;
        // Links between two different groups, each once.
        let between = |pairs: &[(i64, i64)], of: &std::collections::HashMap<i64, usize>| {
            let mut out: Vec<(usize, usize)> = pairs
                .iter()
                .filter_map(|(a, b)| Some((*of.get(a)?, *of.get(b)?)))
                .filter(|(a, b)| a != b)
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        // A call lends both ways: to the callee and to the caller.
        let calls: Vec<(usize, usize)> = between(&links.calls, &group_of_symbol)
            .into_iter()
            .flat_map(|(a, b)| [(a, b), (b, a)])
            .collect();
        // (method, class) becomes "the class lends to its method".
        let classes: Vec<(usize, usize)> = between(&links.parents, &group_of_symbol)
            .into_iter()
            .map(|(child, parent)| (parent, child))
            .collect();
        let imports = between(&links.imports, &group_of_file);
        // Every signal lends from the scores the words gave.
        let words: Vec<f64> = groups.iter().map(|g| g.score).collect();
        let mut scores = words.clone();
        for (name, weight, step) in [
            ("calls", signals.calls, &calls),
            ("class", signals.class, &classes),
            ("imports", signals.imports, &imports),
        ] {
            let mut lent = words.clone();
            signals::lend(&mut lent, step, weight);
            for (i, g) in groups.iter_mut().enumerate() {
                let gained = lent[i] - words[i];
                if gained > 0.0 {
                    g.borrowed.push((name, gained));
                    scores[i] += gained;
                }
            }
        }
        for (g, score) in groups.iter_mut().zip(scores) {
            g.score = score;
        }
        Ok(())
    }
}

/// One result: a chunk, a file or a definition, standing for its best chunk.
struct Group {
    /// The exact-name signal (0 exact, 1 other spelling, 2 none): it ranks first.
    signal: u8,
    /// The best chunk's fused (hybrid) score.
    fused: f64,
    /// The sum of its chunks' scores, plus what it borrowed.
    score: f64,
    chunks: usize,
    /// The definitions its chunks belong to.
    symbols: Vec<i64>,
    /// What each structural signal added.
    borrowed: Vec<(&'static str, f64)>,
    /// What the query's spans that name it added, said for `--explain`.
    named: Option<String>,
    best: Candidate,
}

/// A chunk in the running, with its rank and score in each list.
struct Candidate {
    row: ChunkRow,
    bm25: Option<(usize, f64)>,
    vector: Option<(usize, f32)>,
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
            match_expression(&weighted_terms("NEAR(a, b) OR c*")),
            "\"near\" OR \"b\" OR \"c\""
        );
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
