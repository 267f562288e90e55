#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_hf_convert.py — mio-convert-hf against llama.cpp's convert_hf_to_gguf.py
on the same checkpoint, one run each (the reference takes tens of seconds), both
writing to the same tmpfs directory (an fsync of ~800 MB on this machine's disk
alone takes ~1.5 s and would measure the disk, not the converters). Each side
runs as a child process: wall time, and peak RSS from wait4's ru_maxrss. The
outputs are compared byte for byte (sha256). Printed: the table and the ratios
reference / ours; the issue's targets (>= 10x faster at <= 1/10 of the peak RSS
for --outtype auto; >= 3x for the one pass to Q4_K_M against convert + llama.cpp's
llama_model_quantize) as met / NOT met. Never asserted: a benchmark does not
fail on timing.

The reference needs torch + transformers: run it on a developer machine, never
in CI. Environment:
  MIO_HF_REF_PYTHON   python with torch, transformers, numpy, sentencepiece
  MIO_HF_REF_SCRIPT   .../vendor/llama.cpp/convert_hf_to_gguf.py (llama-cpp-python sdist)
  MIO_PEER_DIR        llama.cpp's libraries (scripts/fetch-ggml-peer.sh), for llama_model_quantize
Usage: bench_hf_convert.py --tool build/tools/mio-convert-hf --ckpt DIR [--out /dev/shm/x]
       [--preset Q4_K_M] [--threads N]
The checkpoint: scripts/make-hf-checkpoints.py --big DIR writes a ~400M-parameter
bf16 Llama-3-shaped sharded checkpoint."""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run_child(argv, env=None):
    """(seconds, peak RSS bytes, returncode) of one child process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        sys.stderr.write("".join(err.splitlines(True)[-15:]))
    return secs, ru.ru_maxrss * 1024, rc


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            h.update(chunk)
    return h.hexdigest()


QUANT_CHILD = r"""
import ctypes as C, sys
peer, src, dst, ftype, nthread = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
base = C.CDLL(peer + "/libggml-base.so", mode=C.RTLD_GLOBAL)
ggml = C.CDLL(peer + "/libggml.v0.5.0.so", mode=C.RTLD_GLOBAL) if __import__("os").path.exists(peer + "/libggml.v0.5.0.so") else base
llama = C.CDLL(peer + "/libllama.v0.5.0.so", mode=C.RTLD_GLOBAL)
ggml.ggml_backend_load_all_from_path.argtypes = [C.c_char_p]
ggml.ggml_backend_load_all_from_path(peer.encode())
class Blob(C.Structure):            # llama_model_quantize_params: 64 bytes in this build, oversized here
    _fields_ = [("b", C.c_char * 256)]
llama.llama_model_quantize_default_params.restype = Blob
p = llama.llama_model_quantize_default_params()
buf = bytearray(C.string_at(C.addressof(p), 256))
buf[0:4] = nthread.to_bytes(4, "little", signed=True)   # int32 nthread at 0
buf[4:8] = ftype.to_bytes(4, "little", signed=True)     # int32 ftype at 4
blob = (C.c_char * 256).from_buffer(buf)
llama.llama_model_quantize.argtypes = [C.c_char_p, C.c_char_p, C.c_void_p]
llama.llama_model_quantize.restype = C.c_uint32
sys.exit(llama.llama_model_quantize(src.encode(), dst.encode(), C.addressof(blob)))
"""

