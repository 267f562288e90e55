#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_kv_edit.sh — mio-transcode's metadata edits (--set, --remove,
# --general-name, --general-description, --chat-template-file) on a GGUF ->
# GGUF copy and --in-place, read back with mio-inspect: values, types, key
# order (an existing key keeps its place, new keys are appended in order),
# tensor bytes unchanged; bad specs exit 2 and failures exit 1 with nothing
# written. mio-make-sample's model: 22 keys, header 2800 bytes, data at 2816,
# 2675712 tensor bytes.
# With MIO_PEER_DIR set (and python3), ggml's own gguf reader checks the values.
# Usage: test_kv_edit.sh MIO_TRANSCODE MIO_INSPECT MIO_MAKE_SAMPLE TEST_DATA_DIR
set -u
TRANSCODE=$1 INSPECT=$2 SAMPLE=$3 DATA=$4
W=$PWD/tools_kv_edit_work
. "$(dirname "$0")/lib.sh"

DATA_BYTES=2675712
keys() { "$INSPECT" --meta "$1" | awk '/^metadata/ {m=1; next} m && /^  [^ ]/ {print $1}' | tr '\n' ' '; }
meta() { "$INSPECT" --meta "$1" | grep -E "^  $2 " | sed -E 's/^  [^ ]+ +//'; }
same_data() { cmp -s <(tail -c $DATA_BYTES "$1") <(tail -c $DATA_BYTES "$2"); }

expect_rc 0 "$SAMPLE" s.gguf
check '[ "$(stat -c %s s.gguf)" = 2678528 ]'
K0=$(keys s.gguf)
check '[ "$(echo $K0 | wc -w)" = 22 ]'

# 1. a copy with edits
printf '{%% for m in messages %%}{{ m.content }}\n{%% endfor %%}\xc3\xa9' > tmpl.jinja
expect_rc 0 "$TRANSCODE" --set llama.context_length=u32:4096 --set new.flag=bool:true --set new.big=int:3000000000 \
  --set 'new.s=str:a=b:c' --set=llama.rope.freq_base=f64:0.5 --remove tokenizer.ggml.scores \
  --chat-template-file tmpl.jinja --general-name 'My Model' --general-description desc s.gguf e.gguf
check 'grep -Eq "^mio-transcode: wrote e.gguf with 9 metadata edits in [0-9.]+ s$" err.txt'
check '[ ! -s out.txt ]'
check '[ "$(meta e.gguf llama.context_length)" = "u32     4096" ]'
check '[ "$(meta e.gguf llama.rope.freq_base)" = "f64     0.5" ]'
check '[ "$(meta e.gguf new.flag)" = "bool    true" ]'
check '[ "$(meta e.gguf new.big)" = "i64     3000000000" ]'
check '[ "$(meta e.gguf new.s)" = "string  \"a=b:c\"" ]'
check '[ "$(meta e.gguf general.name)" = "string  \"My Model\"" ]'
check '[ "$(meta e.gguf general.description)" = "string  \"desc\"" ]'
check '[ "$(meta e.gguf tokenizer.chat_template)" = "string  \"{% for m in messages %}{{ m.content }}\\n{% endfor %}é\"" ]'
# order: the input's keys where they were (tokenizer.ggml.scores gone), then the new ones in command-line order
want="$(echo "$K0" | sed 's/tokenizer.ggml.scores //')new.flag new.big new.s tokenizer.chat_template general.description "
check '[ "$(keys e.gguf)" = "$want" ]'
check 'same_data s.gguf e.gguf'
check '[ "$(stat -c %s e.gguf)" = $((2816 + 32 + DATA_BYTES)) ]'  # header 2800 -> 2833 (pads to 2848)
if command -v python3 >/dev/null 2>&1 && python3 -c 'import json' 2>/dev/null; then
  "$INSPECT" --json --meta e.gguf > e.json
  check 'python3 - e.json tmpl.jinja <<"PY"
import json, sys
m = {e["key"]: e for e in json.load(open(sys.argv[1]))["metadata"]}
t = open(sys.argv[2], encoding="utf-8").read()
assert m["tokenizer.chat_template"]["value"] == t, m["tokenizer.chat_template"]
assert m["new.big"]["type"] == "i64" and m["new.big"]["value"] == 3000000000
assert m["llama.context_length"]["type"] == "u32" and m["llama.context_length"]["value"] == 4096
PY'
  rm -f e.json
fi
# the input is unchanged
expect_rc 0 "$SAMPLE" s2.gguf
check 'cmp -s s.gguf s2.gguf'
rm -f s2.gguf

