#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_convert.sh — CLI tests of mio-transcode between GGUF and safetensors:
# round trips byte-identical (real vocabulary GGUFs, mio-make-sample's llama
# model, generated models of several types, upstream goldens), sharded output
# and input, --dequantize/--dtype, --name-map, --merge, --to and '-', and bad
# input for each option: a message, exit 1 (2 for usage), nothing written.
# Usage: test_convert.sh MIO_TRANSCODE MIO_INSPECT MIO_MAKE_SAMPLE MK_DTYPE_MODELS TEST_DATA_DIR [CORPUS_DIR]
# CORPUS_DIR (optional: the project's shared corpus of real GGUFs, when present)
# adds every file there to the round trips.
set -u
TRANSCODE=$1 INSPECT=$2 SAMPLE=$3 MKMODELS=$4 DATA=$5 CORPUS=${6:-}
W=$PWD/tools_convert_work
. "$(dirname "$0")/lib.sh"

# json FILE EXPR: evaluate a Python expression over mio-inspect --json FILE (as j)
json() { "$INSPECT" "$1" --json | python3 -c "import json,sys; j=json.load(sys.stdin); print($2)"; }

# 1. GGUF -> safetensors -> GGUF is byte-identical when nothing is decoded
mkdir models && "$MKMODELS" models >/dev/null 2>&1
expect_rc 0 "$SAMPLE" sample.gguf
n=0
for g in "$DATA"/vocab-*.gguf sample.gguf models/mixed.gguf models/wide.gguf models/nan_kept.gguf; do
  b=$(basename "$g" .gguf)
  expect_rc 0 "$TRANSCODE" "$g" "rt_$b.safetensors"
  check "grep -q '^mio-transcode: wrote rt_$b.safetensors (safetensors) in ' err.txt"
  expect_rc 0 "$TRANSCODE" "rt_$b.safetensors" "rt_$b.gguf"
  check "cmp -s '$g' 'rt_$b.gguf'"
  n=$((n + 1))
