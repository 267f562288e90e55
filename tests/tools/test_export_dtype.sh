#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_export_dtype.sh — CLI tests of mio-export-gguf --dtype: the --dry-run plan
# (converted vs kept, with the reason), the matrix-weight policy on mio-make-sample's
# model and on crafted files (1-D, norm, non-.weight and odd-row tensors kept),
# refused sources (quantized matrix; NaN/inf naming tensor and element), output
# identical for any --threads, general.file_type, the summary line, exit codes,
# and nothing left behind on failure.
# Usage: test_export_dtype.sh MIO_EXPORT MIO_INSPECT MIO_MAKE_SAMPLE MK_DTYPE_MODELS
set -u
EXPORT=$1 INSPECT=$2 MKSAMPLE=$3 MKMODELS=$4
W=$PWD/tools_export_dtype_work
. "$(dirname "$0")/lib.sh"
# tensor FILE NAME -> "TYPE OFFSET BYTES" as mio-inspect lists it
tensor() { "$INSPECT" "$1" --tensors | awk -v n="$2" '$1 == n { print $(NF-2), $(NF-1), $NF }'; }
# tensor_sum FILE NAME -> checksum of the tensor's bytes in the file
tensor_sum() {
  local off; off=$("$INSPECT" "$1" | awk '/^data offset:/ { print $3 }')
  local t; t=$(tensor "$1" "$2")
  if [ -z "$t" ] || [ -z "$off" ]; then echo "no tensor $2 in $1"; return; fi   # never equal across files
  set -- "$1" $t
  tail -c +$((off + $3 + 1)) "$1" | head -c "$4" | cksum
}
file_type() { "$INSPECT" "$1" --meta | awk '$1 == "general.file_type" { print $2, $3 }'; }
# only the listed files remain in the work directory (no temp files of failed writes)
only_files() {
  local left; left=$(ls -A | grep -v -x -E "$1|out.txt|err.txt" | tr '\n' ' ')
  if [ -z "$left" ]; then ok; else bad "left behind: $left"; fi
}

expect_rc 0 "$MKSAMPLE" sample.gguf
expect_rc 0 "$MKMODELS" .
FILES='sample.gguf|mixed.gguf|quant.gguf|nan.gguf|inf.gguf|nan_kept.gguf|wide.gguf'
only_files "$FILES"

# 1. sample model (rows of 256 and 512): q8_0 converts the 16 matrices -------
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_q8.gguf --dtype q8_0 --dry-run
check '[ ! -e s_q8.gguf ] && [ ! -s err.txt ]'
check 'grep -qx "plan for sample.gguf -> s_q8.gguf (--dtype q8_0): 16 of 21 tensors converted" out.txt'
check 'grep -Eqx "  blk.0.attn_q.weight +\[256, 256\]  f16 -> q8_0  131072 -> 69632 bytes" out.txt'
check 'grep -Eqx "  blk.1.ffn_down.weight +\[256, 512\]  f16 -> q8_0  262144 -> 139264 bytes" out.txt'
check 'grep -Eqx "  output.weight +\[32, 256\]  f32 -> q8_0  32768 -> 8704 bytes" out.txt'
check 'grep -Eqx "  blk.0.attn_norm.weight +\[256\]  f32 -> f32  1024 -> 1024 bytes  \(kept: 1-D\)" out.txt'
check '[ "$(grep -c "(kept: 1-D)" out.txt)" -eq 5 ] && [ "$(grep -c " -> q8_0 " out.txt)" -eq 16 ]'
check 'grep -qx "bytes: 2.55 MiB in, 1.35 MiB out (8.52 bits/weight); peak working set per tensor: 648.00 KiB" out.txt'

expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_q8.gguf --dtype q8_0
check '[ ! -s out.txt ]'
# summary: counts, keys, sizes (1415168 tensor bytes + 2816 header and padding);
# q8_0 is 34 bytes per 32 weights: attn_q 65536 weights -> 69632 bytes
check 'grep -Eq "^mio-export-gguf: wrote s_q8.gguf: 21 tensors \(16 converted to q8_0, 5 kept\), 22 keys; 2.55 MiB in, 1.35 MiB out \(1417984 bytes\), 8.52 bits/weight; [0-9]+\.[0-9]{3} s, [0-9]+\.[0-9] MB/s; peak RSS [0-9.]+ (B|KiB|MiB|GiB)$" err.txt'
check '[ "$(stat -c %s s_q8.gguf)" -eq 1417984 ]'
check '[ "$(file_type s_q8.gguf)" = "u32 7" ]'
check '[ "$(tensor s_q8.gguf blk.0.attn_q.weight)" = "q8_0 9728 69632" ]'
check '[ "$(tensor s_q8.gguf token_embd.weight)" = "q8_0 0 8704" ]'
check '[ "$(tensor s_q8.gguf blk.0.attn_norm.weight)" = "f32 8704 1024" ]'
# kept tensors are copied byte for byte
check '[ "$(tensor_sum s_q8.gguf blk.1.ffn_norm.weight)" = "$(tensor_sum sample.gguf blk.1.ffn_norm.weight)" ]'
check '[ "$(tensor_sum s_q8.gguf output_norm.weight)" = "$(tensor_sum sample.gguf output_norm.weight)" ]'
"$INSPECT" s_q8.gguf --meta | sed -n '/^metadata (/,$p' | grep -v general.file_type > meta_out.txt
"$INSPECT" sample.gguf --meta | sed -n '/^metadata (/,$p' | grep -v general.file_type > meta_in.txt
check '[ "$(wc -l < meta_in.txt)" -eq 22 ]'   # header line + 21 keys
check 'cmp -s meta_in.txt meta_out.txt'   # every other key passes through unchanged
rm -f meta_in.txt meta_out.txt
# the name is case-insensitive; any thread count gives the same bytes
for th in 0 2 3; do
  expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_q8_t$th.gguf --dtype Q8_0 --threads $th --quiet
  check 'cmp -s s_q8.gguf s_q8_t'$th'.gguf'
  check '[ ! -s err.txt ]'
  rm -f s_q8_t$th.gguf
done

# 2. sample model, q4_k (256-blocks, 144 bytes each): the rows are 256 or 512 wide,
#    so the headline command converts all 16 matrices (Q4_K_S is llama_ftype 14)
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_q4k.gguf --dtype q4_k --dry-run
check 'grep -qx "plan for sample.gguf -> s_q4k.gguf (--dtype q4_k): 16 of 21 tensors converted" out.txt'
check 'grep -Eqx "  blk.0.ffn_down.weight +\[256, 512\]  f16 -> q4_K  262144 -> 73728 bytes" out.txt'
check '[ "$(grep -c "(kept: row not a whole number of blocks)" out.txt)" -eq 0 ]'
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_q4k.gguf --dtype q4_k
# 751616 tensor bytes (token_embd/output 4608, attn 36864, ffn 73728, norms 1024) + 2816
check 'grep -q "wrote s_q4k.gguf: 21 tensors (16 converted to q4_K, 5 kept), 22 keys; .* (754432 bytes)" err.txt'
check '! grep -q "warning" err.txt'
check '[ "$(file_type s_q4k.gguf)" = "u32 14" ]'
check '[ "$(tensor s_q4k.gguf blk.0.attn_q.weight | cut -d" " -f1,3)" = "q4_K 36864" ]'

# 2b. --dtype that converts nothing (every row of mixed.gguf is under 256 wide): the
#     output is a copy, and a warning on stderr says so and why, even with --quiet
expect_rc 0 "$EXPORT" --from-gguf mixed.gguf --out m_q4k.gguf --dtype q4_k --quiet
check 'grep -qx "mio-export-gguf: warning: --dtype q4_K converted no tensor; the output holds the same tensors as the input; 5 matrix weights have a row length that is not a multiple of 256; 3 tensors are not a matrix weight (--dry-run shows the plan)" err.txt'
check 'cmp -s mixed.gguf m_q4k.gguf'
rm -f m_q4k.gguf

