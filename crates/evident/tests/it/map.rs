//! `evident graph --level`: a map of packages, files or one file's
//! definitions, on a repository whose dependencies Python's semantics fix:
//! which file imports which, how many calls each makes into another, the
//! import cycle between two packages, and the most-called definitions.

use std::path::{Path, PathBuf};

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::git::commit_all;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

/// `shop` and `billing` import each other (a cycle of packages, though no
/// two files import each other); `report.py` at the root uses `shop`.
fn shop() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let files = [
        ("shop/__init__.py", ""),
        ("billing/__init__.py", ""),
        ("shop/util.py", "def fee():\n    return 1\n"),
        (
            "shop/cart.py",
            "from billing.tax import rate\nfrom shop.util import fee\n\n\ndef total(items):\n    return sum(items) * rate() + fee()\n\n\ndef again(items):\n    return rate()\n",
        ),
        ("billing/tax.py", "from shop.util import fee\n\n\ndef rate():\n    return 0.2 + fee()\n"),
        ("report.py", "import shop.cart\n\n\ndef main():\n    return shop.cart.total([1])\n"),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    evident_testkit::git::git(&root, &["init", "-q", "-b", "main"]);
    commit_all(&root, "shop");
    let out = cli::run(BIN, &root, &["index", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    (tmp, root)
}

fn map(root: &Path, args: &[&str]) -> Value {
    let out = cli::run(BIN, root, &[&["graph", "--format", "json"], args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// `from -> to: (imports, calls)`, every edge.
fn edges(map: &Value) -> Vec<String> {
    let mut out: Vec<String> = map["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} -> {}: ({}, {})",
                e["from"].as_str().unwrap(),
                e["to"].as_str().unwrap(),
                e["imports"],
                e["calls"]
            )
        })
        .collect();
    out.sort();
    out
}

fn node<'a>(map: &'a Value, id: &str) -> &'a Value {
    map["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("no node {id}: {map}"))
}

#[test]
fn packages_their_imports_and_calls_and_the_cycle_between_two() {
    let (_tmp, root) = shop();
    let packages = map(&root, &["--level", "package"]);
    assert_eq!(
        edges(&packages),
        [
            ". -> shop: (1, 1)",
            "billing -> shop: (1, 1)",
            "shop -> billing: (1, 2)"
        ]
    );
    assert_eq!(packages["cycles"], serde_json::json!([["billing", "shop"]]));
    assert_eq!(node(&packages, "shop")["in_cycle"], true);
    assert_eq!(node(&packages, ".")["in_cycle"], false);
    // shop: __init__, util (fee), cart (total, again); billing: __init__, tax (rate).
    assert_eq!(
        (
            node(&packages, "shop")["files"].as_u64(),
            node(&packages, "shop")["definitions"].as_u64()
        ),
        (Some(3), Some(3))
    );
    assert_eq!(node(&packages, "billing")["definitions"], 1);
    // Calls into shop from other packages: fee from billing, total from the root.
    assert_eq!(node(&packages, "shop")["called"], 2);
    let hot: Vec<(&str, u64)> = packages["hot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["qualified_name"].as_str().unwrap(),
                h["callers"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hot,
        [
            ("billing.tax.rate", 2),
            ("shop.util.fee", 2),
            ("shop.cart.total", 1)
        ]
    );

    // No two files import each other: no cycle between files.
    let files = map(&root, &["--level", "file"]);
    assert_eq!(
        edges(&files),
        [
            "billing/tax.py -> shop/util.py: (1, 1)",
            "report.py -> shop/cart.py: (1, 1)",
            "shop/cart.py -> billing/tax.py: (1, 2)",
            "shop/cart.py -> shop/util.py: (1, 1)",
        ]
    );
    assert_eq!(files["cycles"], serde_json::json!([]));
    // Under a path: only what is in it.
    let inside = map(&root, &["--level", "file", "--path", "shop"]);
    assert_eq!(edges(&inside), ["shop/cart.py -> shop/util.py: (1, 1)"]);
}

#[test]
fn one_file_s_definitions_and_what_they_call() {
    let (_tmp, root) = shop();
    let cart = map(&root, &["--level", "definition", "--path", "shop/cart.py"]);
    assert_eq!(
        edges(&cart),
        [
            "shop.cart.again -> billing.tax.rate: (0, 1)",
            "shop.cart.total -> billing.tax.rate: (0, 1)",
            "shop.cart.total -> shop.util.fee: (0, 1)",
        ]
    );
    assert_eq!(node(&cart, "shop.cart.total")["outside"], Value::Null);
    assert_eq!(node(&cart, "billing.tax.rate")["outside"], true);
    assert_eq!(node(&cart, "billing.tax.rate")["path"], "billing/tax.py");
    assert_eq!(node(&cart, "shop.cart.total")["line"], 5);
}

#[test]
fn the_map_as_text_dot_mermaid_and_svg_and_its_errors() {
    let (_tmp, root) = shop();
    let run = |args: &[&str]| {
        cli::run(
            BIN,
            &root,
            &[&["graph", "--level", "package"], args].concat(),
        )
    };
    let text = stdout(&run(&["--format", "text"]));
    assert!(
        text.starts_with("3 package(s) in the repository, 3 dependencies, 1 cycle(s)\n"),
        "{text}"
    );
    assert!(text.contains("  2 nodes: billing, shop\n"), "{text}");
    let dot = stdout(&run(&["--format", "dot"]));
    assert!(dot.starts_with("digraph map {"), "{dot}");
    assert!(
        dot.contains(
            "\"shop\" -> \"billing\" [label=\"1 imports, 2 calls\", penwidth=1.5, color=red];"
        ),
        "{dot}"
    );
    assert!(
        dot.contains("\".\" -> \"shop\" [label=\"1 imports, 1 calls\", penwidth=1.3];"),
        "{dot}"
    );
    let mermaid = stdout(&run(&["--format", "mermaid"]));
    assert!(
        mermaid.starts_with("flowchart LR\n") && mermaid.contains("linkStyle"),
        "{mermaid}"
    );
    let svg = stdout(&run(&["--format", "svg"]));
    assert!(
        svg.contains("<svg") && svg.contains("billing") && svg.contains("stroke=\"#ff0000ff\""),
        "{svg}"
    );

    let nowhere = run(&["--path", "nowhere"]);
    assert_eq!(nowhere.status.code(), Some(1), "{}", stderr(&nowhere));
    assert!(
        stderr(&nowhere).contains("no indexed file under nowhere"),
        "{}",
        stderr(&nowhere)
    );
    let depth_alone = cli::run(BIN, &root, &["graph", "--depth", "2"]);
    assert_eq!(depth_alone.status.code(), Some(2));
}
