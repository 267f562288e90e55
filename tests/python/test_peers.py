# SPDX-License-Identifier: MIT
"""test_peers.py — mio-transcode against the real peers from PyPI (run with the
python of scripts/fetch-py-peers.sh's venv): upstream safetensors (safe_open,
framework="np"; save_file), llama.cpp's gguf-py (GGUFReader, GGUFWriter,
gguf.quants). Checks, each against what the peer itself reads or writes:

1. GGUF -> safetensors: every tensor upstream's safe_open reads has the name,
   the shape (GGUF dims reversed) and the bytes GGUFReader reads from the
   input; quantized tensors decoded (--dequantize) equal gguf.quants.dequantize.
2. safetensors -> GGUF: GGUFReader reads back the names, types, shapes, bytes
   and metadata values of the original.
3. Files the peers wrote come back byte-identical through the other format:
   gguf-py GGUFWriter files (unpadded, many types, every key type) and
   upstream save_file files (with metadata).

usage: test_peers.py MIO_TRANSCODE DATA_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import gguf
from gguf import GGUFReader, GGUFWriter, GGMLQuantizationType as QT
from safetensors import safe_open
from safetensors.numpy import save_file

TRANSCODE, DATA = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


def transcode(*args, rc=0):
    p = subprocess.run([TRANSCODE, "--quiet", *args], capture_output=True, text=True)
    check(p.returncode == rc, f"mio-transcode {' '.join(args)} exited {p.returncode} (want {rc}): {p.stderr.strip()}")
    return p


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


NP_OF = {QT.F32: np.float32, QT.F16: np.float16, QT.F64: np.float64, QT.I8: np.int8,
         QT.I16: np.int16, QT.I32: np.int32, QT.I64: np.int64}


def field_value(f):
    """A GGUFReader field as a comparable Python value."""
    t = f.types
    if t and t[0] == gguf.GGUFValueType.ARRAY:
        if len(t) > 1 and t[1] == gguf.GGUFValueType.STRING:
            return ("arr-str", [bytes(f.parts[i]) for i in f.data])
        if len(t) > 1 and t[1] == gguf.GGUFValueType.ARRAY:
            return ("nested", [bytes(p) for p in f.parts])
        return ("arr", t[1:], [f.parts[i].tobytes() for i in f.data])
    if t and t[0] == gguf.GGUFValueType.STRING:
        return ("str", bytes(f.parts[-1]))
    return ("scalar", t, f.parts[-1].tobytes())


def compare_gguf_to_st(gguf_path, st_path, decoded=False):
    r = GGUFReader(gguf_path)
    with safe_open(st_path, framework="np") as s:
        names = set(s.keys())
        check(names == {t.name for t in r.tensors}, f"{st_path}: names differ from {gguf_path}")
        for t in r.tensors:
            if t.name not in names:
                continue
            a = s.get_tensor(t.name)
            ne = [int(x) for x in t.shape]  # gguf-py: ne order, innermost first
            check(list(a.shape) == ne[::-1], f"{t.name}: shape {list(a.shape)} vs ne {ne}")
            if t.tensor_type in NP_OF:
                check(a.tobytes() == t.data.tobytes(), f"{t.name}: bytes differ")
            elif t.tensor_type == QT.BF16:
                check(a.tobytes() == np.asarray(t.data).tobytes(), f"{t.name}: BF16 bytes differ")
            elif decoded:
                want = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32).reshape(a.shape)
                if t.tensor_type in (QT.Q8_0, QT.Q4_0):  # d * q: exact in any evaluation order
                    check(a.tobytes() == want.tobytes(), f"{t.name}: decoded bytes differ from gguf.quants")
                else:
                    check(np.allclose(a, want, rtol=1e-5, atol=1e-6), f"{t.name}: decoded values differ")


def compare_gguf_to_gguf_fields(a_path, b_path):
    a, b = GGUFReader(a_path), GGUFReader(b_path)
    fa = {k: field_value(v) for k, v in a.fields.items() if not k.startswith("GGUF.")}
    fb = {k: field_value(v) for k, v in b.fields.items() if not k.startswith("GGUF.")}
    check(list(fa) == list(fb), f"{b_path}: key order differs from {a_path}")
    for k in fa:
        check(fa[k] == fb.get(k), f"{b_path}: key {k} differs")


def main():
    work = tempfile.mkdtemp(prefix="mio_peers_")
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def run(w):
    j = lambda n: os.path.join(w, n)
    # 1./2. the converter's GGUF files (real vocabularies) through safetensors
    for name in ("vocab-gpt-2.gguf", "vocab-llama-spm.gguf"):
        src = os.path.join(DATA, name)
        transcode(src, j(name + ".safetensors"))
        compare_gguf_to_st(src, j(name + ".safetensors"))
        transcode(j(name + ".safetensors"), j(name + ".back.gguf"))
        check(same_bytes(src, j(name + ".back.gguf")), f"{name}: GGUF -> safetensors -> GGUF not identical")
        compare_gguf_to_gguf_fields(src, j(name + ".back.gguf"))
        # upstream reads our __metadata__ as a str -> str map with the plain values
        with safe_open(j(name + ".safetensors"), framework="np") as s:
            md = s.metadata()
        r = GGUFReader(src)
        arch = bytes(r.fields["general.architecture"].parts[-1]).decode()
        check(md.get("general.architecture") == arch, f"{name}: general.architecture not '{arch}' in __metadata__")
        check(md.get("__gguf__", "").startswith('{"version":3,'), f"{name}: __gguf__ layout missing")

    # 3a. a gguf-py file with many tensor types and every key type
    rng = np.random.default_rng(7)
    gw = GGUFWriter(j("py.gguf"), "llama")
    gw.add_uint8("t.u8", 250)
    gw.add_int8("t.i8", -3)
    gw.add_uint16("t.u16", 65000)
    gw.add_int16("t.i16", -30000)
    gw.add_uint32("t.u32", 4000000000)
    gw.add_int32("t.i32", -2000000000)
    gw.add_uint64("t.u64", 2**64 - 1)
    gw.add_int64("t.i64", -(2**63))
    gw.add_float32("t.f32", 3.14159)
    gw.add_float64("t.f64", -2.5e-300)
    gw.add_bool("t.bool", False)
    gw.add_string("t.str", "héllo\ttab \"q\" \\ \u2603")
    gw.add_array("t.arr_i32", [1, -2, 3])
    gw.add_array("t.arr_str", ["a", "", "ü", "<0x0A>"])
    gw.add_array("t.arr_f32", [0.25, -1.5])
    tensors = {
        "f32": rng.standard_normal((3, 64)).astype(np.float32),
        "f16": rng.standard_normal((2, 32)).astype(np.float16),
        "f64": rng.standard_normal((5,)).astype(np.float64),
        "i8": rng.integers(-128, 127, (4, 4, 2), dtype=np.int8),
        "i16": rng.integers(-30000, 30000, (7,), dtype=np.int16),
        "i32": rng.integers(-2**31, 2**31 - 1, (2, 3), dtype=np.int32),
        "i64": rng.integers(-2**62, 2**62, (3,), dtype=np.int64),
    }
    for n, a in tensors.items():
        gw.add_tensor("w." + n, a)
    q_src = rng.standard_normal((4, 64)).astype(np.float32)
    gw.add_tensor("w.q8_0", gguf.quants.quantize(q_src, QT.Q8_0), raw_dtype=QT.Q8_0)
    gw.add_tensor("w.q4_0", gguf.quants.quantize(q_src, QT.Q4_0), raw_dtype=QT.Q4_0)
    gw.write_header_to_file()
    gw.write_kv_data_to_file()
    gw.write_tensors_to_file()
    gw.close()
    # quantized tensors need --dequantize; nothing is written without it
    p = transcode(j("py.gguf"), j("py.safetensors"), rc=1)
    check("--dequantize" in p.stderr or "dequantize" in p.stderr, "refusal does not mention --dequantize")
    check(not os.path.exists(j("py.safetensors")), "a refused conversion left a file")
    transcode("--dequantize", j("py.gguf"), j("py.safetensors"))
    compare_gguf_to_st(j("py.gguf"), j("py.safetensors"), decoded=True)
    # without the quantized tensors: the round trip is exact
    gw = GGUFWriter(j("pyf.gguf"), "llama")
    gw.add_string("t.str", "x")
    gw.add_array("t.arr_str", ["a", "b"])
    for n, a in tensors.items():
        gw.add_tensor("w." + n, a)
    gw.write_header_to_file()
    gw.write_kv_data_to_file()
    gw.write_tensors_to_file()
    gw.close()
    transcode(j("pyf.gguf"), j("pyf.safetensors"))
    compare_gguf_to_st(j("pyf.gguf"), j("pyf.safetensors"))
    transcode(j("pyf.safetensors"), j("pyf.back.gguf"))
    check(same_bytes(j("pyf.gguf"), j("pyf.back.gguf")), "gguf-py file: GGUF -> safetensors -> GGUF not identical")
    # the full key set (keys only, no tensors: gguf-py leaves the empty data section unpadded)
    gw = GGUFWriter(j("keys.gguf"), "llama")
    for k, v in (("a.u64", 2**64 - 1), ("a.s", "text")):
        (gw.add_uint64 if isinstance(v, int) else gw.add_string)(k, v)
    gw.add_float32("a.f", float("nan"))
    gw.write_header_to_file()
    gw.write_kv_data_to_file()
    gw.close()
    transcode(j("keys.gguf"), j("keys.safetensors"))
    transcode(j("keys.safetensors"), j("keys.back.gguf"))
    check(same_bytes(j("keys.gguf"), j("keys.back.gguf")), "gguf-py keys-only file not identical after the round trip")
    # our GGUF, read by gguf-py: every field as in the gguf-py original (py.gguf via st and back, decoded)
    transcode(j("py.safetensors"), j("py.back.gguf"))
    compare_gguf_to_gguf_fields(j("py.gguf"), j("py.back.gguf"))
    rb = GGUFReader(j("py.back.gguf"))
    types = {t.name: t.tensor_type for t in rb.tensors}
    check(types.get("w.q8_0") == QT.F32, "decoded tensor is not F32 in the GGUF written back")
    check(types.get("w.i16") == QT.I16 and types.get("w.f64") == QT.F64, "integer/f64 types not kept")

    # 3b. upstream safetensors files -> GGUF (gguf-py reads it) -> safetensors, byte-identical
    arrays = {
        "model.embed.weight": rng.standard_normal((8, 4)).astype(np.float32),
        "model.norm.weight": rng.standard_normal((4,)).astype(np.float16),
        "counts": np.arange(6, dtype=np.int64).reshape(2, 3),
        "scalar": np.array(3.5, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
    }
    # One metadata key: upstream writes __metadata__ in Rust HashMap order, which
    # changes from run to run with several keys (we write them sorted); a
    # two-key file is compared header-parsed below.
    save_file(arrays, j("up.safetensors"), metadata={"note": "written by upstream"})
    save_file(arrays, j("up2.safetensors"), metadata={"format": "np", "b": "two"})
    transcode(j("up.safetensors"), j("up.gguf"))
    r = GGUFReader(j("up.gguf"))
    got = {t.name: t for t in r.tensors}
    check(set(got) == set(arrays), "GGUF from upstream safetensors: names differ")
    for n, a in arrays.items():
        t = got.get(n)
        if t is None:
            continue
        ne = [int(x) for x in t.shape]
        want_ne = list(a.shape[::-1]) if a.ndim else [1]
        check(ne == want_ne, f"{n}: ne {ne}, want {want_ne}")
        check(np.asarray(t.data).tobytes() == a.tobytes(), f"{n}: bytes differ in GGUF")
    f = r.fields.get("safetensors.metadata.note")
    check(f is not None and bytes(f.parts[-1]) == b"written by upstream", "metadata not carried as safetensors.metadata.note")
    transcode(j("up.gguf"), j("up.back.safetensors"))
    check(same_bytes(j("up.safetensors"), j("up.back.safetensors")),
          "upstream safetensors -> GGUF -> safetensors not identical")
    transcode(j("up2.safetensors"), j("up2.gguf"))
    transcode(j("up2.gguf"), j("up2.back.safetensors"))
    import json, struct
    def header_and_data(path):
        d = open(path, "rb").read()
        n = struct.unpack("<Q", d[:8])[0]
        return json.loads(d[8:8 + n]), d[8 + n:]
    h1, d1 = header_and_data(j("up2.safetensors"))
    h2, d2 = header_and_data(j("up2.back.safetensors"))
    check(h1 == h2 and d1 == d2, "two-key upstream file: header or data changed through GGUF")
    # sharded: upstream reads every shard of our checkpoint
    transcode("--max-shard-size", "100", j("pyf.gguf"), j("shards") + "/")
    idx = j("shards/model.safetensors.index.json")
    check(os.path.exists(idx), "no index for a sharded output")
    wm = json.load(open(idx))["weight_map"]
    seen = {}
    for shard in sorted(set(wm.values())):
        with safe_open(j("shards/" + shard), framework="np") as s:
            for k in s.keys():
                seen[k] = s.get_tensor(k)
    rp = GGUFReader(j("pyf.gguf"))
    for t in rp.tensors:
        check(t.name in seen and seen[t.name].tobytes() == t.data.tobytes(), f"sharded: {t.name} differs")
    transcode(idx, j("shards.back.gguf"))
    check(same_bytes(j("pyf.gguf"), j("shards.back.gguf")), "sharded -> GGUF not identical to the original")


if __name__ == "__main__":
    sys.exit(main())
