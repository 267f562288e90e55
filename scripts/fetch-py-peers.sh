#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-py-peers.sh — create (once) a Python virtual environment holding the
# real peers the interop tests compare against: upstream safetensors (Rust
# backed), llama.cpp's gguf-py, numpy, and the tokenizer peers (HF tokenizers,
# sentencepiece), pinned; print its python's path.
#
# Idempotent: a complete environment is reused. Directory:
#   $MIO_PY_PEERS_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/libmodelio/py-peers-<pins>
# Usage: MIO_PY_PEERS=$(scripts/fetch-py-peers.sh)
# Everything except the final path goes to stderr.
set -eu

PINS="safetensors==0.8.0 gguf==0.19.0 numpy==2.4.6 tokenizers==0.23.3 sentencepiece==0.2.3"
TAG="st0.8.0-gguf0.19.0-np2.4.6-tok0.23.3-spm0.2.3"

die() { echo "fetch-py-peers: error: $*" >&2; exit 1; }
say() { echo "fetch-py-peers: $*" >&2; }

if [ -n "${MIO_PY_PEERS_CACHE:-}" ]; then
  VENV="$MIO_PY_PEERS_CACHE"
else
  base="${XDG_CACHE_HOME:-}"
  if [ -z "$base" ]; then
    [ -n "${HOME:-}" ] || die "neither MIO_PY_PEERS_CACHE, XDG_CACHE_HOME nor HOME is set"
    base="$HOME/.cache"
  fi
  VENV="$base/libmodelio/py-peers-$TAG"
fi

if [ -f "$VENV/.complete" ] && [ -x "$VENV/bin/python" ]; then
  echo "$VENV/bin/python"
  exit 0
fi
command -v python3 >/dev/null 2>&1 || die "python3 is not installed"
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
say "creating $VENV ($PINS)"
python3 -m venv "$VENV" >&2 || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check $PINS >&2 ||
  { rm -rf "$VENV"; die "pip could not install $PINS (is the package index reachable?)"; }
touch "$VENV/.complete"
echo "$VENV/bin/python"
