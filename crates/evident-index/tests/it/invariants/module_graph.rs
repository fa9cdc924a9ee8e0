//! The file-level import graph of a crate, read from its sources: an edge
//! runs from a file to each file whose items it names (`use` paths and
//! inline `crate::`/`super::`/child-module paths). A path through a
//! re-export counts for the file that defines the item, so a facade
//! `mod.rs` that only declares and re-exports its children is no edge back.
//! Method calls are no imports: `impl` blocks of one type may spread over
//! sibling files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

/// A module: its path from the crate root (`["graph", "calls"]`).
pub type Module = Vec<String>;

/// Each module's code, without comments, `pub(in …)` paths and test modules.
pub fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    read_dir(src, src, &mut out);
    out
}

fn read_dir(root: &Path, dir: &Path, out: &mut BTreeMap<Module, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_dir(root, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap().with_extension("");
        let mut module: Module = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        out.insert(module, strip(&std::fs::read_to_string(&path).unwrap()));
    }
}

fn strip(text: &str) -> String {
    let comments = Regex::new(r"//[^\n]*").unwrap();
    let restricted = Regex::new(r"pub\(in [^)]*\)").unwrap();
    let text = comments.replace_all(text, "");
    let text = restricted.replace_all(&text, "pub");
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end].to_string()
}

/// The edges between distinct modules.
pub fn edges(modules: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let graph = Graph::new(modules);
    modules
        .keys()
        .map(|m| (m.clone(), graph.edges_of(m)))
        .collect()
}

/// The groups of two or more modules that reach each other (strongly
/// connected components), each sorted.
pub fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    let reach = |from: &Module| {
        let mut seen: BTreeSet<Module> = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Module, BTreeSet<Module>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut groups: BTreeSet<Vec<Module>> = BTreeSet::new();
    for (m, from_m) in &reached {
        let group: Vec<Module> = from_m
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(*m)))
            .cloned()
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups.into_iter().collect()
}

struct Graph<'m> {
    modules: &'m BTreeMap<Module, String>,
    children: BTreeMap<&'m Module, Vec<String>>,
    uses: Regex,
    reexports: Regex,
}

impl<'m> Graph<'m> {
    fn new(modules: &'m BTreeMap<Module, String>) -> Graph<'m> {
        let declared = Regex::new(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;").unwrap();
        let children = modules
            .iter()
            .map(|(m, code)| {
                let names = declared.captures_iter(code).map(|c| c[1].to_string());
                (m, names.collect())
            })
            .collect();
        Graph {
            modules,
            children,
            uses: Regex::new(r"\buse\s+([^;]+);").unwrap(),
            reexports: Regex::new(r"pub(?:\([^)]*\))?\s+use\s+([^;]+);").unwrap(),
        }
    }

    fn edges_of(&self, m: &Module) -> BTreeSet<Module> {
        let code = &self.modules[m];
        let mut paths: Vec<String> = Vec::new();
        for u in self.uses.captures_iter(code) {
            paths.extend(expand(&u[1]));
        }
        let mut heads = vec!["crate".to_string(), "super".to_string()];
        heads.extend(self.children[m].iter().cloned());
        let inline = Regex::new(&format!(
            r"(?:^|[^:\w])((?:{})(?:::[A-Za-z_]\w*)+)",
            heads.join("|")
        ))
        .unwrap();
        paths.extend(inline.captures_iter(code).map(|c| c[1].to_string()));
        let mut out = BTreeSet::new();
        for path in paths {
            let Some(absolute) = self.absolute(m, path.trim().trim_end_matches([':', '*'])) else {
                continue;
            };
            let target = self.resolve(&absolute);
            let through_ancestor = target.len() <= m.len() && m[..target.len()] == target[..];
            let named = absolute.get(target.len()).map_or("", String::as_str);
            if target == *m || through_ancestor && !self.defines(&target, named) {
                continue;
            }
            out.insert(target);
        }
        out
    }

    /// A path as segments from the crate root; `None` for another crate's.
    fn absolute(&self, m: &Module, path: &str) -> Option<Module> {
        let segments: Vec<&str> = path.split("::").map(str::trim).collect();
        let keep = |s: &&&str| !s.is_empty() && **s != "self";
        if segments[0] == "crate" {
            return Some(
                segments[1..]
                    .iter()
                    .filter(keep)
                    .map(|s| s.to_string())
                    .collect(),
            );
        }
        if self.children[m].iter().any(|c| c == segments[0]) {
            let rest = segments.iter().filter(keep).map(|s| s.to_string());
            return Some(m.iter().cloned().chain(rest).collect());
        }
        if !matches!(segments[0], "super" | "self") {
            return None;
        }
        let mut current = m.clone();
        let mut rest = segments.as_slice();
        while let Some((&first, tail)) = rest.split_first() {
            match first {
                "super" => current.pop(),
                "self" => None,
                _ => break,
            };
            rest = tail;
        }
        current.extend(rest.iter().filter(keep).map(|s| s.to_string()));
        Some(current)
    }

    /// The module that defines what `path` names: its longest module
    /// prefix, then through that module's re-exports.
    fn resolve(&self, path: &[String]) -> Module {
        let mut cut = path.len();
        while cut > 0 && !self.modules.contains_key(&path[..cut]) {
            cut -= 1;
        }
        let mut module = path[..cut].to_vec();
        if let Some(name) = path.get(cut) {
            for _ in 0..5 {
                if self.defines(&module, name) {
                    break;
                }
                match self.reexported_from(&module, name) {
                    Some(next) => module = next,
                    None => break,
                }
            }
        }
        module
    }

    fn defines(&self, module: &Module, name: &str) -> bool {
        if name.is_empty() {
            return false;
        }
        let name = regex::escape(name);
        let item = Regex::new(&format!(
            r"(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:fn|struct|enum|type|trait|const|static|union)\s+{name}\b|macro_rules!\s*{name}\b"
        ))
        .unwrap();
        self.modules
            .get(module)
            .is_some_and(|code| item.is_match(code))
    }

    fn reexported_from(&self, module: &Module, name: &str) -> Option<Module> {
        let word = Regex::new(&format!(r"\b{}\b", regex::escape(name))).unwrap();
        let code = self.modules.get(module)?;
        for body in self.reexports.captures_iter(code) {
            let body = &body[1];
            if !word.is_match(body) {
                continue;
            }
            let mut segments = body.split("::").map(str::trim);
            let mut base = segments.next()?;
            if base == "self" {
                base = segments.next()?;
            }
            let child: Module = module.iter().cloned().chain([base.to_string()]).collect();
            if self.modules.contains_key(&child) {
                return Some(child);
            }
        }
        None
    }
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(path: &str) -> Vec<String> {
    let unaliased = Regex::new(r"\s+as\s+\w+").unwrap().replace_all(path, "");
    let path: String = unaliased.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = path.find('{') else {
        return vec![path];
    };
    let (prefix, inner) = (&path[..open], &path[open + 1..path.len() - 1]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(p).into_iter().map(|e| format!("{prefix}{e}")))
        .collect()
}
