#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_abidiff.sh — libabigail's abidiff between the committed ABI baseline
# (docs/abi/libmodelio.abi, made by abidw) and the library just built. Fails
# when a function or variable was removed or changed (a signature, or a struct
# layout reached from one: abidiff reports those as "Changed"; its exit status
# alone marks only removals as incompatible); added functions pass and are
# printed. docs/ABI.md says what may change within SONAME 0 and how to
# refresh the baseline after a release:
#   abidw --headers-dir include --no-corpus-path --no-show-locs --no-comp-dir-path build/src/libmodelio.so \
#     | sed "s|path='$PWD/|path='|" > docs/abi/libmodelio.abi
# Usage: test_abidiff.sh BASELINE LIBMODELIO_SO
set -u
if ! command -v abidiff >/dev/null; then
  echo "SKIP: abidiff not installed (Debian: abigail-tools; scripts/deps.sh installs it)"
  exit 77
fi
abidiff "$1" "$2" > report.txt 2>&1
rc=$?
cat report.txt
if (( rc & 3 )); then echo "FAIL: abidiff could not compare (status $rc)" >&2; exit 1; fi
if (( rc & 8 )) || grep -Eq "summary: [1-9][0-9]* Removed|, [1-9][0-9]* Changed" report.txt; then
  echo "FAIL: an existing function, variable or type they use changed against $1" >&2
  exit 1
fi
if (( rc & 4 )); then echo "compatible ABI additions against the baseline (see above)"; else echo "ABI identical to the baseline"; fi
exit 0
