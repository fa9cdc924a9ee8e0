//! `evident index`, `evident embed` and `evident search` with the built-in
//! embedders: the default static table distilled from the registry-provided
//! all-MiniLM-L6-v2 (scripts/fetch-embed-model.sh; scripts/test distils it),
//! and the model itself. Semantic search with no model server at all,
//! incremental vector maintenance, and the fall back when no model is there.

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
    std::fs::write(
        root.join("evident.toml"),
        "[embed]\nprovider = \"local\"\nname = \"minilm\"\n",
    )
    .unwrap();
    evident(root, &["index", "--quiet", "--no-embed"]);
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
    evident(root, &["index", "--quiet", "--no-embed"]);
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
    evident(&root, &["index", "--quiet", "--no-embed"]);
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

#[test]
fn index_embeds_with_the_default_static_embedder_and_only_what_changed() {
    let Some(_) = model_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, text) in FILES {
        std::fs::write(root.join(name), text).unwrap();
    }
    // Nothing configured: `index` embeds with the default embedder.
    let summary = json(&evident(root, &["index", "--json"]));
    let embedding = &summary["embedding"];
    assert!(
        embedding["model"]
            .as_str()
            .unwrap()
            .starts_with("local:all-MiniLM-L6-v2-static#"),
        "{summary}"
    );
    let chunks = embedding["with_vectors"].as_u64().unwrap();
    assert!(chunks >= 4 && embedding["embedded"] == chunks, "{summary}");

    // Hybrid is the default, with no note about falling back.
    let out = evident(root, &["search", "read a file from disk", "--json"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = json(&evident(
        root,
        &[
            "search",
            "open the file and read it",
            "--mode",
            "vector",
            "--group",
            "chunk",
            "--json",
        ],
    ));
    assert_eq!(results[0]["name"], "load_config", "{results:#}");

    // One definition changes: only its chunk is embedded again, by `index`.
    std::fs::write(
        root.join("geometry.py"),
        "def hypotenuse(a, b):\n    return math.hypot(a, b)\n",
    )
    .unwrap();
    let again = json(&evident(root, &["index", "--json"]))["embedding"].clone();
    assert_eq!(again["embedded"], 1, "{again}");
    assert_eq!(again["with_vectors"], chunks, "{again}");
    // Nothing changed: the table is not even loaded, and the run says the same.
    let unchanged = json(&evident(root, &["index", "--json"]))["embedding"].clone();
    assert_eq!(unchanged["embedded"], 0, "{unchanged}");
    assert_eq!(unchanged["with_vectors"], chunks, "{unchanged}");
    assert_eq!(
        unchanged["model"], again["model"],
        "the same name, found without loading"
    );

    // A new file, indexed with --no-embed, gets no vector until the next run.
    std::fs::write(
        root.join("extra.py"),
        "def parse_port(text):\n    return int(text)\n",
    )
    .unwrap();
    let skipped = json(&evident(root, &["index", "--json", "--no-embed"]));
    assert_eq!(skipped["embedding"]["skipped"], "--no-embed", "{skipped}");
    let caught_up = json(&evident(root, &["index", "--json"]))["embedding"].clone();
    assert_eq!(caught_up["embedded"], 1, "{caught_up}");
}

#[test]
fn without_the_model_files_indexing_works_and_search_says_it_uses_bm25() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, text) in FILES {
        std::fs::write(root.join(name), text).unwrap();
    }
    let empty_cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = cli::command(BIN, root)
            .env("EVIDENT_MODEL_CACHE", empty_cache.path())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let summary = json(&run(&["index", "--json"]));
    assert!(
        summary["embedding"]["skipped"]
            .as_str()
            .unwrap()
            .contains("scripts/fetch-embed-model.sh"),
        "{summary}"
    );
    let out = run(&["search", "load config", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no embedding model") && stderr.contains("ranks by BM25 only"),
        "{stderr}"
    );
    assert_eq!(json(&out)[0]["name"], "load_config");
    // Asking for the built-in one by name says how to get it.
    let out = cli::command(BIN, root)
        .env("EVIDENT_MODEL_CACHE", empty_cache.path())
        .args(["embed", "--embed-provider", "local"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("run scripts/fetch-embed-model.sh"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_first_index_on_a_clean_home_fetches_the_default_embedder_and_ends_with_vectors() {
    // Where the model is provisioned, the registry is reachable: fetch it
    // again, as a new user's first `evident index` does, into an empty cache.
    let Some(_) = model_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, text) in FILES {
        std::fs::write(root.join(name), text).unwrap();
    }
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = cli::command(BIN, root);
    cmd.env_remove("EVIDENT_FETCH_MODELS")
        .env("EVIDENT_MODEL_CACHE", cache.path());
    // pip's own settings are the user's (an index, a proxy, a certificate).
    for (key, value) in std::env::vars_os() {
        let key_text = key.to_string_lossy().to_ascii_uppercase();
        if key_text.starts_with("PIP_") || key_text.ends_with("_PROXY") {
            cmd.env(key, value);
        }
    }
    let out = cmd.args(["index", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("fetching the default embedder"), "{stderr}");
    let embedding = json(&out)["embedding"].clone();
    assert!(
        embedding["model"]
            .as_str()
            .unwrap_or_default()
            .starts_with("local:all-MiniLM-L6-v2-static#"),
        "{embedding} {stderr}"
    );
    assert!(
        embedding["with_vectors"].as_u64().unwrap() >= 4,
        "{embedding}"
    );
    let teacher = cache.path().join("all-MiniLM-L6-v2");
    assert!(teacher.join(".complete").is_file());
    assert!(evident_embed::is_static_model(
        &evident_embed::static_dir_for(&teacher)
    ));
    // The next run fetches nothing.
    let again = cli::command(BIN, root)
        .env_remove("EVIDENT_FETCH_MODELS")
        .env("EVIDENT_MODEL_CACHE", cache.path())
        .args(["index", "--json"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&again.stderr).contains("fetching"));
}
