//! Call-graph queries: callers, callees, impact (reverse BFS), the whole
//! graph, and go-to-definition. All answer with Evidence.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::Budget;
use crate::store::graph::{self as rows, TargetMatch};

/// Default and largest `impact` depth.
pub const DEFAULT_IMPACT_DEPTH: u32 = 3;
pub const MAX_IMPACT_DEPTH: u32 = 6;
/// Largest `callers` depth.
pub const MAX_CALLERS_DEPTH: u32 = 5;

/// A definition a graph query starts from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// The row id: the index's own, never shown.
    #[serde(skip)]
    pub id: i64,
    pub path: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// The call sites that may reach a target although nothing resolved them:
/// the same name, called on a receiver whose type is unknown. Kept apart from
/// the resolved callers, so that "no callers" is never said when some were
/// only not resolved.
#[derive(Debug, Clone, Default)]
pub struct Possible {
    /// At most [`MAX_POSSIBLE`], each with confidence `possible`.
    pub sites: Vec<Evidence>,
    /// How many there are in all.
    pub total: usize,
}

/// The most possible call sites listed.
pub const MAX_POSSIBLE: usize = 50;

/// Which part of a long list to read: at most `limit` items after the first
/// `offset`. Only the items of the page are read from disk (their names and
/// snippets); the rest are only counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

impl Page {
    /// Every item.
    pub const ALL: Page = Page {
        offset: 0,
        limit: usize::MAX,
    };

    pub fn first(limit: usize) -> Page {
        Page { offset: 0, limit }
    }

    fn contains(&self, index: usize) -> bool {
        index >= self.offset && index - self.offset < self.limit
    }
}

/// One page of the call sites that reach a target.
#[derive(Debug, Clone, Default)]
pub struct Callers {
    /// The resolved call sites of the page, nearest first.
    pub sites: Vec<Evidence>,
    /// How many resolved call sites there are in all.
    pub total: usize,
    /// The unresolved call sites that may reach the target.
    pub possible: Possible,
}

/// The result of `impact`: nodes by depth, and how many were left out.
#[derive(Debug, Clone)]
pub struct Impact {
    pub targets: Vec<Target>,
    /// One per affected definition (or module, for module-level code), nearest first.
    pub nodes: Vec<Evidence>,
    /// `(caller, callee)` qualified names: the edges walked.
    pub edges: Vec<(String, String)>,
    /// Nodes beyond the limit.
    pub omitted: usize,
    pub files: usize,
    /// Unresolved call sites that may reach a target directly.
    pub possible: Possible,
}

