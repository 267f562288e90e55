# SPDX-License-Identifier: MIT
"""modelio — GGUF and safetensors model files from Python, through libmodelio.

    import modelio
    from modelio.safetensors import safe_open, load_file, save_file   # like safetensors.numpy
    from modelio.gguf import GGUFReader, GGUFWriter                   # like gguf-py
    raw = modelio.quantize(x, "q8_0"); y = modelio.dequantize(raw, "q8_0", x.shape)
    modelio.quantize_model("f16.gguf", "q4_k_m.gguf", preset="Q4_K_M")
    modelio.convert("model.gguf", "model.safetensors")
    modelio.convert_hf("Llama-3.2-1B/", "out.gguf", outtype="Q4_K_M")  # a Hugging Face checkpoint

Every failure raises a modelio.Error subclass with .status, .status_name and
.message (the library's). See python/README.md."""
import ctypes as C

import numpy as np

from . import _lib
from ._lib import lib
from .errors import (Error, FileError, OutOfMemoryError, InvalidArgumentError, FormatError, UnsupportedError,
                     NotFoundError, TypeMismatchError, StateError, ClosedError, CancelledError,
                     NetworkError, AuthError, ChecksumError, LibraryNotFoundError)
from . import safetensors, gguf, inspect, checkpoint
from .gguf import GGMLQuantizationType, GGUFValueType, GGML_QUANT_SIZES, type_code

__version__ = "0.1.0"
library_version = _lib.version      # the loaded library's mio_version()
library_path = _lib.path            # where it was loaded from

__all__ = ["Error", "FileError", "OutOfMemoryError", "InvalidArgumentError", "FormatError", "UnsupportedError",
           "NotFoundError", "TypeMismatchError", "StateError", "ClosedError", "CancelledError",
           "NetworkError", "AuthError", "ChecksumError", "LibraryNotFoundError", "safetensors", "gguf", "inspect", "checkpoint", "GGMLQuantizationType", "GGUFValueType",
           "GGML_QUANT_SIZES", "type_code", "quantize", "dequantize", "quantize_model", "convert", "convert_hf",
           "pull", "http_supported", "cpu_features",
           "hf_architectures",
           "library_version", "library_path"]


def _block(code):
    bs, ts = int(lib.mio_type_block_size(code)), int(lib.mio_type_block_bytes(code))
    if not bs or not ts:
        raise UnsupportedError(11, "type %d has no block layout" % code)
    return bs, ts


