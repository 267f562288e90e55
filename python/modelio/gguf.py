# SPDX-License-Identifier: MIT
"""GGUF through libmodelio, shaped like llama.cpp's gguf-py:

    from modelio.gguf import GGUFReader, GGUFWriter, GGMLQuantizationType
    r = GGUFReader("model.gguf")
    r.fields["general.architecture"].contents()   # 'llama'
    for t in r.tensors: t.name, t.tensor_type, t.shape, t.data

Reader: parsing and validation are the library's (one pass, offsets of every
string-array element recorded). The file is mapped read-only (mode="r", like
gguf-py's np.memmap; "c" gives writeable copy-on-write views, "r+" writes
through); tensor .data are zero-copy views of that mapping that keep it
alive, so they stay valid after close(). Field values are decoded only when
asked for: opening a file with a 150,000-token vocabulary decodes no string.

Differences from gguf-py: fields have no .parts/.data (gguf-py's internal
numpy pieces; use .contents()); .offset is the offset of the value bytes;
after close() .contents() raises modelio.ClosedError (arrays stay valid)."""
import ctypes as C
import enum
import os
import struct
from collections import OrderedDict

import numpy as np

from . import _lib
from ._lib import lib
from ._mapping import Mapping
from .errors import InvalidArgumentError, UnsupportedError, StateError

__all__ = ["GGUFReader", "GGUFWriter", "ReaderField", "ReaderTensor", "GGMLQuantizationType",
           "GGUFValueType", "GGML_QUANT_SIZES", "type_code"]


def _type_names():
    d = {}
    for code in range(0, 64):
        n = lib.mio_type_name(code)
        if n and lib.mio_type_block_bytes(code):
            d[n.decode().upper()] = code
    return d


GGMLQuantizationType = enum.IntEnum("GGMLQuantizationType", _type_names())
GGMLQuantizationType.__doc__ = "ggml tensor type codes (the values of gguf-py's GGMLQuantizationType)."
GGML_QUANT_SIZES = {t: (int(lib.mio_type_block_size(t)), int(lib.mio_type_block_bytes(t)))
                    for t in GGMLQuantizationType}


class GGUFValueType(enum.IntEnum):
    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12


_NP_OF_VT = {0: np.uint8, 1: np.int8, 2: np.uint16, 3: np.int16, 4: np.uint32, 5: np.int32, 6: np.float32,
             7: np.bool_, 10: np.uint64, 11: np.int64, 12: np.float64}
_NP_OF_VT = {k: np.dtype(v).newbyteorder("<") for k, v in _NP_OF_VT.items()}
_STRUCT_OF_VT = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
                 12: "<d"}
# tensor types gguf-py decodes; the others are uint8 bytes with a byte shape
_NP_OF_TT = {0: np.float32, 1: np.float16, 28: np.float64, 24: np.int8, 25: np.int16, 26: np.int32,
             27: np.int64}


def type_code(t):
    """A ggml type as an int code: accepts an int/IntEnum or a name ("q4_k", "Q8_0", "f16")."""
    if isinstance(t, str):
        c = lib.mio_type_from_name(t.encode())
        if c < 0:
            raise InvalidArgumentError(3, "unknown ggml type name %r" % (t,))
        return c
    c = int(t)
    if not lib.mio_type_name(c):
        raise InvalidArgumentError(3, "unknown ggml type code %d" % c)
    return c


def _tt(code):
    try:
        return GGMLQuantizationType(code)
    except ValueError:
        return code


