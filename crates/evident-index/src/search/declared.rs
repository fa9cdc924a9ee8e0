//! Names a function's first line declares that no definition is named:
//! a named function expression (`var assign = function assignSingleSource(…)`),
//! the name its stack frames print. A
//! SYMBOL argument, a question's span and a tool's name that match no
//! definition fall back to it (`Index::symbols`, the graph's targets), so
//! the CLI, the tools and `ask` agree. Read only: found through the
//! full-text index, each answer's first line checked.

use super::{SearchGroup, SearchQuery};
use crate::error::Result;
use crate::evidence::{Evidence, Kind};
use crate::lang::syntax;
use crate::query::Index;
use crate::store::reads::SymbolMatch;

/// How many full-text answers are read for the name.
const READ: usize = 5;

impl Index {
    /// The functions whose first line declares `name`'s last segment after
    /// their own name, as a function is declared (`name(`). A qualifier
    /// (`utils.` in `utils.assignSingleSource`) must end the file's module
    /// path. `rank` 4: below every match of a name of its own.
    pub(crate) fn declared_in_headers(
        &self,
        name: &str,
        path: Option<&str>,
    ) -> Result<Vec<SymbolMatch>> {
        let dotted = syntax::dotted(name);
        let (qualifier, last) = dotted.rsplit_once('.').unwrap_or(("", &dotted));
        if !syntax::is_identifier(last) {
            return Ok(Vec::new());
        }
        let request = SearchQuery {
            limit: READ,
            group: SearchGroup::Definition,
            path: path.map(str::to_string),
            ..SearchQuery::new(last)
        };
        // A name made only of very common words has nothing to search for.
        let Ok(found) = self.search(&request) else {
            return Ok(Vec::new());
        };
        let segments: Vec<&str> = qualifier.split('.').filter(|s| !s.is_empty()).collect();
        let declares = |ev: &Evidence| {
            let header = ev.snippet.lines().next().unwrap_or_default();
            matches!(ev.kind, Kind::Function | Kind::Method)
                && declares_after(header, &ev.name, last)
                && (segments.is_empty() || crate::modules::module_ends_with(&ev.path, &segments))
        };
        Ok(found
            .into_iter()
            .filter(declares)
            .map(|ev| SymbolMatch {
                qualified: ev.qualified_name.clone().unwrap_or_else(|| ev.name.clone()),
                kind: ev.kind.as_str().to_string(),
                path: ev.path,
                start: ev.start_line,
                end: ev.end_line,
                name: ev.name,
                rank: 4,
            })
            .collect())
    }
}

/// Whether `line` holds `word` as a whole word followed by `(` or `<` (a
/// function's parameters or type parameters) after `own`.
fn declares_after(line: &str, own: &str, word: &str) -> bool {
    let Some(from) = line.find(own).map(|at| at + own.len()) else {
        return false;
    };
    let rest = &line[from..];
    rest.match_indices(word).any(|(at, _)| {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].trim_start().chars().next();
        !before.is_some_and(syntax::is_name_char) && matches!(after, Some('(' | '<'))
    })
}

#[cfg(test)]
mod tests {
    use super::declares_after;

    #[test]
    fn a_name_is_declared_where_parameters_follow_it() {
        let header = "var assign = function assignSingleSource(target, source) {";
        assert!(declares_after(header, "assign", "assignSingleSource"));
        // A parameter, a name before the function's own, a longer name.
        assert!(!declares_after(header, "assign", "source"));
        assert!(!declares_after("function f() { return g(1) }", "g", "f"));
        assert!(!declares_after(header, "assign", "SingleSource"));
    }
}
