# SPDX-License-Identifier: MIT
"""Loading libmodelio and declaring its C API for ctypes.

Search order (the first that loads wins):
  1. the MODELIO_LIBRARY environment variable: a path to the shared library
     (a build tree: MODELIO_LIBRARY=build/src/libmodelio.so);
  2. the library installed inside the package by `pip install ./python`
     (modelio/libmodelio.so.0; also libmodelio.so, libmodelio.dylib,
     modelio.dll), looked for in every folder of the package's __path__ (one
     folder when installed; the source folder and the build's install tree in an
     editable install);
  3. the system loader: ctypes.util.find_library("modelio"), then
     "libmodelio.so.0" (an installed library on the loader's path).
If none loads, importing modelio raises modelio.LibraryNotFoundError naming
every place tried and why it failed.

Struct layouts mirror include/modelio.h exactly; the parameter structs that
lead with a size field (mio_quantize_params, mio_convert_params) are filled by
the library's *_default_params into a buffer larger than any version of them,
so a newer library with a longer struct cannot write past it."""
import ctypes as C
import ctypes.util
import os
import sys

from . import errors

_BUNDLED = ("libmodelio.so.0", "libmodelio.so", "libmodelio.dylib", "modelio.dll")


def _editable_rebuild():
    # An editable install (`pip install -e ./python`, scikit-build-core's redirect
    # mode) rebuilds on import only for Python extension modules; the library is
    # not one, so ask its loader here, before the library is loaded. Errors of the
    # build propagate: an import must not silently run a stale library. The
    # public hook is loader.rebuild(); whether the install asked for rebuilds
    # (python/pyproject.toml does) is only in the finder's private state, read
    # leniently: when it cannot be read, rebuild (the pyproject's setting).
    pkg = sys.modules.get(__package__)
    spec = getattr(pkg, "__spec__", None)
    loader = getattr(spec, "loader", None)
    finder = getattr(loader, "_skbuild_finder", None)
    if callable(getattr(loader, "rebuild", None)) and getattr(finder, "rebuild_flag", True):
        loader.rebuild()


def _package_dirs():
    pkg = sys.modules.get(__package__)
    dirs = list(getattr(pkg, "__path__", []) or [])
    here = os.path.dirname(os.path.abspath(__file__))
    return dirs if here in dirs else dirs + [here]


def _load():
    tried = []
    env = os.environ.get("MODELIO_LIBRARY")
    if env:
        try:
            return C.CDLL(env), env
        except OSError as e:
            # an explicit choice that fails is an error, not a reason to fall back
            raise errors.LibraryNotFoundError("MODELIO_LIBRARY=%s cannot be loaded: %s" % (env, e)) from None
    _editable_rebuild()
    for d in _package_dirs():
        found_here = False
        for n in _BUNDLED:
            p = os.path.join(d, n)
            if os.path.exists(p):
                found_here = True
                try:
                    return C.CDLL(p), p
                except OSError as e:
                    tried.append("%s (%s)" % (p, e))
        if not found_here:
            tried.append("no library in the package folder %s" % d)
    names = []
    found = ctypes.util.find_library("modelio")
    if found:
        names.append(found)
    names.append("libmodelio.so.0" if not sys.platform.startswith("darwin") else "libmodelio.0.dylib")
    for n in names:
        try:
            return C.CDLL(n), n
        except OSError as e:
            tried.append("%s (%s)" % (n, e))
    raise errors.LibraryNotFoundError(
        "libmodelio not found. Install the package with `pip install ./python` (it builds and "
        "installs the library inside the package), set MODELIO_LIBRARY to the path of libmodelio.so, "
        "or install the library system-wide (then run ldconfig). Tried: MODELIO_LIBRARY "
        "(unset); " + "; ".join(tried))


lib, path = _load()


# --------------------------------------------------------------------------- structs
class MioStr(C.Structure):
    _fields_ = [("ptr", C.c_void_p), ("len", C.c_size_t)]


