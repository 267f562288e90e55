# SPDX-License-Identifier: MIT
"""modelio.inspect: what mio-inspect does, as functions (modelio_inspect.h).

    hash_manifest(path, alg="sha256") -> str   the text `mio-inspect --hash ALG PATH` prints
    check(manifest, path) -> dict              `mio-inspect --check MANIFEST PATH`
    verify(path) -> int                        bytes read by `mio-inspect --verify PATH`
    describe(path) -> dict                     `mio-inspect --json PATH`, parsed
    describe_text(path, meta=False, tensors=False) / markdown(path) -> str
    summary(path) -> dict                      architecture, parameters, bits per weight, context, layers, heads,
                                               vocabulary, the quantization mix
    stats(path) -> list of dict                `mio-inspect --stats --json PATH`'s "tensors"
    diff(a, b) -> dict                         `mio-inspect --diff A B`
    estimate(path, ...) -> dict                `mio-inspect --estimate --json PATH`
    detect_format(path) -> str                 "GGUF", "safetensors", "safetensors index", "unknown"

GGUF (a split model as its first part), safetensors files and sharded
*.index.json indexes alike. Failures raise modelio.Error subclasses with the
library's message.
"""
import ctypes as C
import json
import math

from . import _lib
from ._lib import lib
from ._estimate import estimate

__all__ = ["hash_manifest", "check", "verify", "describe", "describe_text", "markdown", "summary", "stats", "diff",
           "estimate",
           "detect_format", "HASH_ALGORITHMS"]

HASH_ALGORITHMS = ("xxh64", "xxh3", "sha256")

_vp, _cp, _i, _sz, _i64, _u32, _u64 = C.c_void_p, C.c_char_p, C.c_int, C.c_size_t, C.c_int64, C.c_uint32, C.c_uint64
P = C.POINTER


class _Str(C.Structure):
    _fields_ = [("ptr", C.c_void_p), ("len", C.c_size_t)]


class _Tensor(C.Structure):
    _fields_ = [("name", _Str), ("type", C.c_int), ("n_dims", C.c_uint32), ("shape", P(C.c_uint64)),
                ("n_elems", C.c_uint64), ("nbytes", C.c_uint64), ("file", C.c_uint32), ("offset", C.c_uint64)]


class _Stats(C.Structure):
    _fields_ = [("decoded", C.c_int), ("elements", C.c_uint64), ("finite", C.c_uint64), ("nan", C.c_uint64),
                ("inf", C.c_uint64), ("zeros", C.c_uint64), ("min", C.c_double), ("max", C.c_double),
                ("mean", C.c_double), ("std", C.c_double), ("zero_fraction", C.c_double)]


class _SummaryType(C.Structure):
    _fields_ = [("type", C.c_int), ("tensors", C.c_uint64), ("elements", C.c_uint64), ("bytes", C.c_uint64)]


class _Summary(C.Structure):
    _fields_ = [("format", C.c_int), ("architecture", C.c_char * 64), ("name", C.c_char * 128),
                ("n_tensors", C.c_int64), ("n_params", C.c_uint64), ("tensor_bytes", C.c_uint64),
                ("bits_per_weight", C.c_double), ("context_length", C.c_uint64), ("n_layer", C.c_uint64),
                ("n_embd", C.c_uint64), ("n_head", C.c_uint64), ("n_head_kv", C.c_uint64), ("n_vocab", C.c_uint64),
                ("n_types", C.c_uint32), ("types", _SummaryType * 24)]


class _CheckItem(C.Structure):
    _fields_ = [("kind", C.c_int), ("name", _Str), ("line", C.c_int64), ("expected", P(C.c_ubyte)),
                ("actual", P(C.c_ubyte)), ("alg", C.c_int)]


