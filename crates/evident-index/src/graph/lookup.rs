//! Finding what a SYMBOL argument names: the definitions it matches, and,
//! when it matches none, where the name is defined instead or which names
//! are near it.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::query::Index;
use crate::store::graph::Target;
use crate::store::graph::{self as rows, TargetMatch};

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl Index {
    /// The definitions `symbol` names (exactly, by qualified name, or by
    /// qualified-name suffix), optionally under `path`. Unknown names get
    /// suggestions; several different definitions are an error listing them.
    pub fn graph_targets(&self, symbol: &str, path: Option<&str>) -> Result<Vec<Target>> {
        let symbol = crate::limits::name("symbol", symbol)?;
        let rel = path.map(|p| self.repo_rel(p)).transpose()?;
        let rows = self.targets_named(symbol, rel.as_deref())?;
        if rows.is_empty() {
            let hint = match &rel {
                Some(_) => self.defined_elsewhere(symbol)?,
                None => String::new(),
            };
            let hint = if hint.is_empty() {
                self.suggestions(symbol)?
            } else {
                hint
            };
            return Err(Error::NotFound(format!(
                "no definition named {symbol:?}{}{hint}",
                rel.map(|r| format!(" under {r}")).unwrap_or_default(),
            )));
        }
        // A qualified name given in full picks that one.
        if rows[0].qualified_name == symbol {
            return Ok(rows
                .into_iter()
                .filter(|t| t.qualified_name == symbol)
                .collect());
        }
        let distinct: HashSet<&str> = rows.iter().map(|t| t.qualified_name.as_str()).collect();
        if distinct.len() > 1 {
            let listed: Vec<String> = rows
                .iter()
                .take(20)
                .map(|t| {
                    format!(
                        "  {}  {}:{}  ({})",
                        t.qualified_name, t.path, t.start_line, t.kind
                    )
                })
                .collect();
            return Err(Error::InvalidArgument(format!(
                "{symbol:?} is ambiguous; {} definitions match:\n{}\npick one with its qualified name or --path",
                rows.len(),
                listed.join("\n")
            )));
        }
        Ok(rows)
    }

    /// Definitions by name or full qualified name (both indexed); only when
    /// neither matches is every qualified name scanned for the suffix, and
    /// only when that fails is the name read as a public path through what
    /// modules export, then as a name a function's first line declares.
    fn targets_named(&self, symbol: &str, rel: Option<&str>) -> Result<Vec<Target>> {
        let conn = self.connection();
        let rows = rows::targets(conn, TargetMatch::NameOrQualified, symbol, rel)?;
        if !rows.is_empty() {
            return Ok(rows);
        }
        let rows = rows::targets(conn, TargetMatch::QualifiedSuffix, symbol, rel)?;
        if !rows.is_empty() {
            return Ok(rows);
        }
        // A public path: `httpx.Client` for `httpx._client.Client`.
        let mut out = Vec::new();
        for d in crate::modules::through_exports(conn, symbol)? {
            let found = rows::targets(conn, TargetMatch::NameOrQualified, &d.qualified, rel)?;
            out.extend(found.into_iter().filter(|t| t.id == d.id));
        }
        if !out.is_empty() {
            return Ok(out);
        }
        // A name a function's first line declares: `function assignSingleSource(`.
        for m in self.declared_in_headers(symbol, rel)? {
            let found = rows::targets(conn, TargetMatch::NameOrQualified, &m.qualified, rel)?;
            out.extend(
                found
                    .into_iter()
                    .filter(|t| t.path == m.path && t.start_line == m.start),
            );
        }
        Ok(out)
    }

    /// When a path filter left out every definition of `symbol`: where they
    /// are (`; it is defined in a.py:3, b.py:10: change or drop the path`),
    /// or nothing when there are none anywhere.
    fn defined_elsewhere(&self, symbol: &str) -> Result<String> {
        let rows = self.targets_named(symbol, None)?;
        if rows.is_empty() {
            return Ok(String::new());
        }
        let mut places: Vec<String> = rows
            .iter()
            .take(5)
            .map(|t| format!("{}:{}", t.path, t.start_line))
            .collect();
        if rows.len() > 5 {
            places.push(format!("and {} more", rows.len() - 5));
        }
        Ok(format!(
            "; it is defined in {}: change or drop the path",
            places.join(", ")
        ))
    }

    fn suggestions(&self, symbol: &str) -> Result<String> {
        let short = crate::lang::extract::last_identifier(symbol).to_lowercase();
        let prefix: String = short.chars().take(3).collect();
        let names = rows::names_like(self.connection(), &prefix, &short)?;
        let mut scored: Vec<(usize, String)> = names
            .into_iter()
            .map(|n| (levenshtein(&n.to_lowercase(), &short), n))
            .filter(|(d, _)| *d <= short.len().max(3) / 2 + 1)
            .collect();
        scored.sort();
        let best: Vec<String> = scored.into_iter().take(5).map(|(_, n)| n).collect();
        Ok(if best.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", best.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("compute", "compte"), 1);
        assert_eq!(levenshtein("", "abc"), 3);
    }
}
