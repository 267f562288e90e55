#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_hf_convert_ref.py — mio-convert-hf against llama.cpp's convert_hf_to_gguf.py,
without torch: every checkpoint of scripts/make-hf-checkpoints.py is generated
here (and its files must have the sha256 recorded in tests/data/hf/reference.json:
a mismatch is the generator's or numpy's change, not the converter's), converted
with each of the reference runs' arguments, and every output file must have the
reference's name, size and sha256. Two documented tokenizer cases compare
through gguf-py's GGUFReader instead (same keys, order and types; only the
listed keys may differ, everything else and every tensor byte-identical). The
llama_model_quantize outputs recorded for the presets are matched by
--outtype PRESET, and llama.cpp's logits (tests/interop/hf_logits.c) on each
identical file must be the recorded bits.

  usage: test_hf_convert_ref.py MIO_CONVERT_HF HF_LOGITS SOURCE_DIR
  needs: this python = the PyPI-peer venv (numpy, gguf); the tokenizers
         ($MIO_TOKENIZERS, else scripts/fetch-tokenizers.sh --cached); the ggml
         peer ($MIO_PEER_DIR) for the logits. Missing: skip (77), or fail when CI=true.
  MIO_HF_SPECS=name,name limits the specs; MIO_HF_KEEP=1 keeps the work dir;
  MIO_HF_FULL=1 checks the logits of every preset output (default: the auto
  output of each spec, presets whose bytes differ, and llama3 Q4_K_M: each model
  load costs about a second) and reads every differing file with GGUFReader too
  (default: one, llama2-hf's vocab-only file; the rest by a direct walk that
  must agree with it).
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

TOOL, HF_LOGITS, SRC = sys.argv[1:4]
CI = os.environ.get("CI") == "true"

