"""Query structure: the one home of query ids, groups and folds by query.

Every layer that sees query ids (``qids`` in :mod:`rlscore.learner`, ``qid`` or
``groups`` in :mod:`rlscore.estimators`, the ``qid:`` column of a LETOR file in the CLI,
the measures' ``qids``) builds one :class:`QueryGroups` from them and passes it down.
Codes, sizes, member lists, folds of whole queries, per-query sums, means and centring
are computed here and nowhere else.

It sits at the bottom of the package (beside :mod:`rlscore._validation`) so that the
measures, which lie below :mod:`rlscore.core`, can use it; :mod:`rlscore.core.structure`
is its public name.
"""

import numpy as np
import scipy.sparse as sp

from rlscore._blocks import block_elements
from rlscore._validation import as_index_array

__all__ = ["QueryGroups", "as_query_groups"]



def _encode(qids, m, name):
    """Query ids -> (codes 0..n-1 in order of first appearance, n, ids in code order)."""
    if sp.issparse(qids):
        raise TypeError(f"{name} must be a 1-D sequence of query ids, got a sparse matrix")
    if isinstance(qids, np.ndarray) or hasattr(qids, "__array__"):
        arr = np.asarray(qids)
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.ravel()
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    elif isinstance(qids, (str, bytes)) or not hasattr(qids, "__len__"):
        raise TypeError(f"{name} must be a sequence of query ids, got {type(qids).__name__}")
    else:
        arr = None
    n = len(qids) if arr is None else arr.shape[0]
    if m is not None and n != m:
        raise ValueError(f"{name} has length {n}, but there are {m} examples")
    if n == 0:
        raise ValueError(f"{name} is empty")
    if arr is not None and arr.dtype != object and np.issubdtype(arr.dtype, np.number) \
            and not np.iscomplexobj(arr) and not np.issubdtype(arr.dtype, np.bool_):
        if np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} contains NaN or infinity")
            if np.any(arr != np.round(arr)):
                raise ValueError(f"{name} must be integer (or hashable) ids; got "
                                 "non-integral floats")
        if n > 1:
            # the usual layout (LETOR files, sorted ids): each query one contiguous run,
            # runs in increasing id order -- codes by one pass, no sort
            change = arr[1:] != arr[:-1]
            starts = np.concatenate(([0], np.flatnonzero(change) + 1))
            ids = arr[starts]
            if ids.shape[0] == 1 or np.all(ids[1:] > ids[:-1]):
                codes = np.zeros(n, dtype=np.intp)
                np.cumsum(change, out=codes[1:])
                return codes, int(ids.shape[0]), ids
        uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(uniq.shape[0], dtype=np.intp)
        rank[order] = np.arange(uniq.shape[0])
        return (np.ascontiguousarray(rank[inverse.ravel()]), int(uniq.shape[0]),
                uniq[order])
    values = arr.tolist() if arr is not None else list(qids)
    table = {}
    codes = np.empty(n, dtype=np.intp)
    for i, q in enumerate(values):
        if isinstance(q, float):
            if not np.isfinite(q):
                raise ValueError(f"{name} contains NaN or infinity")
            if q != round(q):
                raise ValueError(f"{name} must be integer (or hashable) ids; got "
                                 "non-integral floats")
        try:
            codes[i] = table.setdefault(q, len(table))
        except TypeError:
            raise TypeError(f"{name} must hold hashable ids; element {i} is an unhashable "
                            f"{type(q).__name__}") from None
    ids = np.empty(len(table), dtype=object)
    ids[:] = list(table)
    return codes, len(table), ids


