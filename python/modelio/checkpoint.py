# SPDX-License-Identifier: MIT
"""State dicts and training-checkpoint directories (docs/CHECKPOINTS.md).

    from modelio.checkpoint import save_state_dict, load_state_dict, save_checkpoint, load_checkpoint
    save_state_dict("model.safetensors", {"w": w, "b": b})
    load_state_dict("model.safetensors", {"w": w_dst, "b": b_dst})
    save_checkpoint("run/step-100", {"model.safetensors": {"w": w}}, {"step": 100, "seed": 7}, optimizer=blob)
    trainer_state, state_dicts, optimizer = load_checkpoint("run/step-100")

A state dict is one safetensors frame with no __metadata__ (any safetensors
reader reads it; the bytes equal safetensors.numpy.save_file's for the same
dict): dtypes float32, float16, bfloat16 (ml_dtypes) and int64 only. Loads
fill the caller's numpy arrays in place, after every name, dtype and shape has
been checked: a failing load raises modelio.Error and changes nothing."""
import ctypes as C
import json

import numpy as np

from . import _lib
from ._lib import lib
from .errors import InvalidArgumentError
from .safetensors import _entries, _ST_OF_NP, _DT_CODE

__all__ = ["save_state_dict", "load_state_dict", "save_checkpoint", "load_checkpoint", "OPTIMIZER", "TRAINER_STATE"]

OPTIMIZER = "optimizer.fucina"        # MIO_CKPT_OPTIMIZER
TRAINER_STATE = "trainer_state.json"  # MIO_CKPT_TRAINER_STATE


def save_state_dict(path, tensors):
    """Write tensors ({name: array}) to path as a state dict, atomically (temp
    file, fsync, rename). A name that is empty, "__metadata__", repeated or not
    str, or a dtype other than float32 / float16 / bfloat16 / int64, raises
    modelio.Error and nothing is written."""
    if not isinstance(tensors, dict):
        raise InvalidArgumentError(3, "tensors must be a dict of name -> array, not %s" % type(tensors).__name__)
    ents, n, _meta, _nm, keep = _entries(tensors, None)
    _lib.check(lib.mio_state_dict_save_file(_lib.fspath(path), ents, n, C.sizeof(_lib.StEntry)))
    del keep


def _dest(name, arr):
    if not isinstance(name, str):
        raise InvalidArgumentError(3, "destination names must be str, not %r" % (name,))
    if type(arr) is not np.ndarray:
        raise InvalidArgumentError(3, "destination %r is a %s, not a numpy array" % (name, type(arr).__name__))
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        raise InvalidArgumentError(3, "destination %r must be a writable C-contiguous array" % (name,))
    st = _ST_OF_NP.get(arr.dtype.name)
    if st is None or arr.dtype.byteorder == ">":
        raise InvalidArgumentError(3, "destination %r: numpy dtype %s is not a state-dict dtype" % (name, arr.dtype))
    return _DT_CODE[st]


def load_state_dict(path, into, aliases=None, strict=True):
    """Fill the arrays of into ({name: numpy array}) in place from the state
    dict at path. aliases ({name in the file: name in into}) renames on the
    way. strict: every tensor of the file has a destination and every
    destination a tensor (a missing, unexpected or doubly-mapped name raises);
    strict=False skips both. Dtypes and shapes must match exactly. Any failure
    raises modelio.Error with every array unchanged. Returns the number of
    arrays filled."""
    if not isinstance(into, dict):
        raise InvalidArgumentError(3, "into must be a dict of name -> array, not %s" % type(into).__name__)
    aliases = aliases or {}
    if not isinstance(aliases, dict):
        raise InvalidArgumentError(3, "aliases must be a dict of file name -> destination name")
    n = len(into)
    dests = (_lib.StateDictDest * max(1, n))()
    keep = []
    for i, (name, arr) in enumerate(into.items()):
        code = _dest(name, arr)
        nb = name.encode("utf-8")
        shape = (C.c_uint64 * max(1, arr.ndim))(*arr.shape)
        keep += [nb, shape]
        d = dests[i]
        d.name, d.dtype, d.n_dims = nb, code, arr.ndim
        d.shape = C.cast(shape, C.POINTER(C.c_uint64))
        d.data = arr.ctypes.data if arr.nbytes else None
        d.nbytes = arr.nbytes
    al = (_lib.StateDictAlias * max(1, len(aliases)))()
    for i, (a, b) in enumerate(aliases.items()):
        if not isinstance(a, str) or not isinstance(b, str):
            raise InvalidArgumentError(3, "aliases must map str to str (%r)" % (a,))
        ab, bb = a.encode("utf-8"), b.encode("utf-8")
        keep += [ab, bb]
        al[i].from_, al[i].to = ab, bb
    loaded = C.c_size_t()
    _lib.check(lib.mio_state_dict_load_file(_lib.fspath(path), dests, n, C.sizeof(_lib.StateDictDest), al,
                                            len(aliases), 0 if strict else 1, C.byref(loaded)))
    del keep
    return loaded.value


