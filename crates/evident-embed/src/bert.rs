//! [`LocalEmbedder`]: a sentence-transformers model of the BERT family run
//! on the CPU with candle.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use crate::files::{bad, check_model_dir, model_name, read, EmbedError, Result};

/// The longest input, in tokens; longer texts are cut. all-MiniLM-L6-v2 was
/// trained on 128-token inputs, and time grows with length (BERT reads 512 at most).
pub const DEFAULT_MAX_TOKENS: usize = 128;

/// Texts per forward pass: texts sorted by length are run in groups this big,
/// so little time goes to padding.
const GROUP_SIZE: usize = 8;

/// How token vectors become one text vector (sentence-transformers' `1_Pooling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// The mean over real (unpadded) tokens.
    Mean,
    /// The first token's vector ([CLS]).
    Cls,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
}

/// A loaded model, ready to embed.
pub struct LocalEmbedder {
    model: BertModel,
    pub(crate) tokenizer: Tokenizer,
    pooling: Pooling,
    dimensions: usize,
    name: String,
    pad_id: u32,
    device: Device,
}

impl LocalEmbedder {
    /// Loads the model in `dir`, checking that its files are there and agree.
    pub fn load(dir: &Path) -> Result<Self> {
        Self::load_with(dir, DEFAULT_MAX_TOKENS)
    }

    pub fn load_with(dir: &Path, max_tokens: usize) -> Result<Self> {
        check_model_dir(dir)?;
        let config_path = dir.join("config.json");
        let config_text = read(&config_path)?;
        let config: Config = serde_json::from_slice(&config_text)
            .map_err(|e| bad(&config_path, format!("not a BERT config: {e}")))?;
        let pooling = read_pooling(dir)?;

        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| bad(&tokenizer_path, format!("not a tokenizers file: {e}")))?;
        // Files exported for a fixed batch shape pad every text to 128 tokens
        // and cut there: `embed` pads by itself, and texts are cut at our limit.
        let max_tokens = max_tokens.min(config.max_position_embeddings);
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..Default::default()
            }))
            .map_err(|e| bad(&tokenizer_path, e.to_string()))?;
        let tokenizer_vocab = tokenizer.get_vocab_size(true);
        if tokenizer_vocab > config.vocab_size {
            return Err(EmbedError::Mismatch {
                dir: dir.to_path_buf(),
                message: format!(
                    "tokenizer.json has {tokenizer_vocab} tokens but config.json's vocab_size is {}",
                    config.vocab_size
                ),
            });
        }

        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let name = model_name(dir, &config_text, &weights, max_tokens);
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|e| bad(&weights_path, format!("not a safetensors file: {e}")))?;
        let model = BertModel::load(vb, &config).map_err(|e| EmbedError::Mismatch {
            dir: dir.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(LocalEmbedder {
            model,
            tokenizer,
            pooling,
            dimensions: config.hidden_size,
            name,
            pad_id: config.pad_token_id as u32,
            device,
        })
    }

    /// The name vectors are stored under: `local:` plus the directory's name
    /// and a hash of its config and weights, so different models never share vectors.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// One unit-length vector per text, in order.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        // Padding costs as much as text: run texts of similar length together.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors = vec![Vec::new(); encodings.len()];

        for group in order.chunks(GROUP_SIZE) {
            let width = encodings[*group.last().unwrap()].get_ids().len();
            let mut ids = Vec::with_capacity(group.len() * width);
            let mut mask = Vec::with_capacity(group.len() * width);
            for &i in group {
                let row = encodings[i].get_ids();
                ids.extend_from_slice(row);
                ids.resize(ids.len() + width - row.len(), self.pad_id);
                mask.resize(mask.len() + row.len(), 1u32);
                mask.resize(mask.len() + width - row.len(), 0u32);
            }
            let pooled = self
                .forward(ids, mask, group.len(), width)
                .map_err(|e| EmbedError::Inference(e.to_string()))?;
            for (&i, vector) in group.iter().zip(pooled) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// One vector per token id, each token run alone between the tokenizer's
    /// own start and end markers (`[CLS] id [SEP]` for BERT): what distilling
    /// a static table needs.
    pub(crate) fn embed_lone_tokens(&self, ids: &[u32]) -> Result<Vec<Vec<f32>>> {
        let frame = self
            .tokenizer
            .encode("", true)
            .map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        let (open, close) = match frame.get_ids() {
            [open, close] => (*open, *close),
            other => {
                return Err(EmbedError::Inference(format!(
                "the tokenizer frames an empty text as {other:?}, not as a start and an end token"
            )))
            }
        };
        let rows: Vec<u32> = ids.iter().flat_map(|&id| [open, id, close]).collect();
        let mask = vec![1u32; rows.len()];
        self.forward(rows, mask, ids.len(), 3)
            .map_err(|e| EmbedError::Inference(e.to_string()))
    }

    fn forward(
        &self,
        ids: Vec<u32>,
        mask: Vec<u32>,
        rows: usize,
        width: usize,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        let ids = Tensor::from_vec(ids, (rows, width), &self.device)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device)?;
        let token_types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &token_types, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                // Padding must not count: zero its vectors, divide by real tokens.
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
                summed.broadcast_div(&counts)?
            }
        };
        let norms = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12, f64::MAX)?;
        pooled.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

/// `1_Pooling/config.json` when present (sentence-transformers' layout); mean otherwise.
fn read_pooling(dir: &Path) -> Result<Pooling> {
    let path = dir.join("1_Pooling").join("config.json");
    if !path.is_file() {
        return Ok(Pooling::Mean);
    }
    let config: PoolingConfig = serde_json::from_slice(&read(&path)?)
        .map_err(|e| bad(&path, format!("not a pooling config: {e}")))?;
    match (
        config.pooling_mode_mean_tokens,
        config.pooling_mode_cls_token,
    ) {
        (true, false) => Ok(Pooling::Mean),
        (false, true) => Ok(Pooling::Cls),
        _ => Err(bad(
            &path,
            "only mean or CLS pooling (exactly one) is supported".into(),
        )),
    }
}
