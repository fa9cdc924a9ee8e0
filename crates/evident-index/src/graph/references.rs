//! References: the definitions whose code names a definition, by word, not
//! only by call: a type in a signature, a class passed along, a constant
//! read. The full-text index narrows the chunks to those holding the name's
//! words; each candidate line is then read and kept only where the name
//! stands as a whole identifier. The definition's own lines are left out.

use crate::error::Result;
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::Budget;
use crate::store::chunks;

/// The most reference sites listed.
pub const MAX_REFERENCES: usize = 60;

/// Chunks read to find them: the full-text query is only a filter.
const CANDIDATE_CHUNKS: usize = 400;

impl Index {
    /// Each line outside `symbol`'s own definition where its name stands as
    /// an identifier, as a `call`-kind record named after the enclosing
    /// definition (or the file, at module level), at most [`MAX_REFERENCES`].
    pub fn references(&self, symbol: &str, path: Option<&str>) -> Result<Vec<Evidence>> {
        let targets = self.graph_targets(symbol, path)?;
        let Some(name) = targets.first().map(|t| t.name.clone()) else {
            return Ok(Vec::new());
        };
        let words: Vec<&str> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let phrase = format!("body : \"{}\"", words.join(" ").replace('"', ""));
        let rows = chunks::full_text(
            self.connection(),
            &phrase,
            "1.0, 1.0, 1.0, 1.0",
            None,
            CANDIDATE_CHUNKS,
        )?;
        let mut rows: Vec<_> = rows.into_iter().map(|(row, _)| row).collect();
        rows.sort_by(|a, b| (&a.path, a.start).cmp(&(&b.path, b.start)));
        let mut reader = self.reader();
        let mut out: Vec<Evidence> = Vec::new();
        for row in rows.into_iter().filter(|r| r.kind != Kind::Doc.as_str()) {
            for line in row.start..=row.end {
                let own = targets
                    .iter()
                    .any(|t| t.path == row.path && t.start_line <= line && line <= t.end_line);
                if own
                    || out
                        .iter()
                        .any(|e| e.path == row.path && e.start_line == line)
                {
                    continue;
                }
                let Ok(Some(text)) = reader.line(&row.path, line) else {
                    continue;
                };
                if !names_identifier(&text, &name) {
                    continue;
                }
                let owner = self
                    .enclosing_name(&row.path, line, line)?
                    .unwrap_or_else(|| row.path.clone());
                let snippet = reader.evidence(&row.path, line, line, Budget::DEFINITION);
                let mut ev = Evidence::new(&row.path, line, line, Kind::Call, owner, snippet);
                ev.reason = Some(format!("uses {name}"));
                out.push(ev);
                if out.len() == MAX_REFERENCES {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }
}

/// Whether `name` stands in `line` as a whole identifier.
fn names_identifier(line: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::names_identifier;

    #[test]
    fn a_name_counts_only_as_a_whole_identifier() {
        assert!(names_identifier("x = Parser(text)", "Parser"));
        assert!(names_identifier("fn f(p: &Parser) {", "Parser"));
        assert!(!names_identifier("x = SubParser()", "Parser"));
        assert!(!names_identifier("parser_of = 1", "parser"));
    }
}
