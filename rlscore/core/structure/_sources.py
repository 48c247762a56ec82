"""Data sources for streamed learning: one block iterator over arrays, memmaps, CSR
matrices and dask arrays (:class:`ArraySource`); readers of files
(:class:`rlscore.utilities.SvmlightSource`, :class:`rlscore.utilities.reader.CsvSource`
for CSV/TSV) follow the same protocol:

* ``m`` rows, ``d`` columns, ``Y`` (m, p) float64 labels in memory (O(m p)), ``qids``
  (m,) or None;
* ``blocks(size)`` yields ``(start, X_b)``: consecutive row blocks of about ``size``
  rows, each a checked float64 ndarray or CSR matrix, together covering rows 0..m-1
  (a second call is a second pass over the data);
* ``rows(indices)`` returns the rows ``indices`` (sorted) as one checked block.

:func:`query_blocks` regroups any source's blocks so that no query is split (the
tail query of a block is carried over to the next one).
"""

import numpy as np
import scipy.sparse as sp

from rlscore._blocks import batches
from rlscore._validation import as_2d_labels, as_row_blocks
from rlscore.kernel import read_block

__all__ = ["ArraySource", "as_source", "query_blocks", "contiguous_queries"]


def contiguous_queries(qids, name="qids"):
    """qids (m,) as an array whose equal values form contiguous runs; ValueError
    otherwise (streamed ranking needs each query's rows together). O(m)."""
    q = np.asarray(qids).ravel()
    if q.size == 0:
        return q
    starts = np.concatenate([[True], q[1:] != q[:-1]])
    if np.unique(q[starts]).size != int(starts.sum()):
        raise ValueError(f"{name}: the rows of each query must be contiguous for "
                         f"streamed learning (sort the data by query first)")
    return q


class ArraySource:
    """Rows of an ndarray, ``np.memmap``, scipy sparse matrix or dask array, read one
    block at a time (each block converted to float64 and checked for NaN/inf on its
    own, so a memmap is never loaded whole).

    Notes
    -----
    O(b d) memory per block beyond X itself; O(m p) for Y.
    """

    def __init__(self, X, Y, qids=None):
        X = as_row_blocks(X)
        shape = X.shape
        if len(shape) != 2:
            raise ValueError(f"X must be 2-D, got shape {shape}")
        self.X = X
        self.m, self.d = int(shape[0]), int(shape[1])
        if self.m == 0 or self.d == 0:
            raise ValueError(f"X is empty (shape {shape})")
        self.Y = None if Y is None else as_2d_labels(Y)
        if self.Y is not None and self.Y.shape[0] != self.m:
            raise ValueError(f"X has {self.m} rows but Y has {self.Y.shape[0]}: lengths "
                             f"must match")
        self.qids = None
        if qids is not None:
            q = np.asarray(qids).ravel()
            if q.size != self.m:
                raise ValueError(f"qids has {q.size} entries but X has {self.m} rows")
            self.qids = q

    def blocks(self, size):
        for sl in batches(self.m, size):
            yield sl.start, read_block(self.X, sl)

    def rows(self, indices):
        idx = np.asarray(indices, dtype=np.intp)
        part = self.X[idx]
        if hasattr(part, "compute") and not sp.issparse(part):
            part = part.compute()
        return read_block(np.asarray(part) if not sp.issparse(part) else part,
                          slice(0, idx.size))


def as_source(X, Y=None, qids=None):
    """A source as is (anything with ``blocks`` and ``m``), else an
    :class:`ArraySource` on X, Y, qids."""
    if hasattr(X, "blocks") and hasattr(X, "m"):
        if Y is not None or qids is not None:
            raise ValueError("give Y and qids to the data source, not beside it")
        return X
    return ArraySource(X, Y, qids)


def _stack(a, b):
    if sp.issparse(a) or sp.issparse(b):
        return sp.vstack([sp.csr_matrix(a), sp.csr_matrix(b)], format="csr")
    return np.vstack([a, b])


def query_blocks(source, size):
    """``source.blocks(size)`` regrouped so that every block ends at a query boundary:
    the rows of a block's last query are carried over to the next block (so a block
    may exceed ``size`` by one query). Without qids, the source's blocks as they are.
    O(m) beyond the source's cost."""
    q = source.qids
    if q is None:
        yield from source.blocks(size)
        return
    carry, carry_start = None, 0
    for start, Xb in source.blocks(size):
        if carry is not None:
            Xb, start = _stack(carry, Xb), carry_start
        end = start + Xb.shape[0]
        cut = end
        if end < source.m:
            # the last query of the block may continue in the next one
            cut = start + int(np.searchsorted(q[start:end] == q[end - 1], True))
            cut = max(cut, start)
        if cut < end:
            carry, carry_start = Xb[cut - start:], cut
            Xb = Xb[:cut - start]
        else:
            carry = None
        if Xb.shape[0]:
            yield start, Xb
    if carry is not None and carry.shape[0]:
        yield carry_start, carry
