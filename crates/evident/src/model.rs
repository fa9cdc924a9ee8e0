//! Choosing and reaching a model server: flags, then `[model]` in the
//! repository's `evident.toml`, then `[model]` in the user's
//! `~/.config/evident/config.toml`, then the environment (`OLLAMA_HOST`,
//! `EVIDENT_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`); and `evident probe`,
//! which asks the model one tool question under each protocol to show which
//! ones it can use.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use evident_llm::{
    run_turn, CancelToken, ChatClient, ChatRequest, Message, OllamaClient, OllamaOptions,
    OpenAiClient, OpenAiOptions, Protocol, ToolSchema,
};
use serde::Deserialize;
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Ollama's own API (/api/chat).
    Ollama,
    /// Any OpenAI-compatible server (/v1/chat/completions): llama.cpp, vLLM, mlx_lm, LM Studio.
    Openai,
    /// Embeddings only: the built-in embedder, from a local model directory
    /// (default: the one scripts/fetch-embed-model.sh fetches).
    Local,
}

/// Flags that pick the model; each falls back to `[model]` in evident.toml, then the environment.
#[derive(clap::Args, Debug, Default)]
pub struct ModelArgs {
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// Model name as the server knows it (or EVIDENT_MODEL).
    #[arg(long)]
    pub model: Option<String>,
    /// Server address: Ollama host, or an OpenAI-compatible base URL ending in /v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// API key for OpenAI-compatible servers that want one (or OPENAI_API_KEY; never read from evident.toml).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Tool-call protocol: auto, native, hermes, json-action, constrained.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Option<Protocol>,
}

fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

/// `[model]` in a config file.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct ModelConfig {
    provider: Option<Provider>,
    name: Option<String>,
    base_url: Option<String>,
    protocol: Option<String>,
    /// Only in the user's own config: a repository's file is shared with everyone.
    api_key: Option<String>,
}

impl ModelConfig {
    /// `self`, with the gaps filled from `fallback`.
    fn or(self, fallback: ModelConfig) -> ModelConfig {
        ModelConfig {
            provider: self.provider.or(fallback.provider),
            name: self.name.or(fallback.name),
            base_url: self.base_url.or(fallback.base_url),
            protocol: self.protocol.or(fallback.protocol),
            api_key: self.api_key.or(fallback.api_key),
        }
    }
}

#[derive(Deserialize, Default)]
struct ConfigFile {
    #[serde(default)]
    model: ModelConfig,
    #[serde(default)]
    embed: ModelConfig,
}

/// Which table of the config files.
#[derive(Clone, Copy)]
enum Table {
    Model,
    Embed,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Model => "[model]",
            Table::Embed => "[embed]",
        }
    }
}

/// The table from the repository's `evident.toml`, gaps filled from the user's config.
fn layered(root: &Path, table: Table) -> Result<ModelConfig> {
    let repo = read_config(&root.join("evident.toml"), table)?;
    if repo.api_key.is_some() {
        bail!(
            "{}: {} api_key does not belong in a repository's config (it is shared); \
             put it in ~/.config/evident/config.toml, OPENAI_API_KEY or --api-key",
            root.join("evident.toml").display(),
            table.name()
        );
    }
    Ok(match user_config_path() {
        Some(path) => repo.or(read_config(&path, table)?),
        None => repo,
    })
}

/// A client for a server provider (`Local` is not a server and never gets here).
fn client_for(
    provider: Provider,
    base_url: Option<String>,
    api_key: Option<String>,
) -> Box<dyn ChatClient> {
    match provider {
        Provider::Ollama | Provider::Local => Box::new(OllamaClient::new(OllamaOptions {
            host: base_url,
            ..Default::default()
        })),
        Provider::Openai => Box::new(OpenAiClient::new(OpenAiOptions {
            base_url,
            api_key,
            ..Default::default()
        })),
    }
}

/// The model settings in force.
pub struct ModelChoice {
    pub client: Box<dyn ChatClient>,
    pub model: String,
    pub protocol: Protocol,
}

