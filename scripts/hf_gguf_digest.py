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
import sys


def _h(b):
    return hashlib.sha256(b).hexdigest()[:20]


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
