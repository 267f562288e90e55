#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tool_defects.sh — regression tests for the tool defects of issue 7: a split
# input is read whole (never cut to part 1); OUT that is a device, FIFO or
# /dev/stdout-style symlink is refused, '-' streams to stdout, the replaced file
# keeps its mode, OUT naming an input part is refused; SIGINT/SIGTERM and a
# file-size limit leave no temp file (exit 130/143/1); FIFO inputs fail at once;
# names from the file never reach the terminal unescaped; non-zero padding is
# reported; --dry-run to a full device fails; singular counts.
# Usage: test_tool_defects.sh MIO_EXPORT MIO_INSPECT MIO_TRANSCODE MK_DTYPE_MODELS MIO_MAKE_SAMPLE
set -u
EXPORT=$1 INSPECT=$2 TRANSCODE=$3 MK=$4 MKSAMPLE=$5
DATA=$(cd "$(dirname "$0")/../data" && pwd)
W=$PWD/tools_defects_work
. "$(dirname "$0")/lib.sh"

"$MK" . defects || bad "mk_dtype_models defects"
"$MKSAMPLE" sample.gguf >/dev/null || bad "mio-make-sample"
ESC=$(printf '\033') BEL=$(printf '\007')
no_tmp() { ! ls -A | grep -q -e '\.tmp-' -e '^\.mio-'; }

# 1. a split model is read whole ------------------------------------------------
expect_rc 0 "$EXPORT" --from-gguf m-00001-of-00002.gguf --out merged.gguf
check 'grep -q "wrote merged.gguf: 3 tensors (verbatim), 2 keys (from 2 split parts, split.\* keys dropped)" err.txt'
# 24 + keys (45 + 33) + tensor infos (48 + 40 + 48) = 238 -> 256; data 2048 + 1024 + 1536
check '[ "$(stat -c %s merged.gguf)" -eq 4864 ]'
expect_rc 0 "$INSPECT" --tensors --meta merged.gguf
check 'grep -q "^tensor count:  3$" out.txt'
check 'grep -Eq "^  c.weight +\[3, 256\] +f16 +3072 +1536$" out.txt'
check '! grep -q "split\." out.txt'
expect_rc 0 "$EXPORT" --from-gguf m-00001-of-00002.gguf --out merged_q8.gguf --dtype q8_0
check 'grep -q "wrote merged_q8.gguf: 3 tensors (2 converted to q8_0, 1 kept)" err.txt'
expect_rc 0 "$EXPORT" --from-gguf m-00001-of-00002.gguf --dry-run
check 'grep -qx "input: 2 split parts, merged into one output file" out.txt'
check 'grep -q "^  c.weight " out.txt'
# a later part: refused, naming the file to open
expect_rc 1 "$EXPORT" --from-gguf m-00002-of-00002.gguf --out p2.gguf
check 'grep -q "this is part 2 of 2 of a split model; open the first part, m-00001-of-00002.gguf, to load the whole model" err.txt'
# a part whose name does not locate the others: refused rather than cut
expect_rc 1 "$EXPORT" --from-gguf renamed-part.gguf --out r.gguf
check 'grep -q "renamed-part.gguf: this file is one part of a model split into 2 files (split.count)" err.txt'
check '[ ! -e p2.gguf ] && [ ! -e r.gguf ]'
# OUT naming part 2 of the input: refused, part 2 unchanged
cp m-00002-of-00002.gguf p2.bak
expect_rc 2 "$EXPORT" --from-gguf m-00001-of-00002.gguf --out m-00002-of-00002.gguf
check 'grep -q "output m-00002-of-00002.gguf is one of the input files; refusing to overwrite it" err.txt'
check 'cmp -s p2.bak m-00002-of-00002.gguf'
# mio-inspect shows the whole model, or says which part a file is
expect_rc 0 "$INSPECT" m-00001-of-00002.gguf
check 'grep -qx "parts:         2 (split model; every part is read)" out.txt'
check 'grep -qx "tensor count:  3" out.txt'
expect_rc 1 "$INSPECT" m-00002-of-00002.gguf
check 'grep -q "open the first part, m-00001-of-00002.gguf" err.txt'
expect_rc 0 "$INSPECT" renamed-part.gguf
check 'grep -qx "parts:         this file only: part 1 of a model split into 2 files" out.txt'

