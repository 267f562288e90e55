#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_interrupts.sh — SIGINT/SIGTERM at random points of a write, for every
# tool and every output kind (issue 13, docs/SECURITY.md "Interrupts"):
#   export (mio-export-gguf --dtype and --ptqtp), quantize (mio-quantize), GGUF -> safetensors,
#   GGUF -> sharded safetensors, split GGUF parts, merge of a split, an edited
#   GGUF copy, and an in-place header edit.
# Each job first runs uninterrupted (the reference output, and its duration D);
# then, for each signal, ROUNDS runs are killed after a random delay in
# [0, 1.2 D]. The destination exists beforehand with known bytes. After each
# run: exit 130 (INT) / 143 (TERM) and the destination holds exactly the old
# bytes, or exactly the reference output (the signal came during the final
# renames, which hold it until the last one: all new files or none) — or exit 0
# (the signal came too late) and it holds exactly the reference output; never
# anything else (no mix of old and new files), and no temporary file anywhere.
# Usage: test_interrupts.sh MIO_EXPORT MIO_QUANTIZE MIO_TRANSCODE MK_DTYPE_MODELS [ROUNDS]
set -u
EXPORT=$1 QUANTIZE=$2 TRANSCODE=$3 MK=$4 ROUNDS=${5:-4}
W=$PWD/tools_interrupts_work
. "$(dirname "$0")/lib.sh"

"$MK" . big || bad "mk_dtype_models big"
[ -f big.gguf ] || { finish; exit 1; }
"$TRANSCODE" --quiet --split-max-size 40M big.gguf parts >/dev/null 2>&1 || bad "split for the merge job"
first_part=$(ls parts-00001-of-*.gguf 2>/dev/null | head -1)
# the in-place job's file: a 64-byte test.pad string that the edit shortens
"$TRANSCODE" --quiet --set test.pad=str:$(printf 'p%.0s' $(seq 1 64)) big.gguf padded.gguf || bad "padded copy"
RANDOM=4242 # reproducible delays

no_tmp() { [ -z "$(find . -name '*.tmp-*' -o -name '*.mio-*' | head -1)" ]; }
# the destination's state as one line: a digest of every file under it, by name
state() {
  local d=$1
  if [ -d "$d" ]; then (cd "$d" && find . -type f | sort | xargs -r sha256sum) | sha256sum | cut -c1-16
  elif [ -e "$d" ]; then sha256sum < "$d" | cut -c1-16
  else echo absent; fi
}
# old contents of each destination kind
make_old() {
  local kind=$1 d=$2
  rm -rf "$d" parts2-*
  case $kind in
    file) printf 'OLD CONTENTS\n' > "$d" ;;
    dir) mkdir -p "$d" && printf '{"weight_map": {}}\n' > "$d/model.safetensors.index.json" ;;
    split) : ;; # the split's parts do not exist before: the prefix must stay clean
    inplace) cp padded.gguf "$d" ;;
  esac
}

# job NAME KIND DEST CMD...: DEST is what the job writes (file, dir, or a split prefix)
job() {
  local name=$1 kind=$2 dest=$3; shift 3
  local ref t0 t1 dur
  make_old "$kind" "$dest"
  if ! "$@" >/dev/null 2>ref_err.txt; then bad "$name: reference run failed: $(cat ref_err.txt)"; return; fi
  make_old "$kind" "$dest" # again, timed: the first run paid for a cold cache
  t0=$(date +%s%N)
  "$@" >/dev/null 2>ref_err.txt
  t1=$(date +%s%N)
  dur=$(( (t1 - t0) / 1000000 )) # ms
  if [ "$kind" = split ]; then ref=$(state_split "$dest"); else ref=$(state "$dest"); fi
  local runs=0 interrupted=0 late=0
  for sig in INT TERM; do
    for _ in $(seq 1 "$ROUNDS"); do
      make_old "$kind" "$dest"
      local old
      if [ "$kind" = split ]; then old=$(state_split "$dest"); else old=$(state "$dest"); fi
      local delay_ms=$(( RANDOM % (dur * 6 / 5 + 1) ))
      set -m
      "$@" >/dev/null 2>sig_err.txt &
      local pid=$!
      sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
      kill -s "$sig" "$pid" 2>/dev/null
      wait "$pid"
      local rc=$?
      set +m
      local now
      if [ "$kind" = split ]; then now=$(state_split "$dest"); else now=$(state "$dest"); fi
      local want=$([ "$sig" = INT ] && echo 130 || echo 143)
      runs=$((runs + 1))
      if [ "$rc" -eq "$want" ]; then
        interrupted=$((interrupted + 1))
        [ "$now" = "$ref" ] && late=$((late + 1))
        [ "$now" = "$old" ] || [ "$now" = "$ref" ] && ok ||
          bad "$name SIG$sig after ${delay_ms} ms: the destination is neither the old nor the new output ($old / $ref -> $now)"
      elif [ "$rc" -eq 0 ]; then
        [ "$now" = "$ref" ] && ok || bad "$name SIG$sig after ${delay_ms} ms: exit 0 but not the reference output"
      else
        bad "$name SIG$sig after ${delay_ms} ms: exit $rc: $(head -c 300 sig_err.txt)"
      fi
      no_tmp && ok || bad "$name SIG$sig after ${delay_ms} ms: temp files left: $(find . -name '*.tmp-*' -o -name '*.mio-*')"
    done
  done
  echo "$name: reference ${dur} ms; $interrupted of $runs runs interrupted ($late of them during the final renames), the others finished first"
}
state_split() { cat $(ls "$1"-*-of-*.gguf 2>/dev/null) /dev/null | sha256sum | cut -c1-16; }

job export file out_q.gguf "$EXPORT" --from-gguf big.gguf --out out_q.gguf --dtype q4_k --threads 1 --quiet
# PTQTP on two of the 48 matrices (the solve is slow; the other 46 stream through)
job ptqtp file out_p.gguf "$EXPORT" --from-gguf big.gguf --out out_p.gguf --ptqtp --ptqtp-include blk.0.,blk.1. --threads 1 --quiet
job quantize file out_q8.gguf "$QUANTIZE" --quiet big.gguf out_q8.gguf q8_0 1
job to_safetensors file out.safetensors "$TRANSCODE" --quiet big.gguf out.safetensors
job to_sharded dir out_sharded "$TRANSCODE" --quiet --max-shard-size 40MB big.gguf out_sharded/
job split split parts2 "$TRANSCODE" --quiet --split-max-size 40M big.gguf parts2
[ -n "$first_part" ] && job merge file merged.gguf "$TRANSCODE" --quiet --merge "$first_part" merged.gguf
job edit_copy file edited.gguf "$TRANSCODE" --quiet --set test.key=str:value --general-name renamed big.gguf edited.gguf
# 50 of the 64 bytes: the header stays in its alignment window (an in-place edit cannot move data)
job in_place inplace inplace.gguf "$TRANSCODE" --quiet --in-place --set test.pad=str:$(printf 'q%.0s' $(seq 1 50)) inplace.gguf

rm -f big.gguf padded.gguf parts-* parts2-*
finish
