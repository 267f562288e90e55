#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hf_gguf_digest.py — a GGUF file's structure as gguf-py's GGUFReader sees it,
with each value and each tensor's data reduced to a sha256 prefix: enough to
prove two files have the same keys in the same order with the same types, and
which values / tensors differ, without keeping either file. Used by
make-hf-reference.py (recorded for the documented tokenizer cases) and
tests/tools/test_hf_convert_ref.py; needs the PyPI `gguf` package.
  usage: hf_gguf_digest.py FILE.gguf     (prints the digest as JSON)
"""
import hashlib
import json
import mmap
import struct
import sys


def _h(b):
    return hashlib.sha256(b).hexdigest()[:20]


# fixed-width GGUF value types: size in bytes (8 string, 9 array are variable)
_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def digest_fast(path):
    """The same digest as digest(), by walking the file directly: GGUFReader
    builds a numpy view per array element and needs seconds for a 128k-token
    vocabulary; this needs milliseconds. The test checks both agree."""
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        magic, version, n_t, n_kv = struct.unpack_from("<4sIQQ", m, 0)
        if magic != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        kv = [["GGUF.version", [4], _h(b"")], ["GGUF.tensor_count", [10], _h(b"")],
              ["GGUF.kv_count", [10], _h(b"")]]
        off = 24
        align = 32

        def skip_value(t, o):
            if t == 8:
                (n,) = struct.unpack_from("<Q", m, o)
                return o + 8 + n
            if t == 9:
                at, n = struct.unpack_from("<IQ", m, o)
                o += 12
                if at in _SIZES:
                    return o + n * _SIZES[at]
                for _ in range(n):
                    o = skip_value(at, o)
                return o
            return o + _SIZES[t]

        for _ in range(n_kv):
            (kl,) = struct.unpack_from("<Q", m, off)
            key = bytes(m[off + 8:off + 8 + kl]).decode()
            vo = off + 8 + kl
            (t,) = struct.unpack_from("<I", m, vo)
            end = skip_value(t, vo + 4)
            types = [t]
            if t == 9:
                types.append(struct.unpack_from("<I", m, vo + 4)[0])
            if key == "general.alignment":
                (align,) = struct.unpack_from("<I", m, vo + 4)
            kv.append([key, types, _h(bytes(m[vo:end]))])
            off = end
        infos = []
        for _ in range(n_t):
            (nl,) = struct.unpack_from("<Q", m, off)
            name = bytes(m[off + 8:off + 8 + nl]).decode()
            o = off + 8 + nl
            (nd,) = struct.unpack_from("<I", m, o)
            dims = list(struct.unpack_from(f"<{nd}Q", m, o + 4))
            o += 4 + 8 * nd
            ttype, toff = struct.unpack_from("<IQ", m, o)
            infos.append((name, ttype, dims, toff))
            off = o + 12
        base = -(-off // align) * align
        ends = [i[3] for i in infos[1:]] + [len(m) - base]
        tensors = []
        for (name, ttype, dims, toff), nxt in zip(infos, ends):
            nbytes = _tensor_nbytes(ttype, dims)
            tensors.append([name, ttype, dims, _h(bytes(m[base + toff:base + toff + nbytes]))])
        return {"kv": kv, "tensors": tensors}
    finally:
        m.close()


def _tensor_nbytes(ttype, dims):
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType
    bs, ts = GGML_QUANT_SIZES[GGMLQuantizationType(ttype)]
    n = 1
    for d in dims:
        n *= d
    return n // bs * ts


def digest(path):
    from gguf import GGUFReader
    r = GGUFReader(path)
    kv = []
    for name, f in r.fields.items():
        # parts: key length, key, value type[, array type, count], value parts
        val = b"".join(bytes(p) for p in f.parts[2:])
        kv.append([name, [int(t) for t in f.types], _h(val)])
    tensors = [[t.name, int(t.tensor_type), [int(x) for x in t.shape], _h(t.data.tobytes())] for t in r.tensors]
    return {"kv": kv, "tensors": tensors}


def compare(ours, ref):
    """(problems, differing keys): problems are structural mismatches and
    differing tensors; differing keys are keys whose value bytes differ."""
    problems, diff = [], []
    ko, kr = [k[0] for k in ours["kv"]], [k[0] for k in ref["kv"]]
    if ko != kr:
        problems.append(f"keys differ: ours {ko} reference {kr}")
        return problems, diff
    for a, b in zip(ours["kv"], ref["kv"]):
        if a[1] != b[1]:
            problems.append(f"{a[0]}: type {a[1]} vs reference {b[1]}")
        elif a[2] != b[2]:
            diff.append(a[0])
    to, tr = [t[:3] for t in ours["tensors"]], [t[:3] for t in ref["tensors"]]
    if to != tr:
        problems.append(f"tensor list differs: ours {to} reference {tr}")
    else:
        for a, b in zip(ours["tensors"], ref["tensors"]):
            if a[3] != b[3]:
                problems.append(f"tensor {a[0]}: data differs")
    return problems, diff


if __name__ == "__main__":
    json.dump(digest(sys.argv[1]), sys.stdout)
    sys.stdout.write("\n")
