# SPDX-License-Identifier: MIT
"""safetensors through libmodelio, shaped like upstream's `safetensors` /
`safetensors.numpy` (framework="np"):

    from modelio.safetensors import safe_open, load_file, save_file, load, save
    with safe_open("model.safetensors", framework="np") as f:
        f.keys(); f.metadata(); f.get_tensor("w"); f.get_slice("w")[0:2]

Parsing and validation are the library's (it refuses what upstream refuses:
docs/SAFETENSORS.md). Arrays are zero-copy numpy views of a private
(copy-on-write, MAP_PRIVATE) mapping of the file: writeable like upstream's
arrays, writes never reach the file, and each view keeps the mapping alive,
so arrays stay valid after the file is closed. Unlike upstream (which copies
on every get_tensor), two get_tensor calls for the same name on one open
handle return views of the same memory; load_file maps the file afresh for
each call, so its arrays are independent of any other call's.

dtypes: as upstream's numpy framework — BF16 needs numpy to understand
"bfloat16" (TypeError otherwise, e.g. without ml_dtypes imported), F8_* and F4
need numpy attributes float8_e4m3fn etc. (AttributeError otherwise), F6_* are
refused (modelio.UnsupportedError, "Dtype not understood: F6_E2M3")."""
import ctypes as C
import json
import os

import numpy as np

from . import _lib
from ._lib import lib
from ._mapping import Mapping
from .errors import InvalidArgumentError, NotFoundError, UnsupportedError

__all__ = ["safe_open", "load_file", "save_file", "load", "save"]

# dtype code -> how upstream's numpy framework names it
_NP_PLAIN = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "U64": np.uint64,
             "I32": np.int32, "U32": np.uint32, "I16": np.int16, "U16": np.uint16, "I8": np.int8,
             "U8": np.uint8, "BOOL": np.bool_, "C64": np.complex64}
_NP_ATTR = {"F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "F8_E8M0": "float8_e8m0fnu",
            "F8_E4M3FNUZ": "float8_e4m3fnuz", "F8_E5M2FNUZ": "float8_e5m2fnuz", "F4": "float4_e2m1fn_x2"}
_DT_NAMES = [lib.mio_st_dtype_name(i).decode() for i in range(22)]
_DT_CODE = {n: i for i, n in enumerate(_DT_NAMES)}
_DT_CACHE = {_DT_CODE[n]: np.dtype(t) for n, t in _NP_PLAIN.items()}


def _np_dtype(code):
    name = _DT_NAMES[code]
    t = _NP_PLAIN.get(name)
    if t is not None:
        return np.dtype(t)
    if name == "BF16":
        return np.dtype("bfloat16")          # TypeError unless registered (ml_dtypes)
    if name in _NP_ATTR:
        return np.dtype(getattr(np, _NP_ATTR[name]))   # AttributeError as upstream
    raise UnsupportedError(11, "Dtype not understood: %s" % name)


# numpy dtype name -> safetensors dtype (what upstream's _flatten passes as dtype.name)
_ST_OF_NP = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64", "uint64": "U64",
             "int32": "I32", "uint32": "U32", "int16": "I16", "uint16": "U16", "int8": "I8", "uint8": "U8",
             "bool": "BOOL", "complex64": "C64", "bfloat16": "BF16", "float8_e4m3fn": "F8_E4M3",
             "float8_e5m2": "F8_E5M2", "float8_e8m0fnu": "F8_E8M0", "float8_e4m3fnuz": "F8_E4M3FNUZ",
             "float8_e5m2fnuz": "F8_E5M2FNUZ"}


