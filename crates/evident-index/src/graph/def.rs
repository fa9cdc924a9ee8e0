//! Go-to-definition: what the identifier at a position refers to, by scope,
//! import, attribute receiver and call site.

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::lang::locals::Local;
use crate::lang::syntax;
use crate::query::Index;
use crate::snippet::Budget;
use crate::store::graph as rows;

impl Index {
    /// The definition(s) the identifier at `path:line[:col]` refers to.
    pub fn definition_at(&self, path: &str, line: u32, col: Option<u32>) -> Result<Vec<Evidence>> {
        let rel = self.repo_rel(path)?;
        let conn = self.connection();
        let file_id = crate::store::reads::file_id(conn, &rel)
            .ok_or_else(|| Error::NotIndexed(rel.clone()))?;
        let text = self
            .reader()
            .line(&rel, line)?
            .ok_or_else(|| Error::InvalidArgument(format!("{rel} has no line {line}")))?;
        // A compiler's index, where it has the position, decides.
        if let Some(c) = col {
            let precise = self.precise_definitions(&rel, line, c)?;
            if !precise.is_empty() {
                return Ok(precise);
            }
        }
        // The identifier under the cursor (or the first call's on the line without a column).
        let word = col.and_then(|c| identifier_at(&text, c.saturating_sub(1) as usize));
        let calls = rows::calls_on_line(conn, file_id, line)?;
        let at_word: Vec<&rows::CallOnLine> = calls
            .iter()
            .filter(|c| word.as_deref().is_none_or(|w| w == c.callee_name))
            .collect();
        // A segment of an import's module path (`db` in `from django.db import
        // models`): the module that much of the path names.
        if let (Some(word), Some(c)) = (word.as_deref(), col) {
            if let Some(found) = self.module_in_import(file_id, &rel, &text, line, c, word)? {
                return Ok(vec![found]);
            }
        }
        // A keyword argument (`f(encoding=e)`) names the callee's parameter.
        if let (Some(word), Some(c)) = (word.as_deref(), col) {
            if let Some(found) = self.keyword_parameter(file_id, &rel, (line, c), &text, word)? {
                return Ok(found);
            }
        }
        // An object key (`{ retries: 1 }`, `const { closed } = this`): the
        // member of what its object is written for.
        if let (Some(word), Some(c)) = (word.as_deref(), col) {
            if let Some(found) = self.key_definitions(file_id, &rel, (line, c), word)? {
                return Ok(found);
            }
        }
        // A bare name (not `x.name`) is first what its scope binds it to: a
        // parameter or local, a definition, an import; only then a call's target.
        let attribute = col.is_some_and(|c| after_a_dot(&text, c.saturating_sub(1) as usize));
        // The name an import brings in, after its module path's dot
        // (`Strings` in `import a.b.Strings`): what that import binds.
        if let (Some(word), true) = (word.as_deref(), attribute) {
            if !rows::import_modules_on_line(conn, file_id, line)?.is_empty() {
                let ids = rows::definitions_imported_as(conn, file_id, word, line)?;
                if !ids.is_empty() {
                    return self.definitions_by_id(&ids);
                }
            }
        }
        if let (Some(word), false) = (word.as_deref(), attribute) {
            let mut found = self.bare_name(file_id, &rel, &text, word, line, col.unwrap_or(1))?;
            if !found.is_empty() {
                // `new Store(...)`: the class the name names, then the constructor run.
                let constructors: Vec<(i64, Option<&str>)> = at_word
                    .iter()
                    .filter_map(|c| Some((c.target?, c.confidence.as_deref())))
                    .filter(|(id, _)| rows::class_of_constructor(conn, *id, word).is_some())
                    .collect();
                found.extend(self.constructor_evidence(&constructors)?);
                return Ok(found);
            }
        }
        let resolved: Vec<(i64, Option<&str>)> = at_word
            .iter()
            .filter_map(|c| c.target.map(|id| (id, c.confidence.as_deref())))
            .collect();
        if !resolved.is_empty() {
            // `models.IntegerField(...)` runs an inherited `Field.__init__`;
            // the word names the class, which the receiver's type finds.
            let renamed = |id: i64| {
                rows::definition(conn, id).is_ok_and(|d| Some(d.name.as_str()) != word.as_deref())
                    && word
                        .as_deref()
                        .is_none_or(|w| rows::class_of_constructor(conn, id, w).is_none())
            };
            // A call resolved by name alone: the receiver's type may know better.
            let by_name = |(_, confidence): &(i64, Option<&str>)| *confidence == Some("name_only");
            if let (true, Some(w), Some(c)) = (attribute, word.as_deref(), col) {
                if resolved.iter().all(|r| renamed(r.0) || by_name(r)) {
                    if let Some(receiver) = receiver_before(&text, c.saturating_sub(1) as usize) {
                        let found = self.attribute_definitions(file_id, line, &receiver, w)?;
                        if !found.is_empty() {
                            return Ok(found);
                        }
                    }
                }
            }
            return self.call_targets(&resolved, word.as_deref());
        }
        // `recv.name` not called (or called but unresolved): through the receiver's type.
        if let (Some(word), true, Some(c)) = (word.as_deref(), attribute, col) {
            if let Some(receiver) = receiver_before(&text, c.saturating_sub(1) as usize) {
                let found = self.attribute_definitions(file_id, line, &receiver, word)?;
                if !found.is_empty() {
                    return Ok(found);
                }
            }
        }
        // A call nothing resolved: never the enclosing definition that shares
        // its name; same-name definitions are listed as candidates, labelled.
        if let Some(call) = at_word.first() {
            return self.name_only_candidates(file_id, call);
        }
        Ok(Vec::new())
    }

