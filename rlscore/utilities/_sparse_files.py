"""Feature-only sparse text files: :func:`read_sparse` (0-based ``idx:val`` pairs, one
row per line). Public home: :mod:`rlscore.utilities.reader`.
"""

import warnings

import numpy as np
import scipy.sparse as sp

from rlscore._validation import check_positive_int
from rlscore.utilities._text_files import index_dtype, open_text, source_name

__all__ = ["read_sparse"]


def read_sparse(fname, fdim=None):
    """Read a feature-only sparse matrix with 0-based ``idx:val`` pairs.

    Every physical line is one row. A blank line or a line starting with ``#`` yields an
    empty row (a :class:`UserWarning` reports such lines); text after ``#`` is ignored.
    Indices are 0-based and must strictly increase along a line; zero values are not
    stored.

    Parameters
    ----------
    fname : str, path-like or file object
        The file.
    fdim : int, optional
        Number of columns. Entries with index ``>= fdim`` are dropped.

    Returns
    -------
    X : scipy.sparse.csr_matrix, float64
        Without ``fdim`` the shape is (last row with a stored entry + 1, largest stored
        column index + 1); with ``fdim`` it is (last row with a kept entry + 1, fdim).
        Trailing rows without entries are therefore not represented (as upstream).

    Raises
    ------
    ValueError
        With the line number, for a malformed token, a negative index, or indices that
        do not strictly increase.

    Notes
    -----
    Complexity: O(file size) time, O(nnz) memory.
    """
    fdim = check_positive_int(fdim, "fdim", allow_none=True)
    src = source_name(fname)
    indptr = [0]
    indices = []
    data = []
    empty_lines = []
    last_row = -1
    max_col = -1
    nnz = 0
    with open_text(fname) as fh:
        for lineno, line in enumerate(fh, 1):
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                empty_lines.append(lineno)
                indptr.append(nnz)
                continue
            cut = line.find("#")
            if cut >= 0:
                line = line[:cut]
            prev = -1
            for tok in line.split():
                idx, sep, val = tok.partition(":")
                try:
                    if not sep:
                        raise ValueError
                    idx = int(idx)
                    val = float(val)
                except ValueError:
                    raise ValueError(f"{src}, line {lineno}: malformed feature token "
                                     f"{tok!r} (expected index:value)") from None
                if idx <= prev:
                    if idx < 0:
                        raise ValueError(f"{src}, line {lineno}: negative feature index "
                                         f"{idx}")
                    raise ValueError(f"{src}, line {lineno}: feature indices must "
                                     f"strictly increase ({idx} follows {prev})")
                prev = idx
                if val != 0.0 and (fdim is None or idx < fdim):
                    indices.append(idx)
                    data.append(val)
                    nnz += 1
                    last_row = lineno - 1
                    if idx > max_col:
                        max_col = idx
            indptr.append(nnz)
    if empty_lines:
        shown = ", ".join(str(i) for i in empty_lines[:10])
        more = "" if len(empty_lines) <= 10 else ", ..."
        warnings.warn(f"{src}: no inputs on {len(empty_lines)} line(s) ({shown}{more}); "
                      f"they are empty rows", UserWarning, stacklevel=2)
    nrows = last_row + 1
    ncols = max_col + 1 if fdim is None else fdim
    itype = index_dtype(max(nnz, ncols))
    return sp.csr_matrix(
        (np.array(data, dtype=np.float64), np.array(indices, dtype=itype),
         np.array(indptr[:nrows + 1], dtype=itype)),
        shape=(nrows, ncols))