class _CheckResult(C.Structure):
    _fields_ = [("alg", C.c_int), ("n_tensors", C.c_int64), ("n_entries", C.c_uint64), ("differ", C.c_uint64),
                ("missing", C.c_uint64), ("extra", C.c_uint64), ("model_matches", C.c_int), ("ok", C.c_int)]


class _DiffItem(C.Structure):
    _fields_ = [("kind", C.c_int), ("name", _Str), ("a", C.c_int64), ("b", C.c_int64), ("type_changed", C.c_int),
                ("shape_changed", C.c_int), ("bytes_compared", C.c_int), ("first_byte", C.c_uint64),
                ("values_compared", C.c_int), ("values_differ", C.c_uint64), ("nonfinite", C.c_uint64),
                ("has_max", C.c_int), ("max_abs_diff", C.c_double), ("max_at", C.c_uint64), ("a_value", C.c_double),
                ("b_value", C.c_double)]


_CHECK_FN = C.CFUNCTYPE(None, C.c_void_p, P(_CheckItem))
_DIFF_FN = C.CFUNCTYPE(None, C.c_void_p, P(_DiffItem))


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)


_proto("mio_detect_format", _i, _cp)
_proto("mio_format_name", _cp, _i)
_proto("mio_model_open", _i, _cp, P(_vp))
_proto("mio_model_close", None, _vp)
_proto("mio_model_tensor_count", _i64, _vp)
_proto("mio_model_tensor_info", _i, _vp, _i64, P(_Tensor))
_proto("mio_model_tensor_stats", _i, _vp, _i64, P(_Stats))
_proto("mio_model_verify", _i, _vp, _i, P(_u64))
_proto("mio_model_kv_text", _i, _vp, _i64, P(_vp))
_proto("mio_model_gguf", _vp, _vp)
_proto("mio_hash_alg_from_name", _i, _cp)
_proto("mio_hash_digest_size", _sz, _i)
_proto("mio_hash_manifest", _i, _cp, _i, _i, P(_vp), P(_sz))
_proto("mio_hash_check", _i, _cp, _cp, _i, _CHECK_FN, _vp, P(_CheckResult))
_proto("mio_model_diff", _i, _vp, _vp, _DIFF_FN, _vp, P(_u64), P(_u64))
_proto("mio_stats_json", _i, _cp, P(_vp), P(_sz))
_proto("mio_describe_text", _i, _cp, C.c_uint, P(_vp), P(_sz))
_proto("mio_describe_json", _i, _cp, C.c_uint, P(_vp), P(_sz))
_proto("mio_describe_markdown", _i, _cp, C.c_uint, P(_vp), P(_sz))
_proto("mio_type_name", _cp, _i)
_proto("mio_model_summary_get", _i, _vp, P(_Summary))


class _Experts(C.Structure):
    _fields_ = [("n_expert", _u64), ("n_expert_used", _u64), ("n_expert_shared", _u64), ("n_layer_moe", _u64),
                ("n_params", _u64), ("n_params_expert", _u64), ("n_params_active", _u64)]


_proto("mio_model_experts_get", _i, _vp, P(_Experts), _sz)

_FULL_ARRAYS, _ONE_PART, _META, _TENSORS = 1, 2, 4, 8
_DIFF_KINDS = {0: "metadata_not_compared", 1: "key_only_a", 2: "key_only_b", 3: "key_changed",
               4: "tensor_only_a", 5: "tensor_only_b", 6: "tensor_changed"}
_CHECK_KINDS = {1: "differs", 2: "missing", 3: "extra"}


def _path(p):
    return p if isinstance(p, bytes) else str(p).encode()


def _text(fn, *args):
    out, n = C.c_void_p(), C.c_size_t()
    _lib.check(fn(*args, C.byref(out), C.byref(n)))
    try:
        return C.string_at(out.value, n.value).decode("utf-8")
    finally:
        lib.mio_free(out)


