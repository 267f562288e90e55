#!/bin/sh
# SPDX-License-Identifier: MIT
# quickstart.sh — the README's first command: on a fresh Debian machine with git,
# gcc, make and cmake (no other dependency), build
# libmodelio and its tools into build/, write a small sample model and run
# mio-inspect and mio-export-gguf on it (the copy must be byte-identical).
#
# Usage: scripts/quickstart.sh
# Environment: MIO_BUILD_DIR (default: <repo>/build), MIO_JOBS (default: 2).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${MIO_BUILD_DIR:-$ROOT/build}
JOBS=${MIO_JOBS:-2}
SAMPLE_DIR=$BUILD/sample

say() { printf '\n==> %s\n' "$*"; }
run() { printf '+ %s\n' "$*"; "$@"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }

for tool in cc make cmake; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed (apt-get install gcc make cmake)"
done

# --- 1. build dependencies: none beyond a C compiler, make and cmake (checked
# above); libmodelio's JSON parser and xxHash are its own.
say "build dependencies present (cc, make, cmake)"

# --- 2. configure and build --------------------------------------------------
say "configuring and building libmodelio into $BUILD"
run cmake -S "$ROOT" -B "$BUILD"
run cmake --build "$BUILD" -j"$JOBS" --target modelio mio-inspect mio-export-gguf mio-make-sample

INSPECT=$BUILD/tools/mio-inspect
EXPORT=$BUILD/tools/mio-export-gguf
MKSAMPLE=$BUILD/examples/mio-make-sample
for exe in "$INSPECT" "$EXPORT" "$MKSAMPLE"; do
  [ -x "$exe" ] || die "build did not produce $exe"
done

# --- 3. sample model ---------------------------------------------------------
say "writing a small llama-shaped sample model"
mkdir -p "$SAMPLE_DIR"
SAMPLE=$SAMPLE_DIR/sample.gguf
COPY=$SAMPLE_DIR/sample-copy.gguf
rm -f "$COPY"
run "$MKSAMPLE" "$SAMPLE"

say "mio-inspect: summary"
run "$INSPECT" "$SAMPLE"
say "mio-inspect: tensors"
run "$INSPECT" --tensors "$SAMPLE"

# --- 4. verbatim re-emit -----------------------------------------------------
say "mio-export-gguf: streaming a verbatim copy through the writer"
run "$EXPORT" --from-gguf "$SAMPLE" --out "$COPY"
say "checking the copy is byte-identical"
run cmp "$SAMPLE" "$COPY"
echo "OK: $COPY is byte-identical to $SAMPLE"

# --- 5. quantize -------------------------------------------------------------
# The sample's rows are 256 and 512 wide: whole q4_K blocks, so every matrix converts.
Q4K="${SAMPLE%.gguf}-q4_k.gguf"
say "mio-export-gguf: quantizing the matrix weights to q4_K (the plan, then the run)"
run "$EXPORT" --from-gguf "$SAMPLE" --out "$Q4K" --dtype q4_k --dry-run
run "$EXPORT" --from-gguf "$SAMPLE" --out "$Q4K" --dtype q4_k
run "$INSPECT" "$Q4K"
"$INSPECT" "$Q4K" | grep -Eq '^  q4_K +16 ' || die "expected 16 q4_K tensors in $Q4K"
echo "OK: 16 matrix weights are q4_K"
echo "Next: mio-inspect --meta $SAMPLE, mio-inspect --json $Q4K, mio-export-gguf --help"