# 2. order of edits: later wins; set then remove removes; a missing key to remove is a note
expect_rc 0 "$TRANSCODE" --set x=u8:1 --set x=i16:-2 --set y=str:gone --remove y --remove no.such.key s.gguf o2.gguf
check '[ "$(meta o2.gguf x)" = "i16     -2" ]'
check '[ -z "$(meta o2.gguf y)" ]'
check 'grep -q "^mio-transcode: note: --remove no.such.key: s.gguf has no such key; nothing removed$" err.txt'
check '! grep -q "note: --remove y" err.txt'
expect_rc 0 "$TRANSCODE" --quiet --remove no.such.key s.gguf o3.gguf
check '[ ! -s err.txt ]'
check 'cmp -s s.gguf o3.gguf'     # removing nothing: a byte-identical copy
rm -f o2.gguf o3.gguf

# 3. bad specs: exit 2, a message naming the problem, nothing written
bad_spec() {  # expected-message args...
  local msg=$1; shift
  expect_rc 2 "$TRANSCODE" "$@"
  check "grep -qF -- \"$msg\" err.txt"
  check '[ ! -e bad.gguf ] && [ ! -s out.txt ]'
}
bad_spec "mio-transcode: --set: key 'a': 300 is out of range for u8 (0 to 255)" --set a=u8:300 s.gguf bad.gguf
bad_spec "expected KEY=TYPE:VALUE (there is no '=')" --set novalue s.gguf bad.gguf
bad_spec "key 'a': '5x' is not a decimal integer (int)" --set a=int:5x s.gguf bad.gguf
bad_spec "the key before '=' is empty" --set =int:1 s.gguf bad.gguf
bad_spec "unknown type 'integer'" --set a=integer:1 s.gguf bad.gguf
bad_spec "key 'b': 'yes' is not a bool (true, false, 1 or 0)" --set b=bool:yes s.gguf bad.gguf
bad_spec "key 'f': 1e39 is out of range for f32" --set f=float:1e39 s.gguf bad.gguf
bad_spec "mio-transcode: --remove: the key is empty" --remove '' s.gguf bad.gguf
bad_spec "mio-transcode: --set needs a value" s.gguf bad.gguf --set
bad_spec "mio-transcode: --general-name needs a value" s.gguf bad.gguf --general-name
# a good edit before a bad one does not write either
bad_spec "300 is out of range" --set ok=u8:1 --set a=u8:300 s.gguf bad.gguf
# edits on conversions they do not apply to
bad_spec "metadata edits are GGUF key-values: the output must be GGUF" --set a=u8:1 \
  "$DATA/safetensors/golden/three_dtypes.safetensors" bad.safetensors
check '[ ! -e bad.safetensors ]'
bad_spec "metadata edits apply to copies and conversions and --in-place, not to splitting" --set a=u8:1 --split-max-tensors 8 s.gguf bad
check '[ -z "$(ls -A | grep "^bad-")" ]'

# 4. a template file that cannot be used: exit 1, nothing written
expect_rc 1 "$TRANSCODE" --chat-template-file missing.jinja s.gguf bad.gguf
check 'grep -q "^mio-transcode: --chat-template-file missing.jinja: No such file or directory$" err.txt'
printf 'ok \xff\xfe' > badutf8.jinja
expect_rc 1 "$TRANSCODE" --chat-template-file badutf8.jinja s.gguf bad.gguf
check 'grep -q "^mio-transcode: --chat-template-file badutf8.jinja: is not valid UTF-8 (byte 0xff at offset 3)$" err.txt'
printf 'a\0b' > nul.jinja
expect_rc 1 "$TRANSCODE" --chat-template-file nul.jinja s.gguf bad.gguf
check 'grep -q "^mio-transcode: --chat-template-file nul.jinja: holds a NUL byte at offset 1$" err.txt'
expect_rc 1 "$TRANSCODE" --chat-template-file . s.gguf bad.gguf
check 'grep -q "is a directory" err.txt'
check '[ ! -e bad.gguf ]'
rm -f badutf8.jinja nul.jinja