    /// Import rules over the indexed file set, outside an indexing run.
    pub(super) fn import_resolver(&self) -> Result<crate::lang::imports::Resolver> {
        let paths = rows::all_paths(self.connection())?;
        Ok(crate::lang::imports::Resolver::new(
            paths.iter().map(String::as_str),
            self.root(),
            crate::store::files::declared_packages(self.connection())?,
        ))
    }

    /// The module named by an import's module path up to the word at `col`,
    /// when the line holds an import whose module path the word is part of.
    fn module_in_import(
        &self,
        file_id: i64,
        rel: &str,
        text: &str,
        line: u32,
        col: u32,
        word: &str,
    ) -> Result<Option<Evidence>> {
        let conn = self.connection();
        let modules = rows::import_modules_on_line(conn, file_id, line)?;
        if modules.is_empty() {
            return Ok(None);
        }
        let Some(prefix) = dotted_prefix_at(text, col.saturating_sub(1) as usize) else {
            return Ok(None);
        };
        let spec = crate::lang::by_name(&rows::file_language(conn, file_id)?);
        let Some(spec) = spec else {
            return Ok(None);
        };
        let sep = spec.separator;
        let in_a_module_path = modules.iter().any(|m| {
            let m = m.replace('/', sep);
            let p = prefix.replace('/', sep);
            m == p || m.starts_with(&format!("{p}{sep}"))
        });
        if !in_a_module_path || !prefix.ends_with(word) {
            return Ok(None);
        }
        let resolver = self.import_resolver()?;
        let Some(target) = resolver.resolve(spec, rel, &prefix, None) else {
            return Ok(None);
        };
        let Some((lines, module)) = rows::file_lines_and_module(conn, &target)? else {
            return Ok(None);
        };
        let end = lines.clamp(1, 10);
        let snippet = self.reader().evidence(&target, 1, end, Budget::DEFINITION);
        let mut ev = Evidence::new(&target, 1, end, Kind::Module, &module, snippet);
        ev.qualified_name = Some(module);
        ev.confidence = Some("exact".into());
        ev.reason = Some(format!(
            "the module `{prefix}` names (its first {end} lines)"
        ));
        Ok(Some(ev))
    }

    /// `receiver.attribute` at `line`: definitions and attribute bindings
    /// found through the receiver's inferred type (loads the call graph's
    /// definitions it needs as it needs them).
    fn attribute_definitions(
        &self,
        file_id: i64,
        line: u32,
        receiver: &str,
        attribute: &str,
    ) -> Result<Vec<Evidence>> {
        let conn = self.connection();
        let resolver = self.import_resolver()?;
        let graph = crate::graph::calls::Graph::load(
            conn,
            &resolver,
            crate::graph::calls::Loading::AsAsked,
        )?;
        let scope = rows::scope_at(conn, file_id, line)?;
        let (ids, sites) = graph.attribute_targets(file_id, scope, receiver, attribute);
        if let Some(e) = graph.take_read_error() {
            return Err(e);
        }
        let reason = format!("`{attribute}` of `{receiver}`, through its inferred type");
        self.member_evidence(&ids, &sites, attribute, &reason, "inferred")
    }

