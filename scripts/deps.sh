# SPDX-License-Identifier: MIT
# Sourced by the project scripts: install the build dependencies that are missing
# (Debian packages; as root directly, otherwise through sudo).
mio_install_deps() {
  local need=()
  command -v cmake >/dev/null || need+=(cmake)
  command -v cc >/dev/null || need+=(gcc)
  command -v make >/dev/null || need+=(make)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  # libcurl with TLS: hf:// and http(s):// files, mio-pull (docs/HUB.md; optional to
  # build, needed by the suite's remote tests)
  pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
  command -v python3 >/dev/null || need+=(python3)   # tool tests read mio-inspect --json
  command -v g++ >/dev/null || need+=(g++)           # interop_imatrix calls the peer's C++ entry point
  python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)  # the PyPI peers' venv
  command -v abidiff >/dev/null || need+=(abigail-tools)   # the ABI check against docs/abi/
  command -v doxygen >/dev/null || need+=(doxygen)          # the API reference (api_docs test)
  command -v clang >/dev/null || need+=(clang)             # libFuzzer builds (scripts/fuzz.sh)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
  command -v valgrind >/dev/null || need+=(valgrind)       # memcheck over the unit tests (scripts/valgrind.sh)
  command -v cppcheck >/dev/null || need+=(cppcheck)       # static analysis (scripts/lint.sh)
  command -v clang-tidy >/dev/null || need+=(clang-tidy)   # static analysis (scripts/lint.sh)
  command -v clang-format >/dev/null || need+=(clang-format) # the tools' layout (tools/.clang-format, test tools_format)
  # the reference xxHash, the peer of test_xxhash (dlopen; the library has its own)
  ldconfig -p 2>/dev/null | grep -q "libxxhash.so.0 " || need+=(libxxhash0)
  # the NEON back end, cross-compiled and run under qemu (tests/neon/), and the
  # aarch64 C++ runtime that ggml's arm64 libraries need there
  command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
  command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
  [ -f /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || need+=(libstdc++6-arm64-cross)
  if [ "${1:-}" = "--with-npm" ] || [ -z "${MIO_NO_PEER:-}" ]; then
    command -v npm >/dev/null || need+=(npm)
  fi
  [ ${#need[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
}
