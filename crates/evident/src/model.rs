//! Choosing and reaching a model server: flags over the `[model]` settings
//! (`crate::settings::Settings`: the repository's file, the user's, then
//! `EVIDENT_MODEL`; the servers' own `OLLAMA_HOST`, `OPENAI_BASE_URL` and
//! `OPENAI_API_KEY` are read by their clients); and the embedder and search
//! service, flags over `[embed]` the same way.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::settings::Settings;
use crate::settings::{ModelSettings, Provider};
use anyhow::{bail, Context, Result};
use evident_index::EmbedderError;
use evident_llm::{ChatClient, OllamaClient, OllamaOptions, OpenAiClient, OpenAiOptions, Protocol};

/// The `--provider` values: ollama (Ollama's /api/chat), openai (any
/// OpenAI-compatible server: llama.cpp, vLLM, mlx_lm, LM Studio), local (the
/// built-in embedder; embeddings only).
fn provider_parser() -> impl clap::builder::TypedValueParser<Value = Provider> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["ollama", "openai", "local"])
        .map(|name| name.parse::<Provider>().expect("one of the listed values"))
}

/// Flags that pick the model; each falls back to `[model]` in evident.toml, then the environment.
#[derive(clap::Args, Debug, Default)]
pub struct ModelArgs {
    #[arg(long, value_parser = provider_parser())]
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

impl ModelArgs {
    /// The flags as the strongest settings layer.
    fn as_settings(&self) -> ModelSettings {
        ModelSettings {
            provider: self.provider,
            name: self.model.clone(),
            base_url: self.base_url.clone(),
            protocol: None,
            api_key: self.api_key.clone(),
        }
    }
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

/// The chat model: flags over the settings' `[model]`.
pub fn choose(args: &ModelArgs, settings: &Settings) -> Result<ModelChoice> {
    let config = args.as_settings().overlay(settings.model.clone());
    let provider = config.provider.unwrap_or(Provider::Ollama);
    if provider == Provider::Local {
        bail!("the local provider only embeds; chat needs a model server: --provider ollama or --provider openai");
    }
    let model = config
        .name
        .context("no model chosen: pass --model NAME, set [model] name in evident.toml or ~/.config/evident/config.toml, or set EVIDENT_MODEL")?;
    let protocol = match (args.protocol, config.protocol) {
        (Some(p), _) => p,
        (None, Some(text)) => text
            .parse()
            .map_err(anyhow::Error::msg)
            .context("[model] protocol")?,
        (None, None) => Protocol::Auto,
    };
    let client = client_for(provider, config.base_url, config.api_key);
    Ok(ModelChoice {
        client,
        model,
        protocol,
    })
}

/// Flags that pick the embedding model; each falls back to `[embed]` in the
/// config files, then `EVIDENT_EMBED_MODEL` (and the server's own variables).
#[derive(clap::Args, Debug, Default)]
pub struct EmbedArgs {
    #[arg(id = "embed_provider", long = "embed-provider", value_parser = provider_parser())]
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

/// The embedder in force: a model server's, or one of the built-in ones.
pub enum ChosenEmbedder {
    Server {
        client: Box<dyn ChatClient>,
        model: String,
    },
    /// A BERT-family model run on the CPU (all-MiniLM-L6-v2: `--embed-model minilm`).
    Local(Box<evident_embed::LocalEmbedder>, PathBuf),
    /// A static table (the default: distilled from all-MiniLM-L6-v2).
    Static(Arc<evident_embed::StaticEmbedder>, PathBuf),
}

impl ChosenEmbedder {
    /// Where the vectors come from, for messages.
    pub fn location(&self) -> String {
        match self {
            ChosenEmbedder::Server { client, .. } => client.endpoint(),
            ChosenEmbedder::Local(_, dir) => format!("{} (built-in, CPU)", dir.display()),
            ChosenEmbedder::Static(_, dir) => format!("{} (built-in, static)", dir.display()),
        }
    }
}

impl evident_index::Embedder for ChosenEmbedder {
    fn model(&self) -> &str {
        match self {
            ChosenEmbedder::Server { model, .. } => model,
            ChosenEmbedder::Local(local, _) => local.name(),
            ChosenEmbedder::Static(table, _) => table.name(),
        }
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedderError> {
        Ok(match self {
            ChosenEmbedder::Server { client, model } => client.embed(model, texts)?,
            ChosenEmbedder::Local(local, _) => local.embed(texts)?,
            ChosenEmbedder::Static(table, _) => table.embed(texts)?,
        })
    }
    /// A static table embeds a chunk in well under a millisecond: batches of
    /// 32 spent more time committing than embedding (Django: 20 s against 14).
    fn batch_size(&self) -> usize {
        match self {
            ChosenEmbedder::Static(..) => 1024,
            _ => 32,
        }
    }
}

/// `--embed-model` names for the built-in embedders (with `--embed-provider local`).
const STATIC_MODEL: &str = "static";
const MINILM_MODEL: &str = "minilm";

/// The embedder's flags over `[embed]`.
fn embed_config(args: &EmbedArgs, settings: &Settings) -> ModelSettings {
    let flags = ModelSettings {
        provider: args.provider,
        name: args.model.clone(),
        base_url: args.base_url.clone(),
        protocol: None,
        api_key: args.api_key.clone(),
    };
    flags.overlay(settings.embed.clone())
}

/// The configured embedder; with nothing configured, the default built-in one
/// when its files are there. `None` when there is neither.
pub fn embedder(args: &EmbedArgs, settings: &Settings) -> Result<Option<ChosenEmbedder>> {
    let config = embed_config(args, settings);
    let (provider, name) = (config.provider, config.name);
    if provider == Some(Provider::Local) {
        return Ok(Some(match name.as_deref() {
            None | Some(STATIC_MODEL) => default_static()?
                .context("the default embedder is not fetched: run scripts/fetch-embed-model.sh")?,
            Some(MINILM_MODEL) => {
                let dir = minilm_dir()?;
                let model = evident_embed::LocalEmbedder::load(&dir)?;
                ChosenEmbedder::Local(Box::new(model), dir)
            }
            Some(dir) => load_dir(PathBuf::from(dir))?,
        }));
    }
    let Some(model) = name else {
        return default_static();
    };
    let client = client_for(
        provider.unwrap_or(Provider::Ollama),
        config.base_url,
        config.api_key,
    );
    Ok(Some(ChosenEmbedder::Server { client, model }))
}

/// The model name of the configured embedder when it is a static table that
/// is already there, found without loading it; `None` for any other embedder.
pub fn static_embedder_name(args: &EmbedArgs, settings: &Settings) -> Option<String> {
    let config = embed_config(args, settings);
    let dir = match (config.provider, config.name.as_deref()) {
        (Some(Provider::Local), Some(MINILM_MODEL)) => return None,
        (Some(Provider::Local), Some(dir)) if dir != STATIC_MODEL => PathBuf::from(dir),
        (Some(Provider::Local), _) | (None, None) => {
            evident_embed::static_dir_for(&evident_embed::default_model_dir()?)
        }
        _ => return None,
    };
    if !evident_embed::is_static_model(&dir) {
        return None;
    }
    evident_embed::StaticEmbedder::name_of(&dir).ok()
}

fn minilm_dir() -> Result<PathBuf> {
    evident_embed::default_model_dir()
        .context("no model directory: pass --embed-model DIR or set HOME or EVIDENT_MODEL_CACHE")
}

/// A model directory: a static table (model2vec's layout) or a BERT-family model.
fn load_dir(dir: PathBuf) -> Result<ChosenEmbedder> {
    Ok(if evident_embed::is_static_model(&dir) {
        ChosenEmbedder::Static(static_table(&dir)?, dir)
    } else {
        ChosenEmbedder::Local(Box::new(evident_embed::LocalEmbedder::load(&dir)?), dir)
    })
}

/// The default embedder: the static table distilled from the fetched
/// all-MiniLM-L6-v2, distilled now (once, under a lock) when only the teacher
/// is there. `None` when the teacher is not fetched either.
fn default_static() -> Result<Option<ChosenEmbedder>> {
    // No HOME and no EVIDENT_MODEL_CACHE: no model cache, so no default.
    let Some(teacher) = evident_embed::default_model_dir() else {
        return Ok(None);
    };
    let dir = evident_embed::static_dir_for(&teacher);
    if !evident_embed::is_static_model(&dir) {
        if !teacher.join("model.safetensors").is_file() {
            return Ok(None);
        }
        evident_embed::distill_once(&teacher, &dir, &mut |line| errln!("evident: {line}"))?;
    }
    Ok(Some(ChosenEmbedder::Static(static_table(&dir)?, dir)))
}

/// The static table in `dir`, loaded once per process (the daemon embeds
/// after every edit and searches with it; a load costs tens of ms). A table
/// distilled again (the directory changed) is loaded again.
fn static_table(dir: &Path) -> Result<Arc<evident_embed::StaticEmbedder>> {
    type Key = (PathBuf, Option<std::time::SystemTime>);
    static LOADED: Mutex<Option<(Key, Arc<evident_embed::StaticEmbedder>)>> = Mutex::new(None);
    let key = (
        dir.to_path_buf(),
        std::fs::metadata(dir).and_then(|m| m.modified()).ok(),
    );
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((held, table)) = loaded.as_ref() {
        if *held == key {
            return Ok(table.clone());
        }
    }
    let table = Arc::new(evident_embed::StaticEmbedder::load(dir)?);
    *loaded = Some((key, table.clone()));
    Ok(table)
}

/// Whether the embedder in force is the default static table (nothing
/// configured, or `--embed-provider local` without another model).
fn wants_default_static(args: &EmbedArgs, settings: &Settings) -> bool {
    let config = embed_config(args, settings);
    matches!(
        (config.provider, config.name.as_deref()),
        (None, None) | (Some(Provider::Local), None | Some(STATIC_MODEL))
    )
}

/// Fetches the default embedder's teacher when the default is in force and
/// neither it nor its table is there, so the first `evident index` ends with
/// vectors (distilling follows when the embedder loads). Off with
/// `EVIDENT_FETCH_MODELS=0`. A failure is a warning: the index is complete
/// without vectors.
pub fn fetch_default_if_missing(args: &EmbedArgs, settings: &Settings) {
    if std::env::var_os("EVIDENT_FETCH_MODELS").is_some_and(|v| v == "0")
        || !wants_default_static(args, settings)
    {
        return;
    }
    let Some(teacher) = evident_embed::default_model_dir() else {
        return;
    };
    let table = evident_embed::static_dir_for(&teacher);
    if evident_embed::is_static_model(&table) || evident_embed::is_fetched(&teacher) {
        return;
    }
    // Said even under --quiet and --json, as distilling is: a one-time download.
    let mut say = |line: &str| errln!("evident: {line}");
    if let Err(error) = evident_embed::fetch_teacher_once(&teacher, &mut say) {
        errln!("warning: {error}; search ranks by BM25 until scripts/fetch-embed-model.sh or the next `evident index` fetches it");
    }
}

/// What a search says when there is no embedder at all.
pub const NO_EMBEDDER: &str = "no embedding model: the default one is not fetched (scripts/fetch-embed-model.sh) and none is configured (--embed-provider, --embed-model, [embed], EVIDENT_EMBED_MODEL)";

/// The search service as configured: with the embedder when one is named.
/// A model that is named but does not load is an error.
pub fn search_service(
    args: &EmbedArgs,
    settings: &Settings,
) -> Result<evident_agent::SearchService> {
    Ok(match embedder(args, settings)? {
        Some(embedder) => evident_agent::SearchService::with_embedder(Box::new(embedder)),
        None => evident_agent::SearchService::without_embedder(NO_EMBEDDER),
    })
}

/// [`search_service`] for a long-lived tool context (`ask`, `chat`, `mcp`): a
/// model that does not load is reported through `warn`, and search runs on
/// full text with a note saying why.
pub fn search_service_or_full_text(
    args: &EmbedArgs,
    settings: &Settings,
    warn: &mut dyn FnMut(&str),
) -> evident_agent::SearchService {
    search_service(args, settings).unwrap_or_else(|error| {
        let why = format!("the embedding model did not load ({error:#})");
        warn(&evident_agent::search::bm25_only(&why));
        evident_agent::SearchService::without_embedder(why)
    })
}