# 5. --in-place on a copy
cp s.gguf ip.gguf
expect_rc 0 "$TRANSCODE" --in-place --general-name 'libmodelio sample 2' --set llama.context_length=u32:512 ip.gguf
check 'grep -q "^mio-transcode: edited ip.gguf in place (2 metadata edits; header 2802 bytes, tensor data still at 2816)$" err.txt'
check '[ "$(meta ip.gguf general.name)" = "string  \"libmodelio sample 2\"" ]'
check '[ "$(meta ip.gguf llama.context_length)" = "u32     512" ]'
check '[ "$(keys ip.gguf)" = "$K0" ]'
check '[ "$(stat -c %s ip.gguf)" = 2678528 ]'
check 'cmp -s <(tail -c +2817 s.gguf) <(tail -c +2817 ip.gguf)'   # every byte from the data offset on
check '[ "$(od -An -tx1 -j2802 -N14 ip.gguf | tr -d " \n")" = 0000000000000000000000000000 ]'  # padding is zeros
check '[ ! -e ip.gguf.mio-header-backup ]'
cp ip.gguf ip.before
# growing past the data offset: exit 1, the file untouched
expect_rc 1 "$TRANSCODE" --in-place --set general.url=str:https://example.com/a/long/url ip.gguf
check 'grep -q "the edited header needs 2863 bytes but only 2816 fit before the tensor data" err.txt'
check 'cmp -s ip.gguf ip.before'
# shrinking a whole alignment unit: the data would move: exit 1, untouched
expect_rc 1 "$TRANSCODE" --in-place --general-name x ip.gguf
check 'grep -q "so it would move from 2816 to 2784" err.txt'
check 'cmp -s ip.gguf ip.before'
# usage: no edits, an OUT, splitting: exit 2, untouched
expect_rc 2 "$TRANSCODE" --in-place ip.gguf
check 'grep -q "in-place takes metadata edits and one FILE.gguf" err.txt'
expect_rc 2 "$TRANSCODE" --in-place --general-name y ip.gguf other.gguf
expect_rc 2 "$TRANSCODE" --in-place --set a=u8:300 ip.gguf
check 'cmp -s ip.gguf ip.before'
check '[ ! -e other.gguf ]'
# an interrupted edit's backup blocks the next one
: > ip.gguf.mio-header-backup
expect_rc 1 "$TRANSCODE" --in-place --general-name 'libmodelio sample 3' ip.gguf
check 'grep -q "the header backup ip.gguf.mio-header-backup already exists" err.txt'
check 'cmp -s ip.gguf ip.before'
rm -f ip.gguf.mio-header-backup
# --quiet: silent
expect_rc 0 "$TRANSCODE" --quiet --in-place --general-name 'libmodelio sample 3' ip.gguf
check '[ ! -s err.txt ] && [ "$(meta ip.gguf general.name)" = "string  \"libmodelio sample 3\"" ]'
check 'same_data s.gguf ip.gguf'

# 6. the peer (ggml's gguf reader) reads an edited file and an in-place edited file
if [ -n "${MIO_PEER_DIR:-}" ] && [ -f "$MIO_PEER_DIR/libggml-base.so" ] && command -v python3 >/dev/null 2>&1; then
  check 'python3 - "$MIO_PEER_DIR/libggml-base.so" e.gguf ip.gguf <<"PY"
import ctypes, sys
g = ctypes.CDLL(sys.argv[1])
class P(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]
g.gguf_init_from_file.restype = ctypes.c_void_p
g.gguf_init_from_file.argtypes = [ctypes.c_char_p, P]
g.gguf_find_key.restype = ctypes.c_int64
g.gguf_find_key.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
g.gguf_get_val_str.restype = ctypes.c_char_p
g.gguf_get_val_str.argtypes = [ctypes.c_void_p, ctypes.c_int64]
g.gguf_get_val_i64.restype = ctypes.c_int64
g.gguf_get_val_i64.argtypes = [ctypes.c_void_p, ctypes.c_int64]
g.gguf_get_val_u32.restype = ctypes.c_uint32
g.gguf_get_val_u32.argtypes = [ctypes.c_void_p, ctypes.c_int64]
g.gguf_get_n_tensors.restype = ctypes.c_int64
g.gguf_get_n_tensors.argtypes = [ctypes.c_void_p]
g.gguf_get_data_offset.restype = ctypes.c_size_t
g.gguf_get_data_offset.argtypes = [ctypes.c_void_p]
g.gguf_free.argtypes = [ctypes.c_void_p]
c = g.gguf_init_from_file(sys.argv[2].encode(), P(True, None))
assert c
assert g.gguf_get_val_str(c, g.gguf_find_key(c, b"general.name")) == b"My Model"
assert g.gguf_get_val_i64(c, g.gguf_find_key(c, b"new.big")) == 3000000000
assert g.gguf_get_n_tensors(c) == 21
g.gguf_free(c)
c = g.gguf_init_from_file(sys.argv[3].encode(), P(True, None))
assert c
assert g.gguf_get_val_str(c, g.gguf_find_key(c, b"general.name")) == b"libmodelio sample 3"
assert g.gguf_get_val_u32(c, g.gguf_find_key(c, b"llama.context_length")) == 512
assert g.gguf_get_data_offset(c) == 2816
g.gguf_free(c)
PY'
else
  echo "peer check skipped (MIO_PEER_DIR unset or python3 missing)"
fi

# only the files this script created remain (no temp files, no backups)
left=$(ls -A | grep -v -x -E 's\.gguf|e\.gguf|ip\.gguf|ip\.before|tmpl\.jinja|out\.txt|err\.txt' | tr '\n' ' ')
check '[ -z "$left" ]' || echo "left behind: $left" >&2

finish
