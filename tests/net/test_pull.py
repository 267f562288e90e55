# SPDX-License-Identifier: MIT
"""mio-pull (mio_hub_pull, docs/HUB.md) against a local Hub (fake_hub.py) and
huggingface_hub itself (the PyPI peer): the cache layout equal to the one
snapshot_download makes, each side reading the other's cache without a byte
fetched twice; patterns, revisions, private repos and the token; resume after
a dropped connection and after kill -9; a corrupt body refused; two pulls at
once; offline mode; progress on a terminal.

Usage: test_pull.py MIO_PULL     (run by the PyPI peers' python: huggingface_hub)
"""
import hashlib
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_hub import FakeHub  # noqa: E402
from nettest import check, finish  # noqa: E402

PULL = sys.argv[1]
TOKEN = "hf_test_token_0123456789"


WORK = tempfile.mkdtemp(prefix="mio_pull_")


def env_for(cache, **kw):
    e = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    e.update(HF_ENDPOINT=hub.endpoint, HF_HOME=os.path.join(WORK, "home"), HF_HUB_CACHE=cache,
             HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_PROGRESS_BARS="1", HF_HUB_DISABLE_XET="1")
    e.update(kw)
    return e


def pull(args, cache, **kw):
    p = subprocess.run([PULL] + args, env=env_for(cache, **kw), capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def py(code, cache, **kw):
    p = subprocess.run([sys.executable, "-c", code], env=env_for(cache, **kw), capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def layout(cache):
    """Every path under the cache: type, and a symlink's target; a blob's sha256."""
    out = []
    for root, dirs, files in os.walk(cache):
        for n in sorted(dirs + files):
            p = os.path.join(root, n)
            rel = os.path.relpath(p, cache)
            if os.path.islink(p):
                out.append("l %s -> %s" % (rel, os.readlink(p)))
            elif os.path.isdir(p):
                out.append("d " + rel)
            elif n == "CACHEDIR.TAG":
                out.append("f " + rel)
            else:
                out.append("f %s %s" % (rel, hashlib.sha256(open(p, "rb").read()).hexdigest()))
    return sorted(out)


def transferred(origin=None):
    """Body bytes of file transfers (not the API's answers)."""
    return sum(e["sent"] for e in hub.log if not e["path"].startswith("/api/") and (origin is None or e["origin"] == origin))


hub = FakeHub(tokens=(TOKEN,)).start()
try:
    import random
    rnd = random.Random(7)
    big = bytes(rnd.getrandbits(8) for _ in range(3 << 20))
    import json
    import struct
    hdr = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    hdr += b" " * (-len(hdr) % 8)
    tiny = struct.pack("<Q", len(hdr)) + hdr + struct.pack("<4f", 1, 2, 3, 4)
    files = {"config.json": b'{"architectures": ["LlamaForCausalLM"]}\n', "sub/dir/notes.txt": b"hello\n",
             "tiny.safetensors": tiny,
             "model.safetensors": big, "tokenizer.json": b'{"model": {}}\n', "original/consolidated.pth": b"x" * 5000}
    hub.add_repo("test/repo", files, tags=("v1.0",))
    hub.add_repo("test/private", {"a.gguf": big[:100000], "config.json": b"{}\n"}, private=True)
    commit = hub.repos[("model", "test/repo")].refs["main"]
    blob_big = hashlib.sha256(big).hexdigest()

    # 1. the layout huggingface_hub makes, byte for byte (trees/COMMIT.json too); the listing
    #    comes two entries a page (Link: rel="next"), as both clients follow it
    hub.tree_page = 2
    c_mio, c_py = os.path.join(WORK, "c_mio"), os.path.join(WORK, "c_py")
    rc, out, err = pull(["hf://test/repo"], c_mio)
    snap = os.path.join(c_mio, "models--test--repo", "snapshots", commit)
    check(rc == 0 and out == snap + "\n", "pull: rc %d out %r err %r" % (rc, out, err))
    rc, out, err = py("from huggingface_hub import snapshot_download; print(snapshot_download('test/repo'))", c_py)
    check(rc == 0, "snapshot_download: %s" % err[-500:])
    check(layout(c_mio) == layout(c_py), "cache layouts differ:\n  %s" % "\n  ".join(
        sorted(set(layout(c_mio)) ^ set(layout(c_py)))))
    check(open(os.path.join(c_mio, "models--test--repo", "refs", "main")).read() == commit, "refs/main")

    # 2. huggingface_hub reads ours, with no request (offline) ...
    code = ("from huggingface_hub import snapshot_download, hf_hub_download\n"
            "p = snapshot_download('test/repo', local_files_only=True)\n"
            "f = hf_hub_download('test/repo', 'sub/dir/notes.txt', local_files_only=True)\n"
            "print(p); print(open(f, 'rb').read() == b'hello\\n')")
    hub.clear_log()
    rc, out, err = py(code, c_mio, HF_HUB_OFFLINE="1")
    check(rc == 0 and out.split() == [snap, "True"], "huggingface_hub offline on our cache: %r %s" % (out, err[-400:]))
    check(not hub.log, "huggingface_hub offline made %d requests" % len(hub.log))
    # ... and we reuse what it downloaded: no file byte fetched again
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo"], c_py)
    check(rc == 0 and out.strip() == os.path.join(c_py, "models--test--repo", "snapshots", commit), "pull over Python's cache")
    check(transferred() == 0, "pull over Python's cache transferred %d file bytes" % transferred())
    # a second pull of our own cache: nothing either
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo"], c_mio)
    check(rc == 0 and transferred() == 0, "second pull transferred %d file bytes" % transferred())

    # 3. patterns, a tag, one file
    c3 = os.path.join(WORK, "c3")
    rc, out, err = pull(["hf://test/repo@v1.0", "--include", "*.json", "--include", "sub/", "--exclude", "tokenizer*"], c3)
    s3 = os.path.join(c3, "models--test--repo", "snapshots", commit)
    got = sorted(os.path.relpath(os.path.join(r, n), s3) for r, _, ns in os.walk(s3) for n in ns)
    check(rc == 0 and got == ["config.json", "sub/dir/notes.txt"], "patterns: %r %s" % (got, err))
    check(open(os.path.join(c3, "models--test--repo", "refs", "v1.0")).read() == commit, "refs/v1.0")
    rc, out, err = py("from huggingface_hub import snapshot_download; print(snapshot_download('test/repo', "
                      "revision='v1.0', allow_patterns=['*.json', 'sub/'], ignore_patterns=['tokenizer*'], "
                      "local_files_only=True))", c3)
    check(rc == 0 and out.strip() == s3, "huggingface_hub finds the pattern pull: %s" % err[-300:])
    rc, out, err = pull(["hf://test/repo/tokenizer.json"], c3)
    check(rc == 0 and out.strip() == os.path.join(s3, "tokenizer.json") and open(out.strip(), "rb").read() ==
          files["tokenizer.json"], "one file: %r %s" % (out, err))

    # 4. a private repo: the token from HF_TOKEN reaches the Hub only, and no file or output
    c4 = os.path.join(WORK, "c4")
    rc, out, err = pull(["hf://test/private"], c4)
    check(rc == 1 and "'test/private' not found" in err and "HF_TOKEN" in err, "private without token: %r" % err)
    hub.cdn_auth_seen.clear()
    rc, out, err = pull(["hf://test/private"], c4, HF_TOKEN=TOKEN)
    check(rc == 0, "private with token: %r" % err)
    check(not hub.cdn_auth_seen, "the CDN received the token")
    leaked = [os.path.join(r, n) for r, _, ns in os.walk(c4) for n in ns
              if not os.path.islink(os.path.join(r, n)) and TOKEN.encode() in open(os.path.join(r, n), "rb").read()]
    check(not leaked and TOKEN not in out + err, "the token was written: %r" % leaked)

    # 5. what does not exist, named
    for uri, want in (("hf://test/nope", "model repository 'test/nope' not found"),
                      ("hf://test/repo@v9", "revision 'v9' not found in model 'test/repo'"),
                      ("hf://test/repo/missing.bin", "file 'missing.bin' not found in model 'test/repo'")):
        rc, out, err = pull([uri], os.path.join(WORK, "c5"))
        check(rc == 1 and want in err, "%s: %r" % (uri, err))

    # 6. a dropped connection is resumed within the run (Range: bytes=N-)
    c6 = os.path.join(WORK, "c6")
    hub.faults[blob_big] = {"drop_after": 1 << 20, "times": 1}
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo", "--include", "model.safetensors"], c6)
    blob6 = os.path.join(c6, "models--test--repo", "blobs", blob_big)
    check(rc == 0 and os.path.exists(blob6) and hashlib.sha256(open(blob6, "rb").read()).hexdigest() == blob_big,
          "resume after a drop: %r" % err)
    ranges = [e["range"] for e in hub.log if e["origin"] == "cdn"]
    check(ranges == [None, "bytes=%d-" % (1 << 20)], "resume ranges: %r" % ranges)

    # 6b. a server that does not continue (200 to a range): the file is fetched again from byte 0
    c6b = os.path.join(WORK, "c6b")
    hub.faults[blob_big] = [{"drop_after": 1 << 20}, {"ignore_range": True}]
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo", "--include", "model.safetensors"], c6b)
    blob6b = os.path.join(c6b, "models--test--repo", "blobs", blob_big)
    ranges = [e["range"] for e in hub.log if e["origin"] == "cdn"]
    check(rc == 0 and os.path.exists(blob6b) and open(blob6b, "rb").read() == big and
          ranges == [None, "bytes=%d-" % (1 << 20), None], "restart after a range ignored: %r %r" % (ranges, err))
    hub.faults.clear()

    # 7. kill -9 mid-download leaves only BLOB.incomplete; the next run continues it
    c7 = os.path.join(WORK, "c7")
    hub.faults[blob_big] = {"stall_after": 1 << 20, "stall_seconds": 20, "times": 1}
    p = subprocess.Popen([PULL, "hf://test/repo", "--include", "model.safetensors"], env=env_for(c7, HF_HUB_DOWNLOAD_TIMEOUT="60"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    part = os.path.join(c7, "models--test--repo", "blobs", blob_big + ".incomplete")
    for _ in range(200):
        if os.path.exists(part) and os.path.getsize(part) >= 1 << 20:
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    blobs = sorted(os.listdir(os.path.join(c7, "models--test--repo", "blobs")))
    snapfile = os.path.join(c7, "models--test--repo", "snapshots", commit, "model.safetensors")
    check(blobs == [blob_big + ".incomplete"] and os.path.getsize(part) == 1 << 20 and not os.path.lexists(snapfile),
          "after kill -9: %r" % blobs)
    hub.faults.clear()
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo", "--include", "model.safetensors"], c7)
    ranges = [e["range"] for e in hub.log if e["origin"] == "cdn"]
    check(rc == 0 and ranges == ["bytes=%d-" % (1 << 20)], "continued after kill -9: %r %r" % (ranges, err))
    check(transferred("cdn") == len(big) - (1 << 20), "continued transfer: %d bytes" % transferred("cdn"))
    check(open(snapfile, "rb").read() == big, "the continued file")

    # 8. a corrupt body: refused naming the checksum, no file under a final name, nothing partial
    c8 = os.path.join(WORK, "c8")
    hub.faults[blob_big] = {"corrupt": True, "times": 1}
    rc, out, err = pull(["hf://test/repo", "--include", "model.safetensors"], c8)
    b8 = os.path.join(c8, "models--test--repo", "blobs")
    check(rc == 1 and "sha256" in err and blob_big in err and "corrupt" in err, "corrupt body: %r" % err)
    check(os.listdir(b8) == [] and not os.path.lexists(os.path.join(c8, "models--test--repo", "snapshots", commit,
                                                                       "model.safetensors")),
          "corrupt body left: %r" % os.listdir(b8))
    hub.faults.clear()

    # 9. two pulls into one cache at once, and a pull beside huggingface_hub: all succeed
    c9 = os.path.join(WORK, "c9")
    hub.faults[blob_big] = {"stall_after": 1 << 20, "stall_seconds": 1, "times": 1}
    procs = [subprocess.Popen([PULL, "hf://test/repo"], env=env_for(c9), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    procs.append(subprocess.Popen([sys.executable, "-c", "from huggingface_hub import snapshot_download; "
                                   "print(snapshot_download('test/repo'))"], env=env_for(c9), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE))
    res = [(q.wait(), q.stdout.read().decode(), q.stderr.read().decode()) for q in procs]
    s9 = os.path.join(c9, "models--test--repo", "snapshots", commit)
    check(all(r[0] == 0 and r[1].strip() == s9 for r in res), "concurrent pulls: %r" % [(r[0], r[2][-300:]) for r in res])
    check(layout(c9) == layout(c_py), "concurrent pulls' cache differs")
    hub.faults.clear()

    # 10. offline: the cache answers with no request; what is not there is named
    hub.clear_log()
    rc, out, err = pull(["hf://test/repo@v1.0"], c3, HF_HUB_OFFLINE="1")
    check(rc == 0 and out.strip() == s3 and not hub.log, "offline pull from the cache: %r" % err)
    rc, out, err = pull(["hf://test/repo@other"], c3, HF_HUB_OFFLINE="1")
    check(rc == 1 and "offline mode (HF_HUB_OFFLINE=1)" in err and not hub.log, "offline, not cached: %r" % err)

    # 11. a progress bar on a terminal, none otherwise
    c11 = os.path.join(WORK, "c11")
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(PULL, [PULL, "hf://test/repo", "--include", "model.safetensors"], env_for(c11))
    buf = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    os.waitpid(pid, 0)
    check(b"\r[" in buf and b"100%" in buf, "no progress bar on a terminal: %r" % buf[-200:])
    rc, out, err = pull(["hf://test/repo", "--include", "model.safetensors"], os.path.join(WORK, "c12"))
    check(rc == 0 and err == "", "progress written when not a terminal: %r" % err)
    # 11b. hostile listings: a name that climbs out of the snapshot, an id that is no hash, a size that lies
    c15 = os.path.join(WORK, "c15")
    good = {"type": "file", "oid": hashlib.sha1(b"blob 6\0hello\n").hexdigest(), "size": 6, "path": "sub/dir/notes.txt"}
    for entries, want in (([dict(good, path="../../../evil.txt")], "the Hub lists a file name that cannot be a path"),
                          ([dict(good, path="/etc/passwd")], "the Hub lists a file name that cannot be a path"),
                          ([dict(good, oid="zz")], "has no usable id"),
                          ([dict(good, lfs={"oid": "../x", "size": 6, "pointerSize": 1})], "has no usable id"),
                          ([dict(good, size=3)], "more than the 3 bytes asked for"),
                          ([{"type": "file", "oid": "1" * 40, "size": len(big), "path": "model.safetensors",
                             "lfs": {"oid": "a" * 64, "size": len(big), "pointerSize": 134}}],
                           "the Hub's listing says %s" % ("a" * 64))):
        hub.tree_override["test/repo"] = entries
        shutil.rmtree(c15, ignore_errors=True)
        rc, out, err = pull(["hf://test/repo@%s" % commit], c15)
        check(rc == 1 and want in err, "hostile listing %r: %r" % (entries[0], err))
        check(not os.path.exists(os.path.join(WORK, "evil.txt")) and not os.path.exists(os.path.join(c15, "evil.txt")),
              "a listing wrote outside the snapshot")
        blobs = os.path.join(c15, "models--test--repo", "blobs")
        check(not os.path.isdir(blobs) or not [b for b in os.listdir(blobs) if not b.endswith(".incomplete")],
              "hostile listing left a blob: %r" % (os.listdir(blobs) if os.path.isdir(blobs) else None))
    hub.tree_override.clear()

    # 12. the same from Python (modelio over the library): pull, remote inspection, errors
    modelio = None
    if os.environ.get("MIO_NET_NO_PYTHON"):
        print("the Python part is skipped: a sanitizer build's library cannot be loaded into python")
    else:
        import modelio
    if modelio is not None:
        for k, v in env_for(os.path.join(WORK, "c13")).items():
            if k.startswith("HF_"):
                os.environ[k] = v
        check(modelio.http_supported(), "modelio.http_supported()")
        c13 = os.path.join(WORK, "c13")
        got = modelio.pull("hf://test/repo", include=["*.json", "sub/"], exclude="tokenizer*")
        check(got == os.path.join(c13, "models--test--repo", "snapshots", commit), "modelio.pull: %r" % got)
        rc, _, err = pull(["hf://test/repo", "--include", "*.json", "--include", "sub/", "--exclude", "tokenizer*"],
                          os.path.join(WORK, "c13b"))
        check(rc == 0 and layout(c13) == layout(os.path.join(WORK, "c13b")), "modelio.pull's cache differs from mio-pull's")
        seen = []
        got = modelio.pull("hf://test/repo/tiny.safetensors", cache_dir=os.path.join(WORK, "c14"),
                           progress=lambda *a: seen.append(a))
        check(open(got, "rb").read() == tiny and seen and seen[-1][0] == seen[-1][1] == 1,
              "modelio.pull one file: %r %r" % (got, seen[-1:]))
        remote = modelio.inspect.describe("hf://test/repo/tiny.safetensors")
        local = modelio.inspect.describe(got)
        check(remote.get("tensors") == local.get("tensors") and remote.get("file_size") == len(tiny),
              "modelio.inspect.describe remote: %r" % remote.get("tensors"))
        for uri, cls in (("hf://test/nope", modelio.NotFoundError), ("hf://test/repo/missing.bin", modelio.NotFoundError)):
            try:
                modelio.pull(uri)
                check(False, "%s: no exception" % uri)
            except cls as e:
                check("not found" in str(e), "%s: %s" % (uri, e))
finally:
    hub.stop()
    shutil.rmtree(WORK, ignore_errors=True)

finish()