def _u64(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < 2 ** 64:
        raise InvalidArgumentError(3, "trainer_state[%r] must be an integer in 0 .. 2**64 - 1, not %r" % (what, v))
    return int(v)


def save_checkpoint(directory, state_dicts, trainer_state, optimizer=None):
    """Save a training checkpoint at directory: each state dict of
    state_dicts ({file name: {tensor name: array}}) as a file, optimizer
    (bytes, stored as optimizer.fucina, verified but never interpreted) if
    given, trainer_state.json from trainer_state (a dict with "step" and
    "seed", u64, and any optional JSON fields; None values are omitted), then
    the sentinel; the directory appears (or replaces an earlier checkpoint
    there) in one step. Any failure raises modelio.Error and leaves directory
    as it was."""
    if not isinstance(state_dicts, dict) or not isinstance(trainer_state, dict):
        raise InvalidArgumentError(3, "state_dicts and trainer_state must be dicts")
    for k in ("step", "seed"):
        if k not in trainer_state:
            raise InvalidArgumentError(3, "trainer_state has no %r" % k)
    step, seed = _u64(trainer_state["step"], "step"), _u64(trainer_state["seed"], "seed")
    extra = {k: v for k, v in trainer_state.items() if k not in ("step", "seed")}
    try:
        extra_json = json.dumps(extra, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(3, "trainer_state is not JSON: %s" % e) from None
    if optimizer is not None and not isinstance(optimizer, (bytes, bytearray, memoryview)):
        raise InvalidArgumentError(3, "optimizer must be bytes, not %s" % type(optimizer).__name__)
    s = C.c_void_p()
    _lib.check(lib.mio_ckpt_begin(_lib.fspath(directory), C.byref(s)))
    try:
        for name, tensors in state_dicts.items():
            if not isinstance(name, str) or not isinstance(tensors, dict):
                raise InvalidArgumentError(3, "state_dicts must map file names to dicts of arrays (%r)" % (name,))
            ents, n, _meta, _nm, keep = _entries(tensors, None)
            _lib.check(lib.mio_ckpt_add_state_dict(s, name.encode("utf-8"), ents, n, C.sizeof(_lib.StEntry)))
            del keep
        if optimizer is not None:
            blob = bytes(optimizer)
            _lib.check(lib.mio_ckpt_add_file(s, OPTIMIZER.encode(), blob, len(blob)))
    except BaseException:
        lib.mio_ckpt_abort(s)
        raise
    _lib.check(lib.mio_ckpt_commit(s, step, seed, extra_json))  # frees the save either way


def load_checkpoint(directory):
    """(trainer_state, state_dicts, optimizer) of the checkpoint at directory,
    after checking its sentinel and every file it lists: trainer_state a dict
    (step, seed and the optional fields), state_dicts {file name: {tensor
    name: array}} for every .safetensors file, optimizer the bytes of
    optimizer.fucina or None. A directory without a valid sentinel (an
    interrupted save), a missing, truncated or changed file raise modelio.Error."""
    from .safetensors import load_file
    c = C.c_void_p()
    _lib.check(lib.mio_ckpt_open(_lib.fspath(directory), C.byref(c)))
    try:
        state = {"step": lib.mio_ckpt_step(c), "seed": lib.mio_ckpt_seed(c)}
        state.update(json.loads(lib.mio_ckpt_extra_json(c).decode("utf-8")))
        state_dicts, optimizer = {}, None
        for i in range(lib.mio_ckpt_file_count(c)):
            name = lib.mio_ckpt_file_name(c, i).decode("utf-8")
            if name.endswith(".safetensors"):
                p = C.c_void_p()
                _lib.check(lib.mio_ckpt_file_path(c, name.encode("utf-8"), C.byref(p)))
                try:
                    path = C.string_at(p)
                finally:
                    lib.mio_free(p)
                state_dicts[name] = load_file(path.decode("utf-8", "surrogateescape"))
            elif name == OPTIMIZER:
                b, ln = C.c_void_p(), C.c_size_t()
                _lib.check(lib.mio_ckpt_read_file(c, name.encode(), C.byref(b), C.byref(ln)))
                try:
                    optimizer = C.string_at(b, ln.value)
                finally:
                    lib.mio_free(b)
        return state, state_dicts, optimizer
    finally:
        lib.mio_ckpt_close(c)
