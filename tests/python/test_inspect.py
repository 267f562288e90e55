# SPDX-License-Identifier: MIT
"""modelio.inspect against mio-inspect on the same files: hash_manifest is the
text --hash prints (every algorithm), describe the object --json prints, stats
the "tensors" of --stats --json, diff the items and counts --diff prints, check
what --check says. Files: the corpus copies in tests/data (GGUF vocabularies,
safetensors goldens with every dtype, integer and FP8 included) and two small
GGUFs with tensors written here through the library's writer. argv[1]:
mio-inspect, argv[2]: tests/data."""
import ctypes as C
import json
import os
import re
import subprocess
import sys
import tempfile

from modelio import _lib, inspect
from modelio._lib import lib

TOOL, DATA = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def cli(*args):
    r = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def write_gguf(path, scale, extra_key):
    w = C.c_void_p()
    lib.mio_writer_new.argtypes = [C.c_uint32, C.POINTER(C.c_void_p)]
    _lib.check(lib.mio_writer_new(0, C.byref(w)))
    lib.mio_writer_set_str.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_size_t]
    lib.mio_writer_set_u32.argtypes = [C.c_void_p, C.c_char_p, C.c_uint32]
    _lib.check(lib.mio_writer_set_str(w, b"general.architecture", b"llama", 5))
    _lib.check(lib.mio_writer_set_u32(w, b"llama.block_count", 2 if extra_key else 1))
    if extra_key:
        _lib.check(lib.mio_writer_set_u32(w, b"x.extra", 7))
    lib.mio_writer_add_tensor.argtypes = [C.c_void_p, C.c_char_p, C.c_int, C.c_uint32, C.POINTER(C.c_int64),
                                          C.c_void_p, C.c_size_t]
    a = (C.c_float * 64)(*[(i - 20) * 0.25 * scale for i in range(64)])
    a[5] = 0.0
    ne = (C.c_int64 * 2)(16, 4)
    _lib.check(lib.mio_writer_add_tensor(w, b"blk.0.attn_q.weight", 0, 2, ne, a, C.sizeof(a)))
    b = (C.c_float * 8)(*[1.0] * 8)
    ne1 = (C.c_int64 * 1)(8)
    _lib.check(lib.mio_writer_add_tensor(w, b"output_norm.weight", 0, 1, ne1, b, C.sizeof(b)))
    lib.mio_writer_write_file.argtypes = [C.c_void_p, C.c_char_p]
    _lib.check(lib.mio_writer_write_file(w, os.fsencode(path)))
    lib.mio_writer_free.argtypes = [C.c_void_p]
    lib.mio_writer_free(w)