    /// What a bare name at `line:col` is bound to: a parameter or local of an
    /// enclosing function (read from the file), else a definition by scope,
    /// an import's target, or an imported module.
    pub(super) fn bare_name(
        &self,
        file_id: i64,
        rel: &str,
        line_text: &str,
        word: &str,
        line: u32,
        col: u32,
    ) -> Result<Vec<Evidence>> {
        let conn = self.connection();
        let spec = crate::lang::by_name(&rows::file_language(conn, file_id)?);
        let local = match (spec, self.reader().text(rel)) {
            (Some(spec), Ok(text)) => crate::lang::locals::bindings_at(spec, text, line, col, word),
            _ => Local::OUTSIDE,
        };
        let top_level = match local {
            Local::Bound(lines) => {
                let reason = format!("`{word}` is bound here, in the scope around line {line}");
                return Ok(self.bindings_evidence(rel, word, &lines, &reason));
            }
            Local::Outside { top_level } => top_level,
        };
        let mut ids = self.in_scope(file_id, word, line, line_text)?;
        if ids.is_empty() {
            ids = rows::definitions_imported_as(conn, file_id, word, line)?;
        }
        // `from m import *`, `use m::*`; C's includes are the call graph's
        // (a prototype's definition is found through the call).
        if ids.is_empty() && spec.is_some_and(|s| !s.includes_are_transitive) {
            ids = rows::definitions_globbed(conn, file_id, word)?;
        }
        if ids.is_empty() {
            // An imported module (`import pkg.mod as m`, `use crate::store`): the file itself.
            if let Some((path, module, lines)) = rows::module_imported_as(conn, file_id, word) {
                let reason = format!("the module `{word}` names");
                return Ok(vec![self.module_evidence(&path, module, lines, &reason)]);
            }
            // The module's own name for itself (CommonJS's `exports`): this file.
            if spec.is_some_and(|s| s.module_self_names.contains(&word)) {
                if let Some((lines, module)) = rows::file_lines_and_module(conn, rel)? {
                    let reason = format!("`{word}` is this module");
                    return Ok(vec![self.module_evidence(rel, module, lines, &reason)]);
                }
            }
            // A name no scope or import binds: a script file's global.
            if let Some(spec) = spec.filter(|s| !s.module_keywords.is_empty()) {
                ids = self.script_globals(spec, word)?;
            }
        }
        // Bound at the top level by a statement that defines nothing
        // (`except E as e`, `for x in ...`). A name also imported from
        // outside the repository (`try: import ssl` / `except: ssl = None`)
        // is that import's, which names nothing in the repository.
        if ids.is_empty() {
            for at in &top_level {
                if !rows::import_modules_on_line(conn, file_id, *at)?.is_empty() {
                    return Ok(Vec::new());
                }
            }
            let reason = format!("`{word}` is bound here, at the file's top level");
            return Ok(self.bindings_evidence(rel, word, &top_level, &reason));
        }
        ids.sort_unstable();
        ids.dedup();
        // A declaration in scope beside its definition (a C prototype, a
        // Python `@overload`): the definition first, the declaration after.
        let mut declared: Vec<i64> = Vec::new();
        for id in &ids {
            declared.extend(rows::declarations_of(conn, *id)?);
        }
        if declared.iter().any(|d| ids.contains(d)) {
            ids.retain(|id| !declared.contains(id));
            let resolved: Vec<(i64, Option<&str>)> = ids.iter().map(|id| (*id, None)).collect();
            return self.call_targets(&resolved, Some(word));
        }
        self.definitions_by_id(&ids)
    }

