# SPDX-License-Identifier: MIT
"""Exceptions raised by modelio: every failure of the library becomes an
instance of a modelio.Error subclass carrying the library's status code
(.status, an int: the mio_status value), its stable name (.status_name,
"MIO_ERR_TRUNCATED") and the library's message (.message, from
mio_last_error(), naming the key/tensor and the numbers involved).

The subclasses also derive from the built-in exception a Python user would
expect (FormatError is a ValueError, FileError an OSError, NotFoundError a
KeyError, ...), so code written against the upstream packages, which raise
ValueError / KeyError / OSError, keeps catching them."""

__all__ = ["Error", "FileError", "OutOfMemoryError", "InvalidArgumentError", "FormatError",
           "UnsupportedError", "NotFoundError", "TypeMismatchError", "StateError", "ClosedError",
           "CancelledError", "LibraryNotFoundError", "error_class"]


class Error(Exception):
    """Base class: .status (int), .status_name (str), .message (str)."""

    def __init__(self, status, message, status_name=None):
        self.status = int(status)
        self.status_name = status_name or _STATUS_NAMES.get(self.status, "MIO_ERR_UNKNOWN")
        self.message = message
        super().__init__(message)

    def __str__(self):
        return "%s (%s)" % (self.message, self.status_name)

    def __reduce__(self):
        return (self.__class__, (self.status, self.message, self.status_name))


class FileError(Error, OSError):
    """MIO_ERR_IO: open/read/write/mmap/rename failed."""


class OutOfMemoryError(Error, MemoryError):
    """MIO_ERR_NOMEM."""


class InvalidArgumentError(Error, ValueError):
    """A bad argument from the caller: MIO_ERR_INVALID_ARG, MIO_ERR_OUT_OF_RANGE,
    MIO_ERR_SIZE_MISMATCH, MIO_ERR_NON_FINITE."""


class FormatError(Error, ValueError):
    """The file is not valid: bad magic, truncated, bad JSON, bad offsets, ..."""


class UnsupportedError(Error, ValueError):
    """Valid but not supported here: GGUF version, big-endian files, unknown
    types, a type without encoder/decoder, a dtype numpy cannot represent."""


class NotFoundError(Error, KeyError):
    """MIO_ERR_NOT_FOUND: no such key / tensor / file."""


class TypeMismatchError(Error, TypeError):
    """MIO_ERR_TYPE_MISMATCH: the key holds another type than asked for."""


class StateError(Error, RuntimeError):
    """A call not valid in the object's current state (MIO_ERR_STATE, the
    streaming writer's MIO_ERR_TOO_MANY_TENSORS / MIO_ERR_INCOMPLETE)."""


class ClosedError(StateError):
    """The file or writer was closed (status MIO_ERR_STATE)."""


class CancelledError(StateError):
    """MIO_ERR_CANCELLED: the write was cancelled (nothing was written)."""


class NetworkError(Error, OSError):
    """A remote file could not be read: no response, a dropped connection, an unexpected reply."""


class AuthError(NetworkError, PermissionError):
    """HTTP 401/403: a private or gated repo without a token, or a refused token."""


class ChecksumError(Error, ValueError):
    """Downloaded bytes whose sha256 differs from the file's etag."""


class LibraryNotFoundError(ImportError):
    """libmodelio could not be loaded (see modelio._lib for the search order)."""


_STATUS_NAMES = {}  # filled by _lib from mio_status_name

_CLASS_OF = {
    1: FileError, 2: OutOfMemoryError, 3: InvalidArgumentError, 4: FormatError,
    5: UnsupportedError, 6: FormatError, 7: FormatError, 8: FormatError, 9: FormatError,
    10: FormatError, 11: UnsupportedError, 12: InvalidArgumentError, 13: NotFoundError,
    14: TypeMismatchError, 15: FormatError, 16: FormatError, 17: FormatError, 18: FormatError,
    19: FormatError, 20: InvalidArgumentError, 21: StateError, 22: StateError, 23: StateError,
    24: UnsupportedError, 25: FormatError, 26: FormatError, 27: FormatError, 28: FormatError,
    29: FormatError, 30: FormatError, 31: FormatError, 32: FormatError, 33: UnsupportedError,
    34: UnsupportedError, 35: InvalidArgumentError, 36: CancelledError, 37: UnsupportedError,
    38: NetworkError, 39: AuthError, 40: ChecksumError,
}


def error_class(status):
    """The Error subclass raised for a status code."""
    return _CLASS_OF.get(int(status), Error)
