#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_quantize.sh — mio-quantize as a llama-quantize drop-in and mio-export-gguf
# --preset: positional syntax (IN TYPE, IN OUT TYPE, NTHREADS, the numeric type),
# the default output name, both tools giving the same bytes, the plan, the flags
# as llama-quantize parses them (lower-cased --tensor-type patterns, sorted
# --prune-layers — both done by the library — and --override-kv types, parsed
# by the library's mio_kv_override_parse), the imatrix in both formats and the
# keys it adds, and every refusal with its message and exit status (mio-quantize
# 1 like llama-quantize, mio-export-gguf 2 for usage) and no output left behind.
# Byte identity with llama.cpp itself is proven in tests/interop (interop_quant_policy).
# Usage: test_quantize.sh MIO_QUANTIZE MIO_EXPORT MIO_INSPECT MIO_MAKE_SAMPLE GEN_IMATRIX MK_DTYPE_MODELS
set -u
Q=$1 EXPORT=$2 INSPECT=$3 MKSAMPLE=$4 GENIM=$5 MK=$6
W=$PWD/tools_quantize_work
. "$(dirname "$0")/lib.sh"

"$MKSAMPLE" sample.gguf >/dev/null || bad "mio-make-sample"
meta() { "$INSPECT" --meta "$1" | grep -E "^  $2 " | sed -E 's/ +/ /g; s/^ //'; }
tensor() { "$INSPECT" --json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(t["type"] for t in d["tensors"] if t["name"]==sys.argv[1]))' "$2"; }

# 1. IN TYPE: the output is ggml-model-TYPE.gguf next to the input ------------------
mkdir -p m && cp sample.gguf m/
expect_rc 0 "$Q" m/sample.gguf q4_k_m
check '[ -f m/ggml-model-Q4_K_M.gguf ]'
check 'grep -q "wrote m/ggml-model-Q4_K_M.gguf: 21 tensors (16 converted to Q4_K_M, 5 kept), 22 keys;.* (807232 bytes), 4.84 bits/weight;" err.txt'
# IN OUT TYPE NTHREADS, the type by number: the same bytes whatever the thread count
expect_rc 0 "$Q" sample.gguf a.gguf Q4_K_M 1
expect_rc 0 "$Q" sample.gguf b.gguf 15 2
check 'cmp -s m/ggml-model-Q4_K_M.gguf a.gguf && cmp -s a.gguf b.gguf'
# mio-export-gguf --preset is the same quantizer
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out c.gguf --preset Q4_K_M --quiet
check 'cmp -s a.gguf c.gguf && [ ! -s err.txt ]'
# what llama_model_quantize writes: the input's keys, then quantization_version and file_type last
check '[ "$(meta a.gguf general.file_type)" = "general.file_type u32 15" ]'
check '[ "$(meta a.gguf general.quantization_version)" = "general.quantization_version u32 2" ]'
check '"$INSPECT" --meta a.gguf | grep -E "^  [a-z]" | tail -2 | head -1 | grep -q "general.quantization_version"'
# output.weight gets q6_K, attn_v/ffn_down of the last block q6_K (use_more_bits), others q4_K
check '[ "$(tensor a.gguf output.weight)" = q6_K ] && [ "$(tensor a.gguf blk.1.attn_v.weight)" = q6_K ]'
check '[ "$(tensor a.gguf blk.0.attn_v.weight)" = q4_K ] && [ "$(tensor a.gguf blk.0.attn_norm.weight)" = f32 ]'
rm -rf m b.gguf c.gguf

# 2. the plan (--dry-run): no file, per-tensor decisions with their reasons ------------
expect_rc 0 "$Q" --dry-run sample.gguf d.gguf Q4_K_M
check '[ ! -e d.gguf ]'
check 'grep -qx "plan for sample.gguf -> (dry run) (Q4_K_M): 16 of 21 tensors converted" out.txt'
check 'grep -Eqx "  output.weight +\[32, 256\]  f32 -> q6_K  32768 -> 6720 bytes  \(output tensor\)" out.txt'
check 'grep -Eqx "  blk.1.ffn_down.weight +\[256, 512\]  f16 -> q6_K  262144 -> 107520 bytes  \(ffn_down: use_more_bits\)" out.txt'
check 'grep -Eqx "  blk.0.attn_norm.weight +\[256\]  f32 -> f32  1024 -> 1024 bytes  \(kept: not quantized\)" out.txt'
check 'grep -qx "bytes: 2.55 MiB in, 785.56 KiB out (4.84 bits/weight); peak working set per tensor: 617.00 KiB" out.txt'
# llama.cpp's order: tensors outside blocks first, then by block, then by name
check '[ "$(grep -E "^  [a-z]" out.txt | head -3 | awk "{print \$1}" | tr "\n" " ")" = "output.weight output_norm.weight token_embd.weight " ]'

