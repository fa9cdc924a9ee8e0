//! The default embedder: a static table, one row per vocabulary token, distilled
//! from the BERT model in the model2vec way. A text's vector is the normalised
//! sum of its tokens' rows: no forward pass, so it embeds thousands of chunks a
//! second on two cores where the BERT model embeds about 25.
//!
//! Distilling ([`distill`]) runs once per teacher model: every vocabulary token
//! goes through the teacher alone (`[CLS] token [SEP]`, mean pooled); the rows
//! are centred and reduced by PCA to [`STATIC_DIMENSIONS`]; and each row is
//! weighted by the smoothed inverse of its token's frequency estimated from its
//! rank in the vocabulary (Zipf), so common tokens count for less. Tokens that
//! carry no meaning in code (special tokens, unused slots, punctuation) get a
//! zero row and so add nothing to a text's vector.
//!
//! The directory layout is model2vec's (`config.json`, `tokenizer.json`,
//! `model.safetensors` with one `embeddings` tensor), so a model2vec model
//! (potion-base-8M, …) placed in a directory loads too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use serde::{Deserialize, Serialize};
use tokenizers::Tokenizer;

use crate::bert::LocalEmbedder;
use crate::files::{bad, check_model_dir, model_name, read, EmbedError, Result};

/// Dimensions of a distilled table (model2vec's default PCA size).
pub const STATIC_DIMENSIONS: usize = 256;

/// model2vec's SIF coefficient: a token of estimated probability `p` weighs `a / (a + p)`.
const SIF_COEFFICIENT: f64 = 1e-4;

/// Tokens per text: a chunk's embedding text is short, and a longer one adds little.
const MAX_TOKENS: usize = 512;

/// Vocabulary tokens per teacher forward pass while distilling.
const DISTILL_BATCH: usize = 512;

/// The name of the distilled directory beside its teacher's.
pub fn static_dir_for(teacher: &Path) -> PathBuf {
    let name = teacher
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    teacher.with_file_name(format!("{name}-static"))
}

/// Whether `dir` holds a static table (its `config.json` says `model2vec`).
pub fn is_static_model(dir: &Path) -> bool {
    std::fs::read(dir.join("config.json"))
        .ok()
        .and_then(|text| serde_json::from_slice::<StaticConfig>(&text).ok())
        .is_some_and(|config| config.model_type.as_deref() == Some("model2vec"))
}

/// [`distill`] unless another process already did: processes that need the
/// table at once wait on a lock beside it, and only the first distils.
/// `say` hears one line before the work starts.
pub fn distill_once(teacher: &Path, out: &Path, say: &mut dyn FnMut(&str)) -> Result<()> {
    let lock_path = out.with_extension("lock");
    let _lock = lock_beside(out).map_err(|e| bad(&lock_path, e.to_string()))?;
    if is_static_model(out) {
        return Ok(());
    }
    say(&format!(
        "distilling the default embedder from {} into {} (once; about a minute)",
        teacher.display(),
        out.display()
    ));
    distill(teacher, out)
}

/// An exclusive lock on `DIR.lock` beside `dir`, held until the file is
/// dropped: processes that would make `dir` at once take turns.
pub(crate) fn lock_beside(dir: &Path) -> std::io::Result<std::fs::File> {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.with_extension("lock"))?;
    lock.lock()?;
    Ok(lock)
}

#[derive(Serialize, Deserialize)]
struct StaticConfig {
    #[serde(default)]
    model_type: Option<String>,
    #[serde(default = "yes")]
    normalize: bool,
    #[serde(default)]
    hidden_dim: Option<usize>,
    /// The teacher's name (`local:…#hash`), for distilled tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    distilled_from: Option<String>,
}

fn yes() -> bool {
    true
}

/// A loaded static table, ready to embed.
pub struct StaticEmbedder {
    /// `vocabulary × dimensions`, row-major.
    table: Vec<f32>,
    dimensions: usize,
    tokenizer: Tokenizer,
    name: String,
}

