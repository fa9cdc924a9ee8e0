//! The built-in embedder on the registry-provided model (all-MiniLM-L6-v2 from
//! PyPI, fetched by scripts/fetch-embed-model.sh), and its errors on broken
//! model directories.

use std::path::{Path, PathBuf};

use evident_embed::{EmbedError, LocalEmbedder, Pooling};

/// The fetched model, or `None` (test skipped) when it is not there and not required.
fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("EVIDENT_EMBED_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(evident_embed::default_model_dir);
    evident_testkit::skip::embed_model_or_skip(dir, "built-in embedder")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn assert_unit(v: &[f32]) {
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn embeds_unit_vectors_that_rank_by_meaning() {
    let Some(dir) = model_dir() else { return };
    let embedder = LocalEmbedder::load(&dir).unwrap();
    assert_eq!(embedder.dimensions(), 384);
    assert_eq!(embedder.pooling(), Pooling::Mean);
    assert!(
        embedder.name().starts_with("local:all-MiniLM-L6-v2#"),
        "{}",
        embedder.name()
    );

    let query = "read the contents of a file from disk";
    let vectors = embedder
        .embed(&texts(&[
            query,
            "def load_file(path):\n    with open(path) as f:\n        return f.read()",
            "def square_root(x):\n    return math.sqrt(x)",
            "class HttpServer: listens on a socket and answers requests",
        ]))
        .unwrap();
    assert_eq!(vectors.len(), 4);
    for v in &vectors {
        assert_eq!(v.len(), 384);
        assert_unit(v);
    }
    let to_file = cosine(&vectors[0], &vectors[1]);
    let to_sqrt = cosine(&vectors[0], &vectors[2]);
    let to_server = cosine(&vectors[0], &vectors[3]);
    assert!(
        to_file > to_sqrt + 0.1 && to_file > to_server + 0.1,
        "{to_file} {to_sqrt} {to_server}"
    );
}

#[test]
fn padding_in_a_batch_does_not_change_a_vector() {
    let Some(dir) = model_dir() else { return };
    let embedder = LocalEmbedder::load(&dir).unwrap();
    let short = "get collection name";
    let long = "A much longer text that forces the short one in the same batch to be padded with many pad tokens, ".repeat(3);
    let alone = embedder.embed(&texts(&[short])).unwrap();
    let batched = embedder.embed(&texts(&[&long, short])).unwrap();
    let drift = alone[0]
        .iter()
        .zip(&batched[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(drift < 1e-4, "padding moved the vector by {drift}");
    // Same input, same output.
    assert_eq!(embedder.embed(&texts(&[short])).unwrap(), alone);
    assert!(embedder.embed(&[]).unwrap().is_empty());
}

#[test]
fn texts_longer_than_the_limit_are_cut_not_refused() {
    let Some(dir) = model_dir() else { return };
    let embedder = LocalEmbedder::load_with(&dir, 32).unwrap();
    let long = "word ".repeat(2000);
    let vectors = embedder.embed(&texts(&[&long, ""])).unwrap();
    assert_eq!(vectors.len(), 2);
    assert!(vectors.iter().all(|v| v.iter().all(|x| x.is_finite())));
}

/// A copy of the model directory in a temp dir, with `edit` applied.
fn broken_copy(dir: &Path, edit: impl FnOnce(&Path)) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for name in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::copy(dir.join(name), copy.path().join(name)).unwrap();
    }
    edit(copy.path());
    copy
}

fn load_error(dir: &Path) -> String {
    match LocalEmbedder::load(dir) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn missing_files_are_named() {
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("config.json"), "{}").unwrap();
    let err = LocalEmbedder::load(empty.path()).err().unwrap();
    assert!(
        matches!(err, EmbedError::MissingFiles { ref missing, .. } if missing == &["tokenizer.json", "model.safetensors"]),
        "{err}"
    );
    assert!(err.to_string().contains("fetch-embed-model.sh"), "{err}");
    let nowhere = empty.path().join("nowhere");
    assert!(load_error(&nowhere).contains("not a directory"));
}

#[test]
fn mismatched_or_corrupt_files_get_clear_errors() {
    let Some(dir) = model_dir() else { return };
    // A config for a bigger model than the weights hold.
    let bigger = broken_copy(&dir, |d| {
        let text = std::fs::read_to_string(d.join("config.json")).unwrap();
        std::fs::write(
            d.join("config.json"),
            text.replace("\"hidden_size\": 384", "\"hidden_size\": 768"),
        )
        .unwrap();
    });
    let err = load_error(bigger.path());
    assert!(
        err.contains("model.safetensors does not match config.json") && err.contains("shape"),
        "{err}"
    );

    // Weights cut short.
    let truncated = broken_copy(&dir, |d| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("model.safetensors"))
            .unwrap();
        file.set_len(1000).unwrap();
    });
    let err = load_error(truncated.path());
    assert!(
        err.contains("model.safetensors") && err.contains("not a safetensors file"),
        "{err}"
    );

    // A config that is not JSON, and a tokenizer that is not a tokenizer.
    let bad_config = broken_copy(&dir, |d| {
        std::fs::write(d.join("config.json"), "not json").unwrap()
    });
    assert!(load_error(bad_config.path()).contains("config.json: not a BERT config"));
    let bad_tokenizer = broken_copy(&dir, |d| {
        std::fs::write(d.join("tokenizer.json"), "{\"x\": 1}").unwrap()
    });
    assert!(load_error(bad_tokenizer.path()).contains("tokenizer.json: not a tokenizers file"));

    // A vocabulary bigger than the model's embedding table.
    let small_vocab = broken_copy(&dir, |d| {
        let text = std::fs::read_to_string(d.join("config.json")).unwrap();
        std::fs::write(
            d.join("config.json"),
            text.replace("\"vocab_size\": 30522", "\"vocab_size\": 1000"),
        )
        .unwrap();
    });
    assert!(load_error(small_vocab.path()).contains("vocab_size is 1000"));
}

