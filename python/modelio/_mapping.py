# SPDX-License-Identifier: MIT
"""A file mapped into memory, shared by the parsed handle (which borrows it)
and every numpy view handed out. The numpy views hold a buffer export of the
mmap object, so the mapping lives exactly as long as the last view (or the
handle) that uses it; closing a handle never invalidates an array."""
import mmap
import os
import sys

import numpy as np

from .errors import FileError, InvalidArgumentError

_ACCESS = {"r": mmap.ACCESS_READ, "c": mmap.ACCESS_COPY, "r+": mmap.ACCESS_WRITE}
# Linux MAP_NORESERVE (the mmap module does not name it everywhere):
# a private writable mapping is otherwise charged in full against the commit
# limit, and a model larger than RAM + swap could not be mapped copy-on-write.
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if sys.platform.startswith("linux") else 0)


def _map(fd, mode):
    if mode != "c":
        return mmap.mmap(fd, 0, access=_ACCESS[mode])
    try:
        return mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE | _MAP_NORESERVE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    except OSError:
        # strict overcommit (vm.overcommit_memory=2) may still refuse a huge
        # private mapping: fall back to a read-only one (read-only arrays)
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)


class Mapping:
    __slots__ = ("obj", "u8", "addr", "size")

    def __init__(self, path, mode="r"):
        if mode not in _ACCESS:
            raise InvalidArgumentError(3, "mode must be 'r', 'c' or 'r+', not %r" % (mode,))
        try:
            fd = os.open(os.fspath(path), os.O_RDWR if mode == "r+" else os.O_RDONLY)
        except OSError as e:
            raise FileError(1, "cannot open %s: %s" % (os.fspath(path), e.strerror or e)) from None
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                obj = bytearray(0)   # mmap refuses empty files; the parser reports the size
            else:
                try:
                    obj = _map(fd, mode)
                except (OSError, ValueError) as e:
                    raise FileError(1, "cannot map %s: %s" % (os.fspath(path), getattr(e, "strerror", None) or e)) from None
        finally:
            os.close(fd)
        self._init(obj)

    @classmethod
    def of_buffer(cls, buf):
        m = cls.__new__(cls)
        m._init(buf)
        return m

    def _init(self, obj):
        self.obj = obj
        self.u8 = np.frombuffer(obj, dtype=np.uint8)
        self.size = self.u8.size
        # the address the library parses; a 1-byte dummy for an empty buffer
        self.addr = self.u8.ctypes.data if self.size else np.zeros(1, np.uint8).ctypes.data