impl StaticEmbedder {
    /// Loads the table in `dir`, checking its files agree.
    pub fn load(dir: &Path) -> Result<Self> {
        check_model_dir(dir)?;
        let config_path = dir.join("config.json");
        let config_text = read(&config_path)?;
        let config: StaticConfig = serde_json::from_slice(&config_text)
            .map_err(|e| bad(&config_path, format!("not a static model config: {e}")))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| bad(&tokenizer_path, format!("not a tokenizers file: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| bad(&tokenizer_path, e.to_string()))?;

        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        // Read straight from the file's bytes: one pass to f32, no tensor
        // copies (through candle this took most of the load time).
        let tensors = safetensors::SafeTensors::deserialize(&weights)
            .map_err(|e| bad(&weights_path, format!("not a safetensors file: {e}")))?;
        let mismatch = |message: String| EmbedError::Mismatch {
            dir: dir.to_path_buf(),
            message,
        };
        let embeddings = tensors
            .tensor("embeddings")
            .map_err(|_| mismatch("no `embeddings` tensor (a static model holds one)".into()))?;
        let &[rows, dimensions] = embeddings.shape() else {
            return Err(mismatch(format!(
                "`embeddings` is not a table: its shape is {:?}",
                embeddings.shape()
            )));
        };
        if let Some(hidden) = config.hidden_dim.filter(|&h| h != dimensions) {
            return Err(mismatch(format!(
                "config.json's hidden_dim is {hidden} but the table has {dimensions} columns"
            )));
        }
        let vocabulary = tokenizer.get_vocab_size(true);
        if vocabulary > rows {
            return Err(mismatch(format!(
                "tokenizer.json has {vocabulary} tokens but the table has {rows} rows"
            )));
        }
        let bytes = embeddings.data();
        let table: Vec<f32> = match embeddings.dtype() {
            safetensors::Dtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            safetensors::Dtype::BF16 => bytes
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            safetensors::Dtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            other => {
                return Err(mismatch(format!(
                    "`embeddings` holds {other:?} values, not floats"
                )))
            }
        };
        let name = model_name(dir, &config_text, &weights, 0);
        Ok(StaticEmbedder {
            table,
            dimensions,
            tokenizer,
            name,
        })
    }

    /// The name [`StaticEmbedder::load`] would give the table in `dir`, from
    /// its config and weights alone (no tokenizer parsed, no table built):
    /// enough to see that nothing is left to embed without loading it.
    pub fn name_of(dir: &Path) -> Result<String> {
        let config = read(&dir.join("config.json"))?;
        let weights = read(&dir.join("model.safetensors"))?;
        Ok(model_name(dir, &config, &weights, 0))
    }

    /// `local:` plus the directory's name and a hash of its files.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// One unit-length vector per text, in order; a text with no known token
    /// gets the zero vector.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let split: Vec<String> = texts.iter().map(|t| split_camel_case(t)).collect();
        let encodings = self
            .tokenizer
            .encode_batch(split, false)
            .map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        Ok(encodings
            .iter()
            .map(|encoding| {
                let mut sum = vec![0f32; self.dimensions];
                for &id in encoding.get_ids() {
                    let start = id as usize * self.dimensions;
                    if let Some(row) = self.table.get(start..start + self.dimensions) {
                        sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                    }
                }
                let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    sum.iter_mut().for_each(|x| *x /= norm);
                }
                sum
            })
            .collect())
    }
}

