#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_spdx.sh — every source file of the project (C, headers, scripts, CMake,
# Python, build inputs) names its license in its first three lines:
# "SPDX-License-Identifier: MIT". Data, docs and the LICENSE itself are exempt.
# Usage: test_spdx.sh SOURCE_DIR
set -u
cd "$1" || exit 1
if [ -d .git ] && command -v git >/dev/null; then
  files=$(git ls-files)
else
  files=$(find . -path ./build\* -prune -o -type f -print | sed 's|^\./||')
fi
missing=0 n=0
while read -r f; do
  case "$f" in
    tests/data/*|docs/*|*.md|LICENSE|.gitignore|build*/*) continue ;;
    *.c|*.h|*.cpp|*.py|*.sh|CMakeLists.txt|*/CMakeLists.txt|*.cmake|*.in|*.toml|*.map|*.supp|.ci/run|tests/install/CMakeLists.consumer.txt) ;;
    *) continue ;;
  esac
  n=$((n + 1))
  if ! head -3 "$f" | grep -q "SPDX-License-Identifier: MIT"; then
    echo "no SPDX-License-Identifier line: $f" >&2
    missing=$((missing + 1))
  fi
done <<< "$files"
echo "$n source files, $missing without an SPDX line"
[ "$missing" -eq 0 ] && [ "$n" -gt 100 ]
