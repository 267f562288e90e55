# SPDX-License-Identifier: MIT
"""mio-convert-hf hf://ORG/REPO (mio_hub_convert, docs/HUB.md) against a local
Hub (fake_hub.py): the file equals the conversion of the repo's snapshot
directory with general.name the repo id (what convert_hf_to_gguf.py --remote
writes) for a model with a card, a sharded MoE and a sentence-transformers
BERT, with --outtype auto and a preset, through the cache and --stream; the
default name ./ORG-REPO-{ftype}.gguf; --remote ORG/REPO; only what the
conversion reads is fetched (never original/, *.bin, *.pth, *.gguf); the
second conversion fetches no weight again; offline from the cache.

Usage: test_hub_convert.py MIO_CONVERT_HF MIO_INSPECT SOURCE_DIR
(run by the PyPI peers' python, which has numpy for make-hf-checkpoints.py;
the tokenizers from MIO_TOKENIZERS or scripts/fetch-tokenizers.sh's cache)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_hub import FakeHub  # noqa: E402
from nettest import check, finish  # noqa: E402

CONVERT, INSPECT, SRC = sys.argv[1:4]


WORK = tempfile.mkdtemp(prefix="mio_hubconv_")
hub = None


def env_for(**kw):
    e = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    e.update(HF_ENDPOINT=hub.endpoint, HF_HOME=os.path.join(WORK, "home"), HF_HUB_CACHE=os.path.join(WORK, "cache"))
    e.update(kw)
    return e


def run(args, cwd=None, **kw):
    p = subprocess.run(args, env=env_for(**kw), cwd=cwd or WORK, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def kv(path, key):
    rc, out, _ = run([INSPECT, "--json", path])
    return json.loads(out)["kv"].get(key) if rc == 0 else None


try:
    tok = os.environ.get("MIO_TOKENIZERS") or subprocess.run(
        ["sh", os.path.join(SRC, "scripts/fetch-tokenizers.sh")], capture_output=True, text=True).stdout.strip()
    ck = os.path.join(WORK, "ck")
    subprocess.run([sys.executable, os.path.join(SRC, "scripts/make-hf-checkpoints.py"), "--tokenizers", tok, ck,
                    "llama3-card", "qwen3moe", "bert"], check=True, capture_output=True)
    hub = FakeHub().start()
    extra = {"original/consolidated.00.pth": b"\x80\x02pickle" * 100, "original/params.json": b"{}",
             "pytorch_model.bin": b"\x80\x02" * 500, "model-q4.gguf": b"GGUF" + b"\0" * 100,
             "onnx/model.onnx": b"onnx" * 100, "figures/plot.png": b"\x89PNG" * 10}
    specs = ("llama3-card", "qwen3moe", "bert")
    for spec in specs:
        d = os.path.join(ck, spec)
        files = {}
        for root, _, names in os.walk(d):
            for n in names:
                p = os.path.join(root, n)
                files[os.path.relpath(p, d)] = open(p, "rb").read()
        files.update(extra)
        hub.add_repo("test/" + spec, files, tags=("v1",))

    for spec in specs:
        repo = "test/" + spec
        commit = hub.repos[("model", repo)].refs["main"]
        # the reference's --remote: the snapshot directory (named by its commit) converted, named after the repo
        local = os.path.join(WORK, "local", commit)
        shutil.copytree(os.path.join(ck, spec), local)
        for outtype in ("auto", "Q4_K_M"):
            wdir = os.path.join(WORK, "want-%s-%s" % (spec, outtype))
            os.makedirs(wdir)
            rc, out, err = run([CONVERT, local, "--model-name", repo, "--outtype", outtype, "--outfile",
                                os.path.join(wdir, "test-%s-{ftype}.gguf" % spec), "--quiet"])
            check(rc == 0 and len(os.listdir(wdir)) == 1, "%s local %s: %s" % (spec, outtype, err))
            expect = os.listdir(wdir)[0]
            want = os.path.join(WORK, "want-%s-%s.gguf" % (spec, outtype))
            os.rename(os.path.join(wdir, expect), want)
            # through the cache, default name in the current directory
            cwd = os.path.join(WORK, "out-%s-%s" % (spec, outtype))
            os.makedirs(cwd)
            hub.clear_log()
            rc, out, err = run([CONVERT, "hf://" + repo, "--outtype", outtype, "--quiet"], cwd=cwd)
            names = os.listdir(cwd)
            check(rc == 0 and names == [expect], "%s %s: rc %d, wrote %r (expected %s): %s" % (spec, outtype, rc, names,
                                                                                              expect, err[-400:]))
            if rc == 0 and names == [expect]:
                got = os.path.join(cwd, expect)
                check(open(got, "rb").read() == open(want, "rb").read(), "%s %s: differs from the local conversion" %
                      (spec, outtype))
                check(kv(got, "general.name") == repo, "%s: general.name %r" % (spec, kv(got, "general.name")))
            fetched = sorted({e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.log
                              if e["origin"] == "hub" and "/resolve/" in e["path"]})
            bad = [f for f in fetched if f.startswith(("original/", "onnx/", "figures/")) or
                   f.endswith((".bin", ".pth", ".gguf", ".onnx", ".png"))]
            check(not bad, "%s %s: fetched what the conversion does not read: %r" % (spec, outtype, bad))
            if outtype == "auto":
                want_set = sorted(p for p in os.listdir(os.path.join(ck, spec)) if os.path.isfile(os.path.join(ck, spec, p)))
                if spec == "bert":
                    want_set = sorted(want_set + ["1_Pooling/config.json"])
                check(fetched == want_set, "%s: fetched %r, expected %r" % (spec, fetched, want_set))
            else:
                # the second conversion of the same repo: no weight fetched again
                cdn = [e for e in hub.log if e["origin"] == "cdn" and e["sent"]]
                check(not cdn, "%s: the second conversion fetched %d LFS bodies" % (spec, len(cdn)))

        # --stream: the same file, the weights read with ranges and not stored
        cache = os.path.join(WORK, "cache-stream-" + spec)
        want = os.path.join(WORK, "want-%s-auto.gguf" % spec)
        hub.clear_log()
        out_s = os.path.join(WORK, "stream-%s.gguf" % spec)
        rc, out, err = run([CONVERT, "hf://%s@v1" % repo, "--stream", "--outfile", out_s, "--quiet"], HF_HUB_CACHE=cache)
        check(rc == 0 and open(out_s, "rb").read() == open(want, "rb").read(), "%s --stream: %s" % (spec, err[-400:]))
        import hashlib
        weights = {hashlib.sha256(open(os.path.join(ck, spec, n), "rb").read()).hexdigest()
                   for n in os.listdir(os.path.join(ck, spec)) if n.endswith(".safetensors")}
        blobs = os.listdir(os.path.join(cache, "models--test--" + spec, "blobs")) if rc == 0 else []
        check(rc == 0 and not weights & set(blobs), "%s --stream stored weights: %r" % (spec, weights & set(blobs)))
        cdn = [e for e in hub.log if e["origin"] == "cdn" and e["path"].split("/")[2].split("?")[0] in weights]
        check(cdn and all(e["range"] and not e["range"].endswith("-") for e in cdn),
              "%s --stream: unbounded requests %r" % (spec, [e["range"] for e in cdn][:5]))
        sent = sum(e["sent"] for e in cdn)
        total = sum(os.path.getsize(os.path.join(ck, spec, n)) for n in os.listdir(os.path.join(ck, spec))
                    if n.endswith(".safetensors"))
        print("stream %s: %d requests, %d bytes for %d bytes of safetensors" % (spec, len(cdn), sent, total))

    # --remote ORG/REPO (the reference's spelling), offline from the cache
    rc, out, err = run([CONVERT, "--remote", "test/llama3-card", "--outfile", "r.gguf", "--quiet"])
    check(rc == 0 and open(os.path.join(WORK, "r.gguf"), "rb").read() ==
          open(os.path.join(WORK, "want-llama3-card-auto.gguf"), "rb").read(), "--remote: %s" % err[-300:])
    hub.clear_log()
    rc, out, err = run([CONVERT, "hf://test/llama3-card", "--outfile", "off.gguf", "--quiet"], HF_HUB_OFFLINE="1")
    check(rc == 0 and not hub.log and open(os.path.join(WORK, "off.gguf"), "rb").read() ==
          open(os.path.join(WORK, "want-llama3-card-auto.gguf"), "rb").read(), "offline: %s" % err[-300:])
    # offline, the configuration cached but not the weights (a --stream conversion stored none): named
    rc, out, err = run([CONVERT, "hf://test/bert@v1", "--outfile", "off2.gguf", "--quiet"], HF_HUB_OFFLINE="1",
                       HF_HUB_CACHE=os.path.join(WORK, "cache-stream-bert"))
    check(rc == 1 and "offline mode (HF_HUB_OFFLINE=1) and model.safetensors is not in the cache" in err and
          not os.path.exists(os.path.join(WORK, "off2.gguf")), "offline without the weights: %r" % err)
    rc, out, err = run([CONVERT, "hf://test/nope", "--outfile", "x.gguf", "--quiet"])
    check(rc == 1 and "model repository 'test/nope' not found" in err and not os.path.exists(os.path.join(WORK, "x.gguf")),
          "missing repo: %r" % err)
    rc, out, err = run([CONVERT, "hf://test/bert/config.json", "--quiet"])
    check(rc == 2 and "names a file" in err, "a file URI: %r" % err)
finally:
    if hub:
        hub.stop()
    shutil.rmtree(WORK, ignore_errors=True)

finish()
