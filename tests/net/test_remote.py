# SPDX-License-Identifier: MIT
"""Remote files (docs/HUB.md) against a local Hub (fake_hub.py, 127.0.0.1):
mio-inspect of hf:// and http:// files prints exactly what it prints for the
local file (summary, --meta, --tensors, --json, --markdown, --estimate,
--hash), within the byte budget (header + 1 MiB per file); the Hub's rules
(private repos and the token, which never reaches the CDN nor any output;
RepoNotFound / RevisionNotFound / EntryNotFound; revisions and commits;
offline mode and the cache); hostile servers (Range ignored, a file that
changes, a dropped body).

Usage: test_remote.py MIO_INSPECT MIO_MAKE_SAMPLE MIO_TRANSCODE SOURCE_DIR
Exit 77 (skip) when the library was built without libcurl.
"""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_hub import FakeHub  # noqa: E402
from nettest import check, finish  # noqa: E402

INSPECT, MAKE_SAMPLE, TRANSCODE, SRC = sys.argv[1:5]
TOKEN = "hf_test_token_0123456789"
STEP = 1 << 20


def run(args, env=None, cwd=None):
    e = dict(os.environ)
    for k in ("HF_TOKEN", "HF_HUB_OFFLINE", "HF_ENDPOINT", "HF_HOME", "HF_HUB_CACHE", "HF_TOKEN_PATH"):
        e.pop(k, None)
    e["HF_HOME"] = os.path.join(WORK, "hfhome")
    e.update(env or {})
    p = subprocess.run(args, env=e, cwd=cwd, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def st_file(tensors, meta=None):
    """A safetensors image: tensors = [(name, dtype, shape, bytes)]."""
    header, data = {}, b""
    if meta:
        header["__metadata__"] = meta
    for name, dt, shape, raw in tensors:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def gguf_big_header(n_tokens, tensor_bytes):
    """A GGUF v3 whose header holds n_tokens strings (tokenizer.ggml.tokens) and
    one F32 tensor of tensor_bytes: a header past one step, data past that."""
    def s(x):
        x = x.encode()
        return struct.pack("<Q", len(x)) + x
    kv = s("general.architecture") + struct.pack("<I", 8) + s("llama")
    toks = b"".join(s("tok%06d" % i) for i in range(n_tokens))
    kv += s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, n_tokens) + toks
    ti = s("x") + struct.pack("<I", 1) + struct.pack("<Q", tensor_bytes // 4) + struct.pack("<IQ", 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 2) + kv + ti
    head += b"\0" * (-len(head) % 32)
    return head + bytes(range(256)) * (tensor_bytes // 256)


WORK = tempfile.mkdtemp(prefix="mio_remote_")
try:
    rc, out, err = run([INSPECT, "hf://a/b/c.gguf"], env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    if "built without HTTP support" in err:
        if os.environ.get("CI") == "true":
            print("error: libmodelio was built without libcurl; CI requires net_remote")
            sys.exit(1)
        print("SKIP: libmodelio was built without libcurl")
        sys.exit(77)

    # -- the files: mio-make-sample's model (tensors), a vocabulary with a 1.7 MB
    # header (its prefix must grow), a 3-part split, a safetensors file, a sharded index
    local = os.path.join(WORK, "local")
    os.makedirs(local)
    sample = os.path.join(local, "sample.gguf")
    subprocess.run([MAKE_SAMPLE, sample], check=True, capture_output=True)
    shutil.copy(os.path.join(SRC, "tests/data/vocab-gpt-2.gguf"), local)
    subprocess.run([TRANSCODE, "--split-max-tensors", "8", sample, os.path.join(local, "split")], check=True,
                   capture_output=True)
    import random
    rnd = random.Random(5)
    t1 = [("a.weight", "F32", [64, 32], bytes(rnd.getrandbits(8) for _ in range(64 * 32 * 4))),
          ("b.bias", "BF16", [64], bytes(rnd.getrandbits(8) for _ in range(128)))]
    t2 = [("c.weight", "F16", [16, 16], bytes(rnd.getrandbits(8) for _ in range(512)))]
    open(os.path.join(local, "model.safetensors"), "wb").write(st_file(t1, {"format": "pt"}))
    open(os.path.join(local, "model-00001-of-00002.safetensors"), "wb").write(st_file(t1))
    open(os.path.join(local, "model-00002-of-00002.safetensors"), "wb").write(st_file(t2))
    index = {"metadata": {"total_size": sum(len(t[3]) for t in t1 + t2)},
             "weight_map": {"a.weight": "model-00001-of-00002.safetensors", "b.bias": "model-00001-of-00002.safetensors",
                            "c.weight": "model-00002-of-00002.safetensors"}}
    open(os.path.join(local, "model.safetensors.index.json"), "w").write(json.dumps(index, indent=2))
    open(os.path.join(local, "big-header.gguf"), "wb").write(gguf_big_header(150000, 8 << 20))
    # upstream safetensors' own goldens (the reference writer's bytes): every dtype, empty tensors, no tensors
    goldens = ("all_dtypes.safetensors", "empty_0x4.safetensors", "no_tensors_meta.safetensors", "large_20000.safetensors")
    for g in goldens:
        shutil.copy(os.path.join(SRC, "tests/data/safetensors/golden", g), local)
    files = {n: open(os.path.join(local, n), "rb").read() for n in sorted(os.listdir(local))}

    hub = FakeHub(tokens=(TOKEN,)).start()
    hub.add_repo("test/models", files, tags=("v1.0",))
    hub.add_repo("test/private", {"sample.gguf": files["sample.gguf"]}, private=True)
    hub.add_repo("test/gated", {"sample.gguf": files["sample.gguf"]}, gated=True)
    commit = hub.repos[("model", "test/models")].refs["main"]
    ENV = {"HF_ENDPOINT": hub.endpoint}

    def same_as_local(name, opts, uri, env=ENV, budget_files=None):
        lp = os.path.join(local, name)
        rc_l, out_l, err_l = run([INSPECT] + opts + [lp])
        hub.clear_log()
        rc_r, out_r, err_r = run([INSPECT] + opts + [uri], env=env)
        out_r2 = out_r.replace(uri, lp)
        if opts[:1] == ["--hash"]:
            out_l = out_l.replace(lp, "X")
            out_r2 = out_r.replace(uri, "X")
        check(rc_l == 0 and rc_r == 0, "%s %s: rc local %d remote %d (%s)" % (name, opts, rc_l, rc_r, err_r.strip()))
        check(out_l == out_r2, "%s %s: remote output differs from local" % (name, opts))
        if out_l != out_r2:
            import difflib
            print("".join(list(difflib.unified_diff(out_l.splitlines(1), out_r2.splitlines(1)))[:20]))
        return hub.bytes_sent()

    # 1. every view of every file equals the local one
    views = [[], ["--meta"], ["--tensors"], ["--json"], ["--markdown"]]
    for name in ("sample.gguf", "vocab-gpt-2.gguf", "big-header.gguf", "split-00001-of-00003.gguf", "model.safetensors",
                 "model.safetensors.index.json") + goldens:
        for v in views:
            same_as_local(name, v, "hf://test/models/" + name)
    for name in ("sample.gguf", "split-00001-of-00003.gguf"):
        same_as_local(name, ["--estimate"], "hf://test/models/" + name)
        same_as_local(name, ["--estimate", "--json", "--ctx", "4096"], "hf://test/models/" + name)
    # tensors on demand: every byte hashed remotely gives the local manifest
    for name in ("sample.gguf", "split-00001-of-00003.gguf", "model.safetensors.index.json"):
        same_as_local(name, ["--hash", "sha256"], "hf://test/models/" + name)

    # 2. the byte budget: the header + 1 MiB per file, whatever the view; a
    # process opening the file three times (inspect --json) fetches it once
    def header_bytes(name):
        b = files[name]
        if name.endswith(".safetensors"):
            return 8 + struct.unpack("<Q", b[:8])[0]
        rc, out, _ = run([INSPECT, "--json", "--part", os.path.join(local, name)])
        return json.loads(out)["data_offset"] if rc == 0 and "data_offset" in json.loads(out) else len(b)

    for name, parts in (("big-header.gguf", ["big-header.gguf"]), ("sample.gguf", ["sample.gguf"]),
                        ("split-00001-of-00003.gguf", ["split-%05d-of-00003.gguf" % k for k in (1, 2, 3)]),
                        ("model.safetensors.index.json", ["model.safetensors.index.json", "model-00001-of-00002.safetensors",
                                                          "model-00002-of-00002.safetensors"])):
        budget = sum(min(len(files[p]), header_bytes(p) + STEP) for p in parts)
        for v in (["--json"], ["--estimate"]) if name in ("sample.gguf", "split-00001-of-00003.gguf") else (["--json"],):
            sent = same_as_local(name, v, "hf://test/models/" + name)
            check(sent <= budget, "%s %s: %d bytes transferred, budget %d" % (name, v, sent, budget))
            print("budget: %s %s: %d bytes transferred of %d bytes, budget %d" % (name, " ".join(v), sent,
                                                                                  sum(len(files[p]) for p in parts), budget))
    # the 2.1 MB header grew in 1 MiB steps, each range bounded, only the missing tail asked
    hub.clear_log()
    run([INSPECT, "hf://test/models/big-header.gguf"], env=ENV)
    ranges = [e["range"] for e in hub.log if e["origin"] == "cdn"]
    check(ranges == ["bytes=0-1048575", "bytes=1048576-2097151", "bytes=2097152-3145727"],
          "big-header: ranges asked %s" % ranges)

    # 3. revisions: a tag, the commit, a branch that moved on
    hub.add_commit("test/models", "main", dict(files, **{"sample.gguf": files["vocab-gpt-2.gguf"]}))
    same_as_local("sample.gguf", [], "hf://test/models@v1.0/sample.gguf")
    same_as_local("sample.gguf", ["--meta"], "hf://test/models@%s/sample.gguf" % commit)
    same_as_local("vocab-gpt-2.gguf", ["--meta"], "hf://test/models/sample.gguf")

    # 4. private and gated repos; the token goes to the Hub and nowhere else
    rc, out, err = run([INSPECT, "hf://test/private/sample.gguf"], env=ENV)
    check(rc == 1 and "model repository 'test/private' not found" in err and "HTTP 401" in err and "HF_TOKEN" in err,
          "private repo without a token: %r" % err)
    rc, out, err = run([INSPECT, "hf://test/gated/sample.gguf"], env=ENV)
    check(rc == 1 and "'test/gated' is restricted" in err, "gated repo: %r" % err)
    hub.cdn_auth_seen.clear()
    hub.clear_log()
    rc, out, err = run([INSPECT, "--json", "hf://test/private/sample.gguf"], env=dict(ENV, HF_TOKEN=TOKEN))
    check(rc == 0, "private repo with HF_TOKEN: %r" % err)
    check(any(e["auth"] for e in hub.log if e["origin"] == "hub"), "the token went to the Hub")
    check(not hub.cdn_auth_seen, "the CDN received an Authorization header: %d times" % len(hub.cdn_auth_seen))
    check(TOKEN not in out + err, "the token appears in the output")
    # the token file under HF_HOME
    os.makedirs(os.path.join(WORK, "hfhome"), exist_ok=True)
    open(os.path.join(WORK, "hfhome", "token"), "w").write(TOKEN + "\n")
    rc, out, err = run([INSPECT, "hf://test/private/sample.gguf"], env=ENV)
    check(rc == 0, "private repo with $HF_HOME/token: %r" % err)
    os.remove(os.path.join(WORK, "hfhome", "token"))
    rc, out, err = run([INSPECT, "hf://test/private/sample.gguf"], env=dict(ENV, HF_TOKEN="hf_wrong"))
    check(rc == 1 and "not found" in err and "hf_wrong" not in err, "a wrong token: %r" % err)
    # plain URLs never get the token
    hub.clear_log()
    url = hub.endpoint + "/test/models/resolve/%s/model.safetensors" % commit
    same_as_local("model.safetensors", ["--tensors"], url, env=dict(ENV, HF_TOKEN=TOKEN))
    check(not any(e["auth"] for e in hub.log), "a plain http:// URL was sent the token")

    # 5. what does not exist, named
    for uri, want in (("hf://test/nope/sample.gguf", "model repository 'test/nope' not found"),
                      ("hf://test/models@nobranch/sample.gguf", "revision 'nobranch' not found in model 'test/models'"),
                      ("hf://test/models/missing.gguf", "file 'missing.gguf' not found in model 'test/models' at revision 'main'"),
                      ("hf://test/models/../x.gguf", "is not a path inside the repo"),
                      ("hf://test/models", "names a repo, not a file"),
                      ("hf://x/models--y/a.gguf", "not a valid repo id")):
        rc, out, err = run([INSPECT, uri], env=ENV)
        check(rc == 1 and want in err, "%s: %r" % (uri, err))
    rc, out, err = run([INSPECT, "hf://test/models/sample.gguf"], env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    check(rc == 1 and "hf://test/models/sample.gguf" in err and ("onnect" in err), "no server: %r" % err)

    # 6. offline mode: nothing cached is an error naming offline mode, with no request;
    # a cached snapshot (huggingface_hub's layout) is read from the cache, with none
    hub.clear_log()
    rc, out, err = run([INSPECT, "hf://test/models/sample.gguf"], env=dict(ENV, HF_HUB_OFFLINE="1"))
    check(rc == 1 and "offline mode (HF_HUB_OFFLINE=1)" in err and not hub.log, "offline, not cached: %r" % err)
    repo_dir = os.path.join(WORK, "hfhome", "hub", "models--test--models")
    os.makedirs(os.path.join(repo_dir, "refs"), exist_ok=True)
    os.makedirs(os.path.join(repo_dir, "blobs"), exist_ok=True)
    os.makedirs(os.path.join(repo_dir, "snapshots", commit), exist_ok=True)
    open(os.path.join(repo_dir, "refs", "v1.0"), "w").write(commit)
    blob = hashlib.sha256(files["sample.gguf"]).hexdigest()
    open(os.path.join(repo_dir, "blobs", blob), "wb").write(files["sample.gguf"])
    os.symlink("../../blobs/" + blob, os.path.join(repo_dir, "snapshots", commit, "sample.gguf"))
    hub.clear_log()
    same_as_local("sample.gguf", ["--json"], "hf://test/models@v1.0/sample.gguf", env=dict(ENV, HF_HUB_OFFLINE="1"))
    same_as_local("sample.gguf", ["--hash", "sha256"], "hf://test/models@%s/sample.gguf" % commit, env=ENV)
    check(not hub.log, "cached files: %d requests made" % len(hub.log))

    # 7. hostile servers: a body dropped mid-way, a stalled body, a file that changed
    blob = hashlib.sha256(files["vocab-gpt-2.gguf"]).hexdigest()
    hub.faults[blob] = {"drop_after": 1000, "times": 1}
    rc, out, err = run([INSPECT, "hf://test/models@v1.0/vocab-gpt-2.gguf"], env=ENV)
    check(rc == 1 and "vocab-gpt-2.gguf" in err, "dropped body: %r" % err)
    hub.faults[blob] = {"stall_after": 1000, "stall_seconds": 5, "times": 1}
    rc, out, err = run([INSPECT, "hf://test/models@v1.0/vocab-gpt-2.gguf"], env=dict(ENV, HF_HUB_DOWNLOAD_TIMEOUT="1"))
    check(rc == 1 and "timed out" in err, "stalled body: %r" % err)
    # a server that ignores Range: stopped at the bytes asked for, named
    blob = hashlib.sha256(files["big-header.gguf"]).hexdigest()
    hub.faults[blob] = {"ignore_range": True, "times": 1}
    hub.clear_log()
    rc, out, err = run([INSPECT, "hf://test/models@v1.0/big-header.gguf"], env=ENV)
    check(rc == 1 and "the server sent more than the 1048576 bytes asked for" in err, "Range ignored: %r" % err)
    # the file changed between two requests (the header's second step sees another size)
    hub.faults[blob] = {"shrink": 1000, "skip": 1, "times": 1}
    rc, out, err = run([INSPECT, "hf://test/models@v1.0/big-header.gguf"], env=ENV)
    check(rc == 1 and "of 10938784 (the file changed on the server?)" in err, "file changed: %r" % err)
    hub.faults.clear()

    # 8. the other tools read the whole file: an hf:// input is pulled into the cache, then read
    #    there (a split's every part, an index's every shard); a plain URL is refused, naming why
    outd = os.path.join(WORK, "outs")
    os.makedirs(outd)
    for args, local_args in ((["hf://test/models@v1.0/sample.gguf", "r1.safetensors"], [sample, "l1.safetensors"]),
                             (["--merge", "hf://test/models@v1.0/split-00001-of-00003.gguf", "r2.gguf"],
                              ["--merge", os.path.join(local, "split-00001-of-00003.gguf"), "l2.gguf"]),
                             (["hf://test/models@v1.0/model.safetensors.index.json", "r3.gguf"],
                              [os.path.join(local, "model.safetensors.index.json"), "l3.gguf"])):
        rc, out, err = run([TRANSCODE] + args, env=ENV, cwd=outd)
        rc2, _, err2 = run([TRANSCODE] + local_args, env=ENV, cwd=outd)
        r, l = os.path.join(outd, args[-1]), os.path.join(outd, local_args[-1])
        check(rc == 0 and rc2 == 0 and open(r, "rb").read() == open(l, "rb").read(),
              "mio-transcode %s: %s %s" % (" ".join(args), err[-300:], err2[-200:]))
    cached = os.path.join(WORK, "hfhome", "hub", "models--test--models", "snapshots", commit)
    check(all(os.path.exists(os.path.join(cached, n)) for n in ("sample.gguf", "split-00003-of-00003.gguf",
                                                               "model-00002-of-00002.safetensors")),
          "the whole-file reads went through the cache")
    rc, out, err = run([TRANSCODE, url, "r4.gguf"], env=ENV, cwd=outd)
    check(rc != 0 and "a URL is read only through its header" in err and not os.path.exists(os.path.join(outd, "r4.gguf")),
          "mio-transcode of a URL: %r" % err)

    # 9. libcurl is loaded at run time: the library does not link it, and a missing one is named
    rc, out, err = run([INSPECT, "hf://test/models/sample.gguf"], env=dict(ENV, MIO_LIBCURL="/nonexistent/libcurl.so.4"))
    check(rc == 1 and "cannot load libcurl (/nonexistent/libcurl.so.4)" in err and "MIO_LIBCURL" in err,
          "libcurl missing: %r" % err)
    lib = os.path.join(os.path.dirname(INSPECT), "..", "src", "libmodelio.so")
    if os.path.exists(lib) and shutil.which("readelf"):
        dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True).stdout
        check("libcurl" not in dyn, "libmodelio.so links libcurl")
finally:
    try:
        hub.stop()
    except NameError:
        pass
    shutil.rmtree(WORK, ignore_errors=True)

finish()