def quantize(array, qtype, n_threads=0):
    """Encode a float array to the ggml type qtype (a name like "q4_k" /
    "Q8_0" or a code) with mio_encode_f32: byte-exact with ggml's quantizer
    (no importance matrix). Rows are the last axis, whose length must be a
    multiple of the block size. Returns np.uint8 with gguf-py's byte shape
    (..., row_len // block_size * block_bytes). NaN/inf in block types raise
    InvalidArgumentError naming the element."""
    code = type_code(qtype)
    x = np.ascontiguousarray(np.asarray(array, dtype=np.float32))
    if x.ndim == 0:
        x = x.reshape(1)
    bs, ts = _block(code)
    if x.shape[-1] % bs:
        raise InvalidArgumentError(3, "row length %d is not a multiple of the %s block size %d"
                                   % (x.shape[-1], lib.mio_type_name(code).decode(), bs))
    out = np.empty(x.shape[:-1] + (x.shape[-1] // bs * ts,), dtype=np.uint8)
    _lib.check(lib.mio_encode_f32_mt(code, x.ctypes.data if x.size else None, x.size,
                                     out.ctypes.data if out.size else None, out.nbytes, n_threads))
    return out


def dequantize(raw, qtype, shape=None, n_threads=0):
    """Decode ggml wire bytes (bytes, bytearray, memoryview or a uint8 array)
    of type qtype to float32 with mio_decode_f32 (bit-exact with ggml's
    to_float). shape: the element shape of the result; without it a uint8
    array's byte shape is turned back (last axis // block_bytes * block_size),
    as gguf.quants.dequantize does, and bytes give a flat array."""
    code = type_code(qtype)
    bs, ts = _block(code)
    if isinstance(raw, np.ndarray):
        r = raw if raw.dtype == np.uint8 else raw.view(np.uint8)
        byte_shape = r.shape
    else:
        r = np.frombuffer(raw, dtype=np.uint8)
        byte_shape = r.shape
    r = np.ascontiguousarray(r)
    if shape is None:
        if not byte_shape or byte_shape[-1] % ts:
            raise InvalidArgumentError(3, "%d bytes per row is not a multiple of the %s block size %d"
                                       % (byte_shape[-1] if byte_shape else 0, lib.mio_type_name(code).decode(), ts))
        shape = tuple(byte_shape[:-1]) + (byte_shape[-1] // ts * bs,)
    shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    n = 1
    for s in shape:
        n *= s
    out = np.empty(shape, dtype=np.float32)
    _lib.check(lib.mio_decode_f32_mt(code, r.ctypes.data if r.size else None, r.nbytes,
                                     out.ctypes.data if out.size else None, n, n_threads))
    return out


def _preset(preset):
    if preset is None:
        return -1
    if isinstance(preset, int):
        return preset
    p = lib.mio_preset_from_name(str(preset).encode())
    if p < 0:
        s = lib.mio_preset_suggest(str(preset).encode())
        raise InvalidArgumentError(3, "unknown preset %r%s" % (preset, " (did you mean %s?)" % s.decode() if s else ""))
    return p


def _progress_fn(progress, errs):
    """progress(done, total, bytes_done, bytes_total) -> cancel? as a C callback
    (None without one); an exception it raises is kept in errs and cancels: it
    never crosses the C frames. The caller keeps the returned object alive."""
    if progress is None:
        return None

    def on_progress(_u, done, total, bd, bt):
        try:
            return 1 if progress(done, total, bd, bt) else 0
        except BaseException as e:
            errs.append(e)
            return 1
    return _lib.PROGRESS_FN(on_progress)


def quantize_model(input, output, preset="Q4_K_M", *, n_threads=0, pure=False, leave_output_tensor=False,
                   allow_requantize=False, output_tensor_type=None, token_embedding_type=None,
                   tensor_types=None, prune_layers=None, kv_overrides=None, imatrix=None, dry_run=False,
                   progress=None):
    """Quantize the GGUF model input into output with mio_quantize (what
    llama-quantize does: same types, order, metadata and bytes). preset: a
    llama-quantize name ("Q4_K_M", "q8_0", "15") or a MIO_PRESET number.
    tensor_types: {regex: type} (llama-quantize --tensor-type; the library
    lower-cases the patterns as llama-quantize does). prune_layers: block
    numbers to drop (--prune-layers; any order, duplicates allowed: the library
    sorts and de-duplicates them). kv_overrides: "KEY=TYPE:VALUE" strings
    (--override-kv, parsed by the library's mio_kv_override_parse). imatrix:
    path of an importance matrix. progress(done, total, bytes_done,
    bytes_total) may return True to cancel (CancelledError). Returns the
    per-tensor plan: a list of dicts (name, shape ne, in_type, out_type,
    in_bytes, out_bytes, why)."""
    buf, p = _lib.params_buffer(_lib.QuantizeParams, lib.mio_quantize_default_params)
    p.preset = _preset(preset)
    p.n_threads = int(n_threads)
    p.pure, p.leave_output_tensor, p.allow_requantize, p.dry_run = (int(bool(pure)), int(bool(leave_output_tensor)),
                                                                     int(bool(allow_requantize)), int(bool(dry_run)))
    if output_tensor_type is not None:
        p.output_tensor_type = type_code(output_tensor_type)
    if token_embedding_type is not None:
        p.token_embedding_type = type_code(token_embedding_type)
    keep = []
    if tensor_types:
        items = list(tensor_types.items() if hasattr(tensor_types, "items") else tensor_types)
        arr = (_lib.TensorTypeOverride * len(items))()
        for j, (rx, t) in enumerate(items):
            b = rx.encode()
            keep.append(b)
            arr[j].pattern, arr[j].type = b, type_code(t)
        keep.append(arr)
        p.tensor_types, p.n_tensor_types = C.cast(arr, C.POINTER(_lib.TensorTypeOverride)), len(items)
    if prune_layers is not None:
        layers = [int(x) for x in prune_layers]
        arr = (C.c_int32 * max(len(layers), 1))(*layers)
        keep.append(arr)
        p.prune_layers, p.n_prune_layers = C.cast(arr, C.POINTER(C.c_int32)), len(layers)
    blocks = []
    try:
        if kv_overrides:
            for spec in kv_overrides:
                o = C.POINTER(_lib.KvOverride)()
                _lib.check(lib.mio_kv_override_parse(spec.encode() if isinstance(spec, str) else spec,
                                                     C.byref(o)))
                blocks.append(o)
            arr = (_lib.KvOverride * len(blocks))(*[o.contents for o in blocks])
            keep.append(arr)
            p.kv_overrides, p.n_kv_overrides = C.cast(arr, C.POINTER(_lib.KvOverride)), len(blocks)
        return _quantize_run(input, output, buf, p, keep, imatrix, progress)
    finally:
        for o in blocks:
            lib.mio_free(o)


def _quantize_run(input, output, buf, p, keep, imatrix, progress):
    if imatrix is not None:
        b = _lib.fspath(imatrix)
        keep.append(b)
        p.imatrix_path = b
    plan = []

    def on_plan(_user, d):
        d = d.contents
        plan.append({"index": d.index, "name": _lib.str_of(d.name).decode("utf-8", "replace"),
                     "ne": list(d.ne[:d.n_dims]), "in_type": gguf._tt(d.in_type), "out_type": gguf._tt(d.out_type),
                     "in_bytes": d.in_bytes, "out_bytes": d.out_bytes,
                     "why": d.why.decode() if d.why else ""})

    cb = _lib.PLAN_FN(on_plan)
    p.plan = cb
    errs = []
    pcb = _progress_fn(progress, errs)
    if pcb is not None:
        p.progress = pcb
    st = lib.mio_quantize(_lib.fspath(input), _lib.fspath(output), buf)
    if errs:
        raise errs[0]
    _lib.check(st)
    return plan


def convert(input, output, *, dtype=None, dequantize=False, n_threads=0, max_shard_bytes=0, rename=None):
    """GGUF -> safetensors (mio_gguf_to_st) or safetensors -> GGUF
    (mio_st_to_gguf), chosen by the input's first four bytes ("GGUF"
    or not; an .index.json input is safetensors). dtype: None keeps float
    types, or "f32"/"f16"/"bf16" casts every float tensor. dequantize: decode
    block-quantized tensors on the way to safetensors. rename: {old: new}
    tensor names. The GGUF metadata travels in __metadata__ and comes back
    exactly (docs/CONVERT.md)."""
    buf, p = _lib.params_buffer(_lib.ConvertParams, lib.mio_convert_default_params)
    if dtype is not None:
        p.dtype = type_code(dtype)
    p.dequantize = int(bool(dequantize))
    p.n_threads = int(n_threads)
    p.max_shard_bytes = int(max_shard_bytes)
    keep = []
    if rename:
        items = list(rename.items())
        fr = (C.c_char_p * len(items))(*[a.encode() for a, _ in items])
        to = (C.c_char_p * len(items))(*[b.encode() for _, b in items])
        keep += [fr, to]
        p.rename_from, p.rename_to, p.n_rename = fr, to, len(items)
    src = _lib.fspath(input)
    is_gguf = False
    if not src.endswith(b".index.json"):
        try:
            with open(src, "rb") as fh:
                is_gguf = fh.read(4) == b"GGUF"
        except OSError as e:
            raise FileError(1, "%s: %s" % (input, e.strerror or e)) from None
    fn = lib.mio_gguf_to_st if is_gguf else lib.mio_st_to_gguf
    _lib.check(fn(src, _lib.fspath(output), buf))


_HF_OUTTYPES = {"auto": -1, "f32": 0, "f16": 1, "bf16": 30, "q8_0": 8, "tq1_0": 34, "tq2_0": 35}


def hf_architectures():
    """The Hugging Face model classes convert_hf converts, as (class,
    general.architecture) pairs in the table's order, e.g.
    ("LlamaForCausalLM", "llama"): what `mio-convert-hf --list-architectures`
    prints."""
    out, i = [], 0
    while True:
        g = C.c_char_p()
        name = lib.mio_hf_architecture(i, C.byref(g))
        if not name:
            return out
        out.append((name.decode(), g.value.decode()))
        i += 1


def http_supported():
    """True when the loaded libmodelio was built with HTTP support (libcurl):
    hf:// and http(s):// paths, pull(), convert_hf("hf://...")."""
    return bool(lib.mio_http_supported())


def cpu_features():
    """The CPU as libmodelio sees it, one line (mio_cpu_features): the features
    detected, the kernel level in use, and on x86-64 why AMX is not used."""
    return lib.mio_cpu_features().decode()


def pull(uri, *, include=None, exclude=None, cache_dir=None, n_threads=0, progress=None):
    """Download hf://ORG/REPO[@REV] (or the one file of hf://ORG/REPO[@REV]/PATH)
    into huggingface_hub's cache with mio_hub_pull (docs/HUB.md): the layout
    huggingface_hub makes and reads, resumable, each LFS file checked against
    its sha256, safe beside another pull. include / exclude: glob patterns (as
    snapshot_download's allow_patterns / ignore_patterns). HF_ENDPOINT,
    HF_TOKEN and HF_HUB_OFFLINE are read as huggingface_hub reads them.
    progress(files_done, files, bytes_done, bytes_total) may return True to
    cancel. Returns the snapshot directory (or the file's path)."""
    buf, p = _lib.params_buffer(_lib.HubPullParams, lib.mio_hub_pull_default_params)
    keep = []

    def patterns(pats):
        if pats is None:
            return None, 0
        if isinstance(pats, (str, bytes)):
            pats = [pats]
        arr = (C.c_char_p * max(1, len(pats)))(*[str(x).encode() for x in pats])
        keep.append(arr)
        return C.cast(arr, C.POINTER(C.c_char_p)), len(pats)
    inc, ninc = patterns(include)
    exc, nexc = patterns(exclude)
    if ninc:
        p.include, p.n_include = inc, ninc
    if nexc:
        p.exclude, p.n_exclude = exc, nexc
    if cache_dir is not None:
        b = _lib.fspath(cache_dir)
        keep.append(b)
        p.cache_dir = b
    p.n_threads = int(n_threads)
    errs = []
    pcb = _progress_fn(progress, errs)
    if pcb is not None:
        p.progress = pcb
    out = C.c_void_p()
    st = lib.mio_hub_pull(str(uri).encode(), buf, C.byref(out))
    if errs:
        raise errs[0]
    _lib.check(st)
    path = C.cast(out, C.c_char_p).value.decode("utf-8", "surrogateescape")
    lib.mio_free(out)
    return path


def convert_hf(model_dir, outfile=None, outtype="auto", *, vocab_only=False, pre=None, model_name=None,
               split_max_tensors=0, split_max_size=0, no_tensor_first_split=False, dry_run=False, n_threads=0,
               imatrix=None, progress=None, stream=False):
    """Convert the Hugging Face checkpoint directory model_dir to GGUF with
    mio_hf_convert: the file convert_hf_to_gguf.py writes with the same
    arguments. model_dir may be "hf://ORG/REPO[@REV]": the checkpoint on the
    Hub (mio_hub_convert: the file convert_hf_to_gguf.py --remote writes,
    general.name the repo id, default name ./ORG-REPO-{ftype}.gguf; the
    weights pulled into huggingface_hub's cache, or read with range requests
    and not stored when stream is True). (outfile: a path with {ftype}, a directory, or None for the
    default name in model_dir; outtype: auto, f32, f16, bf16, q8_0, tq1_0,
    tq2_0, or a llama-quantize preset such as "Q4_K_M" for the one-pass
    quantized file; split_max_size in bytes). progress(done, total, bytes_done,
    bytes_total) may return True to cancel. Returns a dict: "written" (the
    first file's path, None for a dry run), "files" (path, n_tensors,
    tensor_bytes) and "tensors" (name, source, ne, type, permuted, nbytes)."""
    buf, p = _lib.params_buffer(_lib.HfParams, lib.mio_hf_default_params)
    keep = []
    key = str(outtype)
    if key.lower() in _HF_OUTTYPES and key == key.lower():
        p.outtype = _HF_OUTTYPES[key]
    else:
        p.preset = _preset(outtype)
        qbuf, q = _lib.params_buffer(_lib.QuantizeParams, lib.mio_quantize_default_params)
        if imatrix is not None:
            b = _lib.fspath(imatrix)
            keep.append(b)
            q.imatrix_path = b
        keep.append(qbuf)
        p.quantize = C.cast(qbuf, C.POINTER(_lib.QuantizeParams))
    for field, val in (("pre", pre), ("model_name", model_name)):
        if val is not None:
            b = str(val).encode()
            keep.append(b)
            setattr(p, field, b)
    p.vocab_only, p.no_tensor_first_split, p.dry_run = int(bool(vocab_only)), int(bool(no_tensor_first_split)), \
        int(bool(dry_run))
    p.split_max_tensors, p.split_max_bytes, p.n_threads = int(split_max_tensors), int(split_max_size), int(n_threads)
    files, tensors, errs = [], [], []

    def on_file(_u, f):
        f = f.contents
        files.append({"path": f.path.decode("utf-8", "surrogateescape"), "n_tensors": f.n_tensors,
                      "tensor_bytes": f.tensor_bytes})

    def on_tensor(_u, t):
        t = t.contents
        tensors.append({"name": t.name.decode(), "source": t.source.decode("utf-8", "replace"),
                        "ne": list(t.ne[:t.n_dims]), "type": gguf._tt(t.type), "permuted": bool(t.permuted),
                        "nbytes": t.nbytes})

    fcb, tcb = _lib.HF_FILE_FN(on_file), _lib.HF_TENSOR_FN(on_tensor)
    p.file, p.plan = fcb, tcb
    pcb = _progress_fn(progress, errs)
    if pcb is not None:
        p.progress = pcb
    written = C.c_void_p()
    out_b = _lib.fspath(outfile) if outfile is not None else None
    if isinstance(model_dir, str) and model_dir.startswith("hf://"):
        st = lib.mio_hub_convert(model_dir.encode(), out_b, buf, 1 if stream else 0, C.byref(written))
    else:
        st = lib.mio_hf_convert(_lib.fspath(model_dir), out_b, buf, C.byref(written))
    if errs:
        raise errs[0]
    _lib.check(st)
    warn = lib.mio_last_warning()
    if warn:  # e.g. a model card whose front matter is not read: the conversion went on without it
        import warnings
        warnings.warn(warn.decode("utf-8", "replace"), stacklevel=2)
    path = None
    if written.value:
        path = C.cast(written, C.c_char_p).value.decode("utf-8", "surrogateescape")
        lib.mio_free(written)
    return {"written": path, "files": files, "tensors": tensors}
