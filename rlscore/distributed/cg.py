"""Linear RLS and RankRLS by conjugate gradients on a Dask cluster.

The CG recursion is :func:`rlscore.core.optim.conjugate_gradient`, run on the client; only
its operator is distributed: each product ``S V`` is the sum over partitions of the
product with the partition's operator of :mod:`rlscore.core.rls` (``X_p^T X_p`` with the
bias column for RLS, ``X_p^T L_p X_p`` with the per-query centering for RankRLS) plus
``lambda V``. Query centering stays inside a partition because partitions hold whole
queries; the global centering ``L = I - 1 1^T / m`` (RankRLS without qids) couples all
rows and is split as ``X~^T X~ V - s (1^T X~ V) / m`` with ``X~ = X - 1 mu^T`` centred by
the global column means mu (computed in a first pass; centring first keeps the
subtraction free of cancellation) and ``s = X~^T 1``.

Only the primal system (d unknowns per output) is distributed: the dual one has m
unknowns. The single-machine learners solve the dual system; both give the same
solution to the CG tolerance.
"""

import numpy as np

from rlscore._validation import check_positive_int, check_regparam, check_tol
from rlscore.core.rankrls import RankRLSOperator
from rlscore.core.rls import RLSOperator, DataOperator
from rlscore.core.optim import CGOptions, conjugate_gradient
from rlscore.core.structure import QueryGroups
from rlscore.distributed._data import _check_whole_queries, ordered_sum
from rlscore.distributed.ranksvm import as_partitioned
from rlscore.predictor import LinearPredictor, PredictorInterface

__all__ = ["DistributedOperator", "CGRLS", "CGRankRLS"]


# ---------------------------------------------------------------------------------------
# per-partition tasks (pure functions of the partition and their arguments)


def _partition_op(X, kind, bias, state):
    if kind == "rls":
        return RLSOperator(X, 0.0, bias, "primal")
    return RankRLSOperator(X, 0.0, state[0])


def _query_state(part):
    q = part[2]
    if part[0].shape[0] == 0:
        return None, np.zeros(0)
    groups = QueryGroups.from_qids(q, part[0].shape[0])
    return groups, np.unique(np.asarray(q).ravel())


def _unique_of(state):
    return state[1]


def _column_sums(part, _state):
    X = part[0]
    return X.shape[0], X.sum(axis=0)


def _centred(X, mu):
    return X - mu


def _matvec(part, state, kind, bias, mu, V):
    X = part[0]
    if kind == "global":
        Xc = _centred(X, mu)
        U = Xc @ V
        return Xc.T @ U, U.sum(axis=0)
    return _partition_op(X, kind, bias, state).matvec(V)


def _rhs_diag(part, state, kind, bias, mu):
    """(rhs part, diagonal part, extra): for the global centering the parts of
    X~^T Y, diag(X~^T X~), X~^T 1 and 1^T Y."""
    X, Y = part[0], part[1]
    if kind == "global":
        Xc = _centred(X, mu)
        op = DataOperator(Xc)
        return Xc.T @ Y, op.column_sq_norms(), (Xc.sum(axis=0), Y.sum(axis=0))
    op = _partition_op(X, kind, bias, state)
    return op.rhs(Y), op.diagonal(), None


class DistributedOperator:
    """``S = X^T L X + lambda I`` (RankRLS) or ``X_a^T X_a + lambda I`` (RLS, primal)
    of partitioned data, applied by one pass over the partitions.

    Parameters
    ----------
    data : PartitionedData with labels
    regparam : float >= 0
    kind : "rls", "query" (per-query centering; qids required) or "global"
    bias : float >= 0 (RLS only)

    Attributes
    ----------
    n : number of unknowns (d, or d + 1 for RLS with bias > 0)
    B : right-hand side (n, l); diag : diag(S) (n,)

    Notes
    -----
    Set-up: one or two passes. Each product: one pass, O(m_p d l) per partition and
    O(P n l) on the client.
    """

    def __init__(self, data, regparam, kind="rls", bias=0.0):
        self.data = data
        self.regparam = check_regparam(regparam)
        self.bias = check_regparam(bias, name="bias")
        self.kind = kind
        client = data.client
        self.states = [None] * data.n_partitions
        self.mu = None
        if kind == "query":
            if not data.has_qids:
                raise ValueError("query-structured RankRLS needs qids")
            self.states = data.map_persist(_query_state)
            _check_whole_queries(client.gather([client.submit(_unique_of, s)
                                               for s in self.states]))
        elif kind == "global":
            sums = data.map_gather(_column_sums)
            self.m = int(sum(s[0] for s in sums))
            self.mu = ordered_sum(s[1] for s in sums) / self.m
        elif kind != "rls":
            raise ValueError(f"kind must be 'rls', 'query' or 'global', got {kind!r}")
        parts = data.map_gather(_rhs_diag, self.states, kind, self.bias, self.mu)
        if kind == "global":
            self.s = ordered_sum(p[2][0] for p in parts)
            ysum = ordered_sum(p[2][1] for p in parts)
            self.B = ordered_sum(p[0] for p in parts) - np.outer(self.s, ysum) / self.m
            self.diag = np.maximum(ordered_sum(p[1] for p in parts)
                                   - self.s * self.s / self.m, 0.0) + self.regparam
        else:
            self.B = ordered_sum(p[0] for p in parts)
            self.diag = ordered_sum(p[1] for p in parts) + self.regparam
        self.n = self.B.shape[0]

    def matvec(self, V):
        """S V for V (n, k): one pass."""
        V = np.ascontiguousarray(V, dtype=np.float64)
        out = self.data.map_gather(_matvec, self.states, self.kind, self.bias, self.mu, V)
        if self.kind == "global":
            XtXV = ordered_sum(o[0] for o in out)
            onesXV = ordered_sum(o[1] for o in out)
            return XtXV - np.outer(self.s, onesXV) / self.m + self.regparam * V
        return ordered_sum(out) + self.regparam * V


