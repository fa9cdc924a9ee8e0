//! Call-graph queries: callers, callees, impact (reverse BFS) and the whole
//! graph. All answer with Evidence. Go-to-definition is `def.rs`; what a
//! SYMBOL argument names is `lookup.rs`.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::{Budget, SnippetReader};
use crate::store::graph as rows;

pub use crate::store::graph::Target;

/// Default and largest `impact` depth.
pub const DEFAULT_IMPACT_DEPTH: u32 = 3;
pub const MAX_IMPACT_DEPTH: u32 = 6;
/// Largest `callers` depth.
pub const MAX_CALLERS_DEPTH: u32 = 5;

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

    pub(super) fn contains(&self, index: usize) -> bool {
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

impl Index {
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
        let possible = self.possible_callers(&targets)?;
        if depth == 1 {
            let first = self.first_level_page(&targets, page)?;
            return Ok(Callers {
                sites: first.sites,
                total: first.total,
                possible,
            });
        }
        // No node is listed: callers lists call sites.
        let walk = self.walk_callers(&targets, depth, 0, Some(page))?;
        Ok(Callers {
            sites: walk.sites,
            total: walk.site_count,
            possible,
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
                let node = Node::caller(enclosing, file_id);
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
                if site_listed {
                    let at = (file_id, line, call);
                    let site =
                        call_site(&mut names, &mut reader, at, depth + 1, &chain, &confidence)?;
                    walk.sites.push(site);
                } else if sites.is_none() && listed {
                    let caller = names.node(node)?.qualified_name.clone();
                    let callee_name = names.node(callee_chain[0])?.qualified_name.clone();
                    walk.edges.push((caller, callee_name));
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
                let at = (file_id, line);
                let ev =
                    caller_evidence(&mut names, &mut reader, at, depth + 1, &chain, confidence)?;
                walk.nodes.push(ev);
            }
            frontier = next;
        }
        Ok(walk)
    }

    /// The resolved call graph (calls from files under `path`, when given).
    pub fn call_graph(&self, path: Option<&str>) -> Result<CallGraph> {
        let rel = path
            .map(|p| self.repo_rel(p))
            .transpose()?
            .unwrap_or_default();
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
}

/// The call at `(file, line, call)` as a callers result: named by its
/// caller (`chain[0]`), with the chain back to the target and how the call
/// spells what it calls.
pub(super) fn call_site(
    names: &mut Names<'_>,
    reader: &mut SnippetReader<'_>,
    (file_id, line, call): (i64, u32, i64),
    depth: u32,
    chain: &[Node],
    confidence: &str,
) -> Result<Evidence> {
    let caller = names.node(chain[0])?.qualified_name.clone();
    let callee_name = names.node(chain[1])?.qualified_name.clone();
    let path = names.file(file_id)?.0.clone();
    let snippet = reader.evidence(&path, line, line, Budget::DEFINITION);
    let mut site = Evidence::new(&path, line, line, Kind::Call, &caller, snippet);
    site.depth = Some(depth);
    site.confidence = Some(confidence.to_string());
    site.via = Some(names.chain(chain)?);
    let callee_text = rows::call_text(names.conn, call)?;
    site.reason = Some(format!("calls {callee_name} as `{callee_text}`"));
    Ok(site)
}

/// A caller in the reverse BFS: a definition, or a file's module-level code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Definition(i64),
    Module(i64),
}

impl Node {
    /// What makes a call in `file`: its enclosing definition, else the
    /// file's module-level code.
    pub(super) fn caller(enclosing: Option<i64>, file: i64) -> Node {
        enclosing.map_or(Node::Module(file), Node::Definition)
    }
}

#[derive(Debug, Clone)]
struct NodeInfo {
    qualified_name: String,
    kind: Kind,
    start_line: u32,
    end_line: u32,
}

/// A caller reached at `depth`: the line of its call `at` (file, line),
/// named by the caller, with the chain back to the target (`chain[0]` is
/// the caller, `chain[1]` what it calls).
fn caller_evidence(
    names: &mut Names<'_>,
    reader: &mut SnippetReader<'_>,
    (file_id, line): (i64, u32),
    depth: u32,
    chain: &[Node],
    confidence: String,
) -> Result<Evidence> {
    let info = names.node(chain[0])?.clone();
    let path = names.file(file_id)?.0.clone();
    let snippet = reader.evidence(&path, line, line, Budget::DEFINITION);
    let mut ev = Evidence::new(&path, line, line, info.kind, &info.qualified_name, snippet);
    ev.qualified_name = Some(info.qualified_name.clone());
    ev.depth = Some(depth);
    ev.via = Some(names.chain(chain)?);
    ev.confidence = Some(confidence);
    ev.reason = Some(format!(
        "{} at lines {}-{} calls {}",
        info.kind,
        info.start_line,
        info.end_line,
        names.node(chain[1])?.qualified_name
    ));
    Ok(ev)
}

/// Looks names up once per definition or file during a walk.
pub(super) struct Names<'c> {
    conn: &'c rusqlite::Connection,
    nodes: HashMap<Node, NodeInfo>,
    files: HashMap<i64, (String, String)>,
}

impl<'c> Names<'c> {
    pub(super) fn new(conn: &'c rusqlite::Connection) -> Names<'c> {
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