/// The default embedder's table, distilled from the fetched model (by
/// scripts/test, or here when it is missing).
fn static_dir() -> Option<PathBuf> {
    let teacher = model_dir()?;
    let dir = evident_embed::static_dir_for(&teacher);
    evident_embed::distill_once(&teacher, &dir, &mut |line| eprintln!("{line}")).unwrap();
    Some(dir)
}

#[test]
fn the_static_table_embeds_by_meaning_too() {
    let Some(dir) = static_dir() else { return };
    assert!(evident_embed::is_static_model(&dir));
    assert!(!evident_embed::is_static_model(&model_dir().unwrap()));
    let embedder = evident_embed::StaticEmbedder::load(&dir).unwrap();
    assert_eq!(embedder.dimensions(), evident_embed::STATIC_DIMENSIONS);
    assert!(embedder
        .name()
        .starts_with("local:all-MiniLM-L6-v2-static#"));
    let vectors = embedder
        .embed(&texts(&[
            "read the contents of a file from disk",
            "def load_file(path):\n    with open(path) as f:\n        return f.read()",
            "def square_root(x):\n    return math.sqrt(x)",
            "class HttpServer: listens on a socket and answers requests",
            "loadFile readFileContents",
            "",
            "((( ))) ;;",
        ]))
        .unwrap();
    for v in &vectors[..5] {
        assert_unit(v);
    }
    let to_file = cosine(&vectors[0], &vectors[1]);
    let to_sqrt = cosine(&vectors[0], &vectors[2]);
    let to_server = cosine(&vectors[0], &vectors[3]);
    assert!(
        to_file > to_sqrt && to_file > to_server,
        "{to_file} {to_sqrt} {to_server}"
    );
    // camelCase is read as words.
    assert!(cosine(&vectors[4], &vectors[0]) > cosine(&vectors[4], &vectors[2]));
    // Nothing to read, or only punctuation: the zero vector, not NaN.
    assert!(vectors[5].iter().chain(&vectors[6]).all(|x| *x == 0.0));
}

#[test]
fn a_static_directory_without_a_table_is_a_clear_error() {
    let Some(dir) = static_dir() else { return };
    let broken = broken_copy(&dir, |d| {
        let bert = model_dir().unwrap();
        std::fs::copy(bert.join("model.safetensors"), d.join("model.safetensors")).unwrap();
    });
    let err = evident_embed::StaticEmbedder::load(broken.path())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no `embeddings` tensor"), "{err}");
}