class GgufValue(C.Structure):
    _fields_ = [("type", C.c_int), ("elem_type", C.c_int), ("count", C.c_uint64),
                ("data", C.c_void_p), ("size", C.c_size_t), ("depth", C.c_uint32)]


class GgufTensor(C.Structure):
    _fields_ = [("name", MioStr), ("n_dims", C.c_uint32), ("ne", C.c_int64 * 4), ("type", C.c_int),
                ("offset", C.c_uint64), ("data", C.c_void_p), ("nbytes", C.c_uint64), ("part", C.c_uint32)]


class StTensor(C.Structure):
    _fields_ = [("name", MioStr), ("dtype", C.c_int), ("type", C.c_int), ("n_dims", C.c_uint32),
                ("shape", C.POINTER(C.c_uint64)), ("data_start", C.c_uint64), ("data_end", C.c_uint64),
                ("data", C.c_void_p), ("nbytes", C.c_uint64), ("shard", C.c_uint32)]


class StEntry(C.Structure):
    _fields_ = [("name", C.c_char_p), ("dtype", C.c_int), ("n_dims", C.c_uint32),
                ("shape", C.POINTER(C.c_uint64)), ("data", C.c_void_p), ("nbytes", C.c_size_t)]


class StMeta(C.Structure):
    _fields_ = [("key", C.c_char_p), ("value", C.c_char_p)]


class StateDictDest(C.Structure):
    _fields_ = [("name", C.c_char_p), ("dtype", C.c_int), ("n_dims", C.c_uint32),
                ("shape", C.POINTER(C.c_uint64)), ("data", C.c_void_p), ("nbytes", C.c_size_t)]


class StateDictAlias(C.Structure):
    _fields_ = [("from_", C.c_char_p), ("to", C.c_char_p)]


class TensorTypeOverride(C.Structure):
    _fields_ = [("pattern", C.c_char_p), ("type", C.c_int)]


class KvOverride(C.Structure):
    _fields_ = [("key", C.c_char_p), ("type", C.c_int), ("i64", C.c_int64), ("f64", C.c_double),
                ("b", C.c_int), ("str", C.c_char_p)]


class QuantDecision(C.Structure):
    _fields_ = [("index", C.c_int64), ("name", MioStr), ("n_dims", C.c_uint32), ("ne", C.c_int64 * 4),
                ("in_type", C.c_int), ("out_type", C.c_int), ("in_bytes", C.c_uint64),
                ("out_bytes", C.c_uint64), ("why", C.c_char_p)]


PLAN_FN = C.CFUNCTYPE(None, C.c_void_p, C.POINTER(QuantDecision))
PROGRESS_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int64, C.c_int64, C.c_uint64, C.c_uint64)


class QuantizeParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("preset", C.c_int), ("dtype", C.c_int), ("n_threads", C.c_int),
                ("pure", C.c_int), ("leave_output_tensor", C.c_int), ("allow_requantize", C.c_int),
                ("keep_split", C.c_int), ("dry_run", C.c_int), ("output_tensor_type", C.c_int),
                ("token_embedding_type", C.c_int), ("experts_type", C.c_int),
                ("tensor_types", C.POINTER(TensorTypeOverride)), ("n_tensor_types", C.c_size_t),
                ("kv_overrides", C.POINTER(KvOverride)), ("n_kv_overrides", C.c_size_t),
                ("prune_layers", C.POINTER(C.c_int32)), ("n_prune_layers", C.c_size_t),
                ("imatrix_path", C.c_char_p),
                ("include_weights", C.POINTER(C.c_char_p)), ("n_include_weights", C.c_size_t),
                ("exclude_weights", C.POINTER(C.c_char_p)), ("n_exclude_weights", C.c_size_t),
                ("plan", PLAN_FN), ("plan_user", C.c_void_p),
                ("progress", PROGRESS_FN), ("progress_user", C.c_void_p)]


class ConvertParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("dtype", C.c_int), ("dequantize", C.c_int), ("n_threads", C.c_int),
                ("max_shard_bytes", C.c_uint64), ("rename_from", C.POINTER(C.c_char_p)),
                ("rename_to", C.POINTER(C.c_char_p)), ("n_rename", C.c_size_t),
                ("progress", PROGRESS_FN), ("progress_user", C.c_void_p),
                ("edits", C.c_void_p), ("n_edits", C.c_size_t)]


class HfFile(C.Structure):
    _fields_ = [("index", C.c_uint32), ("count", C.c_uint32), ("path", C.c_char_p), ("n_tensors", C.c_int64),
                ("tensor_bytes", C.c_uint64)]


class HfTensor(C.Structure):
    _fields_ = [("index", C.c_int64), ("name", C.c_char_p), ("source", C.c_char_p), ("source_dtype", C.c_int),
                ("n_dims", C.c_uint32), ("ne", C.c_int64 * 4), ("type", C.c_int), ("permuted", C.c_int),
                ("nbytes", C.c_uint64)]


HF_FILE_FN = C.CFUNCTYPE(None, C.c_void_p, C.POINTER(HfFile))
HF_TENSOR_FN = C.CFUNCTYPE(None, C.c_void_p, C.POINTER(HfTensor))


class HfParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("outtype", C.c_int), ("preset", C.c_int),
                ("quantize", C.POINTER(QuantizeParams)), ("vocab_only", C.c_int), ("pre", C.c_char_p),
                ("model_name", C.c_char_p), ("split_max_tensors", C.c_int64), ("split_max_bytes", C.c_uint64),
                ("no_tensor_first_split", C.c_int), ("dry_run", C.c_int), ("n_threads", C.c_int),
                ("file", HF_FILE_FN), ("file_user", C.c_void_p), ("plan", HF_TENSOR_FN), ("plan_user", C.c_void_p),
                ("progress", PROGRESS_FN), ("progress_user", C.c_void_p)]


class HubPullParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("include", C.POINTER(C.c_char_p)), ("n_include", C.c_size_t),
                ("exclude", C.POINTER(C.c_char_p)), ("n_exclude", C.c_size_t), ("cache_dir", C.c_char_p),
                ("n_threads", C.c_int), ("progress", PROGRESS_FN), ("progress_user", C.c_void_p)]


