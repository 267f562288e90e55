#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_guide.sh — docs/GUIDE.md shows the example files the install test builds
# and runs, verbatim: each block after "<!-- file: PATH -->" equals PATH.
# Usage: test_guide.sh SOURCE_DIR
set -u
SRC=$1
W=$PWD/guide_work
. "$SRC/tests/tools/lib.sh"
n=0
while read -r path; do
  awk -v p="$path" '
    $0 == "<!-- file: " p " -->" { want = 1; next }
    want && /^```/ { if (inblock) exit; inblock = 1; next }
    inblock { print }' "$SRC/docs/GUIDE.md" > block.txt
  if cmp -s block.txt "$SRC/$path"; then ok; else bad "docs/GUIDE.md's copy of $path differs from the file"; diff block.txt "$SRC/$path" >&2; fi
  n=$((n + 1))
done < <(sed -n 's/^<!-- file: \(.*\) -->$/\1/p' "$SRC/docs/GUIDE.md")
check '[ "$n" -ge 2 ]'
finish
