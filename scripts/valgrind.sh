#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The unit tests under valgrind's memcheck (docs/SECURITY.md): any invalid read
# or write, use of uninitialised memory, bad free, or a definite/indirect leak
# fails. "Possibly lost" blocks are not failures: the dot products' worker
# threads (src/core/pool.c) live until the process ends, and their thread
# stacks' TLS is reported that way. Valgrind runs AVX2 but not AVX-512: under
# it the library chooses the avx2 level by itself (CPUID as valgrind reports it).
#   usage: scripts/valgrind.sh [build dir, default build] [test name regex]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
pick=${2:-.}
fail=0
for exe in "$build"/tests/unit/test_* "$build"/tests/kernels/test_kernels; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  name=$(basename "$exe")
  # test_cpu_isa re-runs itself through /proc/self/exe, which under valgrind is
  # valgrind's own tool binary; it allocates nothing of the library's anyway.
  [ "$name" = test_cpu_isa ] && { echo "valgrind $name: not run (re-executes itself)"; continue; }
  echo "$name" | grep -Eq "$pick" || continue
  start=$(date +%s)
  if (cd "$(dirname "$exe")" && valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --track-origins=yes "./$name" > "/tmp/valgrind-$name.log" 2>&1); then
    echo "valgrind $name: clean ($(( $(date +%s) - start )) s)"
  else
    rc=$?
    echo "valgrind $name: FAILED (exit $rc; /tmp/valgrind-$name.log)"
    grep -E "^==[0-9]+== " "/tmp/valgrind-$name.log" | head -40 || tail -20 "/tmp/valgrind-$name.log"
    fail=1
  fi
done
exit $fail
