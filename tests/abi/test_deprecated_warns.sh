#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_deprecated_warns.sh — a program using a deprecated name of modelio.h gets
# a warning naming the replacement (GCC/Clang, MIO_DEPRECATED), and the same
# program compiles silently with MIO_DEPRECATED defined empty (the documented
# way to silence it).
# Usage: test_deprecated_warns.sh CC INCLUDE_DIR SOURCE
set -u
cc=$1 inc=$2 src=$3
out=$("$cc" -std=c11 -Wall -Wextra -fsyntax-only -I "$inc" "$src" 2>&1)
echo "$out"
if ! grep -q "deprecated" <<<"$out" || ! grep -q "use mio_gguf_unmap" <<<"$out"; then
  echo "FAIL: no deprecation warning naming mio_gguf_unmap" >&2
  exit 1
fi
out=$("$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only '-DMIO_DEPRECATED(msg)=' -I "$inc" "$src" 2>&1) || {
  echo "$out"
  echo "FAIL: with MIO_DEPRECATED defined empty the use still does not compile" >&2
  exit 1
}
echo "deprecated use warns, and compiles silently with MIO_DEPRECATED(msg) defined empty"
