#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_seeds.py - writes the small seed corpora of the fuzz targets that have
no ready-made seed files in tests/data (tests/fuzz/seeds/<target>/). Run it
from anywhere; the output is committed. Seeds are deterministic.
  decode    one file per ggml type: the type byte and 4 blocks of bytes
  kv_edit   --set specs of every value type, and a few refusals
  st_index  a valid index over the two shards fuzz_st_index.c writes
  imatrix   a legacy .dat imatrix and a GGUF imatrix (format of llama.cpp)
  lora      tests/data/lora/peft-real as "config NUL safetensors"
  st_frame  two golden safetensors files back to back (two frames)
  ckpt      an FZT1 file, a state dict, a trainer_state.json and a sentinel,
            each behind its selector byte"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
OUT = os.path.join(HERE, "seeds")

# ggml block sizes in bytes for the codes 0..42 (None: no such type)
BLOCK_BYTES = {0: 4, 1: 2, 2: 18, 3: 20, 6: 22, 7: 24, 8: 34, 9: 36, 10: 84, 11: 110, 12: 144, 13: 176,
               14: 210, 15: 292, 16: 66, 17: 74, 18: 98, 19: 50, 20: 18, 21: 110, 22: 82, 23: 136, 24: 1,
               25: 2, 26: 4, 27: 8, 28: 8, 29: 56, 30: 2, 34: 54, 35: 66, 39: 17}


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def main():
    rng = random.Random(12)
    for t, bb in BLOCK_BYTES.items():
        put("decode", "type-%02d" % t, bytes([t]) + bytes(rng.randrange(256) for _ in range(4 * bb)))

    specs = ["general.name=str:tiny", "a.u8=u8:255", "a.i8=i8:-128", "a.u16=u16:65535", "a.i16=i16:-1",
             "a.u32=u32:4294967295", "a.i32=i32:-2147483648", "a.u64=u64:18446744073709551615",
             "a.i64=i64:-9223372036854775808", "a.f32=f32:1.5e-3", "a.f64=f64:-inf", "a.b=bool:true",
             "a.int=int:7", "a.float=float:nan", "x.y", "=str:", "k=u8:256", "k=bogus:1"]
    for i, s in enumerate(specs):
        put("kv_edit", "spec-%02d" % i, s.encode())

    index = {"metadata": {"total_size": 24},
             "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00001-of-00002.safetensors",
                            "c": "model-00002-of-00002.safetensors"}}
    put("st_index", "index.json", json.dumps(index, indent=2).encode())

    # legacy imatrix: n_entries, then per entry: name length, name, ncall, nval, values; then
    # the chunk count and the dataset name
    legacy = struct.pack("<i", 2)
    for name, n in (("blk.0.ffn_up.weight", 8), ("blk.0.attn_q.weight", 4)):
        legacy += struct.pack("<i", len(name)) + name.encode() + struct.pack("<ii", 10, n)
        legacy += struct.pack("<%df" % n, *[float(i + 1) for i in range(n)])
    legacy += struct.pack("<i", 10) + struct.pack("<i", 8) + b"wiki.txt"
    put("imatrix", "legacy.dat", legacy)

    # GGUF imatrix (llama-imatrix's format): metadata + NAME.in_sum2 / NAME.counts f32 tensors
    kvs = [("general.type", 8, gguf_str("imatrix")),
           ("imatrix.datasets", 9, struct.pack("<IQ", 8, 1) + gguf_str("wiki.txt")),
           ("imatrix.chunk_count", 4, struct.pack("<I", 10)),
           ("imatrix.chunk_size", 4, struct.pack("<I", 512))]
    tensors = [("blk.0.ffn_up.weight.in_sum2", [8, 1], [float(i) for i in range(8)]),
               ("blk.0.ffn_up.weight.counts", [1, 1], [10.0])]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for k, t, v in kvs:
        head += gguf_str(k) + struct.pack("<I", t) + v
    off, blobs = 0, b""
    for name, ne, vals in tensors:
        head += gguf_str(name) + struct.pack("<I", len(ne)) + struct.pack("<%dQ" % len(ne), *ne)
        head += struct.pack("<IQ", 0, off)
        blob = struct.pack("<%df" % len(vals), *vals)
        blob += b"\0" * ((-len(blob)) % 32)
        blobs += blob
        off += len(blob)
    head += b"\0" * ((-len(head)) % 32)
    put("imatrix", "imatrix.gguf", head + blobs)

    peft = os.path.join(DATA, "lora", "peft-real")
    with open(os.path.join(peft, "adapter_config.json"), "rb") as f:
        cfg = f.read()
    with open(os.path.join(peft, "adapter_model.safetensors"), "rb") as f:
        st = f.read()
    put("lora", "peft-real", cfg + b"\0" + st)

    golden = os.path.join(DATA, "safetensors", "golden")
    files = sorted(os.listdir(golden))[:2]
    two = b""
    for name in files:
        with open(os.path.join(golden, name), "rb") as f:
            two += f.read()
    put("st_frame", "two-frames", two)

    # ckpt: byte 0 picks the parser. FZT1: a scalar 1.5 and a [2, 1] tensor;
    # a state dict: "a" I64 [1] = 7 and "b" F32 [2, 1]
    fz = b"FZT1" + struct.pack("<I", 2) + struct.pack("<If", 0, 1.5)
    fz += struct.pack("<IQQ", 2, 2, 1) + struct.pack("<2f", -2.0, 0.25)
    put("ckpt", "fzt1", b"\0" + fz)
    hdr = (b'{"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},'
           b'"b":{"dtype":"F32","shape":[2,1],"data_offsets":[8,16]}}')
    hdr += b" " * ((-len(hdr)) % 8)
    sd = struct.pack("<Q", len(hdr)) + hdr + struct.pack("<q2f", 7, 1.5, -2.0)
    put("ckpt", "state-dict", b"\1" + sd)
    ts = (b'{\n  "format": "fucina.training_checkpoint",\n  "version": 1,\n  "step": 100,\n'
          b'  "seed": 9223372036854775813,\n  "lr": 0.001,\n  "es_noise": 2\n}\n')
    put("ckpt", "trainer-state", b"\2" + ts)
    sent = (b'{\n  "format": "libmodelio.checkpoint",\n  "version": 1,\n  "files": [\n'
            b'    {"name": "model.safetensors", "size": 88, "xxh3_64": "0123456789abcdef"},\n'
            b'    {"name": "trainer_state.json", "size": 139, "xxh3_64": "fedcba9876543210"}\n  ]\n}\n')
    put("ckpt", "sentinel", b"\3" + sent)


if __name__ == "__main__":
    main()
