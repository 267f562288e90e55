#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_symbols.sh — the exported symbols of libmodelio.so equal the committed list
# docs/abi/symbols.txt: adding (or losing) a symbol is a deliberate act. After a
# deliberate change: nm -D --defined-only build/src/libmodelio.so | awk '{print $3}'
#   | sed 's/@.*//' | sort -u > docs/abi/symbols.txt
# Usage: test_symbols.sh LIBMODELIO_SO SYMBOLS_TXT
# Also: every exported symbol carries the version MODELIO_0 (the version script
# src/libmodelio.map), and none is an internal (the archive's rule, checked by
# test_archive_symbols.sh, is that internals are mio_* too: hidden visibility
# is what keeps them out of this list).
set -u
got=$(nm -D --defined-only "$1" | awk '{print $3}' | sed 's/@.*//' | sort -u)
unversioned=$(nm -D --defined-only "$1" | awk '$3 != "MODELIO_0" && $3 !~ /@@MODELIO_0$/ {print "  " $3}')
fail=0
if [ -n "$unversioned" ]; then
  echo "exported symbols without the version MODELIO_0 (src/libmodelio.map):" >&2
  printf '%s\n' "$unversioned" >&2
  fail=1
fi
if diff <(printf '%s\n' "$got") "$2" > diff.txt; then
  [ $fail -eq 0 ] && echo "$(wc -l < "$2") symbols, as committed"
  exit $fail
fi
echo "exported symbols differ from $2 (< exported now, > committed):" >&2
cat diff.txt >&2
exit 1