done
check '[ "$n" -eq 6 ]'
if [ -n "$CORPUS" ] && ls "$CORPUS"/*.gguf >/dev/null 2>&1; then
  for g in "$CORPUS"/*.gguf; do
    b=$(basename "$g" .gguf)
    expect_rc 0 "$TRANSCODE" "$g" "rt_c_$b.safetensors"
    expect_rc 0 "$TRANSCODE" "rt_c_$b.safetensors" "rt_c_$b.gguf"
    check "cmp -s '$g' 'rt_c_$b.gguf'"
  done
else
  echo "SKIP: the shared GGUF corpus (${CORPUS:-not given}) is absent; only tests/data is round-tripped"
fi
# the safetensors side: GGUF dims reversed (token_embd.weight ne [256, 32]: 256-wide rows, 32 tokens -> shape [32, 256])
check '[ "$(json rt_sample.safetensors "[t[\"shape\"] for t in j[\"tensors\"] if t[\"name\"]==\"token_embd.weight\"][0]")" = "[32, 256]" ]'
check '[ "$(json rt_sample.safetensors "j[\"kv\"][\"general.architecture\"] if \"kv\" in j else [m[\"value\"] for m in j[\"metadata\"] if m[\"key\"]==\"general.architecture\"][0]")" = llama ]'

# the tensor hashes do not depend on the container: the GGUF's manifest checks its conversion
"$INSPECT" --hash sha256 sample.gguf > rt_sample.sha256 2>err.txt
expect_rc 0 "$INSPECT" --check rt_sample.sha256 rt_sample.safetensors
check 'grep -q "OK: 21 tensors and the whole-model sha256 match" out.txt err.txt'
expect_rc 0 "$INSPECT" --diff sample.gguf rt_sample.safetensors

# 2. safetensors -> GGUF -> safetensors is byte-identical for every golden GGUF can hold
for g in "$DATA"/safetensors/golden/*.safetensors; do
  b=$(basename "$g" .safetensors)
  [ "$b" = all_dtypes ] && continue
  expect_rc 0 "$TRANSCODE" "$g" "g_$b.gguf"
  expect_rc 0 "$TRANSCODE" "g_$b.gguf" "g_$b.safetensors"
  check "cmp -s '$g' 'g_$b.safetensors'"
done
# a dtype GGUF lacks: refused naming the tensor and the dtype, nothing written
expect_rc 1 "$TRANSCODE" "$DATA/safetensors/golden/all_dtypes.safetensors" ad.gguf
check 'grep -Eq "tensor .t_[a-z0-9_]+. is (BOOL|U8|U16|U32|U64|F8_[A-Z0-9]+|F4|F6_[A-Z0-9]+|C64): GGUF has no such type" err.txt'
check '[ ! -e ad.gguf ]'

# 3. quantized tensors: refused without --dequantize; decoded with it
expect_rc 1 "$TRANSCODE" models/quant.gguf q.safetensors
check 'grep -q "is q8_0: safetensors has no block-quantized dtypes" err.txt'
check '[ ! -e q.safetensors ]'
expect_rc 0 "$TRANSCODE" --dequantize models/quant.gguf q.safetensors
check '[ "$(json q.safetensors "\" \".join(sorted(set(t[\"dtype\"] for t in j[\"tensors\"])))")" = F32 ]'
expect_rc 0 "$TRANSCODE" --dequantize --dtype bf16 models/quant.gguf qb.safetensors
check '[ "$(json qb.safetensors "\" \".join(sorted(set(t[\"dtype\"] for t in j[\"tensors\"])))")" = BF16 ]'
# --dtype f16 for safetensors -> GGUF casts floats
expect_rc 0 "$TRANSCODE" --dtype f16 "$DATA/safetensors/golden/three_dtypes.safetensors" h.gguf
expect_rc 2 "$TRANSCODE" --dtype q4_k "$DATA/safetensors/golden/three_dtypes.safetensors" h2.gguf
check 'grep -q "^mio-transcode: --dtype: .q4_k. is not f32, f16 or bf16" err.txt'
check '[ ! -e h2.gguf ]'

# 4. sharded output and input
expect_rc 0 "$TRANSCODE" --max-shard-size 20KB sample.gguf shards/
nsh=$(ls shards | grep -c '^model-000[0-9][0-9]-of-000[0-9][0-9]\.safetensors$')
check '[ "$nsh" -ge 2 ]'
check '[ -f shards/model.safetensors.index.json ]'
expect_rc 0 "$TRANSCODE" shards/model.safetensors.index.json sharded.gguf
check 'cmp -s sample.gguf sharded.gguf'
# the same checkpoint through DIR/model.safetensors.index.json as OUT
expect_rc 0 "$TRANSCODE" --max-shard-size 20KB sample.gguf shards2/model.safetensors.index.json
check 'cmp -s shards/model.safetensors.index.json shards2/model.safetensors.index.json'
# safetensors -> sharded safetensors and back to one file
expect_rc 0 "$TRANSCODE" --max-shard-size 1 "$DATA/safetensors/golden/three_dtypes.safetensors" st_shards/
check "[ \"\$(ls st_shards | grep -c of-00003)\" = 3 ]"
expect_rc 0 "$TRANSCODE" st_shards/model.safetensors.index.json st_one.safetensors
check 'cmp -s "$DATA/safetensors/golden/three_dtypes.safetensors" st_one.safetensors'
expect_rc 2 "$TRANSCODE" --max-shard-size 5XB sample.gguf bad_shards/
check 'grep -q "max-shard-size: bad value .5XB." err.txt'
check '[ ! -e bad_shards ]'
expect_rc 2 "$TRANSCODE" sample.gguf --to gguf shards3/
check 'grep -q "GGUF output is one file" err.txt'

# 5. --name-map: two columns; bad maps are refused before anything is written
printf '# old new\ntoken_embd.weight  tok.embed\n\noutput_norm.weight\tnorm.final\n' > map.txt
expect_rc 0 "$TRANSCODE" --name-map map.txt sample.gguf renamed.safetensors
check '[ "$(json renamed.safetensors "\" \".join(sorted(t[\"name\"] for t in j[\"tensors\"] if not t[\"name\"].startswith(\"blk.\")))")" = "norm.final output.weight tok.embed" ]'
printf 'a x\nb x\n' > dup.txt
expect_rc 1 "$TRANSCODE" --name-map dup.txt sample.gguf dup.safetensors
check 'grep -q "^mio-transcode: --name-map dup.txt:2: x appears twice in the second column" err.txt'
printf 'a x\nonly-one\n' > short.txt
expect_rc 1 "$TRANSCODE" --name-map short.txt sample.gguf short.safetensors
check 'grep -q "^mio-transcode: --name-map short.txt:2: expected two names, OLD NEW" err.txt'
printf 'no.such.tensor x\n' > miss.txt
expect_rc 1 "$TRANSCODE" --name-map miss.txt sample.gguf miss.safetensors
check 'grep -q "the model has no tensor named .no.such.tensor." err.txt'
check '[ ! -e dup.safetensors ] && [ ! -e short.safetensors ] && [ ! -e miss.safetensors ]'
expect_rc 2 "$TRANSCODE" --name-map map.txt sample.gguf copy.gguf
check 'grep -q "GGUF -> GGUF copies tensors verbatim" err.txt'

# metadata edits travel with a conversion: into __metadata__, and back into GGUF
expect_rc 0 "$TRANSCODE" --set general.name=str:Edited --remove general.file_type sample.gguf ed.safetensors
check '[ "$(json ed.safetensors "[m[\"value\"] for m in j[\"metadata\"] if m[\"key\"]==\"general.name\"][0]")" = Edited ]'
check '[ "$(json ed.safetensors "len([m for m in j[\"metadata\"] if m[\"key\"]==\"general.file_type\"])")" = 0 ]'
expect_rc 0 "$TRANSCODE" --set general.quantized_by=str:mio ed.safetensors ed.gguf
check '[ "$(json ed.gguf "j[\"kv\"][\"general.quantized_by\"]")" = mio ]'
check '[ "$(json ed.gguf "j[\"kv\"][\"general.name\"]")" = Edited ]'
expect_rc 2 "$TRANSCODE" --set general.name=u8:300 sample.gguf bad_ed.safetensors
check '[ ! -e bad_ed.safetensors ]'

# 6. --to and standard output: the same bytes as a path write
"$TRANSCODE" --to safetensors sample.gguf - > piped.safetensors 2>err.txt
check 'cmp -s piped.safetensors rt_sample.safetensors'
"$TRANSCODE" --to gguf rt_sample.safetensors - > piped.gguf 2>err.txt
check 'cmp -s piped.gguf sample.gguf'
# GGUF -> GGUF to standard output (a file named '-' was written before this was fixed)
"$TRANSCODE" sample.gguf - > piped_copy.gguf 2>err.txt
check 'cmp -s piped_copy.gguf sample.gguf'
check '[ ! -e ./- ]'
# OUT with another extension keeps the input's format
expect_rc 0 "$TRANSCODE" sample.gguf same.bin
check 'cmp -s sample.gguf same.bin'
expect_rc 2 "$TRANSCODE" --to onnx sample.gguf x.onnx
check 'grep -q "^mio-transcode: --to needs gguf or safetensors" err.txt'

# 7. --merge: the parts of a split back into one file
expect_rc 0 "$TRANSCODE" --split-max-tensors 8 sample.gguf parts
expect_rc 0 "$TRANSCODE" --merge parts-00001-of-00003.gguf merged.gguf
check 'cmp -s sample.gguf merged.gguf'
expect_rc 2 "$TRANSCODE" --merge parts-00002-of-00003.gguf merged2.gguf
check 'grep -q "is not the first part of a split" err.txt'
expect_rc 2 "$TRANSCODE" --merge sample.gguf merged3.safetensors
check 'grep -q "^mio-transcode: --merge joins the parts of a split GGUF" err.txt'
# a later part given as the input: the first part is named
expect_rc 1 "$TRANSCODE" parts-00002-of-00003.gguf later.safetensors
check 'grep -q "open the first part, parts-00001-of-00003.gguf" err.txt'
# a missing part: refused, nothing written
mv parts-00003-of-00003.gguf away.gguf
expect_rc 1 "$TRANSCODE" parts-00001-of-00003.gguf missing.safetensors
check '[ ! -e missing.safetensors ]'
mv away.gguf parts-00003-of-00003.gguf
# a lone part of a split under another name is refused, not converted in part
mkdir defects && "$MKMODELS" defects defects >/dev/null 2>&1
expect_rc 1 "$TRANSCODE" defects/renamed-part.gguf lone.safetensors
check 'grep -q "renamed-part.gguf: this file is one part of a model split into 2 files (split.count)" err.txt'
check '[ ! -e lone.safetensors ]'
# a split input converts whole (split.* dropped): the same file as from the unsplit model
expect_rc 0 "$TRANSCODE" parts-00001-of-00003.gguf from_parts.safetensors
check 'cmp -s from_parts.safetensors rt_sample.safetensors'

# nothing but what the script made (no temp files from failed writes)
left=$(ls -A | grep -v -x -E 'models|defects|sample\.gguf|rt_.*|g_.*|q\.safetensors|qb\.safetensors|h\.gguf|shards|shards2|st_shards|st_one\.safetensors|map\.txt|dup\.txt|short\.txt|miss\.txt|renamed\.safetensors|ed\.safetensors|ed\.gguf|piped\..*|piped_copy\.gguf|same\.bin|parts-0000[123]-of-00003\.gguf|merged\.gguf|sharded\.gguf|from_parts\.safetensors|out\.txt|err\.txt' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2
check '[ -z "$(find . -name "*.tmp*")" ]'

finish
