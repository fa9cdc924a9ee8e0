#!/usr/bin/env bash
# Makes the virtual environment with the official Python MCP SDK (`mcp` from
# PyPI, every package pinned in scripts/mcp-client-requirements.txt) that the
# MCP client tests use. Idempotent: a stamp records the requirements installed.
# Prints the venv's directory. EVIDENT_MCP_VENV overrides the location.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${EVIDENT_MCP_VENV:-$HOME/.cache/evident/mcp-venv}"
requirements=scripts/mcp-client-requirements.txt
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.evident-stamp" 2>/dev/null)" = "$want" ]; then
  echo "$venv"
  exit 0
fi
python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "error: python3 is needed for the MCP client tests (the official MCP SDK is a Python package)" >&2
  exit 1
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
"$venv/bin/python" -c "import mcp" >&2
echo "$want" > "$venv/.evident-stamp"
echo "$venv"
