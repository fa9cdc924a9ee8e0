//! One search service, three doors: the same query through `evident search`,
//! through the agent's `search_code` tool, and through `evident mcp` gives
//! the same evidence and says the same thing about how it ranked. Run with
//! no embedder, with an embedder whose vectors were never computed (all three
//! fall back to BM25 and say why), and after `evident embed` (all three rank
//! hybrid). The embedder is a real Ollama `/api/embed` endpoint on the fake
//! model server.

use std::path::Path;

use evident_agent::{Registry, SearchService, ToolContext};
use evident_index::Embedder;
use evident_llm::ToolCall;
use evident_testkit::fs::write_all;
use evident_testkit::{cli, letter_vector, FakeServer, Script};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");
const QUERY: &str = "collection name prefix";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_all(
        dir.path(),
        &[
            ("rag_common.py", "PREFIX = \"rag\"\n\n\ndef get_collection_name(kind):\n    \"\"\"The collection name for a kind, with the prefix.\"\"\"\n    return f\"{PREFIX}_{kind}\"\n"),
            ("ingest.py", "from rag_common import get_collection_name\n\n\ndef ingest(doc):\n    return get_collection_name(doc.kind)\n"),
            ("query.py", "import rag_common\n\n\ndef search(q):\n    return rag_common.get_collection_name(q.kind)\n"),
            ("util.py", "def helper():\n    \"\"\"Nothing to do with names.\"\"\"\n    return 1\n"),
        ],
    );
    // No vectors: the tests below choose the embedder.
    let out = cli::run(BIN, dir.path(), &["index", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    dir
}

/// What a door found: `path:start name`, in rank order.
fn hits(evidence: &Value) -> Vec<String> {
    evidence
        .as_array()
        .expect("a list of evidence")
        .iter()
        .map(|e| {
            format!(
                "{}:{} {}",
                e["path"].as_str().unwrap(),
                e["start_line"],
                e["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// How a door is run: with the provisioned models, or with none (an empty
/// model cache, so not even the default embedder is there).
#[derive(Clone, Copy)]
enum Models<'a> {
    Provisioned,
    None(&'a Path),
}

fn command(root: &Path, models: Models) -> std::process::Command {
    let mut command = cli::command(BIN, root);
    if let Models::None(empty) = models {
        command.env("EVIDENT_MODEL_CACHE", empty);
    }
    command
}

/// `evident search`: the hits, and the notes it printed.
fn through_cli(root: &Path, models: Models) -> (Vec<String>, String) {
    let out = command(root, models)
        .args(["search", QUERY, "--limit", "5", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let evidence: Value = serde_json::from_slice(&out.stdout).unwrap();
    (hits(&evidence), cli::stderr(&out))
}

/// The agent's `search_code`, through the registry as a model's call would go.
fn through_agent(root: &Path, search: SearchService) -> (Vec<String>, String) {
    let registry = Registry::read_only(&[]).unwrap();
    let config = evident_index::Config::load(root).unwrap();
    let arguments = json!({"query": QUERY, "limit": 5});
    let call = ToolCall {
        index: 0,
        id: None,
        name: "search_code".into(),
        arguments_raw: arguments.to_string(),
        arguments,
    };
    let valid = registry.validate(&call, root, &config).unwrap();
    let context = ToolContext {
        search,
        ..ToolContext::plain(root)
    };
    let output = valid.tool.run(&context, &valid.arguments).unwrap();
    (
        hits(&serde_json::to_value(&output.evidence).unwrap()),
        output.summary,
    )
}

/// `evident mcp`'s `search_code`; `--no-embed` keeps it from embedding in
/// the background, so that the state the test set up is the one it answers from.
fn through_mcp(root: &Path, models: Models) -> (Vec<String>, String) {
    let mut server = command(root, models);
    server.args(["mcp", "--repo", ".", "--no-embed"]);
    let answers = evident_testkit::mcp::call_tools(
        server,
        &[("search_code", json!({"query": QUERY, "limit": 5}))],
    );
    let result = &answers[0]["result"];
    assert_ne!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (hits(&result["structuredContent"]["evidence"]), text)
}

/// An Ollama embedder at the fake server, as evident.toml names it.
fn configure_embedder(root: &Path, server: &FakeServer) {
    std::fs::write(
        root.join("evident.toml"),
        format!(
            "[embed]\nprovider = \"ollama\"\nname = \"letters\"\nbase_url = \"{}\"\n",
            server.base
        ),
    )
    .unwrap();
}

/// The same embedder in process, for the agent door.
struct Letters;
impl Embedder for Letters {
    fn model(&self) -> &str {
        "letters"
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, evident_index::EmbedderError> {
        Ok(texts.iter().map(|t| letter_vector(t)).collect())
    }
}

#[test]
fn every_door_gives_the_same_answer_without_an_embedder() {
    let dir = repo();
    let empty = tempfile::tempdir().unwrap();
    let none = Models::None(empty.path());
    let (cli_hits, _) = through_cli(dir.path(), none);
    let (agent_hits, _) = through_agent(dir.path(), SearchService::without_embedder("none"));
    let (mcp_hits, _) = through_mcp(dir.path(), none);
    // One result per file by default, each its best chunk.
    assert!(
        cli_hits.iter().any(|hit| hit.starts_with("rag_common.py:")),
        "{cli_hits:?}"
    );
    let paths: std::collections::HashSet<&str> = cli_hits
        .iter()
        .map(|hit| hit.split(':').next().unwrap())
        .collect();
    assert_eq!(paths.len(), cli_hits.len(), "{cli_hits:?}");
    assert_eq!(agent_hits, cli_hits);
    assert_eq!(mcp_hits, cli_hits);
}

#[test]
fn every_door_falls_back_the_same_way_then_ranks_hybrid_after_embed() {
    let dir = repo();
    let root = dir.path();
    let server = FakeServer::start();
    for _ in 0..8 {
        server.push("/api/embed", Script::OllamaEmbed);
    }
    configure_embedder(root, &server);
    let bm25 = through_cli(root, Models::Provisioned).0;

    // Configured, but no chunk has a vector yet: each door ranks by BM25 and says why.
    let why = "no chunk has a vector for letters: run `evident embed`";
    let (cli_hits, cli_notes) = through_cli(root, Models::Provisioned);
    let (agent_hits, agent_summary) =
        through_agent(root, SearchService::with_embedder(Box::new(Letters)));
    let (mcp_hits, mcp_text) = through_mcp(root, Models::Provisioned);
    for (door, said) in [
        ("cli", &cli_notes),
        ("agent", &agent_summary),
        ("mcp", &mcp_text),
    ] {
        assert!(said.contains(why), "{door} did not say why: {said}");
    }
    assert_eq!(cli_hits, bm25);
    assert_eq!(agent_hits, bm25);
    assert_eq!(mcp_hits, bm25);

    // After `evident embed`, all three rank hybrid, identically, with no note.
    let out = cli::run(BIN, root, &["embed", "--quiet"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let (cli_hits, cli_notes) = through_cli(root, Models::Provisioned);
    let (agent_hits, agent_summary) =
        through_agent(root, SearchService::with_embedder(Box::new(Letters)));
    let (mcp_hits, mcp_text) = through_mcp(root, Models::Provisioned);
    for said in [&cli_notes, &agent_summary, &mcp_text] {
        assert!(!said.contains("BM25 only"), "{said}");
    }
    assert_eq!(agent_hits, cli_hits);
    assert_eq!(mcp_hits, cli_hits);
}
