//! A search's candidates (chunks with their rank in each list) and the
//! groups they are ranked in.

use std::cmp::Ordering;

use crate::store::chunks::ChunkRow;

/// One result: a chunk, a file or a definition, standing for its best chunk.
pub(super) struct Group {
    /// The exact-name signal (0 exact, 1 other spelling, 2 none): it ranks first.
    pub(super) signal: u8,
    /// The best chunk's fused (hybrid) score.
    pub(super) fused: f64,
    /// The sum of its chunks' scores, plus what it borrowed.
    pub(super) score: f64,
    pub(super) chunks: usize,
    /// The definitions its chunks belong to.
    pub(super) symbols: Vec<i64>,
    /// What each structural signal added.
    pub(super) borrowed: Vec<(&'static str, f64)>,
    /// What the query's spans that name it added, said for `--explain`.
    pub(super) named: Option<String>,
    /// The past commit that lent it most, said for `--explain`.
    pub(super) past: Option<String>,
    /// How recent commits moved it within the first page, said for `--explain`.
    pub(super) recent: Option<String>,
    pub(super) best: Candidate,
}

/// The best group's score, what a lent share is measured in (1 when no
/// group scored: a share still orders them).
pub(super) fn best_score(groups: &[Group]) -> f64 {
    let top = groups.iter().map(|g| g.score).fold(0.0, f64::max);
    if top > 0.0 {
        top
    } else {
        1.0
    }
}

/// The order results are answered in: the exact-name signal first, then
/// the score.
pub(super) fn answer_order(a: &Group, b: &Group) -> Ordering {
    a.signal.cmp(&b.signal).then(b.score.total_cmp(&a.score))
}

/// A chunk in the running, with its rank and score in each list.
pub(super) struct Candidate {
    pub(super) row: ChunkRow,
    pub(super) bm25: Option<(usize, f64)>,
    pub(super) vector: Option<(usize, f32)>,
}