# 3. flags as llama-quantize parses them ----------------------------------------------
expect_rc 0 "$Q" --tensor-type 'ATTN_V=q8_0' --tensor-type 'blk\.0\.ffn_.*=Q5_0' --pure sample.gguf f.gguf Q4_K_S
check '[ "$(tensor f.gguf blk.1.attn_v.weight)" = q8_0 ] && [ "$(tensor f.gguf blk.0.ffn_up.weight)" = q5_0 ]'
check '[ "$(tensor f.gguf blk.1.ffn_up.weight)" = q4_K ] && [ "$(tensor f.gguf output.weight)" = q4_K ]'   # --pure
printf 'attn_v=q8_0\n  blk\\.0\\.ffn_.*=q5_0\n' > tt.txt
expect_rc 0 "$Q" --tensor-type-file tt.txt --pure sample.gguf g.gguf Q4_K_S
check 'cmp -s f.gguf g.gguf'
expect_rc 0 "$Q" --prune-layers 1,0,1 --override-kv 'x.n=int:-7' --override-kv 'x.s=str:hi' \
  --override-kv 'x.f=float:0.5' --override-kv 'x.b=bool:true' sample.gguf p.gguf Q8_0
check '[ "$(meta p.gguf llama.block_count)" = "llama.block_count u32 0" ]'
check '[ "$("$INSPECT" p.gguf | sed -n "s/^tensor count: *//p")" = 3 ]'   # only the 3 tensors outside blocks
check '[ "$(meta p.gguf x.n)" = "x.n u32 7" ] && [ "$(meta p.gguf x.s)" = "x.s string \"hi\"" ]'
check '[ "$(meta p.gguf x.f)" = "x.f f32 0.5" ] && [ "$(meta p.gguf x.b)" = "x.b bool true" ]'
check '"$INSPECT" --meta p.gguf | grep -E "^  [a-z]" | tail -1 | grep -q "llama.block_count"'   # set last
# the list as given: the library sorts and de-duplicates it (the same file as the sorted list)
expect_rc 0 "$Q" --prune-layers 0,1 --override-kv 'x.n=int:-7' --override-kv 'x.s=str:hi' \
  --override-kv 'x.f=float:0.5' --override-kv 'x.b=bool:true' sample.gguf p2.gguf Q8_0
check 'cmp -s p.gguf p2.gguf'
expect_rc 0 "$Q" --leave-output-tensor --output-tensor-type q8_0 --token-embedding-type q8_0 sample.gguf l.gguf Q4_K_M
check '[ "$(tensor l.gguf token_embd.weight)" = q8_0 ]'
rm -f f.gguf g.gguf p.gguf p2.gguf l.gguf tt.txt

# 4. importance matrices: both formats give the same file; the keys llama-quantize adds --
"$GENIM" sample.gguf im.dat --format dat >/dev/null && "$GENIM" sample.gguf im.gguf --format gguf >/dev/null
expect_rc 0 "$Q" --imatrix im.dat sample.gguf i1.gguf IQ2_XXS
expect_rc 0 "$Q" --imatrix im.gguf sample.gguf i2.gguf IQ2_XXS
check '[ "$(meta i1.gguf quantize.imatrix.file)" = "quantize.imatrix.file string \"im.dat\"" ]'
check '[ "$(meta i1.gguf quantize.imatrix.entries_count)" = "quantize.imatrix.entries_count u32 15" ]'
check '[ "$(meta i1.gguf quantize.imatrix.chunks_count)" = "quantize.imatrix.chunks_count u32 10" ]'
check '[ "$(tensor i1.gguf blk.0.attn_q.weight)" = iq2_xxs ]'
# the tensors are the same (the values are the same); only the file name key differs
check '[ "$("$INSPECT" --json i1.gguf | python3 -c "import json,sys; print(json.load(sys.stdin)[\"tensors\"])")" = "$("$INSPECT" --json i2.gguf | python3 -c "import json,sys; print(json.load(sys.stdin)[\"tensors\"])")" ]'
expect_rc 0 "$Q" --imatrix im.dat --exclude-weights attn_q sample.gguf i3.gguf Q4_K_M
check '[ "$(meta i3.gguf quantize.imatrix.entries_count)" = "quantize.imatrix.entries_count u32 13" ]'   # 2 attn_q dropped
rm -f i1.gguf i2.gguf i3.gguf

