//! Full-text search: code-aware terms, ranking signals, FTS5 escaping,
//! filters, and chunks kept in step with the files.

mod filters_sources_and_vectors;
mod ranking;

use crate::common;

use std::path::Path;

use common::assert_equals_rebuild;
use evident_index::{
    index_repo, Error, Evidence, Index, IndexOptions, Kind, SearchGroup, SearchQuery, Signals,
};

use evident_testkit::fs::write_in as write;

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "rag/common.py",
        "def get_collection_name(kind):\n    \"\"\"The vector-store collection for a kind of document.\"\"\"\n    return f\"{kind}_docs\"\n\n\ndef unrelated():\n    return 42\n",
    );
    write(
        root,
        "web/store.js",
        "export function getCollectionName(kind) {\n  return kind + '_docs';\n}\n",
    );
    write(root, "svc/names.go", "package svc\n\n// GetCollectionName names the collection.\nfunc GetCollectionName(kind string) string {\n\treturn kind + \"_docs\"\n}\n");
    write(
        root,
        "svc/other.go",
        "package svc\n\nfunc Render(page string) string {\n\treturn page\n}\n",
    );
    write(root, "app/main.py", "import sys\n\nCONFIG = {'retries': 3}\n\nif __name__ == '__main__':\n    print('collection', sys.argv)\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

fn search(root: &Path, text: &str) -> Vec<(String, String)> {
    let index = Index::open(root).unwrap();
    index
        .search(&crate::common::chunk_query(text))
        .unwrap()
        .into_iter()
        .map(|e| (e.path, e.name))
        .collect()
}

/// `query` ranked by `group`, with signals set (`NAME=WEIGHT`, space-separated).
fn ranked_with(index: &Index, query: &str, group: SearchGroup, signal: &str) -> Vec<Evidence> {
    let mut signals = Signals::for_group(group);
    for assignment in signal.split_whitespace() {
        signals.set(assignment).unwrap();
    }
    let q = SearchQuery {
        group,
        signals: Some(signals),
        ..crate::common::chunk_query(query)
    };
    index.search(&q).unwrap()
}

fn names(found: Vec<Evidence>) -> Vec<String> {
    found
        .into_iter()
        .map(|e| e.qualified_name.unwrap_or_default())
        .collect()
}

fn docs_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "README.md", "# Widget\n\nA widget store.\n\n## Install\n\nRun `make install` first.\n\n## Usage\n\nCall install() once.\n");
    write(
        root,
        "docs/guide.rst",
        "Guide\n=====\n\nIntro text.\n\nTuning\n------\n\nSet the flux capacitor.\n",
    );
    write(root, "docs/notes.txt", "plain notes about caching\n");
    write(
        root,
        "docs/faq.md",
        "# FAQ\n## Why\nfirst why\n## How\nhow\n## Why\nsecond why\n",
    );
    write(root, "app.py", "def main():\n    install()\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

/// A real, deterministic embedder for tests: words hashed into 64 buckets
/// (lexical, not semantic, but a genuine vector space the index must handle).
struct BagOfWords {
    calls: std::cell::Cell<usize>,
    texts: std::cell::Cell<usize>,
    fail_after_calls: Option<usize>,
}

impl BagOfWords {
    fn new() -> Self {
        BagOfWords {
            calls: 0.into(),
            texts: 0.into(),
            fail_after_calls: None,
        }
    }
    fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; 64];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
        {
            let h = word
                .to_lowercase()
                .bytes()
                .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
            v[(h % 64) as usize] += 1.0;
        }
        v
    }
}

impl evident_index::Embedder for BagOfWords {
    fn model(&self) -> &str {
        "bag-of-words-64"
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, evident_index::EmbedderError> {
        if self.fail_after_calls.is_some_and(|n| self.calls.get() >= n) {
            return Err("connection refused".into());
        }
        self.calls.set(self.calls.get() + 1);
        self.texts.set(self.texts.get() + texts.len());
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

fn embed(root: &Path, embedder: &BagOfWords) -> evident_index::Result<evident_index::EmbedSummary> {
    evident_index::embed_chunks(
        root,
        embedder,
        &evident_index::EmbedOptions {
            batch_size: Some(4),
            ..Default::default()
        },
    )
}