    /// Where a name is bound without a definition (a parameter, a local),
    /// as evidence.
    fn bindings_evidence(
        &self,
        rel: &str,
        word: &str,
        lines: &[u32],
        reason: &str,
    ) -> Vec<Evidence> {
        let mut reader = self.reader();
        let mut out = Vec::new();
        for &at in lines {
            let snippet = reader.evidence(rel, at, at, Budget::DEFINITION);
            let mut ev = Evidence::new(rel, at, at, Kind::Variable, word, snippet);
            ev.confidence = Some("exact".into());
            ev.reason = Some(reason.to_string());
            out.push(ev);
        }
        out
    }

    /// A module as evidence: its file's first lines (at most 10).
    fn module_evidence(&self, path: &str, module: String, lines: u32, reason: &str) -> Evidence {
        let end = lines.clamp(1, 10);
        let snippet = self.reader().evidence(path, 1, end, Budget::DEFINITION);
        let mut ev = Evidence::new(path, 1, end, Kind::Module, &module, snippet);
        ev.qualified_name = Some(module);
        ev.reason = Some(format!("{reason} (its first {end} lines)"));
        ev
    }

    /// The top-level definitions named `word` in the language's script
    /// files: those with no line that opens with a module keyword.
    fn script_globals(&self, spec: &crate::lang::LanguageSpec, word: &str) -> Result<Vec<i64>> {
        let candidates = rows::unimported_top_level(self.connection(), spec.name, word)?;
        let mut reader = self.reader();
        let is_module = |text: &str| {
            text.lines().any(|line| {
                spec.module_keywords.iter().any(|k| {
                    line.strip_prefix(k)
                        .is_some_and(|rest| rest.starts_with([' ', '{', '*']))
                })
            })
        };
        let mut ids = Vec::new();
        for (id, path) in candidates {
            if reader.text(&path).is_ok_and(|text| !is_module(text)) {
                ids.push(id);
            }
        }
        Ok(ids)
    }

    /// The definitions `word` names at `line` by scope: the innermost
    /// enclosing scope that defines it, out to the module (module-level names
    /// are visible from anywhere in the file, hoisted or not). A class body is
    /// a scope only for the lines directly in it, unless the language reaches
    /// members implicitly (Java's `this`); the definition's own name counts.
    fn in_scope(&self, file_id: i64, word: &str, line: u32, text: &str) -> Result<Vec<i64>> {
        let conn = self.connection();
        let implicit_this = self.reads_bare_names_as_this(file_id)?;
        let visible: Vec<rows::InScope> = rows::definitions_in_scope(conn, file_id, word, line)?
            .into_iter()
            .filter(|d| {
                let in_class = d
                    .parent_kind
                    .as_deref()
                    .and_then(Kind::parse)
                    .is_some_and(|k| k.is_class_like());
                // The definition's own line (after any decorators) names it.
                let own_line = d.start_line <= line
                    && line <= d.end_line
                    && d.signature.lines().next().is_some_and(|first| {
                        !first.trim().is_empty() && text.trim_start().starts_with(first.trim())
                    });
                // A method is reached through its object (`this.m`, `obj.m`),
                // never by its bare name, not even in its own body, unless
                // the language reads a bare name as a member of `this`.
                let method = Kind::parse(&d.kind) == Some(Kind::Method);
                !(in_class || method) || implicit_this || d.start_line == line || own_line
            })
            .collect();
        let Some(innermost) = visible.first().map(|d| d.scope_start) else {
            return Ok(Vec::new());
        };
        Ok(visible
            .iter()
            .filter(|d| d.scope_start == innermost)
            .map(|d| d.id)
            .collect())
    }

