"""Atomic file writes: the one home of "write a file so that readers never see half of it".

:func:`atomic_write` opens a temporary file in the destination's folder; on a clean exit
it flushes, ``fsync``\\ s and :func:`os.replace`\\ s it over the destination (one atomic
rename on POSIX and Windows), then ``fsync``\\ s the folder so the rename survives a power
loss. On any exception (disk full, a file-size limit, an interrupt) the temporary file
is removed and the previous destination, if any, is left untouched.
"""

import contextlib
import errno
import os
import tempfile

__all__ = ["atomic_write"]


def _fsync_dir(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on folders
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path, mode="wb", encoding=None):
    """Context manager yielding a file object whose content replaces ``path`` atomically.

    Parameters
    ----------
    path : str or path-like
        Destination. Its folder must exist and be writable.
    mode : {"wb", "w"}
        Binary or text.
    encoding : str, optional
        For text mode (default UTF-8).

    Notes
    -----
    O(size written) plus two ``fsync`` calls. The permissions of the new file are those
    of a newly created file (umask), not those of the file it replaces.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w', got {mode!r}")
    dest = os.path.abspath(os.fspath(path))
    folder, base = os.path.split(dest)
    if os.path.isdir(dest):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
    except (AttributeError, OSError):  # pragma: no cover - no fchmod on Windows
        pass
    try:
        if mode == "w":
            fh = os.fdopen(fd, "w", encoding=encoding or "utf-8", newline="")
        else:
            fh = os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
