#!/bin/sh
# SPDX-License-Identifier: MIT
# run_neon.sh — the NEON back end on an x86 machine: cross-compiles the kernel
# tests for aarch64 (tests/neon/cross, cmake/aarch64-linux-gnu.cmake) and runs
# them under qemu-aarch64 (-cpu max: AdvSIMD + dotprod, so the dispatch picks
# "neon"). Called by the CTest tests of tests/neon/CMakeLists.txt:
#   run_neon.sh SOURCE_DIR CROSS_BUILD_DIR BUILD_TYPE WERROR SANITIZE kernels|interop
# SANITIZE=ON: the cross build gets ASan+UBSan (as MIO_SANITIZE does), run with
#   detect_leaks=0 (LeakSanitizer cannot run under qemu-user).
# kernels: test_dot at the neon and scalar levels (public API vs a double
#   reference, m and thread invariance), test_packed at both (the neon packed
#   tiles bit for bit against the portable arithmetic), test_kernels (the neon table's entries
#   vs the portable C), the codec tests (tests/codec, without the peer) and test_cpu_isa (the aarch64 dispatch: -cpu max picks neon; a CPU without
#   dotprod (-cpu cortex-a57) stays scalar and refuses MIO_ISA=neon), and the
#   cross archive's global names (tests/abi/test_archive_symbols.sh: all mio_*).
# interop: interop_dot against ggml's own arm64 CPU kernels (the dotprod build
#   of @node-llama-cpp/linux-arm64, scripts/fetch-ggml-peer.sh arm64), loaded in
#   the same qemu process; the package's directory is MIO_PEER_DIR_ARM64, else
#   the fetch script's cache.
# Exit 77 (skip) when the cross tools or the arm64 package are missing — except
# under CI=true, where that is a failure.
set -u
[ $# -eq 6 ] || { echo "usage: run_neon.sh SOURCE_DIR CROSS_BUILD_DIR BUILD_TYPE WERROR SANITIZE kernels|interop" >&2; exit 2; }
root=$1 bdir=$2 btype=$3 werror=$4 sanitize=$5 what=$6
triple=aarch64-linux-gnu
sysroot=/usr/$triple

missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "error: $1; CI requires the NEON tests (scripts/deps.sh installs the tools)" >&2
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
command -v $triple-gcc >/dev/null 2>&1 || missing "$triple-gcc not found (Debian package gcc-aarch64-linux-gnu)"
command -v qemu-aarch64 >/dev/null 2>&1 || missing "qemu-aarch64 not found (Debian package qemu-user)"
[ -f $sysroot/lib/ld-linux-aarch64.so.1 ] || missing "$sysroot/lib/ld-linux-aarch64.so.1 not found (Debian package libc6-arm64-cross)"

if [ "$what" = interop ]; then
  peer=${MIO_PEER_DIR_ARM64:-}
  if [ -z "$peer" ]; then
    peer=$("$root/scripts/fetch-ggml-peer.sh" arm64 --cached 2>/dev/null) \
      || missing "ggml's arm64 package is absent: run scripts/fetch-ggml-peer.sh arm64 (or set MIO_PEER_DIR_ARM64)"
  fi
  [ -f "$peer/libggml-base.so" ] || missing "MIO_PEER_DIR_ARM64=$peer has no libggml-base.so"
  [ -f $sysroot/lib/libstdc++.so.6 ] \
    || missing "$sysroot/lib/libstdc++.so.6 not found (Debian package libstdc++6-arm64-cross; ggml's libraries need it)"
  echo "ggml arm64 peer: $peer"
fi

san=""
if [ "$sanitize" = "ON" ]; then
  san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  export ASAN_OPTIONS=detect_leaks=0
fi
echo "== cross build ($triple, $btype${san:+, ASan+UBSan}) in $bdir"
log=$bdir.log
cmake=${MIO_CMAKE:-cmake} # the outer build's cmake (tests/neon/CMakeLists.txt sets it)
if ! { "$cmake" -S "$root/tests/neon/cross" -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
         -DCMAKE_BUILD_TYPE="$btype" -DMIO_WERROR="$werror" -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
         && "$cmake" --build "$bdir" -j2; } >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "error: the aarch64 cross build failed (log: $log)" >&2
  exit 1
fi

fail=0
# run NAME [VAR=VALUE...] COMMAND...: one test program under qemu (the command
# is qemu-aarch64 as CMAKE_CROSSCOMPILING_EMULATOR in cmake/aarch64-linux-gnu.cmake)
run() {
  name=$1; shift
  echo "== $name"
  env "$@"
  rc=$?
  case $rc in
    0) echo "-- $name: passed" ;;
    77) if [ "${CI:-}" = "true" ]; then echo "-- $name: skipped, which CI does not allow"; fail=1
        else echo "-- $name: skipped"; fi ;;
    *) echo "-- $name: FAILED (exit $rc)"; fail=1 ;;
  esac
}

