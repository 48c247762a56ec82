"""The svmlight / LETOR text format: :func:`read_svmlight`, :func:`iter_svmlight`
(streaming, chunk by chunk) and :func:`write_svmlight`.

``labels [qid:ID] idx:val ... [# comment]``, 1-based feature indices (0-based with
``zero_based``), several outputs separated by ``|``. The grammar is in
``rlscore/_ext/_svmlight.pyx`` (one compiled parser); this module feeds it chunks of
whole lines and assembles CSR matrices. Public home: :mod:`rlscore.utilities.reader`.
"""

import numpy as np
import scipy.sparse as sp

from rlscore._blocks import text_chunk_bytes
from rlscore._ext import _svmlight
from rlscore._memory import parser_bytes
from rlscore._validation import as_2d_labels, check_positive_int
from rlscore.utilities._text_files import (check_same_rows, index_dtype, open_binary,
                                          open_text, source_name, whole_line_blocks)

__all__ = ["read_svmlight", "iter_svmlight", "write_svmlight", "ZeroIndexError",
           "SvmlightSource"]


class ZeroIndexError(ValueError):
    """A feature index 0 in a file read as 1-based (``zero_based=False``): the file is
    0-based. ``location`` is "FILE, line L, column C"; the message says to read it with
    ``zero_based=True`` or ``'auto'`` (the command line names its ``--zero-based``
    option instead)."""

    def __init__(self, location):
        super().__init__(f"{location}: feature index 0 < 1 (indices are 1-based; use "
                         f"zero_based=True or 'auto' for 0-based files)")
        self.location = location


def _check_zero_based(zero_based):
    if isinstance(zero_based, (bool, np.bool_)):
        return bool(zero_based)
    if isinstance(zero_based, str) and zero_based == "auto":
        return "auto"
    raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")


def _raw_chunks(fname, zero_based, chunk_bytes=None):
    """Parse a file in chunks of whole lines with the compiled parser.

    Yields dicts with the raw (unshifted) feature indices of each chunk: ``labels``
    (rows, n_labels), ``qids`` (list or None), ``indptr``, ``indices``, ``values``,
    ``min_first`` and ``max_index``. ValueError names the file, line and column.
    O(file size); memory O(chunk) beyond what the caller keeps.
    """
    src = source_name(fname)
    # a whole file: a quarter of the working-memory budget per call (16 MiB by default)
    chunk_bytes = text_chunk_bytes(0.25) if chunk_bytes is None else int(chunk_bytes)
    mode = {False: 0, True: 1, "auto": 2}[zero_based]
    n_labels, has_qid, line = 0, -1, 1
    with open_binary(fname) as fh:
        for data in whole_line_blocks(fh, chunk_bytes):
            lines = data.count(b"\n")
            labels = np.empty(lines + data.count(b"|"))
            indptr = np.zeros(lines + 1, dtype=np.int64)
            colons = data.count(b":")
            indices = np.empty(colons, dtype=np.int64)
            values = np.empty(colons)
            qids = []
            rows, n_labels, has_qid, nnz, min_first, max_index, err = \
                _svmlight.parse_chunk(data, line, mode, n_labels, has_qid, labels,
                                      indptr, indices, values, qids)
            if err is not None:
                where = f"{src}, line {err[0]}, column {err[1]}"
                if err[2] == _svmlight._ZERO_INDEX:
                    raise ZeroIndexError(where)
                raise ValueError(f"{where}: {err[2]}")
            line += lines
            if rows:
                yield {"labels": labels[:rows * n_labels].reshape(rows, n_labels),
                       "qids": qids if has_qid == 1 else None,
                       "indptr": indptr[:rows + 1], "indices": indices[:nnz],
                       "values": values[:nnz], "min_first": min_first,
                       "max_index": max_index}


def _to_csr(chunk, shift, ncols):
    """CSR matrix of one raw chunk: indices shifted to columns, those >= ncols dropped."""
    ptr, cols, vals = chunk["indptr"], chunk["indices"] - shift, chunk["values"]
    n = ptr.size - 1
    if cols.size and cols.max() >= ncols:
        keep = cols < ncols
        rows = np.repeat(np.arange(n), np.diff(ptr))[keep]
        cols, vals = cols[keep], vals[keep]
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
    itype = index_dtype(max(cols.size, ncols))
    X = sp.csr_matrix((vals, cols.astype(itype), ptr.astype(itype)), shape=(n, ncols))
    X.has_sorted_indices = True
    return X


