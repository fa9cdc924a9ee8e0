//! `def` on a keyword argument (`open_stream(encoding=...)`): the called
//! function's parameter of that name, not a binding of the caller.

use crate::error::Result;
use crate::evidence::{Evidence, Kind};
use crate::lang::locals::{bindings_at, is_keyword_argument, Local};
use crate::query::Index;
use crate::snippet::Budget;
use crate::store::graph as rows;

/// A signature longer than this many lines is not searched for the parameter.
const MAX_SIGNATURE_LINES: u32 = 30;

impl Index {
    /// `Some` when `word` at `line:col` (1-based) is a keyword argument of a
    /// call near `line`: the callee's parameters named `word` (none when the call
    /// resolves to nothing in the repository).
    pub(super) fn keyword_parameter(
        &self,
        file_id: i64,
        rel: &str,
        (line, col): (u32, u32),
        text: &str,
        word: &str,
    ) -> Result<Option<Vec<Evidence>>> {
        // The syntax decides; a name not followed by `=` is not worth a parse.
        if !followed_by_equals(text, col.saturating_sub(1) as usize) {
            return Ok(None);
        }
        let conn = self.connection();
        let Some(spec) = crate::lang::by_name(&rows::file_language(conn, file_id)?) else {
            return Ok(None);
        };
        let keyword = match self.reader().text(rel) {
            Ok(source) => is_keyword_argument(spec, source, line, col),
            Err(_) => false,
        };
        if !keyword {
            return Ok(None);
        }
        let Some(targets) = rows::keyword_call_targets(conn, file_id, line, word)? else {
            return Ok(None);
        };
        let mut found = Vec::new();
        for id in targets {
            let callee = rows::definition(conn, id)?;
            found.extend(self.parameter_of(&callee, word)?);
        }
        Ok(Some(found))
    }

    /// The lines that bind `word` in the scope of `callee`'s signature.
    fn parameter_of(&self, callee: &rows::DefinitionRow, word: &str) -> Result<Vec<Evidence>> {
        let Some(file_id) = crate::store::reads::file_id(self.connection(), &callee.path) else {
            return Ok(Vec::new());
        };
        let language = rows::file_language(self.connection(), file_id)?;
        let Some(spec) = crate::lang::by_name(&language) else {
            return Ok(Vec::new());
        };
        let mut reader = self.reader();
        let Ok(source) = reader.text(&callee.path) else {
            return Ok(Vec::new());
        };
        let last = callee.end.min(callee.start + MAX_SIGNATURE_LINES);
        let lines = source.lines().enumerate().skip(callee.start as usize - 1);
        for (index, text) in lines.take((last + 1 - callee.start) as usize) {
            let number = index as u32 + 1;
            for col in word_columns(text, word) {
                if let Local::Bound(at) = bindings_at(spec, source, number, col as u32 + 1, word) {
                    let mut out = Vec::new();
                    for at in at {
                        let snippet = reader.evidence(&callee.path, at, at, Budget::DEFINITION);
                        let mut ev =
                            Evidence::new(&callee.path, at, at, Kind::Variable, word, snippet);
                        ev.confidence = Some("exact".into());
                        ev.reason = Some(format!(
                            "the parameter `{word}` of `{}`, which the call passes by keyword",
                            callee.qualified
                        ));
                        out.push(ev);
                    }
                    return Ok(out);
                }
            }
        }
        Ok(Vec::new())
    }
}

/// Whether the identifier around `col` (0-based, in chars) is followed by `=`.
fn followed_by_equals(text: &str, col: usize) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut rest = text.chars().skip(col).skip_while(|c| is_ident(*c));
    rest.find(|c| !c.is_whitespace()) == Some('=')
}

/// The char columns (0-based) where `word` stands as a whole identifier.
fn word_columns(text: &str, word: &str) -> Vec<usize> {
    let chars: Vec<char> = text.chars().collect();
    let target: Vec<char> = word.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    (0..chars.len())
        .filter(|&i| {
            chars[i..].starts_with(&target)
                && (i == 0 || !is_ident(chars[i - 1]))
                && chars.get(i + target.len()).is_none_or(|c| !is_ident(*c))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words() {
        assert_eq!(word_columns("def f(a, ab, a):", "a"), [6, 13]);
        assert!(followed_by_equals("f(encoding = e)", 4));
        assert!(!followed_by_equals("f(encoding, e)", 4));
    }
}