case $what in
  kernels)
    q="qemu-aarch64 -cpu max -L $sysroot -E LD_LIBRARY_PATH=$sysroot/lib"
    # test_dot's fork check cannot run there: qemu-user 7.2 aborts when the forked
    # child of a threaded process starts a thread (MIO_TEST_UNDER_QEMU skips it)
    # levels: neon and the portable C on aarch64; under the sanitizers only neon
    # (the x86 sanitizer build runs the portable C natively)
    levels="neon scalar"
    [ -z "$san" ] || levels=neon
    for isa in $levels; do
      run "test_dot (MIO_ISA=$isa)" MIO_TEST_UNDER_QEMU=1 MIO_ISA=$isa $q "$bdir/test_dot"
      run "test_packed (MIO_ISA=$isa)" MIO_ISA=$isa $q "$bdir/test_packed"
    done
    run test_kernels $q "$bdir/test_kernels"
    # the aarch64 objects (the neon back end's included) define no global
    # symbol outside mio_* either (tests/abi/test_archive_symbols.sh)
    run "archive symbols (aarch64)" NM="$(command -v $triple-nm || echo nm)" bash "$root/tests/abi/test_archive_symbols.sh" \
      "$bdir/src/libmodelio_internal.a" "$root/docs/abi/symbols.txt"
    # the codec tests' own checks (goldens: byte-exact, the neon q8 quantizers
    # included) at each level; MIO_ISA set, as their re-exec of /proc/self/exe
    # for the scalar pass cannot work under qemu-user. Without the peer: ggml's
    # arm64 reference quantizers are not byte-identical to its x86 ones (they
    # differ on denormal input and some imatrix cases), which the goldens are.
    for t in "$bdir"/codec_test_*; do
      [ -x "$t" ] || continue
      # under the sanitizers the goldens only: the other codec tests run the
      # portable codecs, which the x86 sanitizer build covers natively
      [ -z "$san" ] || [ "${t##*/}" = codec_test_golden ] || continue
      for isa in $levels; do
        run "$(basename "$t") (MIO_ISA=$isa)" -u MIO_PEER_DIR MIO_ISA=$isa $q "$t"
      done
    done
    # qemu-user shows the host's /proc/cpuinfo: the features of the emulated CPUs are given
    run "test_cpu_isa (-cpu max: dotprod)" MIO_TEST_CPU_FEATURES="fp asimd asimddp" MIO_TEST_REEXEC="$q" \
      $q "$bdir/test_cpu_isa"
    q57="qemu-aarch64 -cpu cortex-a57 -L $sysroot -E LD_LIBRARY_PATH=$sysroot/lib"
    run "test_cpu_isa (-cpu cortex-a57: no dotprod)" MIO_TEST_CPU_FEATURES="fp asimd" MIO_TEST_REEXEC="$q57" \
      $q57 "$bdir/test_cpu_isa"
    ;;
  interop)
    # libggml-base.so needs the aarch64 libstdc++/libgcc_s (libstdc++6-arm64-cross) from $sysroot/lib
    run interop_dot MIO_PEER_DIR="$peer" qemu-aarch64 -cpu max -L $sysroot -E LD_LIBRARY_PATH=$sysroot/lib \
      "$bdir/interop_dot"
    ;;
  *) echo "run_neon.sh: unknown part '$what' (kernels or interop)" >&2; exit 2 ;;
esac
exit $fail
