#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Coverage-guided fuzzing with libFuzzer (clang, ASan + UBSan) of every target in
# tests/fuzz/ (docs/FUZZING.md).
#   usage: scripts/fuzz.sh [seconds per target, default 60] [target ...]
# Builds build-fuzz/ (-DMIO_FUZZ=ON), then runs each target for the given time,
# starting from its seeds (tests/fuzz/seeds/<t>, tests/data, tests/regressions/<t>)
# and a working corpus kept in build-fuzz/corpus/<t> between runs. A finding
# (crash, leak, UBSan report, timeout, out-of-memory) is copied to
# tests/regressions/<t>/ — commit it with the fix: CTest replays it forever —
# and the script exits 1 after the remaining targets ran. scripts/test.sh runs
# this in CI with a short time per target.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
all="gguf st st_frame st_index roundtrip decode kv_edit imatrix lora hf ckpt yaml hub"
targets=${*:-$all}

if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang libclang-rt-14-dev
fi
out=build-fuzz
cmake -S . -B "$out" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIO_FUZZ=ON \
  -DMIO_BUILD_BENCH=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$out" -j2 --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)

dict_for() {
  case $1 in
    gguf|roundtrip|imatrix) echo tests/fuzz/gguf.dict ;;
    st|st_frame|st_index|lora|kv_edit|hf|ckpt) echo tests/fuzz/json.dict ;;
    *) echo "" ;;
  esac
}
seeds_for() {
  case $1 in
    gguf|roundtrip) ls tests/data/*.gguf tests/data/damaged/*.gguf ;;
    st|st_frame) ls tests/data/safetensors/golden/*.safetensors tests/data/safetensors/cases/*.safetensors ;;
  esac
  ls -d tests/fuzz/seeds/"$1"/* tests/regressions/"$1"/* 2>/dev/null || true
}

found=0
for t in $targets; do
  corpus="$out/corpus/$t" art="$out/artifacts/$t/"
  mkdir -p "$corpus" "$art"
  seeds_for "$t" | while read -r f; do [ -f "$f" ] && cp -n "$f" "$corpus/" ; done
  dict=$(dict_for "$t")
  echo "== fuzz_$t for ${secs}s ($(ls "$corpus" | wc -l) corpus files)"
  set +e
  # -fork 0; 64 KiB inputs; 2 GiB RSS; 10 s per input; leaks are findings (ASan)
  "$out/tests/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$art" ${dict:+-dict="$dict"} "$corpus" > "$out/fuzz_$t.log" 2>&1
  rc=$?
  set -e
  tail -n 12 "$out/fuzz_$t.log" | grep -E "stat::|Done|ERROR|SUMMARY" || true
  if [ $rc -ne 0 ]; then
    found=1
    mkdir -p "tests/regressions/$t"
    for f in "$art"*; do
      [ -f "$f" ] || continue
      cp "$f" "tests/regressions/$t/"
      echo "FINDING in fuzz_$t: tests/regressions/$t/$(basename "$f") (log: $out/fuzz_$t.log)"
    done
    grep -m1 -A30 -E "ERROR|runtime error" "$out/fuzz_$t.log" || true
  fi
done
exit $found