# 5. refusals: a clear message, exit 1 (mio-quantize) / 2 (usage, mio-export-gguf), no output
expect_rc 1 "$Q" sample.gguf x.gguf Q4_K_X
check 'grep -q "unknown quantization type .Q4_K_X.; did you mean .Q4_K_[MS].?" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out x.gguf --preset q4kmm
check 'grep -q "did you mean .Q4_K_M.?" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out x.gguf --preset q4_k_m --dtype q8_0
check 'grep -q "cannot be used together" err.txt'
expect_rc 1 "$Q" sample.gguf x.gguf
check 'grep -q "missing TYPE" err.txt'
expect_rc 1 "$Q" --help
check 'grep -q "^Allowed quantization types:" out.txt'
expect_rc 1 "$Q" sample.gguf x.gguf IQ2_XXS
check 'grep -q "this quantization requires an imatrix" err.txt'
head -c 100 im.dat > bad.dat
expect_rc 1 "$Q" --imatrix bad.dat sample.gguf x.gguf IQ2_XXS
check 'grep -q "imatrix .bad.dat.: entry 1 of 15 (.blk.0.attn_k.weight.): 256 values (1024 bytes) at offset 35 run past the end of the file" err.txt'
expect_rc 1 "$Q" --imatrix does_not_exist.dat sample.gguf x.gguf IQ2_XXS
# an imatrix made for another model: nothing in it fits these tensors
mkdir -p other && "$MK" other >/dev/null && "$GENIM" other/wide.gguf other.dat --format dat >/dev/null
expect_rc 1 "$Q" --imatrix other.dat sample.gguf x.gguf IQ2_XXS
check 'grep -q "missing importance matrix for tensor .blk.0.attn_k.weight. in a very low-bit quantization (iq2_xxs needs one; the imatrix has no usable entry for it)" err.txt'
rm -rf other other.dat
expect_rc 1 "$Q" --include-weights a --exclude-weights b sample.gguf x.gguf Q8_0
check 'grep -q "include_weights and exclude_weights cannot be used together" err.txt'
expect_rc 0 "$Q" --quiet sample.gguf q4.gguf Q4_0
expect_rc 1 "$Q" q4.gguf x.gguf Q8_0
check 'grep -q "tensor output.weight: requantizing from type q6_K is disabled" err.txt'   # Q4_0 gave output.weight q6_K
expect_rc 0 "$Q" --allow-requantize q4.gguf r.gguf Q8_0
# --keep-split: the output keeps the input's parts, named as llama-quantize names them (one part here)
expect_rc 0 "$Q" --keep-split sample.gguf k.gguf Q8_0
check '[ -f k-00001-of-00001.gguf ] && [ ! -e k.gguf ]'
check '! "$INSPECT" --meta k-00001-of-00001.gguf | grep -q "split\."'
# llama.cpp keeps the input's order with --keep-split (by part, then offset): token_embd first
check '[ "$("$INSPECT" --json k-00001-of-00001.gguf | python3 -c "import json,sys; print(json.load(sys.stdin)[\"tensors\"][0][\"name\"])")" = token_embd.weight ]'
rm -f k-00001-of-00001.gguf
expect_rc 1 "$Q" sample.gguf sample.gguf Q8_0
check 'grep -q "output sample.gguf is one of the input files" err.txt'
expect_rc 1 "$Q" --override-kv 'x=number:1' sample.gguf x.gguf Q8_0
check 'grep -q "override-kv x=number:1: key .x.: unknown type .number. (one of int float bool str)" err.txt'
expect_rc 1 "$Q" --override-kv 'x=int:abc' sample.gguf x.gguf Q8_0
check 'grep -q "override-kv x=int:abc: key .x.: .abc. is not a decimal integer (int)" err.txt'
expect_rc 1 "$Q" sample.gguf x.gguf Q8_0 two
check 'grep -q "invalid NTHREADS" err.txt'
expect_rc 1 "$Q" --bogus sample.gguf x.gguf Q8_0
check '[ ! -e x.gguf ]'

left=$(ls -A | grep -v -x -E 'sample.gguf|a.gguf|q4.gguf|r.gguf|im.dat|im.gguf|bad.dat|out.txt|err.txt' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2
finish