/// `getCollectionName` → `get Collection Name`, `HTTPServer` → `HTTP Server`:
/// a WordPiece vocabulary knows the words, not the joined identifier.
fn split_camel_case(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_uppercase() {
            let before = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if before.is_lowercase()
                || before.is_ascii_digit()
                || (before.is_uppercase() && next_is_lower)
            {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

/// Distils `teacher` into a static table in `out` (written to a temporary
/// sibling and renamed, so a reader never sees half a model).
pub fn distill(teacher_dir: &Path, out: &Path) -> Result<()> {
    let teacher = LocalEmbedder::load(teacher_dir)?;
    let vocabulary = teacher.tokenizer.get_vocab_size(true);
    let kept: Vec<u32> = (0..vocabulary as u32)
        .filter(|&id| {
            teacher
                .tokenizer
                .id_to_token(id)
                .is_some_and(|token| carries_meaning(&token))
        })
        .collect();
    let mut rows = Vec::with_capacity(kept.len() * teacher.dimensions());
    for batch in kept.chunks(DISTILL_BATCH) {
        for vector in teacher.embed_lone_tokens(batch)? {
            rows.extend(vector);
        }
    }
    let projected = pca(&rows, kept.len(), teacher.dimensions(), STATIC_DIMENSIONS)
        .map_err(|e| EmbedError::Inference(format!("PCA: {e}")))?;

    // Zipf: the token of rank r (its id; WordPiece vocabularies list common
    // pieces first) has probability ∝ 1/(r+2).
    let harmonic: f64 = (0..vocabulary).map(|r| 1.0 / (r as f64 + 2.0)).sum();
    let dims = STATIC_DIMENSIONS;
    let mut table = vec![0f32; vocabulary * dims];
    for (k, &id) in kept.iter().enumerate() {
        let probability = 1.0 / (id as f64 + 2.0) / harmonic;
        let weight = (SIF_COEFFICIENT / (SIF_COEFFICIENT + probability)) as f32;
        let row = &mut table[id as usize * dims..(id as usize + 1) * dims];
        for (slot, x) in row.iter_mut().zip(&projected[k * dims..(k + 1) * dims]) {
            *slot = x * weight;
        }
    }

    let tmp = out.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| bad(&tmp, e.to_string()))?;
    let config = StaticConfig {
        model_type: Some("model2vec".into()),
        normalize: true,
        hidden_dim: Some(dims),
        distilled_from: Some(teacher.name().to_string()),
    };
    let write = |name: &str, bytes: &[u8]| {
        let path = tmp.join(name);
        std::fs::write(&path, bytes).map_err(|e| bad(&path, e.to_string()))
    };
    write(
        "config.json",
        &serde_json::to_vec_pretty(&config).expect("a config serialises"),
    )?;
    std::fs::copy(
        teacher_dir.join("tokenizer.json"),
        tmp.join("tokenizer.json"),
    )
    .map_err(|e| bad(&tmp.join("tokenizer.json"), e.to_string()))?;
    let tensor = Tensor::from_vec(table, (vocabulary, dims), &Device::Cpu)
        .and_then(|t| t.to_dtype(DType::F16))
        .map_err(|e| EmbedError::Inference(e.to_string()))?;
    let tensors = HashMap::from([("embeddings".to_string(), tensor)]);
    candle_core::safetensors::save(&tensors, tmp.join("model.safetensors"))
        .map_err(|e| bad(&tmp.join("model.safetensors"), e.to_string()))?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::rename(&tmp, out).map_err(|e| bad(out, e.to_string()))
}

/// Special tokens, unused slots and bare punctuation get no row.
fn carries_meaning(token: &str) -> bool {
    let bare = token.strip_prefix("##").unwrap_or(token);
    let special = token.starts_with('[') && token.ends_with(']');
    !special && bare.chars().any(char::is_alphanumeric)
}

/// The `n × d` rows centred and projected on their `k` principal axes.
fn pca(rows: &[f32], n: usize, d: usize, k: usize) -> candle_core::Result<Vec<f32>> {
    let x = Tensor::from_slice(rows, (n, d), &Device::Cpu)?;
    let centred = x.broadcast_sub(&x.mean_keepdim(0)?)?;
    let covariance = centred.t()?.matmul(&centred)?.affine(1.0 / n as f64, 0.0)?;
    let covariance: Vec<f32> = covariance.flatten_all()?.to_vec1()?;
    let axes = principal_axes(&covariance, d, k);
    let axes = Tensor::from_vec(axes, (d, k), &Device::Cpu)?;
    centred.matmul(&axes)?.flatten_all()?.to_vec1()
}

/// The `k` eigenvectors of the symmetric `d × d` matrix with the largest
/// eigenvalues, as the columns of a `d × k` matrix (cyclic Jacobi rotations).
fn principal_axes(matrix: &[f32], d: usize, k: usize) -> Vec<f32> {
    let mut a: Vec<f64> = matrix.iter().map(|&x| x as f64).collect();
    let mut v = vec![0f64; d * d];
    for i in 0..d {
        v[i * d + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..30 {
        let off: f64 = (0..d)
            .flat_map(|i| (0..d).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * d + j] * a[i * d + j])
            .sum();
        if off <= total * 1e-22 {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = a[p * d + q];
                if apq.abs() < 1e-30 {
                    continue;
                }
                let theta = (a[q * d + q] - a[p * d + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for r in 0..d {
                    let (arp, arq) = (a[r * d + p], a[r * d + q]);
                    a[r * d + p] = c * arp - s * arq;
                    a[r * d + q] = s * arp + c * arq;
                }
                for r in 0..d {
                    let (apr, aqr) = (a[p * d + r], a[q * d + r]);
                    a[p * d + r] = c * apr - s * aqr;
                    a[q * d + r] = s * apr + c * aqr;
                }
                for r in 0..d {
                    let (vrp, vrq) = (v[r * d + p], v[r * d + q]);
                    v[r * d + p] = c * vrp - s * vrq;
                    v[r * d + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&i, &j| a[j * d + j].total_cmp(&a[i * d + i]));
    let mut axes = vec![0f32; d * k];
    for (column, &i) in order.iter().take(k).enumerate() {
        for r in 0..d {
            axes[r * k + column] = v[r * d + i] as f32;
        }
    }
    axes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_is_split_into_words() {
        assert_eq!(split_camel_case("getCollectionName"), "get Collection Name");
        assert_eq!(split_camel_case("HTTPServer x2Y"), "HTTP Server x2 Y");
        assert_eq!(split_camel_case("snake_case Word"), "snake_case Word");
    }

    #[test]
    fn principal_axes_are_the_eigenvectors_by_eigenvalue() {
        // diag(1, 5, 3) rotated by 45° in its first two coordinates.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let q = [[h, -h, 0.0], [h, h, 0.0], [0.0, 0.0, 1.0]];
        let eig = [1.0, 5.0, 3.0];
        let mut m = vec![0f32; 9];
        for i in 0..3 {
            for j in 0..3 {
                m[i * 3 + j] = (0..3).map(|l| q[i][l] * eig[l] * q[j][l]).sum::<f64>() as f32;
            }
        }
        let axes = principal_axes(&m, 3, 2);
        // Largest (5) first: the second column of q, up to sign; then the third (3).
        let first = [axes[0], axes[2], axes[4]];
        let second = [axes[1], axes[3], axes[5]];
        let dot = |a: [f32; 3], b: [f64; 3]| (0..3).map(|i| a[i] as f64 * b[i]).sum::<f64>();
        assert!(
            (dot(first, [-h, h, 0.0]).abs() - 1.0).abs() < 1e-5,
            "{first:?}"
        );
        assert!(
            (dot(second, [0.0, 0.0, 1.0]).abs() - 1.0).abs() < 1e-5,
            "{second:?}"
        );
    }

    #[test]
    fn meaningless_tokens_get_no_row() {
        for token in ["[PAD]", "[unused12]", "[CLS]", "(", "##.", "):"] {
            assert!(!carries_meaning(token), "{token}");
        }
        for token in ["file", "##ing", "x", "3", "é"] {
            assert!(carries_meaning(token), "{token}");
        }
    }
}