pub fn choose(args: &ModelArgs, root: &Path) -> Result<ModelChoice> {
    let config = layered(root, Table::Model)?;
    let provider = args
        .provider
        .or(config.provider)
        .unwrap_or(Provider::Ollama);
    if provider == Provider::Local {
        bail!("the local provider only embeds; chat needs a model server: --provider ollama or --provider openai");
    }
    let model = args
        .model
        .clone()
        .or(config.name)
        .or_else(|| std::env::var("EVIDENT_MODEL").ok().filter(|m| !m.is_empty()))
        .context("no model chosen: pass --model NAME, set [model] name in evident.toml or ~/.config/evident/config.toml, or set EVIDENT_MODEL")?;
    let protocol = match (args.protocol, config.protocol) {
        (Some(p), _) => p,
        (None, Some(text)) => text
            .parse()
            .map_err(anyhow::Error::msg)
            .context("[model] protocol")?,
        (None, None) => Protocol::Auto,
    };
    let base_url = args.base_url.clone().or(config.base_url);
    let client = client_for(provider, base_url, args.api_key.clone().or(config.api_key));
    Ok(ModelChoice {
        client,
        model,
        protocol,
    })
}

/// `$XDG_CONFIG_HOME/evident`, else `~/.config/evident`: the user's config and skills.
pub fn user_config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(base.join("evident"))
}

fn user_config_path() -> Option<PathBuf> {
    Some(user_config_dir()?.join("config.toml"))
}

fn read_config(path: &Path, table: Table) -> Result<ModelConfig> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ModelConfig::default()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    // Other tables belong to other parts of evident; only [model] and [embed] are read here.
    let file: ConfigFile =
        toml::from_str(&text).with_context(|| format!("{}: {}", path.display(), table.name()))?;
    Ok(match table {
        Table::Model => file.model,
        Table::Embed => file.embed,
    })
}

/// Flags that pick the embedding model; each falls back to `[embed]` in the
/// config files, then `EVIDENT_EMBED_MODEL` (and the server's own variables).
#[derive(clap::Args, Debug, Default)]
pub struct EmbedArgs {
    #[arg(id = "embed_provider", long = "embed-provider", value_enum)]
    pub provider: Option<Provider>,
    /// Embedding model name as the server knows it, or the model directory
    /// for `--embed-provider local` (or EVIDENT_EMBED_MODEL).
    #[arg(id = "embed_model", long = "embed-model")]
    pub model: Option<String>,
    /// The embedding server's address (Ollama host, or a base URL ending in /v1).
    #[arg(id = "embed_url", long = "embed-url", value_name = "URL")]
    pub base_url: Option<String>,
    #[arg(id = "embed_api_key", long = "embed-api-key", value_name = "KEY")]
    pub api_key: Option<String>,
}

/// The embedder in force: a model server's, or the built-in one.
pub enum ChosenEmbedder {
    Server {
        client: Box<dyn ChatClient>,
        model: String,
    },
    Local(Box<evident_embed::LocalEmbedder>, PathBuf),
}

impl ChosenEmbedder {
    /// Where the vectors come from, for messages.
    pub fn location(&self) -> String {
        match self {
            ChosenEmbedder::Server { client, .. } => client.endpoint(),
            ChosenEmbedder::Local(_, dir) => format!("{} (built-in, CPU)", dir.display()),
        }
    }
}

impl evident_index::Embedder for ChosenEmbedder {
    fn model(&self) -> &str {
        match self {
            ChosenEmbedder::Server { model, .. } => model,
            ChosenEmbedder::Local(local, _) => local.name(),
        }
    }
    fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, String> {
        match self {
            ChosenEmbedder::Server { client, model } => {
                client.embed(model, texts).map_err(|e| e.to_string())
            }
            ChosenEmbedder::Local(local, _) => local.embed(texts).map_err(|e| e.to_string()),
        }
    }
}

/// The configured embedder, or `None` when no embedding model is named anywhere.
pub fn embedder(args: &EmbedArgs, root: &Path) -> Result<Option<ChosenEmbedder>> {
    let config = layered(root, Table::Embed)?;
    let provider = args.provider.or(config.provider);
    let name = args.model.clone().or(config.name).or_else(|| {
        std::env::var("EVIDENT_EMBED_MODEL")
            .ok()
            .filter(|m| !m.is_empty())
    });
    if provider == Some(Provider::Local) {
        let dir = match name {
            Some(dir) => PathBuf::from(dir),
            None => evident_embed::default_model_dir()
                .context("no model directory: pass --embed-model DIR or set HOME")?,
        };
        let local = evident_embed::LocalEmbedder::load(&dir)?;
        return Ok(Some(ChosenEmbedder::Local(Box::new(local), dir)));
    }
    let Some(model) = name else {
        return Ok(None);
    };
    let client = client_for(
        provider.unwrap_or(Provider::Ollama),
        args.base_url.clone().or(config.base_url),
        args.api_key.clone().or(config.api_key),
    );
    Ok(Some(ChosenEmbedder::Server { client, model }))
}

