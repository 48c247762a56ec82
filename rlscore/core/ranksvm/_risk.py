"""The pairwise ranking risks of the linear RankSVM: the hinge and squared-hinge losses
over all pairs (or the pairs within each query) of scored data, with their
subgradients, gradients and Hessian-vector products computed by the compiled counting
engines in O(m log m + nnz) per evaluation (see :mod:`rlscore.core.ranksvm` for the
objectives, the normalizations and the solvers that use these oracles).
"""

import numpy as np
import scipy.sparse as sp

from rlscore._ext._ranksvm import PreferencePairs, RankingPairs
from rlscore._validation import (as_data_matrix, as_index_array, check_positive_int,
                                 check_utilities)
from rlscore.core.structure import as_query_groups

__all__ = ["NORMALIZATIONS", "LOSSES", "check_utilities", "pair_structure", "pair_weights",
           "RankingRisk", "SquaredRankingRisk", "PairRisk"]

#: how the pairwise loss is averaged: over all pairs, per query, or summed
NORMALIZATIONS = ("pairs", "query", "none")
#: the pairwise losses of RankSVM
LOSSES = ("hinge", "squared_hinge")


def _check_normalize(normalize):
    if normalize not in NORMALIZATIONS:
        raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got {normalize!r}")
    return normalize


def _as_features(X):
    """Dense C-contiguous float64 or CSR float64, checked for NaN/inf. Any sparse
    format is converted once here."""
    X = as_data_matrix(X, name="X")
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        return X
    return np.ascontiguousarray(X, dtype=np.float64)


def pair_structure(y, qids, m):
    """(codes, n_queries, RankingPairs); ValueError when there is no pair."""
    groups = as_query_groups(qids, m)
    if groups is None:
        codes, nq = None, 1
    else:
        codes, nq = groups.codes, groups.n_groups
    pairs = RankingPairs(y, codes, nq)
    if pairs.n_pairs == 0:
        if qids is None:
            raise ValueError("there are no pairs to rank: all utilities are equal")
        raise ValueError("there are no pairs to rank: the utilities are equal within "
                         "every query (or every query holds one example)")
    return codes, nq, pairs


def pair_weights(query_pairs, normalize, n_pairs=None, n_ranked_queries=None):
    """Per-query pair weights s_q of the normalization ``normalize`` (module docstring).

    ``n_pairs`` (N) and ``n_ranked_queries`` (Q', the queries with pairs) default to
    those of ``query_pairs``; pass the totals of the whole data set when
    ``query_pairs`` covers only part of it (a partition of distributed data). O(n_q).
    """
    qp = np.asarray(query_pairs).astype(np.float64)
    if normalize == "pairs":
        n = int(np.asarray(query_pairs).sum()) if n_pairs is None else n_pairs
        return np.full(qp.shape[0], 1.0 / n)
    if normalize == "query":
        has = qp > 0
        nr = np.count_nonzero(has) if n_ranked_queries is None else n_ranked_queries
        return np.where(has, 1.0 / (nr * np.maximum(qp, 1)), 0.0)
    return np.ones(qp.shape[0])


class _LinearPairRisk:
    """The risk of a linear model as a function of its predictions p = X w: the
    subclasses give ``_loss(p, coef)``, the loss at p, writing its (sub)gradient with
    respect to p into ``coef``; the gradient in w is X^T coef."""

    @property
    def m(self):
        return self.X.shape[0]

    def loss_from_predictions(self, p):
        """(loss, coef) for predictions p; coef is the gradient of the loss with respect
        to p (a fresh array)."""
        coef = np.empty(self.m)
        return self._loss(np.ascontiguousarray(p, dtype=np.float64), coef), coef

    def _predict(self, w):
        return np.ascontiguousarray(np.asarray(self.X @ w, dtype=np.float64).ravel())

    def __call__(self, w):
        """(R(w), (sub)gradient): the loss pass plus two matrix-vector products."""
        loss = self._loss(self._predict(w), self._coef)
        return loss, np.asarray(self.X.T @ self._coef).ravel()

    def value(self, w):
        """R(w) alone."""
        return self._loss(self._predict(w), self._coef)