# 3. more targets on the sample: file_type codes and tensor types
# (attn_q is 65536 weights: q4_0 and iq4_nl 18 bytes per 32, q5_1 24, mxfp4 17, q4_1 20)
for spec in "f32 0 f32 262144" "f16 1 f16 131072" "bf16 32 bf16 131072" "q4_0 2 q4_0 36864" "q5_1 9 q5_1 49152" \
            "iq4_nl 25 iq4_nl 36864" "mxfp4 38 mxfp4 34816" "q4_1 3 q4_1 40960"; do
  set -- $spec
  expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out s_$1.gguf --dtype $1 --quiet
  check '[ "$(file_type s_'$1'.gguf)" = "u32 '$2'" ]'
  check '[ "$(tensor s_'$1'.gguf blk.0.attn_q.weight | cut -d" " -f1,3)" = "'"$3 $4"'" ]'
  check '[ "$(tensor s_'$1'.gguf blk.0.attn_norm.weight | cut -d" " -f1,3)" = "f32 1024" ]'
  rm -f s_$1.gguf
done

# 4. crafted model: one tensor per policy branch ------------------------------
expect_rc 0 "$EXPORT" --from-gguf mixed.gguf --dtype q8_0 --dry-run
check 'grep -qx "plan for mixed.gguf -> (dry run) (--dtype q8_0): 4 of 8 tensors converted" out.txt'
check 'grep -Eqx "  a.weight +\[4, 64\]  f32 -> q8_0  1024 -> 272 bytes" out.txt'
check 'grep -Eqx "  b.weight +\[2, 64\]  f16 -> q8_0  256 -> 136 bytes" out.txt'
check 'grep -Eqx "  c.weight +\[2, 64\]  bf16 -> q8_0  256 -> 136 bytes" out.txt'
check 'grep -Eqx "  vec.weight +\[64\]  f32 -> f32  256 -> 256 bytes  \(kept: 1-D\)" out.txt'
check 'grep -Eqx "  lin.bias +\[2, 64\]  f32 -> f32  512 -> 512 bytes  \(kept: not a .weight\)" out.txt'
check 'grep -Eqx "  q_norm.weight +\[2, 64\]  f32 -> f32  512 -> 512 bytes  \(kept: norm\)" out.txt'
check 'grep -Eqx "  odd.weight +\[2, 48\]  f32 -> f32  384 -> 384 bytes  \(kept: row not a whole number of blocks\)" out.txt'
check 'grep -Eqx "  d3.weight +\[3, 32\]  f16 -> q8_0  192 -> 102 bytes" out.txt'
expect_rc 0 "$EXPORT" --from-gguf mixed.gguf --out m_q8.gguf --dtype q8_0
check 'grep -q "wrote m_q8.gguf: 8 tensors (4 converted to q8_0, 4 kept), 2 keys;" err.txt'
for tn in "a.weight q8_0 272" "b.weight q8_0 136" "c.weight q8_0 136" "vec.weight f32 256" "lin.bias f32 512" \
          "q_norm.weight f32 512" "odd.weight f32 384" "d3.weight q8_0 102"; do
  set -- $tn
  check '[ "$(tensor m_q8.gguf '$1' | cut -d" " -f1,3)" = "'"$2 $3"'" ]'
done
check '[ "$(tensor_sum m_q8.gguf odd.weight)" = "$(tensor_sum mixed.gguf odd.weight)" ]'
check '[ "$(tensor_sum m_q8.gguf lin.bias)" = "$(tensor_sum mixed.gguf lin.bias)" ]'
# a cast target: every matrix converts, odd rows included (block size 1); c.weight is
# bf16 already and is copied as it is
expect_rc 0 "$EXPORT" --from-gguf mixed.gguf --out m_bf16.gguf --dtype bf16 --dry-run
check 'grep -q ": 4 of 8 tensors converted" out.txt'
check 'grep -Eqx "  c.weight +\[2, 64\]  bf16 -> bf16  256 -> 256 bytes  \(kept: already that type\)" out.txt'
check 'grep -Eqx "  odd.weight +\[2, 48\]  f32 -> bf16  384 -> 192 bytes" out.txt'
check '[ ! -e m_bf16.gguf ]'

