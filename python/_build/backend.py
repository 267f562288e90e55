# SPDX-License-Identifier: MIT
"""A minimal PEP 517 build backend for the `modelio` package (standard library
only, so building needs no download): build_wheel, build_editable, build_sdist
and the metadata hooks. The wheel holds modelio/*.py and, when the environment
variable MODELIO_BUNDLE_LIBRARY names a shared library at build time, that file
as modelio/libmodelio.so.0 (the wheel is then tagged for this platform)."""
import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import zipfile

NAME = "modelio"
SUMMARY = ("GGUF and safetensors model files from Python: safetensors- and gguf-py-compatible APIs "
           "over libmodelio")
REQUIRES = ["numpy>=1.21"]
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # python/
PKG = os.path.join(HERE, NAME)


def _version():
    with open(os.path.join(PKG, "__init__.py"), encoding="utf-8") as fh:
        return re.search(r'^__version__ = "([^"]+)"', fh.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + _version(), "Summary: " + SUMMARY,
             "Requires-Python: >=3.8"]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    lines += ["Description-Content-Type: text/markdown", "", readme]
    return "\n".join(lines)


def _bundle():
    p = os.environ.get("MODELIO_BUNDLE_LIBRARY")
    if p and not os.path.isfile(p):
        raise RuntimeError("MODELIO_BUNDLE_LIBRARY=%s: no such file" % p)
    return p or None


def _tag(bundle):
    if not bundle:
        return "py3-none-any"
    return "py3-none-" + re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _write_dist_info(directory, tag):
    d = os.path.join(directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as fh:
        fh.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as fh:
        fh.write("Wheel-Version: 1.0\nGenerator: modelio-backend\nRoot-Is-Purelib: %s\nTag: %s\n"
                 % ("true" if tag.endswith("any") else "false", tag))
    return os.path.basename(d)


def _wheel(wheel_directory, files):
    """files: [(archive name, bytes)]; returns the wheel's file name."""
    bundle = _bundle()
    tag = _tag(bundle)
    di = _dist_info()
    files = list(files)
    files.append((di + "/METADATA", _metadata().encode("utf-8")))
    files.append((di + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: modelio-backend\nRoot-Is-Purelib: %s\nTag: %s\n"
                                  % ("true" if tag.endswith("any") else "false", tag)).encode()))
    record = []
    name = "%s-%s-%s.whl" % (NAME, _version(), tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            z.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
        record.append(di + "/RECORD,,")
        z.writestr(di + "/RECORD", "\n".join(record) + "\n")
    return name


def _package_files():
    out = []
    for fn in sorted(os.listdir(PKG)):
        if fn.endswith(".py"):
            with open(os.path.join(PKG, fn), "rb") as fh:
                out.append((NAME + "/" + fn, fh.read()))
    bundle = _bundle()
    if bundle:
        with open(os.path.realpath(bundle), "rb") as fh:
            out.append((NAME + "/libmodelio.so.0", fh.read()))
    return out


# --- PEP 517 hooks -----------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory, _tag(_bundle()))


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory, _tag(_bundle()))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # a .pth file putting python/ on sys.path: edits to modelio/*.py take effect at once
    return _wheel(wheel_directory, [("_modelio_editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in ["pyproject.toml", "README.md", "_build/backend.py"] + \
                   [NAME + "/" + f for f in sorted(os.listdir(PKG)) if f.endswith(".py")]:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        info = _metadata().encode("utf-8")
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(info)
        t.addfile(ti, io.BytesIO(info))
    return name
