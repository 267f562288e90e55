#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_symbols.sh — the exported symbols of libmodelio.so equal the committed list
# docs/abi/symbols.txt: adding (or losing) a symbol is a deliberate act. After a
# deliberate change: nm -D --defined-only build/src/libmodelio.so | awk '{print $3}'
#   | sed 's/@.*//' | sort -u > docs/abi/symbols.txt
# Usage: test_symbols.sh LIBMODELIO_SO SYMBOLS_TXT
set -u
got=$(nm -D --defined-only "$1" | awk '{print $3}' | sed 's/@.*//' | sort -u)
if diff <(printf '%s\n' "$got") "$2" > diff.txt; then
  echo "$(wc -l < "$2") symbols, as committed"
  exit 0
fi
echo "exported symbols differ from $2 (< exported now, > committed):" >&2
cat diff.txt >&2
exit 1