class safe_open:
    """safe_open(filename, framework="np", device="cpu"): a context manager
    (also usable without `with`; close() releases it). Only the numpy framework
    ("np"/"numpy") exists here. A path ending in ".index.json" opens a sharded
    checkpoint as one handle (the library maps the shards; arrays are then
    copies, not views)."""

    def __init__(self, filename, framework="np", device="cpu", mode="c"):
        if framework not in ("np", "numpy"):
            raise InvalidArgumentError(3, "framework %r is not supported: modelio returns numpy arrays "
                                          "(framework=\"np\")" % (framework,))
        if device != "cpu":
            raise InvalidArgumentError(3, "device %r is not supported (cpu only)" % (device,))
        self._h = None
        self._name = os.fspath(filename)
        h = C.c_void_p()
        if str(self._name).endswith(".index.json"):
            self._map = None
            _lib.check(lib.mio_st_open(_lib.fspath(filename), 0, C.byref(h)))
        else:
            self._map = Mapping(filename, mode)
            _lib.check(lib.mio_st_open_buffer(self._map.addr, self._map.size, 0, C.byref(h)), str(self._name))
        self._h = h
        try:
            self._index()
        except BaseException:
            self.close()
            raise

    @classmethod
    def _from_bytes(cls, data):
        self = cls.__new__(cls)
        self._h = None
        self._name = "<bytes>"
        self._map = Mapping.of_buffer(data)
        h = C.c_void_p()
        _lib.check(lib.mio_st_open_buffer(self._map.addr, self._map.size, 0, C.byref(h)))
        self._h = h
        try:
            self._index()
        except BaseException:
            self.close()
            raise
        return self

    def _index(self):
        h = self._h
        n = lib.mio_st_tensor_count(h)
        if self._map is not None and self._index_json(n):
            return
        # through the library, one call per tensor (sharded checkpoints; and
        # any file whose JSON Python reads differently from the library)
        t = _lib.StTensor()
        bt = C.byref(t)
        base = self._map.addr if self._map is not None else 0
        infos = {}
        order = []
        for i in range(n):
            _lib.check(lib.mio_st_tensor_info(h, i, bt))
            name = C.string_at(t.name.ptr, t.name.len).decode("utf-8")
            start = (t.data - base) if (self._map is not None and t.nbytes) else i
            infos[name] = (t.dtype, tuple(t.shape[:t.n_dims]), start, t.nbytes)
            order.append(name)
        self._infos = infos
        self._order = order
        meta = None
        m = lib.mio_st_meta_count(h)
        if m > 0:
            meta = {}
            k, v = _lib.MioStr(), _lib.MioStr()
            for i in range(m):
                _lib.check(lib.mio_st_meta_at(h, i, C.byref(k), C.byref(v)))
                meta[_lib.str_of(k).decode("utf-8")] = _lib.str_of(v).decode("utf-8")
        self._meta = meta

    def _index_json(self, n):
        """The library has validated the header (offsets, sizes, dtypes,
        UTF-8, duplicates); reading the same JSON with Python's C-accelerated
        json module is faster than n ctypes calls. If the two readings disagree
        on the tensor count, the library's answer is used instead."""
        u8 = self._map.u8
        hlen = int.from_bytes(u8[:8].tobytes(), "little")
        try:
            hdr = json.loads(u8[8:8 + hlen].tobytes())
            meta = hdr.pop("__metadata__", None)
            if len(hdr) != n:
                return False
            base = 8 + hlen
            code = _DT_CODE
            infos = {}
            for name, d in hdr.items():
                s, e = d["data_offsets"]
                infos[name] = (code[d["dtype"]], tuple(d["shape"]), base + s, e - s)
        except (ValueError, KeyError, TypeError, AttributeError):
            return False
        self._infos = infos
        self._order = None   # data order, sorted when asked for
        self._meta = meta
        return True

    # ------------------------------------------------------------------ API
    def _live(self):
        if self._h is None:
            raise _lib.closed("safe_open(%r)" % self._name)
        return self._h

    def keys(self):
        """Tensor names, sorted (as upstream)."""
        self._live()
        return sorted(self._infos)

    def offset_keys(self):
        """Tensor names in data order (as upstream's offset_keys)."""
        self._live()
        if self._order is None:
            infos = self._infos
            self._order = sorted(infos, key=lambda k: (infos[k][2], k))
        return list(self._order)

    def metadata(self):
        """__metadata__ as a dict of str, or None when the file has none."""
        self._live()
        return None if self._meta is None else dict(self._meta)

    def _info(self, name):
        self._live()
        r = self._infos.get(name)
        if r is None:
            raise NotFoundError(13, "No such tensor: %r" % (name,))
        return r

    def _view(self, r):
        # r = (dtype code, shape, start, nbytes)
        dtype, shape, start, nbytes = r
        dt = _DT_CACHE.get(dtype) or _np_dtype(dtype)
        if self._map is None:   # sharded: the library's mapping, copy out
            t = _lib.StTensor()
            _lib.check(lib.mio_st_tensor_info(self._h, start, C.byref(t)))
            a = np.frombuffer(C.string_at(t.data, t.nbytes) if t.nbytes else b"", dtype=np.uint8).copy()
        else:
            a = self._map.u8[start:start + nbytes]
        return a.view(dt).reshape(shape)

    def get_tensor(self, name):
        """The tensor as a numpy array (a zero-copy view, see the module doc)."""
        return self._view(self._info(name))

    def get_tensors(self):
        """{name: array} for every tensor (in header order)."""
        self._live()
        v = self._view
        return {n: v(r) for n, r in self._infos.items()}

    def get_slice(self, name):
        return _Slice(self, self._info(name))

    def close(self):
        if self._h is not None:
            lib.mio_st_close(self._h)
            self._h = None

    def __enter__(self):
        self._live()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class _Slice:
    """get_slice(name): .get_shape(), .get_dtype() (the safetensors name, "F32"),
    and [...] indexing with upstream's rules: an int, a slice with a positive
    step, Ellipsis, or a tuple of those; every index and bound must lie inside
    the dimension (no negative indices, no stop past the end: refused with
    InvalidArgumentError MIO_ERR_OUT_OF_RANGE where upstream raises); None
    and arrays are refused. The result is a view like get_tensor's."""

    def __init__(self, owner, info):
        self._owner, self._info = owner, info

    def get_shape(self):
        return list(self._info[1])

    def get_dtype(self):
        return _DT_NAMES[self._info[0]]

    def __getitem__(self, key):
        self._owner._live()
        shape = self._info[1]
        keys = list(key) if isinstance(key, tuple) else [key]
        if sum(k is Ellipsis for k in keys) > 1:
            raise InvalidArgumentError(3, "an index can only have a single ellipsis (...)")
        if Ellipsis in keys:
            e = keys.index(Ellipsis)
            keys[e:e + 1] = [slice(None)] * max(0, len(shape) - (len(keys) - 1))
        if len(keys) > len(shape):
            raise InvalidArgumentError(12, "more slicing indexes (%d) than dimensions in tensor (%d)"
                                       % (len(keys), len(shape)))
        for axis, (k, dim) in enumerate(zip(keys, shape)):
            if isinstance(k, slice):
                if k.step is not None and k.step <= 0:
                    raise InvalidArgumentError(3, "Slice step must be a positive integer, got %d" % k.step)
                start = 0 if k.start is None else k.start
                stop = dim if k.stop is None else k.stop
                if not (isinstance(start, (int, np.integer)) and isinstance(stop, (int, np.integer))):
                    raise InvalidArgumentError(3, "slice bounds must be ints, not %r" % (k,))
                if start < 0 or stop < 0 or start > stop or stop > dim or (start >= dim and dim > 0):
                    raise InvalidArgumentError(12, "slice %d:%d is out of bounds for dimension #%d of size %d"
                                               % (start, stop, axis, dim))
            elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                if not 0 <= k < dim:
                    raise InvalidArgumentError(12, "index %d is out of bounds for dimension #%d of size %d"
                                               % (k, axis, dim))
            else:
                raise InvalidArgumentError(3, "unsupported index %r at position %d: expected slice, int, or "
                                              "ellipsis" % (k, axis))
        return self._owner._view(self._info)[tuple(keys)]


