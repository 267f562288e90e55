#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_export_ptqtp.sh — CLI tests of mio-export-gguf --ptqtp (issue 14): flag
# parsing and the exclusivity messages (exit 2, nothing written), the --dry-run
# plan lines, a real run producing the planes (names, types, sizes, the
# fucina.ptqtp.* keys, kept tensors byte-identical), the per-tensor diagnostic
# lines and the summary, --threads invariance, a split input, '-', the refusal
# of an already converted input, and escaping of names from the file.
# Usage: test_export_ptqtp.sh MIO_EXPORT MIO_INSPECT MIO_MAKE_SAMPLE MK_DTYPE_MODELS MIO_TRANSCODE
set -u
EXPORT=$1 INSPECT=$2 MKSAMPLE=$3 MKMODELS=$4 TRANSCODE=$5
W=$PWD/tools_export_ptqtp_work
. "$(dirname "$0")/lib.sh"
# tensor FILE NAME -> "TYPE OFFSET BYTES" as mio-inspect lists it
tensor() { "$INSPECT" "$1" --tensors | awk -v n="$2" '$1 == n { print $(NF-2), $(NF-1), $NF }'; }
tensor_sum() {
  local off; off=$("$INSPECT" "$1" | awk '/^data offset:/ { print $3 }')
  local t; t=$(tensor "$1" "$2")
  if [ -z "$t" ] || [ -z "$off" ]; then echo "no tensor $2 in $1"; return; fi
  set -- "$1" $t
  tail -c +$((off + $3 + 1)) "$1" | head -c "$4" | cksum
}
meta() { "$INSPECT" "$1" --meta | awk -v k="$2" '$1 == k { print $2, $3 }'; }
only_files() {
  local left; left=$(ls -A | grep -v -x -E "$1|out.txt|err.txt" | tr '\n' ' ')
  if [ -z "$left" ]; then ok; else bad "left behind: $left"; fi
}
ESC=$(printf '\033')

expect_rc 0 "$MKSAMPLE" sample.gguf
expect_rc 0 "$MKMODELS" . ptqtp
FILES='sample.gguf|ptqtp.gguf'

