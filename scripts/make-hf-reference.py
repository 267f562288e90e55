#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-hf-reference.py — record what llama.cpp's convert_hf_to_gguf.py writes
for every checkpoint of make-hf-checkpoints.py, into tests/data/hf/reference.json
(the contract tools_hf_convert holds mio-convert-hf to).

Run once, by hand, on a machine that has the reference and its torch /
transformers environment; never in CI (CI only reads the JSON):
  /path/to/refenv/bin/python scripts/make-hf-reference.py \
      --convert /path/to/llama.cpp/convert_hf_to_gguf.py --tokenizers DIR \
      --peer "$MIO_PEER_DIR" --hf-logits build/tests/interop/hf_logits [--work DIR] [SPEC ...]

For each spec: the checkpoint's own files (sha256, to tell a changed generator
from a converter bug); the reference's outputs for --outtype auto (with --outfile
a directory: the default file name), f32, f16, bf16, q8_0 (--outfile
NAME-{ftype}.gguf), --vocab-only, and on some specs tq1_0 / tq2_0, splits
(--split-max-tensors, --split-max-size, --no-tensor-first-split), --model-name
and --dry-run: each file's name, size and sha256, the run's wall time and peak
RSS (/usr/bin/time -v); for the auto output of every spec, and every output of
the two documented tokenizer cases, a digest (scripts/hf_gguf_digest.py: keys,
types, value and tensor hashes). For the auto output: llama_model_quantize (the peer's
libllama through ctypes) for Q4_K_M, Q5_K_S, Q6_K, Q3_K_M and Q8_0, sha256 and
size; and hf_logits (tests/interop/hf_logits.c) on the auto output and on each
quantized one: the first 16 logits of the last position after 4 fixed tokens.
The spec name llama3-big (make-hf-checkpoints.py --big) records only the
auto and q8_0 runs' files, time and RSS, under "bench" (for the benchmark docs).
"""
import argparse
import ctypes
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("mhc", os.path.join(HERE, "make-hf-checkpoints.py"))
mhc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mhc)

# llama_ftype numbers of the presets (llama.h's enum; MIO_PRESET_* in modelio.h)
PRESETS = {"Q8_0": 7, "Q3_K_M": 12, "Q4_K_M": 15, "Q5_K_S": 16, "Q6_K": 18}
# and for the mixtures of experts (specs with "moe"): the experts in MXFP4, the rest Q8_0
PRESETS_MOE = {"MXFP4_MOE": 38}
LOGIT_TOKENS = [1, 450, 4996, 17354]

# Extra runs beyond auto / f32 / f16 / bf16 / q8_0 / --vocab-only / --dry-run, per spec.
EXTRA = {
    "llama3": [
        ("tq1_0", ["--outtype", "tq1_0"]),
        ("tq2_0", ["--outtype", "tq2_0"]),
        ("split-max-tensors-5", ["--outtype", "auto", "--split-max-tensors", "5"]),
        ("split-max-tensors-5-dry-run", ["--outtype", "auto", "--split-max-tensors", "5", "--dry-run"]),
        ("model-name", ["--outtype", "auto", "--model-name", "Tiny Llama 3.1 Test"]),
    ],
    "qwen3": [
        ("split-max-size-1M", ["--outtype", "auto", "--split-max-size", "1M"]),
        ("split-max-size-1M-no-first", ["--outtype", "auto", "--split-max-size", "1M", "--no-tensor-first-split"]),
        ("split-max-tensors-8-q8_0", ["--outtype", "q8_0", "--split-max-tensors", "8"]),
    ],
    "llama2-hf": [
        ("split-max-size-4M-f32", ["--outtype", "f32", "--split-max-size", "4M"]),
    ],
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def files_in(d):
    return {fn: {"size": os.path.getsize(os.path.join(d, fn)), "sha256": sha256(os.path.join(d, fn))}
            for fn in sorted(os.listdir(d))}


def timed(cmd, log):
    """Run cmd under /usr/bin/time -v; returns (rc, seconds, peak RSS in KiB)."""
    t0 = time.monotonic()
    with open(log, "w") as lf:
        rc = subprocess.call(["/usr/bin/time", "-v"] + cmd, stdout=lf, stderr=subprocess.STDOUT)
    dt = time.monotonic() - t0
    rss = None
    with open(log, errors="replace") as lf:
        for line in lf:
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", line)
            if m:
                rss = int(m.group(1))
    return rc, round(dt, 2), rss


class Llama:
    """The peer's libllama through ctypes: llama_model_quantize with the
    parameter block as a zeroed over-sized buffer filled at this build's
    offsets (the layout interop_quant_policy checks; verified here too)."""
    QP_NTHREAD, QP_FTYPE, QP_OUT_TYPE, QP_TOK_TYPE, QP_QUANT_OUT = 0x00, 0x04, 0x08, 0x0C, 0x11

    class Blob(ctypes.Structure):
        _fields_ = [("b", ctypes.c_ubyte * 256)]

    def __init__(self, peer):
        ctypes.CDLL(os.path.join(peer, "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
        g = ctypes.CDLL(os.path.join(peer, "libggml.v0.5.0.so"), mode=ctypes.RTLD_GLOBAL)
        self.l = ctypes.CDLL(os.path.join(peer, "libllama.v0.5.0.so"), mode=ctypes.RTLD_GLOBAL)
        self._log = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)(lambda a, b, c: None)
        self.l.llama_log_set(self._log, None)
        g.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
        g.ggml_backend_load_all_from_path(peer.encode())
        self.l.llama_backend_init()
        self.l.llama_model_quantize_default_params.restype = Llama.Blob
        self.l.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Llama.Blob)]
        self.l.llama_model_quantize.restype = ctypes.c_uint32
        d = self.l.llama_model_quantize_default_params()
        i32 = lambda o: int.from_bytes(bytes(d.b[o:o + 4]), "little", signed=True)  # noqa: E731
        if (i32(self.QP_NTHREAD), i32(self.QP_FTYPE), i32(self.QP_OUT_TYPE), i32(self.QP_TOK_TYPE),
                d.b[self.QP_QUANT_OUT]) != (0, 7, 43, 43, 1):
            sys.exit("make-hf-reference: llama_model_quantize_params layout is not the one expected")
        self.defaults = d

    def quantize(self, src, dst, ftype):
        p = Llama.Blob()
        ctypes.memmove(ctypes.byref(p), ctypes.byref(self.defaults), ctypes.sizeof(p))
        p.b[self.QP_FTYPE:self.QP_FTYPE + 4] = list(int(ftype).to_bytes(4, "little"))
        t0 = time.monotonic()
        rc = self.l.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(p))
        return rc, round(time.monotonic() - t0, 2)


def parse_logits(text):
    """hf_logits' output -> {path: {"n_vocab", "bits", "values"} or {"error"}}."""
    out, cur = {}, None
    for ln in text.split("\n"):
        w = ln.split(" ", 1)
        if w[0] == "model":
            cur = out.setdefault(w[1], {})
        elif cur is None or not ln.strip():
            continue
        elif w[0] == "error":
            cur["error"] = w[1]
        elif w[0] == "n_vocab":
            cur.update(n_vocab=int(w[1]), bits=[], values=[])
        else:
            i, bits, val = ln.split()
            cur["bits"].append(bits)
            cur["values"].append(float(val))
    return out