    /// The definitions a call on the line resolves to, each with its edge's
    /// confidence. A constructor reached through its class's name (`Foo()`)
    /// answers with the class, which the name names, then the constructor
    /// the call runs.
    fn call_targets(
        &self,
        resolved: &[(i64, Option<&str>)],
        word: Option<&str>,
    ) -> Result<Vec<Evidence>> {
        let conn = self.connection();
        let mut constructors: Vec<(i64, Option<&str>)> = Vec::new();
        let resolved: Vec<(i64, Option<&str>)> = resolved
            .iter()
            .map(|(id, confidence)| {
                let class = word.and_then(|w| rows::class_of_constructor(conn, *id, w));
                if class.is_some() && !constructors.iter().any(|(c, _)| c == id) {
                    constructors.push((*id, *confidence));
                }
                (class.unwrap_or(*id), *confidence)
            })
            .collect();
        let resolved = &resolved[..];
        let mut ids: Vec<i64> = resolved.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut out = self.definitions_by_id(&ids)?;
        for (ev, id) in out.iter_mut().zip(&ids) {
            let confidence = resolved
                .iter()
                .find(|(r, _)| r == id)
                .and_then(|(_, c)| *c)
                .unwrap_or("exact");
            if confidence == "name_only" {
                ev.reason = Some(NAME_ONLY_REASON.into());
            }
            ev.confidence = Some(confidence.to_string());
        }
        // A definition's declarations (a header's prototype) follow it: the
        // same symbol's second location.
        let mut declared: Vec<Evidence> = Vec::new();
        for (definition, id) in out.iter().zip(&ids) {
            let declarations = rows::declarations_of(conn, *id)?;
            for mut ev in self.definitions_by_id(&declarations)? {
                ev.confidence = definition.confidence.clone();
                ev.reason = Some(format!(
                    "its declaration; defined at {}:{}",
                    definition.path, definition.start_line
                ));
                declared.push(ev);
            }
        }
        out.extend(declared);
        out.extend(self.constructor_evidence(&constructors)?);
        Ok(out)
    }

    /// The constructors `(id, confidence)` a call runs, after the class.
    fn constructor_evidence(&self, constructors: &[(i64, Option<&str>)]) -> Result<Vec<Evidence>> {
        let mut out = Vec::new();
        for (id, confidence) in constructors {
            for mut ev in self.definitions_by_id(&[*id])? {
                ev.confidence = Some(confidence.unwrap_or("exact").to_string());
                ev.reason = Some("the constructor this call runs".into());
                out.push(ev);
            }
        }
        Ok(out)
    }

    /// Whether the file's language reads a bare name as a member of `this`
    /// (Java, C#, ...), so that a bare name can reach a method.
    fn reads_bare_names_as_this(&self, file_id: i64) -> Result<bool> {
        let language = rows::file_language(self.connection(), file_id)?;
        Ok(crate::lang::by_name(&language).is_some_and(|spec| spec.implicit_this))
    }

    /// For a call nothing resolved: the definitions that share its name
    /// (methods only when the call has a receiver), each labelled
    /// `name_only`. Empty when there are none: nothing is known.
    fn name_only_candidates(&self, file_id: i64, call: &rows::CallOnLine) -> Result<Vec<Evidence>> {
        let written = syntax::without_new(&call.callee);
        let has_receiver = written.len() > call.callee_name.len();
        // A bare call reaches a method only where a bare name reads `this`.
        let implicit_this = self.reads_bare_names_as_this(file_id)?;
        let query = crate::query::SymbolQuery {
            kind: has_receiver.then_some(Kind::Method),
            exact: true,
            limit: Some(MAX_NAME_ONLY_CANDIDATES),
            ..Default::default()
        };
        let mut out = self.symbols_of_that_name(&call.callee_name, &query)?;
        out.retain(|ev| ev.name == call.callee_name);
        if !has_receiver && !implicit_this {
            out.retain(|ev| ev.kind != Kind::Method);
        }
        for ev in &mut out {
            ev.confidence = Some("name_only".into());
            ev.reason = Some(format!(
                "candidate only: `{}` did not resolve (its receiver's type is unknown); this definition has the name",
                call.callee
            ));
        }
        Ok(out)
    }

    pub(super) fn definitions_by_id(&self, ids: &[i64]) -> Result<Vec<Evidence>> {
        let mut reader = self.reader();
        let mut out = Vec::new();
        for id in ids {
            let d = rows::definition(self.connection(), *id)?;
            let snippet = reader.evidence(&d.path, d.start, d.end, Budget::DEFINITION);
            let mut ev = Evidence::new(
                d.path,
                d.start,
                d.end,
                Kind::parse(&d.kind).unwrap_or(Kind::Function),
                d.name,
                snippet,
            );
            ev.qualified_name = Some(d.qualified);
            out.push(ev);
        }
        Ok(out)
    }
}

/// The most same-name candidates `def` lists for a call nothing resolved.
const MAX_NAME_ONLY_CANDIDATES: usize = 10;

