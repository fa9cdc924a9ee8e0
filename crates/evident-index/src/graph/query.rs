//! Call-graph queries: callers, callees, impact (reverse BFS), the whole
//! graph, and go-to-definition. All answer with Evidence.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::query::Index;
use crate::snippet::Budget;

/// Default and largest `impact` depth.
pub const DEFAULT_IMPACT_DEPTH: u32 = 3;
pub const MAX_IMPACT_DEPTH: u32 = 6;
/// Largest `callers` depth.
pub const MAX_CALLERS_DEPTH: u32 = 5;

/// A definition a graph query starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub id: i64,
    pub path: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
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
        let rows = self.targets_where("s.name = ?1 OR s.qualified_name = ?1", symbol, rel)?;
        if !rows.is_empty() {
            return Ok(rows);
        }
        self.targets_where(
            "s.qualified_name LIKE '%.' || ?1 OR s.qualified_name LIKE '%::' || ?1",
            symbol,
            rel,
        )
    }

    fn targets_where(
        &self,
        condition: &str,
        symbol: &str,
        rel: Option<&str>,
    ) -> Result<Vec<Target>> {
        let mut sql = format!(
            "SELECT s.id, f.path, s.kind, s.name, s.qualified_name, s.start_line, s.end_line
             FROM symbols s JOIN files f ON f.id = s.file_id WHERE ({condition})"
        );
        if rel.is_some() {
            sql += " AND (f.path = ?2 OR f.path LIKE ?2 || '/%')";
        }
        sql += " ORDER BY (s.qualified_name = ?1) DESC, f.path, s.start_line";
        let mut stmt = self.connection().prepare(&sql)?;
        let map = |r: &rusqlite::Row| {
            Ok(Target {
                id: r.get(0)?,
                path: r.get(1)?,
                kind: r.get(2)?,
                name: r.get(3)?,
                qualified_name: r.get(4)?,
                start_line: r.get(5)?,
                end_line: r.get(6)?,
            })
        };
        let rows = match rel {
            Some(rel) => stmt
                .query_map(params![symbol, rel], map)?
                .collect::<rusqlite::Result<_>>()?,
            None => stmt
                .query_map(params![symbol], map)?
                .collect::<rusqlite::Result<_>>()?,
        };
        Ok(rows)
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
        let mut stmt = self.connection().prepare(
            "SELECT DISTINCT name FROM symbols WHERE name LIKE ?1 || '%' OR name LIKE '%' || ?2 || '%' LIMIT 2000",
        )?;
        let names: Vec<String> = stmt
            .query_map(params![prefix, short], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
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
    pub fn callers(&self, symbol: &str, path: Option<&str>, depth: u32) -> Result<Vec<Evidence>> {
        if !(1..=MAX_CALLERS_DEPTH).contains(&depth) {
            return Err(Error::InvalidArgument(format!(
                "depth {depth} is outside 1..={MAX_CALLERS_DEPTH}"
            )));
        }
        let targets = self.graph_targets(symbol, path)?;
        let walk = self.walk_callers(&targets, depth, usize::MAX, true)?;
        Ok(walk.sites)
    }

    /// The calls made inside `symbol` (nested definitions included), with what each resolves to.
    pub fn callees(&self, symbol: &str, path: Option<&str>) -> Result<Vec<Evidence>> {
        let targets = self.graph_targets(symbol, path)?;
        let mut out = Vec::new();
        let mut reader = self.reader();
        let mut stmt = self.connection().prepare(
            "WITH RECURSIVE inside(id) AS (
                 SELECT ?1 UNION SELECT s.id FROM symbols s JOIN inside ON s.parent_id = inside.id)
             SELECT c.id, f.path, c.line, c.callee,
                    group_concat(t.qualified_name || ' (' || g.confidence || ')', ', ')
             FROM calls c JOIN files f ON f.id = c.file_id
             LEFT JOIN edges g ON g.call_id = c.id LEFT JOIN symbols t ON t.id = g.callee_id
             WHERE c.enclosing_id IN (SELECT id FROM inside)
             GROUP BY c.id ORDER BY c.line, c.callee",
        )?;
        for target in &targets {
            let rows = stmt
                .query_map([target.id], |r| {
                    Ok((
                        r.get::<_, String>(1)?,
                        r.get::<_, u32>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, Option<String>>(4)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            for (path, line, callee, resolved) in rows {
                let snippet = reader
                    .snippet(&path, line, line, Budget::DEFINITION)
                    .unwrap_or_default();
                let mut ev = Evidence::new(path, line, line, Kind::Call, callee, snippet);
                ev.reason = Some(match resolved {
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
        let walk = self.walk_callers(&targets, max_depth, limit, false)?;
        Ok(Impact {
            files: walk.files.len(),
            targets,
            nodes: walk.nodes,
            edges: walk.edges,
            omitted: walk.omitted,
        })
    }

    /// Reverse BFS from `targets` over resolved edges. Each visited caller
    /// appears once, at its smallest depth, with the call site that reached it.
    /// Names, paths and snippets are looked up only for what is listed.
    fn walk_callers(
        &self,
        targets: &[Target],
        max_depth: u32,
        limit: usize,
        with_sites: bool,
    ) -> Result<Walk> {
        let conn = self.connection();
        // One query per depth level for the whole frontier.
        let mut incoming = conn.prepare_cached(
            "SELECT g.callee_id, c.file_id, c.line, c.callee, g.confidence, c.enclosing_id, f.path
             FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
             WHERE g.callee_id IN (SELECT value FROM json_each(?1))",
        )?;
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
            let ids = serde_json::to_string(&frontier).unwrap_or_else(|_| "[]".into());
            let mut rows = incoming
                .query_map([ids], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, u32>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, Option<i64>>(5)?,
                        r.get::<_, String>(6)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            // Breadth-first order: by the callee's place in the frontier, then by site.
            rows.sort_by(|a, b| (order[&a.0], &a.6, a.2).cmp(&(order[&b.0], &b.6, b.2)));
            let mut next: Vec<i64> = Vec::new();
            for (callee, file_id, line, callee_text, confidence, enclosing, _) in rows {
                let callee_chain = chain_of.get(&callee).cloned().unwrap_or_default();
                let node = match enclosing {
                    Some(id) => Node::Definition(id),
                    None => Node::Module(file_id),
                };
                let mut chain = Vec::with_capacity(callee_chain.len() + 1);
                chain.push(node);
                chain.extend(callee_chain.iter().copied());
                let listed = walk.nodes.len() < limit;
                if with_sites || listed {
                    let caller = names.node(node)?.qualified_name.clone();
                    let callee_name = names.node(callee_chain[0])?.qualified_name.clone();
                    walk.edges.push((caller.clone(), callee_name.clone()));
                    if with_sites {
                        let path = names.file(file_id)?.0.clone();
                        let snippet = reader
                            .snippet(&path, line, line, Budget::DEFINITION)
                            .unwrap_or_default();
                        let mut site =
                            Evidence::new(&path, line, line, Kind::Call, &caller, snippet);
                        site.depth = Some(depth + 1);
                        site.confidence = Some(confidence.clone());
                        site.via = Some(names.chain(&chain)?);
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
                let snippet = reader
                    .snippet(&path, line, line, Budget::DEFINITION)
                    .unwrap_or_default();
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
        let conn = self.connection();
        let mut stmt = conn.prepare(
            "SELECT coalesce(e.qualified_name, f.module), t.qualified_name, f.path, c.line, g.confidence,
                    t.kind, tf.path, t.start_line, e.kind, e.start_line
             FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
             JOIN symbols t ON t.id = g.callee_id JOIN files tf ON tf.id = t.file_id
             LEFT JOIN symbols e ON e.id = c.enclosing_id
             WHERE ?1 = '' OR f.path = ?1 OR f.path LIKE ?1 || '/%'
             ORDER BY f.path, c.line, t.qualified_name",
        )?;
        let mut graph = CallGraph::default();
        let mut nodes: HashMap<String, GraphNode> = HashMap::new();
        let rows = stmt.query_map([&rel], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, u32>(7)?,
                r.get::<_, Option<String>>(8)?,
                r.get::<_, Option<u32>>(9)?,
            ))
        })?;
        for row in rows {
            let (
                caller,
                callee,
                path,
                line,
                confidence,
                callee_kind,
                callee_path,
                callee_start,
                caller_kind,
                caller_start,
            ) = row?;
            nodes.entry(caller.clone()).or_insert_with(|| GraphNode {
                qualified_name: caller.clone(),
                kind: caller_kind.unwrap_or_else(|| "module".into()),
                path: path.clone(),
                start_line: caller_start.unwrap_or(1),
            });
            nodes.entry(callee.clone()).or_insert_with(|| GraphNode {
                qualified_name: callee.clone(),
                kind: callee_kind,
                path: callee_path,
                start_line: callee_start,
            });
            graph.edges.push(GraphEdge {
                caller,
                callee,
                path,
                line,
                confidence,
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
        let file_id: i64 = conn
            .query_row("SELECT id FROM files WHERE path = ?1", [&rel], |r| r.get(0))
            .map_err(|_| Error::NotIndexed(rel.clone()))?;
        let text = self
            .reader()
            .line(&rel, line)?
            .ok_or_else(|| Error::InvalidArgument(format!("{rel} has no line {line}")))?;
        // The identifier under the cursor (or the first call's on the line without a column).
        let word = col.and_then(|c| identifier_at(&text, c.saturating_sub(1) as usize));
        let mut stmt = conn.prepare(
            "SELECT c.callee, c.callee_name, t.id FROM calls c
             LEFT JOIN edges g ON g.call_id = c.id LEFT JOIN symbols t ON t.id = g.callee_id
             WHERE c.file_id = ?1 AND c.line = ?2 ORDER BY length(c.callee)",
        )?;
        let calls = stmt
            .query_map(params![file_id, line], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut ids: Vec<i64> = calls
            .iter()
            .filter(|(_, name, id)| id.is_some() && word.as_deref().is_none_or(|w| w == name))
            .filter_map(|(_, _, id)| *id)
            .collect();
        if ids.is_empty() {
            // A definition's own name, or an imported name: look the word up.
            let Some(word) = word.or_else(|| calls.first().map(|c| c.1.clone())) else {
                return Ok(Vec::new());
            };
            let mut own = conn.prepare(
                "SELECT id FROM symbols WHERE file_id = ?1 AND name = ?2 AND start_line <= ?3 AND end_line >= ?3",
            )?;
            ids = own
                .query_map(params![file_id, word, line], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            if ids.is_empty() {
                let mut by_import = conn.prepare(
                    "SELECT s.id FROM imports i JOIN files tf ON tf.path = i.target
                     JOIN symbols s ON s.file_id = tf.id AND s.parent_id IS NULL AND s.name = coalesce(i.name, ?2)
                     WHERE i.file_id = ?1 AND i.binding = ?2",
                )?;
                ids = by_import
                    .query_map(params![file_id, word], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
            }
            if ids.is_empty() {
                // An imported module (`import pkg.mod as m`, `use crate::store`): the file itself.
                let module: Option<(String, String, u32)> = conn
                    .query_row(
                        "SELECT tf.path, tf.module, tf.line_count FROM imports i JOIN files tf ON tf.path = i.target
                         WHERE i.file_id = ?1 AND i.binding = ?2 LIMIT 1",
                        params![file_id, word],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .ok();
                if let Some((path, module, lines)) = module {
                    let end = lines.clamp(1, 10);
                    let snippet = self
                        .reader()
                        .snippet(&path, 1, end, Budget::DEFINITION)
                        .unwrap_or_default();
                    let mut ev = Evidence::new(&path, 1, end, Kind::Module, &module, snippet);
                    ev.qualified_name = Some(module);
                    ev.reason = Some(format!("the module `{word}` names (its first {end} lines)"));
                    return Ok(vec![ev]);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        self.definitions_by_id(&ids)
    }

    fn definitions_by_id(&self, ids: &[i64]) -> Result<Vec<Evidence>> {
        let mut stmt = self.connection().prepare_cached(
            "SELECT f.path, s.start_line, s.end_line, s.kind, s.name, s.qualified_name
             FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?1",
        )?;
        let mut reader = self.reader();
        let mut out = Vec::new();
        for id in ids {
            let (path, start, end, kind, name, qualified): (
                String,
                u32,
                u32,
                String,
                String,
                String,
            ) = stmt.query_row([id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?;
            let snippet = reader
                .snippet(&path, start, end, Budget::DEFINITION)
                .unwrap_or_default();
            let mut ev = Evidence::new(
                path,
                start,
                end,
                Kind::parse(&kind).unwrap_or(Kind::Function),
                name,
                snippet,
            );
            ev.qualified_name = Some(qualified);
            out.push(ev);
        }
        Ok(out)
    }
}

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
            let row = self
                .conn
                .prepare_cached("SELECT path, module FROM files WHERE id = ?1")?
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            self.files.insert(id, row);
        }
        Ok(&self.files[&id])
    }

    fn node(&mut self, node: Node) -> Result<&NodeInfo> {
        if !self.nodes.contains_key(&node) {
            let info = match node {
                Node::Definition(id) => self
                    .conn
                    .prepare_cached(
                        "SELECT qualified_name, kind, start_line, end_line FROM symbols WHERE id = ?1",
                    )?
                    .query_row([id], |r| {
                        Ok(NodeInfo {
                            qualified_name: r.get(0)?,
                            kind: Kind::parse(&r.get::<_, String>(1)?).unwrap_or(Kind::Function),
                            start_line: r.get(2)?,
                            end_line: r.get(3)?,
                        })
                    })?,
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
    sites: Vec<Evidence>,
    nodes: Vec<Evidence>,
    edges: Vec<(String, String)>,
    omitted: usize,
    /// Files of every affected node, listed or not.
    files: HashSet<i64>,
}

/// The identifier covering character column `col` (0-based) of `line`.
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
    fn edit_distance() {
        assert_eq!(levenshtein("compute", "compte"), 1);
        assert_eq!(levenshtein("", "abc"), 3);
    }
}
