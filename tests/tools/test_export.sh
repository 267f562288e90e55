#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_export.sh — CLI tests of mio-export-gguf (byte-identical re-emit of the
# sample model and a real vocabulary file, atomic output, exit codes) plus a
# Python JSON check of mio-inspect on the sample when python3 is available.
# Usage: test_export.sh MIO_EXPORT MIO_INSPECT MIO_MAKE_SAMPLE TEST_DATA_DIR
set -u
EXPORT=$1 INSPECT=$2 MKSAMPLE=$3 DATA=$4
W=$PWD/tools_export_work
. "$(dirname "$0")/lib.sh"

# 1. sample model: export is byte-identical, summary line on stderr
expect_rc 0 "$MKSAMPLE" sample.gguf
check '[ "$(stat -c %s sample.gguf)" -eq 2678528 ]'   # 2816 header+pad + 2675712 tensor bytes
expect_rc 0 "$EXPORT" --from-gguf sample.gguf --out copy.gguf
check 'cmp -s sample.gguf copy.gguf'
check 'grep -q "wrote copy.gguf: 21 tensors (verbatim), 22 keys; .* (2678528 bytes)" err.txt'
check 'grep -q "peak RSS" err.txt'
check '[ ! -s out.txt ]'
# --quiet: nothing on stderr; --dtype verbatim accepted; existing OUT is replaced
printf 'old junk' > copy2.gguf
expect_rc 0 "$EXPORT" --quiet --dtype verbatim --from-gguf sample.gguf --out=copy2.gguf
check 'cmp -s sample.gguf copy2.gguf'
check '[ ! -s err.txt ]'

# 2. a real llama.cpp vocabulary file (gguf-py layout: 0 tensors, no padding)
expect_rc 0 "$EXPORT" --from-gguf "$DATA/vocab-llama-spm.gguf" --out vocab.gguf
check 'cmp -s "$DATA/vocab-llama-spm.gguf" vocab.gguf'
check '[ "$(stat -c %s vocab.gguf)" -eq 723869 ]'

# 3. usage errors: exit 2, no output written
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out q.gguf --dtype q9_9
check 'grep -q "dtype q9_9: not a target type" err.txt'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out q.gguf --dtype q8_k   # activation format, not a weight type
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out q.gguf --threads -1
check '[ ! -e q.gguf ]'
expect_rc 2 "$EXPORT" --from-gguf sample.gguf
check 'grep -q "usage: mio-export-gguf" err.txt'
expect_rc 2 "$EXPORT" --out q.gguf
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out q.gguf --bogus
expect_rc 2 "$EXPORT" --from-gguf sample.gguf --out
cp sample.gguf same.gguf
expect_rc 2 "$EXPORT" --from-gguf same.gguf --out same.gguf
check 'grep -q "output same.gguf is one of the input files; refusing to overwrite it" err.txt'
ln -s same.gguf link.gguf
expect_rc 2 "$EXPORT" --from-gguf same.gguf --out link.gguf
check 'cmp -s sample.gguf same.gguf'
check '[ ! -e q.gguf ]'

# 4. bad inputs: exit 1 with the library message, nothing left behind
head -c 100000 sample.gguf > truncated.gguf      # tensor data cut short
expect_rc 1 "$EXPORT" --from-gguf truncated.gguf --out t_out.gguf
check 'grep -q "^mio-export-gguf: truncated.gguf: " err.txt'
check '[ ! -e t_out.gguf ]'
printf 'GGML not a gguf file at all......' > badmagic.gguf
expect_rc 1 "$EXPORT" --from-gguf badmagic.gguf --out m_out.gguf
check 'grep -q "^mio-export-gguf: badmagic.gguf: " err.txt'
check '[ ! -e m_out.gguf ]'
expect_rc 1 "$EXPORT" --from-gguf does_not_exist.gguf --out n_out.gguf
check '[ ! -e n_out.gguf ]'
expect_rc 1 "$EXPORT" --from-gguf sample.gguf --out no_such_dir/x.gguf
check 'grep -q "^mio-export-gguf: no_such_dir/x.gguf: " err.txt'
# only the files this script created remain (no temp files from failed writes)
left=$(ls -A | grep -v -x -E 'sample.gguf|copy.gguf|copy2.gguf|vocab.gguf|same.gguf|link.gguf|truncated.gguf|badmagic.gguf|out.txt|err.txt|inspect.json' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2

# 5. mio-inspect on the sample and the vocab file
expect_rc 0 "$INSPECT" sample.gguf --tensors
check 'grep -q "^tensor count:  21$" out.txt'
check 'grep -q "^data offset:   2816$" out.txt'
check 'grep -Eq "^  blk.1.ffn_down.weight +\[256, 512\] +f16 +2379776 +262144$" out.txt'
expect_rc 0 "$INSPECT" "$DATA/vocab-llama-spm.gguf" --meta
check 'grep -q "tokenizer.ggml.tokens .*\[array of 32000 string\]" out.txt'
expect_rc 1 "$INSPECT" truncated.gguf
check 'grep -q "^mio-inspect: truncated.gguf: " err.txt'
if command -v python3 >/dev/null 2>&1 && python3 -c 'import json' 2>/dev/null; then
  "$INSPECT" --json sample.gguf > inspect.json
  check 'python3 - inspect.json <<"PY"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["format"] == "gguf" and d["version"] == 3 and d["alignment"] == 32, d
assert d["data_offset"] == 2816 and d["file_size"] == 2678528, d
md = {kv["key"]: kv for kv in d["metadata"]}
assert md["general.architecture"] == {"key": "general.architecture", "type": "string", "value": "llama"}
assert md["llama.embedding_length"]["value"] == 256 and md["llama.embedding_length"]["type"] == "u32"
tok = md["tokenizer.ggml.tokens"]
assert tok["type"] == "array" and tok["array_type"] == "string" and tok["count"] == 32
assert tok["value"][5] == "\u2581the", tok["value"][5]
t = d["tensors"]
assert len(t) == 21
assert t[0] == {"name": "token_embd.weight", "dtype": "f16", "shape": [32, 256], "elements": 8192, "offset": 0, "nbytes": 16384, "file": 0, "type": "f16", "ne": [256, 32], "part": 0}, t[0]
assert t[20] == {"name": "output.weight", "dtype": "f32", "shape": [32, 256], "elements": 8192, "offset": 2642944, "nbytes": 32768, "file": 0, "type": "f32", "ne": [256, 32], "part": 0}, t[20]
PY'
  "$INSPECT" --json "$DATA/vocab-llama-spm.gguf" > inspect.json
  check 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); md={k[\"key\"]:k for k in d[\"metadata\"]}; t=md[\"tokenizer.ggml.tokens\"]; assert t[\"count\"]==32000 and \"value\" not in t; assert d[\"tensors\"]==[] and d[\"file_size\"]==723869" inspect.json'
else
  echo "python3 not available: JSON check of the sample skipped (test_inspect.c covers JSON)"
fi

finish
