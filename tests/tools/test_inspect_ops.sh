#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_inspect_ops.sh — mio-inspect --hash / --check / --stats / --diff / --verify.
# usage: test_inspect_ops.sh MIO_INSPECT MK_OPS_MODELS OPS_TRUNCATE DATA_DIR
# The models (mk_ops_models.c) hold hand-known values; every expected number
# below is worked out in the comments.
I=$1 MK=$2 TRUNC=$3 DATA=$4
W=$PWD/inspect_ops_work
. "$(dirname "$0")/lib.sh"

"$MK" . || { echo "mk_ops_models failed"; exit 1; }
IDX=ops_sharded/model.safetensors.index.json
SPLIT=ops_split-00001-of-00003.gguf

# hash of one line of a manifest: "HEX  NAME" -> HEX
hash_of() { grep -a -- "  $2\$" "$1" | head -1 | cut -d' ' -f1; }

# --- known vectors -----------------------------------------------------------
# vec.safetensors: "abc" = the bytes a b c, "empty" = no bytes.
expect_rc 0 "$I" --hash sha256 vec.safetensors; cp out.txt vec.sha256
check '[ "$(hash_of vec.sha256 abc)" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]' # FIPS 180-4 example
check '[ "$(hash_of vec.sha256 empty)" = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ]'
check '[ "$(hash_of vec.sha256 abc)" = "$(printf abc | sha256sum | cut -d" " -f1)" ]'
check '[ "$(head -1 vec.sha256)" = "# mio-inspect manifest v1 sha256" ]'
expect_rc 0 "$I" --hash xxh64 vec.safetensors; cp out.txt vec.xxh64
check '[ "$(hash_of vec.xxh64 empty)" = ef46db3751d8e999 ]'   # XXH64("", seed 0)
check '[ "$(hash_of vec.xxh64 abc)" = 44bc2cf5ad770999 ]'     # XXH64("abc", seed 0), xxHash's sanity value
expect_rc 0 "$I" --hash=xxh3 vec.safetensors; cp out.txt vec.xxh3
check '[ "$(hash_of vec.xxh3 empty)" = 2d06800538d394c2 ]'    # XXH3_64bits("")
check '[ "$(hash_of vec.xxh3 abc)" = 78af5f94892f3950 ]'      # XXH3_64bits("abc")