/// `evident probe`: one tool question per protocol; which protocols gave a correct call.
pub fn probe(
    args: &ModelArgs,
    root: &Path,
    json_output: bool,
    cancel: &CancelToken,
) -> Result<ExitCode> {
    let choice = choose(args, root)?;
    let protocols: Vec<Protocol> = match args.protocol {
        Some(p) => vec![p],
        None => Protocol::ALL.to_vec(),
    };
    let tool = ToolSchema {
        name: "find_symbol".into(),
        description:
            "Find where a function, class or variable is defined in the repository, by its name."
                .into(),
        parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    };
    if !json_output {
        eprintln!("probing {} at {} …", choice.model, choice.client.endpoint());
    }
    let mut results = Vec::new();
    for protocol in protocols {
        let request = ChatRequest {
            model: choice.model.clone(),
            messages: vec![
                Message::system("You are a code assistant. You answer using tools."),
                Message::user("Where is the function get_collection_name defined?"),
            ],
            tools: vec![tool.clone()],
            protocol,
            temperature: Some(0.0),
            max_tokens: Some(200),
            ..Default::default()
        };
        let started = Instant::now();
        let outcome = run_turn(choice.client.as_ref(), &request, cancel, &mut |_| {});
        let seconds = started.elapsed().as_secs_f64();
        let usage = outcome
            .as_ref()
            .map(|r| r.usage.clone())
            .unwrap_or_default();
        let (ok, detail) = match &outcome {
            Ok(reply) => {
                let good = reply.tool_calls.iter().find(|c| {
                    c.name == "find_symbol"
                        && c.arguments["name"]
                            .as_str()
                            .is_some_and(|n| n.contains("get_collection_name"))
                });
                let detail = match (
                    good,
                    reply.tool_calls.first(),
                    reply.protocol_errors.first(),
                ) {
                    (Some(call), _, _) => format!("{}({})", call.name, call.arguments),
                    (None, Some(call), _) => {
                        format!("wrong call {}({})", call.name, call.arguments)
                    }
                    (None, None, Some(error)) => format!("unreadable: {}", error.message),
                    (None, None, None) => {
                        format!("no call; answered {:?}", truncate(&reply.content, 60))
                    }
                };
                (good.is_some(), detail)
            }
            Err(e) if matches!(e.error, evident_llm::LlmError::Cancelled) => {
                return Err(evident_index::Error::Interrupted.into())
            }
            Err(e) => (false, format!("error: {}", e.error)),
        };
        if !json_output {
            let configured = if protocol == choice.protocol && args.protocol.is_none() {
                " (configured)"
            } else {
                ""
            };
            println!(
                "{:<12} {:<4} {seconds:>6.1} s  {detail}{configured}",
                protocol.name(),
                if ok { "ok" } else { "FAIL" }
            );
        }
        results.push(json!({
            "protocol": protocol.name(), "ok": ok, "seconds": seconds, "detail": detail,
            "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens, "eval_ms": usage.eval_ms,
        }));
        // A server that is not there will not be there for the next protocol either.
        if let Err(e) = &outcome {
            if matches!(
                e.error,
                evident_llm::LlmError::ServerNotRunning { .. }
                    | evident_llm::LlmError::ModelNotFound { .. }
            ) {
                if json_output {
                    println!("{}", serde_json::to_string_pretty(&results)?);
                }
                bail!("{}", e.error);
            }
        }
    }
    if json_output {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else if let Some(best) = results.iter().find(|r| r["ok"] == true) {
        println!(
            "use --protocol {} (or [model] protocol = \"{}\" in evident.toml)",
            best["protocol"].as_str().unwrap(),
            best["protocol"].as_str().unwrap()
        );
    }
    Ok(if results.iter().any(|r| r["ok"] == true) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
