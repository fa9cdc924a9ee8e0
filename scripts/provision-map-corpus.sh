#!/usr/bin/env bash
# A real repository for the browser test of `evident serve`'s map: pytest
# 8.3.3's sdist from PyPI (688 files, 257 of them Python), checked by
# sha256, unpacked once into ~/.cache/evident/corpora. Prints its directory.
set -euo pipefail
CACHE="${EVIDENT_CORPUS_CACHE:-$HOME/.cache/evident/corpora}"
NAME="pytest-8.3.3"
SHA256="70b98107bd648308a7952b06e6ca9a50bc660be218d53c257cc1fc94fda10181"
dir="$CACHE/$NAME"
if [ ! -f "$dir/.evident-unpacked" ]; then
  mkdir -p "$CACHE"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --no-deps --no-binary :all: -d "$work" "pytest==8.3.3" >&2
  archive="$work/$NAME.tar.gz"
  echo "$SHA256  $archive" | sha256sum --check --quiet >&2
  rm -rf "$dir"
  tar -xzf "$archive" -C "$CACHE"
  touch "$dir/.evident-unpacked"
fi
echo "$dir"
