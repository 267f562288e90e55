# SPDX-License-Identifier: MIT
"""The console scripts of the wheel (python/pyproject.toml, [project.scripts]):
`mio-inspect`, `mio-quantize`, ... in the environment's bin/. Each replaces
itself (os.execv) with the C tool installed beside the library,
modelio/bin/<name>, which finds libmodelio.so.0 through its RUNPATH
($ORIGIN/..): the arguments, standard streams, exit status and signal handling
are the tool's own. Only the tool's argv[0] is this script's path, so its
messages name the command the user typed."""
import os
import sys

from ._lib import _package_dirs  # the package's folders (site-packages; editable: source and build tree)


def _exec(name):
    for d in _package_dirs():
        exe = os.path.join(d, "bin", name)
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            argv = [sys.argv[0] if sys.argv and sys.argv[0] else name] + sys.argv[1:]
            try:
                os.execv(exe, argv)
            except OSError as e:
                sys.stderr.write("%s: cannot run %s: %s\n" % (name, exe, e.strerror))
                return 126
    sys.stderr.write("%s: this modelio installation has no command-line tools (looked for bin/%s in %s); "
                     "reinstall without -C cmake.define.MIO_BUILD_TOOLS=OFF, or install libmodelio's tools "
                     "with CMake (README.md, \"Install and link\")\n" % (name, name, os.pathsep.join(_package_dirs())))
    return 127


def mio_inspect():
    return _exec("mio-inspect")


def mio_quantize():
    return _exec("mio-quantize")


def mio_convert_hf():
    return _exec("mio-convert-hf")


def mio_pull():
    return _exec("mio-pull")


def mio_transcode():
    return _exec("mio-transcode")


def mio_export_gguf():
    return _exec("mio-export-gguf")