with tempfile.TemporaryDirectory() as tmp:
    ga, gb = os.path.join(tmp, "a.gguf"), os.path.join(tmp, "b.gguf")
    write_gguf(ga, 1.0, False)
    write_gguf(gb, 2.0, True)
    files = [ga, gb, os.path.join(DATA, "vocab-gpt-2.gguf")] + [
        os.path.join(DATA, "safetensors", "golden", n) for n in
        ("all_dtypes.safetensors", "three_dtypes.safetensors", "scalar.safetensors", "no_tensors_meta.safetensors")]
    for f in files:
        name = os.path.basename(f)
        check(inspect.detect_format(f) == ("GGUF" if f.endswith(".gguf") else "safetensors"), name + ": format")
        for alg in inspect.HASH_ALGORITHMS:
            rc, out, err = cli("--hash", alg, f)
            check(rc == 0 and inspect.hash_manifest(f, alg) == out, "%s: hash_manifest(%s) is --hash's text" % (name, alg))
        rc, out, _ = cli("--json", f)
        check(rc == 0 and inspect.describe(f) == json.loads(out), name + ": describe() is --json")
        rc, out, _ = cli(f)
        check(rc == 0 and inspect.describe_text(f) == out, name + ": describe_text() is the summary")
        rc, out, _ = cli("--markdown", f)
        check(rc == 0 and inspect.markdown(f) == out, name + ": markdown() is --markdown")
        rc, out, _ = cli("--stats", "--json", f)
        want = json.loads(out)["tensors"] if rc == 0 else None
        check(want is not None and inspect.stats(f) == want, name + ": stats() is --stats --json's tensors")
        man = os.path.join(tmp, name + ".manifest")
        with open(man, "w") as fp:
            fp.write(inspect.hash_manifest(f, "xxh64"))
        r = inspect.check(man, f)
        rc, out, _ = cli("--check", man, f)
        check(r["ok"] and rc == 0 and "OK: %d tensor" % r["tensors"] in out, name + ": check() agrees with --check")
        rc, out, _ = cli("--verify", f)
        check(rc == 0 and "%d bytes" % inspect.verify(f) in out, name + ": verify() reads what --verify reads")

    # the integer and FP8 dtypes decode: every tensor of all_dtypes has statistics
    st = inspect.stats(os.path.join(DATA, "safetensors", "golden", "all_dtypes.safetensors"))
    by = {t["type"]: t for t in st}
    for ty in ("u8", "i32", "bool", "f8_e4m3", "f8_e5m2"):
        check(ty in by and by[ty]["decoded"], "all_dtypes: %s decoded (%s)" % (ty, by.get(ty)))

    # summary: numbers checkable by hand (a.gguf: llama, block_count 1, 64 + 8 f32 elements)
    sm = inspect.summary(ga)
    check(sm["architecture"] == "llama" and sm["layers"] == 1 and sm["parameters"] == 72 and
          sm["tensor_bytes"] == 288 and sm["bits_per_weight"] == 32.0 and
          sm["types"] == [{"type": "f32", "tensors": 2, "elements": 72, "bytes": 288}], "summary %s" % sm)
    sv = inspect.summary(os.path.join(DATA, "vocab-gpt-2.gguf"))
    check(sv["architecture"] == "gpt2" and sv["vocabulary"] == 50257 and sv["tensors"] == 0, "vocab summary %s" % sv)
    sd = inspect.summary(os.path.join(DATA, "safetensors", "golden", "all_dtypes.safetensors"))
    check(sd["format"] == "safetensors" and sd["architecture"] == "" and len(sd["types"]) == sd["tensors"],
          "safetensors summary %s" % sd)

    # diff: the same counts and the same item names, in --diff's order
    d = inspect.diff(ga, gb)
    rc, out, _ = cli("--diff", ga, gb)
    m = re.search(r"different: (\d+) metadata keys?, (\d+) tensors?", out)
    check(rc == 1 and m and (d["keys"], d["tensors"]) == (int(m.group(1)), int(m.group(2))),
          "diff counts %s vs %r" % ((d["keys"], d["tensors"]), out))
    names = re.findall(r"^[-+~] (?:key|tensor) '([^']*)'", out, re.M)
    check([i["name"] for i in d["items"]] == names, "diff items %s vs %s" % ([i["name"] for i in d["items"]], names))
    ch = {i["name"]: i for i in d["items"]}
    check(ch["llama.block_count"]["a"] == "u32 1" and ch["llama.block_count"]["b"] == "u32 2", "kv text %s" % ch)
    q = ch["blk.0.attn_q.weight"]
    # b = 2 a: the largest difference is at the largest |a| (element 63: 10.75 -> 21.5)
    check(q["max_abs_diff"] == 10.75 and q["max_at"] == 63 and q["values_differ"] == 62, "value diff %s" % q)
    check("max abs diff 10.75 (element 63: 10.75 -> 21.5)" in out, "--diff prints the same: " + out)
    check(inspect.diff(ga, ga)["identical"], "a model equals itself")
    # check: a manifest of A against B names both changed tensors' problems
    man = os.path.join(tmp, "a.manifest")
    with open(man, "w") as fp:
        fp.write(inspect.hash_manifest(ga, "sha256"))
    r = inspect.check(man, gb)
    rc, _, err = cli("--check", man, gb)
    check(not r["ok"] and r["differ"] == 1 and rc == 1 and "1 of 2 tensors differ" in err, "check mismatch %s %s" % (r, err))
    check([p["name"] for p in r["problems"]] == ["blk.0.attn_q.weight"], "check problems %s" % r["problems"])

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
