# SPDX-License-Identifier: MIT
"""estimate(): the memory llama.cpp's CPU back end needs for a GGUF model and a
context (mio_estimate, docs/ESTIMATE.md), the same object `mio-inspect
--estimate --json` prints."""
import ctypes as C

from . import _lib
from ._lib import lib

FLASH_ATTN = {"auto": -1, "off": 0, "on": 1}


class EstimateParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("n_ctx", C.c_uint32), ("n_batch", C.c_uint32), ("n_ubatch", C.c_uint32),
                ("n_seq_max", C.c_uint32), ("type_k", C.c_int), ("type_v", C.c_int), ("flash_attn", C.c_int),
                ("swa_full", C.c_int), ("kv_unified", C.c_int)]


class EstimateResult(C.Structure):
    _fields_ = [("weights_bytes", C.c_uint64), ("kv_cache_bytes", C.c_uint64), ("k_bytes", C.c_uint64),
                ("v_bytes", C.c_uint64), ("compute_bytes", C.c_uint64), ("output_bytes", C.c_uint64),
                ("total_bytes", C.c_uint64), ("n_ctx", C.c_uint32), ("n_ctx_seq", C.c_uint32),
                ("n_batch", C.c_uint32), ("n_ubatch", C.c_uint32), ("n_seq_max", C.c_uint32),
                ("kv_size", C.c_uint32), ("kv_size_swa", C.c_uint32), ("n_stream", C.c_uint32),
                ("n_layer", C.c_uint32), ("n_layer_kv", C.c_uint32), ("n_layer_swa", C.c_uint32),
                ("n_swa", C.c_uint32), ("flash_attn", C.c_int), ("type_k", C.c_int), ("type_v", C.c_int),
                ("arch", C.c_char * 32)]


lib.mio_estimate_default_params.argtypes = [C.c_void_p]
lib.mio_estimate_default_params.restype = None
lib.mio_estimate_sized.argtypes = [C.c_char_p, C.c_void_p, C.POINTER(EstimateResult), C.c_size_t]
lib.mio_estimate_sized.restype = C.c_int
lib.mio_type_from_name.argtypes = [C.c_char_p]
lib.mio_type_from_name.restype = C.c_int
lib.mio_type_name.argtypes = [C.c_int]
lib.mio_type_name.restype = C.c_char_p


def _type(name, what):
    t = lib.mio_type_from_name(str(name).encode())
    if t < 0:
        raise ValueError("%s: unknown cache type %r" % (what, name))
    return t


def estimate(path, ctx=None, cache_type_k="f16", cache_type_v="f16", flash_attn="auto", batch=None, ubatch=None,
             parallel=None, swa_full=True):
    """What llama.cpp allocates for the model at path with a context made from
    llama_context_default_params() and these options: a dict with the keys of
    `mio-inspect --estimate --json` (weights_bytes, kv_cache_bytes,
    compute_bytes, output_bytes, total_bytes, ...). ctx None is llama.cpp's
    default 512, 0 the model's context_length."""
    if flash_attn not in FLASH_ATTN:
        raise ValueError("flash_attn must be 'auto', 'on' or 'off', not %r" % (flash_attn,))
    buf, p = _lib.params_buffer(EstimateParams, lib.mio_estimate_default_params)
    if ctx is not None:
        p.n_ctx = ctx
    if batch is not None:
        p.n_batch = batch
    if ubatch is not None:
        p.n_ubatch = ubatch
    if parallel is not None:
        p.n_seq_max = parallel
    p.type_k = _type(cache_type_k, "cache_type_k")
    p.type_v = _type(cache_type_v, "cache_type_v")
    p.flash_attn = FLASH_ATTN[flash_attn]
    p.swa_full = 1 if swa_full else 0
    r = EstimateResult()
    _lib.check(lib.mio_estimate_sized(_lib.fspath(path), buf, C.byref(r), C.sizeof(r)))
    return {
        "arch": r.arch.decode("utf-8", "replace"), "n_ctx": r.n_ctx, "n_ctx_seq": r.n_ctx_seq,
        "n_batch": r.n_batch, "n_ubatch": r.n_ubatch, "n_seq_max": r.n_seq_max, "n_layer": r.n_layer,
        "n_layer_kv": r.n_layer_kv, "n_layer_swa": r.n_layer_swa, "n_swa": r.n_swa, "kv_size": r.kv_size,
        "kv_size_swa": r.kv_size_swa, "flash_attn": r.flash_attn == 1,
        "cache_type_k": lib.mio_type_name(r.type_k).decode(), "cache_type_v": lib.mio_type_name(r.type_v).decode(),
        "weights_bytes": r.weights_bytes, "kv_cache_bytes": r.kv_cache_bytes, "k_bytes": r.k_bytes,
        "v_bytes": r.v_bytes, "compute_bytes": r.compute_bytes, "output_bytes": r.output_bytes,
        "total_bytes": r.total_bytes,
    }