# --------------------------------------------------------------------------- prototypes
_vp, _cp, _i, _u32, _u64, _i64, _sz = C.c_void_p, C.c_char_p, C.c_int, C.c_uint32, C.c_uint64, C.c_int64, C.c_size_t
P = C.POINTER


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_proto("mio_version", _cp)
_proto("mio_hf_default_params", None, _vp)
_proto("mio_hf_convert", _i, _cp, _cp, _vp, P(_vp))
_proto("mio_hf_architecture", _cp, _i, P(_cp))
_proto("mio_http_supported", _i)
_proto("mio_cpu_features", _cp)
_proto("mio_hub_pull_default_params", None, _vp)
_proto("mio_hub_pull", _i, _cp, _vp, P(_vp))
_proto("mio_hub_convert", _i, _cp, _cp, _vp, _u32, P(_vp))
_proto("mio_status_name", _cp, _i)
_proto("mio_last_error", _cp)
_proto("mio_last_warning", _cp)
_proto("mio_free", None, _vp)
_proto("mio_type_name", _cp, _i)
_proto("mio_type_from_name", _i, _cp)
_proto("mio_type_block_size", _i64, _i)
_proto("mio_type_block_bytes", _sz, _i)
_proto("mio_type_nbytes", _i, _i, _u32, P(_i64), P(_u64))
_proto("mio_gguf_type_name", _cp, _i)
# GGUF reader
_proto("mio_gguf_open", _i, _cp, _u32, P(_vp))
_proto("mio_gguf_open_buffer", _i, _vp, _sz, _u32, P(_vp))
_proto("mio_gguf_close", None, _vp)
_proto("mio_gguf_version", _u32, _vp)
_proto("mio_gguf_alignment", _u32, _vp)
_proto("mio_gguf_data_offset", _u64, _vp)
_proto("mio_gguf_kv_count", _i64, _vp)
_proto("mio_gguf_find_key", _i64, _vp, _cp)
_proto("mio_gguf_kv_key", MioStr, _vp, _i64)
_proto("mio_gguf_kv_type", _i, _vp, _i64)
_proto("mio_gguf_kv_value", _i, _vp, _i64, P(GgufValue))
_proto("mio_gguf_arr_str", _i, _vp, _i64, _u64, P(MioStr))
_proto("mio_gguf_value_elem", _i, P(GgufValue), _u64, P(GgufValue))
_proto("mio_gguf_tensor_count", _i64, _vp)
_proto("mio_gguf_tensor_info", _i, _vp, _i64, P(GgufTensor))
_proto("mio_gguf_find_tensor", _i64, _vp, _cp)
# GGUF writer
_proto("mio_writer_new", _i, _u32, P(_vp))
_proto("mio_writer_free", None, _vp)
for _n, _t in (("u8", C.c_uint8), ("i8", C.c_int8), ("u16", C.c_uint16), ("i16", C.c_int16),
               ("u32", C.c_uint32), ("i32", C.c_int32), ("u64", C.c_uint64), ("i64", C.c_int64),
               ("f32", C.c_float), ("f64", C.c_double), ("bool", C.c_int)):
    _proto("mio_writer_set_" + _n, _i, _vp, _cp, _t)
_proto("mio_writer_set_str", _i, _vp, _cp, _vp, _sz)
_proto("mio_writer_set_arr", _i, _vp, _cp, _i, _vp, _u64)
_proto("mio_writer_set_arr_str", _i, _vp, _cp, P(_vp), P(_sz), _u64)
_proto("mio_writer_remove_key", _i, _vp, _cp)
_proto("mio_writer_add_tensor", _i, _vp, _cp, _i, _u32, P(_i64), _vp, _sz)
_proto("mio_writer_declare_tensor", _i, _vp, _cp, _i, _u32, P(_i64))
_proto("mio_writer_tensor_count", _i64, _vp)
_proto("mio_writer_begin_file", _i, _vp, _cp)
_proto("mio_writer_write_tensor", _i, _vp, _vp, _sz)
_proto("mio_writer_write_tensor_part", _i, _vp, _vp, _sz)
_proto("mio_writer_finish", _i, _vp)
# codecs
_proto("mio_encode_f32_mt", _i, _i, _vp, _sz, _vp, _sz, _i)
_proto("mio_decode_f32_mt", _i, _i, _vp, _sz, _vp, _sz, _i)
_proto("mio_type_can_encode", _i, _i)
_proto("mio_type_can_decode", _i, _i)
# safetensors
_proto("mio_st_dtype_name", _cp, _i)
_proto("mio_st_dtype_from_name", _i, _cp)
_proto("mio_st_dtype_bits", _u32, _i)
_proto("mio_st_open", _i, _cp, _u32, P(_vp))
_proto("mio_st_open_buffer", _i, _vp, _sz, _u32, P(_vp))
_proto("mio_st_close", None, _vp)
_proto("mio_st_tensor_count", _i64, _vp)
_proto("mio_st_tensor_info", _i, _vp, _i64, P(StTensor))
_proto("mio_st_find_tensor", _i64, _vp, _cp)
_proto("mio_st_meta_count", _i64, _vp)
_proto("mio_st_meta_at", _i, _vp, _i64, P(MioStr), P(MioStr))
_proto("mio_st_save_file", _i, _cp, P(StEntry), _sz, P(StMeta), _sz)
_proto("mio_st_save_buffer", _i, P(StEntry), _sz, P(StMeta), _sz, P(_vp), P(_sz))
# state dicts (modelio.checkpoint)
_proto("mio_state_dict_save_file", _i, _cp, P(StEntry), _sz, _sz)
_proto("mio_state_dict_load_file", _i, _cp, P(StateDictDest), _sz, _sz, P(StateDictAlias), _sz, _u32, P(_sz))
_proto("mio_ckpt_begin", _i, _cp, P(_vp))
_proto("mio_ckpt_add_state_dict", _i, _vp, _cp, P(StEntry), _sz, _sz)
_proto("mio_ckpt_add_file", _i, _vp, _cp, _vp, _sz)
_proto("mio_ckpt_commit", _i, _vp, _u64, _u64, _cp)
_proto("mio_ckpt_abort", None, _vp)
_proto("mio_ckpt_open", _i, _cp, P(_vp))
_proto("mio_ckpt_close", None, _vp)
_proto("mio_ckpt_step", _u64, _vp)
_proto("mio_ckpt_seed", _u64, _vp)
_proto("mio_ckpt_extra_json", _cp, _vp)
_proto("mio_ckpt_file_count", _i64, _vp)
_proto("mio_ckpt_file_name", _cp, _vp, _i64)
_proto("mio_ckpt_file_path", _i, _vp, _cp, P(_vp))
_proto("mio_ckpt_read_file", _i, _vp, _cp, P(_vp), P(_sz))
# model-level
_proto("mio_quantize_default_params", None, _vp)
_proto("mio_quantize", _i, _cp, _cp, _vp)
_proto("mio_kv_override_parse", _i, _cp, P(P(KvOverride)))
_proto("mio_preset_from_name", _i, _cp)
_proto("mio_preset_name", _cp, _i)
_proto("mio_preset_suggest", _cp, _cp)
_proto("mio_convert_default_params", None, _vp)
_proto("mio_gguf_to_st", _i, _cp, _cp, _vp)
_proto("mio_st_to_gguf", _i, _cp, _cp, _vp)