def load_file(filename):
    """{name: array} of every tensor of a safetensors file (upstream's
    safetensors.numpy.load_file). Zero-copy writeable views of a private
    mapping of the file; the file is closed before returning."""
    with safe_open(filename, framework="np") as f:
        return f.get_tensors()


def load(data):
    """{name: array} from the bytes of a safetensors file (read-only views of
    data when it is immutable bytes; writeable views of a bytearray)."""
    f = safe_open._from_bytes(data)
    try:
        return f.get_tensors()
    finally:
        f.close()


_E = _lib.StEntry
_ENTRY_DT = np.dtype({"names": ["name", "dtype", "n_dims", "shape", "data", "nbytes"],
                      "formats": [np.uintp, np.int32, np.uint32, np.uintp, np.uintp, np.uintp],
                      "offsets": [_E.name.offset, _E.dtype.offset, _E.n_dims.offset, _E.shape.offset,
                                  _E.data.offset, _E.nbytes.offset],
                      "itemsize": C.sizeof(_E)})
# native little-endian numpy dtypes -> safetensors dtype code (the fast path)
_CODE_OF_NP = {}
for _n, _st in _ST_OF_NP.items():
    try:
        _CODE_OF_NP[np.dtype(_n)] = _DT_CODE[_st]
    except TypeError:
        pass   # bfloat16 / float8 unknown to this numpy (ml_dtypes not imported)