def iter_svmlight(fname, fdim, zero_based, chunk_bytes=None):
    """Read an svmlight / LETOR file in chunks of whole lines, for streaming prediction.

    Parameters
    ----------
    fname : str, path-like or file object
    fdim : int or None
        Columns of every chunk's matrix (features beyond are dropped, as in
        :func:`read_svmlight` with ``fdim``); None: each chunk is as wide as its own
        largest index needs (the caller aligns them, e.g. by projecting onto a model's
        features).
    zero_based : bool
        How the indices count ("auto" needs the whole file: use :func:`read_svmlight`,
        or the choice recorded in a model file).
    chunk_bytes : int, default a quarter of the working-memory budget (16 MiB;
        :func:`rlscore._blocks.text_chunk_bytes`)

    Yields
    ------
    (X, Y, qids) per chunk, as :func:`read_svmlight` returns them for the whole file.

    Notes
    -----
    O(file size) time; peak memory O(chunk_bytes) whatever the file's length. The
    chunks together equal :func:`read_svmlight` of the whole file.
    """
    fdim = check_positive_int(fdim, "fdim", allow_none=True)
    zero_based = _check_zero_based(zero_based)
    if zero_based == "auto":
        raise ValueError("iter_svmlight needs zero_based True or False")
    shift = 0 if zero_based else 1
    empty = True
    for chunk in _raw_chunks(fname, zero_based, chunk_bytes):
        empty = False
        width = max(chunk["max_index"] + 1 - shift, 0) if fdim is None else fdim
        yield _to_csr(chunk, shift, width), chunk["labels"], chunk["qids"]
    if empty:
        raise ValueError(f"{source_name(fname)}: the file contains no examples")


def read_svmlight(fname, fdim=None, zero_based="auto", return_zero_based=False):
    """Read an svmlight / LETOR file into a sparse data matrix, labels and query ids.

    Format: one example per line, ``labels [qid:ID] idx:val idx:val ... [# comment]``.
    ``labels`` holds one real number, or several separated by ``|`` (e.g. ``1|2``) for
    multi-output data; every line must have the same number. Feature indices strictly
    increase along a line; zero values are not stored. Blank lines and lines starting
    with ``#`` are skipped; text after ``#`` is ignored. A line holding only labels
    (and maybe a qid) is an all-zero row.

    The grammar is strict and ASCII-only, as svmlight and the LETOR files define it:
    labels and values are decimal numbers (``[+-]digits[.digits][e[+-]digits]``; no
    ``nan``, ``inf``, ``_`` digit separators or non-ASCII digits), indices are unsigned
    decimal integers (``+1:5`` and ``1_0:5`` are refused), and the qid token is ``qid:``
    followed by printable ASCII characters other than ``#`` (LETOR uses integers; any
    such string is kept as the id).

    Parameters
    ----------
    fname : str, path-like or file object
        The file. Names ending in ``.gz``, ``.bz2`` or ``.xz`` are decompressed.
    fdim : int, optional
        Number of columns of ``X``; features beyond it are dropped (so
        ``read_svmlight(test_file, X_train.shape[1])`` gives a test matrix aligned with
        the training one). Default: the largest column that occurs, plus one.
    zero_based : {"auto", True, False}, default "auto"
        As in scikit-learn's ``load_svmlight_file``: False means indices start at 1
        (index i goes to column i - 1, the svmlight and LETOR convention), True that
        they start at 0 (index i goes to column i, what ``dump_svmlight_file`` writes by
        default), "auto" chooses True when some index of the file is 0, False otherwise.
    return_zero_based : bool, default False
        Also return the resolved choice (a bool), e.g. to read a test file the same way.

    Returns
    -------
    X : scipy.sparse.csr_matrix, float64, shape (n, d)
    Y : numpy.ndarray, float64, shape (n, n_labels)
        Always 2-D, also for one label per line.
    qids : list of str or None
        The ``qid:`` values as strings, or None when no line has one.
    zero_based : bool, only with ``return_zero_based``

    Raises
    ------
    ValueError
        With the line and column, for: a label that is not a decimal number; a label
        or value beyond the float64 range (e.g. ``2:1e400``); a label count that differs from the first example's; a qid on some lines but not on
        others; an empty or non-ASCII qid; a malformed ``idx:val`` token; an index 0
        with ``zero_based=False``; indices that do not strictly increase; and for a file
        without examples.

    Notes
    -----
    Differences from upstream RLScore 0.8: a label-only line gives an all-zero row
    (upstream raised IndexError), feature index ``fdim`` is kept (upstream silently
    dropped it), 0-based files are read (``zero_based``), and errors are
    ``ValueError`` (upstream: ``Exception``).

    Lines end at LF (CRLF files read fine; a lone CR is not a line break), and tokens
    are separated by spaces, tabs, CR, vertical tabs and form feeds.

    Complexity: O(file size) time, one pass of the compiled parser
    (:mod:`rlscore._ext._svmlight`) over chunks of whole lines; memory O(n·n_labels +
    nnz) for the result plus one chunk (16 MiB) of text.
    """
    fdim = check_positive_int(fdim, "fdim", allow_none=True)
    zero_based = _check_zero_based(zero_based)
    chunks = list(_raw_chunks(fname, zero_based))
    if not chunks:
        raise ValueError(f"{source_name(fname)}: the file contains no examples")
    if zero_based == "auto":
        firsts = [c["min_first"] for c in chunks if c["min_first"] >= 0]
        zero_based = bool(firsts) and min(firsts) == 0
    shift = 0 if zero_based else 1
    max_index = max(c["max_index"] for c in chunks)
    ncols = max(max_index + 1 - shift, 0) if fdim is None else fdim
    X = sp.vstack([_to_csr(c, shift, ncols) for c in chunks], format="csr")
    if len(chunks) > 1:
        itype = index_dtype(max(X.nnz, ncols))
        X.indices, X.indptr = X.indices.astype(itype), X.indptr.astype(itype)
    X.has_sorted_indices = True
    Y = np.vstack([c["labels"] for c in chunks])
    qids = None if chunks[0]["qids"] is None else \
        [q for c in chunks for q in c["qids"]]
    out = (X, Y, qids)
    return out + (bool(zero_based),) if return_zero_based else out