/// Why a `name_only` answer is only a candidate.
const NAME_ONLY_REASON: &str =
    "candidate only: resolved by name alone (the receiver's type is unknown)";

/// The identifier covering character column `col` (0-based) of `line`.
/// The dotted path (`a.b.c`, `..pkg.mod`, `crate::a::b`) around `col`, cut
/// after the identifier at `col`.
fn dotted_prefix_at(line: &str, col: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.' || c == ':';
    if col >= chars.len() || !is_path(chars[col]) {
        return None;
    }
    let mut start = col;
    while start > 0 && is_path(chars[start - 1]) {
        start -= 1;
    }
    let mut end = col;
    while end < chars.len()
        && (chars[end].is_alphanumeric() || chars[end] == '_' || chars[end] == '$')
    {
        end += 1;
    }
    let prefix: String = chars[start..end].iter().collect();
    (!prefix.is_empty()).then_some(prefix)
}

/// The receiver written before the attribute at `col` (`self.store` in
/// `self.store.open`, `f(x)` in `f(x).name`), when there is one.
fn receiver_before(line: &str, col: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut i = col.min(chars.len());
    while i > 0 && is_ident(chars[i - 1]) {
        i -= 1;
    }
    let end = i.checked_sub(1).filter(|e| chars[*e] == '.')?;
    let mut start = end;
    while start > 0 {
        let c = chars[start - 1];
        if is_ident(c) || c == '.' {
            start -= 1;
        } else if c == ')' {
            let mut depth = 0;
            let mut j = start;
            while j > 0 {
                j -= 1;
                match chars[j] {
                    ')' => depth += 1,
                    '(' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if depth != 0 {
                return None;
            }
            start = j;
        } else {
            break;
        }
    }
    let receiver: String = chars[start..end].iter().collect();
    (!receiver.is_empty() && !receiver.starts_with('.')).then_some(receiver)
}

/// Whether the identifier at `col` is an attribute (`x.name`, `a::name`).
fn after_a_dot(line: &str, col: usize) -> bool {
    let chars: Vec<char> = line.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut i = col.min(chars.len());
    while i > 0 && is_ident(chars[i - 1]) {
        i -= 1;
    }
    while i > 0 && chars[i - 1].is_whitespace() {
        i -= 1;
    }
    // `...name` spreads a name; it is not an attribute.
    let spread = i > 1 && chars[i - 1] == '.' && chars[i - 2] == '.';
    i > 0
        && !spread
        && (chars[i - 1] == '.' || (i > 1 && chars[i - 1] == ':' && chars[i - 2] == ':'))
}

pub(super) fn identifier_at(line: &str, col: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if col >= chars.len() || !is_ident(chars[col]) {
        return None;
    }
    let start = (0..=col).rev().take_while(|&i| is_ident(chars[i])).last()?;
    let end = (col..chars.len())
        .take_while(|&i| is_ident(chars[i]))
        .last()?;
    Some(chars[start..=end].iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_under_a_column() {
        assert_eq!(
            identifier_at("    return m.compute(x)", 13).as_deref(),
            Some("compute")
        );
        assert_eq!(
            identifier_at("    return m.compute(x)", 11).as_deref(),
            Some("m")
        );
        assert_eq!(identifier_at("    return m.compute(x)", 12), None);
    }

    #[test]
    fn attributes_receivers_and_module_paths_under_a_column() {
        assert!(after_a_dot("self.store.open()", 11));
        assert!(after_a_dot("crate::store::open()", 14));
        assert!(
            !after_a_dot("f(...args)", 5),
            "a spread is not an attribute"
        );
        assert!(!after_a_dot("    store.open()", 5));
        assert_eq!(
            receiver_before("self.store.open()", 11).as_deref(),
            Some("self.store")
        );
        assert_eq!(
            receiver_before("x = make(a, b).close()", 15).as_deref(),
            Some("make(a, b)")
        );
        assert_eq!(
            dotted_prefix_at("from django.db import models", 12).as_deref(),
            Some("django.db")
        );
        assert_eq!(
            dotted_prefix_at("from django.db import models", 6).as_deref(),
            Some("django")
        );
    }
}