# 2. destinations ----------------------------------------------------------------
ln -s /dev/null nullout.gguf            # what /dev/stdout is: a symlink to a device
expect_rc 1 "$EXPORT" --from-gguf sample.gguf --out nullout.gguf
check 'grep -q "refusing to write .nullout.gguf.: it exists and is a character device, not a regular file" err.txt'
check '[ -L nullout.gguf ] && [ -c /dev/null ]'
mkfifo out.fifo
expect_rc 1 timeout 20 "$EXPORT" --from-gguf sample.gguf --out out.fifo
check 'grep -q "it exists and is a FIFO (named pipe), not a regular file" err.txt'
check '[ -p out.fifo ]'
expect_rc 1 timeout 20 "$TRANSCODE" "$DATA/safetensors/golden/scalar.safetensors" out.fifo
check 'grep -q "a FIFO (named pipe), not a regular file" err.txt'
if [ "$(id -u)" -eq 0 ]; then
  mknod nulldev c 1 3
  expect_rc 1 "$EXPORT" --from-gguf sample.gguf --out nulldev
  check 'grep -q "is a character device" err.txt'
  check '[ -c nulldev ]'
  rm -f nulldev
else
  echo "note: not root; the mknod case is skipped"
fi
# '-' and /dev/stdout stream to standard output (file or pipe), no temp file, no rename
"$EXPORT" --from-gguf sample.gguf --out - > piped.gguf 2>err.txt
check 'cmp -s sample.gguf piped.gguf'
check 'grep -q "^mio-export-gguf: wrote standard output: 21 tensors (verbatim)" err.txt'
"$EXPORT" --from-gguf sample.gguf --out /dev/stdout 2>err.txt | cat > piped2.gguf
check 'cmp -s sample.gguf piped2.gguf'
check '[ ! -e ./- ]'
# the replaced file keeps its permission bits
cp sample.gguf private.gguf && chmod 600 private.gguf
expect_rc 0 "$EXPORT" --quiet --from-gguf m-00001-of-00002.gguf --out private.gguf
check '[ "$(stat -c %a private.gguf)" = 600 ] && cmp -s merged.gguf private.gguf'
# a 250-byte output name (no room for ".tmp-XXXXXX" within the 255-byte limit)
long=$(printf 'n%.0s' $(seq 1 245)).gguf
expect_rc 0 "$EXPORT" --quiet --from-gguf sample.gguf --out "$long"
check 'cmp -s sample.gguf "$long"'
rm -f "$long"
check 'no_tmp'

# 3. interrupted and size-limited writes leave nothing behind ---------------------
"$MK" . big || bad "mk_dtype_models big"
set -m   # background jobs get SIGINT (job control on) like a program run from a terminal
for sig in INT TERM; do
  # On a loaded machine the signal can arrive after the write finished (the
  # output renamed into place, the tool still exiting): that run says only
  # "interrupted" and keeps a complete file. Such a late run is repeated (at
  # most 3 times) so that the checks below see a signal in mid-write.
  for attempt in 1 2 3; do
    "$EXPORT" --from-gguf big.gguf --out big_q.gguf --dtype q4_k --threads 1 >/dev/null 2>sig_err.txt &
    pid=$!
    for _ in $(seq 1 1000); do ls big_q.gguf.tmp-* >/dev/null 2>&1 && break; sleep 0.01; done
    check 'ls big_q.gguf.tmp-* >/dev/null 2>&1'   # mid-write: the temp file exists
    kill -s $sig $pid
    wait $pid; rc=$?
    if [ -e big_q.gguf ] && no_tmp && grep -q "^mio-export-gguf: interrupted$" sig_err.txt; then
      echo "note: SIG$sig came after the write was complete (attempt $attempt); again" >&2
      rm -f big_q.gguf
      continue
    fi
    break
  done
  want=$([ $sig = INT ] && echo 130 || echo 143)
  check "[ $rc -eq $want ]" || echo "SIG$sig: exit $rc: $(cat sig_err.txt)" >&2
  check 'grep -q "^mio-export-gguf: interrupted; removed the unfinished output$" sig_err.txt'
  check '[ ! -e big_q.gguf ] && no_tmp'
