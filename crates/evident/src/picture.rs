//! Pictures without a browser: a call graph laid out and written as SVG
//! (`--format svg`), by the layout-rs crate's layered layout. Edges are
//! drawn by confidence: exact and inferred resolutions solid, a name-only
//! one dashed, a "possible" call (unresolved, but naming the target) dotted
//! and grey. Past [`MAX_NODES`] nodes, the levels nearest the roots are
//! drawn and the picture says how many were left out.

use std::collections::{HashMap, VecDeque};

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

/// The most nodes one picture draws.
pub const MAX_NODES: usize = 200;

/// How sure an edge is, as the index says it (`exact`, `inferred`,
/// `name_only`), or `possible` for an unresolved call that names its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    Resolved,
    NameOnly,
    Possible,
}

impl Confidence {
    pub fn of(label: &str) -> Confidence {
        match label {
            "name_only" => Confidence::NameOnly,
            "possible" => Confidence::Possible,
            _ => Confidence::Resolved,
        }
    }
}

/// What to draw: `(caller, callee, confidence)` by name; `roots` are drawn
/// first (the definitions asked about), then the nodes nearest them.
#[derive(Debug, Default)]
pub struct Picture {
    pub roots: Vec<String>,
    pub edges: Vec<(String, String, Confidence)>,
}

/// The nodes kept: breadth first from the roots (either direction of an
/// edge), then any others in the order met, at most `MAX_NODES`.
fn kept_nodes(picture: &Picture) -> (Vec<String>, usize) {
    let mut neighbours: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (from, to, _) in &picture.edges {
        for (name, other) in [(from, to), (to, from)] {
            let next = neighbours.entry(name).or_default();
            if next.is_empty() {
                order.push(name);
            }
            next.push(other);
        }
    }
    let mut kept: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut queue: VecDeque<&str> = picture.roots.iter().map(String::as_str).collect();
    let mut rest = order.iter();
    while let Some(name) = queue.pop_front().or_else(|| rest.next().copied()) {
        if !seen.insert(name) {
            continue;
        }
        if kept.len() == MAX_NODES {
            continue;
        }
        kept.push(name.to_string());
        if let Some(next) = neighbours.get(name) {
            queue.extend(next.iter().copied());
        }
    }
    let left_out = seen.len() - kept.len();
    (kept, left_out)
}

/// The picture as a standalone SVG document, and how many nodes it left out.
pub fn svg(picture: &Picture) -> (String, usize) {
    let (kept, left_out) = kept_nodes(picture);
    let mut graph = VisualGraph::new(Orientation::LeftToRight);
    let mut handles = HashMap::new();
    for name in &kept {
        let shape = ShapeKind::new_box(name);
        let mut look = StyleAttr::simple();
        if picture.roots.contains(name) {
            look.line_width = 3;
        }
        let size = get_shape_size(Orientation::LeftToRight, &shape, look.font_size, false);
        let element = Element::create(shape, look, Orientation::LeftToRight, size);
        handles.insert(name.as_str(), graph.add_node(element));
    }
    let mut drawn = std::collections::HashSet::new();
    for (from, to, confidence) in &picture.edges {
        let (Some(&a), Some(&b)) = (handles.get(from.as_str()), handles.get(to.as_str())) else {
            continue;
        };
        if a == b || !drawn.insert((from, to)) {
            continue;
        }
        let mut arrow = Arrow::simple("");
        match confidence {
            Confidence::Resolved => {}
            Confidence::NameOnly => arrow.line_style = LineStyleKind::Dashed,
            Confidence::Possible => {
                arrow.line_style = LineStyleKind::Dotted;
                arrow.look.line_color = Color::fast("gray");
            }
        }
        graph.add_edge(arrow, a, b);
    }
    if kept.is_empty() {
        return (empty_svg("nothing to draw"), 0);
    }
    let mut writer = SVGWriter::new();
    graph.do_it(false, false, false, &mut writer);
    let mut out = writer.finalize();
    if left_out > 0 {
        // Said inside the picture, under everything else, and readable as text.
        let note = format!(
            "<text x=\"4\" y=\"14\" font-family=\"monospace\" font-size=\"12\">{} more node(s) left out: the first {MAX_NODES} nearest the roots are drawn</text></svg>",
            left_out
        );
        if let Some(end) = out.rfind("</svg>") {
            out.replace_range(end.., &note);
        }
    }
    (out, left_out)
}

/// The most nodes a map's picture draws: a layered layout of a dense graph
/// costs far more than of a tree.
pub const MAP_MAX_NODES: usize = 40;
/// The most edges leaving one node of a map's picture (its heaviest).
const MAP_MAX_EDGES_OUT: usize = 3;

/// The map's edges between drawn nodes: each node's heaviest few.
fn heaviest_edges<'a, T>(
    map: &'a evident_index::DependencyMap,
    drawn: &HashMap<&str, T>,
) -> Vec<&'a evident_index::MapEdge> {
    let mut edges: Vec<&evident_index::MapEdge> = map
        .edges
        .iter()
        .filter(|e| drawn.contains_key(e.from.as_str()) && drawn.contains_key(e.to.as_str()))
        .collect();
    edges.sort_by_key(|e| std::cmp::Reverse(e.imports + e.calls));
    let mut out_of: HashMap<&str, usize> = HashMap::new();
    edges.retain(|e| {
        let n = out_of.entry(e.from.as_str()).or_default();
        *n += 1;
        *n <= MAP_MAX_EDGES_OUT
    });
    edges
}

