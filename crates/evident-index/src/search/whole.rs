//! The whole-file signal: each file's text as one BM25 document
//! (`files_fts`). Chunks rank where a query's words meet in one place; a
//! long query (an issue report, a commit body) spreads its words over the
//! definitions of the file to change, and only the file as a whole holds
//! most of them. A file's whole-text score lends its results a share, the
//! larger the more distinct words the query has ([`Signals::file`]).

use std::collections::{HashMap, HashSet};

use super::candidates::{best_score, Candidate, Group};
use super::request::SearchQuery;
use super::signals::Signals;
use crate::error::Result;
use crate::query::Index;
use crate::store::chunks;

/// How many files the whole-file list reads.
const DEPTH: usize = 100;
/// How many of its first files join the results when no chunk of theirs did.
const BROUGHT_IN: usize = 10;
/// The number of distinct query words at which the signal counts half.
const HALF_AT_TERMS: f64 = 20.0;

/// One query's whole-file scores.
pub(super) struct WholeFiles {
    /// Best first: file id and BM25 score.
    ranked: Vec<(i64, f64)>,
    by_file: HashMap<i64, f64>,
    best: f64,
    /// `file × n / (n + HALF_AT_TERMS)`.
    weight: f64,
}

impl WholeFiles {
    /// Nothing: the signal is off for this query.
    pub(super) fn none() -> WholeFiles {
        WholeFiles {
            ranked: Vec::new(),
            by_file: HashMap::new(),
            best: 0.0,
            weight: 0.0,
        }
    }

    /// Each group gains `weight ×` its file's score over the best file's
    /// `×` the best group's score, at its file's role weight (a test, a
    /// document). Said in the group's reasons.
    pub(super) fn credit(&self, groups: &mut [Group], role_weight: &dyn Fn(&Candidate) -> f64) {
        if self.weight == 0.0 || self.best <= 0.0 {
            return;
        }
        let top = best_score(groups);
        for g in groups.iter_mut() {
            let Some(score) = self.by_file.get(&g.best.row.file_id) else {
                continue;
            };
            let gained = self.weight * top * score / self.best * role_weight(&g.best);
            if gained > 0.0 {
                g.score += gained;
                g.borrowed.push(("the whole file's words", gained));
            }
        }
    }
}

impl Index {
    /// The files whose whole text best matches the query's terms, those
    /// `keeps` (the path and language filters) lets through.
    pub(super) fn whole_files(
        &self,
        expression: &str,
        terms: usize,
        signals: &Signals,
        keeps: &dyn Fn(&str) -> bool,
    ) -> Result<WholeFiles> {
        if signals.file == 0.0 || terms == 0 {
            return Ok(WholeFiles::none());
        }
        let weights = signals.file_column_weights();
        let found = chunks::whole_files(self.connection(), expression, &weights, DEPTH)?;
        let ranked: Vec<(i64, f64)> = found
            .into_iter()
            .filter(|(_, path, _)| keeps(path))
            .map(|(id, _, score)| (id, score))
            .collect();
        let n = terms as f64;
        Ok(WholeFiles {
            by_file: ranked.iter().copied().collect(),
            best: ranked.iter().map(|(_, s)| *s).fold(0.0, f64::max),
            weight: signals.file * n / (n + HALF_AT_TERMS),
            ranked,
        })
    }

    /// Brings in the first files of the whole-file list that no chunk
    /// found, each by its first chunk (of the kind asked for): the file's
    /// words may meet nowhere in one chunk.
    pub(super) fn add_whole_files(
        &self,
        candidates: &mut Vec<Candidate>,
        whole: &WholeFiles,
        q: &SearchQuery,
    ) -> Result<()> {
        let present: HashSet<i64> = candidates.iter().map(|c| c.row.file_id).collect();
        let missing: Vec<i64> = (whole.ranked.iter().take(BROUGHT_IN))
            .map(|(id, _)| *id)
            .filter(|id| !present.contains(id))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut rows = chunks::chunks_of_files(self.connection(), &missing)?;
        rows.retain(|r| q.kind.is_none_or(|k| k.as_str() == r.kind));
        let mut seen = HashSet::new();
        for row in rows {
            if seen.insert(row.file_id) {
                candidates.push(Candidate {
                    row,
                    bm25: None,
                    vector: None,
                });
            }
        }
        Ok(())
    }
}
