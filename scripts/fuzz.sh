#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Coverage-guided fuzzing of the two parsers with libFuzzer (clang + ASan/UBSan):
# tests/fuzz/fuzz_gguf.c and tests/fuzz/fuzz_st.c, seeded from tests/data.
#   usage: scripts/fuzz.sh [seconds per target, default 60]
# Not part of CI (it is open-ended); crashes land in build-fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang libclang-rt-14-dev libcjson-dev libxxhash-dev
fi
out=build-fuzz
mkdir -p "$out"
srcs=$(ls src/core/*.c src/gguf/*.c src/safetensors/*.c src/quant/*.c src/kernels/avx2/*.c)
flags="-g -O1 -std=c11 -D_GNU_SOURCE -ffp-contract=off -fsanitize=fuzzer,address,undefined -Iinclude -Isrc"
libs="$(pkg-config --libs libcjson libxxhash) -lpthread -lm"
for t in gguf st; do
  # shellcheck disable=SC2086
  clang $flags -o "$out/fuzz_$t" tests/fuzz/fuzz_$t.c $srcs $libs
done
mkdir -p "$out/corpus_gguf" "$out/corpus_st"
cp -n tests/data/*.gguf tests/data/damaged/*.gguf "$out/corpus_gguf/" 2>/dev/null || true
cp -n tests/data/safetensors/golden/*.safetensors tests/data/safetensors/cases/*.safetensors "$out/corpus_st/" 2>/dev/null || true
for t in gguf st; do
  echo "== fuzz_$t for ${secs}s"
  (cd "$out" && ./fuzz_$t -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 "corpus_$t")
done
