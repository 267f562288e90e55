#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis (docs/SECURITY.md): clang-tidy with the repository's
# .clang-tidy, and cppcheck with scripts/cppcheck.supp, over every C file of
# src/ (kernels included, whatever files exist) and tools/ (clang-tidy: those
# the clang configuration compiles; others are listed as skipped). Any finding of
# either fails (exit 1). Justified false positives are suppressed where they
# are (NOLINTNEXTLINE / cppcheck-suppress comments) or in the two configs.
#   usage: scripts/lint.sh [build dir, default build-lint] [file...]
#   (files: check only these, e.g. the ones you changed; default: all)
# The build dir gets a clang configuration with compile_commands.json (no build
# is needed: the analyzers read the sources). MIO_LINT_JOBS (default 1) runs
# that many clang-tidy processes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
mio_install_deps

build=${1:-build-lint}
shift || true
jobs=${MIO_LINT_JOBS:-1}

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find src tools -name '*.c' | LC_ALL=C sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "lint: no C files" >&2; exit 1; }

# clang, so that the compile commands carry flags clang-tidy (a clang) accepts.
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DMIO_BUILD_BENCH=OFF \
  -DMIO_WERROR=OFF >"$build/lint-cmake.log" 2>&1 || { cat "$build/lint-cmake.log" >&2; exit 1; }

fail=0

# clang-tidy analyses a file with the flags it is compiled with, so only files
# this configuration compiles (a kernel for another architecture is not); the
# others are listed, and cppcheck below still reads them.
mapfile -t tidy_files < <(python3 - "$build/compile_commands.json" "${files[@]}" <<'PY'
import json, os, sys
db = {os.path.realpath(os.path.join(e["directory"], e["file"])) for e in json.load(open(sys.argv[1]))}
for f in sys.argv[2:]:
    if os.path.realpath(f) in db:
        print(f)
    else:
        print("clang-tidy: not compiled in this configuration, skipped: " + f, file=sys.stderr)
PY
)
[ ${#tidy_files[@]} -gt 0 ] || { echo "lint: no file to give clang-tidy" >&2; exit 1; }

echo "clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1): ${#tidy_files[@]} files"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# WarningsAsErrors in .clang-tidy makes any finding a non-zero exit.
if ! printf '%s\n' "${tidy_files[@]}" | xargs -P"$jobs" -n4 clang-tidy -p "$build" --quiet >"$log" 2>&1; then
  fail=1
fi
# clang-tidy prints "N warnings generated" for the suppressed ones; show findings only.
if grep -Eq ': (warning|error):' "$log"; then
  grep -Ev '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' "$log"
  fail=1
elif [ $fail -ne 0 ]; then
  cat "$log"
fi
[ $fail -eq 0 ] && echo "clang-tidy: no findings"

echo "cppcheck $(cppcheck --version | sed 's/Cppcheck //')"
# -D__x86_64__ -D__GNUC__: the configuration the library is built for (the
# kernels' #if blocks); without them cppcheck checks every #ifdef combination.
if ! cppcheck --enable=warning,portability,performance --std=c11 --inline-suppr --quiet \
      --error-exitcode=1 --suppressions-list=scripts/cppcheck.supp \
      -I include -I src -D__x86_64__ -D__GNUC__ "${files[@]}"; then
  fail=1
else
  echo "cppcheck: no findings"
fi

exit $fail
