//! SCIP import, on an index the pinned scip-typescript writes for a small
//! project in the test itself (`scripts/provision-scip.sh` installs it;
//! `EVIDENT_SCIP_TYPESCRIPT` names it). What SCIP says is the expected
//! answer: the tests check that evident uses it (`precise`), falls back to
//! its own resolution where SCIP is silent, and drops a changed file's data.

use std::path::{Path, PathBuf};

use evident_index::{index_repo, Index, IndexOptions};

use super::{definitions, edges, externals};
use crate::common;

const FILES: &[(&str, &str)] = &[
    ("package.json", "{ \"name\": \"fixture\", \"version\": \"1.0.0\" }\n"),
    (
        "tsconfig.json",
        "{ \"compilerOptions\": { \"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true }, \"include\": [\"src\"] }\n",
    ),
    (
        "src/shapes.ts",
        "export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(private side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n\nexport function total(shapes: Shape[]): number {\n  return shapes.reduce((sum, s) => sum + s.area(), 0);\n}\n",
    ),
    (
        "src/main.ts",
        "import { Square, total as sumAreas } from \"./shapes\";\n\nfunction build(): Square[] {\n  return [new Square(2), new Square(3)];\n}\n\nexport function report(): string {\n  const shapes = build();\n  return `total ${sumAreas(shapes)} of ${shapes[0].area()}`;\n}\n",
    ),
    // Outside tsconfig's `include`: SCIP has no document for it.
    (
        "tools/build.js",
        "function helper() {\n  return 1;\n}\nhelper();\n",
    ),
];

/// The pinned scip-typescript, or `None` after recording the skip.
fn indexer(test: &str) -> Option<PathBuf> {
    match std::env::var_os("EVIDENT_SCIP_TYPESCRIPT").map(PathBuf::from) {
        Some(bin) if bin.is_file() => Some(bin),
        _ => {
            evident_testkit::skip::missing(
                Some("EVIDENT_REQUIRE_SCIP_INDEXER"),
                test,
                "no scip-typescript (EVIDENT_SCIP_TYPESCRIPT; run scripts/provision-scip.sh)",
            );
            None
        }
    }
}

/// The project written, its SCIP index written to `out` (relative to the
/// root) by the real indexer.
fn project(bin: &Path, out: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    evident_testkit::fs::write_all(dir.path(), FILES);
    if let Some(parent) = Path::new(out).parent() {
        std::fs::create_dir_all(dir.path().join(parent)).unwrap();
    }
    let status = std::process::Command::new(bin)
        .args(["index", "--output", out])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "scip-typescript failed");
    dir
}

fn definitions_at(root: &Path, path: &str, line: u32, col: u32) -> Vec<String> {
    definitions(root, path, line, col)
        .iter()
        .map(|e| {
            let confidence = e.confidence.as_deref().unwrap_or("-");
            format!("{}:{} {} ({confidence})", e.path, e.start_line, e.name)
        })
        .collect()
}

fn has(all: &[String], row: &str) {
    assert!(
        all.iter().any(|e| e == row),
        "missing {row}\n{}",
        all.join("\n")
    );
}

#[test]
fn scip_decides_edges_and_def_and_tree_sitter_fills_in() {
    let Some(bin) = indexer("scip_decides_edges_and_def_and_tree_sitter_fills_in") else {
        return;
    };
    let dir = project(&bin, "index.scip");
    let root = dir.path();
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        summary.scip_imported.is_some(),
        "index.scip at the root is used"
    );
    let all = edges(root);
    // `new Square(2)` runs the constructor, a renamed import its original,
    // and a method called on an interface-typed parameter is the interface's.
    has(
        &all,
        "src/main.ts:4 Square -> src/shapes.Square.constructor (precise)",
    );
    has(&all, "src/main.ts:9 sumAreas -> src/shapes.total (precise)");
    has(
        &all,
        "src/main.ts:9 shapes[0].area -> src/shapes.Square.area (precise)",
    );
    has(
        &all,
        "src/shapes.ts:13 s.area -> src/shapes.Shape.area (precise)",
    );
    // SCIP has no document for tools/build.js: tree-sitter resolves it.
    has(
        &all,
        "tools/build.js:4 helper -> tools/build.helper (exact)",
    );
    // A library method SCIP names is outside the repository.
    has(
        &externals(root),
        "src/shapes.ts:13 shapes.reduce -> Array.reduce (external)",
    );
    // `def`: an imported renamed name, and a local.
    assert_eq!(
        definitions_at(root, "src/main.ts", 9, 22),
        ["src/shapes.ts:12 total (precise)"]
    );
    assert_eq!(
        definitions_at(root, "src/main.ts", 9, 30),
        ["src/main.ts:8 shapes (precise)"]
    );
    let status = Index::open(root).unwrap().status().unwrap();
    let scip = status.scip.expect("status says what came from SCIP");
    assert_eq!((scip.fresh, scip.stale), (2, 0));
    assert!(scip.precise_edges >= 5, "{scip:?}");
}