done
set +m
rm -f big.gguf sig_err.txt
# a file-size limit (ulimit -f, in KiB): EFBIG instead of SIGXFSZ, clean exit 1
(ulimit -f 100; exec "$EXPORT" --from-gguf sample.gguf --out fsz.gguf) >out.txt 2>err.txt
check '[ $? -eq 1 ]'
check 'grep -q "File too large" err.txt'
(ulimit -f 100; exec "$TRANSCODE" merged.gguf fsz.safetensors) >/dev/null 2>&1   # (GGUF input: refused anyway)
check '[ ! -e fsz.gguf ] && no_tmp'

# 4. FIFO inputs fail at once (timeout would give 124) ---------------------------
mkfifo in.fifo
expect_rc 1 timeout 20 "$INSPECT" in.fifo
check 'grep -q "is not a regular file (it is a FIFO (named pipe))" err.txt'
expect_rc 1 timeout 20 "$EXPORT" --from-gguf in.fifo --out f.gguf
check 'grep -q "FIFO" err.txt'
expect_rc 1 timeout 20 "$TRANSCODE" in.fifo f.safetensors
check 'grep -q "FIFO" err.txt'
check '[ ! -e f.gguf ] && [ ! -e f.safetensors ]'

# 5. names from the file are escaped in every message ------------------------------
expect_rc 1 "$EXPORT" --from-gguf esc_nan.gguf --out e.gguf --dtype q8_0
check 'grep -qiF "tensor '"'"'\x1B]0;PWNED\x07x.weight'"'"': element 3 is NaN" err.txt'   # (library or tool escaping)
check '! grep -q "[$ESC$BEL]" err.txt'
expect_rc 0 "$EXPORT" --from-gguf esc_nan.gguf --out e.gguf --dtype q8_0 --dry-run
check 'grep -qF "  \x1B]0;PWNED\x07x.weight" out.txt'
check '! grep -q "[$ESC$BEL]" out.txt'
expect_rc 1 "$EXPORT" --from-gguf esc_quant.gguf --out e.gguf --dtype q8_0
check 'grep -qiF "tensor '"'"'\x1B[2Jq.weight'"'"' is q8_0" err.txt'
check '! grep -q "[$ESC$BEL]" err.txt'
# a library message quoting a name (a JSON-escaped ESC in a safetensors index)
mkdir -p escidx
printf '{"weight_map": {"\\u001b]0;PWNED\\u0007": "a/b.safetensors"}}' > escidx/model.safetensors.index.json
expect_rc 1 "$TRANSCODE" escidx/model.safetensors.index.json e.safetensors
check 'grep -qF "weight_map entry '"'"'\x1B]0;PWNED\x07'"'"' must name a shard file" err.txt'
check '! grep -q "[$ESC$BEL]" err.txt'
# singular counts in the summary
expect_rc 0 "$EXPORT" --from-gguf esc_quant.gguf --out one.gguf
check 'grep -q "wrote one.gguf: 1 tensor (verbatim), 2 keys;" err.txt'

# 6. re-emit of a file with a non-zero padding byte: said, not silent -------------
hs=$("$INSPECT" sample.gguf | sed -n 's/^header size: *\([0-9]*\) bytes$/\1/p')
check '[ "$hs" = 2800 ]'   # data starts at 2816: 16 padding bytes
cp sample.gguf padded.gguf
printf 'U' | dd of=padded.gguf bs=1 seek="$hs" conv=notrunc 2>/dev/null
expect_rc 0 "$EXPORT" --from-gguf padded.gguf --out padded_out.gguf
check 'grep -q "note: the input has a non-zero padding byte at offset 2800 (outside the header and tensor data); the output pads with zeros, so it is not byte-identical" err.txt'
check 'cmp -s sample.gguf padded_out.gguf'
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out plain_out.gguf
check '! grep -q "note:" err.txt'

# 7. --dry-run into a full device fails ---------------------------------------------
if [ -w /dev/full ]; then
  "$EXPORT" --from-gguf sample.gguf --dtype q8_0 --dry-run > /dev/full 2>err.txt
  check '[ $? -eq 1 ]'
  check 'grep -q "error writing the plan to standard output" err.txt'
fi

check 'no_tmp'
finish
