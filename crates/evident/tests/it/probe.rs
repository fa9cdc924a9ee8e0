//! `evident probe` against the fake model server: flags, evident.toml and
//! the environment choose the server; each protocol's result is reported.

use std::path::Path;
use std::process::Output;

use evident_testkit::script::say;
use evident_testkit::{cli, dead_address, FakeServer, Script};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn evident(dir: &Path, args: &[&str]) -> Output {
    cli::run(BIN, dir, args)
}

#[test]
fn probe_reports_which_protocols_give_a_correct_call() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    // The base URL and model come from evident.toml; the key from the flag.
    std::fs::write(
        dir.path().join("evident.toml"),
        format!("[model]\nprovider = \"openai\"\nname = \"tiny\"\nbase_url = \"{}/v1\"\nprotocol = \"hermes\"\n", server.base),
    )
    .unwrap();
    let call = "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"get_collection_name\"}}";
    server.push(
        "/v1/chat/completions",
        say(&format!("<tool_call>{call}</tool_call>")),
    );
    let output = evident(
        dir.path(),
        &["probe", "--protocol", "hermes", "--api-key", "k", "--json"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(results[0]["protocol"], "hermes");
    assert_eq!(results[0]["ok"], true, "{results}");
    let sent = &server.requests()[0];
    assert_eq!(sent.body["model"], "tiny");
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "authorization" && v == "Bearer k"));
    assert_eq!(server.requests().len(), 1);

    // All protocols, text output: auto gets an answer without a call; the others get server errors.
    server.push("/v1/chat/completions", say("I don't know."));
    let output = evident(dir.path(), &["probe"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "no protocol worked: {text}");
    assert!(
        text.contains("auto         FAIL") && text.contains("no call"),
        "{text}"
    );
    assert!(
        text.contains("hermes       FAIL") && text.contains("(configured)"),
        "{text}"
    );
}

#[test]
fn probe_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let output = evident(dir.path(), &["probe"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no model chosen"));

    let output = evident(
        dir.path(),
        &["probe", "--model", "m", "--base-url", &dead_address()],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no model server is answering") && stderr.contains("ollama serve"),
        "{stderr}"
    );

    std::fs::write(
        dir.path().join("evident.toml"),
        "[model]\nprotocol = \"smoke-signals\"\n",
    )
    .unwrap();
    let output = evident(dir.path(), &["probe", "--model", "m"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown protocol \"smoke-signals\""));
}

#[test]
fn probe_reads_the_environment() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let call = "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"get_collection_name\"}}";
    // Ollama (the default provider) at OLLAMA_HOST, model from EVIDENT_MODEL.
    server.push(
        "/api/show",
        Script::json(200, json!({"model_info": {"llama.context_length": 2048}})),
    );
    server.push("/api/chat", Script::ndjson(&[json!({"message": {"role": "assistant", "content": format!("<tool_call>{call}</tool_call>")}, "done": true})]));
    let host = server.base.trim_start_matches("http://").to_string();
    let output = cli::hermetic(BIN)
        .args(["probe", "--protocol", "hermes", "--json"])
        .current_dir(dir.path())
        .env("OLLAMA_HOST", &host)
        .env("EVIDENT_MODEL", "from-env")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let chat = &server.requests_to("/api/chat")[0].body;
    assert_eq!(chat["model"], "from-env");
    assert_eq!(chat["options"]["num_ctx"], 2048);

    // OpenAI-compatible at OPENAI_BASE_URL with OPENAI_API_KEY.
    server.push(
        "/v1/chat/completions",
        say(&format!("<tool_call>{call}</tool_call>")),
    );
    let output = cli::hermetic(BIN)
        .args([
            "probe",
            "--provider",
            "openai",
            "--model",
            "m",
            "--protocol",
            "hermes",
        ])
        .current_dir(dir.path())
        .env("OPENAI_BASE_URL", format!("{}/v1", server.base))
        .env("OPENAI_API_KEY", "from-env-key")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sent = &server.requests_to("/v1/chat/completions")[0];
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "authorization" && v == "Bearer from-env-key"));
}

#[test]
fn the_api_key_comes_from_the_user_config_never_the_repository() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(user.path().join("evident")).unwrap();
    std::fs::write(
        user.path().join("evident/config.toml"),
        format!("[model]\nprovider = \"openai\"\nname = \"user-model\"\nbase_url = \"{}/v1\"\napi_key = \"user-key\"\n", server.base),
    )
    .unwrap();
    // The repository's config wins where it speaks (the model name), the user's fills the rest.
    std::fs::write(
        dir.path().join("evident.toml"),
        "[model]\nname = \"repo-model\"\n",
    )
    .unwrap();
    let call = "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"get_collection_name\"}}";
    server.push(
        "/v1/chat/completions",
        say(&format!("<tool_call>{call}</tool_call>")),
    );
    let run = |args: &[&str]| {
        cli::hermetic(BIN)
            .args(args)
            .current_dir(dir.path())
            .env("XDG_CONFIG_HOME", user.path())
            .output()
            .unwrap()
    };
    let output = run(&["probe", "--protocol", "hermes"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sent = &server.requests()[0];
    assert_eq!(sent.body["model"], "repo-model");
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "authorization" && v == "Bearer user-key"));

    std::fs::write(
        dir.path().join("evident.toml"),
        "[model]\napi_key = \"leaked\"\n",
    )
    .unwrap();
    let output = run(&["probe", "--protocol", "hermes"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("does not belong in a repository's config"));
    assert_eq!(server.requests().len(), 1, "nothing was sent");
}

#[test]
fn embed_then_hybrid_search_through_an_embedding_server() {
    let server = FakeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("store.py"), "def get_collection_name(kind):\n    return kind + '_docs'\n\n\ndef render_page(page):\n    return page\n").unwrap();
    assert!(evident(root, &["index", "--quiet"]).status.success());
    std::fs::write(
        root.join("evident.toml"),
        format!(
            "[embed]\nprovider = \"ollama\"\nname = \"letters\"\nbase_url = \"{}\"\n",
            server.base
        ),
    )
    .unwrap();
    // Before embedding: hybrid falls back to BM25 and says why.
    let out = evident(root, &["search", "collection name"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no chunk has a vector for letters: run `evident embed`"));

    for _ in 0..4 {
        server.push("/api/embed", Script::OllamaEmbed);
    }
    let out = evident(root, &["embed", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["model"], "letters");
    assert!(summary["embedded"].as_u64().unwrap() >= 2, "{summary}");
    let sent = &server.requests_to("/api/embed")[0].body;
    assert_eq!(sent["model"], "letters");
    assert!(
        sent["input"][0]
            .as_str()
            .unwrap()
            .contains("get_collection_name"),
        "the chunk's text is embedded: {sent}"
    );

    // Hybrid: the query is embedded by the same server, both lists are fused.
    server.push("/api/embed", Script::OllamaEmbed);
    let out = evident(root, &["search", "collection name", "--explain", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "no fallback note"
    );
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results[0]["name"], "get_collection_name");
    let reason = results[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("vector #") && reason.contains("fused"),
        "{reason}"
    );

    // The embedding server is gone: vector search fails clearly, hybrid falls back.
    std::fs::write(
        root.join("evident.toml"),
        format!(
            "[embed]\nname = \"letters\"\nbase_url = \"{}\"\n",
            dead_address()
        ),
    )
    .unwrap();
    let out = evident(root, &["search", "collection", "--mode", "vector"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("embedding the query failed"));
    let out = evident(root, &["search", "collection"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("so hybrid search ranks by BM25 only"));
}
