#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_hub.py — the Hub features against their peers, on one local Hub
(tests/net/fake_hub.py on 127.0.0.1: the same server, the same bytes, for both
sides), each side a child process (wall time; peak RSS from wait4):

  pull     mio-pull hf://REPO                   vs huggingface_hub's snapshot_download
  convert  mio-convert-hf hf://REPO (cache)     vs convert_hf_to_gguf.py --remote REPO
           mio-convert-hf hf://REPO --stream       (outputs compared by sha256)
  inspect  mio-inspect --estimate hf://.../x.gguf: bytes transferred vs the file's size

The reference's --remote reads tensors from a hard-coded https://huggingface.co
(gguf-py's SafetensorRemote.BASE_DOMAIN): the child sets it to the local Hub
before running the script unchanged; everything else (snapshot_download of the
config and tokenizer files) follows HF_ENDPOINT. Never asserted: timing is
printed, not tested. The reference needs torch + transformers (a developer
machine, never CI):
  MIO_HF_REF_PYTHON   python with torch, transformers, huggingface_hub (2.4.0 here)
  MIO_HF_REF_SCRIPT   .../vendor/llama.cpp/convert_hf_to_gguf.py (llama-cpp-python 0.3.36 sdist)
Usage: bench_hub.py --build build --ckpt DIR [--work /dev/shm/bench_hub]
The checkpoint: scripts/make-hf-checkpoints.py --big-qwen3moe DIR (532 MB bf16, 3 shards, in
DIR/qwen3moe-big)."""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time

import json
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_HUB = os.path.join(HERE, "..", "tests", "net", "fake_hub.py")


class Hub:
    """fake_hub.py in its own process: wait4's ru_maxrss of a child counts what
    the parent had resident when it forked, so the measuring process must stay
    small (not hold the repo's bytes)."""

    def __init__(self, repos):
        self.p = subprocess.Popen([sys.executable, FAKE_HUB] + ["%s=%s" % kv for kv in repos.items()],
                                  stdout=subprocess.PIPE, text=True)
        self.endpoint = self.p.stdout.readline().strip()

    def bytes_sent(self):
        """bytes sent since the last call"""
        with urllib.request.urlopen(self.endpoint + "/_stats") as r:
            return json.loads(r.read())["bytes_sent"]

    def stop(self):
        self.p.terminate()
        self.p.wait()


def run_child(argv, env, cwd=None):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    err = p.stderr.read().decode("utf-8", "replace")
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        sys.stderr.write("".join(err.splitlines(True)[-15:]))
    return secs, ru.ru_maxrss * 1024, rc, out.decode("utf-8", "replace")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            h.update(chunk)
    return h.hexdigest()


REF_CHILD = r"""
import os, runpy, sys
script, endpoint = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(script))
sys.path.insert(0, os.path.join(os.path.dirname(script), "gguf-py"))
import gguf.utility
gguf.utility.SafetensorRemote.BASE_DOMAIN = endpoint
sys.argv = [script] + sys.argv[3:]
runpy.run_path(script, run_name="__main__")
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--work", default="/dev/shm/bench_hub")
    ap.add_argument("--peer-python", default=os.environ.get("MIO_PY_PEERS", sys.executable))
    a = ap.parse_args()
    tools = os.path.join(a.build, "tools")
    ref_py, ref_script = os.environ.get("MIO_HF_REF_PYTHON"), os.environ.get("MIO_HF_REF_SCRIPT")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    sizes = [os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(a.ckpt) for n in ns]
    total = sum(sizes)
    # the GGUF for the remote inspection: the checkpoint converted locally first
    gdir = os.path.join(a.work, "gguf")
    os.makedirs(gdir)
    subprocess.run([os.path.join(tools, "mio-convert-hf"), a.ckpt, "--outfile", os.path.join(gdir, "model.gguf"),
                    "--quiet"], check=True)
    hub = Hub({"bench/model": a.ckpt, "bench/gguf": gdir})
    base = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    base.update(HF_ENDPOINT=hub.endpoint, HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_PROGRESS_BARS="1",
                HF_HUB_DISABLE_XET="1", HF_HOME=os.path.join(a.work, "home"))

    def env(cache):
        return dict(base, HF_HUB_CACHE=os.path.join(a.work, cache))

    print("local Hub: %s, repo bench/model: %d files, %.1f MB" % (hub.endpoint, len(sizes), total / 1e6))
    rows = []
    # pull
    s1, r1, rc1, out1 = run_child([os.path.join(tools, "mio-pull"), "hf://bench/model", "--quiet"], env("c_mio"))
    s2, r2, rc2, out2 = run_child([a.peer_python, "-c", "from huggingface_hub import snapshot_download; "
                                   "print(snapshot_download('bench/model'))"], env("c_py"))
    def layout(cache):
        out = []
        for root, dirs, names in os.walk(os.path.join(a.work, cache)):
            for n in dirs + names:
                p = os.path.join(root, n)
                if n != "CACHEDIR.TAG":
                    out.append((os.path.relpath(p, os.path.join(a.work, cache)), os.path.islink(p) and os.readlink(p),
                                os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p)))
        return sorted(out)
    rows.append(("pull (mio-pull vs snapshot_download)", s1, r1, s2, r2,
                 rc1 == 0 and rc2 == 0 and layout("c_mio") == layout("c_py")))
    # convert
    o_cache, o_stream, o_ref = (os.path.join(a.work, n) for n in ("ours.gguf", "ours-stream.gguf", "ref.gguf"))
    s3, r3, rc3, _ = run_child([os.path.join(tools, "mio-convert-hf"), "hf://bench/model", "--outfile", o_cache,
                                "--quiet"], env("c_conv"))
    hub.bytes_sent()
    s4, r4, rc4, _ = run_child([os.path.join(tools, "mio-convert-hf"), "hf://bench/model", "--stream", "--outfile",
                                o_stream, "--quiet"], env("c_stream"))
    stream_bytes = hub.bytes_sent()
    if ref_py and ref_script:
        hub.bytes_sent()
        s5, r5, rc5, _ = run_child([ref_py, "-c", REF_CHILD, ref_script, hub.endpoint, "--remote", "bench/model",
                                    "--outfile", o_ref], env("c_ref"))
        ref_bytes = hub.bytes_sent()
        same = rc3 == 0 and rc5 == 0 and sha256(o_cache) == sha256(o_ref)
        same_s = rc4 == 0 and rc5 == 0 and sha256(o_stream) == sha256(o_ref)
        rows.append(("convert hf:// (through the cache) vs --remote", s3, r3, s5, r5, same))
        rows.append(("convert hf:// --stream vs --remote", s4, r4, s5, r5, same_s))
        print("bytes from the Hub: --stream %.1f MB, the reference's --remote %.1f MB (checkpoint %.1f MB)" %
              (stream_bytes / 1e6, ref_bytes / 1e6, total / 1e6))
    else:
        print("(MIO_HF_REF_PYTHON / MIO_HF_REF_SCRIPT unset: the reference's --remote is not run)")
        print("convert hf:// (cache) %.2f s, %.0f MB RSS; --stream %.2f s, %.0f MB RSS" % (s3, r3 / 1e6, s4, r4 / 1e6))
    # inspect a remote GGUF (our conversion's output, added to the repo)
    glen = os.path.getsize(os.path.join(gdir, "model.gguf"))
    hub.bytes_sent()
    s6, r6, rc6, _ = run_child([os.path.join(tools, "mio-inspect"), "--estimate", "hf://bench/gguf/model.gguf"],
                               env("c_insp"))
    sent = hub.bytes_sent()
    print("mio-inspect --estimate hf://.../model.gguf: %.3f s, %.0f MB RSS, %d bytes transferred of %d (%.2f%%)" %
          (s6, r6 / 1e6, sent, glen, 100.0 * sent / glen))
    hub.stop()
    print()
    print("| run | ours s | ours MB | peer s | peer MB | time ratio | RSS ratio | same output |")
    print("|---|---|---|---|---|---|---|---|")
    for name, so, ro, sp, rp, ok in rows:
        print("| %s | %.2f | %.0f | %.2f | %.0f | %.1fx | 1/%.1f | %s |" % (name, so, ro / 1e6, sp, rp / 1e6, sp / so,
                                                                        rp / ro, "yes" if ok else "NO"))


if __name__ == "__main__":
    main()
