//! The search pipeline, one phase per function: check the query
//! ([`Plan::new`]), read the lists ([`Index::gather`]), add what the query's
//! spans name, rank the candidates and group them ([`rank`], [`group`]),
//! lend along links, and answer with Evidence ([`evidence_of`]).

use std::collections::HashMap;

use super::candidates::{answer_order, Candidate, Group};
use super::chunk::{identifiers, split_identifier};
use super::history::PastChanges;
use super::request::{
    PathFilter, QueryVector, SearchGroup, SearchMode, SearchQuery, MAX_QUERY_CHARS,
};
use super::scoring::{self, Fusion, RoleWeights};
use super::signals::Signals;
use super::terms::{joined_pairs, match_expression, most_telling, weighted_terms, MAX_QUERY_TERMS};
use super::whole::WholeFiles;
use super::{mentions, spans, vectors};
use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::{Budget, SnippetReader};
use crate::store::chunks::{self, ChunkRow};
use crate::walk::Format;

/// How deep each list is read for fusion.
const FUSION_DEPTH: usize = 100;
/// How deep each list is read when a path filter will drop most of it.
const FILTERED_DEPTH: usize = 2000;

/// A checked query: its terms, its vector, its filter and its signals.
struct Plan<'q> {
    q: &'q SearchQuery,
    text: &'q str,
    weighted: Vec<(String, u32)>,
    terms: Vec<String>,
    vector: Option<&'q QueryVector>,
    path_filter: Option<PathFilter>,
    /// The language or document format asked for, checked.
    language: Option<&'q str>,
    signals: Signals,
}

impl<'q> Plan<'q> {
    fn new(index: &Index, q: &'q SearchQuery) -> Result<Plan<'q>> {
        let text = q.text.trim();
        if text.is_empty() {
            return Err(Error::InvalidArgument("the search query is empty".into()));
        }
        let length = text.chars().count();
        if length > MAX_QUERY_CHARS {
            return Err(Error::InvalidArgument(format!(
                "the search query is {length} characters long; the limit is {MAX_QUERY_CHARS}"
            )));
        }
        let mut weighted = weighted_terms(text);
        // A vector-only search reads no words: no pair need be looked up.
        if q.mode != SearchMode::Vector {
            add_held_joins(index, text, &mut weighted)?;
        }
        let weighted = if weighted.len() > MAX_QUERY_TERMS {
            let held = chunks::chunks_holding(index.connection(), &weighted)?;
            let total = chunks::chunk_count(index.connection())?;
            most_telling(weighted, |t| held.get(t).copied().unwrap_or(0), total)
        } else {
            weighted
        };
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
            .map(|p| PathFilter::new(&index.repo_rel(p)?))
            .transpose()?;
        let language = q.language.as_deref().map(known_language).transpose()?;
        Ok(Plan {
            q,
            text,
            weighted,
            terms,
            vector,
            path_filter,
            language,
            signals: q.signals.unwrap_or_else(|| Signals::for_group(q.group)),
        })
    }

    fn keeps(&self, row: &ChunkRow) -> bool {
        self.keeps_path(&row.path)
    }

    fn keeps_path(&self, path: &str) -> bool {
        let language_of = |path: &str| Format::for_path(path).map(|f| f.name());
        self.path_filter.as_ref().is_none_or(|f| f.matches(path))
            && self.language.is_none_or(|l| language_of(path) == Some(l))
    }

    /// Whether the query's words rank groups of chunks: not chunks alone,
    /// nor a vector-only search, nor one for a kind of definition.
    fn words_rank_groups(&self) -> bool {
        let q = self.q;
        q.group != SearchGroup::Chunk && q.mode != SearchMode::Vector && q.kind.is_none()
    }

    /// Whether a filter will drop most of what the lists read.
    fn filtered(&self) -> bool {
        self.path_filter.is_some() || self.language.is_some()
    }
}

impl Index {
    /// Chunks ranked for `q`, best first. `score` is the BM25 score (bm25),
    /// the cosine similarity (vector) or the fused RRF score (hybrid);
    /// `reason` gives each result's rank and score in each list.
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<Evidence>> {
        let plan = Plan::new(self, q)?;
        let mut candidates = self.gather(&plan)?;
        let whole = self.whole_files_of(&plan)?;
        if q.group == SearchGroup::File {
            self.add_whole_files(&mut candidates, &whole, q)?;
        }
        // The query's spans are read only when what they name counts.
        let (spans, mentions) = if plan.signals.mentions > 0.0 {
            let spans = spans::read(plan.text);
            let mentions = mentions::resolve(self.connection(), &spans, plan.signals.callees)?;
            (spans, mentions)
        } else {
            (Vec::new(), Vec::new())
        };
        self.add_mentioned(&mut candidates, &mentions, q, plan.path_filter.as_ref())?;
        if plan.filtered() {
            candidates.retain(|c| plan.keeps(&c.row));
        }
        let fuse = Fusion::new(&candidates, q.rrf_k, &plan.signals);
        // Tests, documents and the rest rank below the code unless the
        // query asks for them: "where do I look" is the code.
        let roles = RoleWeights::new(&plan.terms, &plan.signals);
        let weight = |c: &Candidate| roles.weight(&c.row).1;
        let mut groups = group(&plan, rank(&plan, candidates, &fuse, &weight), &weight);
        if q.group != SearchGroup::Chunk {
            if plan.signals.length > 0.0 {
                for g in &mut groups {
                    g.score /= (g.chunks as f64).powf(plan.signals.length);
                }
            }
            whole.credit(&mut groups, &weight);
            self.borrow_along_links(&mut groups, q.group, &plan.signals)?;
            self.past_changes_of(&plan)?.credit(&mut groups, &weight);
        }
        scoring::credit_mentions(
            &mut groups,
            &mentions,
            &spans,
            q.group,
            &plan.signals,
            &weight,
        );
        weigh_by_size(&mut groups, plan.signals.size);
        groups.sort_by(answer_order);
        if q.group != SearchGroup::Chunk {
            self.rerank_by_recency(&mut groups, plan.signals.recency, &weight)?;
        }
        groups.truncate(q.limit);
        let mut reader = self.reader();
        let answer = |g| evidence_of(&plan, &mut reader, g, &roles, &fuse);
        Ok(groups.into_iter().map(answer).collect())
    }

