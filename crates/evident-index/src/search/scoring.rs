//! How one query's candidates are scored beyond the words: the fusion of
//! the full-text and vector lists, what each file role counts, and the
//! credit the query's spans give what they name. [`super`] ranks with these.

use super::candidates::{best_score, Candidate, Group};
use super::request::SearchGroup;
use super::signals::Signals;
use super::{mentions, spans};
use crate::evidence::Kind;
use crate::lang::roles::{self, FileRole};
use crate::store::chunks::ChunkRow;

/// How hybrid search fuses its two lists. By normalised scores (the
/// default, `fusion` 1): a chunk's BM25 score over the best one's, plus
/// `vector ×` its cosine min-max normalised over the vector list, so a far
/// better match keeps its lead (reciprocal ranks give BM25's first with a
/// score twice the second's barely more than the second). By reciprocal
/// ranks (`fusion` 0): each list's rank r adds 1 / (k + r).
pub(super) struct Fusion {
    by_scores: bool,
    k: f64,
    vector: f64,
    best_bm25: f64,
    cosines: (f32, f32),
}

impl Fusion {
    pub(super) fn new(candidates: &[Candidate], k: f64, signals: &Signals) -> Fusion {
        let best_bm25 = candidates
            .iter()
            .filter_map(|c| c.bm25.map(|(_, s)| s))
            .fold(0.0, f64::max);
        let cosines = candidates
            .iter()
            .filter_map(|c| c.vector.map(|(_, s)| s))
            .fold((f32::MAX, f32::MIN), |(lo, hi), s| (lo.min(s), hi.max(s)));
        Fusion {
            by_scores: signals.fusion > 0.0,
            k,
            vector: signals.vector,
            best_bm25,
            cosines,
        }
    }

    pub(super) fn name(&self) -> &'static str {
        if self.by_scores {
            "fused"
        } else {
            "rrf"
        }
    }

    pub(super) fn score(&self, c: &Candidate) -> f64 {
        if !self.by_scores {
            let bm25 = c.bm25.map(|(r, _)| 1.0 / (self.k + r as f64 + 1.0));
            let vector = c
                .vector
                .map(|(r, _)| self.vector / (self.k + r as f64 + 1.0));
            return bm25.unwrap_or(0.0) + vector.unwrap_or(0.0);
        }
        let bm25 = c
            .bm25
            .filter(|_| self.best_bm25 > 0.0)
            .map_or(0.0, |(_, s)| s / self.best_bm25);
        let (lo, hi) = self.cosines;
        let vector = c.vector.map_or(0.0, |(_, s)| {
            if hi > lo {
                f64::from((s - lo) / (hi - lo))
            } else {
                1.0
            }
        });
        bm25 + self.vector * vector
    }
}

/// What each file role counts for one query ([`crate::lang::roles`]): a
/// role loses its signal's share, less what the query asks for it by name
/// (whole in a short query, in proportion in a long one).
pub(super) struct RoleWeights<'a> {
    terms: &'a [String],
    signals: &'a Signals,
    seen: std::cell::RefCell<std::collections::HashMap<String, FileRole>>,
    /// How much the query asks for each role met so far: read once per role.
    asked: std::cell::RefCell<Vec<(FileRole, f64)>>,
}

impl<'a> RoleWeights<'a> {
    pub(super) fn new(terms: &'a [String], signals: &'a Signals) -> Self {
        RoleWeights {
            terms,
            signals,
            seen: Default::default(),
            asked: Default::default(),
        }
    }

    pub(super) fn weight(&self, row: &ChunkRow) -> (FileRole, f64) {
        let mut seen = self.seen.borrow_mut();
        let role = *seen
            .entry(row.path.clone())
            .or_insert_with(|| roles::role_of(&row.path));
        // A document's section in a file no rule names is documentation.
        let role = if role == FileRole::Source && row.kind == Kind::Doc.as_str() {
            FileRole::Documentation
        } else {
            role
        };
        let share = match role {
            FileRole::Source => 0.0,
            FileRole::Test => self.signals.tests,
            // A declaration file describes the code as documentation does.
            FileRole::Documentation | FileRole::Example | FileRole::Interface => self.signals.docs,
            FileRole::Changelog | FileRole::Benchmark | FileRole::Generated => self.signals.aside,
        };
        (role, 1.0 - share * (1.0 - self.asked_share(role)))
    }

    fn asked_share(&self, role: FileRole) -> f64 {
        let mut asked = self.asked.borrow_mut();
        if let Some((_, share)) = asked.iter().find(|(r, _)| *r == role) {
            return *share;
        }
        let share = roles::asked_share(role, self.terms);
        asked.push((role, share));
        share
    }
}

/// Each group gains `mentions ×` how surely the query names it `×` the best
/// score the words gave any group, at its file's weight (a test, a
/// document). Spans naming one group are independent evidence: together
/// they name it with 1 − Π(1 − strength). A file is named by what names it
/// or a definition in it; a definition (or a chunk) by what names it, and a
/// little (0.3) by what names its file alone.
pub(super) fn credit_mentions(
    groups: &mut [Group],
    mentions: &[mentions::Mention],
    spans: &[spans::Span],
    group: SearchGroup,
    signals: &Signals,
    weight: &dyn Fn(&Candidate) -> f64,
) {
    if mentions.is_empty() || signals.mentions == 0.0 {
        return;
    }
    let top = best_score(groups);
    for g in groups.iter_mut() {
        let mut unnamed = 1.0;
        let mut named: Vec<String> = Vec::new();
        for m in mentions.iter().filter(|m| m.file_id == g.best.row.file_id) {
            let share = match (group, m.symbol) {
                (SearchGroup::File, _) => 1.0,
                (_, Some(symbol)) if g.symbols.contains(&symbol) => 1.0,
                (_, None) => 0.3,
                _ => continue,
            };
            unnamed *= 1.0 - (m.strength * share).min(1.0);
            let span = &spans[m.span];
            let said = if m.called {
                format!("called by {} `{}`", span.kind.as_str(), span.text)
            } else {
                format!("{} `{}`", span.kind.as_str(), span.text)
            };
            if !named.contains(&said) {
                named.push(said);
            }
        }
        let strength = 1.0 - unnamed;
        if strength > 0.0 {
            let gained = signals.mentions * strength * top * weight(&g.best);
            g.score += gained;
            g.named = Some(format!(
                "+{gained:.3} named in the query: {}",
                named.join(", ")
            ));
        }
    }
}