def logit_tokens(n_vocab):
    """LOGIT_TOKENS, each taken modulo a vocabulary smaller than them (the phi3 specs' 3072)."""
    return [t % n_vocab for t in LOGIT_TOKENS]


def logits(hf_logits, path, peer, n_vocab):
    env = dict(os.environ, MIO_PEER_DIR=peer)
    toks = logit_tokens(n_vocab)
    out = subprocess.run([hf_logits, "-n", "16", "-t", ",".join(str(t) for t in toks), path], env=env,
                         capture_output=True, text=True)
    got = parse_logits(out.stdout).get(path)
    if got and toks != LOGIT_TOKENS:
        got["tokens"] = toks
    return got if got else {"error": out.stderr.strip()[-400:]}


# the documented tokenizer cases (docs/HF_CONVERT.md): every output gets a digest
DOCUMENTED = ("llama3-nobos", "llama2-hf", "mistral", "mixtral")  # mistral, mixtral: the Llama-2 tokenizer.json too


def gguf_digest(py, path):
    """hf_gguf_digest.py run with the PyPI-peer python (gguf-py's GGUFReader)."""
    r = subprocess.run([py, os.path.join(HERE, "hf_gguf_digest.py"), path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"make-hf-reference: hf_gguf_digest.py {path}: {r.stderr}")
    return json.loads(r.stdout)


def writer_plan(log):
    """The gguf_writer's 'Writing the following files' lines (the split plan)."""
    plan, on = [], False
    with open(log, errors="replace") as f:
        for line in f:
            if "Writing the following files" in line:
                on = True
                continue
            if on:
                m = re.match(r"INFO:gguf\.gguf_writer:(.*): (n_tensors = .*)$", line.rstrip("\n"))
                if not m:
                    break
                plan.append(os.path.basename(m.group(1)) + ": " + m.group(2))
    return plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--convert", required=True, help="convert_hf_to_gguf.py")
    ap.add_argument("--tokenizers", action="append", default=[])
    ap.add_argument("--tokenizer", action="append", default=[])
    ap.add_argument("--peer", required=True, help="MIO_PEER_DIR (libllama.v0.5.0.so)")
    ap.add_argument("--hf-logits", required=True)
    ap.add_argument("--work", default="/tmp/mio-hf-ref")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "tests", "data", "hf", "reference.json"))
    ap.add_argument("--peer-python", default=os.environ.get("MIO_PY_PEERS"),
                    help="the PyPI-peer venv's python (gguf), for the digests")
    ap.add_argument("--keep", action="store_true", help="keep the outputs in --work")
    a = ap.parse_args()

    if not a.peer_python:
        ap.error("--peer-python (or MIO_PY_PEERS) is required")
    tokdirs = mhc.find_tokenizers(a.tokenizers, a.tokenizer)
    specs = a.specs or list(mhc.SPECS)
    ref = {}
    if os.path.isfile(a.out):
        with open(a.out) as f:
            ref = json.load(f)
    ref.setdefault("specs", {})
    ref["about"] = {
        "generator": "scripts/make-hf-reference.py",
        "checkpoints": "scripts/make-hf-checkpoints.py",
        "reference": "convert_hf_to_gguf.py of llama.cpp vendored in the llama-cpp-python 0.3.36 sdist (PyPI)",
        "quantizer": "llama_model_quantize of libllama.v0.5.0.so, npm @node-llama-cpp/linux-x64@3.22.1",
        "logits": "tests/interop/hf_logits.c on the same libllama: first 16 logits of the last position",
        "logit_tokens": LOGIT_TOKENS,  # modulo a smaller vocabulary (logits.tokens says so)
        "python": platform.python_version(),
        "host": f"{platform.machine()} {os.cpu_count()} cpus",
        "runs": "cmd is the argument list after the model directory; outfile '{dir}/' = a directory; "
                "seconds / max_rss_kib of the reference process (/usr/bin/time -v)",
    }
    try:
        import torch  # noqa: F401
        import transformers
        ref["about"]["torch"] = torch.__version__
        ref["about"]["transformers"] = transformers.__version__
    except ImportError:
        pass
    llama = Llama(a.peer)

    for name in specs:
        root = os.path.join(a.work, name)
        if os.path.isdir(root):
            shutil.rmtree(root)
        ck = os.path.join(root, "ckpt")
        os.makedirs(ck)
        big = name == "llama3-big"  # the benchmark checkpoint: timing only, recorded under "bench"
        d, files = mhc.write_checkpoint(name, mhc.BIG if big else mhc.SPECS[name], tokdirs, ck)
        entry = {"checkpoint": files, "runs": [], "quantized": {}}
        try:  # the versions this spec was recorded with (about.* says the last run's)
            import torch
            import transformers
            entry["recorded_with"] = {"torch": torch.__version__, "transformers": transformers.__version__}
        except ImportError:
            pass
        runs = [("auto-dir", ["--outtype", "auto"], "dir")]
        for t in ("f32", "f16", "bf16", "q8_0"):
            runs.append((t, ["--outtype", t], "tmpl"))
        runs.append(("vocab-only", ["--vocab-only"], "dir"))
        runs.append(("dry-run", ["--outtype", "auto", "--dry-run"], "dir"))
        runs += [(n, c, "dir") for n, c in EXTRA.get(name, [])]
        if big:
            runs = [runs[0], ("q8_0", ["--outtype", "q8_0"], "tmpl")]
        auto_file = None
        for run, args, mode in runs:
            od = os.path.join(root, "out-" + run)
            os.makedirs(od)
            outfile = od + "/" if mode == "dir" else os.path.join(od, name + "-{ftype}.gguf")
            log = os.path.join(root, run + ".log")
            cmd = [sys.executable, a.convert, d, "--outfile", outfile] + args
            rc, secs, rss = timed(cmd, log)
            rec = {"run": run, "args": args,
                   "outfile": "{dir}/" if mode == "dir" else "{dir}/" + name + "-{ftype}.gguf",
                   "rc": rc, "seconds": secs, "max_rss_kib": rss, "files": files_in(od)}
            if "--dry-run" in args or "--split-max-tensors" in args or "--split-max-size" in args:
                rec["plan"] = writer_plan(log)
            if rc != 0:
                with open(log, errors="replace") as f:
                    rec["error"] = f.read()[-2000:]
            if rc == 0 and (name in DOCUMENTED or run == "auto-dir"):
                rec["digest"] = {fn: gguf_digest(a.peer_python, os.path.join(od, fn)) for fn in rec["files"]}
            entry["runs"].append(rec)
            print(f"{name} {run}: rc {rc} {secs}s {rss} KiB {list(rec['files'])}", file=sys.stderr)
            if run == "auto-dir" and rc == 0 and len(rec["files"]) == 1:
                auto_file = os.path.join(od, next(iter(rec["files"])))
        if auto_file and not big:
            sp = mhc.BIG if big else mhc.SPECS[name]
            n_vocab = sp.get("vocab", mhc.TOKENIZERS[sp["tok"]]["n"])
            entry["logits"] = logits(a.hf_logits, auto_file, a.peer, n_vocab)
            qd = os.path.join(root, "quant")
            os.makedirs(qd)
            for preset, ft in {**PRESETS, **(PRESETS_MOE if sp.get("moe") else {})}.items():
                dst = os.path.join(qd, preset + ".gguf")
                rc, secs = llama.quantize(auto_file, dst, ft)
                q = {"ftype": ft, "rc": rc, "seconds": secs}
                if rc == 0:
                    q.update(size=os.path.getsize(dst), sha256=sha256(dst))
                    q["logits"] = logits(a.hf_logits, dst, a.peer, n_vocab)
                    if name in DOCUMENTED:
                        q["digest"] = gguf_digest(a.peer_python, dst)
                entry["quantized"][preset] = q
                print(f"{name} {preset}: rc {rc} {q.get('size')}", file=sys.stderr)
        if big:
            del entry["quantized"]
            ref["bench"] = {name: entry}
        else:
            ref["specs"][name] = entry
        if not a.keep:
            shutil.rmtree(root)
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(ref, f, indent=1, sort_keys=False)
            f.write("\n")


if __name__ == "__main__":
    main()