#[test]
fn a_file_changed_since_the_scip_index_loses_its_scip_data() {
    let Some(bin) = indexer("a_file_changed_since_the_scip_index_loses_its_scip_data") else {
        return;
    };
    let dir = project(&bin, "index.scip");
    let root = dir.path();
    index_repo(root, &IndexOptions::default()).unwrap();
    let main = root.join("src/main.ts");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, format!("// a new first line\n{text}")).unwrap();
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_eq!(summary.scip_stale.len(), 1, "{:?}", summary.scip_stale);
    assert_eq!(summary.scip_stale[0].0, "src/main.ts");
    let all = edges(root);
    // main.ts: evident's own resolution, one line down; shapes.ts: SCIP's.
    has(&all, "src/main.ts:10 sumAreas -> src/shapes.total (exact)");
    assert!(
        !all.iter()
            .any(|e| e.starts_with("src/main.ts") && e.ends_with("(precise)")),
        "{all:#?}"
    );
    has(
        &all,
        "src/shapes.ts:13 s.area -> src/shapes.Shape.area (precise)",
    );
    let def = definitions_at(root, "src/main.ts", 10, 22);
    assert!(
        def.len() == 1
            && def[0].starts_with("src/shapes.ts:12 total")
            && !def[0].ends_with("(precise)"),
        "{def:?}"
    );
    let scip = Index::open(root).unwrap().status().unwrap().scip.unwrap();
    assert_eq!((scip.fresh, scip.stale), (1, 1));
    common::assert_equals_rebuild(root, "a file edited after its SCIP index");
    // Back as SCIP saw it: its data counts again, as a rebuild would have it.
    std::fs::write(&main, text).unwrap();
    index_repo(root, &IndexOptions::default()).unwrap();
    has(
        &edges(root),
        "src/main.ts:9 sumAreas -> src/shapes.total (precise)",
    );
    common::assert_equals_rebuild(root, "a file edited back");
}

#[test]
fn a_named_scip_file_is_kept_across_runs_and_dropped_when_gone() {
    let Some(bin) = indexer("a_named_scip_file_is_kept_across_runs_and_dropped_when_gone") else {
        return;
    };
    let dir = project(&bin, "build/out.scip");
    let root = dir.path();
    let named = IndexOptions {
        scip: Some("build/out.scip".into()),
        ..Default::default()
    };
    index_repo(root, &named).unwrap();
    has(
        &edges(root),
        "src/main.ts:9 sumAreas -> src/shapes.total (precise)",
    );
    // Later runs, a rebuild too, keep using it without being told.
    let rebuild = IndexOptions {
        rebuild: true,
        ..Default::default()
    };
    index_repo(root, &rebuild).unwrap();
    has(
        &edges(root),
        "src/main.ts:9 sumAreas -> src/shapes.total (precise)",
    );
    std::fs::remove_file(root.join("build/out.scip")).unwrap();
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert!(summary.scip_dropped.is_some());
    has(
        &edges(root),
        "src/main.ts:9 sumAreas -> src/shapes.total (exact)",
    );
    assert!(Index::open(root).unwrap().status().unwrap().scip.is_none());
    common::assert_equals_rebuild(root, "a SCIP file removed");
}

#[test]
fn an_unreadable_scip_file_is_reported_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(root, FILES);
    // Not a protobuf message: a field tag with no value.
    std::fs::write(root.join("index.scip"), [0x0a, 0xff, 0xff, 0xff, 0xff]).unwrap();
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    let why = summary.scip_unreadable.expect("the SCIP file is reported");
    assert!(
        why.contains("is not a SCIP index that can be read"),
        "{why}"
    );
    has(
        &edges(root),
        "src/main.ts:9 sumAreas -> src/shapes.total (exact)",
    );
    common::assert_equals_rebuild(root, "an unreadable SCIP file");
    // A name that does not exist is refused before anything is read.
    let missing = IndexOptions {
        scip: Some("no/such.scip".into()),
        ..Default::default()
    };
    let error = index_repo(root, &missing).unwrap_err().to_string();
    assert!(error.contains("no/such.scip does not exist"), "{error}");
}
