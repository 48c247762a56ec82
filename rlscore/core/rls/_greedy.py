"""Greedy forward feature selection for linear RLS and RankRLS with exact
leave-one-out (leave-query-out) scoring, in O(k m d l) time and O(m d) memory.

Pahikkala, Airola and Salakoski, "Speeding up greedy forward selection for regularized
least-squares", ICMLA 2010; the leave-query-out (Greedy RankRLS) variant: Pahikkala,
Airola, Naula and Salakoski, "Greedy RankRLS: a linear time algorithm for learning
sparse ranking models", SIGIR 2010 workshop on feature generation and selection.

The algorithm
-------------
Work in the dual. For the selected feature set S (plus, for RLS, the constant feature
sqrt(bias)) let ``G = (X_S X_S^T + lambda I)^{-1}`` (m x m, never formed) and
``a = G Y`` (the dual coefficients, so the LOO residuals are ``a_i / G_ii``). Keep

* the cache ``C = G X`` (one dense m-vector per feature, stored as rows of CT),
* ``P_j = x_j^T G x_j`` and ``T = X^T a`` (d x l),
* for leave-one-out ``a`` and ``dg = diag(G)``; for leave-query-out the inverses
  ``M_q = (G_qq)^{-1}`` of the per-query blocks and the leave-query-out residuals
  ``R_q = M_q a_q``.

Adding feature j is the rank-one update ``G' = G - u u^T / c`` with ``u = C_j`` and
``c = 1 + P_j``, so ``a' = a - u t_j / c`` and ``diag(G') = dg - u^2 / c``: candidate j
is scored from (u, t_j, c) in O(m l) (leave-one-out) or O(sum_q n_q^2 + m l)
(leave-query-out; Sherman-Morrison on each block), and after a selection every cache
row is updated in O(m). Both happen in one fused pass over the cache per step
(:mod:`rlscore._ext._greedy`, parallel over candidates), so a step costs about one
read of an m x d array.

Leave-query-out is exact because RankRLS with per-query centering is ridge regression
on the query-centred data (X~, Y~) and removing a query removes exactly its rows from
that problem; the held-out residual ``Y~_q - X~_q w_{-q} = (G_qq)^{-1} a_q`` is the
query's centred residual, whose squared norm is ``(1 / n_q) sum_{i<j in q}
((y_i - y_j) - (f_i - f_j))^2``.

The weights of the selected model are computed by a direct solve of the (k+1)-sized
primal system each step (O(m k + k^3)), so the final model equals RLS (QueryRankRLS)
trained on the selected columns.
"""

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from rlscore._blocks import block_elements
from rlscore._ext import _greedy
from rlscore._progress import Progress
from rlscore.core.optim import SingularRegparamError
from rlscore.core.rls._cg import as_cg_data
from rlscore.core.structure import as_query_groups
from rlscore._validation import as_2d_labels, check_bias, check_memory, check_regparam

__all__ = ["GreedyRLSState", "greedy_forward_selection", "check_subsetsize"]

_PARALLEL_ELEMENTS = 1 << 21  # a pass over a smaller cache runs on one thread: the
                              # fork/join of a parallel region costs more than it saves
                              # (and a whole time slice on an oversubscribed machine)


def check_subsetsize(subsetsize, n_features, n_candidates=None, skipped=()):
    """``subsetsize`` as an int in 0..n_candidates.

    Raises TypeError for a non-integer, ValueError for a negative value, a value larger
    than the number of features, or one larger than the number of usable (not
    skipped) features.
    """
    if isinstance(subsetsize, str):
        try:
            subsetsize = int(subsetsize)
        except ValueError:
            raise TypeError(f"subsetsize must be an integer, got {subsetsize!r}") from None
    if isinstance(subsetsize, (bool, np.bool_)) or not np.issubdtype(
            type(subsetsize), np.integer) and not (
            isinstance(subsetsize, (float, np.floating)) and float(subsetsize).is_integer()):
        raise TypeError(f"subsetsize must be an integer, got {subsetsize!r}")
    subsetsize = int(subsetsize)
    if subsetsize < 0:
        raise ValueError(f"subsetsize must be >= 0, got {subsetsize}")
    if subsetsize > n_features:
        raise ValueError(f"subsetsize={subsetsize} is larger than the number of features "
                         f"({n_features})")
    if n_candidates is not None and subsetsize > n_candidates:
        raise ValueError(
            f"subsetsize={subsetsize} is larger than the number of usable features "
            f"({n_candidates}); {len(skipped)} constant or all-zero feature(s) were "
            f"skipped: {list(skipped)[:20]}")
    return subsetsize


