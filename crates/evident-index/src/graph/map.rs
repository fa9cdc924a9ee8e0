//! A map of the repository: its directories (packages) or files as nodes,
//! sized by their definitions, with the imports and resolved calls between
//! them as weighted edges; the dependency cycles among them (strongly
//! connected components), and the most-called definitions. Or, for one
//! file, its definitions and the calls they make. What `evident graph
//! --level` prints and `evident serve`'s map draws.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::query::Index;
use crate::store::graph::map_rows::{self, MapFile};

/// How many most-called definitions a map names.
pub const HOT_DEFINITIONS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MapLevel {
    /// Directories: a file's node is the directory it is in (cut to
    /// `depth` parts when given).
    Package,
    File,
    /// The definitions of the files asked about, and what they call.
    Definition,
}

impl MapLevel {
    pub const ALL: [MapLevel; 3] = [MapLevel::Package, MapLevel::File, MapLevel::Definition];

    /// The level `name` names (`package`, `file`, `definition`).
    pub fn parse(name: &str) -> Option<MapLevel> {
        MapLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MapLevel::Package => "package",
            MapLevel::File => "file",
            MapLevel::Definition => "definition",
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MapNode {
    /// A directory (`.` for the root), a file path, or a qualified name.
    pub id: String,
    /// Files in it (1 for a file; 0 for a definition).
    pub files: usize,
    pub definitions: usize,
    pub lines: usize,
    /// The languages of its files, in name order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// Resolved calls into it from other nodes.
    pub called: usize,
    /// Part of a dependency cycle with other nodes (by imports; between
    /// definitions, by calls).
    pub in_cycle: bool,
    /// How many of the map's most-called definitions it holds.
    pub hot: usize,
    /// For a definition: its kind, file and line; `outside` when it is not
    /// in the files asked about (a callee elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MapEdge {
    pub from: String,
    pub to: String,
    /// Import statements in `from` that resolve into `to`.
    pub imports: usize,
    /// Resolved calls from `from` into `to`.
    pub calls: usize,
    /// Part of a dependency cycle: an import (or, between definitions, a
    /// call) from one node of a cycle to another.
    pub in_cycle: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HotDefinition {
    pub qualified_name: String,
    pub kind: String,
    pub path: String,
    pub line: u32,
    /// Resolved call sites that reach it.
    pub callers: usize,
    /// The node that holds it.
    pub node: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DependencyMap {
    pub level: MapLevel,
    /// The directory or file the map covers (`` for the whole repository).
    pub under: String,
    pub nodes: Vec<MapNode>,
    pub edges: Vec<MapEdge>,
    /// Each dependency cycle: its nodes, in name order; largest first.
    pub cycles: Vec<Vec<String>>,
    pub hot: Vec<HotDefinition>,
}

impl Index {
    /// The map of `under` (a directory or file; everything when empty) at
    /// `level`. `depth` cuts a package to its first parts (`django/db`).
    pub fn dependency_map(
        &self,
        level: MapLevel,
        under: Option<&str>,
        depth: Option<usize>,
    ) -> Result<DependencyMap> {
        let under = under
            .map(|p| self.repo_rel(p))
            .transpose()?
            .unwrap_or_default();
        let under = under.trim_end_matches('/').to_string();
        let conn = self.connection();
        let all = map_rows::map_files(conn)?;
        let files: Vec<&MapFile> = all.iter().filter(|f| is_under(&f.path, &under)).collect();
        if files.is_empty() && !under.is_empty() {
            return Err(Error::NotFound(format!("no indexed file under {under}")));
        }
        let mut map = match level {
            MapLevel::Definition => definitions_map(self, &all, &files, &under)?,
            _ => files_map(self, level, &files, &under, depth)?,
        };
        map.under = under;
        mark_cycles(&mut map);
        Ok(map)
    }
}

fn is_under(path: &str, under: &str) -> bool {
    under.is_empty()
        || path == under
        || path
            .strip_prefix(under)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A file's package: its directory, cut to `depth` parts.
fn package_of(path: &str, depth: Option<usize>) -> String {
    cut(path.rsplit_once('/').map_or(".", |(dir, _)| dir), depth)
}

/// A directory's first `depth` parts.
fn cut(dir: &str, depth: Option<usize>) -> String {
    match depth {
        Some(depth) if dir != "." => dir
            .split('/')
            .take(depth.max(1))
            .collect::<Vec<_>>()
            .join("/"),
        _ => dir.to_string(),
    }
}

/// Packages or files, the imports and calls between them, and the hot
/// definitions they hold.
fn files_map(
    index: &Index,
    level: MapLevel,
    files: &[&MapFile],
    under: &str,
    depth: Option<usize>,
) -> Result<DependencyMap> {
    let conn = index.connection();
    let node_of_path = |path: &str| match level {
        MapLevel::Package => package_of(path, depth),
        _ => path.to_string(),
    };
    let node_of: HashMap<i64, String> = files
        .iter()
        .map(|f| (f.id, node_of_path(&f.path)))
        .collect();
    let mut nodes: BTreeMap<String, MapNode> = BTreeMap::new();
    for file in files {
        let node = nodes
            .entry(node_of[&file.id].clone())
            .or_insert_with(|| empty_node(&node_of[&file.id]));
        node.files += 1;
        node.definitions += file.definitions;
        node.lines += file.lines;
        if let Err(at) = node.languages.binary_search(&file.lang) {
            node.languages.insert(at, file.lang.clone());
        }
    }
    let mut edges: Edges = BTreeMap::new();
    for (from, to, calls) in map_rows::calls_between_files(conn, under)? {
        let (Some(a), Some(b)) = (node_of.get(&from), node_of.get(&to)) else {
            continue;
        };
        if let Some(e) = edge(&mut edges, a, b) {
            e.calls += calls;
            if let Some(n) = nodes.get_mut(b) {
                n.called += calls;
            }
        }
    }
    let file_node: HashMap<&str, &String> = files
        .iter()
        .map(|f| (f.path.as_str(), &node_of[&f.id]))
        .collect();
    for (from, target, imports) in map_rows::imports_between_files(conn, under)? {
        let Some(a) = node_of.get(&from) else {
            continue;
        };
        // A target is a file, or (a package imported whole) a directory.
        let b = match file_node.get(target.as_str()) {
            Some(b) => (*b).clone(),
            None if level == MapLevel::Package && nodes.contains_key(&cut(&target, depth)) => {
                cut(&target, depth)
            }
            None => continue,
        };
        if let Some(e) = edge(&mut edges, a, &b) {
            e.imports += imports;
        }
    }
    let hot = hot_definitions(index, files, under, |d| node_of[&d.file_id].clone())?;
    for h in &hot {
        if let Some(n) = nodes.get_mut(&h.node) {
            n.hot += 1;
        }
    }
    Ok(DependencyMap {
        level,
        under: String::new(),
        nodes: nodes.into_values().collect(),
        edges: edges.into_values().collect(),
        cycles: Vec::new(),
        hot,
    })
}

type Edges = BTreeMap<(String, String), MapEdge>;

/// The edge from `from` to `to`, made when new; none from a node to itself.
fn edge<'a>(edges: &'a mut Edges, from: &str, to: &str) -> Option<&'a mut MapEdge> {
    (from != to).then(|| {
        edges
            .entry((from.to_string(), to.to_string()))
            .or_insert_with(|| MapEdge {
                from: from.to_string(),
                to: to.to_string(),
                imports: 0,
                calls: 0,
                in_cycle: false,
            })
    })
}

fn empty_node(id: &str) -> MapNode {
    MapNode {
        id: id.to_string(),
        files: 0,
        definitions: 0,
        lines: 0,
        languages: Vec::new(),
        called: 0,
        in_cycle: false,
        hot: 0,
        kind: None,
        path: None,
        line: None,
        outside: false,
    }
}

/// The map's most-called definitions, each with the node `node` puts it in.
fn hot_definitions(
    index: &Index,
    files: &[&MapFile],
    under: &str,
    node: impl Fn(&map_rows::CalledDefinition) -> String,
) -> Result<Vec<HotDefinition>> {
    let path: HashMap<i64, &str> = files.iter().map(|f| (f.id, f.path.as_str())).collect();
    let called = map_rows::most_called(index.connection(), HOT_DEFINITIONS, under)?;
    Ok(called
        .into_iter()
        .map(|d| HotDefinition {
            node: node(&d),
            path: path[&d.file_id].to_string(),
            qualified_name: d.qualified_name,
            kind: d.kind,
            line: d.start_line,
            callers: d.callers,
        })
        .collect())
}

/// The definitions of `files` and the calls they make, callees elsewhere
/// included as `outside` nodes.
fn definitions_map(
    index: &Index,
    all: &[MapFile],
    files: &[&MapFile],
    under: &str,
) -> Result<DependencyMap> {
    let conn = index.connection();
    let paths: HashMap<i64, &str> = all.iter().map(|f| (f.id, f.path.as_str())).collect();
    let mut nodes: BTreeMap<String, MapNode> = BTreeMap::new();
    let mut edges: Edges = BTreeMap::new();
    let definition_node = |d: &map_rows::DefinitionRow, outside: bool| MapNode {
        kind: Some(d.kind.clone()),
        path: paths.get(&d.file_id).map(|p| p.to_string()),
        line: Some(d.start_line),
        outside,
        ..empty_node(&d.qualified_name)
    };
    for file in files {
        for d in map_rows::definitions_of(conn, file.id)? {
            nodes
                .entry(d.qualified_name.clone())
                .or_insert_with(|| definition_node(&d, false));
        }
    }
    let inside: std::collections::HashSet<i64> = files.iter().map(|f| f.id).collect();
    for file in files {
        for (caller, callee, calls) in map_rows::calls_from_file(conn, file.id)? {
            let to = callee.qualified_name.clone();
            nodes
                .entry(to.clone())
                .or_insert_with(|| definition_node(&callee, !inside.contains(&callee.file_id)));
            nodes.entry(caller.clone()).or_insert_with(|| MapNode {
                kind: Some("module".into()),
                path: Some(file.path.clone()),
                line: Some(1),
                ..empty_node(&caller)
            });
            if caller == to {
                continue;
            }
            if let Some(n) = nodes.get_mut(&to) {
                n.called += calls;
            }
            if let Some(e) = edge(&mut edges, &caller, &to) {
                e.calls += calls;
            }
        }
    }
    let hot = hot_definitions(index, files, under, |d| d.qualified_name.clone())?;
    for h in &hot {
        if let Some(n) = nodes.get_mut(&h.node) {
            n.hot += 1;
        }
    }
    Ok(DependencyMap {
        level: MapLevel::Definition,
        under: String::new(),
        nodes: nodes.into_values().collect(),
        edges: edges.into_values().collect(),
        cycles: Vec::new(),
        hot,
    })
}

/// Finds the dependency cycles (strongly connected components of more than
/// one node, by Tarjan's algorithm without recursion) and marks their nodes
/// and the edges inside them. Between packages and files a cycle is one of
/// imports: a call can run against them (a base class's method calling the
/// override a test defines), which is no dependency of the base's file.
/// Between definitions, where there are only calls, it is mutual recursion.
fn mark_cycles(map: &mut DependencyMap) {
    let index: HashMap<String, usize> = map
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.clone(), i))
        .collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); map.nodes.len()];
    let by_calls = map.level == MapLevel::Definition;
    for e in map.edges.iter().filter(|e| by_calls || e.imports > 0) {
        if let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            next[a].push(b);
        }
    }
    let component = strongly_connected(&next);
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for (node, c) in component.iter().enumerate() {
        members.entry(*c).or_default().push(node);
    }
    // A node is in a cycle when its component holds another node.
    let flags: Vec<bool> = component.iter().map(|c| members[c].len() > 1).collect();
    let mut cycles: Vec<Vec<String>> = members
        .into_values()
        .filter(|members| members.len() > 1)
        .map(|members| {
            let mut names: Vec<String> = members.iter().map(|&i| map.nodes[i].id.clone()).collect();
            names.sort();
            names
        })
        .collect();
    cycles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    for (node, flag) in map.nodes.iter_mut().zip(&flags) {
        node.in_cycle = *flag;
    }
    for e in map.edges.iter_mut().filter(|e| by_calls || e.imports > 0) {
        if let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            e.in_cycle = flags[a] && component[a] == component[b];
        }
    }
    map.cycles = cycles;
}

