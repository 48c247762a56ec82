"""RankRLS with explicit preference pairs, and the pair helpers of the ranking models.

* :class:`PPRankRLSModel` -- explicit preference pairs (a multigraph, edge weights and
  pair costs);
* :class:`RankLPOCV` -- the leave-pair-out cross-validator of the global model
  (:class:`rlscore.core.rankrls.GlobalRankRLSModel`);
* :func:`preference_pairs` enumerates pairs (all with different labels, or
  positive-negative for AUC) and :func:`lpo_cindex` scores held-out pair predictions.

The formulas are in the docstrings of :mod:`rlscore.core.rankrls` and
:mod:`rlscore.core.rankrls` (Pahikkala et al. 2009).
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from rlscore._ext import _lpo
from rlscore.core.structure import as_query_groups
from rlscore.core.rankrls._solver import symmetrize
from rlscore.core.nystrom import build_representation
from rlscore.core.nystrom import n_rows
from rlscore.core.optim import psd_eigh
from rlscore.core.rls import KernelSolver
from rlscore._validation import check_index_pairs
from rlscore._validation import as_2d_labels, as_index_array, check_regparam

__all__ = ["PPRankRLSModel", "PairCosts", "RankLPOCV", "preference_pairs", "COSTS", "laplacian_system",
           "LaplacianSystem"]

COSTS = ("magnitude", "unit", "inverse")


def _as_pair_values(values, l, name):
    """One nonnegative finite float per pair (or None)."""
    if values is None:
        return None
    v = np.asarray(values)
    if v.dtype == object or v.dtype == np.bool_ or not np.issubdtype(v.dtype, np.number) \
            or np.iscomplexobj(v):
        raise ValueError(f"{name} must be real numeric")
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 2 and 1 in v.shape:
        v = v.ravel()
    if v.ndim != 1 or v.size != l:
        raise ValueError(f"{name} must hold one value per pair ({l}), got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinity")
    if np.any(v < 0):
        raise ValueError(f"{name} must be >= 0")
    return v


class LaplacianSystem:
    """The RankRLS normal equations of a preference graph in a representation's
    coordinates (:func:`laplacian_system`).

    Attributes
    ----------
    F : (m, r) the coordinates of the rows: the primal features shifted to (near) zero
        mean (``shift``), or Z = V Lambda^{1/2} of eigh(K) (dual, positive part).
    C : (r, r) symmetric F^T L F; ``rhs`` (r, p) F^T b.
    shift : (r,) the feature shift (primal; predictions are (F + shift) w), or None.
    back : None (primal: x is the weight vector) or (V, sqrt(Lambda)) of the positive
        eigenpairs (dual); :meth:`coefficients` maps a solution x to the model's
        coefficients.
    """

    def __init__(self, F, C, rhs, shift, back):
        self.F, self.C, self.rhs, self.shift, self.back = F, C, rhs, shift, back

    @staticmethod
    def to_coefficients(back, x):
        """The model's coefficients of a solution x (r, p): x itself (primal) or the
        dual coefficients V Lambda^{-1/2} x. O(m r p)."""
        if back is None:
            return x
        Vk, root = back
        return Vk @ (x / root[:, None])


def laplacian_system(rep, apply_L, b):
    """RankRLS on a graph with Laplacian L and target vector b: the r x r system.

    RankRLS minimizes f^T L f - 2 f^T b + lambda ||f||^2 over f = Phi w (primal) or
    f = K a (dual) -- the cost (24) of Pahikkala et al. (2009) with
    L = M M^T and b = M N (their eq. 17). In both forms it is (C + lambda I) x = rhs
    with C = F^T L F, rhs = F^T b for the coordinates F described in
    :class:`LaplacianSystem`.

    Parameters
    ----------
    rep : Representation (:func:`rlscore.core.nystrom.build_representation`), dense
        features or a kernel matrix (which is released).
    apply_L : function M -> L M for a dense (m, k) float64 M.
    b : (m, p) float64.

    Returns
    -------
    LaplacianSystem

    Notes
    -----
    Primal: O(m d) for L Phi with a prefix-sum operator, O(m d^2) for C. Dual: eigh(K)
    O(m^3), then O(m r^2). L 1 = 0, so the primal features are shifted to zero mean
    first (constant columns become exactly 0), which changes no solution.
    """
    if rep.kind == "primal":
        Phi = np.asarray(rep.matrix.toarray() if sp.issparse(rep.matrix) else rep.matrix,
                         dtype=np.float64)
        shift = Phi.mean(axis=0)
        const = np.ptp(Phi, axis=0) == 0
        shift[const] = Phi[0, const]
        F = Phi - shift
        return LaplacianSystem(F, symmetrize(F.T @ apply_L(F)), F.T @ b, shift, None)
    lam, V = psd_eigh(rep.matrix)
    rep.matrix = None
    pos = lam > 0
    if not np.any(pos):
        raise ValueError("the kernel matrix is zero")
    root = np.sqrt(lam[pos])
    Vk = np.ascontiguousarray(V[:, pos])
    F = Vk * root
    return LaplacianSystem(F, symmetrize(F.T @ apply_L(F)), F.T @ b, None, (Vk, root))


@dataclass(frozen=True)
class PairCosts:
    """How the pairs of :class:`PPRankRLSModel` are weighted: ``weights``,
    ``magnitudes`` and the ``cost`` function (see the model's Parameters).

    Attributes
    ----------
    weights : (l,) nonnegative or None
    magnitudes : (l,) nonnegative or None
    cost : {"magnitude", "unit", "inverse"}, default "magnitude"
    """
    weights: object = None
    magnitudes: object = None
    cost: str = "magnitude"


class PPRankRLSModel:
    """RankRLS from explicit preference pairs (a preference multigraph).

    Minimizes  sum_k c_k (z_k - (f(x_{s_k}) - f(x_{e_k})))^2 + lambda ||f||^2,
    pair k saying that example s_k is preferred to e_k.

    Parameters
    ----------
    X : data (m, d) or a precomputed kernel, as for RLS.
    pairs_start_inds, pairs_end_inds : int sequences of equal length l >= 1.
    regparam : float >= 0
    kernel, basis_vectors, kernel_params : see
        :func:`rlscore.core.nystrom.build_representation` (``prefer`` among the
        kernel parameters).
    costs : PairCosts or None
        The three below (None: their defaults).
    costs.weights : (l,) nonnegative edge weights, default 1 (multiply the pair's squared
        error). A pair given twice counts twice (its weights add up).
    costs.magnitudes : (l,) nonnegative preference magnitudes y_k, default 1.
    costs.cost : the cost function of the paper (Sect. 2.4), which sets z_k and c_k:

        - ``"magnitude"`` (eq. 21, default): z_k = y_k, c_k = w_k. Magnitude preserving;
          a tie (y_k = 0) is a pair with target 0 and is kept.
        - ``"unit"`` (eq. 20): z_k = 1, c_k = w_k; magnitudes only tell ties apart:
          pairs with y_k = 0 are not preferences and are dropped.
        - ``"inverse"`` (eq. 22): z_k = y_k, c_k = w_k / y_k^2, an upper bound of the
          disagreement error; undefined for ties, which are dropped.

        Without magnitudes the three coincide (z = 1).

    Notes
    -----
    L = C^T diag(c) C and C^T (c z) from the sparse l x m incidence matrix C in O(l)
    (l pairs; duplicates add up). Primal (linear kernel, d <= m, or basis vectors):
    Phi^T L Phi in O(nnz(L) d + m d^2), then an O(d^3/3) Cholesky. Dual: eigh(K) = V
    Lambda V^T, Z = V Lambda^{1/2} and the symmetric system Z^T L Z (O(m^3)); then each
    lambda O(r^2) after an eigendecomposition (``solve`` for a second lambda).
    """

    def __init__(self, X, pairs_start_inds, pairs_end_inds, regparam=1.0,
                 kernel="LinearKernel", basis_vectors=None, costs=None, **kernel_params):
        misplaced = sorted(set(kernel_params) & {"weights", "magnitudes", "cost"})
        if misplaced:
            raise TypeError(f"{', '.join(misplaced)}: pass the pair costs as "
                            f"costs=PairCosts(...)")
        costs = PairCosts() if costs is None else costs
        weights, magnitudes, cost = costs.weights, costs.magnitudes, costs.cost
        m = n_rows(X)
        self.m = m
        s, e = self._check(pairs_start_inds, pairs_end_inds, m)
        self.pairs = np.column_stack([s, e])
        l = s.size
        wts = _as_pair_values(weights, l, "weights")
        mags = _as_pair_values(magnitudes, l, "magnitudes")
        if cost not in COSTS:
            raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
        c = np.ones(l) if wts is None else wts.copy()
        z = np.ones(l) if mags is None else mags.copy()
        keep = np.ones(l, dtype=bool)
        if mags is not None and cost in ("unit", "inverse"):
            keep = mags > 0                                # ties are not preferences
            if cost == "unit":
                z = np.ones(l)
            else:
                with np.errstate(divide="ignore"):
                    c = np.where(keep, c / np.where(keep, mags, 1.0) ** 2, 0.0)
        keep &= (c > 0) & (s != e)
        if not np.any(keep):
            raise ValueError("no preferences remain: every pair has weight 0, is a "
                             "self-pair or (for this cost) is a tie")
        s, e, c, z = s[keep], e[keep], c[keep], z[keep]
        k = np.arange(s.size)
        Cm = sp.csr_matrix(
            (np.concatenate([np.ones(s.size), -np.ones(s.size)]),
             (np.concatenate([k, k]), np.concatenate([s, e]))), shape=(s.size, m))
        self.L = (Cm.T @ sp.diags(c) @ Cm).tocsr()
        self.b = np.asarray(Cm.T @ (c * z)).reshape(-1, 1)
        rep = build_representation(X, kernel, basis_vectors, **kernel_params)
        self.representation = rep
        self.kind = rep.kind
        if rep.kind == "primal" and sp.issparse(rep.matrix):
            # pair differences: a constant column (the linear kernel's bias) cancels
            # exactly, so its weight is exactly 0. O(l * nnz per row).
            Dp = sp.csr_matrix(Cm @ rep.matrix)
            C = symmetrize((Dp.T @ sp.diags(c) @ Dp).toarray())
            rhs = np.asarray(Dp.T @ (c * z)).reshape(-1, 1)
            self._back = None
        else:
            L = self.L
            system = laplacian_system(rep, lambda M: np.asarray(L @ M), self.b)
            C, rhs, self._back = system.C, system.rhs, system.back
        self.solver = KernelSolver(C, rhs)
        self.solve(regparam)

    @staticmethod
    def _check(starts, ends, m):
        for name, v in (("pairs_start_inds", starts), ("pairs_end_inds", ends)):
            if np.ndim(v) != 1:
                raise ValueError(f"{name} must be a 1-D list of indices")
            if np.size(v) == 0:
                raise ValueError("the preference list is empty: give at least one pair")
        s = as_index_array(starts, m, name="pairs_start_inds", unique=False)
        e = as_index_array(ends, m, name="pairs_end_inds", unique=False)
        if s.shape != e.shape:
            raise ValueError(f"pairs_start_inds and pairs_end_inds differ in length "
                             f"({s.size} vs {e.size})")
        if np.any(s == e):
            # a self-pair's row of the pair matrix is zero: it changes neither L nor the
            # right-hand side. RLScore accepted them silently (random pair draws hit them)
            warnings.warn(f"the preferences hold {int(np.sum(s == e))} self-pair(s) (an "
                          f"example preferred over itself); they do not affect the model",
                          UserWarning, stacklevel=4)
        return s, e

    def solve(self, regparam):
        """Train for ``regparam``: a Cholesky the first time, then (second lambda) one
        eigendecomposition and O(r^2) per lambda."""
        self.regparam = check_regparam(regparam)
        x = self.solver.solve(self.regparam)
        self.coef = LaplacianSystem.to_coefficients(self._back, x)
        self.predictor = self.representation.predictor(self.coef)
        return self


class RankLPOCV:
    """Leave-pair-out cross-validator for :class:`GlobalRankRLSModel` (RLScore's
    protocol: ``rls``, ``measure``, ``cv(regparam)``).

    For each output, every pair i < j with different labels is held out; the score is
    the fraction ordered as the labels by the held-out predictions (ties 1/2), the mean
    over outputs. The pairs are enumerated and validated once, all outputs share one
    leave-pair-out pass over the union of their pairs, and the scoring runs in Cython.

    Raises UndefinedPerformance when some output has all labels equal.
    """

    def __init__(self, model):
        from rlscore.measure import cindex
        from rlscore.measure.measure_utilities import UndefinedPerformance
        self.rls = model
        self.measure = cindex
        Y = model.Y
        for c in range(Y.shape[1]):
            if np.all(Y[:, c] == Y[0, c]):
                raise UndefinedPerformance(f"all labels of output {c} are equal: no pairs")
        i, j = np.triu_indices(Y.shape[0], k=1)
        keep = np.any(Y[i] != Y[j], axis=1)
        self.starts = np.ascontiguousarray(i[keep], dtype=np.intp)
        self.ends = np.ascontiguousarray(j[keep], dtype=np.intp)
        self._ys = [np.ascontiguousarray(Y[self.starts, c]) for c in range(Y.shape[1])]
        self._ye = [np.ascontiguousarray(Y[self.ends, c]) for c in range(Y.shape[1])]

    def cv(self, regparam):
        ps, pe = self.rls._leave_pair_out(self.starts, self.ends)
        perfs = []
        for c in range(ps.shape[1]):
            total, count = _lpo.pair_concordance(self._ys[c], self._ye[c],
                                                 np.ascontiguousarray(ps[:, c]),
                                                 np.ascontiguousarray(pe[:, c]))
            perfs.append(total / count)
        return float(np.mean(perfs)), None


# ---------------------------------------------------------------------------------------
# pair helpers


def preference_pairs(y, qids=None, kind="different"):
    """Index pairs for leave-pair-out or for :class:`PPRankRLSModel`.

    Parameters
    ----------
    y : (m,) labels
    qids : optional query ids; pairs are then formed only within a query.
    kind : ``"different"`` -- every pair (i, j) with y_i > y_j (start = the preferred
        example), the c-index pairs; ``"bipartite"`` -- every (positive, negative) pair
        for labels +-1 (AUC).

    Returns
    -------
    starts, ends : intp arrays; magnitudes y_start - y_end > 0.

    Notes
    -----
    O(m + number of pairs) time and memory per query (O(m^2) for global pairs).
    """
    y = as_2d_labels(y, "y")
    if y.shape[1] != 1:
        raise ValueError("y must be a single column")
    y = y[:, 0]
    m = y.size
    if kind not in ("different", "bipartite"):
        raise ValueError(f"kind must be 'different' or 'bipartite', got {kind!r}")
    if kind == "bipartite" and not np.all((y == 1) | (y == -1)):
        raise ValueError("kind='bipartite' needs labels -1 and +1")
    blocks = [np.arange(m)] if qids is None else as_query_groups(qids, m).split()
    S, E = [], []
    for idx in blocks:
        yi = y[idx]
        if kind == "bipartite":
            pos, neg = idx[yi == 1], idx[yi == -1]
            S.append(np.repeat(pos, neg.size))
            E.append(np.tile(neg, pos.size))
        else:
            a, b = np.meshgrid(np.arange(idx.size), np.arange(idx.size), indexing="ij")
            sel = yi[a] > yi[b]
            S.append(idx[a[sel]])
            E.append(idx[b[sel]])
    s = np.concatenate(S).astype(np.intp)
    e = np.concatenate(E).astype(np.intp)
    if s.size == 0:
        raise ValueError("no pairs with different labels (all labels tied)")
    return s, e, y[s] - y[e]

