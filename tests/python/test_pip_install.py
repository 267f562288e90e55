# SPDX-License-Identifier: MIT
"""`pip install ./python` from nothing (issue 34), as a new user meets it.

A copy of the repository as a fresh clone has it (git's tracked and
not-ignored files of the working tree: no build tree, no bundled library) goes
into a temporary directory; a new virtual environment is made with no
libmodelio anywhere on its paths (LD_LIBRARY_PATH, MODELIO_LIBRARY and
PYTHONPATH removed from the environment); then:

  1. `pip install <clone>/python` (the package index reachable: scikit-build-core
     and numpy come from it) builds libmodelio inside pip and installs it;
  2. `import modelio` loads the library from the package folder in site-packages,
     and reads llama.cpp's real GPT-2 vocabulary GGUF, a GGUF with tensors
     written by gguf-py, and upstream safetensors' golden files exactly as gguf-py
     and upstream safetensors read them (installed from PyPI in the same venv);
  3. the console scripts in the venv's bin/ run the C tools (mio-inspect --json,
     mio-quantize's usage and exit status 1 as llama-quantize);
  4. `pip wheel <clone>/python` gives one platform wheel,
     modelio-<version>-py3-none-linux_<arch>.whl, holding the library (one file,
     libmodelio.so.0), the six tools and the Python modules, and `auditwheel
     show` finds no external shared library beyond the system's libc family; the
     library's and tools' ELF dependencies are checked by name too;
  5. `pip install -e <clone>/python` (an editable install) rebuilds the library
     and the tools on the next import after a C source changed.

Usage: test_pip_install.py REPO_DIR TEST_DATA_DIR   (exit 77: skipped)"""
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile

REPO, DATA = sys.argv[1], sys.argv[2]
TOOLS = ["mio-convert-hf", "mio-export-gguf", "mio-inspect", "mio-pull", "mio-quantize", "mio-transcode"]
# What a manylinux-style wheel may need from the system (auditwheel's policy
# calls these the system-provided libraries).
SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2",
               "ld-linux-aarch64.so.1"}