def _solve(op, tol, maxiter, precondition, callback, verbose, name):
    tol = check_tol(tol)
    maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
    if precondition not in (None, "jacobi"):
        raise ValueError(f"precondition must be None or 'jacobi', got {precondition!r}")
    precond = None
    if precondition == "jacobi":
        precond = np.where(op.diag > 0, 1.0 / np.where(op.diag > 0, op.diag, 1.0), 1.0)

    def cb(k, x, residuals):
        return bool(callback(dict(iteration=k, x=x, residuals=residuals)))

    return conjugate_gradient(op.matvec, op.B, rtol=tol, maxiter=maxiter, M=precond,
                              callback=None if callback is None else cb,
                              options=CGOptions(verbose=verbose,
                                                desc=f"{name} (distributed CG)"))


class _CGLearner(PredictorInterface):
    def _finish(self, res):
        self.n_iter = res.iterations
        self.converged = res.converged and not res.stopped
        self.residuals = res.residuals


class CGRLS(_CGLearner):
    """Linear RLS by conjugate gradients on a Dask cluster; trains in the constructor.

    Minimizes ``||Y - X W - b||^2 + regparam (||W||^2 + w_bias^2)`` (constant feature
    ``sqrt(bias)``, ``b = sqrt(bias) w_bias``) like :class:`rlscore.learner.CGRLS`, by
    CG on the primal system ``(X_a^T X_a + regparam I) w_a = X_a^T Y``.

    Parameters
    ----------
    X : dask.array.Array (m, d) or :class:`PartitionedData`
    Y : (m,) or (m, l) labels (dask array or array-like); None for PartitionedData
    regparam : float >= 0, default 1.0
    bias : float >= 0, default 1.0
    tol : float in (0, 1), default 1e-8; maxiter : int or None
    precondition : None or "jacobi"
    client, persist : see :class:`PartitionedData`
    callback : ``callback(info)`` after every iteration, info a dict with iteration,
        x (the iterate w_a, (n, l)) and residuals; a true return value stops.
    verbose : show the relative residual after every iteration on stderr
        (:mod:`rlscore._progress`; logged either way)

    Attributes
    ----------
    predictor : LinearPredictor; A (d, l) weights; b (1, l) intercept; n_iter;
    converged; residuals

    Notes
    -----
    O(t m_p d l) work per partition for t iterations (one pass each), plus two set-up
    passes; memory on the client O(d l).
    """

    def __init__(self, X, Y=None, regparam=1.0, bias=1.0, tol=1e-8, maxiter=None,
                 precondition=None, client=None, persist=False, callback=None,
                 verbose=False):
        data = as_partitioned(X, Y, None, client, persist)
        op = DistributedOperator(data, regparam, "rls", bias)
        res = _solve(op, tol, maxiter, precondition, callback, verbose, "CGRLS")
        self.regparam, self.bias = op.regparam, op.bias
        Wa = res.solution
        if op.bias > 0:
            W, b = Wa[:-1], np.sqrt(op.bias) * Wa[-1]
        else:
            W, b = Wa, np.zeros(Wa.shape[1])
        self._finish(res)
        self.predictor = LinearPredictor(W, b)
        self.A = W
        self.b = np.reshape(b, (1, -1))


class CGRankRLS(_CGLearner):
    """Linear RankRLS by conjugate gradients on a Dask cluster; trains in the constructor.

    Solves ``(X^T L X + regparam I) W = X^T L Y`` like :class:`rlscore.learner.CGRankRLS`:
    L the per-query centering (``qids`` given; partitions must hold whole queries) or the
    global centering ``I - 1 1^T / m`` (``qids`` None).

    Parameters
    ----------
    X, Y, client, persist, tol, maxiter, precondition, callback, verbose : as
        :class:`CGRLS`
    qids : query ids (m,) or None
    regparam : float >= 0, default 1.0

    Attributes
    ----------
    predictor : LinearPredictor; A (d, l); n_iter; converged; residuals

    Notes
    -----
    As :class:`CGRLS`; the global centering needs one more set-up pass (the column
    means).
    """

    def __init__(self, X, Y=None, regparam=1.0, qids=None, tol=1e-8, maxiter=None,
                 precondition=None, client=None, persist=False, callback=None,
                 verbose=False):
        data = as_partitioned(X, Y, qids, client, persist)
        op = DistributedOperator(data, regparam, "query" if data.has_qids else "global")
        res = _solve(op, tol, maxiter, precondition, callback, verbose, "CGRankRLS")
        self.regparam = op.regparam
        self._finish(res)
        self.A = res.solution
        self.predictor = LinearPredictor(res.solution, 0.0)