# 5. thread count invariance on wide rows and odd row counts (97 and 33 rows)
for dt in q4_k q6_k q2_k q8_0 iq4_xs tq2_0 f16; do
  expect_rc 0 "$EXPORT" --from-gguf wide.gguf --out w1.gguf --dtype $dt --threads 1 --quiet
  want=$([ $dt = f16 ] && echo 1 || echo 2)   # big2.weight is f16 already
  check 'grep -q "'$want' of 3 tensors converted" <("$EXPORT" --from-gguf wide.gguf --dtype '$dt' --dry-run)'
  expect_rc 0 "$EXPORT" --from-gguf wide.gguf --out w3.gguf --dtype $dt --threads 3 --quiet
  check 'cmp -s w1.gguf w3.gguf'
  rm -f w1.gguf w3.gguf
done

# 6. refused sources: exit 1, the message names the tensor, nothing written ----
expect_rc 1 "$EXPORT" --from-gguf quant.gguf --out q_out.gguf --dtype q4_0
check 'grep -q "tensor '"'"'blk.0.attn_q.weight'"'"' is q8_0: only f32/f16/bf16 sources can be transcoded" err.txt'
check '[ ! -e q_out.gguf ]'
expect_rc 1 "$EXPORT" --from-gguf quant.gguf --dtype q4_0 --dry-run     # the plan fails the same way
check 'grep -q "blk.0.attn_q.weight" err.txt'
expect_rc 0 "$EXPORT" --from-gguf quant.gguf --out q_verb.gguf          # verbatim: no policy, no refusal
check 'cmp -s quant.gguf q_verb.gguf'
rm -f q_verb.gguf
expect_rc 1 "$EXPORT" --from-gguf nan.gguf --out n_out.gguf --dtype q4_0 --threads 2
check 'grep -qx "mio-export-gguf: nan.gguf: tensor '"'"'blk.3.ffn_up.weight'"'"': element 70 is NaN; refusing to convert non-finite weights" err.txt'
check '[ ! -e n_out.gguf ]'
expect_rc 1 "$EXPORT" --from-gguf inf.gguf --out i_out.gguf --dtype q4_0
check 'grep -q "tensor '"'"'output.weight'"'"': element 5 is infinite" err.txt'
expect_rc 1 "$EXPORT" --from-gguf inf.gguf --out i_out.gguf --dtype f32   # cast targets are checked too
check 'grep -q "tensor '"'"'output.weight'"'"': element 5 is infinite" err.txt'
check '[ ! -e i_out.gguf ]'
# non-finite values in tensors the policy keeps are copied, not judged
expect_rc 0 "$EXPORT" --from-gguf nan_kept.gguf --out nk.gguf --dtype q4_0
check 'grep -q "3 tensors (1 converted to q4_0, 2 kept)" err.txt'
check '[ "$(tensor_sum nk.gguf norm_nan.weight)" = "$(tensor_sum nan_kept.gguf norm_nan.weight)" ]'
check '[ "$(tensor nk.gguf w.weight | cut -d" " -f1,3)" = "q4_0 72" ]'
rm -f nk.gguf

# 7. targets that are not weight types, or not encodable: exit 2, nothing written
for dt in q9_9 q8_k q8_1 iq2_xxs iq2_xs iq1_s f64 i8 ""; do
  expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out u_out.gguf --dtype "$dt"
  check 'grep -q "dtype '"$dt"': not a target type; use verbatim, f32, f16, bf16 or one of: q4_0 " err.txt'
done
check '[ ! -e u_out.gguf ]'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out u_out.gguf --dtype iq2_xxs
check 'grep -q "importance matrix" err.txt'
check '! grep -q " iq2_xxs" <(head -1 err.txt | sed "s/.*one of://")'   # not offered as a target
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out u_out.gguf --dtype q8_0 --threads 257
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out u_out.gguf --dtype q8_0 --threads two
check '[ ! -e u_out.gguf ]'

only_files "$FILES|s_q8.gguf|s_q4k.gguf|m_q8.gguf"
finish