/// One resolved edge of the exported graph.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GraphEdge {
    pub caller: String,
    pub callee: String,
    pub path: String,
    pub line: u32,
    pub confidence: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct GraphNode {
    pub qualified_name: String,
    pub kind: String,
    pub path: String,
    pub start_line: u32,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CallGraph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

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
        let symbol = symbol.trim();
        if symbol.is_empty() {
            return Err(Error::InvalidArgument("symbol is empty".into()));
        }
        let rel = path.map(|p| self.repo_rel(p));
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
    /// neither matches is every qualified name scanned for the suffix.
    fn targets_named(&self, symbol: &str, rel: Option<&str>) -> Result<Vec<Target>> {
        let conn = self.connection();
        let rows = rows::targets(conn, TargetMatch::NameOrQualified, symbol, rel)?;
        if !rows.is_empty() {
            return Ok(rows);
        }
        rows::targets(conn, TargetMatch::QualifiedSuffix, symbol, rel)
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

    /// The call sites that reach `symbol`, up to `depth` levels of callers.
    /// The resolved ones come first; then, with confidence `possible`, the
    /// unresolved call sites that may reach it ([`Index::possible_callers`]).
    pub fn callers(&self, symbol: &str, path: Option<&str>, depth: u32) -> Result<Vec<Evidence>> {
        let callers = self.callers_page(symbol, path, depth, Page::ALL)?;
        Ok(callers
            .sites
            .into_iter()
            .chain(callers.possible.sites)
            .collect())
    }

    /// One page of [`Index::callers`], with the resolved call sites and the
    /// possible ones apart. Every resolved site is counted, but only the
    /// page's are named and read.
    pub fn callers_page(
        &self,
        symbol: &str,
        path: Option<&str>,
        depth: u32,
        page: Page,
    ) -> Result<Callers> {
        if !(1..=MAX_CALLERS_DEPTH).contains(&depth) {
            return Err(Error::InvalidArgument(format!(
                "depth {depth} is outside 1..={MAX_CALLERS_DEPTH}"
            )));
        }
        let targets = self.graph_targets(symbol, path)?;
        // No node is listed: callers lists call sites.
        let walk = self.walk_callers(&targets, depth, 0, Some(page))?;
        Ok(Callers {
            sites: walk.sites,
            total: walk.site_count,
            possible: self.possible_callers(&targets)?,
        })
    }

    /// The unresolved call sites that may reach `targets` directly: a
    /// method's name called on some receiver, a function's name called in any
    /// form, with no resolved edge anywhere.
    pub fn possible_callers(&self, targets: &[Target]) -> Result<Possible> {
        let mut possible = Possible::default();
        let mut names: Vec<(&str, bool)> = Vec::new();
        for t in targets {
            let with_receiver = t.kind == Kind::Method.as_str();
            if !names.contains(&(t.name.as_str(), with_receiver)) {
                names.push((t.name.as_str(), with_receiver));
            }
        }
        let mut reader = self.reader();
        for (name, with_receiver) in names {
            let room = MAX_POSSIBLE.saturating_sub(possible.sites.len());
            let (calls, total) =
                rows::unresolved_calls_named(self.connection(), name, with_receiver, room)?;
            possible.total += total;
            for call in calls {
                let snippet = reader.evidence(&call.path, call.line, call.line, Budget::DEFINITION);
                let mut site = Evidence::new(
                    &call.path,
                    call.line,
                    call.line,
                    Kind::Call,
                    &call.caller,
                    snippet,
                );
                site.depth = Some(1);
                site.confidence = Some("possible".into());
                site.reason = Some(format!(
                    "possible call: `{}` did not resolve (its receiver's type is unknown)",
                    call.callee
                ));
                possible.sites.push(site);
            }
        }
        Ok(possible)
    }

    /// The calls made inside `symbol` (nested definitions included), with what each resolves to.
    pub fn callees(&self, symbol: &str, path: Option<&str>) -> Result<Vec<Evidence>> {
        let targets = self.graph_targets(symbol, path)?;
        let mut out = Vec::new();
        let mut reader = self.reader();
        for target in &targets {
            for call in rows::calls_inside(self.connection(), target.id)? {
                let snippet = reader.evidence(&call.path, call.line, call.line, Budget::DEFINITION);
                let mut ev = Evidence::new(
                    call.path,
                    call.line,
                    call.line,
                    Kind::Call,
                    call.callee,
                    snippet,
                );
                ev.reason = Some(match call.resolved {
                    Some(r) => format!("calls {r}"),
                    None => "unresolved".to_string(),
                });
                out.push(ev);
            }
        }
        Ok(out)
    }

    /// What may break if `symbol` changes: the definitions that call it,
    /// directly or through others, up to `max_depth` levels (reverse BFS).
    pub fn impact(
        &self,
        symbol: &str,
        path: Option<&str>,
        max_depth: u32,
        limit: usize,
    ) -> Result<Impact> {
        if !(1..=MAX_IMPACT_DEPTH).contains(&max_depth) {
            return Err(Error::InvalidArgument(format!(
                "max depth {max_depth} is outside 1..={MAX_IMPACT_DEPTH}"
            )));
        }
        let targets = self.graph_targets(symbol, path)?;
        let walk = self.walk_callers(&targets, max_depth, limit, None)?;
        let possible = self.possible_callers(&targets)?;
        Ok(Impact {
            files: walk.files.len(),
            targets,
            nodes: walk.nodes,
            edges: walk.edges,
            omitted: walk.omitted,
            possible,
        })
    }

    /// Reverse BFS from `targets` over resolved edges. Each visited caller
    /// appears once, at its smallest depth, with the call site that reached it.
    /// Names, paths and snippets are looked up only for what is listed: the
    /// first `limit` nodes, and the call sites in `sites` (every site is counted).
    fn walk_callers(
        &self,
        targets: &[Target],
        max_depth: u32,
        limit: usize,
        sites: Option<Page>,
    ) -> Result<Walk> {
        let conn = self.connection();
        let mut names = Names::new(conn);
        let mut reader = self.reader();
        let mut walk = Walk::default();
        let mut seen: HashSet<Node> = HashSet::new();
        // For each reached definition, the chain of nodes back to the target.
        let mut chain_of: HashMap<i64, Vec<Node>> = HashMap::new();
        let mut frontier: Vec<i64> = Vec::new();
        for t in targets {
            seen.insert(Node::Definition(t.id));
            chain_of.insert(t.id, vec![Node::Definition(t.id)]);
            frontier.push(t.id);
        }
        for depth in 0..max_depth {
            if frontier.is_empty() {
                break;
            }
            let order: HashMap<i64, usize> = frontier
                .iter()
                .enumerate()
                .map(|(i, id)| (*id, i))
                .collect();
            // One query per depth level for the whole frontier, sites in
            // (path, line) order. Breadth-first order: then by the callee's
            // place in the frontier (a stable sort keeps the sites' order).
            let mut rows = rows::incoming_calls(conn, &frontier)?;
            rows.sort_by_key(|r| order[&r.callee]);
            // The last level's callers are walked no further: no chains to keep.
            let last_level = depth + 1 == max_depth;
            let mut next: Vec<i64> = Vec::new();
            for rows::IncomingCall {
                callee,
                file: file_id,
                line,
                call,
                confidence,
                enclosing,
            } in rows
            {
                let node = match enclosing {
                    Some(id) => Node::Definition(id),
                    None => Node::Module(file_id),
                };
                let listed = walk.nodes.len() < limit;
                let site_listed = sites.is_some_and(|page| page.contains(walk.site_count));
                if sites.is_some() {
                    walk.site_count += 1;
                }
                if last_level && !listed && !site_listed {
                    // Counted; nothing of it is printed or walked from.
                    if seen.insert(node) {
                        walk.files.insert(file_id);
                        walk.omitted += 1;
                    }
                    continue;
                }
                let callee_chain = chain_of.get(&callee).cloned().unwrap_or_default();
                let mut chain = Vec::with_capacity(callee_chain.len() + 1);
                chain.push(node);
                chain.extend(callee_chain.iter().copied());
                if site_listed || sites.is_none() && listed {
                    let caller = names.node(node)?.qualified_name.clone();
                    let callee_name = names.node(callee_chain[0])?.qualified_name.clone();
                    walk.edges.push((caller.clone(), callee_name.clone()));
                    if site_listed {
                        let path = names.file(file_id)?.0.clone();
                        let snippet = reader.evidence(&path, line, line, Budget::DEFINITION);
                        let mut site =
                            Evidence::new(&path, line, line, Kind::Call, &caller, snippet);
                        site.depth = Some(depth + 1);
                        site.confidence = Some(confidence.clone());
                        site.via = Some(names.chain(&chain)?);
                        let callee_text = rows::call_text(conn, call)?;
                        site.reason = Some(format!("calls {callee_name} as `{callee_text}`"));
                        walk.sites.push(site);
                    }
                }
                if !seen.insert(node) {
                    continue; // reached before, at this depth or nearer: cycles end here
                }
                walk.files.insert(file_id);
                if let Node::Definition(id) = node {
                    chain_of.insert(id, chain.clone());
                    next.push(id);
                }
                if !listed {
                    // Still walked, so the count of what is left out is exact.
                    walk.omitted += 1;
                    continue;
                }
                let info = names.node(node)?.clone();
                let path = names.file(file_id)?.0.clone();
                let snippet = reader.evidence(&path, line, line, Budget::DEFINITION);
                let mut ev =
                    Evidence::new(&path, line, line, info.kind, &info.qualified_name, snippet);
                ev.qualified_name = Some(info.qualified_name.clone());
                ev.depth = Some(depth + 1);
                ev.via = Some(names.chain(&chain)?);
                ev.confidence = Some(confidence);
                ev.reason = Some(format!(
                    "{} at lines {}-{} calls {}",
                    info.kind,
                    info.start_line,
                    info.end_line,
                    names.node(callee_chain[0])?.qualified_name
                ));
                walk.nodes.push(ev);
            }
            frontier = next;
        }
        Ok(walk)
    }

    /// The resolved call graph (calls from files under `path`, when given).
    pub fn call_graph(&self, path: Option<&str>) -> Result<CallGraph> {
        let rel = path.map(|p| self.repo_rel(p)).unwrap_or_default();
        let mut graph = CallGraph::default();
        let mut nodes: HashMap<String, GraphNode> = HashMap::new();
        for row in rows::edges_under(self.connection(), &rel)? {
            nodes
                .entry(row.caller.clone())
                .or_insert_with(|| GraphNode {
                    qualified_name: row.caller.clone(),
                    kind: row.caller_kind.unwrap_or_else(|| "module".into()),
                    path: row.path.clone(),
                    start_line: row.caller_start.unwrap_or(1),
                });
            nodes
                .entry(row.callee.clone())
                .or_insert_with(|| GraphNode {
                    qualified_name: row.callee.clone(),
                    kind: row.callee_kind,
                    path: row.callee_path,
                    start_line: row.callee_start,
                });
            graph.edges.push(GraphEdge {
                caller: row.caller,
                callee: row.callee,
                path: row.path,
                line: row.line,
                confidence: row.confidence,
            });
        }
        graph.nodes = nodes.into_values().collect();
        graph
            .nodes
            .sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        Ok(graph)
    }

    /// The definition(s) the identifier at `path:line[:col]` refers to.
    pub fn definition_at(&self, path: &str, line: u32, col: Option<u32>) -> Result<Vec<Evidence>> {
        let rel = self.repo_rel(path);
        let conn = self.connection();
        let file_id = crate::store::reads::file_id(conn, &rel)
            .ok_or_else(|| Error::NotIndexed(rel.clone()))?;
        let text = self
            .reader()
            .line(&rel, line)?
            .ok_or_else(|| Error::InvalidArgument(format!("{rel} has no line {line}")))?;
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
        // A bare name (not `x.name`) is first what its scope binds it to: a
        // parameter or local, a definition, an import; only then a call's target.
        let attribute = col.is_some_and(|c| after_a_dot(&text, c.saturating_sub(1) as usize));
        if let (Some(word), false) = (word.as_deref(), attribute) {
            let found = self.bare_name(file_id, &rel, &text, word, line, col.unwrap_or(1))?;
            if !found.is_empty() {
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
            if let (true, Some(w), Some(c)) = (attribute, word.as_deref(), col) {
                if resolved.iter().all(|(id, _)| renamed(*id)) {
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
            return self.name_only_candidates(call);
        }
        Ok(Vec::new())
    }

    /// Import rules over the indexed file set, outside an indexing run.
    fn import_resolver(&self) -> Result<crate::lang::imports::Resolver> {
        let paths = rows::all_paths(self.connection())?;
        Ok(crate::lang::imports::Resolver::new(
            paths.iter().map(String::as_str),
            self.root(),
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
        let mut out = self.definitions_by_id(&ids)?;
        for ev in &mut out {
            ev.confidence = Some("inferred".into());
            ev.reason = Some(format!(
                "`{attribute}` of `{receiver}`, through its inferred type"
            ));
        }
        let mut reader = self.reader();
        for (file, scope, stored) in sites {
            if let Some((path, at)) = rows::binding_site(conn, file, scope, attribute, &stored)? {
                let snippet = reader.evidence(&path, at, at, Budget::DEFINITION);
                let mut ev = Evidence::new(&path, at, at, Kind::Variable, attribute, snippet);
                ev.confidence = Some("inferred".into());
                ev.reason = Some(format!("`{attribute}` of `{receiver}` is assigned here"));
                out.push(ev);
            }
        }
        Ok(out)
    }

    /// What a bare name at `line:col` is bound to: a parameter or local of an
    /// enclosing function (read from the file), else a definition by scope,
    /// an import's target, or an imported module.
    fn bare_name(
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
        if let Some(spec) = spec {
            let mut reader = self.reader();
            let local = match reader.text(rel) {
                Ok(text) => crate::lang::locals::bindings_at(spec, text, line, col, word),
                Err(_) => crate::lang::locals::Local::Outside,
            };
            if let crate::lang::locals::Local::Bound(lines) = local {
                let mut out = Vec::new();
                for at in lines {
                    let snippet = reader.evidence(rel, at, at, Budget::DEFINITION);
                    let mut ev = Evidence::new(rel, at, at, Kind::Variable, word, snippet);
                    ev.confidence = Some("exact".into());
                    ev.reason = Some(format!(
                        "`{word}` is bound here, in the scope around line {line}"
                    ));
                    out.push(ev);
                }
                return Ok(out);
            }
        }
        let mut ids = self.in_scope(file_id, word, line, line_text)?;
        if ids.is_empty() {
            ids = rows::definitions_imported_as(conn, file_id, word)?;
        }
        if ids.is_empty() {
            // An imported module (`import pkg.mod as m`, `use crate::store`): the file itself.
            if let Some((path, module, lines)) = rows::module_imported_as(conn, file_id, word) {
                let end = lines.clamp(1, 10);
                let snippet = self.reader().evidence(&path, 1, end, Budget::DEFINITION);
                let mut ev = Evidence::new(&path, 1, end, Kind::Module, &module, snippet);
                ev.qualified_name = Some(module);
                ev.reason = Some(format!("the module `{word}` names (its first {end} lines)"));
                return Ok(vec![ev]);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        self.definitions_by_id(&ids)
    }

    /// The definitions `word` names at `line` by scope: the innermost
    /// enclosing scope that defines it, out to the module (module-level names
    /// are visible from anywhere in the file, hoisted or not). A class body is
    /// a scope only for the lines directly in it, unless the language reaches
    /// members implicitly (Java's `this`); the definition's own name counts.
    fn in_scope(&self, file_id: i64, word: &str, line: u32, text: &str) -> Result<Vec<i64>> {
        let conn = self.connection();
        let implicit_this = crate::lang::by_name(&rows::file_language(conn, file_id)?)
            .is_some_and(|spec| spec.implicit_this);
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
                !in_class || implicit_this || d.start_line == line || own_line
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
    /// answers with the class: that is what the name names.
    fn call_targets(
        &self,
        resolved: &[(i64, Option<&str>)],
        word: Option<&str>,
    ) -> Result<Vec<Evidence>> {
        let conn = self.connection();
        let resolved: Vec<(i64, Option<&str>)> = resolved
            .iter()
            .map(|(id, confidence)| {
                let class = word.and_then(|w| rows::class_of_constructor(conn, *id, w));
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
        Ok(out)
    }

    /// For a call nothing resolved: the definitions that share its name
    /// (methods only when the call has a receiver), each labelled
    /// `name_only`. Empty when there are none: nothing is known.
    fn name_only_candidates(&self, call: &rows::CallOnLine) -> Result<Vec<Evidence>> {
        let written = call.callee.trim_start_matches("new ").trim();
        let has_receiver = written.len() > call.callee_name.len();
        let query = crate::query::SymbolQuery {
            kind: has_receiver.then_some(Kind::Method),
            exact: true,
            limit: Some(MAX_NAME_ONLY_CANDIDATES),
            ..Default::default()
        };
        let mut out = self.symbols(&call.callee_name, &query)?;
        out.retain(|ev| ev.name == call.callee_name);
        for ev in &mut out {
            ev.confidence = Some("name_only".into());
            ev.reason = Some(format!(
                "candidate only: `{}` did not resolve (its receiver's type is unknown); this definition has the name",
                call.callee
            ));
        }
        Ok(out)
    }

    fn definitions_by_id(&self, ids: &[i64]) -> Result<Vec<Evidence>> {
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

/// A caller in the reverse BFS: a definition, or a file's module-level code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Node {
    Definition(i64),
    Module(i64),
}

#[derive(Debug, Clone)]
struct NodeInfo {
    qualified_name: String,
    kind: Kind,
    start_line: u32,
    end_line: u32,
}

/// Looks names up once per definition or file during a walk.
struct Names<'c> {
    conn: &'c rusqlite::Connection,
    nodes: HashMap<Node, NodeInfo>,
    files: HashMap<i64, (String, String)>,
}

impl<'c> Names<'c> {
    fn new(conn: &'c rusqlite::Connection) -> Names<'c> {
        Names {
            conn,
            nodes: HashMap::new(),
            files: HashMap::new(),
        }
    }

    /// `(path, module)` of a file.
    fn file(&mut self, id: i64) -> Result<&(String, String)> {
        if !self.files.contains_key(&id) {
            let row = rows::file_path_and_module(self.conn, id)?;
            self.files.insert(id, row);
        }
        Ok(&self.files[&id])
    }

    fn node(&mut self, node: Node) -> Result<&NodeInfo> {
        if !self.nodes.contains_key(&node) {
            let info = match node {
                Node::Definition(id) => {
                    let (qualified_name, kind, start_line, end_line) =
                        rows::definition_summary(self.conn, id)?;
                    NodeInfo {
                        qualified_name,
                        kind: Kind::parse(&kind).unwrap_or(Kind::Function),
                        start_line,
                        end_line,
                    }
                }
                Node::Module(file) => {
                    let (path, module) = self.file(file)?.clone();
                    NodeInfo {
                        qualified_name: if module.is_empty() { path } else { module },
                        kind: Kind::Module,
                        start_line: 1,
                        end_line: 1,
                    }
                }
            };
            self.nodes.insert(node, info);
        }
        Ok(&self.nodes[&node])
    }

    fn chain(&mut self, chain: &[Node]) -> Result<Vec<String>> {
        chain
            .iter()
            .map(|n| Ok(self.node(*n)?.qualified_name.clone()))
            .collect()
    }
}

#[derive(Default)]
struct Walk {
    /// The listed call sites (callers only).
    sites: Vec<Evidence>,
    /// How many call sites were met, listed or not (callers only).
    site_count: usize,
    nodes: Vec<Evidence>,
    edges: Vec<(String, String)>,
    omitted: usize,
    /// Files of every affected node, listed or not.
    files: HashSet<i64>,
}

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

fn identifier_at(line: &str, col: usize) -> Option<String> {
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

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("compute", "compte"), 1);
        assert_eq!(levenshtein("", "abc"), 3);
    }
}