def _fmt(value):
    """Shortest text that reads back as the same float (``1.0`` is written ``1``)."""
    text = repr(float(value))
    if text.endswith(".0"):
        text = text[:-2]
    return text


def write_svmlight(fname, X, Y, qids=None):
    """Write examples in svmlight / LETOR format, readable by :func:`read_svmlight`.

    Each row becomes ``labels [qid:ID] idx:val ...`` with 1-based indices, the non-zero
    values only, and several labels joined by ``|``. Values are written with the
    shortest representation that reads back to the same float64, so
    ``read_svmlight(fname, X.shape[1])`` returns ``X`` and ``Y`` exactly.

    Parameters
    ----------
    fname : str, path-like or writable file object
        Destination (``.gz``, ``.bz2`` and ``.xz`` names are compressed).
    X : array-like or sparse matrix, shape (n, d)
        Features.
    Y : array-like, shape (n,) or (n, n_labels)
        Labels.
    qids : sequence of length n, optional
        Query ids; each is written with ``str`` and must be non-empty, without
        whitespace or ``#``.

    Raises
    ------
    ValueError
        Non-finite or non-numeric values, mismatched lengths, or an invalid qid.

    Notes
    -----
    Trailing all-zero columns leave no trace in the file: pass ``fdim=X.shape[1]`` when
    reading it back. Complexity: O(n·n_labels + nnz) time.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    else:
        X = np.asarray(X)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
        if not (np.issubdtype(X.dtype, np.number) and not np.iscomplexobj(X)) or \
                X.dtype == np.bool_:
            raise ValueError(f"X must be real numeric, got dtype {X.dtype}")
        X = sp.csr_matrix(X.astype(np.float64))
    if not np.all(np.isfinite(X.data)):
        raise ValueError("X contains NaN or infinity")
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    Y = as_2d_labels(Y, name="Y")
    n = X.shape[0]
    if Y.shape[0] != n:
        raise ValueError(f"X has {n} rows but Y has {Y.shape[0]}")
    if qids is not None:
        qids = [str(q) for q in qids]
        if len(qids) != n:
            raise ValueError(f"X has {n} rows but qids has {len(qids)} entries")
        for q in qids:
            if not q or "#" in q or len(q.split()) != 1 or q.split()[0] != q:
                raise ValueError(f"qid {q!r} is empty or contains whitespace or '#'")
    indptr = X.indptr
    cols = (X.indices + 1).tolist()
    vals = [_fmt(v) for v in X.data.tolist()]
    ylist = Y.tolist()
    lines = []
    for i in range(n):
        parts = ["|".join(_fmt(v) for v in ylist[i])]
        if qids is not None:
            parts.append("qid:" + qids[i])
        lo, hi = indptr[i], indptr[i + 1]
        parts.extend(f"{c}:{v}" for c, v in zip(cols[lo:hi], vals[lo:hi]))
        lines.append(" ".join(parts) + "\n")
    with open_text(fname, "w") as fh:
        fh.write("".join(lines))


class SvmlightSource:
    """An svmlight / LETOR file as a data source of the streamed learners
    (:class:`rlscore.core.nystrom.StreamedReducedSet`; the protocol is in
    :mod:`rlscore.core.structure`): every pass re-reads the file in chunks with the
    compiled parser, so the rows are never all in memory.

    Parameters
    ----------
    fname : path of the file (plain or .gz/.bz2/.xz)
    zero_based : {"auto", True, False}, default "auto"
        How the indices count; "auto" (as :func:`read_svmlight`) decides in the first
        pass: 0-based when some index of the file is 0. The decision is the attribute
        ``zero_based`` (a bool).
    chunk_bytes : int, bytes of text per parser call, default 1/64 of the working-
        memory budget (:mod:`rlscore._blocks`)
    fdim : int, optional: the number of columns (default: the largest index seen)

    Attributes
    ----------
    m, d, Y (m, p) labels, qids (m,) or None -- from the first (scanning) pass.
    pass_bytes : bytes a pass holds besides the blocks it yields (the parser's text
        and parsed chunk, :func:`rlscore._memory.parser_bytes`), counted by the
        memory plans of the streamed learners.

    Notes
    -----
    Construction is one pass over the file (O(file size) time, O(m p) memory); every
    ``blocks`` call another. A file that changes between passes (fewer or more rows,
    a damaged line) raises ValueError.
    """

    def __init__(self, fname, zero_based="auto", chunk_bytes=None, fdim=None):
        zero_based = _check_zero_based(zero_based)
        self.fname = fname
        self.chunk_bytes = int(chunk_bytes) if chunk_bytes is not None else \
            text_chunk_bytes()
        labels, qids, max_index, m, firsts = [], [], -1, 0, []
        for chunk in _raw_chunks(fname, zero_based, self.chunk_bytes):
            labels.append(chunk["labels"])
            if chunk["qids"] is not None:
                qids.extend(chunk["qids"])
            max_index = max(max_index, chunk["max_index"])
            if chunk["min_first"] >= 0:
                firsts.append(chunk["min_first"])
            m += chunk["labels"].shape[0]
        if m == 0:
            raise ValueError(f"{source_name(fname)} holds no examples")
        if zero_based == "auto":
            zero_based = bool(firsts) and min(firsts) == 0
        self.zero_based = bool(zero_based)
        width = max_index + 1 - (0 if self.zero_based else 1)
        self.m = m
        self.d = check_positive_int(fdim, "fdim") if fdim is not None else max(width, 1)
        self.Y = as_2d_labels(np.vstack(labels), name="labels")
        self.qids = np.asarray(qids) if qids else None
        if self.qids is not None and self.qids.size != m:
            raise ValueError(f"{source_name(fname)}: some lines have qid: and others not")

    @property
    def pass_bytes(self):
        return parser_bytes(self.chunk_bytes)

    def blocks(self, size):
        """(start, X_b CSR) blocks of ``size`` rows (the last may be shorter): one pass
        over the file. O(file size)."""
        from rlscore._validation import as_data_matrix
        size = check_positive_int(size, "size")
        start = 0
        for X, _, _ in iter_svmlight(self.fname, self.d, self.zero_based,
                                     self.chunk_bytes):
            for lo in range(0, X.shape[0], size):
                Xb = X[lo:lo + size]
                try:
                    Xb = as_data_matrix(Xb, name=str(source_name(self.fname)))
                except ValueError as exc:
                    raise ValueError(f"{exc} (in rows {start}..{start + Xb.shape[0] - 1})"
                                     ) from None
                yield start, Xb
                start += Xb.shape[0]
        check_same_rows(self.fname, start, self.m)

    def rows(self, indices):
        """The rows ``indices`` (sorted, unique) as one CSR matrix: one pass. O(file
        size)."""
        import scipy.sparse as sp
        idx = np.asarray(indices, dtype=np.int64)
        parts, start = [], 0
        for X, _, _ in iter_svmlight(self.fname, self.d, self.zero_based,
                                     self.chunk_bytes):
            lo, hi = np.searchsorted(idx, [start, start + X.shape[0]])
            if hi > lo:
                parts.append(X[idx[lo:hi] - start])
            start += X.shape[0]
        got = sum(p.shape[0] for p in parts)
        if got != idx.size:
            raise ValueError(f"{source_name(self.fname)} has fewer rows than the "
                             f"requested indices (changed or truncated?)")
        return sp.vstack(parts, format="csr")
