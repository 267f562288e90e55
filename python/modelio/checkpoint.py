# SPDX-License-Identifier: MIT
"""Named state dicts (docs/CHECKPOINTS.md) from Python.

    from modelio.checkpoint import save_state_dict, load_state_dict
    save_state_dict("step-100/model.safetensors", {"w": w, "b": b})
    load_state_dict("step-100/model.safetensors", {"w": w_dst, "b": b_dst})

A state dict is one safetensors frame with no __metadata__ (any safetensors
reader reads it; the bytes equal safetensors.numpy.save_file's for the same
dict): dtypes float32, float16, bfloat16 (ml_dtypes) and int64 only. Loads
fill the caller's numpy arrays in place, after every name, dtype and shape has
been checked: a failing load raises modelio.Error and changes nothing."""
import ctypes as C

import numpy as np

from . import _lib
from ._lib import lib
from .errors import InvalidArgumentError
from .safetensors import _entries, _ST_OF_NP, _DT_CODE

__all__ = ["save_state_dict", "load_state_dict"]


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
