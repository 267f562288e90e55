# SPDX-License-Identifier: MIT
"""modelio._estimate.estimate against `mio-inspect --estimate --json` on the
same models and options: the same object, key by key, and the same refusal of a
quantized V cache without flash attention. argv[1]: mio-inspect. The models
(llama, gemma3 with a sliding window) are written through the library's GGUF
writer with ctypes."""
import json
import os
import subprocess
import sys
import tempfile

from modelio import _lib
from modelio._estimate import estimate
from modelio._lib import lib
import ctypes as C

TOOL = sys.argv[1]


def write_model(path, arch, n_layer, n_head_kv, n_swa=0):
    w = C.c_void_p()
    lib.mio_writer_new.argtypes = [C.c_uint32, C.POINTER(C.c_void_p)]
    _lib.check(lib.mio_writer_new(0, C.byref(w)))
    lib.mio_writer_set_str.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_size_t]
    lib.mio_writer_set_u32.argtypes = [C.c_void_p, C.c_char_p, C.c_uint32]
    _lib.check(lib.mio_writer_set_str(w, b"general.architecture", arch.encode(), len(arch)))
    for k, v in (("block_count", n_layer), ("embedding_length", 512), ("feed_forward_length", 1024),
                 ("context_length", 8192), ("attention.head_count", 8), ("attention.head_count_kv", n_head_kv),
                 ("vocab_size", 1000)) + ((("attention.sliding_window", n_swa),) if n_swa else ()):
        _lib.check(lib.mio_writer_set_u32(w, ("%s.%s" % (arch, k)).encode(), v))
    data = (C.c_float * 5120)()
    ne = (C.c_int64 * 2)(512, 10)
    lib.mio_writer_add_tensor.argtypes = [C.c_void_p, C.c_char_p, C.c_int, C.c_uint32, C.POINTER(C.c_int64),
                                          C.c_void_p, C.c_size_t]
    _lib.check(lib.mio_writer_add_tensor(w, b"token_embd.weight", 0, 2, ne, data, C.sizeof(data)))
    lib.mio_writer_write_file.argtypes = [C.c_void_p, C.c_char_p]
    _lib.check(lib.mio_writer_write_file(w, os.fsencode(path)))
    lib.mio_writer_free.argtypes = [C.c_void_p]
    lib.mio_writer_free(w)


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        models = {"llama": os.path.join(d, "llama.gguf"), "gemma3": os.path.join(d, "gemma3.gguf")}
        write_model(models["llama"], "llama", 4, 2)
        write_model(models["gemma3"], "gemma3", 6, 1, 1024)
        cases = [({}, []), ({"ctx": 4096}, ["--ctx", "4096"]),
                 ({"ctx": 2048, "cache_type_k": "q8_0", "cache_type_v": "q8_0"},
                  ["--ctx", "2048", "--cache-type-k", "q8_0", "--cache-type-v", "q8_0"]),
                 ({"ctx": 1024, "flash_attn": "off", "ubatch": 256, "batch": 512, "parallel": 2},
                  ["--ctx", "1024", "--flash-attn", "off", "--ubatch", "256", "--batch", "512", "--parallel", "2"]),
                 ({"ctx": 8192, "swa_full": False}, ["--ctx", "8192", "--swa-full", "off"])]
        for name, path in models.items():
            for kw, args in cases:
                out = subprocess.run([TOOL, "--estimate", "--json"] + args + [path], check=True,
                                     capture_output=True, text=True).stdout
                want = json.loads(out)
                got = estimate(path, **kw)
                for k in ("weights_bytes", "kv_cache_bytes", "compute_bytes", "total_bytes"):
                    if k not in got:
                        print("FAIL %s %s: no key %s" % (name, kw, k))
                        fails += 1
                if got != want:
                    print("FAIL %s %s:\n  python %s\n  tool   %s" % (name, kw, got, want))
                    fails += 1
                else:
                    print("ok %s %s" % (name, kw))
        # the refusal: same status through both
        r = subprocess.run([TOOL, "--estimate", "--cache-type-v", "q8_0", "--flash-attn", "off", models["llama"]],
                           capture_output=True, text=True)
        try:
            estimate(models["llama"], cache_type_v="q8_0", flash_attn="off")
            print("FAIL: a quantized V cache without flash attention was accepted")
            fails += 1
        except Exception as e:  # noqa: BLE001
            if r.returncode != 1 or "requires flash attention" not in str(e) or "requires flash attention" not in r.stderr:
                print("FAIL: refusal differs: %r / %r" % (str(e), r.stderr))
                fails += 1
            else:
                print("ok refusal")
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
