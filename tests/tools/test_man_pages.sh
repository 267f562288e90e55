#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_man_pages.sh — every tool has a man page in docs/man, and every option its
# --help names is documented there (docs match the code). The roff source spells
# "--out-type" as "\-\-out\-type".
# Usage: test_man_pages.sh MAN_DIR TOOL_BINARY...
set -u
MAN=$1; shift
W=$PWD/tools_man_work
. "$(dirname "$0")/lib.sh"
for tool in "$@"; do
  name=$(basename "$tool")
  page="$MAN/$name.1"
  check "[ -f '$page' ]"
  [ -f "$page" ] || continue
  check "grep -q '^\.TH $(echo "$name" | tr a-z A-Z) 1 ' '$page'"
  "$tool" --help > help.txt 2>&1
  for opt in $(grep -oE -- '--[a-z][a-z0-9-]*' help.txt | sort -u); do
    roff=$(printf '%s' "$opt" | sed 's/-/\\-/g')
    if grep -qF -- "$roff" "$page"; then ok; else bad "$name: $opt is in --help but not in $page"; fi
  done
done
finish
