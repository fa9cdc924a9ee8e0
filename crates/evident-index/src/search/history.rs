//! The history signal: the files that past commits with messages like the
//! query changed (bug localization's "similar fixed reports"). A report or
//! a commit message reads like the messages of earlier changes to the same
//! files; the history (HEAD's recent commits, [`crate::history`]) is a
//! second full-text list, of messages, each lending its score to the files
//! it changed. Like the structural signals it reorders what the words
//! found and brings in nothing: a file changed often is not, by that
//! alone, the file a query is about.
//!
//! The recency prior: the same commits, read by age alone. Code changed
//! lately and often is where the next fault is likeliest (defect
//! prediction's finding, and bug localization's "version history" prior),
//! so among the first page of results the files HEAD's recent commits
//! changed most move up. It reorders a page the words already chose.

use std::collections::HashMap;

use super::candidates::{best_score, Candidate, Group};
use super::signals::Signals;
use crate::error::Result;
use crate::query::Index;
use crate::store::history::{self, MatchedCommit};

/// How many of the best-matching messages lend to their files.
const DEPTH: usize = 30;
/// How fast a commit's weight fades with its age, in commits: the 50th
/// newest kept counts 1/e of the newest.
const RECENCY_FADE: f64 = 50.0;
/// How many of the best results the recency prior reorders: a first page.
const RECENCY_DEPTH: usize = 10;
/// A page's rank `r` (from 0) counts `1 / (r + RANK_OFFSET)`: the first
/// place is worth a third, the second a quarter.
const RANK_OFFSET: f64 = 3.0;

/// One query's past commits, and what each path gained from them.
pub(super) struct PastChanges {
    commits: Vec<MatchedCommit>,
    /// Path → its share, and the best commit that changed it (an index
    /// into `commits`).
    by_path: HashMap<String, (f64, usize)>,
    best: f64,
    weight: f64,
}

impl PastChanges {
    /// Nothing: the signal is off for this query, or there is no history.
    pub(super) fn none() -> PastChanges {
        PastChanges {
            commits: Vec::new(),
            by_path: HashMap::new(),
            best: 0.0,
            weight: 0.0,
        }
    }

    /// Each matching commit lends its score over the best message's,
    /// shared among the paths it changed (a commit of one file says more
    /// about that file than one of ten).
    fn new(commits: Vec<MatchedCommit>, weight: f64) -> PastChanges {
        let top = commits.first().map_or(0.0, |c| c.score);
        let mut by_path: HashMap<String, (f64, usize)> = HashMap::new();
        if top > 0.0 {
            for (i, commit) in commits.iter().enumerate() {
                let share = commit.score / top / commit.paths.len().max(1) as f64;
                for path in &commit.paths {
                    by_path.entry(path.clone()).or_insert((0.0, i)).0 += share;
                }
            }
        }
        let best = by_path.values().map(|(s, _)| *s).fold(0.0, f64::max);
        PastChanges {
            commits,
            by_path,
            best,
            weight,
        }
    }

    /// Each group gains `weight ×` its file's share over the best file's
    /// `×` the best group's score, at its file's role weight; said in its
    /// reasons with the best commit that changed the file.
    pub(super) fn credit(&self, groups: &mut [Group], role_weight: &dyn Fn(&Candidate) -> f64) {
        if self.weight == 0.0 || self.best <= 0.0 {
            return;
        }
        let top = best_score(groups);
        for g in groups.iter_mut() {
            let Some((share, commit)) = self.by_path.get(&g.best.row.path) else {
                continue;
            };
            let gained = self.weight * top * share / self.best * role_weight(&g.best);
            if gained > 0.0 {
                g.score += gained;
                g.borrowed
                    .push(("past commits with messages like the query", gained));
                let commit = &self.commits[*commit];
                let short = commit.oid.get(..12).unwrap_or(&commit.oid);
                g.past = Some(format!("changed by {short} {:?}", commit.subject));
            }
        }
    }
}

impl Index {
    /// The past commits whose messages best match the query's terms (an
    /// FTS5 expression), and the files they changed that `keeps` lets
    /// through.
    pub(super) fn past_changes(
        &self,
        expression: &str,
        signals: &Signals,
        keeps: &dyn Fn(&str) -> bool,
    ) -> Result<PastChanges> {
        // No history kept (a root outside git): no full-text table read.
        if signals.history == 0.0 || history::commit_count(self.connection())? == 0 {
            return Ok(PastChanges::none());
        }
        let mut commits = history::matching(self.connection(), expression, DEPTH)?;
        for commit in &mut commits {
            commit.paths.retain(|p| keeps(p));
        }
        commits.retain(|c| !c.paths.is_empty());
        Ok(PastChanges::new(commits, signals.history))
    }

    /// The recency prior ([`Signals::recency`]): the first page, already
    /// in answer order, is ordered again by `1 / (rank + 3)` plus `weight
    /// × ln(1 + how much recent commits changed its file)` over the most
    /// any of them has, at the file's role weight. By rank, not score: a
    /// page's scores can lie close or far apart, and the prior should
    /// move a result by places, not by how the words happened to score.
    pub(super) fn rerank_by_recency(
        &self,
        groups: &mut Vec<Group>,
        weight: f64,
        role_weight: &dyn Fn(&Candidate) -> f64,
    ) -> Result<()> {
        if weight == 0.0 || history::commit_count(self.connection())? == 0 {
            return Ok(());
        }
        let page = groups.len().min(RECENCY_DEPTH);
        let changed: Vec<f64> = groups[..page]
            .iter()
            .map(|g| history::recency(self.connection(), &g.best.row.path, RECENCY_FADE))
            .collect::<Result<_>>()?;
        let most = changed.iter().copied().map(f64::ln_1p).fold(0.0, f64::max);
        if most <= 0.0 {
            return Ok(());
        }
        let mut order: Vec<(u8, f64, usize)> = (groups[..page].iter().zip(&changed))
            .enumerate()
            .map(|(rank, (g, c))| {
                let prior = weight * c.ln_1p() / most * role_weight(&g.best);
                (g.signal, 1.0 / (rank as f64 + RANK_OFFSET) + prior, rank)
            })
            .collect();
        order.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut page_groups: Vec<Option<Group>> = groups.drain(..page).map(Some).collect();
        let reordered = order.iter().map(|&(_, _, rank)| {
            let mut g = page_groups[rank].take().expect("each rank once");
            if changed[rank] > 0.0 {
                g.recent = Some(format!(
                    "recent commits to its file weigh {:.2} (the page's most: {:.2}; was #{})",
                    changed[rank],
                    most.exp_m1(),
                    rank + 1
                ));
            }
            g
        });
        let rest = std::mem::take(groups);
        groups.extend(reordered);
        groups.extend(rest);
        Ok(())
    }
}