    /// The whole-file scores, for grouped results that the words rank.
    fn whole_files_of(&self, plan: &Plan<'_>) -> Result<WholeFiles> {
        if !plan.words_rank_groups() {
            return Ok(WholeFiles::none());
        }
        let expression = match_expression(&plan.weighted);
        let keeps = |path: &str| plan.keeps_path(path);
        self.whole_files(&expression, plan.terms.len(), &plan.signals, &keeps)
    }

    /// The files past commits like the query changed, for grouped results
    /// that the words rank.
    fn past_changes_of(&self, plan: &Plan<'_>) -> Result<PastChanges> {
        if !plan.words_rank_groups() {
            return Ok(PastChanges::none());
        }
        let expression = match_expression(&plan.weighted);
        let keeps = |path: &str| plan.keeps_path(path);
        self.past_changes(&expression, &plan.signals, &keeps)
    }

    /// The candidates of both lists, in their lists' order. The two lists
    /// are read at once, the vector scan on a thread and a connection of
    /// its own: hybrid costs the slower of the two.
    fn gather(&self, plan: &Plan<'_>) -> Result<Vec<Candidate>> {
        let q = plan.q;
        let filtered = plan.filtered();
        let root = self.root();
        let (full_text, nearest) = std::thread::scope(|scope| {
            let nearest = plan.vector.map(|v| {
                let depth = if filtered {
                    FILTERED_DEPTH
                } else {
                    FUSION_DEPTH
                };
                scope.spawn(move || vectors::nearest_chunks(root, &v.model, &v.values, depth))
            });
            let full_text = if q.mode == SearchMode::Vector {
                Ok(Vec::new())
            } else {
                // Fetch more than asked: the path filter and the exact-name signal reorder and drop.
                let fetch = if filtered {
                    FILTERED_DEPTH
                } else {
                    (q.limit * 4).max(50).max(FUSION_DEPTH)
                };
                let kind = q.kind.map(|k| k.as_str());
                let expression = match_expression(&plan.weighted);
                let weights = plan.signals.column_weights();
                chunks::full_text(self.connection(), &expression, &weights, kind, fetch)
            };
            let nearest = nearest
                .map(|scan| scan.join().expect("the vector scan does not panic"))
                .transpose();
            (full_text, nearest)
        });
        let mut candidates: Vec<Candidate> = full_text?
            .into_iter()
            .filter(|(row, _)| plan.keeps(row))
            .enumerate()
            .map(|(rank, (row, bm25))| Candidate {
                row,
                bm25: Some((rank, -bm25)),
                vector: None,
            })
            .collect();
        if let Some(nearest) = nearest? {
            self.merge_nearest(plan, &mut candidates, nearest)?;
        }
        Ok(candidates)
    }