# The documented tokenizer differences (docs/HF_CONVERT.md): spec -> keys that may differ.
DOCUMENTED = {
    "llama3-nobos": {"tokenizer.ggml.pre"},
    "llama2-hf": {"tokenizer.ggml.pre", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"},
    # the same Llama-2 tokenizer.json (BPE with byte fallback, no tokenizer.model) under MistralForCausalLM
    "mistral": {"tokenizer.ggml.pre", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"},
    # and under MixtralForCausalLM
    "mixtral": {"tokenizer.ggml.pre", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"},
}

passed = failed = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print("FAIL: " + msg, file=sys.stderr)


def check(cond, msg):
    ok() if cond else bad(msg)


def missing(why):
    if CI:
        print(f"error: {why}; CI requires tools_hf_convert", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}")
    sys.exit(77)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# ---------------------------------------------------------------- peers
try:
    import numpy  # noqa: F401
    import gguf  # noqa: F401
except ImportError as e:
    missing(f"the PyPI peers are not importable ({e}); run with the python of scripts/fetch-py-peers.sh")

tokroot = os.environ.get("MIO_TOKENIZERS", "")
if not tokroot:
    fetch = os.path.join(SRC, "scripts", "fetch-tokenizers.sh")
    if os.path.isfile(fetch):
        r = subprocess.run(["sh", fetch, "--cached"], capture_output=True, text=True)
        if r.returncode == 0:
            tokroot = r.stdout.strip().splitlines()[-1]
if not tokroot or not os.path.isdir(tokroot):
    missing("no tokenizers: set MIO_TOKENIZERS to the directory scripts/fetch-tokenizers.sh prints")

peer = os.environ.get("MIO_PEER_DIR", "") or os.environ.get("MIO_PEER_DIR_DEFAULT", "")
have_peer = bool(peer) and os.path.isfile(os.path.join(peer, "libllama.v0.5.0.so"))
if not have_peer:
    if CI:
        missing("MIO_PEER_DIR names no libllama.v0.5.0.so (scripts/fetch-ggml-peer.sh)")
    print("note: MIO_PEER_DIR unset or without libllama: the logits checks are skipped")

sys.path.insert(0, os.path.join(SRC, "scripts"))
import importlib.util  # noqa: E402

_s = importlib.util.spec_from_file_location("mhc", os.path.join(SRC, "scripts", "make-hf-checkpoints.py"))
mhc = importlib.util.module_from_spec(_s)
_s.loader.exec_module(mhc)

_s = importlib.util.spec_from_file_location("mhr", os.path.join(SRC, "scripts", "make-hf-reference.py"))
mhr = importlib.util.module_from_spec(_s)
_s.loader.exec_module(mhr)
parse_logits = mhr.parse_logits

_s = importlib.util.spec_from_file_location("dg", os.path.join(SRC, "scripts", "hf_gguf_digest.py"))
dg = importlib.util.module_from_spec(_s)
_s.loader.exec_module(dg)

with open(os.path.join(SRC, "tests", "data", "hf", "reference.json")) as f:
    REF = json.load(f)
tokdirs = mhc.find_tokenizers([tokroot], [])
want_specs = [s for s in os.environ.get("MIO_HF_SPECS", "").split(",") if s] or list(REF["specs"])
for s in want_specs:
    need = mhc.SPECS[s]["tok"]
    if need not in tokdirs:
        missing(f"tokenizer {need} (for spec {s}) not found under {tokroot}")

W = tempfile.mkdtemp(prefix="mio-hf-ref-")


# ---------------------------------------------------------------- comparisons
def structural(path, ref_digest, allowed, what, reader=False):
    """Our file against the reference's recorded digest (made with gguf-py's
    GGUFReader): same keys, order and types, every tensor identical, only
    `allowed` keys differing. Prints the differing keys; returns them (None on a
    problem). The digest is computed by hf_gguf_digest's direct walk (GGUFReader
    needs ~10 s for a 128k vocabulary); with reader=True by GGUFReader too, and
    the two must agree."""
    mine = dg.digest_fast(path)
    if reader or FULL:
        check(dg.digest(path) == mine, f"{what}: GGUFReader and the direct walk disagree on {path}")
    problems, diff = dg.compare(mine, ref_digest)
    for p in problems:
        bad(f"{what}: {p}")
    extra = [k for k in diff if k not in allowed]
    for k in extra:
        bad(f"{what}: {k} differs from the reference and is not a documented difference")
    if not problems and not extra:
        ok()
    print(f"  {what}: differing keys: {diff if diff else 'none'}")
    return None if problems or extra else diff


FULL = os.environ.get("MIO_HF_FULL") == "1"


def check_logits(items):
    """items: (path, recorded logits, what). One hf_logits process per token
    list (a spec whose vocabulary is smaller than about.logit_tokens recorded
    its own); each must give the recorded n_vocab and bits."""
    items = [it for it in items if it[1] and "bits" in it[1]]
    if not have_peer or not items:
        return
    groups = {}
    for it in items:
        groups.setdefault(tuple(it[1].get("tokens", REF["about"]["logit_tokens"])), []).append(it)
    for toks, group in groups.items():
        r = subprocess.run([HF_LOGITS, "-n", "16", "-t", ",".join(str(t) for t in toks)] + [it[0] for it in group],
                           capture_output=True, text=True, env=dict(os.environ, MIO_PEER_DIR=peer))
        got = parse_logits(r.stdout)
        for path, want, what in group:
            g = got.get(path, {"error": r.stderr.strip()[-300:]})
            check(g.get("n_vocab") == want["n_vocab"] and logits_close(g.get("bits"), want["bits"]),
                  f"{what}: llama.cpp logits {g} differ from the reference's {want['bits']} (n_vocab {want['n_vocab']})")


# The recorded logits come from one machine's ggml CPU back end; another CPU
# (another ggml variant: AVX2, AVX-512, AMX kernels) rounds its sums in
# another order, which moves logits of size ~0.2 by a few ulps (at most 7e-5
# seen between the Haswell, Zen 4 and Sapphire Rapids builds). A wrong weight,
# permutation or token gives differences of 1e-2 and more. The GGUF bytes
# themselves are compared exactly above; this is the check that llama.cpp
# computes the same thing from them.
LOGIT_TOL = 1e-3


def logits_close(got_bits, want_bits):
    if not got_bits or len(got_bits) != len(want_bits):
        return False
    f = lambda b: struct.unpack("<f", struct.pack("<I", int(b, 16)))[0]
    return all(abs(f(a) - f(b)) <= LOGIT_TOL for a, b in zip(got_bits, want_bits))


def run_tool(args, log):
    with open(log, "w") as lf:
        return subprocess.call([TOOL] + args, stdout=lf, stderr=subprocess.STDOUT)


def compare_files(spec, run, od, what):
    """Our outputs in od against the run's recorded files."""
    want = run["files"]
    got = sorted(os.listdir(od))
    check(got == sorted(want), f"{what}: files {got}, reference {sorted(want)}")
    identical = True
    for fn in sorted(set(got) & set(want)):
        p = os.path.join(od, fn)
        size, digest = os.path.getsize(p), sha256(p)
        if size == want[fn]["size"] and digest == want[fn]["sha256"]:
            ok()
            continue
        identical = False
        rd = run.get("digest", {}).get(fn)
        if spec in DOCUMENTED and rd:
            structural(p, rd, DOCUMENTED[spec], f"{what} {fn}", reader=(spec, run["run"]) == ("llama2-hf", "vocab-only"))
            continue
        bad(f"{what}: {fn}: size {size} sha256 {digest}, reference size {want[fn]['size']} sha256 "
            f"{want[fn]['sha256']}")
        if rd:  # say where it differs
            problems, diff = dg.compare(dg.digest_fast(p), rd)
            print(f"  {what}: {fn}: differing keys {diff}; {problems[:8]}", file=sys.stderr)
    return identical

# ---------------------------------------------------------------- the table
_lst = subprocess.run([TOOL, "--list-architectures"], capture_output=True, text=True)
_classes = [("LlamaForCausalLM", "llama"), ("LLaMAForCausalLM", "llama"), ("MistralForCausalLM", "llama"),
            ("Qwen2ForCausalLM", "qwen2"), ("Qwen3ForCausalLM", "qwen3"), ("Qwen3Model", "qwen3"),
            ("Olmo2ForCausalLM", "olmo2"), ("SmolLM3ForCausalLM", "smollm3"), ("GraniteForCausalLM", "granite"),
            ("Starcoder2ForCausalLM", "starcoder2"), ("Gemma3ForCausalLM", "gemma3"),
            ("Gemma3ForConditionalGeneration", "gemma3"), ("BertModel", "bert"), ("Phi3ForCausalLM", "phi3"),
            ("MixtralForCausalLM", "llama"), ("Qwen2MoeForCausalLM", "qwen2moe"), ("Qwen3MoeForCausalLM", "qwen3moe"),
            ("GptOssForCausalLM", "gpt-oss"), ("DeepseekV3ForCausalLM", "deepseek2")]
# one column as wide as the longest class name (Gemma3ForConditionalGeneration: 30), two spaces
check(_lst.returncode == 0 and _lst.stdout == "".join(f"{c:<30}  {a}\n" for c, a in _classes),
      f"--list-architectures printed {_lst.stdout!r} (exit {_lst.returncode})")

# ---------------------------------------------------------------- the runs
t_start = time.monotonic()
for spec in want_specs:
    ent = REF["specs"][spec]
    root = os.path.join(W, spec)
    ck = os.path.join(root, "ckpt")
    os.makedirs(ck)
    d, files = mhc.write_checkpoint(spec, mhc.SPECS[spec], tokdirs, ck)
    gen_ok = files == ent["checkpoint"]
    check(gen_ok, f"{spec}: make-hf-checkpoints.py wrote other bytes than recorded (the generator, numpy or the "
                  f"tokenizer files changed; not a converter bug): "
                  f"{[k for k in set(files) | set(ent['checkpoint']) if files.get(k) != ent['checkpoint'].get(k)]}")
    if not gen_ok:
        continue
    auto_path = None
    to_check = []  # (path, recorded logits, what) for one hf_logits run per spec
    for run in ent["runs"]:
        what = f"{spec} {run['run']}"
        od = os.path.join(root, "out-" + run["run"])
        os.makedirs(od)
        outfile = od + "/" if run["outfile"] == "{dir}/" else run["outfile"].replace("{dir}", od)
        log = os.path.join(root, run["run"] + ".log")
        rc = run_tool([d, "--outfile", outfile] + run["args"], log)
        if run["rc"] != 0:
            check(rc != 0 and not os.listdir(od), f"{what}: the reference failed (rc {run['rc']}); ours exited {rc}")
            continue
        if rc != 0:
            with open(log, errors="replace") as lf:
                bad(f"{what}: mio-convert-hf exited {rc}: {lf.read()[-600:]}")
            continue
        if "--dry-run" in run["args"]:
            check(not os.listdir(od), f"{what}: --dry-run wrote {os.listdir(od)}")
            with open(log, errors="replace") as lf:
                text = lf.read()
            for line in run.get("plan", []):
                fn = line.split(":")[0]
                check(fn in text, f"{what}: the dry run does not name {fn} (reference plan: {run['plan']})")
            continue
        same = compare_files(spec, run, od, what)
        # the summary reports what was written (every part) and the rate over what was read
        with open(log, errors="replace") as lf:
            m = re.search(r"^mio-convert-hf: wrote .*; [0-9.]+ [KMG]?i?B in, [0-9.]+ [KMG]?i?B out \(([0-9]+) bytes, [^)]+\); "
                          r"[0-9.]+ s, [0-9.]+ MB/s; peak RSS", lf.read(), re.M)
        total = sum(os.path.getsize(os.path.join(od, f)) for f in os.listdir(od))
        check(m is not None and int(m.group(1)) == total,
              f"{what}: the summary's output size is {m.group(1) if m else '(no summary line)'}, the files hold {total} bytes")
        if run["run"] == "auto-dir" and len(run["files"]) == 1:
            auto_path = os.path.join(od, next(iter(run["files"])))
            # identical bytes give identical logits unless llama.cpp is not deterministic;
            # where bytes differ (documented cases) equal logits are the real check
            to_check.append((auto_path, ent.get("logits"), what))
    # the presets: llama_model_quantize(auto output) == mio-convert-hf --outtype PRESET
    for preset, q in ent.get("quantized", {}).items():
        what = f"{spec} --outtype {preset}"
        out = os.path.join(root, f"q-{preset}.gguf")
        rc = run_tool([d, "--outfile", out, "--outtype", preset], out + ".log")
        if q["rc"] != 0:  # llama_model_quantize refused (requantizing MXFP4): so do we, leaving nothing
            check(rc != 0 and not os.path.exists(out), f"{what}: llama_model_quantize refused it; ours exited {rc}")
            continue
        if rc != 0:
            with open(out + ".log", errors="replace") as lf:
                bad(f"{what}: exited {rc}: {lf.read()[-600:]}")
            continue
        size, digest = os.path.getsize(out), sha256(out)
        same = size == q["size"] and digest == q["sha256"]
        if same:
            ok()
        elif spec in DOCUMENTED and q.get("digest"):
            structural(out, q["digest"], DOCUMENTED[spec], what)
        else:
            bad(f"{what}: size {size} sha256 {digest}, llama_model_quantize wrote size {q['size']} sha256 {q['sha256']}")
        if FULL or not same or (spec, preset) == ("llama3", "Q4_K_M"):
            to_check.append((out, q.get("logits"), what))
    check_logits(to_check)
    # mixtures of experts: mio_estimate (weights, KV cache incl. MLA's, output, compute) against what the peer's
    # libllama allocates for the auto output (tests/interop/interop_estimate.c on named files)
    est = os.path.abspath(os.path.join(os.path.dirname(HF_LOGITS), "interop_estimate"))
    if mhc.SPECS[spec].get("moe") and to_check and os.path.isfile(est):
        env = dict(os.environ, MIO_ESTIMATE_MODELS=to_check[0][0], MIO_ESTIMATE_MODELS_ONLY="1")
        er = subprocess.run([est], env=env, capture_output=True, text=True, cwd=root)
        check(er.returncode == 0 and " 0 failed" in er.stdout,
              f"{spec}: mio_estimate differs from llama.cpp's allocation:\n{er.stdout[-1500:]}{er.stderr[-1500:]}")
    if os.environ.get("MIO_HF_KEEP") != "1":
        shutil.rmtree(root)

# determinism: the generator twice in one process gives the same bytes
small = "llama2-hf" if "llama2-hf" in want_specs else want_specs[0]
a1 = mhc.write_checkpoint(small, mhc.SPECS[small], tokdirs, os.path.join(W, "twice1"))[1]
a2 = mhc.write_checkpoint(small, mhc.SPECS[small], tokdirs, os.path.join(W, "twice2"))[1]
check(a1 == a2, f"make-hf-checkpoints.py is not deterministic for {small}")

if os.environ.get("MIO_HF_KEEP") != "1":
    shutil.rmtree(W)
else:
    print("kept", W)
print(f"({time.monotonic() - t_start:.1f} s)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
