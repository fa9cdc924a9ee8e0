//! What besides the words ranks a search result, each with a weight a user
//! can change (`--signal NAME=WEIGHT`; 0 turns one off), so each one's
//! contribution can be measured alone (BENCHMARKS.md, the ablation table).
//!
//! Structure (seed 003's hybrid of the syntax index and the call graph): a
//! result borrows a share of the scores of the results it is linked to in the
//! code. A definition borrows from the definitions it calls and that call it,
//! and from its class; a file borrows from the files that import it. Only
//! links among the results of one query count: borrowing reorders what the
//! words found, it does not bring in code that shares no word with the query.

use super::grouping::SearchGroup;
use crate::error::{Error, Result};

/// The weights. A borrowing weight `w` adds `w ×` a linked result's score;
/// `tests`, `docs` and `aside` take that share off the score of a test,
/// a document or an example, and a change log, a benchmark or generated or
/// vendored code ([`crate::lang::roles`]) when the query does not ask for
/// them; `vector` is the
/// nearest-vector list's share of hybrid fusion (the full-text list has 1).
/// `name`, `signature`, `body` and `path` are BM25F's column weights (a
/// chunk's name; its signature and doc comment; its body; its file's path),
/// and `length` normalises a group's summed score by its chunk count
/// (`sum / chunks^length`: 0 keeps the sum, 1 makes it the mean).
/// `mentions`: a result the query names (a traceback's frame, a path, a
/// dotted name: [`crate::search::mentions`]) gains `mentions ×` how surely it
/// is named `×` the best score the words gave any result; `callees`: a
/// named definition's callees in other files are named too, with `callees ×`
/// its strength shared among their files (a report names the API it called;
/// the fault is often in what that runs). `fusion` picks
/// how hybrid search fuses its lists: 1 by normalised scores, 0 by
/// reciprocal ranks. `file`: a file's whole text as one document, scored by
/// BM25, lends its file's results `file × n / (n + 20) ×` its score over the
/// best file's `×` the best result's score, where n is the query's distinct
/// terms: a long query's words spread over a file's definitions, so the
/// more words, the more a file that holds many of them says. `size`: a
/// result's score is multiplied by `1 + size × ln(lines)` of its best chunk:
/// a larger definition holds more that can be wrong, and more often changes
/// (bug localization's length prior). `history`: a file that past commits
/// with messages like the query changed gains `history ×` its share of
/// their scores over the best file's `×` the best result's score
/// ([`crate::search`]'s history signal). `recency`: the first page is
/// ordered again by `1 / (rank + 3)` plus `recency ×` how much HEAD's
/// recent commits changed each file (`ln(1 + Σ e^(-age / 50 commits))`)
/// over the most any of them was (bug localization's "recently changed
/// code is where faults are" prior).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub calls: f64,
    pub class: f64,
    pub imports: f64,
    pub tests: f64,
    pub docs: f64,
    pub aside: f64,
    pub vector: f64,
    pub name: f64,
    pub signature: f64,
    pub body: f64,
    pub path: f64,
    pub length: f64,
    pub mentions: f64,
    pub callees: f64,
    pub fusion: f64,
    pub file: f64,
    pub size: f64,
    pub history: f64,
    pub recency: f64,
}

/// The names `--signal` takes, in the order `evident search --help` lists them.
pub const SIGNAL_NAMES: &[&str] = &[
    "calls",
    "class",
    "imports",
    "tests",
    "docs",
    "aside",
    "vector",
    "name",
    "signature",
    "body",
    "path",
    "length",
    "mentions",
    "callees",
    "fusion",
    "file",
    "size",
    "history",
    "recency",
];

impl Signals {
    /// The defaults for a kind of result, tuned on half A of the localization
    /// benchmark (BENCHMARKS.md, "Structure as a signal"); a signal is on
    /// only where it gained at least 0.01 file MRR or two records of
    /// function Acc@5 on that half: of the structural links, calls between
    /// files; not calls or classes for definitions, nor imports once groups
    /// were length-normalised.
    pub fn for_group(group: SearchGroup) -> Signals {
        let mut signals = Signals {
            calls: 0.0,
            class: 0.0,
            imports: 0.0,
            tests: 0.8,
            docs: 0.5,
            aside: 0.9,
            vector: 1.0,
            name: 10.0,
            signature: 5.0,
            body: 2.0,
            path: 1.0,
            length: 0.0,
            mentions: 1.0,
            callees: 0.5,
            fusion: 1.0,
            file: 0.0,
            size: 0.0,
            history: 0.0,
            recency: 0.0,
        };
        match group {
            SearchGroup::Chunk => {}
            // A file's sum over √chunks: a long file matching many words a
            // little no longer outranks a short one matching them well.
            SearchGroup::File => {
                signals.length = 0.5;
                signals.file = 1.0;
                // A file whose definitions call or are called by the best
                // matches is likely part of the change.
                signals.calls = 0.3;
                // Tuned on half A: 0.1 to 0.5 gained alike, 0.2 most MRR;
                // for definitions it lost at every weight.
                signals.history = 0.2;
                // Tuned on half A: 0.05 moved nothing, 0.2 lost; for
                // definitions every weight lost.
                signals.recency = 0.1;
            }
            SearchGroup::Definition => {
                signals.length = 0.5;
                // The nearest vectors lift definitions that share the query's
                // topic but not its words; too many of them push out the one
                // that changed.
                signals.vector = 0.1;
                // Tuned on half A: 0.2 to 0.3 gained function Acc@5, 0.5 lost.
                signals.size = 0.3;
            }
        }
        signals
    }