class _Model:
    def __init__(self, path):
        self.h = C.c_void_p()
        _lib.check(lib.mio_model_open(_path(path), C.byref(self.h)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.mio_model_close(self.h)
        self.h = None

    def tensor(self, i):
        t = _Tensor()
        _lib.check(lib.mio_model_tensor_info(self.h, i, C.byref(t)))
        return t

    def kv_text(self, i):
        out = C.c_void_p()
        _lib.check(lib.mio_model_kv_text(self.h, i, C.byref(out)))
        try:
            return C.string_at(out.value).decode("utf-8")
        finally:
            lib.mio_free(out)


def _name(s):
    return _lib.str_of(s).decode("utf-8", "replace")


def _type_text(code):
    n = lib.mio_type_name(code)
    return n.decode() if n else "type_%d" % code


def detect_format(path):
    return lib.mio_format_name(lib.mio_detect_format(_path(path))).decode()


def hash_manifest(path, alg="sha256", threads=0):
    """The manifest `mio-inspect --hash ALG PATH` prints, as one string."""
    a = lib.mio_hash_alg_from_name(str(alg).encode())
    if a < 0:
        raise ValueError("unknown hash algorithm %r (known: %s)" % (alg, ", ".join(HASH_ALGORITHMS)))
    return _text(lib.mio_hash_manifest, _path(path), a, threads)


def check(manifest, path, threads=0):
    """Check path against a manifest file: {"ok", "tensors", "entries",
    "differ", "missing", "extra", "model_matches", "problems": [{"kind",
    "name", "line"}]}. A malformed manifest raises."""
    problems = []

    def on_item(_user, it):
        x = it.contents
        problems.append({"kind": _CHECK_KINDS.get(x.kind, x.kind), "name": _name(x.name), "line": x.line})

    cb = _CHECK_FN(on_item)
    r = _CheckResult()
    _lib.check(lib.mio_hash_check(_path(manifest), _path(path), threads, cb, None, C.byref(r)))
    return {"ok": bool(r.ok), "tensors": r.n_tensors, "entries": r.n_entries, "differ": r.differ,
            "missing": r.missing, "extra": r.extra, "model_matches": bool(r.model_matches), "problems": problems}


def verify(path, threads=0):
    """Read every tensor byte (a damaged or truncated file raises, naming the
    tensor); returns the number of bytes read."""
    with _Model(path) as m:
        n = C.c_uint64()
        _lib.check(lib.mio_model_verify(m.h, threads, C.byref(n)))
        return n.value


def describe(path, full_arrays=False, one_part=False):
    """What `mio-inspect --json PATH` prints, parsed."""
    flags = (_FULL_ARRAYS if full_arrays else 0) | (_ONE_PART if one_part else 0)
    return json.loads(_text(lib.mio_describe_json, _path(path), flags))


def describe_text(path, meta=False, tensors=False, one_part=False):
    """The summary `mio-inspect [--meta] [--tensors] PATH` prints."""
    flags = (_META if meta else 0) | (_TENSORS if tensors else 0) | (_ONE_PART if one_part else 0)
    return _text(lib.mio_describe_text, _path(path), flags)


def markdown(path, one_part=False):
    """The Markdown `mio-inspect --markdown PATH` prints."""
    return _text(lib.mio_describe_markdown, _path(path), _ONE_PART if one_part else 0)


def stats(path):
    """Per-tensor statistics, in file order: dicts with the keys of
    `mio-inspect --stats --json` ("name", "type", "shape", "elements",
    "decoded" and, when decoded, "min", "max", "mean", "std" (None when no
    value is finite, as the JSON's null), "nan", "inf", "zeros", "zero_fraction")."""
    out = []
    with _Model(path) as m:
        for i in range(lib.mio_model_tensor_count(m.h)):
            t = m.tensor(i)
            s = _Stats()
            _lib.check(lib.mio_model_tensor_stats(m.h, i, C.byref(s)))
            d = {"name": _name(t.name), "type": _type_text(t.type), "shape": [t.shape[k] for k in range(t.n_dims)],
                 "elements": s.elements, "decoded": bool(s.decoded)}
            if s.decoded:
                fin = lambda v: None if math.isnan(v) or math.isinf(v) else v
                d.update(min=fin(s.min), max=fin(s.max), mean=fin(s.mean), std=fin(s.std), nan=s.nan, inf=s.inf,
                         zeros=s.zeros, zero_fraction=s.zero_fraction)
            out.append(d)
    return out


def diff(a, b):
    """Compare two models: {"identical", "keys", "tensors", "items"}; each item
    {"kind", "name", ...}: key items carry "a"/"b" value texts as mio-inspect
    prints them, tensor_changed items the comparison ("type_changed",
    "shape_changed", "first_byte", "values_differ", "max_abs_diff", ...)."""
    items = []
    with _Model(a) as ma, _Model(b) as mb:
        def on_item(_user, it):
            x = it.contents
            d = {"kind": _DIFF_KINDS.get(x.kind, x.kind), "name": _name(x.name)}
            if x.kind in (1, 3):
                d["a"] = ma.kv_text(x.a)
            if x.kind in (2, 3):
                d["b"] = mb.kv_text(x.b)
            if x.kind == 6:
                d.update(type_changed=bool(x.type_changed), shape_changed=bool(x.shape_changed))
                if x.bytes_compared:
                    d["first_byte"] = x.first_byte
                if x.values_compared:
                    d.update(values_differ=x.values_differ, nonfinite=x.nonfinite)
                    if x.has_max:
                        d.update(max_abs_diff=x.max_abs_diff, max_at=x.max_at, a_value=x.a_value, b_value=x.b_value)
            items.append(d)

        cb = _DIFF_FN(on_item)
        nk, nt = C.c_uint64(), C.c_uint64()
        _lib.check(lib.mio_model_diff(ma.h, mb.h, cb, None, C.byref(nk), C.byref(nt)))
    return {"identical": nk.value == 0 and nt.value == 0, "keys": nk.value, "tensors": nt.value, "items": items}


def summary(path):
    """What the model is, in numbers (mio_model_summary_get): {"format",
    "architecture", "name", "tensors", "parameters", "tensor_bytes",
    "bits_per_weight", "context_length", "layers", "embedding", "heads",
    "heads_kv", "vocabulary", "types": [{"type", "tensors", "elements",
    "bytes"}, ...] (most bytes first)}; a mixture of experts adds "experts":
    {"count", "used", "shared", "blocks", "parameters_expert",
    "parameters_active"} (mio_model_experts_get)."""
    with _Model(path) as m:
        s = _Summary()
        _lib.check(lib.mio_model_summary_get(m.h, C.byref(s)))
        x = _Experts()
        _lib.check(lib.mio_model_experts_get(m.h, C.byref(x), C.sizeof(x)))
    moe = {"experts": {"count": x.n_expert, "used": x.n_expert_used, "shared": x.n_expert_shared,
                       "blocks": x.n_layer_moe, "parameters_expert": x.n_params_expert,
                       "parameters_active": x.n_params_active}} if x.n_expert else {}
    return {"format": lib.mio_format_name(s.format).decode(), "architecture": s.architecture.decode("utf-8", "replace"),
            "name": s.name.decode("utf-8", "replace"), "tensors": s.n_tensors, "parameters": s.n_params,
            "tensor_bytes": s.tensor_bytes, "bits_per_weight": s.bits_per_weight, "context_length": s.context_length,
            "layers": s.n_layer, "embedding": s.n_embd, "heads": s.n_head, "heads_kv": s.n_head_kv,
            "vocabulary": s.n_vocab,
            "types": [{"type": _type_text(t.type), "tensors": t.tensors, "elements": t.elements, "bytes": t.bytes}
                      for t in s.types[:s.n_types]], **moe}
