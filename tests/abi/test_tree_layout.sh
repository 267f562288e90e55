#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tree_layout.sh — the repository's top level holds exactly the folders and
# files docs/ARCHITECTURE.md describes, nothing a test or a tool left behind
# (a committed test output, as null_args_hf/ once was, fails here with its name).
# Tracked files only (git ls-files); without git the test is skipped (77).
# Usage: test_tree_layout.sh SOURCE_DIR [--self-test]
set -u
cd "$1" || exit 1
allowed=".ci .clang-tidy .gitignore CHANGELOG.md CMakeLists.txt LICENSE README.md bench cmake docs examples
include pkgconfig python scripts src tests tools"
check() { # stdin: tracked paths; prints each unexpected top-level entry, returns their count
  local bad=0 top
  while read -r top; do
    [ -n "$top" ] || continue
    case " $(echo $allowed) " in
      *" $top "*) ;;
      *) echo "unexpected top-level entry: $top (a test's or tool's output? tests write under a temporary directory)" >&2
         bad=$((bad + 1)) ;;
    esac
  done < <(cut -d/ -f1 | sort -u)
  return "$bad"
}
if [ "${2:-}" = "--self-test" ]; then
  printf 'src/a.c\nnull_args_hf/config.json\nnull_args_hf/x.gguf\n' | check 2>/dev/null
  [ $? -eq 1 ] || { echo "self-test: a stray folder was not caught" >&2; exit 1; }
  printf 'src/a.c\nREADME.md\n' | check || { echo "self-test: a clean tree was refused" >&2; exit 1; }
  echo "self-test passed"; exit 0
fi
if ! command -v git >/dev/null || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIP: not a git checkout"; exit 77
fi
git ls-files | check
n=$?
echo "$n unexpected top-level entries"
[ "$n" -eq 0 ]