    /// Applies `NAME=WEIGHT`.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let bad = |why: String| Error::InvalidArgument(format!("--signal {assignment:?}: {why}"));
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=WEIGHT, such as calls=0.2".into()))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| bad(format!("{value:?} is not a weight (a number, 0 or more)")))?;
        let mut next = *self;
        let slot = match name.trim() {
            "calls" => &mut next.calls,
            "class" => &mut next.class,
            "imports" => &mut next.imports,
            "tests" => &mut next.tests,
            "docs" => &mut next.docs,
            "aside" => &mut next.aside,
            "vector" => &mut next.vector,
            "name" => &mut next.name,
            "signature" => &mut next.signature,
            "body" => &mut next.body,
            "path" => &mut next.path,
            "length" => &mut next.length,
            "mentions" => &mut next.mentions,
            "callees" => &mut next.callees,
            "fusion" => &mut next.fusion,
            "file" => &mut next.file,
            "size" => &mut next.size,
            "history" => &mut next.history,
            "recency" => &mut next.recency,
            other => {
                return Err(bad(format!(
                    "no signal is named {other:?}; the signals are {}",
                    SIGNAL_NAMES.join(", ")
                )))
            }
        };
        if matches!(name.trim(), "tests" | "docs" | "aside") && value > 1.0 {
            return Err(bad("a share taken off is at most 1".into()));
        }
        *slot = value;
        if [next.name, next.signature, next.body, next.path] == [0.0; 4] {
            return Err(bad(
                "at least one column (name, signature, body, path) must weigh something".into(),
            ));
        }
        *self = next;
        Ok(())
    }

    /// The whole-file table's column weights (`path, text`) as `bm25()` takes them.
    pub(crate) fn file_column_weights(&self) -> String {
        format!("{:?}, {:?}", self.path, self.body)
    }

    /// The chunks' column weights as `bm25()` takes them.
    pub(crate) fn column_weights(&self) -> String {
        format!(
            "{:?}, {:?}, {:?}, {:?}",
            self.name, self.signature, self.body, self.path
        )
    }
}

/// One round of lending along links: `(from, to)` lends `from`'s score to
/// `to`, and each result gains `weight ×` the best score lent to it, as the
/// scores were before the round. The best, not the sum: a helper linked to
/// everything (a logger, `echo`) would otherwise outrank what the words found.
pub(crate) fn lend(scores: &mut [f64], links: &[(usize, usize)], weight: f64) {
    if weight == 0.0 || links.is_empty() {
        return;
    }
    let mut best = vec![0f64; scores.len()];
    for &(from, to) in links {
        best[to] = best[to].max(scores[from]);
    }
    for (score, best) in scores.iter_mut().zip(best) {
        *score += weight * best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_set_by_name_and_refuse_nonsense() {
        let mut s = Signals::for_group(SearchGroup::File);
        s.set("calls=0.25").unwrap();
        assert_eq!(s.calls, 0.25);
        s.set("size=0.5").unwrap();
        assert_eq!(s.size, 0.5);
        assert_eq!(Signals::for_group(SearchGroup::File).size, 0.0);
        assert_eq!(Signals::for_group(SearchGroup::Definition).size, 0.3);
        s.set("tests=0").unwrap();
        assert_eq!(s.tests, 0.0);
        for bad in [
            "calls",
            "calls=x",
            "calls=-1",
            "calls=NaN",
            "tests=2",
            "speed=1",
        ] {
            let e = s.set(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        assert_eq!(s.column_weights(), "10.0, 5.0, 2.0, 1.0");
        for column in ["name=0", "signature=0", "body=0"] {
            s.set(column).unwrap();
        }
        let e = s.set("path=0").unwrap_err().to_string();
        assert!(e.contains("at least one column"), "{e}");
        assert_eq!(s.path, 1.0, "a refused change changes nothing");
        assert!(s
            .set("speed=1")
            .unwrap_err()
            .to_string()
            .contains("calls, class, imports, tests, docs, aside, vector"));
    }

    #[test]
    fn borrowing_uses_the_scores_before_the_round() {
        let mut scores = vec![1.0, 2.0, 0.0, 4.0];
        let both_ways = [(0, 1), (1, 0), (1, 2), (2, 1), (1, 3), (3, 1)];
        lend(&mut scores, &both_ways, 0.5);
        assert_eq!(
            scores,
            [2.0, 4.0, 1.0, 5.0],
            "the best linked score, not the sum"
        );
        let mut scores = vec![1.0, 2.0, 0.0];
        lend(&mut scores, &[(0, 1), (1, 2)], 0.5);
        assert_eq!(scores, [1.0, 2.5, 1.0]);
        let mut scores = vec![1.0, 2.0];
        lend(&mut scores, &[(0, 1)], 0.0);
        assert_eq!(scores, [1.0, 2.0], "weight 0 is off");
    }
}
