#!/usr/bin/env bash
# The compiler indexer the SCIP import tests run to write a fixture's
# index.scip: scip-typescript, pinned with the SCIP oracle bench's lockfile
# (bench/scip_oracle/package-lock.json), installed from npm into the cache.
# Idempotent: a stamp records the lockfile installed. Prints the path of the
# scip-typescript command. EVIDENT_SCIP_DIR overrides the location.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${EVIDENT_SCIP_DIR:-$HOME/.cache/evident/scip-indexers}"
lock=bench/scip_oracle/package-lock.json
want="$(cat bench/scip_oracle/package.json "$lock" | sha256sum | cut -d' ' -f1)"
bin="$dir/node_modules/.bin/scip-typescript"
if [ -x "$bin" ] && [ "$(cat "$dir/.evident-stamp" 2>/dev/null)" = "$want" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "error: the SCIP import tests need npm (Node.js) to install scip-typescript" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
cp bench/scip_oracle/package.json "$lock" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --silent) >&2
"$bin" --version >&2
echo "$want" > "$dir/.evident-stamp"
echo "$bin"