class QueryGroups:
    """The query structure of m rows: which rows belong to which query.

    Build it once per data set (:meth:`from_qids`, :meth:`single`) and pass it down;
    every per-query computation of the library goes through it: codes and sizes, member
    lists, folds of whole queries, per-query sums and means, the query-centring
    projection P = I - sum_q 1_q 1_q^T / n_q of RankRLS and the orthonormal basis of its
    range (one Householder reflection per query) that the RankRLS solvers rotate into.

    Attributes
    ----------
    codes : ndarray of intp, shape (m,)
        Query code of each row, 0 .. n_groups-1 in order of first appearance of the id.
    n_groups : int
    ids : ndarray, shape (n_groups,)
        The original id of each code.
    sizes : ndarray of intp, shape (n_groups,)
        Rows per query.
    order : ndarray of intp, shape (m,)
        Stable sort of the rows by code: ``order[starts[g]:starts[g + 1]]`` are the rows
        of query g in their original order.
    starts : ndarray of intp, shape (n_groups + 1,)

    Notes
    -----
    Construction is O(m log m) for numeric ids and O(m) expected for other hashable ids;
    every method below is O(m) (O(m c) for m x c arrays) unless it says otherwise.
    """

    __slots__ = ("codes", "n_groups", "ids", "sizes", "order", "starts", "_cache")

    def __init__(self, codes, n_groups=None, ids=None):
        codes = np.ascontiguousarray(codes, dtype=np.intp)
        if codes.ndim != 1:
            raise ValueError(f"codes must be 1-D, got shape {codes.shape}")
        if n_groups is None:
            n_groups = int(codes.max()) + 1 if codes.size else 0
        if codes.size and (codes.min() < 0 or codes.max() >= n_groups):
            raise ValueError(f"codes must lie in 0..{n_groups - 1}")
        self.codes = codes
        self.n_groups = int(n_groups)
        self.ids = np.arange(self.n_groups) if ids is None else ids
        self.sizes = np.bincount(codes, minlength=self.n_groups).astype(np.intp)
        self.order = np.argsort(codes, kind="stable").astype(np.intp, copy=False)
        self.starts = np.zeros(self.n_groups + 1, dtype=np.intp)
        np.cumsum(self.sizes, out=self.starts[1:])
        self._cache = {}

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__ if k != "_cache"}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._cache = {}

    # --- construction ---------------------------------------------------------------

    @classmethod
    def from_qids(cls, qids, m=None, name="qids"):
        """Groups from one query id per row.

        Parameters
        ----------
        qids : sequence of hashable, length m
            Integers, integral floats, strings or other hashable ids; rows are grouped
            by equal value, not by contiguity.
        m : int, optional
            The number of rows the ids must cover.
        name : str
            The argument's name in error messages (``qids``, ``qid``, ``groups``).

        Raises
        ------
        ValueError
            Wrong length, empty, not 1-D, NaN/inf or non-integral float ids.
        TypeError
            Unhashable ids, a sparse matrix, or not a sequence.
        """
        codes, n, ids = _encode(qids, m, name)
        return cls(codes, n, ids)

    @classmethod
    def single(cls, m):
        """One query holding all m rows (a global ranking)."""
        return cls(np.zeros(int(m), dtype=np.intp), 1 if m else 0)

    @classmethod
    def singletons(cls, m):
        """Every row its own query (folds of single rows; no pairs)."""
        return cls(np.arange(int(m), dtype=np.intp), int(m))

    @property
    def m(self):
        """Number of rows."""
        return self.codes.shape[0]

    @property
    def is_single(self):
        """True when one query holds every row."""
        return self.n_groups == 1

    def require_several(self, what="leave-query-out"):
        """Raise ValueError when there is one query: holding it out leaves nothing to
        train on, so ``what`` is undefined. O(1)."""
        if self.n_groups < 2:
            raise ValueError(f"{what} needs at least 2 queries, got {self.n_groups}: "
                             f"holding out the only query leaves no training data")

    def __len__(self):
        return self.codes.shape[0]

    def __repr__(self):
        return f"QueryGroups(m={self.m}, n_groups={self.n_groups})"

    def _cached(self, key, make):
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = make()
        return v

    # --- members --------------------------------------------------------------------

    def members(self, g):
        """Row indices of query ``g`` in increasing order."""
        return self.order[self.starts[g]:self.starts[g + 1]]

    def split(self):
        """List of the row-index arrays of every query, in code order (computed once;
        do not modify the arrays)."""
        return self._cached("split", lambda: np.split(self.order, self.starts[1:-1]))

    def member_lists(self):
        """The row indices of every query as Python lists of int, in code order
        (RLScore's ``qidlist``; computed once, do not modify). O(m)."""
        def make():
            o = self.order.tolist()
            s = self.starts.tolist()
            return [o[a:b] for a, b in zip(s[:-1], s[1:])]
        return self._cached("member_lists", make)

    def per_query(self, values):
        """``values`` (m, ...) split into the rows of each query: a list in code order
        of views of one copy ``values[order]`` (query g's rows in their original order).
        O(m c) for the copy plus O(n_groups) slices (no per-query fancy indexing)."""
        v = np.asarray(values)
        if v.shape[:1] != (self.m,):
            raise ValueError(f"values must have {self.m} rows (one per example), got "
                             f"shape {v.shape}")
        v = v[self.order]
        s = self.starts.tolist()
        return [v[a:b] for a, b in zip(s[:-1], s[1:])]

    def _rows(self, rows, allow_empty):
        """``rows`` checked by :func:`rlscore._validation.as_index_array`: distinct
        row indices in 0..m-1 (or a boolean mask of length m)."""
        return as_index_array(rows, self.codes.size, name="rows", mask=True,
                              allow_empty=allow_empty)

    def subset(self, rows):
        """The groups of ``rows`` (codes renumbered by first appearance within them).

        Raises
        ------
        ValueError, IndexError
            ``rows`` empty, not 1-D integers, repeated or outside 0..m-1.
        """
        return QueryGroups.from_qids(self.codes[self._rows(rows, False)])

    def whole(self, rows):
        """True when ``rows`` hold every member of each query they touch (an empty
        ``rows`` touches none).

        Raises
        ------
        ValueError, IndexError
            ``rows`` not 1-D integers, repeated or outside 0..m-1.
        """
        rows = self._rows(rows, True)
        touched = np.bincount(self.codes[rows], minlength=self.n_groups)
        hit = touched > 0
        return bool(np.all(touched[hit] == self.sizes[hit]))

    # --- folds ----------------------------------------------------------------------

    def folds(self, n_folds, seed=0):
        """``n_folds`` folds of whole queries, the queries assigned at random.

        Queries are permuted with ``numpy.random.default_rng(seed)`` and dealt to the
        folds in turn, so fold sizes differ by at most one query.

        Returns
        -------
        list of ndarray of intp
            Row indices of each fold, increasing.

        Raises
        ------
        ValueError
            ``n_folds`` < 2 or more than the number of queries.
        """
        n_folds = int(n_folds)
        if n_folds < 2:
            raise ValueError(f"the number of folds must be at least 2, got {n_folds}")
        if n_folds > self.n_groups:
            raise ValueError(f"{n_folds} folds of whole queries need at least {n_folds} "
                             f"queries; there are {self.n_groups}")
        perm = np.random.default_rng(seed).permutation(self.n_groups)
        fold_of_query = np.empty(self.n_groups, dtype=np.intp)
        fold_of_query[perm] = np.arange(self.n_groups) % n_folds
        f = fold_of_query[self.codes]
        return [np.flatnonzero(f == k) for k in range(n_folds)]

    # --- per-query reductions -------------------------------------------------------

    def indicator(self):
        """The sparse (n_groups, m) query-indicator matrix D^T (CSR), built once."""
        def make():
            m = self.m
            return sp.csr_matrix((np.ones(m), (self.codes, np.arange(m))),
                                 shape=(self.n_groups, m))
        return self._cached("indicator", make)

    def _sizes_f(self):
        return self._cached("sizes_f", lambda: self.sizes.astype(np.float64))

    def sum(self, values):
        """Per-query sums of ``values`` (shape (m,) or (m, c); dense or sparse) ->
        (n_groups,) or (n_groups, c) (sparse for sparse input)."""
        if sp.issparse(values):
            if values.shape[0] != self.m:
                raise ValueError(f"values has {values.shape[0]} rows, groups cover "
                                 f"{self.m}")
            return self.indicator() @ values
        v = np.asarray(values, dtype=np.float64)
        if v.shape[0] != self.m:
            raise ValueError(f"values has {v.shape[0]} rows, groups cover {self.m}")
        if v.ndim == 1:
            return np.bincount(self.codes, weights=v, minlength=self.n_groups)
        if self.is_single:
            return v.sum(axis=0, keepdims=True)
        return np.asarray(self.indicator() @ v.reshape(self.m, -1)).reshape(
            (self.n_groups,) + v.shape[1:])

    def mean(self, values):
        """Per-query means of ``values`` (dense)."""
        s = self.sum(values)
        if sp.issparse(s):
            s = s.toarray()
        n = self._sizes_f()
        return s / n.reshape((-1,) + (1,) * (s.ndim - 1))

    def expand(self, per_query):
        """Rows of the per-query array ``per_query`` (n_groups, ...) repeated to the rows
        of their queries (m, ...); with a single query the (1, ...) array itself, which
        broadcasts."""
        B = np.asarray(per_query)
        if self.is_single and B.ndim > 1:
            return B
        return B[self.codes]

    def center(self, values):
        """``values`` minus its query mean, row by row: P v with
        P = I - sum_q 1_q 1_q^T / n_q (the query-centring projection of RankRLS)."""
        v = np.asarray(values, dtype=np.float64)
        if v.ndim > 1:
            return v - self.expand(self.mean(v))
        return v - self.mean(v)[self.codes]

    def rank_order(self, scores):
        """The rows ranked inside each query: queries in code order (of first
        appearance), each query's rows by decreasing score, tied scores in row order
        (a stable sort, the LETOR scripts' and the gradient-boosting rankers' rule).
        The one ranking of the IR measures and of ``rlscore predict --format trec``.
        O(m log m)."""
        return np.lexsort((-np.asarray(scores, dtype=np.float64), self.codes))

    #: The per-query feature normalizations of :meth:`normalize`.
    NORMALIZATIONS = ("linear", "zscore", "sum")

    def normalize(self, X, method="linear"):
        """Each feature normalized within each query (LETOR's QueryLevelNorm; RankLib's
        ``-norm``), feature by feature:

        * ``"linear"`` (LETOR's QueryLevelNorm, RankLib ``linear``): (x - min) /
          (max - min) over the query's rows, 0 where the feature is constant in the
          query;
        * ``"zscore"`` (RankLib ``zscore``): (x - mean) / std over the query's rows
          (population std, ddof = 0), 0 where the feature is constant in the query;
        * ``"sum"`` (RankLib ``sum``): x / sum abs(x) over the query's rows, 0 where that
          sum is 0.

        Parameters
        ----------
        X : (m, d) dense or scipy sparse (densified: the result of "linear" and
            "zscore" is dense in general)
        method : "linear", "zscore" or "sum"

        Returns
        -------
        ndarray (m, d) of float64. O(m d) time and memory.
        """
        if method not in self.NORMALIZATIONS:
            raise ValueError(f"method must be one of {', '.join(self.NORMALIZATIONS)}, "
                             f"got {method!r}")
        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != self.m:
            raise ValueError(f"X must be a matrix with one row per grouped row ({self.m}),"
                             f" got shape {X.shape}")
        if self.m == 0:
            return X.copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            if method == "sum":
                scale = self.expand(self.sum(np.abs(X)))
                out = X / scale
                out[np.broadcast_to(scale == 0, out.shape)] = 0.0
                return out
            if method == "zscore":
                means = self.expand(self.mean(X))
                centred = X - means
                scale = np.sqrt(self.expand(self.mean(centred * centred)))
                # a feature constant in its query: its std is round-off of its mean
                flat = scale <= 1e-13 * np.abs(means)
            else:
                Xs, heads = X[self.order], self.starts[:-1]
                lo = self.expand(np.minimum.reduceat(Xs, heads, axis=0))
                centred = X - lo
                scale = self.expand(np.maximum.reduceat(Xs, heads, axis=0)) - lo
                flat = scale == 0
            out = centred / np.where(flat, 1.0, scale)
            out[np.broadcast_to(flat, out.shape)] = 0.0
            return out

    # --- an orthonormal basis of range(P) ------------------------------------------
    #
    # H = blockdiag(I - 2 v_q v_q^T / v_q^T v_q), v_q = 1_q + sqrt(n_q) e_first(q), maps
    # 1_q to -sqrt(n_q) e_first(q); the rows of H other than the first of each query are
    # an orthonormal basis B of range(P). RankRLS solves in these coordinates.

    @property
    def first(self):
        """The first row of each query (n_groups,)."""
        return self._cached("first", lambda: np.ascontiguousarray(
            self.order[self.starts[:-1]]))

    @property
    def rest(self):
        """The rows that are not the first of their query (m - n_groups,)."""
        def make():
            mask = np.ones(self.m, dtype=bool)
            mask[self.first] = False
            return np.flatnonzero(mask)
        return self._cached("rest", make)

    def reflect_rows(self, M):
        """M <- H M in place for M of shape (m, c); returns M. O(m c)."""
        sqrt_n = self._cached("sqrt_n", lambda: np.sqrt(self._sizes_f()))
        coef = self.sum(M)
        coef += sqrt_n[:, None] * M[self.first]
        coef /= (self._sizes_f() + sqrt_n)[:, None]
        if self.is_single:
            M -= coef
        else:
            step = max(1, block_elements() // max(1, M.shape[1]))
            for i0 in range(0, self.m, step):
                M[i0:i0 + step] -= coef[self.codes[i0:i0 + step]]
        M[self.first] -= sqrt_n[:, None] * coef
        return M

    def basis(self, Z):
        """B Z (m, c) for Z of shape (m - n_groups, c)."""
        out = np.zeros((self.m, Z.shape[1]))
        out[self.rest] = Z
        return self.reflect_rows(out)

    def rotate_kernel(self, K):
        """H K H for a symmetric m x m K, with the rows and columns ``first`` (the
        directions 1_q) decoupled: zero off the diagonal, 1 on it. The remaining block
        is B^T K B. K is overwritten (and returned) when possible. O(m^2)."""
        first = self.first
        if self.is_single:
            # H K H = K - v g^T - g v^T, v = 1 + sqrt(m) e_0, one blocked pass
            m = self.m
            sq = np.sqrt(float(m))
            beta = 1.0 / (m + sq)                      # 2 / v^T v
            k = K.sum(axis=1) + sq * K[:, 0]           # K v
            g = beta * k - 0.5 * beta * beta * (k.sum() + sq * k[0]) * \
                np.concatenate([[1.0 + sq], np.ones(m - 1)])
            step = max(1, block_elements() // max(1, m))
            for i0 in range(0, m, step):
                blk = K[i0:i0 + step]
                blk -= g[i0:i0 + step, None]
                blk -= g[None, :]
            K[0, :] -= sq * g
            K[:, 0] -= sq * g
        else:
            self.reflect_rows(K)
            K = np.ascontiguousarray(K.T)
            self.reflect_rows(K)
        K[first, :] = 0.0
        K[:, first] = 0.0
        K[first, first] = 1.0
        return K

    def unrotate_symmetric(self, M):
        """B G B^T for a symmetric G given embedded in the m x m M (the rows and
        columns ``first`` are ignored; M is overwritten). O(m^2)."""
        M[self.first, :] = 0.0
        M[:, self.first] = 0.0
        self.reflect_rows(M)
        M = np.ascontiguousarray(M.T)
        self.reflect_rows(M)
        return M


def as_query_groups(qids, m=None, name="qids"):
    """A :class:`QueryGroups` from ids, or the given one checked against m.

    ``None`` gives ``None``, so callers can write ``groups = as_query_groups(qids, m)``
    for an optional argument.
    """
    if qids is None:
        return None
    if isinstance(qids, QueryGroups):
        if m is not None and qids.m != m:
            raise ValueError(f"{name} cover {qids.m} rows, but there are {m} examples")
        return qids
    return QueryGroups.from_qids(qids, m, name)