class RankingRisk(_LinearPairRisk):
    """The normalized pairwise hinge risk of scored (query-structured) data as a bundle
    method oracle.

    Parameters
    ----------
    X : array-like or sparse (m, d); converted once (dense C order or CSR).
    y : array-like (m,) utilities.
    qids : sequence (m,) of query ids, a :class:`rlscore.core.structure.QueryGroups`, or
        None for one global ranking.
    normalize : "pairs", "query" or "none" (see the module docstring).
    n_threads : int, default 1; threads of the counting pass. More than one runs the two
        sweeps (and different queries) in parallel with OpenMP: it pays off on an idle
        multi-core machine for m >~ 10^5, and costs time when the cores are busy.
    engine : "fenwick" (default) or "rbtree", the order-statistic structure of the
        counting pass (see :class:`rlscore._ext._ranksvm.RankingPairs`).

    Attributes
    ----------
    n_pairs : int, number of pairs (u, l), y_u > y_l, in the same query.
    query_pairs : ndarray (n_queries,), pairs per query.
    scale : float, R(0) = sum_q s_q N_q (1 for the normalized losses, N for "none").

    Raises
    ------
    ValueError
        No pairs (all utilities equal within every query), bad shapes or values.

    Notes
    -----
    Construction O(nnz + m log m) (one sort by (query, utility)). ``__call__`` costs
    O(m log m + nnz): the two matrix-vector products and the counting pass.
    """

    def __init__(self, X, y, qids=None, normalize="pairs", n_threads=1, engine="fenwick"):
        self.X = _as_features(X)
        m = self.X.shape[0]
        self.y = check_utilities(y, m)
        self.normalize = _check_normalize(normalize)
        codes, nq, self.pairs = pair_structure(self.y, qids, m)
        self.qcodes = codes
        self.n_queries = nq
        self.n_pairs = int(self.pairs.n_pairs)
        self.query_pairs = np.asarray(self.pairs.query_pairs)
        self.weights = pair_weights(self.query_pairs, self.normalize)
        self.scale = float(self.weights @ self.query_pairs.astype(np.float64))
        self.n_threads = check_positive_int(n_threads, "n_threads")
        RankingPairs._engine(engine)
        self.engine = engine
        self.dim = self.X.shape[1]
        self._coef = np.empty(m)

    def _loss(self, p, coef):
        """The hinge risk at predictions p, its gradient in ``coef``. O(m log m)."""
        return self.pairs.hinge(p, self.weights, coef, self.n_threads, self.engine)

    def counts(self, p):
        """The counts c, d (int64 arrays) for predictions p. O(m log m)."""
        return self.pairs.counts(p, self.n_threads, self.engine)

    def subsample(self, fraction, seed=0):
        """The same risk on a random subset: ``fraction`` of the examples (of the
        queries for query-structured data). Returns (risk, factor), factor being the
        scaling of regparam that makes the subset's objective estimate this one (N_sub /
        N for ``normalize="none"``, else 1), or None when the subset has no pairs.
        O(m + nnz of the subset)."""
        rng = np.random.default_rng(seed)
        if self.qcodes is None:
            k = max(2, int(round(fraction * self.m)))
            idx = np.sort(rng.choice(self.m, k, replace=False))
            qids = None
        else:
            k = max(1, int(round(fraction * self.n_queries)))
            chosen = np.zeros(self.n_queries, dtype=bool)
            chosen[rng.choice(self.n_queries, k, replace=False)] = True
            idx = np.flatnonzero(chosen[self.qcodes])
            qids = self.qcodes[idx]
        try:
            sub = type(self)(self.X[idx], self.y[idx], qids, normalize=self.normalize,
                             n_threads=self.n_threads, engine=self.engine)
        except ValueError:
            return None
        factor = sub.n_pairs / self.n_pairs if self.normalize == "none" else 1.0
        return sub, factor


