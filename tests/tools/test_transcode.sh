#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_transcode.sh — CLI tests of mio-transcode: every upstream golden re-emits
# byte-identically, hand-made accepted cases reach a canonical fixed point, a
# sharded checkpoint merges into one file, exit codes, no output on failure.
# Usage: test_transcode.sh MIO_TRANSCODE MIO_INSPECT TEST_DATA_DIR
set -u
TRANSCODE=$1 INSPECT=$2 DATA=$3
W=$PWD/tools_transcode_work
. "$(dirname "$0")/lib.sh"

# 1. every golden written by upstream's serialize_to_file comes back byte-identical
n_golden=0
for g in "$DATA"/safetensors/golden/*.safetensors; do
  b=$(basename "$g")
  expect_rc 0 "$TRANSCODE" "$g" "re_$b"
  check "cmp -s '$g' 're_$b'"
  check '[ ! -s out.txt ]'
  check 'grep -Eq "^mio-transcode: wrote re_'"$b"': [0-9]+ tensors? " err.txt'
  n_golden=$((n_golden + 1))
done
check '[ "$n_golden" -ge 8 ]'
# the summary line counts tensors, keys and bytes
expect_rc 0 "$TRANSCODE" "$DATA/safetensors/golden/three_dtypes.safetensors" three.safetensors
check 'grep -Eq "^mio-transcode: wrote three.safetensors: 3 tensors \(30 data bytes\), 1 metadata key, 254 bytes \(254 B\) in [0-9.]+ s$" err.txt'
# --quiet: nothing on stderr; an existing OUT is replaced
printf 'old junk' > q.safetensors
expect_rc 0 "$TRANSCODE" --quiet "$DATA/safetensors/golden/large_20000.safetensors" q.safetensors
check 'cmp -s "$DATA/safetensors/golden/large_20000.safetensors" q.safetensors'
check '[ ! -s err.txt ]'

# 2. accepted hand-made cases: re-emitted in canonical form, which is a fixed point
for c in ok_leading_whitespace ok_meta_null ok_scalar_shape ok_escaped_name; do
  expect_rc 0 "$TRANSCODE" -q "$DATA/safetensors/cases/$c.safetensors" "c1_$c.safetensors"
  expect_rc 0 "$TRANSCODE" -q "c1_$c.safetensors" "c2_$c.safetensors"
  check "cmp -s 'c1_$c.safetensors' 'c2_$c.safetensors'"
done
# ok_leading_whitespace: the leading spaces go; {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}} is 54 bytes -> 56
check '[ "$(head -c 8 c1_ok_leading_whitespace.safetensors | od -An -tu8 | tr -d " ")" = 56 ]'
check '[ "$(dd if=c1_ok_leading_whitespace.safetensors bs=1 skip=8 count=1 2>/dev/null)" = "{" ]'
# ok_meta_null: "__metadata__": null is dropped
check '! grep -q __metadata__ c1_ok_meta_null.safetensors'

# 3. a sharded checkpoint (index file) merges into one canonical file
mkdir -p shards
"$TRANSCODE" -q "$DATA/safetensors/golden/three_dtypes.safetensors" shards/model-00001-of-00002.safetensors
"$TRANSCODE" -q "$DATA/safetensors/golden/scalar.safetensors" shards/model-00002-of-00002.safetensors
cat > shards/model.safetensors.index.json <<'EOF'
{
  "metadata": {
    "total_size": 34
  },
  "weight_map": {
    "a_f32": "model-00001-of-00002.safetensors",
    "b_bf16": "model-00001-of-00002.safetensors",
    "c_i64": "model-00001-of-00002.safetensors",
    "s": "model-00002-of-00002.safetensors"
  }
}
EOF
expect_rc 0 "$TRANSCODE" shards/model.safetensors.index.json merged.safetensors
check 'grep -q "merged from 2 shards" err.txt'
expect_rc 0 "$INSPECT" --tensors merged.safetensors
check 'grep -q "^tensor count:  4$" out.txt'
# F32 before BF16; s (F32) sorts after a_f32 by name: c_i64 [0,8] a_f32 [8,24] s [24,28] b_bf16 [28,34]
check 'grep -Eq "^  s +\[\] +F32 +\[24, 28\] +4$" out.txt'
check 'grep -Eq "^  b_bf16 +\[3\] +BF16 +\[28, 34\] +6$" out.txt'
# OUT naming one of the input's shards (directly or through a hard link) is refused
# before anything is written: the checkpoint still opens and the shard is unchanged
cp shards/model-00001-of-00002.safetensors shard1.bak
expect_rc 2 "$TRANSCODE" shards/model.safetensors.index.json shards/model-00001-of-00002.safetensors
check 'grep -q "OUT shards/model-00001-of-00002.safetensors is one of the input.s shard files; refusing to overwrite it" err.txt'
ln shards/model-00002-of-00002.safetensors hardlink.safetensors
expect_rc 2 "$TRANSCODE" shards/model.safetensors.index.json hardlink.safetensors
check 'cmp -s shards/model-00001-of-00002.safetensors shard1.bak'
expect_rc 0 "$INSPECT" shards/model.safetensors.index.json
check 'grep -q "^tensor count:  4$" out.txt'
rm -f shard1.bak hardlink.safetensors
# OUT "-": the same bytes on standard output, no file named "-"
"$TRANSCODE" -q shards/model.safetensors.index.json - > piped.safetensors 2>err.txt
check 'cmp -s merged.safetensors piped.safetensors'
check '[ ! -e ./- ]'
"$TRANSCODE" shards/model.safetensors.index.json - 2>err.txt | cat > piped2.safetensors
check 'cmp -s merged.safetensors piped2.safetensors'
check 'grep -q "^mio-transcode: wrote standard output: 4 tensors" err.txt'
rm -f piped.safetensors piped2.safetensors

# 4. usage errors: exit 2, nothing written
G3=$DATA/safetensors/golden/three_dtypes.safetensors
expect_rc 2 "$TRANSCODE"
check 'grep -q "usage: mio-transcode" err.txt'
expect_rc 2 "$TRANSCODE" "$G3"
check '[ ! -s out.txt ]'
expect_rc 2 "$TRANSCODE" "$G3" u1.safetensors extra.safetensors
expect_rc 2 "$TRANSCODE" --bogus "$G3" u2.safetensors
check '[ ! -e u1.safetensors ] && [ ! -e u2.safetensors ] && [ ! -e extra.safetensors ]'
expect_rc 0 "$TRANSCODE" --help
check 'grep -q "supported: GGUF <-> safetensors" out.txt'
cp "$G3" same.safetensors
expect_rc 2 "$TRANSCODE" same.safetensors same.safetensors
check 'grep -q "is the input file" err.txt'
ln -s same.safetensors link.safetensors
expect_rc 2 "$TRANSCODE" same.safetensors link.safetensors
check 'cmp -s "$G3" same.safetensors'

# 5. failures: exit 1, a message, no output file, nothing on stdout
expect_rc 1 "$TRANSCODE" "$DATA/safetensors/golden/all_dtypes.safetensors" f1.gguf
check 'grep -q "^mio-transcode: .*all_dtypes.safetensors: tensor .t_.*: GGUF has no such type" err.txt'
check '[ ! -e f1.gguf ]'
printf 'this is neither format, just text' > junk.bin
expect_rc 1 "$TRANSCODE" junk.bin f2.safetensors
check 'grep -q "^mio-transcode: junk.bin: unknown input format" err.txt'
check 'grep -q "supported: GGUF <-> safetensors" err.txt'
expect_rc 1 "$TRANSCODE" does_not_exist.safetensors f3.safetensors
check 'grep -q "^mio-transcode: does_not_exist.safetensors: .*No such file" err.txt'
expect_rc 2 "$TRANSCODE" --dtype q4_0 "$G3" f4.gguf
check 'grep -q "^mio-transcode: --dtype: .q4_0. is not f32, f16 or bf16" err.txt'
check '[ ! -e f4.gguf ]'
for c in too_small_7bytes hdrlen_past_eof json_bad_dtype offset_same_range incomplete_trailing_byte \
         dup_tensor_name_same_range dup_key_inside_metadata; do
  expect_rc 1 "$TRANSCODE" "$DATA/safetensors/cases/$c.safetensors" "bad_$c.safetensors"
  check "grep -q '^mio-transcode: .*$c.safetensors: ' err.txt"
  check "[ ! -e 'bad_$c.safetensors' ] && [ ! -s out.txt ]"
done
check 'grep -q "__metadata__ has the key .x. twice" err.txt'
expect_rc 1 "$TRANSCODE" "$G3" no_such_dir/x.safetensors
check 'grep -q "^mio-transcode: no_such_dir/x.safetensors: " err.txt'
# a failed write leaves an existing OUT untouched
mkdir -p ro && cp "$G3" ro/keep.safetensors && chmod 555 ro
if [ ! -w ro ]; then   # (root can write anyway: skip)
  expect_rc 1 "$TRANSCODE" "$DATA/safetensors/golden/scalar.safetensors" ro/keep.safetensors
  check 'cmp -s "$G3" ro/keep.safetensors'
fi
chmod 755 ro

# only the files this script created remain (no temp files from failed writes)
left=$(ls -A | grep -v -x -E 're_.*\.safetensors|three\.safetensors|q\.safetensors|c[12]_ok_.*\.safetensors|shards|merged\.safetensors|same\.safetensors|link\.safetensors|junk\.bin|ro|out\.txt|err\.txt' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2
check '[ "$(ls -A ro)" = keep.safetensors ]'

finish
