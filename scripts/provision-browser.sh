#!/usr/bin/env bash
# What the browser tests of `evident serve` need: Debian's chromium (apt),
# and web/'s npm packages (playwright-core to drive it, esbuild and the
# page's libraries to build it), installed from web/package-lock.json.
# Idempotent. Prints the browser's path.
set -euo pipefail
cd "$(dirname "$0")/.."

browser="${EVIDENT_CHROMIUM:-$(command -v chromium || true)}"
if [ -z "$browser" ]; then
  if ! command -v apt-get >/dev/null; then
    echo "error: the browser tests need chromium (Debian's package), and there is no apt-get here" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
  browser="$(command -v chromium)"
fi
scripts/npm-web >&2
echo "$browser"
