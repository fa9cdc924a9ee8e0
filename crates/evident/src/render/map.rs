//! `evident graph --level`: the dependency map as a summary, as Graphviz
//! DOT, and as Mermaid. (The SVG is `picture::map_svg`; JSON is the map
//! itself.) Cycles are drawn red, nodes holding most-called definitions
//! bold, an edge's width and label its weight.

use std::fmt::Write;

use evident_index::{printable, DependencyMap, MapEdge, MapLevel, MapNode};

/// A node's label: its name and size.
pub fn node_label(level: MapLevel, node: &MapNode) -> String {
    match level {
        MapLevel::Definition => node.id.clone(),
        MapLevel::File => format!("{}\n{} defs", node.id, node.definitions),
        MapLevel::Package => format!(
            "{}\n{} files, {} defs",
            node.id, node.files, node.definitions
        ),
    }
}

/// What an edge stands for, in one short label.
pub fn edge_label(edge: &MapEdge) -> String {
    match (edge.imports, edge.calls) {
        (0, calls) => format!("{calls} calls"),
        (imports, 0) => format!("{imports} imports"),
        (imports, calls) => format!("{imports} imports, {calls} calls"),
    }
}

pub fn map_text(map: &DependencyMap) -> String {
    let mut out = String::new();
    let kind = match map.level {
        MapLevel::Package => "package",
        MapLevel::File => "file",
        MapLevel::Definition => "definition",
    };
    let under = if map.under.is_empty() {
        "the repository"
    } else {
        &map.under
    };
    let _ = writeln!(
        out,
        "{} {kind}(s) in {}, {} dependencies, {} cycle(s)",
        map.nodes.len(),
        printable(under),
        map.edges.len(),
        map.cycles.len()
    );
    let mut largest: Vec<&MapNode> = map.nodes.iter().filter(|n| !n.outside).collect();
    largest.sort_by(|a, b| {
        b.definitions
            .cmp(&a.definitions)
            .then(b.called.cmp(&a.called))
    });
    if map.level != MapLevel::Definition {
        out.push_str("\nlargest (definitions, files, calls in):\n");
        for n in largest.iter().take(15) {
            let _ = writeln!(
                out,
                "  {:>6} {:>5} {:>7}  {}",
                n.definitions,
                n.files,
                n.called,
                printable(&n.id)
            );
        }
    }
    let mut heaviest: Vec<&MapEdge> = map.edges.iter().collect();
    heaviest.sort_by_key(|e| std::cmp::Reverse(e.imports + e.calls));
    out.push_str("\nheaviest dependencies:\n");
    for e in heaviest.iter().take(15) {
        let cycle = if e.in_cycle { "  (in a cycle)" } else { "" };
        let _ = writeln!(
            out,
            "  {} -> {}  {}{cycle}",
            printable(&e.from),
            printable(&e.to),
            edge_label(e)
        );
    }
    if !map.cycles.is_empty() {
        out.push_str("\ncycles:\n");
        for cycle in &map.cycles {
            let names: Vec<String> = cycle.iter().map(|n| printable(n).into_owned()).collect();
            let _ = writeln!(out, "  {} nodes: {}", cycle.len(), names.join(", "));
        }
    }
    if !map.hot.is_empty() {
        out.push_str("\nmost called:\n");
        for h in &map.hot {
            let _ = writeln!(
                out,
                "  {:>6}  {}  {}:{}",
                h.callers,
                printable(&h.qualified_name),
                printable(&h.path),
                h.line
            );
        }
    }
    out
}

fn quoted(text: &str) -> String {
    format!(
        "\"{}\"",
        text.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// Graphviz: `evident graph --level package --format dot | dot -Tsvg`.
pub fn map_dot(map: &DependencyMap) -> String {
    let mut out =
        String::from("digraph map {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
    for n in &map.nodes {
        let mut attrs = vec![format!("label={}", quoted(&node_label(map.level, n)))];
        if n.in_cycle {
            attrs.push("color=red".into());
        }
        if n.hot > 0 {
            attrs.push("penwidth=3".into());
        }
        if n.outside {
            attrs.push("style=dashed".into());
        }
        let _ = writeln!(out, "  {} [{}];", quoted(&n.id), attrs.join(", "));
    }
    for e in &map.edges {
        let weight = e.imports + e.calls;
        let width = 1.0 + (weight as f64).log10().max(0.0);
        let colour = if e.in_cycle { ", color=red" } else { "" };
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, penwidth={width:.1}{colour}];",
            quoted(&e.from),
            quoted(&e.to),
            quoted(&edge_label(e))
        );
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart; cycle edges and their nodes in red.
pub fn map_mermaid(map: &DependencyMap) -> String {
    let mut out = String::from("flowchart LR\n");
    let ids: std::collections::HashMap<&str, String> = map
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), format!("n{i}")))
        .collect();
    for n in &map.nodes {
        let label = node_label(map.level, n)
            .replace('"', "'")
            .replace('\n', "<br>");
        let _ = writeln!(out, "  {}[\"{label}\"]", ids[n.id.as_str()]);
    }
    let mut cycle_edges = Vec::new();
    for (i, e) in map.edges.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {} -->|{}| {}",
            ids[e.from.as_str()],
            edge_label(e),
            ids[e.to.as_str()]
        );
        if e.in_cycle {
            cycle_edges.push(i.to_string());
        }
    }
    for n in map.nodes.iter().filter(|n| n.in_cycle) {
        let _ = writeln!(
            out,
            "  style {} stroke:#c00,stroke-width:2px",
            ids[n.id.as_str()]
        );
    }
    if !cycle_edges.is_empty() {
        let _ = writeln!(out, "  linkStyle {} stroke:#c00", cycle_edges.join(","));
    }
    out
}