# --------------------------------------------------------------------------- reader
class ReaderField:
    """One key: .name, .types (gguf-py's list: [ARRAY, elem...] for arrays — an
    empty array is just [ARRAY], as gguf-py reads it), .contents(index_or_slice)."""

    __slots__ = ("_r", "_i", "name", "_types", "_fixed", "offset")

    def __init__(self, reader, index, name, fixed=None):
        self._r, self._i, self.name, self._types, self._fixed = reader, index, name, None, fixed
        self.offset = None

    def __repr__(self):
        return "ReaderField(%r, types=%r)" % (self.name, [t.name for t in self.types])

    def _value(self):
        v = _lib.GgufValue()
        _lib.check(lib.mio_gguf_kv_value(self._r._live(), self._i, C.byref(v)), "key %r" % self.name)
        return v

    @property
    def types(self):
        if self._types is None:
            if self._fixed is not None:
                self._types = [self._fixed[0]]
            else:
                self._types = self._types_of(self._value())
        return list(self._types)

    def _types_of(self, v):
        out = [GGUFValueType(v.type)]
        while v.type == 9 and v.count > 0:
            if v.elem_type != 9:
                out.append(GGUFValueType(v.elem_type))
                break
            e = _lib.GgufValue()
            _lib.check(lib.mio_gguf_value_elem(C.byref(v), 0, C.byref(e)))
            out.append(GGUFValueType.ARRAY)
            v = e
        return out

    def __len__(self):
        if self._fixed is not None:
            return 1
        v = self._value()
        return int(v.count) if v.type == 9 else 1

    def contents(self, index_or_slice=slice(None)):
        """The value as Python: str, int, float, bool; arrays as a list (nested
        arrays flattened, as gguf-py does). An int index or a slice picks
        array elements (strings are decoded only for the elements picked)."""
        if self._fixed is not None:
            return self._fixed[1]
        r = self._r
        v = self._value()
        if v.type == 8:
            return r._bytes(v.data, v.size).decode("utf-8")
        if v.type != 9:
            return struct.unpack_from(_STRUCT_OF_VT[v.type], r._mem(v.data, v.size))[0]
        if v.depth > 1:
            flat = []
            self._flatten(v, flat)
            return flat[index_or_slice]
        n = int(v.count)
        if v.elem_type == 8:
            if isinstance(index_or_slice, slice):
                start, stop, step = index_or_slice.indices(n)
                if step != 1:
                    return self.contents(slice(start, stop))[::step]
                return r._strings(self._i, start, max(0, stop - start))
            j = int(index_or_slice)
            if j < 0:
                j += n
            if not 0 <= j < n:
                raise IndexError("index %d out of range for %d strings" % (int(index_or_slice), n))
            s = _lib.MioStr()
            _lib.check(lib.mio_gguf_arr_str(r._h, self._i, j, C.byref(s)))
            return r._bytes(s.ptr, s.len).decode("utf-8")
        a = np.frombuffer(r._mem(v.data, v.size), dtype=_NP_OF_VT[v.elem_type], count=n)
        if isinstance(index_or_slice, slice):
            return a[index_or_slice].tolist()
        return a[index_or_slice].item()

    def _flatten(self, v, out):
        r = self._r
        if v.type != 9:
            if v.type == 8:
                out.append(r._bytes(v.data, v.size).decode("utf-8"))
            else:
                out.append(struct.unpack_from(_STRUCT_OF_VT[v.type], r._mem(v.data, v.size))[0])
            return
        e = _lib.GgufValue()
        for j in range(int(v.count)):
            _lib.check(lib.mio_gguf_value_elem(C.byref(v), j, C.byref(e)))
            self._flatten(e, out)
            e = _lib.GgufValue()


class ReaderTensor:
    """.name, .tensor_type (GGMLQuantizationType), .shape (numpy uint64, ne
    order: innermost first, as gguf-py), .n_elements, .n_bytes, .data_offset
    (absolute file offset), .data (zero-copy numpy view: F32/F16/F64/I8..I64
    typed with shape reversed(ne); every other type uint8 with the byte shape,
    as gguf-py)."""

    __slots__ = ("name", "tensor_type", "shape", "n_elements", "n_bytes", "data_offset", "data", "field")

    def __repr__(self):
        return "ReaderTensor(%r, %s, shape=%s)" % (self.name, getattr(self.tensor_type, "name", self.tensor_type),
                                                  self.shape.tolist())


