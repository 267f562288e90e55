# SPDX-License-Identifier: MIT
"""bench_convert.py — GGUF <-> safetensors: libmodelio (through ctypes) against
the Python peers doing the same job (llama.cpp's gguf-py + upstream
safetensors), in one process, on the same files, interleaved rounds; prints
medians and the ratio. Run with the python of scripts/fetch-py-peers.sh:

  PY=$(scripts/fetch-py-peers.sh)
  $PY bench/bench_convert.py build/src/libmodelio.so [MB] [rounds]

The model: a llama-shaped GGUF of F16 matrices and F32 norms, MB megabytes
(default 256), plus a vocabulary's worth of metadata (32000 token strings).
What is timed, per direction, output on the same file system:
  GGUF -> safetensors   ours: mio_gguf_to_st
                        peer: GGUFReader(path) + {name: tensor.data reshaped}
                              + safetensors.numpy.save_file (metadata as strings)
  safetensors -> GGUF   ours: mio_st_to_gguf
                        peer: safe_open(framework="np") + GGUFWriter
                              (add_tensor for each, write header/kv/tensors)
Each output is deleted after its run; the page cache holds the input.
"""
import ctypes
import os
import statistics
import sys
import tempfile
import time

import numpy as np
from gguf import GGUFReader, GGUFWriter
from safetensors import safe_open
from safetensors.numpy import save_file

lib = ctypes.CDLL(sys.argv[1])
MB = int(sys.argv[2]) if len(sys.argv) > 2 else 256
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
lib.mio_gguf_to_st.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
lib.mio_st_to_gguf.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
lib.mio_last_error.restype = ctypes.c_char_p


def make_model(path):
    rng = np.random.default_rng(1)
    w = GGUFWriter(path, "llama")
    w.add_block_count(8)
    w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(32000)])
    w.add_array("tokenizer.ggml.scores", [float(-i) for i in range(32000)])
    dim = 1024
    per_layer = 4 * dim * dim * 2  # four F16 matrices
    layers = max(1, MB * 1000000 // per_layer)
    for b in range(layers):
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(f"blk.{b}.{n}.weight", rng.standard_normal((dim, dim)).astype(np.float16))
        w.add_tensor(f"blk.{b}.attn_norm.weight", np.ones(dim, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def ours_g2s(src, dst):
    if lib.mio_gguf_to_st(src.encode(), dst.encode(), None) != 0:
        raise RuntimeError(lib.mio_last_error().decode())


def ours_s2g(src, dst):
    if lib.mio_st_to_gguf(src.encode(), dst.encode(), None) != 0:
        raise RuntimeError(lib.mio_last_error().decode())


def peer_g2s(src, dst):
    r = GGUFReader(src)
    tensors = {t.name: np.asarray(t.data).reshape([int(x) for x in t.shape][::-1]) for t in r.tensors}
    meta = {}
    for k, f in r.fields.items():
        if k.startswith("GGUF."):
            continue
        meta[k] = str(f.contents())
    save_file(tensors, dst, metadata=meta)


def peer_s2g(src, dst):
    w = GGUFWriter(dst, "llama")
    with safe_open(src, framework="np") as s:
        for k in s.keys():
            w.add_tensor(k, s.get_tensor(k))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def timed(fn, src, dst):
    t0 = time.perf_counter()
    fn(src, dst)
    t = time.perf_counter() - t0
    os.unlink(dst)
    return t


def main():
    d = tempfile.mkdtemp(prefix="bench_convert_", dir=os.environ.get("BENCH_DIR"))
    g = os.path.join(d, "m.gguf")
    make_model(g)
    s = os.path.join(d, "m.safetensors")
    ours_g2s(g, s)
    size = os.path.getsize(g)
    print(f"model: {size / 1e6:.0f} MB GGUF, {ROUNDS} interleaved rounds (1 warm-up)")
    res = {k: [] for k in ("ours_g2s", "peer_g2s", "ours_s2g", "peer_s2g")}
    for r in range(ROUNDS + 1):
        times = {
            "ours_g2s": timed(ours_g2s, g, os.path.join(d, "o.safetensors")),
            "peer_g2s": timed(peer_g2s, g, os.path.join(d, "p.safetensors")),
            "ours_s2g": timed(ours_s2g, s, os.path.join(d, "o.gguf")),
            "peer_s2g": timed(peer_s2g, s, os.path.join(d, "p.gguf")),
        }
        if r:
            for k, v in times.items():
                res[k].append(v)
    for direction, o, p in (("GGUF -> safetensors", "ours_g2s", "peer_g2s"),
                            ("safetensors -> GGUF", "ours_s2g", "peer_s2g")):
        mo, mp = statistics.median(res[o]), statistics.median(res[p])
        print(f"{direction}: libmodelio {mo * 1e3:8.1f} ms ({size / 1e6 / mo:6.0f} MB/s)   "
              f"gguf-py+safetensors {mp * 1e3:8.1f} ms ({size / 1e6 / mp:6.0f} MB/s)   ratio {mp / mo:5.2f}x")
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)


if __name__ == "__main__":
    main()