    /// Adds the vector list: its rank to the chunks already in, and the
    /// chunks it alone found.
    fn merge_nearest(
        &self,
        plan: &Plan<'_>,
        candidates: &mut Vec<Candidate>,
        nearest: Vec<(i64, f32)>,
    ) -> Result<()> {
        let mut by_id: HashMap<i64, usize> = (candidates.iter().enumerate())
            .map(|(i, c)| (c.row.id, i))
            .collect();
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
            if plan.q.kind.is_some_and(|k| k.as_str() != row.kind) || !plan.keeps(&row) {
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
        Ok(())
    }
}

/// Adds the query's joined word pairs ([`joined_pairs`]) that some chunk
/// holds as one word, each weighing 1: "env vars" then also finds `envvar`.
fn add_held_joins(index: &Index, text: &str, weighted: &mut Vec<(String, u32)>) -> Result<()> {
    let joins: Vec<String> = joined_pairs(text)
        .into_iter()
        .filter(|j| !weighted.iter().any(|(t, _)| t == j))
        .collect();
    if joins.is_empty() {
        return Ok(());
    }
    let words: Vec<&str> = joins.iter().map(String::as_str).collect();
    let held = chunks::terms_held(index.connection(), &words)?;
    let kept = joins.into_iter().zip(held).filter(|(_, held)| *held);
    weighted.extend(kept.map(|(join, _)| (join, 1)));
    Ok(())
}

/// Multiplies each group's score by `1 + size × ln(lines)` of its best
/// chunk ([`Signals::size`]), said in its reasons.
fn weigh_by_size(groups: &mut [Group], size: f64) {
    if size == 0.0 {
        return;
    }
    for g in groups.iter_mut() {
        let lines = f64::from(g.best.row.end.saturating_sub(g.best.row.start) + 1);
        let gained = g.score * size * lines.ln();
        if gained > 0.0 {
            g.score += gained;
            g.borrowed.push(("its size", gained));
        }
    }
}

/// `language` when it names a language or a document format evident reads.
fn known_language(language: &str) -> Result<&str> {
    let code = crate::lang::LANGUAGES.iter().map(|l| l.name);
    let docs = crate::lang::docs::DOC_FORMATS.iter().map(|d| d.name);
    let mut known = code.chain(docs);
    if known.any(|name| name == language) {
        return Ok(language);
    }
    let names: Vec<&str> = crate::lang::LANGUAGES.iter().map(|l| l.name).collect();
    Err(Error::InvalidArgument(format!(
        "unknown language {language:?}; one of {}, or a document format",
        names.join(", ")
    )))
}

/// Candidates in ranking order with their exact-name signal and fused score:
/// the exact identifier first, then its other spellings, then the lists'
/// order.
fn rank(
    plan: &Plan<'_>,
    candidates: Vec<Candidate>,
    fuse: &Fusion,
    weight: &dyn Fn(&Candidate) -> f64,
) -> Vec<(u8, f64, Candidate)> {
    let text = plan.text;
    let single_identifier = identifiers(text).count() == 1 && !text.contains(char::is_whitespace);
    let joined = split_identifier(text).concat();
    let mut ranked: Vec<(u8, f64, Candidate)> = candidates
        .into_iter()
        .map(|c| {
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
    ranked
}

/// The ranked chunks gathered by the query's grouping. Each group stands
/// for its best chunk (the first met) and its exact-name signal, scored by
/// the sum of its chunks' scores: a file that matches in many places beats
/// one lucky chunk.
fn group(
    plan: &Plan<'_>,
    ranked: Vec<(u8, f64, Candidate)>,
    weight: &dyn Fn(&Candidate) -> f64,
) -> Vec<Group> {
    let q = plan.q;
    let score_of = |c: &Candidate, fused: f64| match q.mode {
        SearchMode::Bm25 => c.bm25.map_or(0.0, |(_, s)| s) * weight(c),
        SearchMode::Vector => c.vector.map_or(0.0, |(_, s)| f64::from(s)) * weight(c),
        SearchMode::Hybrid => fused,
    };
    let mut groups: Vec<Group> = Vec::new();
    let mut index_of: HashMap<(String, String), usize> = HashMap::new();
    for (signal, fused, c) in ranked {
        // One result per definition: code between definitions and
        // document sections are no definition.
        let no_definition = c.row.kind == Kind::Chunk.as_str() || c.row.kind == Kind::Doc.as_str();
        if q.group == SearchGroup::Definition && no_definition {
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
            continue;
        }
        index_of.insert(key, groups.len());
        groups.push(Group {
            signal,
            fused,
            score,
            chunks: 1,
            symbols: c.row.symbol_id.into_iter().collect(),
            borrowed: Vec::new(),
            named: None,
            past: None,
            recent: None,
            best: c,
        });
    }
    groups
}

/// One group as Evidence, its `reason` saying what ranked it.
fn evidence_of(
    plan: &Plan<'_>,
    reader: &mut SnippetReader<'_>,
    group: Group,
    roles: &RoleWeights,
    fuse: &Fusion,
) -> Evidence {
    let c = &group.best;
    let snippet = reader.evidence(&c.row.path, c.row.start, c.row.end, Budget::DEFINITION);
    let reasons = reasons(plan, &group, roles, fuse);
    let row = group.best.row;
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
    ev
}

/// What ranked a group: its exact-name signal, its role's weight, its rank
/// in each list, the fusion, the grouping and what it borrowed.
fn reasons(plan: &Plan<'_>, group: &Group, roles: &RoleWeights, fuse: &Fusion) -> Vec<String> {
    let (q, c) = (plan.q, &group.best);
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
        let length = plan.signals.length;
        let normalised = if length > 0.0 {
            format!(" / chunks^{length}")
        } else {
            String::new()
        };
        reasons.push(format!(
            "{} chunk(s) of this group, scores summed{normalised}",
            group.chunks
        ));
    }
    reasons.extend(group.named.clone());
    reasons.extend(group.past.clone());
    reasons.extend(group.recent.clone());
    for (signal, amount) in &group.borrowed {
        reasons.push(format!("+{amount:.3} from {signal}"));
    }
    reasons
}