# every length around SHA-256's padding boundaries (55/56, 63/64, 119/120 ...)
expect_rc 0 "$I" --hash sha256 pad.safetensors
check 'python3 -c "
import hashlib
got = dict(l.split(\"  \")[::-1] for l in open(\"out.txt\").read().split(\"\n\")[1:-2])
data = bytes(i * 7 % 256 for i in range(1000))
want = {\"n%d\" % n: hashlib.sha256(data[:n]).hexdigest() for n in (1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000)}
assert got == want, (got, want)
"'

# sha256 of the 4.4 MB tensor "big" (read in 4 MiB pieces) = sha256sum of its
# bytes, cut out of the safetensors file by python reading the header itself
expect_rc 0 "$I" --hash sha256 ops.safetensors; cp out.txt st.sha256
python3 - <<'EOF' > big.bin
import json, struct, sys
b = open("ops.safetensors", "rb").read()
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
s, e = h["big"]["data_offsets"]
sys.stdout.buffer.write(b[8 + n + s:8 + n + e])
EOF
check '[ "$(stat -c %s big.bin)" = 4400000 ]'
check '[ "$(hash_of st.sha256 big)" = "$(sha256sum big.bin | cut -d" " -f1)" ]'

# the whole-model line, recomputed as docs/TOOLS.md ("--hash: the manifest") says: the hash
# of the tensor lines (each with its newline), in manifest order
model_py() {
python3 - "$1" <<'EOF'
import hashlib, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
body = b"".join(l + b"\n" for l in lines if not l.startswith(b"#") and not l.startswith(b"model  "))
model = [l for l in lines if l.startswith(b"model  ")][0][7:].decode()
print("ok" if hashlib.sha256(body).hexdigest() == model else "differs")
EOF
}
check '[ "$(model_py st.sha256)" = ok ]'
check '[ "$(model_py vec.sha256)" = ok ]'
# lines sorted by name bytes; the odd name escaped (newline, backslash) with a leading backslash
check '[ "$(grep -v "^#" st.sha256 | grep -v "^model" | sed "s/^\\\\\?[0-9a-f]\{64\}  //" | tr "\n" "|")" = "b.f16|big|i.i32|odd\\nname\\\\é|w.f32|" ]'
check 'grep -q "^\\\\[0-9a-f]\{64\}  odd\\\\nname\\\\\\\\é\$" st.sha256'
check '[ "$(grep -c . st.sha256)" = 7 ]'   # header + 5 tensors + model

# names that need escapes: the manifest equals the one the Python recipe of the
# docs builds from the names and bytes, and --check reads it back
expect_rc 0 "$I" --hash sha256 names.gguf; cp out.txt names.sha256
python3 - > names.expected <<'EOF'
import hashlib, struct, sys
def esc(name):
    out, e = [], False
    for ch in name.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if ch == "\\": out.append("\\\\"); e = True
        elif ch == "\n": out.append("\\n"); e = True
        elif ch == "\r": out.append("\\r"); e = True
        elif 0xDC80 <= o <= 0xDCFF: out.append("\\x%02x" % (o - 0xDC00)); e = True
        elif o < 0x20 or 0x7F <= o < 0xA0: out.append("".join("\\x%02x" % b for b in ch.encode())); e = True
        else: out.append(ch)
    return "".join(out), e
names = [b"tab\there", b"esc\x1b[31m", b"bad\xff\xfe", b"c1\xc2\x85", b"back\\slash", b"cr\rlf\n",
         "plain \u00e9".encode(), b"#hash", b"model  x"]
lines = []
for k, n in sorted(enumerate(names), key=lambda kn: kn[1]):
    e, escaped = esc(n)
    line = ("\\" if escaped else "") + hashlib.sha256(struct.pack("<f", k)).hexdigest() + "  " + e + "\n"
    lines.append(line.encode("utf-8", "surrogateescape"))
body = b"".join(lines)
out = b"# mio-inspect manifest v1 sha256\n" + body + b"model  " + hashlib.sha256(body).hexdigest().encode() + b"\n"
sys.stdout.buffer.write(out)
EOF
check 'cmp -s names.sha256 names.expected'
check '! grep -q "$(printf "\033")" names.sha256'   # no raw ESC reaches a terminal
check '[ "$(grep -c . names.sha256)" = 11 ]'        # 9 tensors, none split over lines
expect_rc 0 "$I" --check names.sha256 names.gguf

# --- the same manifest whatever the container --------------------------------
for f in ops.gguf "$SPLIT" "$IDX"; do
  expect_rc 0 "$I" --hash sha256 "$f"
  check 'cmp -s out.txt st.sha256'
done
expect_rc 0 "$I" --hash xxh64 ops.gguf; cp out.txt g.xxh64
expect_rc 0 "$I" --hash xxh64 "$IDX"
check 'cmp -s out.txt g.xxh64'

# --- --check ------------------------------------------------------------------
for f in ops.gguf ops.safetensors "$SPLIT" "$IDX"; do
  expect_rc 0 "$I" --check st.sha256 "$f"
  check 'grep -q "OK: 5 tensors and the whole-model sha256 match" out.txt'
done
expect_rc 0 "$I" --check g.xxh64 ops.safetensors

# w.f32 element 0 is 1.0f = 00 00 80 3f; its high byte 3f -> 40 makes it 4.0f
woff=$("$I" ops.gguf --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["data_offset"] + [t for t in d["tensors"] if t["name"] == "w.f32"][0]["offset"] + 3)')
cp ops.gguf flip.gguf
printf '\x40' | dd of=flip.gguf bs=1 seek="$woff" conv=notrunc status=none
check '[ "$(od -An -tx1 -j "$woff" -N1 ops.gguf | tr -d " ")" = 3f ]'
expect_rc 1 "$I" --check st.sha256 flip.gguf
check 'grep -q "tensor '"'"'w.f32'"'"': sha256 differs (manifest line 6: 0c89b7af" err.txt'
check 'grep -q "1 of 5 tensors differ, 0 missing, 0 extra" err.txt'
check '[ ! -s out.txt ]'
# a manifest for another model
expect_rc 1 "$I" --check vec.sha256 ops.gguf
check 'grep -q "tensor '"'"'abc'"'"' (manifest line 2) is missing from the file" err.txt'
check 'grep -q "tensor '"'"'big'"'"' is not in the manifest" err.txt'
check 'grep -q "is the manifest for another model" err.txt'
# a tensor line removed: reported as extra; the model line then differs too
grep -v "  i.i32\$" st.sha256 > less.sha256
expect_rc 1 "$I" --check less.sha256 ops.gguf
check 'grep -q "tensor '"'"'i.i32'"'"' is not in the manifest" err.txt'
# lines reordered: still a match (the model value is over the sorted lines)
{ head -1 st.sha256; sed -n '2,6p' st.sha256 | sort -r; tail -1 st.sha256; } > reordered.sha256
expect_rc 0 "$I" --check reordered.sha256 ops.gguf
# CRLF line endings are read as LF ones
sed 's/$/\r/' st.sha256 > crlf.sha256
check '[ "$(head -c 34 crlf.sha256 | od -An -c | tr -d " \n")" = "#mio-inspectmanifestv1sha256\r\n" ]'
expect_rc 0 "$I" --check crlf.sha256 ops.gguf
# the model line edited: every tensor matches, the model line does not
sed '$s/0$/Z/; $s/[1-9a-f]$/0/; $s/Z$/1/' st.sha256 > model.sha256
check '! cmp -s model.sha256 st.sha256'
expect_rc 1 "$I" --check model.sha256 ops.gguf
check 'grep -q "every tensor matches but the manifest.s .model. line does not" err.txt'
# malformed manifests
sed '3s/^\(.\{10\}\)./\1g/' st.sha256 > bad1.sha256        # a non-hex digit
expect_rc 1 "$I" --check bad1.sha256 ops.gguf
check 'grep -q "bad1.sha256: line 3: malformed line" err.txt'
sed '1s/sha256/md5/' st.sha256 > bad2.sha256
expect_rc 1 "$I" --check bad2.sha256 ops.gguf
check 'grep -q "line 1: unknown hash algorithm .md5." err.txt'
tail -n +2 st.sha256 > bad3.sha256
expect_rc 1 "$I" --check bad3.sha256 ops.gguf
check 'grep -q "line 1: not a mio-inspect manifest" err.txt'
head -n -1 st.sha256 > bad4.sha256
expect_rc 1 "$I" --check bad4.sha256 ops.gguf
check 'grep -q "no .model  HEX. line" err.txt'
{ cat st.sha256; sed -n 2p st.sha256; } > bad5.sha256
expect_rc 1 "$I" --check bad5.sha256 ops.gguf
check 'grep -q "line 8: tensor .b.f16. is listed twice" err.txt'
printf '%s' "$(cat st.sha256)" > bad6.sha256               # last newline cut
expect_rc 1 "$I" --check bad6.sha256 ops.gguf
check 'grep -q "line 7: the last line has no newline" err.txt'
sed 's/^\\\([0-9a-f]*  odd\)\\n/\\\1\\q/' st.sha256 > bad7.sha256   # unknown escape \q
expect_rc 1 "$I" --check bad7.sha256 ops.gguf
check 'grep -q "line 5: bad escape" err.txt'
expect_rc 1 "$I" --check missing.sha256 ops.gguf
check 'grep -q "cannot open the manifest" err.txt'

# usage errors
expect_rc 2 "$I" --hash md5 ops.gguf
check 'grep -q "unknown hash algorithm .md5. (known: xxh64, xxh3, sha256)" err.txt'
expect_rc 2 "$I" --hash
expect_rc 2 "$I" --check st.sha256
expect_rc 2 "$I" --verify
expect_rc 2 "$I" --stats --verify ops.gguf
expect_rc 2 "$I" --verify --meta ops.gguf
expect_rc 2 "$I" --diff ops.gguf
expect_rc 2 "$I" --hash sha256 --json ops.gguf
expect_rc 0 "$I" --help
check 'grep -q -- "--hash xxh64|xxh3|sha256 FILE" out.txt'

# --- --stats --------------------------------------------------------------------
# w.f32 = 1 2 3 4 NaN inf 0 0: finite values 1 2 3 4 0 0 -> min 0, max 4,
# mean 10/6 = 1.66667, population std sqrt(30/6 - (10/6)^2) = sqrt(20/9) = 1.49071,
# 1 NaN, 1 inf, 2 zeros of 8 elements = 0.25
expect_rc 0 "$I" --stats ops.safetensors
check 'grep -q "^f32  *0  *4  *1.66667  *1.49071  *1  *1  *0.2500  w.f32 \[2, 4\]\$" out.txt'
# big = -1 +1 ... over 1,100,000 elements (5 pieces of 2^18): mean 0, std 1
check 'grep -q "^f32  *-1  *1  *0  *1  *0  *0  *0.0000  big \[1100000\]\$" out.txt'
# i.i32 = 7 -3: mean 2, std 5; b.f16 = 0.5 -1 2: mean 0.5, std sqrt(1.5) = 1.22474
check 'grep -q "^i32  *-3  *7  *2  *5 .* i.i32 \[2\]\$" out.txt'
check 'grep -q "^f16  *-1  *2  *0.5  *1.22474 .* b.f16 \[3\]\$" out.txt'
expect_rc 0 "$I" --stats --json "$SPLIT"
check 'python3 -c "
import json, math
d = json.load(open(\"out.txt\"))
t = {x[\"name\"]: x for x in d[\"tensors\"]}
w = t[\"w.f32\"]
assert w[\"min\"] == 0 and w[\"max\"] == 4 and w[\"nan\"] == 1 and w[\"inf\"] == 1 and w[\"zeros\"] == 2
assert w[\"zero_fraction\"] == 0.25 and w[\"shape\"] == [2, 4] and w[\"type\"] == \"f32\"
assert abs(w[\"mean\"] - 10 / 6) < 1e-12 and abs(w[\"std\"] - math.sqrt(20 / 9)) < 1e-12
assert t[\"big\"][\"mean\"] == 0 and t[\"big\"][\"std\"] == 1 and t[\"big\"][\"elements\"] == 1100000
assert t[\"odd\\nname\\\\é\"][\"mean\"] == 42
"'
# f8: F8_E4M3 bytes 38 7e 01 b8 = 1, 448 (the largest), 2^-9 (the smallest
# subnormal), -1 -> mean (448 + 2^-9) / 4 = 112.00048828125
expect_rc 0 "$I" --stats --json vec.safetensors
check 'python3 -c "
import json
t = {x[\"name\"]: x for x in json.load(open(\"out.txt\"))[\"tensors\"]}
f = t[\"f8\"]
assert f[\"type\"] == \"f8_e4m3\" and f[\"min\"] == -1 and f[\"max\"] == 448 and f[\"mean\"] == 112.00048828125
assert t[\"empty\"][\"elements\"] == 0 and t[\"empty\"][\"mean\"] is None and t[\"abc\"][\"max\"] == 99
"'
# q8_0 of (i - 32) / 4, i = 0..63: decoded values are within a quantization
# step (scale 8/127 in fp16) of the inputs: min ~ -8, max ~ 7.75, one exact zero
expect_rc 0 "$I" --stats --json q8.gguf
check 'python3 -c "
import json
q = json.load(open(\"out.txt\"))[\"tensors\"][0]
assert q[\"type\"] == \"q8_0\" and q[\"decoded\"] and q[\"elements\"] == 64 and q[\"zeros\"] == 1
assert abs(q[\"min\"] + 8) < 0.01 and abs(q[\"max\"] - 7.75) < 0.01 and abs(q[\"mean\"] + 0.125) < 0.01
"'

# --- --diff ---------------------------------------------------------------------
cp ops.gguf copy.gguf
expect_rc 0 "$I" --diff ops.gguf copy.gguf
check 'grep -q "^identical: 5 tensors with the same type, shape and bytes, the same metadata\$" out.txt'
expect_rc 0 "$I" --diff ops.gguf "$IDX"
check 'grep -q "^metadata: not compared: A is GGUF and B is safetensors" out.txt'
check 'grep -q "^identical: 5 tensors" out.txt'
expect_rc 0 "$I" --diff ops.safetensors "$IDX"
check 'grep -q "^identical: 5 tensors with the same type, shape and bytes, the same __metadata__\$" out.txt'
# one byte flipped: element 0 of w.f32 went 1 -> 4 (byte 3 of 32)
expect_rc 1 "$I" --diff ops.gguf flip.gguf
check 'grep -q "^~ tensor '"'"'w.f32'"'"': data differ from byte 3 of 32, 1 of 8 elements differ, max abs diff 3 (element 0: 1 -> 4)\$" out.txt'
check 'grep -q "^different: 0 metadata keys, 1 tensor\$" out.txt'
expect_rc 1 "$I" --diff ops.gguf ops_meta.gguf
check 'grep -q "^~ key '"'"'general.name'"'"': string \"ops\" -> string \"other\"\$" out.txt'
check 'grep -q "^+ key '"'"'x.extra'"'"' only in B: u32 5\$" out.txt'
check 'grep -q "^different: 2 metadata keys, 0 tensors\$" out.txt'
expect_rc 1 "$I" --diff vec.safetensors ops.safetensors
check 'grep -q "^- tensor '"'"'abc'"'"' only in A: u8 \[3\]\$" out.txt'
check 'grep -q "^+ tensor '"'"'big'"'"' only in B: f32 \[1100000\]\$" out.txt'
check 'grep -q "^+ __metadata__ key '"'"'format'"'"' only in B: \"pt\"\$" out.txt'
# types changed: the values are compared after decoding
expect_rc 1 "$I" --diff ops.safetensors conv.safetensors
check 'grep -q "^~ tensor '"'"'w.f32'"'"': type f32 -> f16, values equal\$" out.txt'
check 'grep -q "^~ tensor '"'"'b.f16'"'"': type f16 -> f32, 1 of 3 elements differ, max abs diff 0.25 (element 2: 2 -> 2.25)\$" out.txt'
check 'grep -q "^- tensor '"'"'i.i32'"'"' only in A: i32 \[2\]\$" out.txt'
check 'grep -q "^different: 0 metadata keys, 5 tensors\$" out.txt'
expect_rc 2 "$I" --diff ops.gguf nosuch.gguf
check 'grep -q "nosuch.gguf" err.txt'
expect_rc 2 "$I" --diff "$DATA/damaged/ggml-vocab-gpt-2.gguf" ops.gguf

# --- --verify -------------------------------------------------------------------
expect_rc 0 "$I" --verify "$IDX"
check 'grep -q "OK: 5 tensors, 4400050 bytes (4.20 MiB) of tensor data read from 2 files" out.txt'
expect_rc 0 "$I" --verify "$SPLIT"
check 'grep -q "read from 3 files" out.txt'
# truncated before it is opened: the library's open names the tensor (GGUF)
head -c 4000000 ops.gguf > trunc.gguf
expect_rc 1 "$I" --verify trunc.gguf
check 'grep -q "tensor '"'"'big'"'"' (#0 of 5) ends at byte" err.txt'
# ... and refuses a safetensors file whose data is cut short
head -c 4000000 ops.safetensors > trunc.safetensors
expect_rc 1 "$I" --verify trunc.safetensors
check 'grep -q "trunc.safetensors: tensor '"'"'big'"'"' (data at bytes 400..4400400 of the file) is cut short: the file ends at byte 4000000; 4 more tensors run past the end" err.txt'
mkdir -p cut_sh && cp ops_sharded/* cut_sh/
head -c 4000000 ops_sharded/model-00001-of-00002.safetensors > cut_sh/model-00001-of-00002.safetensors
expect_rc 1 "$I" --verify cut_sh/model.safetensors.index.json
check 'grep -q "cut_sh/model-00001-of-00002.safetensors: tensor '"'"'big'"'"' (data at bytes 112..4400112 of the file) is cut short: the file ends at byte 4000000\$" err.txt'
# truncated after the open (the test seam cuts the file before the first read):
# a clear error naming the tensor and the offsets, no SIGBUS
cp ops.gguf late.gguf
expect_rc 1 env OPS_TRUNCATE_FILE=late.gguf OPS_TRUNCATE_SIZE=1000000 "$TRUNC" --verify late.gguf
check 'grep -q "late.gguf: tensor '"'"'big'"'"' (data at bytes 320..4400320 of that file): the file ends at byte 1000000, 999680 bytes into the tensor.s data" err.txt'
cp ops.gguf late2.gguf
expect_rc 1 env OPS_TRUNCATE_FILE=late2.gguf OPS_TRUNCATE_SIZE=4400330 "$TRUNC" --hash sha256 late2.gguf
check 'grep -q "tensor '"'"'w.f32'"'"' (data at bytes 4400320..4400352 of that file): the file ends at byte 4400330, 10 bytes" err.txt'
check '[ ! -s out.txt ]'   # no partial manifest
mkdir -p late_sh && cp ops_sharded/* late_sh/
shard2=late_sh/model-00002-of-00002.safetensors
expect_rc 1 env OPS_TRUNCATE_FILE=$shard2 OPS_TRUNCATE_SIZE=100 "$TRUNC" --stats late_sh/model.safetensors.index.json
check 'grep -q "model-00002-of-00002.safetensors: tensor" err.txt'
# replaced after the library's open, before the tool opens it for reading: refused
cp ops.gguf repl.gguf && cp ops_meta.gguf repl_new.gguf
expect_rc 1 env OPS_REPLACE_WITH=repl_new.gguf "$TRUNC" --verify repl.gguf
check 'grep -q "repl.gguf: the file was replaced after it was opened; run again" err.txt'
# damaged corpus files: a clear failure, no crash
for f in "$DATA"/damaged/*.gguf; do
  expect_rc 1 "$I" --verify "$f"
  check '[ -s err.txt ]'
done
# a model with no tensors
expect_rc 0 "$I" --verify "$DATA/vocab-gpt-2.gguf"
check 'grep -q "OK: 0 tensors" out.txt'
expect_rc 0 "$I" --hash xxh3 "$DATA/vocab-gpt-2.gguf"
check '[ "$(tail -1 out.txt)" = "model  2d06800538d394c2" ]'   # XXH3 of no lines = XXH3("")

finish