for _s in range(0, 64):
    _nm = lib.mio_status_name(_s)
    if _nm and _nm != b"MIO_ERR_UNKNOWN":
        errors._STATUS_NAMES[_s] = _nm.decode()

version = lib.mio_version().decode()

MIO_OPEN_MMAP, MIO_OPEN_READ = 0, 1
MIO_BUFFER_BORROW, MIO_BUFFER_TAKE = 0, 4
MIO_ERR_STATE = 23


def last_error():
    m = lib.mio_last_error()
    return m.decode("utf-8", "replace") if m else ""


def raise_status(st, context=None):
    """Raise the Error subclass for status st with the library's message."""
    msg = last_error()
    if context:
        msg = "%s: %s" % (context, msg) if msg else context
    raise errors.error_class(st)(st, msg)


def check(st, context=None):
    if st != 0:
        raise_status(st, context)


def closed(what):
    return errors.ClosedError(MIO_ERR_STATE, "%s is closed" % what)


def params_buffer(struct_type, default_fn):
    """Defaults from the library into a zeroed buffer of at least 4 KiB (any
    future, longer version of the struct fits), viewed as struct_type. The
    library's size field must cover every field we declare."""
    n = max(4096, C.sizeof(struct_type))
    buf = (C.c_char * n)()
    default_fn(buf)
    p = struct_type.from_buffer(buf)
    if p.size < C.sizeof(struct_type):
        raise errors.UnsupportedError(11, "this libmodelio (%s) has a %d-byte %s; the Python package needs %d"
                                      % (version, p.size, struct_type.__name__, C.sizeof(struct_type)))
    return buf, p


def str_of(s):
    """bytes of a mio_str view"""
    return C.string_at(s.ptr, s.len) if s.len else b""


def fspath(p):
    return os.fsencode(os.fspath(p))