PEERS = ["safetensors==0.8.0", "gguf==0.19.0", "auditwheel==6.8.2"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(cmd, env, cwd, timeout=1200):
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p


def must(p, what):
    if p.returncode != 0:
        print("FAIL %s (exit %d)\n--- stdout\n%s\n--- stderr\n%s" % (what, p.returncode, p.stdout[-6000:],
                                                                     p.stderr[-6000:]))
        sys.exit(1)
    print("ok   " + what, flush=True)
    return p


def fresh_clone(dst):
    """The files a clone of this working tree would have (tracked or new, not ignored)."""
    try:
        names = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        names = None
    if names is None:
        shutil.copytree(REPO, dst, ignore=shutil.ignore_patterns("build", "build-*", ".git", "__pycache__"))
        return
    for n in filter(None, names):
        src = os.path.join(REPO, n)
        if not os.path.lexists(src):          # deleted in the working tree, not yet committed
            continue
        d = os.path.join(dst, n)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(src, d, follow_symlinks=False)


def elf_dynamic(path):
    """(NEEDED names, RUNPATH) of an ELF file, from readelf -d."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    rp = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]+)\]", out)
    return needed, (rp[0] if rp else None)


# The check inside the venv: modelio against gguf-py and upstream safetensors.
READ_CHECK = r'''
import os, sys, numpy as np
import modelio, gguf, safetensors.numpy as up
from modelio import gguf as mg, safetensors as ms
data, site, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
assert modelio.library_path == os.path.join(site, "modelio", "libmodelio.so.0"), modelio.library_path
print("library", modelio.library_path, modelio.library_version)

def same_gguf(path):
    a, b = mg.GGUFReader(path), gguf.GGUFReader(path)
    assert list(a.fields) == list(b.fields), path
    for k in b.fields:
        fa, fb = a.fields[k], b.fields[k]
        assert [int(t) for t in fa.types] == [int(t) for t in fb.types], k
        ca, cb = fa.contents(), fb.contents()
        assert type(ca) == type(cb) and ca == cb, k
    assert (a.alignment, a.data_offset) == (b.alignment, b.data_offset), path
    assert [t.name for t in a.tensors] == [t.name for t in b.tensors], path
    for ta, tb in zip(a.tensors, b.tensors):
        assert int(ta.tensor_type) == int(tb.tensor_type) and ta.shape.tolist() == tb.shape.tolist(), ta.name
        assert (ta.n_elements, ta.n_bytes, ta.data_offset) == (tb.n_elements, tb.n_bytes, tb.data_offset), ta.name
        assert np.asarray(ta.data).tobytes() == np.asarray(tb.data).tobytes(), ta.name
    return a

# llama.cpp's real GPT-2 vocabulary file (19 keys, no tensors)
r = same_gguf(os.path.join(data, "vocab-gpt-2.gguf"))
toks = r.fields["tokenizer.ggml.tokens"].contents()
assert len(toks) == 50257 and toks[1000] == "ale", (len(toks), toks[1000])
print("gguf vocab-gpt-2.gguf: %d keys, 50257 tokens, token 1000 = 'ale'" % len(r.fields))

# a GGUF with tensors, written by gguf-py
w = gguf.GGUFWriter(os.path.join(tmp, "peer.gguf"), "llama")
w.add_uint32("llama.context_length", 4096)
w.add_string("general.name", "peer")
w.add_tensor("tok_embd.weight", np.arange(64, dtype=np.float32).reshape(8, 8))
w.add_tensor("norm.weight", np.ones(8, dtype=np.float16))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
r = same_gguf(os.path.join(tmp, "peer.gguf"))
assert float(np.asarray(r.tensors[0].data)[7, 7]) == 63.0
print("gguf peer.gguf: %d tensors" % len(r.tensors))

# upstream safetensors' golden files (dtypes numpy knows)
for name in ("large_20000.safetensors", "scalar.safetensors", "empty_0x4.safetensors", "no_tensors_meta.safetensors"):
    p = os.path.join(data, "safetensors", "golden", name)
    a, b = ms.load_file(p), up.load_file(p)
    assert sorted(a) == sorted(b), name
    for k in b:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), (name, k)
    with ms.safe_open(p, framework="np") as fa:
        from safetensors import safe_open
        with safe_open(p, framework="np") as fb:
            assert fa.metadata() == fb.metadata(), name
    print("safetensors %s: %d tensors" % (name, len(b)))
print("READ-CHECK-PASSED")
'''


def main():
    for tool in ("git", "readelf"):
        if not shutil.which(tool):
            print("SKIP: %s is not installed" % tool)
            return 77
    tmp = tempfile.mkdtemp(prefix="mio-pip-")
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    clone = os.path.join(tmp, "clone")
    fresh_clone(clone)
    version = re.search(r'^__version__ = "([^"]+)"',
                        open(os.path.join(clone, "python", "modelio", "__init__.py")).read(), re.M).group(1)
    check(not os.path.exists(os.path.join(clone, "python", "modelio", "libmodelio.so.0"))
          and not os.path.exists(os.path.join(clone, "python", "build")), "the clone holds no built library")

    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "MODELIO_LIBRARY", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
           and not k.startswith("SKBUILD")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONDONTWRITEBYTECODE="1")
    venv = os.path.join(tmp, "venv")
    must(run([sys.executable, "-m", "venv", venv], env, tmp), "python -m venv")
    py, bindir = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin")
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    site = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"], env, tmp).stdout.strip()

    # no libmodelio before the install: importing fails with the documented error
    p = run([py, "-c", "import ctypes.util; print(ctypes.util.find_library('modelio'))"], env, tmp)
    system_lib = p.stdout.strip() != "None"
    print("system libmodelio: %s" % (p.stdout.strip() if system_lib else "none"))

    # 1. the install
    must(run([py, "-m", "pip", "install", os.path.join(clone, "python")], env, tmp), "pip install ./python")
    lib = os.path.join(site, "modelio", "libmodelio.so.0")
    check(os.path.isfile(lib) and not os.path.islink(lib), "the library is one file in the package: %s" % lib)

    # 2. reading real files as the peers do
    must(run([py, "-m", "pip", "install", *PEERS], env, tmp), "pip install %s" % " ".join(PEERS))
    p = must(run([py, "-c", READ_CHECK, DATA, site, tmp], env, tmp), "import modelio and read GGUF/safetensors")
    print(p.stdout.strip())
    check("READ-CHECK-PASSED" in p.stdout, "the read check ran to its end")

    # 3. the tools, through the console scripts
    for t in TOOLS:
        check(os.access(os.path.join(bindir, t), os.X_OK), "bin/%s is installed" % t)
    p = run([os.path.join(bindir, "mio-inspect"), "--json", os.path.join(DATA, "vocab-gpt-2.gguf")], env, tmp)
    check(p.returncode == 0, "bin/mio-inspect --json exits 0 (%s)" % p.stderr.strip()[:200])
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {}
    got = {k: j.get(k) for k in ("format", "version", "kv_count", "tensor_count", "file_size")}
    check(got == {"format": "gguf", "version": 3, "kv_count": 16, "tensor_count": 0, "file_size": 1766807},
          "bin/mio-inspect --json: gguf v3, 16 keys, no tensors, 1766807 bytes (%s)" % got)
    p = run([os.path.join(bindir, "mio-quantize")], env, tmp)
    check(p.returncode == 1 and p.stderr.startswith("usage: mio-quantize"),
          "bin/mio-quantize without arguments: exit 1 and its usage (got %d: %r)" % (p.returncode, p.stderr[:60]))
    p = run([os.path.join(bindir, "mio-inspect"), "--version"], env, tmp)
    check(p.returncode == 0 and p.stdout.strip() == "mio-inspect (libmodelio) %s" % version,
          "bin/mio-inspect --version: %r" % p.stdout.strip())
    tool = os.path.join(site, "modelio", "bin", "mio-inspect")
    needed, runpath = elf_dynamic(tool)
    check(runpath == "$ORIGIN/..", "the tools' RUNPATH is $ORIGIN/.. (got %s)" % runpath)
    check(needed - SYSTEM_LIBS == {"libmodelio.so.0"}, "the tools need libmodelio.so.0 and the system's libc family: %s"
          % sorted(needed))
    needed, runpath = elf_dynamic(lib)
    check(needed <= SYSTEM_LIBS, "libmodelio.so.0 needs only the system's libc family: %s" % sorted(needed))

    # 4. the wheel
    wh = os.path.join(tmp, "wheels")
    must(run([py, "-m", "pip", "wheel", "--no-deps", "-w", wh, os.path.join(clone, "python")], env, tmp),
         "pip wheel ./python")
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    want = "modelio-%s-py3-none-%s.whl" % (version, plat)
    check(os.listdir(wh) == [want], "one wheel named %s (got %s)" % (want, os.listdir(wh)))
    whl = os.path.join(wh, want)
    if os.path.exists(whl):
        z = zipfile.ZipFile(whl)
        names = set(z.namelist())
        di = "modelio-%s.dist-info/" % version
        for n in ["modelio/libmodelio.so.0", "modelio/__init__.py", "modelio/_lib.py", "modelio/_tools.py",
                  "modelio/gguf.py", "modelio/safetensors.py", di + "WHEEL", di + "RECORD", di + "entry_points.txt"] + \
                ["modelio/bin/" + t for t in TOOLS]:
            check(n in names, "the wheel holds %s" % n)
        check(sorted(n for n in names if ".so" in n) == ["modelio/libmodelio.so.0"],
              "the only shared object is modelio/libmodelio.so.0")
        check(sorted(n for n in names if n.startswith("modelio/bin/")) == ["modelio/bin/" + t for t in TOOLS],
              "modelio/bin/ holds exactly the six tools")
        check(all((z.getinfo("modelio/bin/" + t).external_attr >> 16) & 0o111 for t in TOOLS),
              "the tools are executable in the wheel")
        wheel_meta = z.read(di + "WHEEL").decode()
        check("Root-Is-Purelib: false" in wheel_meta and "Tag: py3-none-%s" % plat in wheel_meta,
              "WHEEL: platlib, tag py3-none-%s" % plat)
        eps = z.read(di + "entry_points.txt").decode()
        check(all("%s = modelio._tools:%s" % (t, t.replace("-", "_")) in eps for t in TOOLS),
              "entry_points.txt names the five console scripts")
        check("Requires-Dist: numpy" in z.read(di + "METADATA").decode(), "METADATA requires numpy")
        aw = run([os.path.join(bindir, "auditwheel"), "show", whl], env, tmp)
        print(aw.stdout.strip())
        check(aw.returncode == 0, "auditwheel show exits 0 (%s)" % aw.stderr.strip()[-300:])
        out = " ".join(aw.stdout.split())
        check("consistent with the following platform tag" in out, "auditwheel finds a platform tag")
        check("external shared libraries are required" not in out,
              "auditwheel: no external shared library beyond the system's")

    # 5. editable: a C change is rebuilt on the next import
    must(run([py, "-m", "pip", "uninstall", "-y", "modelio"], env, tmp), "pip uninstall modelio")
    must(run([py, "-m", "pip", "install", "--no-deps", "-e", os.path.join(clone, "python")], env, tmp),
         "pip install -e ./python")
    p = must(run([py, "-c", "import modelio; print(modelio.library_version); print(modelio.library_path)"], env, tmp),
             "import modelio (editable)")
    check(p.stdout.split()[0] == version and p.stdout.split()[1].startswith(os.path.join(clone, "python", "build")),
          "editable: the library of the build tree (%s)" % p.stdout.split())
    src = os.path.join(clone, "src", "core", "error.c")
    text = open(src).read()
    edited = re.sub(r"(const char \*mio_version\(void\) \{\n\s*return )[^;]*;", r'\1"9.9.9-edited";', text)
    check(edited != text, "mio_version() edited in the clone")
    with open(src, "w") as fh:
        fh.write(edited)
    # cmake --install skips a file whose time is within a second of the
    # installed copy's; python/CMakeLists.txt removes the installed files first
    # so that the rebuild's install always copies. Make that case certain here:
    # the installed copies get a time one second ahead, as if the last install
    # had just happened (CI hit it by chance before the fix).
    inst = os.path.dirname(p.stdout.split()[1])
    t = time.time() + 1.0
    for f in [os.path.join(inst, "libmodelio.so.0")] + [os.path.join(inst, "bin", n) for n in TOOLS]:
        if os.path.exists(f):
            os.utime(f, (t, t))
    p = must(run([py, "-c", "import modelio; print(modelio.library_version)"], env, tmp), "import after the edit")
    check(p.stdout.strip() == "9.9.9-edited", "the edit is rebuilt on import (got %r)" % p.stdout.strip())
    if p.stdout.strip() != "9.9.9-edited":  # say why: the rebuild's own log, and the times it decided by
        v = run([py, "-c", "import modelio; print(modelio.library_version)"], dict(env, SKBUILD_EDITABLE_VERBOSE="1"), tmp)
        print("--- a second import with SKBUILD_EDITABLE_VERBOSE=1 (stdout, then stderr):\n%s\n%s" %
              (v.stdout[-3000:], v.stderr[-3000:]))
        obj = [os.path.join(r, f) for r, _, fs in os.walk(os.path.join(clone, "python", "build")) for f in fs
               if f == "error.c.o"]
        print("mtimes: error.c %.6f, %s" % (os.stat(src).st_mtime,
                                            ", ".join("%s %.6f" % (o, os.stat(o).st_mtime) for o in obj)))
    p = run([os.path.join(bindir, "mio-inspect"), "--version"], env, tmp)
    check(p.stdout.strip() == "mio-inspect (libmodelio) 9.9.9-edited", "the tools too: %r" % p.stdout.strip())

    if system_lib:
        print("note: a system-wide libmodelio exists; the checks above proved the package's own copy was loaded")
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