def _prepare(name, arr):
    """(array, code) for one tensor: little-endian, C-contiguous, a known dtype."""
    if not isinstance(name, str):
        raise InvalidArgumentError(3, "tensor names must be str, not %r" % (name,))
    a = np.asarray(arr)
    stname = _ST_OF_NP.get(a.dtype.name)
    if stname is None:
        raise UnsupportedError(11, "tensor %r: numpy dtype %s has no safetensors dtype" % (name, a.dtype))
    if a.dtype.byteorder == ">":
        a = a.byteswap().view(a.dtype.newbyteorder("<"))
    a = np.require(a, requirements="C")   # keeps 0-d arrays 0-d (ascontiguousarray does not)
    return a, _DT_CODE[stname]


def _entries(tensor_dict, metadata):
    """The mio_st_entry array as one numpy structured array (building 20,000
    ctypes structs one field at a time costs more than the save itself)."""
    n = len(tensor_dict)
    arrays, codes, ndims, dims, ptrs, sizes, names = [], [], [], [], [], [], []
    known = _CODE_OF_NP
    for name, arr in tensor_dict.items():
        code = known.get(arr.dtype) if type(arr) is np.ndarray and arr.flags.c_contiguous else None
        if code is None or type(name) is not str:
            arr, code = _prepare(name, arr)
        arrays.append(arr)
        codes.append(code)
        ndims.append(arr.ndim)
        dims.extend(arr.shape)
        ptrs.append(arr.ctypes.data if arr.nbytes else 0)
        sizes.append(arr.nbytes)
        names.append(name)
    blob = "\0".join(names).encode("utf-8") + b"\0"
    if blob.count(b"\0") != max(n, 1):
        bad = next(x for x in names if "\0" in x)
        raise InvalidArgumentError(3, "tensor name %r holds a NUL character" % (bad,))
    name_buf = np.frombuffer(blob, dtype=np.uint8)
    lens = np.fromiter((len(x.encode("utf-8")) + 1 for x in names), dtype=np.uintp, count=n) if not blob.isascii() \
        else np.fromiter((len(x) + 1 for x in names), dtype=np.uintp, count=n)
    shape_buf = np.array(dims if dims else [0], dtype=np.uint64)
    ents = np.zeros(max(1, n), dtype=_ENTRY_DT)
    if n:
        nd = np.array(ndims, dtype=np.uintp)
        ents["name"][:n] = name_buf.ctypes.data + (np.cumsum(lens) - lens)
        ents["dtype"][:n] = codes
        ents["n_dims"][:n] = nd
        ents["shape"][:n] = shape_buf.ctypes.data + 8 * (np.cumsum(nd) - nd)
        ents["data"][:n] = np.array(ptrs, dtype=np.uintp)
        ents["nbytes"][:n] = np.array(sizes, dtype=np.uintp)
    keep = [arrays, name_buf, shape_buf, ents]
    meta = (_lib.StMeta * max(1, len(metadata or {})))()
    for i, (k, v) in enumerate((metadata or {}).items()):
        if not isinstance(k, str) or not isinstance(v, str):
            raise InvalidArgumentError(3, "metadata must map str to str (key %r)" % (k,))
        kb, vb = k.encode("utf-8"), v.encode("utf-8")
        keep += [kb, vb]
        meta[i].key, meta[i].value = kb, vb
    return C.cast(ents.ctypes.data, C.POINTER(_lib.StEntry)), n, meta, len(metadata or {}), keep


def save_file(tensor_dict, filename, metadata=None):
    """Write tensor_dict ({name: array}) to filename in upstream's canonical
    layout (byte-identical to safetensors.numpy.save_file for the same input),
    atomically (temp file + rename). Non-contiguous arrays are copied first."""
    ents, n, meta, nm, keep = _entries(tensor_dict, metadata)
    _lib.check(lib.mio_st_save_file(_lib.fspath(filename), ents, n, meta, nm))


def save(tensor_dict, metadata=None):
    """The bytes save_file would write."""
    ents, n, meta, nm, keep = _entries(tensor_dict, metadata)
    out, ln = C.c_void_p(), C.c_size_t()
    _lib.check(lib.mio_st_save_buffer(ents, n, meta, nm, C.byref(out), C.byref(ln)))
    try:
        return C.string_at(out, ln.value)
    finally:
        lib.mio_free(out)