class SquaredRankingRisk(RankingRisk):
    """The normalized squared pairwise hinge risk of scored (query-structured) data,

        R(w) = sum_q s_q sum_{(u, l) in q, y_u > y_l} max(0, 1 - w^T x_u + w^T x_l)^2,

    with the weights s_q of ``normalize`` (see :class:`RankingRisk`, same parameters;
    ``engine`` is accepted for symmetry, the sums need the Fenwick sweeps). Callable as
    a bundle-method oracle (R and its gradient), and :meth:`newton_oracle` gives the
    trust-region Newton oracle of J(w) = regparam / 2 ||w||^2 + R(w).

    Notes
    -----
    ``__call__`` costs O(m log m + nnz): X w, one sort and two sweeps per query with a
    bit-packed Fenwick tree (counts) and a Fenwick tree of doubles (sums of the
    partners' predictions), X^T coef. A Hessian-vector product costs O(m log m + nnz)
    without sorting.
    """

    def _loss(self, p, coef):
        return self.pairs.squared_hinge(p, self.weights, coef, self.n_threads)[0]

    def counts(self, p):
        return self.pairs.counts(p, self.n_threads)

    def evaluate_predictions(self, p):
        """(loss, coef, active) at predictions p: coef is the gradient with respect to
        p and ``active`` the :class:`~rlscore._ext._sqhinge.SquaredHingeActiveSet`."""
        coef = np.empty(self.m)
        loss, active = self.pairs.squared_hinge(p, self.weights, coef, self.n_threads)
        return loss, coef, active

    def zero_gradient(self):
        """The gradient of R at w = 0 in closed form: every pair is active with r = 1,
        so d R / d p_i = 2 s_q (#{higher in the query} - #{lower}). O(m + nnz)."""
        pr = self.pairs
        order = np.asarray(pr.order)
        run_ptr = np.asarray(pr.run_ptr)
        run = np.repeat(np.arange(run_ptr.size - 1), np.diff(run_ptr))
        qs = np.asarray(pr.qcodes)[order]
        qstart = np.concatenate(([0], np.cumsum(pr.query_sizes)))
        lower = run_ptr[run] - qstart[qs]
        higher = qstart[qs + 1] - run_ptr[run + 1]
        coef = np.empty(self.m)
        coef[order] = 2.0 * self.weights[qs] * (higher - lower)
        return np.asarray(self.X.T @ coef).ravel()

    def newton_oracle(self, regparam):
        """The :func:`rlscore.core.optim.tron` oracle of
        J(w) = regparam / 2 ||w||^2 + R(w)."""
        return _SquaredHingeObjective(self, regparam)


class _NewtonPoint:
    __slots__ = ("w", "p", "loss", "coef", "active")

    def __init__(self, w, p, loss, coef, active):
        self.w, self.p, self.loss, self.coef, self.active = w, p, loss, coef, active


class _SquaredHingeObjective:
    """TRON oracle of J(w) = regparam / 2 ||w||^2 + R(w) for a SquaredRankingRisk.

    evaluate: X w (skipped when the predictions are passed), the sweeps; gradient:
    regparam w + X^T coef; hessian_vector: regparam v + X^T (2 s Lap (X v)) with the
    active set of the point (the generalized Hessian of Lee & Lin 2014), returning X v
    too, so that the predictions of the next iterate w + s = w + sum alpha_k d_k are
    p + sum alpha_k X d_k (``advance``) and cost no product with X.
    """

    def __init__(self, risk, regparam):
        self.risk = risk
        self.regparam = float(regparam)
        self.X = risk.X

    def evaluate(self, w, p=None):
        if p is None:
            p = np.asarray(self.X @ w).ravel()
        loss, coef, active = self.risk.evaluate_predictions(p)
        f = 0.5 * self.regparam * float(w @ w) + loss
        return f, _NewtonPoint(w, p, loss, coef, active)

    def gradient(self, point):
        return self.regparam * point.w + np.asarray(self.X.T @ point.coef).ravel()

    def hessian_vector(self, point, v):
        z = np.asarray(self.X @ v).ravel()
        u = point.active.hessian_coef(z, None, self.risk.n_threads)
        return self.regparam * v + np.asarray(self.X.T @ u).ravel(), z

    def advance(self, point, zs):
        if zs is None:
            return None
        return point.p + zs


class PairRisk(_LinearPairRisk):
    """The pairwise hinge risk over explicit preference pairs.

    R(w) = s sum_k v_k max(0, 1 - w^T x_{start_k} + w^T x_{end_k}), with pair weights v
    (default 1) and s = 1 / sum(v) when ``normalize`` (default) else 1.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    starts, ends : int sequences (l,): example starts[k] is preferred over ends[k]
    weights : positive floats (l,), optional
    normalize : bool, default True

    Notes
    -----
    Construction O(nnz + l); ``__call__`` O(nnz + l).
    """

    def __init__(self, X, starts, ends, weights=None, normalize=True):
        self.X = _as_features(X)
        m = self.X.shape[0]
        s = as_index_array(starts, m, name="pairs_start_inds", unique=False)
        e = as_index_array(ends, m, name="pairs_end_inds", unique=False)
        if s.shape != e.shape:
            raise ValueError(f"pairs_start_inds and pairs_end_inds have different lengths "
                             f"{s.shape[0]} and {e.shape[0]}")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64).ravel()
        self.pairs = PreferencePairs(s, e, m, weights)
        self.n_pairs = int(self.pairs.n_pairs)
        total = float(np.sum(self.pairs.weights))
        self.s = 1.0 / total if normalize else 1.0
        self.scale = self.s * total
        self.dim = self.X.shape[1]
        self._coef = np.empty(m)

    def _loss(self, p, coef):
        return self.pairs.hinge(p, self.s, coef)
