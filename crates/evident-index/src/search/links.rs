//! What structure adds to a ranking: the chunks of what the query's spans
//! name, and scores lent along calls, containment and imports.

use super::candidates::{Candidate, Group};
use super::mentions;
use super::request::{PathFilter, SearchGroup, SearchQuery};
use super::signals::{self, Signals};
use crate::error::Result;
use crate::query::Index;
use crate::store::chunks::{self, ChunkRow};

impl Index {
    /// The chunks of what the query names that the lists did not bring: a
    /// file named by a traceback may share no word with the query's prose.
    /// One chunk per mention: the definition's, else the one holding the
    /// frame's line, else the file's first. What a named definition calls
    /// is not brought: it only reorders what the lists found.
    pub(super) fn add_mentioned(
        &self,
        candidates: &mut Vec<Candidate>,
        mentions: &[mentions::Mention],
        q: &SearchQuery,
        path_filter: Option<&PathFilter>,
    ) -> Result<()> {
        let missing: Vec<&mentions::Mention> = mentions
            .iter()
            .filter(|m| !m.called && !m.area && path_filter.is_none_or(|f| f.matches(&m.path)))
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
    pub(super) fn borrow_along_links(
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