def _column_stats(X):
    """(column sums, column max, column min) of dense or CSR X."""
    if sp.issparse(X):
        return (np.asarray(X.sum(axis=0)).ravel(), X.max(axis=0).toarray().ravel(),
                X.min(axis=0).toarray().ravel())
    return X.sum(axis=0), X.max(axis=0), X.min(axis=0)


def _chunks(n_rows, row_len):
    # temporaries of the set-up: at most a quarter of the working-memory budget each
    step = max(1, block_elements(0.25) // max(row_len, 1))
    for r0 in range(0, n_rows, step):
        yield r0, min(n_rows, r0 + step)


class GreedyRLSState:
    """Greedy forward selection state; each :meth:`step` adds the best feature.

    Parameters
    ----------
    X : array-like or sparse (m, d)
        Never densified as a whole: the cache ``G X`` is the only m x d array, and
        columns of X are taken one at a time.
    Y : array-like (m,) or (m, l)
        Several outputs are selected for jointly (the criterion sums over them).
    regparam : float > 0
    bias : float >= 0
        RLS only: the constant feature sqrt(bias), always in the model (regularized).
    qids : sequence of length m or None
        Query ids: select by leave-query-out error of per-query RankRLS (the
        QueryRankRLS model; ``bias`` is then irrelevant and ignored). Rows of
        single-item queries carry no pairs and are dropped.

    Attributes
    ----------
    selected : list of int
        Selected features in order.
    performances : list of float
        The winning criterion after each step: the leave-one-out mean squared error
        over samples and outputs, or for queries the leave-query-out mean of the
        squared query-centred residuals (over the rows of queries with >= 2 items).
    scores : ndarray (d,)
        The last step's criterion for every feature (+inf for features selected
        earlier or skipped).
    skipped : ndarray of int
        Features never considered: all-zero columns; with a bias, constant columns
        (they duplicate the bias feature); with queries, columns constant within every
        query (zero after centering).
    n_candidates : int
        Number of features that can be selected.

    Notes
    -----
    Set-up O(m d + nnz(X) l) time and 8 m d bytes for the cache (checked against the
    available memory before allocating; with queries also 8 sum_q n_q^2). Each step
    O(m d l) (leave-one-out) or O(d sum_q n_q^2 + m d l) (leave-query-out), plus
    O(m k + k^3) for the model of the selected features.
    """

    def __init__(self, X, Y, regparam=1.0, bias=1.0, qids=None):
        X = as_cg_data(X, contiguous=False)     # a Fortran array is not copied twice
        Y = as_2d_labels(Y)
        m, d = X.shape
        if Y.shape[0] != m:
            raise ValueError(f"X has {m} rows but Y has {Y.shape[0]}: lengths must match")
        regparam = check_regparam(regparam)
        if regparam <= 0:
            raise SingularRegparamError(
                f"greedy selection at regparam={regparam!r}: the leave-one-out shortcut "
                "needs (X X^T + regparam I)^-1")
        self.regparam = regparam
        self.query_mode = qids is not None
        self.bias = 0.0 if self.query_mode else check_bias(bias)
        self.m, self.d = m, d
        self.l = Y.shape[1]
        self._X = X
        self._Xc = X.tocsc() if sp.issparse(X) else None
        if self.query_mode:
            self._setup_queries(X, Y, qids)
        else:
            self._setup_loo(X, Y)
        self.n_candidates = int(self._candidate.sum())
        work = self.d * self.n_rows * (self.l + 1)
        if self.query_mode:
            work += self.d * self._M.size
        self._threads = 0 if work >= _PARALLEL_ELEMENTS else 1
        self.selected = []
        self.performances = []
        self.scores = None
        self._pending = None          # feature selected last, not yet in the cache
        self._Phi = []                # model-space columns (bias column first)
        self._gram = None
        self._phiTY = None
        if self.bias > 0:
            self._add_model_column(np.full(self.n_rows, np.sqrt(self.bias)))

    # -- set-up ----------------------------------------------------------------------
    def _check_cache_memory(self, n_rows, extra=0):
        check_memory(8 * (self.d * n_rows + extra),
                     f"greedy selection's cache G X ({self.d} x {n_rows} doubles)")

    def _dense_transpose(self, X, rows=None):
        """X^T as a C-contiguous d x n dense array (rows of X optionally permuted)."""
        if sp.issparse(X):
            Xr = X if rows is None else X[rows]
            return np.ascontiguousarray(Xr.T.toarray())
        if rows is None:
            return np.array(X.T, order="C", copy=True)   # never a view of the caller's X
        return np.ascontiguousarray(np.take(X.T, rows, axis=1))   # one copy

    def _setup_loo(self, X, Y):
        m, lam, bias = self.m, self.regparam, self.bias
        self._check_cache_memory(m)
        self.n_rows = m
        self._perm = None
        colsum, cmax, cmin = _column_stats(X)
        zero = (cmax == 0) & (cmin == 0)
        skip = zero | (cmax == cmin) if bias > 0 else zero
        self.skipped = np.flatnonzero(skip)
        self._candidate = np.ascontiguousarray(~skip, dtype=np.uint8)
        gamma = bias / (lam + bias * m) if bias > 0 else 0.0
        CT = self._dense_transpose(X)
        # centred sum of squares without cancellation (P needs x^T G0 x)
        mean = colsum / m
        if sp.issparse(X):
            nnz = np.diff(self._Xc.indptr)
            cols = np.repeat(np.arange(self.d), nnz)
            dev = self._Xc.data - mean[cols]
            css = np.bincount(cols, weights=dev * dev, minlength=self.d)
            css += (m - nnz) * mean * mean
        else:
            css = np.empty(self.d)
            for r0, r1 in _chunks(self.d, m):
                D = CT[r0:r1] - mean[r0:r1, None]
                css[r0:r1] = np.einsum("ij,ij->i", D, D)
        if bias > 0:
            # x^T G0 x = (sum (x - xbar)^2 + lam s^2 / (m (lam + bias m))) / lam
            self._P = (css + lam * colsum * colsum / (m * (lam + bias * m))) / lam
            for r0, r1 in _chunks(self.d, m):
                CT[r0:r1] -= gamma * colsum[r0:r1, None]
        else:
            self._P = (css + m * mean * mean) / lam
        CT *= 1.0 / lam
        self._CT = CT
        self._A = np.ascontiguousarray((Y - gamma * Y.sum(axis=0, keepdims=True)) / lam)
        self._dg = np.full(m, (1.0 - gamma) / lam)
        self._T = np.ascontiguousarray(CT @ Y)           # X^T a0 = (G0 X)^T Y
        self._Ymodel = Y
        self._n_err = m * self.l

    def _setup_queries(self, X, Y, qids):
        m, lam = self.m, self.regparam
        groups = as_query_groups(qids, m)
        codes, counts = groups.codes, groups.sizes
        keep_rows = counts[codes] >= 2
        if not np.any(keep_rows):
            raise ValueError("every query has a single item: there are no pairs to rank")
        order = groups.order[keep_rows[groups.order]]
        sizes = counts[counts >= 2]
        qptr = np.zeros(sizes.size + 1, dtype=np.intp)
        np.cumsum(sizes, out=qptr[1:])
        n = int(qptr[-1])
        self.n_rows = n
        self._perm = order
        blocks = int(np.sum(sizes * sizes))
        self._check_cache_memory(n, extra=blocks)
        self._qptr = qptr
        self._mptr = np.ascontiguousarray(np.concatenate([[0], np.cumsum(sizes * sizes)[:-1]]),
                                          dtype=np.intp)
        rowq = np.repeat(np.arange(sizes.size), sizes)
        self._rowq = rowq
        CT = self._dense_transpose(X, order)
        starts = qptr[:-1]
        skip = np.ones(self.d, dtype=bool)
        ss = np.empty(self.d)
        for r0, r1 in _chunks(self.d, n):
            B = CT[r0:r1]
            qmax = np.maximum.reduceat(B, starts, axis=1)
            qmin = np.minimum.reduceat(B, starts, axis=1)
            skip[r0:r1] = np.all(qmax == qmin, axis=1)
            means = np.add.reduceat(B, starts, axis=1) / sizes[None, :]
            B -= means[:, rowq]
            ss[r0:r1] = np.einsum("ij,ij->i", B, B)
        self.skipped = np.flatnonzero(skip)
        self._candidate = np.ascontiguousarray(~skip, dtype=np.uint8)
        Yq = Y[order]
        Yc = Yq - (np.add.reduceat(Yq, starts, axis=0) / sizes[:, None])[rowq]
        Yc = np.ascontiguousarray(Yc)
        self._P = ss / lam
        CT *= 1.0 / lam
        self._CT = CT
        self._A = np.ascontiguousarray(Yc / lam)
        self._T = np.ascontiguousarray(CT @ Yc)
        self._R = Yc.copy()                           # leave-query-out residuals at S = {}
        M = np.zeros(blocks)
        for q, (o, s) in enumerate(zip(self._mptr, sizes)):
            M[o: o + s * s: s + 1] = lam                # M_q = (G_qq)^{-1} = lam I
        self._M = M
        self._Ymodel = Yc
        self._n_err = n * self.l

    # -- columns -----------------------------------------------------------------------
    def _column(self, j):
        """Feature j in the working space (dense; permuted and query-centred for
        leave-query-out)."""
        if self._Xc is not None:
            Xc = self._Xc
            v = np.zeros(self.m)
            sl = slice(Xc.indptr[j], Xc.indptr[j + 1])
            v[Xc.indices[sl]] = Xc.data[sl]
        else:
            v = np.array(self._X[:, j], dtype=np.float64)
        if self._perm is not None:
            v = v[self._perm]
            means = np.add.reduceat(v, self._qptr[:-1]) / np.diff(self._qptr)
            v = v - means[self._rowq]
        return np.ascontiguousarray(v)

    def _add_model_column(self, v):
        Phi = self._Phi
        k = len(Phi)
        g = np.empty(k + 1)
        for i, p in enumerate(Phi):
            g[i] = p @ v
        g[k] = v @ v
        gram = np.zeros((k + 1, k + 1))
        if k:
            gram[:k, :k] = self._gram
        gram[k, :] = g
        gram[:, k] = g
        self._gram = gram
        row = (v @ self._Ymodel)[None, :]
        self._phiTY = row if self._phiTY is None else np.vstack([self._phiTY, row])
        Phi.append(v)

    # -- the step ----------------------------------------------------------------------
    def run(self, k, callback=None, verbose=None):
        """Select ``k`` more features (:meth:`step` k times), reporting each selection
        (feature, criterion) through :mod:`rlscore._progress` (on stderr with
        ``verbose``; None follows :func:`rlscore._progress.verbosity`). ``callback(self)``
        runs after each selection; a true return value stops. Returns self."""
        report = Progress("greedy selection", k, verbose)
        for _ in range(k):
            feature, criterion = self.step()
            report.step(feature=int(feature), criterion=float(criterion))
            if callback is not None and callback(self):
                break
        report.close(selected=len(self.selected))
        return self

    def step(self):
        """Select the next feature: O(m d l) (leave-one-out) or O(d sum_q n_q^2 +
        m d l) (leave-query-out). Returns (feature, criterion)."""
        if len(self.selected) >= self.n_candidates:
            raise ValueError("no features left to select")
        scores = np.empty(self.d)
        b = self._pending
        if b is None:
            dummy_m = np.zeros(self.n_rows)
            vb = u = dummy_m
            inv_cb = 0.0
            tb = np.zeros(self.l)
            update = False
        else:
            vb = self._pending_column
            u = self._CT[b].copy()
            tb = self._T[b].copy()
            cb = 1.0 + self._P[b]
            inv_cb = 1.0 / cb
            update = True
            # a' = a - u t_b / c_b, then (LOO) diag(G') or (LQO) the blocks
            self._A -= np.outer(u, tb * inv_cb)
            if self.query_mode:
                _greedy.lqo_update(u, cb, tb, self._qptr, self._M, self._mptr, self._R,
                                   self._threads if self._M.size >= _PARALLEL_ELEMENTS
                                   else 1)
            else:
                self._dg -= u * u * inv_cb
        if self.query_mode:
            _greedy.lqo_pass(self._CT, vb, u, inv_cb, update, self._T, tb, self._P,
                             self._qptr, self._M, self._mptr, self._R, self._candidate,
                             scores, self._threads)
        else:
            _greedy.loo_pass(self._CT, vb, u, inv_cb, update, self._T, tb, self._P,
                             self._A, self._dg, self._candidate, scores, self._threads)
        scores = np.where(np.isnan(scores), np.inf, scores)
        j = int(np.argmin(scores))
        if not np.isfinite(scores[j]):
            raise FloatingPointError(
                "greedy selection: no candidate has a finite criterion (the "
                "leave-one-out shortcut broke down; use a larger regparam)")
        scores /= self._n_err
        self.scores = scores
        self._candidate[j] = 0
        self._pending = j
        self._pending_column = self._column(j)
        self._add_model_column(self._pending_column)
        self.selected.append(j)
        self.performances.append(float(scores[j]))
        return j, float(scores[j])

    # -- the model of the selected features ----------------------------------------------
    def weights(self):
        """(W (d, l), b (l,)) of the RLS (QueryRankRLS) model on the selected features:
        O(k^3 + k l)."""
        W = np.zeros((self.d, self.l))
        b = np.zeros(self.l)
        if not self._Phi:
            return W, b
        S = self._gram.copy()
        S.flat[:: S.shape[0] + 1] += self.regparam
        w = la.solve(S, self._phiTY, assume_a="pos", check_finite=False)
        off = 1 if self.bias > 0 else 0
        if off:
            b = np.sqrt(self.bias) * w[0]
        W[self.selected] = w[off:]
        return W, b

    def loo_residuals(self):
        """Current leave-one-out (leave-query-out: query-centred) residuals Y - P of
        the selected model, (n_rows, l), in the working row order. O(m l)."""
        if self._pending is not None:
            # bring a (and the blocks) up to date with the last selection, lazily
            b = self._pending
            u = self._CT[b]
            tb = self._T[b]
            cb = 1.0 + self._P[b]
            A = self._A - np.outer(u, tb / cb)
            if self.query_mode:
                R = self._R.copy()
                M = self._M.copy()
                _greedy.lqo_update(np.ascontiguousarray(u), cb, np.ascontiguousarray(tb),
                                   self._qptr, M, self._mptr, R)
                return R
            return A / (self._dg - u * u / cb)[:, None]
        if self.query_mode:
            return self._R.copy()
        return self._A / self._dg[:, None]


def greedy_forward_selection(X, Y, subsetsize, regparam=1.0, bias=1.0, qids=None,
                             callback=None, warn_skipped=True):
    """Greedy forward selection of ``subsetsize`` features for linear RLS (criterion:
    leave-one-out squared error) or, with ``qids``, for QueryRankRLS (criterion:
    leave-query-out squared error of the query-centred predictions).

    Parameters
    ----------
    X, Y, regparam, bias, qids : see :class:`GreedyRLSState`.
    subsetsize : int, 0 <= subsetsize <= number of usable features
    callback : callable or None
        ``callback(state)`` after each selection; a true return value stops.
    warn_skipped : bool
        Emit a UserWarning naming the skipped (constant or all-zero) features.

    Returns
    -------
    GreedyRLSState

    Notes
    -----
    O(k m d l) time (leave-query-out: O(k d (sum_q n_q^2 + m l))) and O(m d) memory for
    k = subsetsize; ties go to the lowest feature index.

    The progress (one step per selection: the feature and the criterion) shows on
    stderr inside :func:`rlscore._progress.verbosity` (the learners' ``verbose``;
    :meth:`GreedyRLSState.run` takes ``verbose`` itself) and is logged either way
    (logger ``"rlscore"``, DEBUG).
    """
    state = GreedyRLSState(X, Y, regparam, bias, qids)
    if warn_skipped and state.skipped.size:
        what = "constant within every query" if state.query_mode else (
            "constant or all-zero" if state.bias > 0 else "all-zero")
        warnings.warn(
            f"{state.skipped.size} {what} feature(s) cannot improve the model and are "
            f"skipped: {state.skipped[:20].tolist()}"
            f"{' ...' if state.skipped.size > 20 else ''}", UserWarning, stacklevel=3)
    k = check_subsetsize(subsetsize, state.d, state.n_candidates, state.skipped)
    if k:
        state.run(k, callback)
    return state
