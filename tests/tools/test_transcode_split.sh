#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_transcode_split.sh — mio-transcode --split-max-tensors / --split-max-size
# (gguf-split --split) on mio-make-sample's model (21 tensors: token_embd f16
# 16384 B, then per block attn_norm f32 1024, attn_q/k/v/output f16 131072 each,
# ffn_norm f32 1024, ffn_gate/up/down f16 262144 each; then output_norm, output),
# and the merge back (GGUF -> GGUF) byte-identical; refusals leave nothing.
# Usage: test_transcode_split.sh MIO_TRANSCODE MIO_INSPECT MIO_MAKE_SAMPLE
set -u
TRANSCODE=$1 INSPECT=$2 SAMPLE=$3
W=$PWD/tools_transcode_split_work
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$SAMPLE" s.gguf

# 1. --split-max-tensors 8: 21 tensors -> 8 + 8 + 5
expect_rc 0 "$TRANSCODE" --split-max-tensors 8 --dry-run s.gguf pp
check 'grep -q "^pp-00001-of-00003.gguf: 8 tensors, 804864 tensor bytes" out.txt'
check 'grep -q "^pp-00002-of-00003.gguf: 8 tensors, 1050624 tensor bytes" out.txt'
check 'grep -q "^pp-00003-of-00003.gguf: 5 tensors, 820224 tensor bytes" out.txt'
check '[ "$(ls -A | grep -c pp-)" = 0 ]'
expect_rc 0 "$TRANSCODE" --split-max-tensors 8 s.gguf pp
check 'grep -q "split s.gguf into 3 parts (pp-00001-of-00003.gguf ..)" err.txt'
for k in 1 2 3; do check "[ -f pp-0000$k-of-00003.gguf ]"; done
# sizes as planned
check '[ "$(stat -c %s pp-00001-of-00003.gguf)" = 807008 ]'
# part 1: every input key, then split.no, split.tensors.count, split.count
expect_rc 0 "$INSPECT" --part --meta pp-00001-of-00003.gguf
check 'grep -q "kv count:      25" out.txt'
check '[ "$(grep -E "^  (split|general.quantization_version)" out.txt | awk "{print \$1, \$2, \$3}" | tr "\n" "|")" = "general.quantization_version u32 2|split.no u16 0|split.tensors.count i32 21|split.count u16 3|" ]'
# part 2: only the split keys; its first tensor is the 9th, blk.0.ffn_up.weight
expect_rc 0 "$INSPECT" --part --meta --tensors pp-00002-of-00003.gguf
check 'grep -q "kv count:      3" out.txt'
check '[ "$(grep -E "^  split" out.txt | awk "{print \$1, \$3}" | tr "\n" "|")" = "split.no 1|split.tensors.count 21|split.count 3|" ]'
check '[ "$(grep -E "^  blk" out.txt | head -1 | awk "{print \$1}")" = blk.0.ffn_up.weight ]'
# the whole model reads through part 1
expect_rc 0 "$INSPECT" pp-00001-of-00003.gguf
check 'grep -q "tensor count:  21" out.txt'
# merge back: byte-identical (the sample's padding is zero)
expect_rc 0 "$TRANSCODE" pp-00001-of-00003.gguf merged.gguf
check 'cmp -s s.gguf merged.gguf'

# 2. --split-max-size 1M (10^6 bytes of tensor data): blk.0.ffn_up would end at 1067008 -> part 2
expect_rc 0 "$TRANSCODE" --split-max-size 1M --dry-run s.gguf sz
check 'grep -q "^sz-00001-of-00003.gguf: 8 tensors, 804864 tensor bytes" out.txt'
check '[ "$(wc -l < out.txt)" = 3 ]'
expect_rc 0 "$TRANSCODE" -q --split-max-size 1G s.gguf one
check '[ -f one-00001-of-00001.gguf ] && [ ! -s err.txt ]'

# 3. --no-tensor-first-split: part 1 is metadata only
expect_rc 0 "$TRANSCODE" -q --no-tensor-first-split --split-max-tensors 21 s.gguf nf
expect_rc 0 "$INSPECT" --part nf-00001-of-00002.gguf
check 'grep -q "tensor count:  0" out.txt'
expect_rc 0 "$TRANSCODE" nf-00001-of-00002.gguf nf_merged.gguf
check 'cmp -s s.gguf nf_merged.gguf'

# 4. refusals: messages, exit status, nothing left behind
expect_rc 2 "$TRANSCODE" --split-max-tensors 0 s.gguf r
check 'grep -q "bad value .0. (a positive number)" err.txt'
expect_rc 2 "$TRANSCODE" --split-max-size 10K s.gguf r
check 'grep -q "bad value .10K. (a positive number followed by M or G" err.txt'
expect_rc 2 "$TRANSCODE" --split-max-size 10 s.gguf r
expect_rc 2 "$TRANSCODE" --split-max-size 1M --split-max-tensors 3 s.gguf r
check 'grep -q "exclusive" err.txt'
expect_rc 2 "$TRANSCODE" --dry-run s.gguf r.gguf
check 'grep -q "need --split-max-tensors or --split-max-size" err.txt'
cp s.gguf same-00001-of-00001.gguf
expect_rc 1 "$TRANSCODE" --split-max-tensors 100 same-00001-of-00001.gguf same
check 'grep -q "is one of the input files; refusing to overwrite it" err.txt'
check 'cmp -s s.gguf same-00001-of-00001.gguf'
rm -f same-00001-of-00001.gguf
check '[ -z "$(ls -A | grep -E "^r[-.]|\.tmp|~")" ]'
left=$(ls -A | grep -v -x -E 's\.gguf|pp-0000[123]-of-00003\.gguf|merged\.gguf|one-00001-of-00001\.gguf|nf-0000[12]-of-00002\.gguf|nf_merged\.gguf|out\.txt|err\.txt' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2

finish