PRESET_FTYPE = {"Q4_K_M": 15, "Q4_K_S": 14, "Q5_K_M": 17, "Q6_K": 18, "Q8_0": 7}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", default="/dev/shm")
    ap.add_argument("--preset", default="Q4_K_M")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    ref_py, ref_script = os.environ.get("MIO_HF_REF_PYTHON"), os.environ.get("MIO_HF_REF_SCRIPT")
    if not ref_py or not ref_script:
        print("SKIP: set MIO_HF_REF_PYTHON and MIO_HF_REF_SCRIPT (the reference needs torch; see the docstring)")
        return 77
    work = tempfile.mkdtemp(prefix="bench-hf-", dir=a.out)
    try:
        size = sum(os.path.getsize(os.path.join(a.ckpt, f)) for f in os.listdir(a.ckpt) if f.endswith(".safetensors"))
        print(f"checkpoint: {a.ckpt} ({size / 1e6:.0f} MB of safetensors); outputs in {work} (tmpfs); "
              f"threads {a.threads}")
        ours_f, ref_f = os.path.join(work, "ours.gguf"), os.path.join(work, "ref.gguf")
        ours_cmd = [a.tool, "--quiet", "--threads", str(a.threads), a.ckpt, "--outfile", ours_f]
        # ours three times (once before the reference, twice after; the first
        # pages a tmpfs file gets in this VM cost more than later ones), the
        # median; each run writes a new file, as the reference's run does
        # (replacing the last run's output would add the freeing of its pages,
        # ~1 s for 1.3 GB of tmpfs here, to the run)
        def ours_run():
            if os.path.exists(ours_f):
                os.unlink(ours_f)
            return run_child(ours_cmd)
        runs = [ours_run()]
        r = run_child([ref_py, ref_script, a.ckpt, "--outfile", ref_f])
        runs += [ours_run(), ours_run()]
        print("mio-convert-hf runs (s): " + ", ".join(f"{x[0]:.2f}" for x in runs))
        o = sorted(runs)[1]
        if any(x[2] for x in runs) or r[2]:
            print("a conversion failed"); return 1
        same = sha256(ours_f) == sha256(ref_f)
        print("\n| --outtype auto | wall s | peak RSS MB |")
        print("|---|---|---|")
        print(f"| mio-convert-hf | {o[0]:.2f} | {o[1] / 1e6:.0f} |")
        print(f"| convert_hf_to_gguf.py | {r[0]:.2f} | {r[1] / 1e6:.0f} |")
        tr, mr = r[0] / o[0], r[1] / o[1]
        print(f"| ratio reference/ours | {tr:.1f}x | {mr:.1f}x |")
        print(f"outputs byte-identical: {same}")
        print(f"target >= 10x faster: {'met' if tr >= 10 else 'NOT met'}; <= 1/10 peak RSS: {'met' if mr >= 10 else 'NOT met'}")
        os.unlink(ours_f)

        peer = os.environ.get("MIO_PEER_DIR")
        if not peer or a.preset not in PRESET_FTYPE:
            print(f"one pass: skipped (MIO_PEER_DIR unset or preset {a.preset} not in {sorted(PRESET_FTYPE)})")
            return 0 if same else 1
        oq, rq = os.path.join(work, "ours-q.gguf"), os.path.join(work, "ref-q.gguf")
        o2 = run_child([a.tool, "--quiet", "--threads", str(a.threads), a.ckpt, "--outtype", a.preset, "--outfile", oq])
        q = run_child([sys.executable, "-c", QUANT_CHILD, peer, ref_f, rq, str(PRESET_FTYPE[a.preset]), str(a.threads)])
        if o2[2] or q[2]:
            print("a quantization failed"); return 1
        same_q = sha256(oq) == sha256(rq)
        two = r[0] + q[0]
        print(f"\n| --outtype {a.preset} | wall s | peak RSS MB |")
        print("|---|---|---|")
        print(f"| mio-convert-hf (one pass) | {o2[0]:.2f} | {o2[1] / 1e6:.0f} |")
        print(f"| convert_hf_to_gguf.py + llama_model_quantize | {r[0]:.2f} + {q[0]:.2f} = {two:.2f} | "
              f"{max(r[1], q[1]) / 1e6:.0f} |")
        print(f"| ratio reference/ours | {two / o2[0]:.1f}x | {max(r[1], q[1]) / o2[1]:.1f}x |")
        print(f"outputs byte-identical: {same_q}")
        print(f"target >= 3x faster: {'met' if two / o2[0] >= 3 else 'NOT met'}")
        return 0 if same and same_q else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