class GGUFReader:
    """GGUFReader(path, mode="r"): .fields (OrderedDict key -> ReaderField,
    starting with the pseudo-fields GGUF.version, GGUF.tensor_count,
    GGUF.kv_count as gguf-py), .tensors (list of ReaderTensor), .alignment,
    .data_offset, get_field(key), get_tensor(i), close() / with-statement."""

    byte_order = "I"

    def __init__(self, path, mode="r"):
        self._h = None
        self._path = os.fspath(path)
        self._map = Mapping(path, mode)
        h = C.c_void_p()
        _lib.check(lib.mio_gguf_open_buffer(self._map.addr, self._map.size, 0, C.byref(h)),
                   str(self._path))
        self._h = h
        self.data = self._map.u8
        self.alignment = int(lib.mio_gguf_alignment(h))
        self.data_offset = int(lib.mio_gguf_data_offset(h))
        nkv = lib.mio_gguf_kv_count(h)
        nt = lib.mio_gguf_tensor_count(h)
        fields = OrderedDict()
        fields["GGUF.version"] = ReaderField(self, -1, "GGUF.version",
                                             (GGUFValueType.UINT32, int(lib.mio_gguf_version(h))))
        fields["GGUF.tensor_count"] = ReaderField(self, -1, "GGUF.tensor_count", (GGUFValueType.UINT64, int(nt)))
        fields["GGUF.kv_count"] = ReaderField(self, -1, "GGUF.kv_count", (GGUFValueType.UINT64, int(nkv)))
        for i in range(nkv):
            k = lib.mio_gguf_kv_key(h, i)
            name = C.string_at(k.ptr, k.len).decode("utf-8")
            fields[name] = ReaderField(self, i, name)
        self.fields = fields
        self.tensors = self._build_tensors(nt)

    def _build_tensors(self, nt):
        out = []
        t = _lib.GgufTensor()
        u8 = self._map.u8
        base = self._map.addr
        for i in range(nt):
            _lib.check(lib.mio_gguf_tensor_info(self._h, i, C.byref(t)))
            r = ReaderTensor()
            r.name = C.string_at(t.name.ptr, t.name.len).decode("utf-8")
            r.tensor_type = _tt(t.type)
            nd = t.n_dims
            ne = [int(x) for x in t.ne[:nd]]
            r.shape = np.array(ne, dtype=np.uint64)
            n_el = 1
            for x in ne:
                n_el *= x
            r.n_elements = n_el
            r.n_bytes = int(t.nbytes)
            r.data_offset = (t.data - base) if t.nbytes else self.data_offset + int(t.offset)
            np_dims = tuple(reversed(ne))
            dt = _NP_OF_TT.get(t.type)
            raw = u8[r.data_offset:r.data_offset + r.n_bytes]
            if dt is not None:
                r.data = raw.view(dt).reshape(np_dims)
            else:
                bs, ts = int(lib.mio_type_block_size(t.type)), int(lib.mio_type_block_bytes(t.type))
                r.data = raw.reshape(np_dims[:-1] + (np_dims[-1] // bs * ts,))
            r.field = None
            out.append(r)
        return out

    # helpers over the mapping ------------------------------------------
    def _live(self):
        if self._h is None:
            raise _lib.closed("GGUFReader(%r)" % self._path)
        return self._h

    def _mem(self, ptr, size):
        off = ptr - self._map.addr
        return memoryview(self._map.u8)[off:off + size]

    def _bytes(self, ptr, size):
        if not size:
            return b""
        off = ptr - self._map.addr
        return self._map.u8[off:off + size].tobytes()

    def _strings(self, key_index, start, n):
        """n strings of the string array at key_index from element start: the
        first located by the library (O(1)), the rest walked in the bytes."""
        if n <= 0:
            return []
        s = _lib.MioStr()
        _lib.check(lib.mio_gguf_arr_str(self._h, key_index, start, C.byref(s)))
        off = (s.ptr - self._map.addr) - 8 if s.len else None
        if off is None:
            # an empty string's pointer may be NULL: fall back to per-element calls
            out = []
            for j in range(start, start + n):
                _lib.check(lib.mio_gguf_arr_str(self._h, key_index, j, C.byref(s)))
                out.append(self._bytes(s.ptr, s.len).decode("utf-8"))
            return out
        mv = memoryview(self._map.obj) if not isinstance(self._map.obj, bytearray) else memoryview(self._map.obj)
        out = []
        app = out.append
        frm = int.from_bytes
        try:
            for _ in range(n):
                ln = frm(mv[off:off + 8], "little")
                off += 8
                app(str(mv[off:off + ln], "utf-8"))
                off += ln
        finally:
            mv.release()
        return out

    # gguf-py API ----------------------------------------------------------
    def get_field(self, key):
        return self.fields.get(key)

    def get_tensor(self, idx):
        return self.tensors[idx]

    def close(self):
        """Release the parsed handle. Arrays already handed out stay valid."""
        if self._h is not None:
            lib.mio_gguf_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


# --------------------------------------------------------------------------- writer
def _get_type(val):
    # gguf-py's GGUFValueType.get_type
    if isinstance(val, (str, bytes, bytearray)):
        return GGUFValueType.STRING
    if isinstance(val, list):
        return GGUFValueType.ARRAY
    if isinstance(val, float):
        return GGUFValueType.FLOAT32
    if isinstance(val, bool):
        return GGUFValueType.BOOL
    if isinstance(val, int):
        return GGUFValueType.INT32
    raise InvalidArgumentError(3, "Unknown type: %s" % type(val))


_SETTER = {0: "u8", 1: "i8", 2: "u16", 3: "i16", 4: "u32", 5: "i32", 6: "f32", 7: "bool", 10: "u64", 11: "i64",
           12: "f64"}


class GGUFWriter:
    """GGUFWriter(path, arch=None): gguf-py's writer API over mio_writer.

    Keys: add_key_value(key, val, vtype, sub_type=None) and the add_uint8 ..
    add_float64 / add_bool / add_string / add_array helpers (gguf-py's typing
    rules: ints in arrays are INT32, floats FLOAT32; add_string("") and
    add_array([]) add nothing, as gguf-py), plus add_name, add_description,
    add_file_type, add_quantization_version, add_alignment, add_token_list,
    add_token_scores, add_token_types, add_tokenizer_model and
    add_uint32(f"{arch}.…") for anything else. Arrays of arrays are refused.

    Tensors: add_tensor(name, array, raw_shape=None, raw_dtype=None) keeps a
    reference to the array (as gguf-py); add_tensor_info(...) declares one
    whose bytes come later through write_tensor_data(array).

    Output: write_header_to_file(path=None) writes the header, KVs and the
    tensor table; write_kv_data_to_file() / write_ti_data_to_file() are
    accepted no-ops (the header is written whole); write_tensors_to_file()
    streams the added arrays one by one into the file; close() finishes (the
    file is written to a temp name and renamed into place: an unfinished write
    leaves nothing). write() does all of it."""

    def __init__(self, path, arch=None, *, alignment=None):
        self.path = None if path is None else os.fspath(path)
        self.arch = arch
        w = C.c_void_p()
        # ggml's layout (the data section padded even when empty), which is
        # also what gguf-py 0.19 writes: the same input gives the same bytes
        _lib.check(lib.mio_writer_new(0, C.byref(w)))
        self._w = w
        self._tensors = []   # [name, array or None]
        self._state = "empty"
        self._next = 0
        if arch is not None:
            self.add_architecture()
        if alignment is not None:
            self.add_alignment(alignment)

    def _live(self):
        if self._w is None:
            raise _lib.closed("GGUFWriter(%r)" % self.path)
        return self._w

    def _setup(self):
        if self._state != "empty":
            raise StateError(23, "GGUFWriter: keys and tensors must be added before write_header_to_file")
        return self._live()

    # keys ---------------------------------------------------------------
    def add_key_value(self, key, val, vtype, sub_type=None):
        w = self._setup()
        kb = key.encode("utf-8")
        vtype = int(vtype)
        if vtype == 8:
            b = val.encode("utf-8") if isinstance(val, str) else bytes(val)
            _lib.check(lib.mio_writer_set_str(w, kb, b, len(b)), "key %r" % key)
        elif vtype == 9:
            self._set_array(w, key, kb, val, sub_type)
        elif vtype in _SETTER:
            fn = getattr(lib, "mio_writer_set_" + _SETTER[vtype])
            if vtype in (6, 12):
                val = float(val)
            else:
                val = int(val)
            _lib.check(fn(w, kb, val), "key %r" % key)
        else:
            raise InvalidArgumentError(3, "key %r: unknown value type %r" % (key, vtype))

    def _set_array(self, w, key, kb, val, sub_type):
        if isinstance(val, (bytes, bytearray)) and sub_type is None:
            sub_type = GGUFValueType.UINT8
        if len(val) == 0:
            raise InvalidArgumentError(3, "key %r: Invalid GGUF metadata array. Empty array" % key)
        if sub_type is None:
            if isinstance(val, np.ndarray):
                raise InvalidArgumentError(3, "key %r: give sub_type for a numpy array" % key)
            sub_type = _get_type(val[0])
            if not all(_get_type(x) is sub_type for x in val[1:]):
                raise InvalidArgumentError(3, "key %r: All items in a GGUF array should be of the same type" % key)
        sub_type = int(sub_type)
        if sub_type == 8:
            # one buffer holding every string, pointer and length tables as numpy
            # arrays: a 150,000-token vocabulary costs no per-string ctypes object
            bs = [x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in val]
            n = len(bs)
            blob = np.frombuffer(b"".join(bs) + b"\0", dtype=np.uint8)
            lens = np.fromiter(map(len, bs), dtype=np.uintp, count=n)
            ptrs = (blob.ctypes.data + (np.cumsum(lens) - lens)).astype(np.uintp)
            _lib.check(lib.mio_writer_set_arr_str(w, kb, C.cast(ptrs.ctypes.data, C.POINTER(C.c_void_p)),
                                                  C.cast(lens.ctypes.data, C.POINTER(C.c_size_t)), n),
                       "key %r" % key)
        elif sub_type == 9:
            raise UnsupportedError(11, "key %r: arrays of arrays cannot be written" % key)
        elif sub_type in _NP_OF_VT:
            try:
                a = np.ascontiguousarray(np.asarray(val, dtype=_NP_OF_VT[sub_type]))
            except (OverflowError, ValueError, TypeError) as e:
                raise InvalidArgumentError(12, "key %r: %s" % (key, e)) from None
            _lib.check(lib.mio_writer_set_arr(w, kb, sub_type, a.ctypes.data, a.size), "key %r" % key)
        else:
            raise InvalidArgumentError(3, "key %r: unknown element type %r" % (key, sub_type))

    def add_uint8(self, key, val): self.add_key_value(key, val, GGUFValueType.UINT8)
    def add_int8(self, key, val): self.add_key_value(key, val, GGUFValueType.INT8)
    def add_uint16(self, key, val): self.add_key_value(key, val, GGUFValueType.UINT16)
    def add_int16(self, key, val): self.add_key_value(key, val, GGUFValueType.INT16)
    def add_uint32(self, key, val): self.add_key_value(key, val, GGUFValueType.UINT32)
    def add_int32(self, key, val): self.add_key_value(key, val, GGUFValueType.INT32)
    def add_float32(self, key, val): self.add_key_value(key, val, GGUFValueType.FLOAT32)
    def add_uint64(self, key, val): self.add_key_value(key, val, GGUFValueType.UINT64)
    def add_int64(self, key, val): self.add_key_value(key, val, GGUFValueType.INT64)
    def add_float64(self, key, val): self.add_key_value(key, val, GGUFValueType.FLOAT64)
    def add_bool(self, key, val): self.add_key_value(key, val, GGUFValueType.BOOL)

    def add_string(self, key, val):
        if not val:
            return
        self.add_key_value(key, val, GGUFValueType.STRING)

    def add_array(self, key, val):
        if len(val) == 0:
            return
        self.add_key_value(key, val, GGUFValueType.ARRAY)

    def remove_key(self, key):
        _lib.check(lib.mio_writer_remove_key(self._setup(), key.encode("utf-8")), "key %r" % key)

    def add_architecture(self): self.add_string("general.architecture", self.arch)
    def add_name(self, name): self.add_string("general.name", name)
    def add_description(self, d): self.add_string("general.description", d)
    def add_file_type(self, ftype): self.add_uint32("general.file_type", ftype)
    def add_quantization_version(self, v): self.add_uint32("general.quantization_version", v)
    def add_alignment(self, a): self.add_uint32("general.alignment", a)
    def add_tokenizer_model(self, m): self.add_string("tokenizer.ggml.model", m)
    def add_token_list(self, tokens): self.add_array("tokenizer.ggml.tokens", tokens)
    def add_token_scores(self, scores): self.add_array("tokenizer.ggml.scores", scores)
    def add_token_types(self, types): self.add_array("tokenizer.ggml.token_type", types)

    # tensors --------------------------------------------------------------
    def add_tensor_info(self, name, tensor_shape, tensor_dtype, tensor_nbytes, raw_dtype=None):
        w = self._setup()
        if raw_dtype is None:
            code = {np.dtype(v): k for k, v in _NP_OF_TT.items()}.get(np.dtype(tensor_dtype))
            if code is None:
                raise InvalidArgumentError(3, "tensor %r: Only F16, F32, F64, I8, I16, I32, I64 tensors are "
                                              "supported without raw_dtype (got %s)" % (name, np.dtype(tensor_dtype)))
        else:
            code = type_code(raw_dtype)
            if np.dtype(tensor_dtype) == np.uint8 and code not in (24,):
                bs, ts = GGML_QUANT_SIZES.get(code, (1, 1))
                tensor_shape = tuple(tensor_shape)
                if tensor_shape[-1] % ts:
                    raise InvalidArgumentError(3, "tensor %r: %d bytes per row is not a multiple of the %s block "
                                                  "size %d" % (name, tensor_shape[-1], _tt(code), ts))
                tensor_shape = tensor_shape[:-1] + (tensor_shape[-1] // ts * bs,)
        shape = tuple(int(x) for x in tensor_shape) or (1,)
        ne = (C.c_int64 * 4)(*reversed(shape)) if len(shape) <= 4 else None
        if ne is None:
            raise InvalidArgumentError(3, "tensor %r: %d dimensions (GGUF allows 1..4)" % (name, len(shape)))
        _lib.check(lib.mio_writer_declare_tensor(w, name.encode("utf-8"), code, len(shape), ne), "tensor %r" % name)
        self._tensors.append([name, None, int(tensor_nbytes)])

    def add_tensor(self, name, tensor, raw_shape=None, raw_dtype=None):
        a = np.asarray(tensor)
        if a.dtype.byteorder == ">":
            a = a.byteswap().view(a.dtype.newbyteorder("<"))
        a = np.require(a, requirements="C")
        shape = raw_shape if raw_shape is not None else a.shape
        self.add_tensor_info(name, shape, a.dtype, a.nbytes, raw_dtype=raw_dtype)
        self._tensors[-1][1] = a

    # output ---------------------------------------------------------------
    def write_header_to_file(self, path=None):
        w = self._setup()
        if path is not None:
            self.path = os.fspath(path)
        if self.path is None:
            raise InvalidArgumentError(3, "GGUFWriter: no output path")
        _lib.check(lib.mio_writer_begin_file(w, _lib.fspath(self.path)), str(self.path))
        self._state = "tensors"

    def write_kv_data_to_file(self):
        self._need_begun()

    def write_ti_data_to_file(self):
        self._need_begun()

    def _need_begun(self):
        self._live()
        if self._state != "tensors":
            raise StateError(23, "GGUFWriter: call write_header_to_file first")

    def write_tensor_data(self, tensor):
        """The next declared tensor's bytes (in declaration order)."""
        self._need_begun()
        if self._next >= len(self._tensors):
            raise StateError(21, "GGUFWriter: every declared tensor is already written")
        a = np.ascontiguousarray(np.asarray(tensor))
        name = self._tensors[self._next][0]
        _lib.check(lib.mio_writer_write_tensor(self._w, a.ctypes.data if a.nbytes else None, a.nbytes),
                   "tensor %r" % name)
        self._tensors[self._next][1] = None   # written: drop our reference
        self._next += 1

    def write_tensors_to_file(self, *, progress=False):
        self._need_begun()
        while self._next < len(self._tensors):
            name, a, _ = self._tensors[self._next]
            if a is None:
                raise StateError(23, "GGUFWriter: tensor %r was declared with add_tensor_info: give its bytes "
                                     "with write_tensor_data" % name)
            self.write_tensor_data(a)

    def close(self):
        """Finish the file (if one was begun) and free the writer."""
        if self._w is None:
            return
        try:
            if self._state == "tensors":
                self._state = "done"
                _lib.check(lib.mio_writer_finish(self._w), str(self.path))
        finally:
            lib.mio_writer_free(self._w)
            self._w = None

    def write(self, path=None):
        self.write_header_to_file(path)
        self.write_tensors_to_file()
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is not None and self._w is not None:
            lib.mio_writer_free(self._w)   # abandon: the temp file is removed
            self._w = None
            return False
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_w", None) is not None:
            lib.mio_writer_free(self._w)
            self._w = None
