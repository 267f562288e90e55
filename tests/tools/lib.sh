# SPDX-License-Identifier: MIT
# lib.sh — the assertion helpers shared by the shell tool tests. Source it after
# setting W (the work directory); it creates W fresh and cd's into it. A script
# ends with `finish`, which prints "N passed, N failed" and sets the exit status.
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$1"; fi; }
# expect_rc RC CMD... : run CMD (stdout/stderr to out.txt/err.txt), compare exit status
expect_rc() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt; local rc=$?
  if [ "$rc" -eq "$want" ]; then ok; else bad "exit $rc (want $want): $* -- $(cat err.txt)"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