/// Each node's strongly connected component (an arbitrary id per component).
fn strongly_connected(next: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = next.len();
    let (mut order, mut low, mut component) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut stack, mut on_stack, mut counter, mut components) = (Vec::new(), vec![false; n], 0, 0);
    for start in 0..n {
        if order[start] != UNSEEN {
            continue;
        }
        // (node, index of the next successor to visit)
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 && order[v] == UNSEEN {
                order[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = next[v].get(*i) {
                *i += 1;
                if order[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_the_cycles_and_lone_nodes() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3, 5 alone, 6 -> 6
        let next = vec![
            vec![1],
            vec![2],
            vec![0, 3],
            vec![4],
            vec![3],
            vec![],
            vec![6],
        ];
        let c = strongly_connected(&next);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] == c[4] && c[3] != c[0]);
        assert!(c[5] != c[0] && c[5] != c[3] && c[6] != c[5]);
    }

    #[test]
    fn a_long_chain_needs_no_deep_recursion() {
        let n = 200_000;
        let next: Vec<Vec<usize>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        let c = strongly_connected(&next);
        assert!(c.iter().all(|&x| x == c[0]));
    }

    #[test]
    fn packages_are_directories_cut_to_a_depth() {
        assert_eq!(package_of("setup.py", None), ".");
        assert_eq!(
            package_of("django/db/models/query.py", None),
            "django/db/models"
        );
        assert_eq!(
            package_of("django/db/models/query.py", Some(2)),
            "django/db"
        );
        assert_eq!(
            package_of("django/db/models/query.py", Some(9)),
            "django/db/models"
        );
    }
}
