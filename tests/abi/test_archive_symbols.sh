#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_archive_symbols.sh — libmodelio.a defines no global symbol outside mio_*.
# Hidden visibility keeps the library's internals out of libmodelio.so, but an
# archive's objects keep every non-static name global: a user program (or
# another library) defining a function of the same name as one of ours would
# collide with it at link time. So an internal is static when one file uses it, and named
# mio_* (hidden, not in docs/abi/symbols.txt) when several do (docs/ABI.md).
# Every defined global counts: functions and data (T D B R ...), weak (W V),
# unique (u) and indirect (i) symbols; the kernel back ends' objects
# (kernels/avx2, avx512, neon) are in the archive too.
# With SYMBOLS_TXT also: the archive defines every exported name it lists (but
# the version node MODELIO_0): static users get the shared library's API.
# Usage: test_archive_symbols.sh LIBMODELIO_A [SYMBOLS_TXT]   (NM overrides nm)
set -u
[ $# -ge 1 ] || { echo "usage: test_archive_symbols.sh LIBMODELIO_A [SYMBOLS_TXT]" >&2; exit 2; }
nm=${NM:-nm}
[ -f "$1" ] || { echo "no archive $1" >&2; exit 1; }
if ! defs=$("$nm" -g --defined-only "$1"); then
  echo "$nm could not read $1" >&2
  exit 1
fi
# "member.o:" headers and blank lines have fewer than 3 fields; a defined
# symbol is "VALUE TYPE NAME" (--defined-only already leaves out U, w and v)
listing=$(awk '/:$/ {obj = $1; sub(/:$/, "", obj)} NF == 3 {print $3, $2, obj}' <<<"$defs")
n=$(awk 'END {print NR}' <<<"$listing")
[ -n "$listing" ] && [ "$n" -gt 0 ] || { echo "$1 defines no global symbol at all: not the library?" >&2; exit 1; }
# A sanitizer build adds its own per-object globals (ASan's ODR indicators
# __odr_asan.NAME, ...): the compiler's, not ours, and absent from a normal build.
bad=$(awk '$1 !~ /^mio_/ && $1 !~ /^(__odr_asan|__asan|__tsan|__ubsan|__sanitizer)/' <<<"$listing" | sort -u)
fail=0
if [ -n "$bad" ]; then
  echo "$1 defines $(wc -l <<<"$bad") global symbols outside mio_* (symbol, nm type, object):" >&2
  sed 's/^/  /' <<<"$bad" >&2
  echo "make each static (used in one file) or name it mio_<name> (docs/ABI.md, \"Internal names\")" >&2
  fail=1
fi
if [ $# -ge 2 ]; then
  missing=$(awk '{print $1}' <<<"$listing" | sort -u | comm -13 - <(grep -v '^MODELIO_' "$2" | sort -u))
  if [ -n "$missing" ]; then
    echo "$1 lacks symbols that $2 lists (exported by libmodelio.so):" >&2
    printf '  %s\n' $missing >&2
    fail=1
  fi
fi
[ $fail -eq 0 ] && echo "$n global symbols defined in $1, all mio_*"
exit $fail
