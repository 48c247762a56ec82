"""Opening the files the readers and the writer of :mod:`rlscore.utilities.reader` take:
a path (``str``, ``bytes`` or path-like; names ending in ``.gz``, ``.bz2`` or ``.xz`` are
(de)compressed on the fly) or an open file object (text or binary). Streams the caller
passed in are never closed.
"""

import bz2
import contextlib
import gzip
import io
import lzma
import os

import numpy as np

__all__ = ["OPENERS", "source_name", "open_text", "open_binary", "index_dtype"]

OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def source_name(fname):
    """The name error messages give the file: the path, or the stream's ``name``."""
    if isinstance(fname, (str, bytes, os.PathLike)):
        return os.fsdecode(fname)
    return str(getattr(fname, "name", "<file>"))


def check_same_rows(fname, rows, first_pass_rows):
    """ValueError unless a later pass over a file read as many rows as the first
    (the file changed or was truncated in between). O(1)."""
    if rows != first_pass_rows:
        raise ValueError(f"{source_name(fname)} has {rows} rows now but had "
                         f"{first_pass_rows} in the first pass (changed or truncated?)")


@contextlib.contextmanager
def open_text(fname, mode="r"):
    """Yield a text stream for a path or an open (text or binary) file object.

    Streams that the caller passed in are not closed.
    """
    if isinstance(fname, (str, bytes, os.PathLike)):
        path = os.fsdecode(fname)
        opener = OPENERS.get(os.path.splitext(path)[1].lower())
        if "r" in mode:
            kwargs = {"encoding": "utf-8-sig", "errors": "replace"}
        else:
            kwargs = {"encoding": "utf-8"}
        if opener is None:
            fh = open(path, mode, **kwargs)
        else:
            fh = opener(path, mode + "t", **kwargs)
        with fh:
            yield fh
        return
    if "r" in mode and not (hasattr(fname, "read") or hasattr(fname, "__iter__")):
        raise TypeError(f"expected a file name or a file object, got "
                        f"{type(fname).__name__}")
    if "w" in mode and not hasattr(fname, "write"):
        raise TypeError(f"expected a file name or a writable file object, got "
                        f"{type(fname).__name__}")
    file_mode = getattr(fname, "mode", "")
    if isinstance(fname, (io.RawIOBase, io.BufferedIOBase)) or (
            isinstance(file_mode, str) and "b" in file_mode):
        wrapper = io.TextIOWrapper(fname, encoding="utf-8-sig" if "r" in mode else "utf-8",
                                   errors="replace" if "r" in mode else "strict")
        try:
            yield wrapper
        finally:
            if "w" in mode:
                wrapper.flush()
            wrapper.detach()
        return
    yield fname


@contextlib.contextmanager
def open_binary(fname):
    """A binary stream for a path (decompressing .gz/.bz2/.xz) or a file object (a text
    stream is encoded back to UTF-8). Streams the caller passed in are not closed."""
    if isinstance(fname, (str, bytes, os.PathLike)):
        path = os.fsdecode(fname)
        opener = OPENERS.get(os.path.splitext(path)[1].lower())
        with (open(path, "rb") if opener is None else opener(path, "rb")) as fh:
            yield fh
        return
    if not hasattr(fname, "read"):
        if hasattr(fname, "__iter__"):           # an iterable of lines
            yield io.BytesIO("".join(fname).encode("utf-8"))
            return
        raise TypeError(f"expected a file name or a file object, got "
                        f"{type(fname).__name__}")
    probe = fname.read(0)
    if isinstance(probe, str):
        yield io.BytesIO(fname.read().encode("utf-8"))
    else:
        yield fname


def whole_line_blocks(fh, chunk_bytes):
    """Blocks of whole lines (each ending with b"\\n") of the binary file object ``fh``,
    read ``chunk_bytes`` at a time: a UTF-8 byte order mark at the start is dropped and
    a last line without its newline gets one. The one chunked reader of the text data
    files (svmlight and CSV). O(file size); memory O(chunk_bytes + the longest line)."""
    rest, first = b"", True
    while True:
        block = fh.read(chunk_bytes)
        data = rest + block
        if first:
            first = False
            if data.startswith(b"\xef\xbb\xbf"):      # UTF-8 byte order mark
                data = data[3:]
        if not block:
            if data:
                yield data if data.endswith(b"\n") else data + b"\n"
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            continue
        data, rest = data[:cut + 1], data[cut + 1:]
        yield data


def index_dtype(n):
    """The index dtype of a CSR matrix with n stored entries or columns: int32 while
    it fits, else int64."""
    return np.int32 if n < 2**31 - 1 else np.int64
