//! `evident embed` and `evident search` with the built-in embedder on the
//! registry-provided all-MiniLM-L6-v2 (scripts/fetch-embed-model.sh): semantic
//! search with no model server at all, and incremental vector maintenance.

use std::path::{Path, PathBuf};
use std::process::Output;

use evident_testkit::cli;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn model_dir() -> Option<PathBuf> {
    evident_testkit::skip::embed_model_or_skip(
        evident_embed::default_model_dir(),
        "local embed CLI",
    )
}

fn evident(dir: &Path, args: &[&str]) -> Output {
    let out = cli::run(BIN, dir, args);
    assert!(
        out.status.success(),
        "evident {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

const FILES: &[(&str, &str)] = &[
    (
        "storage.py",
        "def load_config(path):\n    with open(path) as handle:\n        return handle.read()\n",
    ),
    (
        "geometry.py",
        "def hypotenuse(a, b):\n    return math.sqrt(a * a + b * b)\n",
    ),
    (
        "net.py",
        "class Server:\n    def listen(self, port):\n        self.socket.bind(('', port))\n",
    ),
];

#[test]
fn vector_search_finds_code_by_meaning_with_the_built_in_model() {
    let Some(_) = model_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, text) in FILES {
        std::fs::write(root.join(name), text).unwrap();
    }
    std::fs::write(root.join("evident.toml"), "[embed]\nprovider = \"local\"\n").unwrap();
    evident(root, &["index", "--quiet"]);
    let summary = json(&evident(root, &["embed", "--json"]));
    assert!(
        summary["model"]
            .as_str()
            .unwrap()
            .starts_with("local:all-MiniLM-L6-v2#"),
        "{summary}"
    );
    let first = summary["embedded"].as_u64().unwrap();
    assert!(first >= 4, "{summary}");

    // No word of the query is in the code: only the vectors can find it.
    let results = json(&evident(
        root,
        &[
            "search",
            "triangle side length",
            "--mode",
            "vector",
            "--json",
        ],
    ));
    assert_eq!(results[0]["name"], "hypotenuse", "{results:#}");
    let results = json(&evident(
        root,
        &[
            "search",
            "read a file from disk",
            "--mode",
            "vector",
            "--json",
        ],
    ));
    assert_eq!(results[0]["name"], "load_config", "{results:#}");
    let results = json(&evident(
        root,
        &[
            "search",
            "accept network connections",
            "--json",
            "--explain",
        ],
    ));
    assert_eq!(results[0]["path"], "net.py", "{results:#}");
    assert!(
        results[0]["reason"].as_str().unwrap().contains("vector #1"),
        "{results:#}"
    );

    // One file changes: only its chunks are embedded again.
    std::fs::write(
        root.join("geometry.py"),
        "def hypotenuse(a, b):\n    return math.hypot(a, b)\n",
    )
    .unwrap();
    evident(root, &["index", "--quiet"]);
    let again = json(&evident(root, &["embed", "--json"]));
    assert!(
        again["embedded"].as_u64().unwrap() >= 1 && again["embedded"].as_u64().unwrap() < first,
        "{again}"
    );
    assert_eq!(again["with_vectors"], summary["with_vectors"], "{again}");
    let none = json(&evident(root, &["embed", "--json"]));
    assert_eq!(none["embedded"], 0, "{none}");
}

#[test]
fn a_broken_model_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def f():\n    pass\n").unwrap();
    std::fs::create_dir(root.join("model")).unwrap();
    std::fs::write(root.join("model/config.json"), "{}").unwrap();
    evident(root, &["index", "--quiet"]);
    let out = cli::hermetic(BIN)
        .args([
            "embed",
            "--embed-provider",
            "local",
            "--embed-model",
            "model",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("model: missing tokenizer.json, model.safetensors"),
        "{stderr}"
    );
    // The chat side refuses the embedding-only provider.
    let out = cli::hermetic(BIN)
        .args(["probe", "--provider", "local", "--model", "x"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("the local provider only embeds"));
}

#[test]
fn a_relative_repository_path_embeds_too() {
    let Some(_) = model_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.py"), "def area(r):\n    return 3.14 * r * r\n").unwrap();
    evident(&root, &["index", "--quiet"]);
    // Run from the parent with `--repo repo`: files must still be found through the sandbox.
    let summary = json(&evident(
        dir.path(),
        &[
            "--repo",
            "repo",
            "embed",
            "--embed-provider",
            "local",
            "--json",
        ],
    ));
    assert_eq!(summary["skipped"], 0, "{summary}");
    assert!(summary["embedded"].as_u64().unwrap() >= 1, "{summary}");
}