/// A dependency map as SVG: the [`MAP_MAX_NODES`] largest nodes (by
/// definitions, then calls in), cycles red, nodes holding most-called
/// definitions bold, callees outside the files asked about grey; and how
/// many nodes it left out.
pub fn map_svg(map: &evident_index::DependencyMap) -> (String, usize) {
    let mut ranked: Vec<&evident_index::MapNode> = map.nodes.iter().collect();
    ranked.sort_by_key(|n| std::cmp::Reverse((n.definitions, n.called)));
    ranked.truncate(MAP_MAX_NODES);
    let left_out = map.nodes.len() - ranked.len();
    if ranked.is_empty() {
        return (empty_svg("nothing to draw"), 0);
    }
    let mut graph = VisualGraph::new(Orientation::LeftToRight);
    let mut handles = HashMap::new();
    for node in &ranked {
        let label = crate::render::map_node_label(map.level, node).replace('\n', ": ");
        let shape = ShapeKind::new_box(&label);
        let mut look = StyleAttr::simple();
        if node.hot > 0 {
            look.line_width = 3;
        }
        if node.in_cycle {
            look.line_color = Color::fast("red");
        }
        if node.outside {
            look.fill_color = Some(Color::fast("lightgray"));
        }
        let size = get_shape_size(Orientation::LeftToRight, &shape, look.font_size, false);
        let element = Element::create(shape, look, Orientation::LeftToRight, size);
        handles.insert(node.id.as_str(), graph.add_node(element));
    }
    for edge in heaviest_edges(map, &handles) {
        let (a, b) = (handles[edge.from.as_str()], handles[edge.to.as_str()]);
        let mut arrow = Arrow::simple(&(edge.imports + edge.calls).to_string());
        if edge.in_cycle {
            arrow.look.line_color = Color::fast("red");
        }
        graph.add_edge(arrow, a, b);
    }
    let mut writer = SVGWriter::new();
    graph.do_it(false, false, false, &mut writer);
    (writer.finalize(), left_out)
}

fn empty_svg(message: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"320\" height=\"40\"><text x=\"8\" y=\"24\" font-family=\"monospace\" font-size=\"14\">{message}</text></svg>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(x, y, width, height)` of each node box in `svg`.
    fn boxes(svg: &str) -> Vec<(f64, f64, f64, f64)> {
        let attr = |tag: &str, name: &str| -> f64 {
            let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            let end = start + tag[start..].find('"').unwrap();
            tag[start..end].parse().unwrap()
        };
        svg.split("<rect")
            .skip(1)
            .map(|tag| {
                let tag = &tag[..tag.find("/>").unwrap()];
                (
                    attr(tag, "x"),
                    attr(tag, "y"),
                    attr(tag, "width"),
                    attr(tag, "height"),
                )
            })
            .collect()
    }

    fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }

    fn picture(edges: &[(&str, &str, Confidence)]) -> Picture {
        Picture {
            roots: vec![edges[0].1.to_string()],
            edges: edges
                .iter()
                .map(|(a, b, c)| (a.to_string(), b.to_string(), *c))
                .collect(),
        }
    }

    #[test]
    fn small_graphs_have_no_overlapping_nodes_and_every_node_labelled() {
        use Confidence::*;
        let cases = [
            picture(&[("main", "helper", Resolved)]),
            picture(&[
                ("a.main", "util.helper", Resolved),
                ("b.run", "util.helper", NameOnly),
                ("c.go", "util.helper", Possible),
                ("a.main", "b.run", Resolved),
                ("tests.test_main", "a.main", Resolved),
            ]),
            // A cycle and a fan-in of ten.
            picture(
                &(0..10)
                    .map(|i| {
                        (
                            ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"][i],
                            "hub",
                            Resolved,
                        )
                    })
                    .chain([("hub", "f0", Resolved)])
                    .collect::<Vec<_>>(),
            ),
        ];
        for case in &cases {
            let (svg, _) = svg(case);
            let mut names: Vec<&str> = case
                .edges
                .iter()
                .flat_map(|(a, b, _)| [a.as_str(), b.as_str()])
                .collect();
            names.sort_unstable();
            names.dedup();
            let boxes = boxes(&svg);
            assert_eq!(boxes.len(), names.len(), "{svg}");
            for (i, a) in boxes.iter().enumerate() {
                for b in &boxes[i + 1..] {
                    assert!(!overlap(*a, *b), "{a:?} overlaps {b:?}");
                }
            }
            for name in names {
                assert!(
                    svg.contains(&format!(">{name}</tspan>")),
                    "{name} is labelled"
                );
            }
        }
    }

    #[test]
    fn labels_are_escaped_and_confidence_is_drawn() {
        use Confidence::*;
        let (svg, _) = svg(&picture(&[
            ("<script>x</script>", "target", Resolved),
            ("maybe", "target", Possible),
            ("named", "target", NameOnly),
        ]));
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains("stroke-dasharray"), "dashed and dotted edges");
    }

    #[test]
    fn past_the_limit_the_nearest_levels_are_drawn_and_the_rest_counted() {
        let mut edges = Vec::new();
        for i in 0..150 {
            edges.push((
                format!("caller_{i}"),
                "target".to_string(),
                Confidence::Resolved,
            ));
            edges.push((
                format!("far_{i}"),
                format!("caller_{i}"),
                Confidence::Resolved,
            ));
        }
        let picture = Picture {
            roots: vec!["target".into()],
            edges,
        };
        let (svg, left_out) = svg(&picture);
        assert_eq!(boxes(&svg).len(), MAX_NODES);
        assert_eq!(left_out, 301 - MAX_NODES);
        assert!(svg.contains("101 more node(s) left out"));
        // Every direct caller is nearer than any caller of a caller.
        for i in 0..150 {
            assert!(svg.contains(&format!(">caller_{i}</tspan>")));
        }
    }
}