# 1. usage errors: exit 2, a message naming the problem, nothing written ---------
for spec in "--dtype q8_0|--ptqtp cannot be combined with --dtype: PTQTP is its own mode (convert in a separate pass)" \
            "--preset Q4_K_M|--ptqtp cannot be combined with --preset: PTQTP is its own mode" \
            "--experts-dtype q8_0|--ptqtp cannot be combined with --experts-dtype: PTQTP is its own mode" \
            "--adapters lora|--ptqtp cannot be combined with --adapters: PTQTP is its own mode" \
            "--pure|--ptqtp cannot be combined with --pure: PTQTP is its own mode"; do
  flags=${spec%%|*} msg=${spec#*|}
  expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp $flags
  check 'grep -qF "mio-export-gguf: '"$msg"'" err.txt'
done
# any --ptqtp-* flag selects the mode, and the message names the one given
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --dtype q8_0 --ptqtp-tie
check 'grep -qF "mio-export-gguf: --ptqtp-tie cannot be combined with --dtype" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp-include attn --preset Q8_0
check 'grep -qF "mio-export-gguf: --ptqtp-include cannot be combined with --preset" err.txt'
for k in 0 4 x 22 ""; do
  expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp=$k
  check 'grep -qxF "mio-export-gguf: --ptqtp takes 1, 2 or 3 planes, not '"'$k'"'" err.txt'
done
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp-planes 5
check 'grep -qF "takes 1, 2 or 3 planes, not '"'5'"'" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp=1 --ptqtp-tie
check 'grep -qxF "mio-export-gguf: --ptqtp-tie locks the plane scales to the ratio 3, so it needs at least 2 planes" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp --ptqtp-include
check 'grep -qxF "mio-export-gguf: option '"'--ptqtp-include'"' needs a value" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --ptqtp
check 'grep -qxF "mio-export-gguf: --out OUT is required" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp --threads -1
check 'grep -qF "threads takes a number from 0 to 256" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out sample.gguf --ptqtp
check 'grep -qF "is one of the input files; refusing to overwrite it" err.txt'
only_files "$FILES"

# 2. --dry-run: the plan on stdout, nothing written -------------------------------
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp --dry-run
check '[ ! -e o.gguf ] && [ ! -s err.txt ]'
check 'grep -qx "plan for sample.gguf -> o.gguf (--ptqtp=2): 14 of 21 tensors to 2 planes each" out.txt'
# attn_q: 256 x 256 f16 = 131072 bytes; a plane is 256 rows x 1 block x 66 = 16896 bytes
check 'grep -Eqx "  blk.0.attn_q.weight +\[256, 256\]  f16 -> 2 x tq2_0  131072 -> 33792 bytes" out.txt'
check 'grep -Eqx "  blk.1.ffn_down.weight +\[256, 512\]  f16 -> 2 x tq2_0  262144 -> 67584 bytes" out.txt'
check 'grep -Eqx "  token_embd.weight +\[32, 256\]  f16 -> f16  16384 -> 16384 bytes  \(kept: token embeddings\)" out.txt'
check 'grep -Eqx "  output.weight +\[32, 256\]  f32 -> f32  32768 -> 32768 bytes  \(kept: output head\)" out.txt'
check 'grep -Eqx "  blk.0.attn_norm.weight +\[256\]  f32 -> f32  1024 -> 1024 bytes  \(kept: 1-D\)" out.txt'
check '[ "$(grep -c " -> 2 x tq2_0 " out.txt)" -eq 14 ]'
# 14 matrices of 2.55 MiB total in: 8 x 33792 + 6 x 67584 + the kept 55296 bytes = 730112 bytes;
# working set: ffn (512 rows of 256 f32 = 512 KiB) + plane 0's chunk + plane 1 (33 KiB each)
check 'grep -qx "bytes: 2.55 MiB in, 713.00 KiB out (4.40 bits/weight); peak working set per tensor: 578.00 KiB" out.txt'
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --ptqtp=3 --ptqtp-tie --dry-run
check 'grep -qx "plan for sample.gguf -> (dry run) (--ptqtp=3 --ptqtp-tie): 14 of 21 tensors to 3 planes each" out.txt'
check 'grep -Eqx "  blk.0.attn_q.weight +\[256, 256\]  f16 -> 3 x tq2_0  131072 -> 50688 bytes" out.txt'
# include replaces the default names rule (repeatable, comma lists); exclude subtracts
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --ptqtp --dry-run --ptqtp-include token_embd,attn_q --ptqtp-include output. \
  --ptqtp-exclude blk.1.
# ("output." is also in attn_output.weight)
check 'grep -qx "plan for sample.gguf -> (dry run) (--ptqtp=2): 4 of 21 tensors to 2 planes each" out.txt'
check 'grep -Eqx "  blk.0.attn_output.weight +\[256, 256\]  f16 -> 2 x tq2_0  131072 -> 33792 bytes  \(included\)" out.txt'
check 'grep -Eqx "  token_embd.weight +\[32, 256\]  f16 -> 2 x tq2_0  16384 -> 4224 bytes  \(included\)" out.txt'
check 'grep -Eqx "  output.weight +\[32, 256\]  f32 -> 2 x tq2_0  32768 -> 4224 bytes  \(included\)" out.txt'
check 'grep -Eqx "  blk.0.attn_k.weight .*  \(kept: not included\)" out.txt'
check 'grep -Eqx "  blk.1.attn_q.weight .*  \(kept: excluded\)" out.txt'
check 'grep -Eqx "  output_norm.weight .*  \(kept: 1-D\)" out.txt'
# expert stacks, a quantized source, a row of 128, a name with an escape sequence
expect_rc 0 "$EXPORT" --from-gguf ptqtp.gguf --ptqtp --dry-run
check 'grep -qx "plan for ptqtp.gguf -> (dry run) (--ptqtp=2): 4 of 8 tensors to 2 planes each" out.txt'
check 'grep -Eqx "  blk.0.attn_q.weight +\[4, 256\]  q8_0 -> 2 x tq2_0  1088 -> 528 bytes" out.txt'
check 'grep -Eqx "  blk.0.ffn_up_exps.weight +\[3, 2, 256\]  f16 -> 2 x tq2_0  3072 -> 792 bytes  \(expert stack: 3 experts\)" out.txt'
check 'grep -Eqx "  blk.0.ffn_down_exps.weight +\[3, 2, 128\]  f16 -> f16  1536 -> 1536 bytes  \(kept: row not a multiple of 256\)" out.txt'
check 'grep -qF "  \x1B[2Jx.weight" out.txt'
check '! grep -q "$ESC" out.txt'
only_files "$FILES"

# 3. a real run: planes in place of the matrices, everything else verbatim -------
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out o.gguf --ptqtp --threads 1
check '[ ! -s out.txt ]'
check '[ "$(grep -c "^mio-export-gguf: blk\.[01]\..* -> 2 x tq2_0: rel err 0\.[0-9]\{4\}, [0-9.]* iterations/group, [0-9]* of [0-9]* groups unconverged$" err.txt)" -eq 14 ]'
check 'grep -Eq "^mio-export-gguf: blk.0.attn_q.weight \[256, 256\] f16 -> 2 x tq2_0: rel err 0\.[0-9]{4}, [0-9.]+ iterations/group, [0-9]+ of 256 groups unconverged$" err.txt'
# 21 tensors -> 7 kept + 28 planes; 22 keys + the stamp; 730112 tensor bytes + header and padding
check 'grep -Eq "^mio-export-gguf: wrote o.gguf: 21 tensors \(14 to 2 PTQTP planes each, 7 kept\), 28 plane tensors, 23 keys; 2.55 MiB in, 713.00 KiB out \(734016 bytes\), 4.40 bits/weight; rel err 0\.[0-9]{4} over the converted weights; [0-9]+\.[0-9]{3} s, [0-9.]+ MB/s; peak RSS [0-9.]+ (B|KiB|MiB|GiB)$" err.txt'
check '[ "$(stat -c %s o.gguf)" -eq 734016 ]'
check '[ "$(meta o.gguf fucina.ptqtp.version)" = "u32 1" ]'
check '[ -z "$(meta o.gguf fucina.ptqtp.tie_scales)" ]'
check '[ "$(tensor o.gguf blk.0.attn_q.weight.ptqtp0 | cut -d" " -f1,3)" = "tq2_0 16896" ]'
check '[ "$(tensor o.gguf blk.0.attn_q.weight.ptqtp1 | cut -d" " -f1,3)" = "tq2_0 16896" ]'
check '[ -z "$(tensor o.gguf blk.0.attn_q.weight)" ] && [ -z "$(tensor o.gguf blk.0.attn_q.weight.ptqtp2)" ]'
check '[ "$(tensor o.gguf blk.1.ffn_down.weight.ptqtp1 | cut -d" " -f1,3)" = "tq2_0 33792" ]'
# in place: token_embd, blk.0.attn_norm, then attn_q's planes, then attn_k's
first5=$("$INSPECT" o.gguf --tensors | grep -oE "^  [^ ]+\.(weight|ptqtp[0-9])" | head -5 | xargs)
check '[ "$first5" = "token_embd.weight blk.0.attn_norm.weight blk.0.attn_q.weight.ptqtp0 blk.0.attn_q.weight.ptqtp1 blk.0.attn_k.weight.ptqtp0" ]'
for t in token_embd.weight output.weight blk.1.ffn_norm.weight output_norm.weight; do
  check '[ "$(tensor_sum o.gguf '$t')" = "$(tensor_sum sample.gguf '$t')" ]'
done
"$INSPECT" o.gguf --meta | sed -n '/^metadata (/,$p' | grep -v -e fucina.ptqtp.version -e '^metadata (' > meta_out.txt
"$INSPECT" sample.gguf --meta | sed -n '/^metadata (/,$p' | grep -v '^metadata (' > meta_in.txt
check '[ "$(wc -l < meta_in.txt)" -eq 22 ] && cmp -s meta_in.txt meta_out.txt'
rm -f meta_in.txt meta_out.txt
# any thread count, '-' and a split input give the same bytes; --quiet prints nothing
for th in 0 2; do
  expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out o_t$th.gguf --ptqtp --threads $th --quiet
  check 'cmp -s o.gguf o_t'$th'.gguf && [ ! -s err.txt ]'
  rm -f o_t$th.gguf
done
"$EXPORT" --from-gguf sample.gguf --out - --ptqtp --quiet > o_stdout.gguf 2>err.txt
check 'cmp -s o.gguf o_stdout.gguf'
expect_rc 0 "$TRANSCODE" --quiet --split-max-tensors 8 sample.gguf sp
expect_rc 0 "$EXPORT" --from-gguf sp-00001-of-00003.gguf --out o_split.gguf --ptqtp
check 'cmp -s o.gguf o_split.gguf'
check 'grep -q "23 keys (from 3 split parts, split.\* keys dropped)" err.txt'
rm -f o_stdout.gguf o_split.gguf sp-0000*
# the output is refused as an input (exit 2, nothing written)
expect_rc 2 "$EXPORT" --from-gguf o.gguf --out again.gguf --ptqtp
check 'grep -qxF "mio-export-gguf: o.gguf: already a PTQTP model (it has the key fucina.ptqtp.version); convert the original weights instead" err.txt'
check '[ ! -e again.gguf ]'

# 4. K = 3 tied, K = 1 --------------------------------------------------------
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out o3.gguf --ptqtp-planes 3 --ptqtp-tie --quiet
check '[ "$(meta o3.gguf fucina.ptqtp.version)" = "u32 1" ] && [ "$(meta o3.gguf fucina.ptqtp.tie_scales)" = "u32 1" ]'
check '[ "$("$INSPECT" o3.gguf --tensors | grep -c "\.ptqtp[012] ")" -eq 42 ]'
check '[ "$(tensor o3.gguf blk.1.attn_v.weight.ptqtp2 | cut -d" " -f1,3)" = "tq2_0 16896" ]'
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out o1.gguf --ptqtp=1 --quiet
check '[ "$("$INSPECT" o1.gguf --tensors | grep -c "\.ptqtp0 ")" -eq 14 ] && [ "$("$INSPECT" o1.gguf --tensors | grep -c "\.ptqtp1 ")" -eq 0 ]'
rm -f o3.gguf o1.gguf

# 5. expert stacks, a quantized source, a NaN, an escaped name ---------------------
expect_rc 0 "$EXPORT" --from-gguf ptqtp.gguf --out p.gguf --ptqtp
check 'grep -Eq "^mio-export-gguf: blk.0.ffn_up_exps.weight \[3, 2, 256\] f16 -> 2 x tq2_0: rel err 0\.[0-9]{4} \(3 experts: mean 0\.[0-9]{4}, max 0\.[0-9]{4}\), [0-9.]+ iterations/group, [0-9]+ of 6 groups unconverged$" err.txt'
check 'grep -Eq "^mio-export-gguf: blk.0.attn_q.weight \[4, 256\] q8_0 -> 2 x tq2_0: rel err 0\.[0-9]{4}" err.txt'
check 'grep -Eq "^mio-export-gguf: blk.0.attn_v.weight \[2, 512\] f32 -> 2 x tq2_0: .*, 1 non-finite weight \(trit 0\)$" err.txt'
check 'grep -qF "mio-export-gguf: \x1B[2Jx.weight [1, 256] f32 -> 2 x tq2_0: rel err" err.txt'
check '! grep -q "$ESC" err.txt'
check '[ "$(tensor p.gguf blk.0.ffn_up_exps.weight.ptqtp1 | cut -d" " -f1,3)" = "tq2_0 396" ]'
check '[ "$(tensor_sum p.gguf blk.0.ffn_down_exps.weight)" = "$(tensor_sum ptqtp.gguf blk.0.ffn_down_exps.weight)" ]'
check '"$INSPECT" p.gguf --tensors | grep -Eq "^  blk.0.ffn_up_exps.weight.ptqtp1 +\[3, 2, 256\] +tq2_0 "'
rm -f p.gguf

# 6. nothing eligible: a copy, no stamp, a warning even with --quiet ------------------
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out none.gguf --ptqtp --ptqtp-include no_such_name --quiet
check 'grep -qxF "mio-export-gguf: warning: --ptqtp converted no tensor; the output holds the same tensors as the input and no fucina.ptqtp.version key (--dry-run shows the plan)" err.txt'
check 'cmp -s sample.gguf none.gguf'
rm -f none.gguf o.gguf
only_files "$FILES"
finish
