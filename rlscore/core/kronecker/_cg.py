"""Kronecker RLS on sampled pairs (incomplete data), solved iteratively.

With q labelled pairs (r_k, c_k), the pairwise kernel matrix is
Kq[k, l] = sum_t w_t K1_t[r_k, r_l] K2_t[c_k, c_l] (a sum of sampled Kronecker
products, never formed: each product with it is one generalized vec trick,
:class:`rlscore.core.structure.PairwiseKernelOperator`).

* Dual (kernel) form: (Kq + lambda I) a = y.
* Primal (linear) form, Z the q x (d1 d2) matrix with rows kron(X2[c_k], X1[r_k]):
  (Z^T Z + lambda I) w = Z^T y.
* Conditional ranking (Pahikkala et al. 2013, Sect. 4.4): the squared loss is
  replaced by (y - f)^T L (y - f) with L the block-centring matrix of the groups of
  pairs sharing their domain-1 object (each group is a query); the systems become
  (L Kq L + lambda I) a = L y (whose solution also solves (L Kq + lambda I) a = L y,
  Lemma 4.9) and (Z^T L Z + lambda I) w = Z^T L y, both symmetric, O(q) per L.

Both are solved by MINRES (:func:`minres`, Paige & Saunders), which stops when the
relative residual ||b - A x|| / ||b|| reaches ``tol`` -- a real stopping rule, unlike
a backward-error test that large ||A|| ||x|| satisfies early -- or after ``maxiter``
iterations; early stopping is itself a regularizer, so lambda = 0 with a small
``maxiter`` is a valid model (the paper's setting).
"""

import numpy as np
import scipy.sparse.linalg as spla

from rlscore.core.structure import as_query_groups
from rlscore.core.optim import minres
from rlscore.core.optim import SolverResult

__all__ = ["GroupCentering", "KronMinres"]


class GroupCentering:
    """v -> L v, subtracting from each entry the mean of its group: the query centring
    of :class:`rlscore.core.structure.QueryGroups` (built once here). O(q)."""

    def __init__(self, groups):
        self.groups = as_query_groups(groups, name="label_row_inds")

    def __call__(self, v):
        return self.groups.center(v)


class KronMinres:
    """MINRES on the regularized Kronecker system of one of the forms above.

    Parameters
    ----------
    kind : "dual" or "primal"
    op : LinearOperator, Kq (q x q) for "dual", Z (q x p) for "primal"
    y : (q,) labels
    regparam : float >= 0
    center : GroupCentering or None (conditional ranking)

    Notes
    -----
    Each iteration costs one product with Kq (dual) or one with Z and one with Z^T
    (primal), plus O(q) or O(p) vector work; memory O(q + p) beyond the operator.
    """

    def __init__(self, kind, op, y, regparam, center=None):
        self.kind = kind
        self.op = op
        self.y = y
        self.regparam = regparam
        self.center = center
        n = op.shape[0] if kind == "dual" else op.shape[1]
        self.n = n
        if kind == "dual":
            if center is None:
                mv = lambda v: op.matvec(v) + regparam * v
                self.rhs = y
            else:
                mv = lambda v: center(op.matvec(center(v))) + regparam * v
                self.rhs = center(y)
        else:
            if center is None:
                mv = lambda w: op.rmatvec(op.matvec(w)) + regparam * w
                self.rhs = op.rmatvec(y)
            else:
                mv = lambda w: op.rmatvec(center(op.matvec(w))) + regparam * w
                self.rhs = op.rmatvec(center(y))
        self.system = spla.LinearOperator((n, n), matvec=mv, dtype=np.float64)

    def objective(self, x):
        """The regularized training objective at x (costs one more operator product)."""
        if self.kind == "dual":
            f = self.op.matvec(x)
            reg = self.regparam * float(x @ f)
        else:
            f = self.op.matvec(x)
            reg = self.regparam * float(x @ x)
        r = self.y - f
        if self.center is not None:
            r = self.center(r)
        return float(r @ r) + reg

    def solve(self, maxiter=None, tol=1e-10, callback=None, x0=None, keep_best=False,
              report=None):
        """Run MINRES. ``callback(x)`` runs after every iteration; with ``keep_best``
        the iterate with the smallest objective is returned and
        ``report(iteration, objective)`` is called each iteration.

        Returns
        -------
        SolverResult
            ``solver="minres"``, ``solution`` the coefficients (n,), ``iterations``,
            ``converged`` (``tol`` reached), ``objective`` the training objective of
            the solution with ``keep_best`` (nan otherwise: it would cost one more
            product); extra ``info``, 0 when ``tol`` was reached and > 0 when
            ``maxiter`` stopped it (scipy's convention).

        Notes
        -----
        Each iteration costs one product with the system (see the class), plus one
        more for the objective with ``keep_best``.
        """
        best = {"x": None, "obj": np.inf, "it": 0}

        def cb(x):
            best["it"] += 1
            if keep_best:
                obj = self.objective(x)
                if report is not None:
                    report(best["it"], obj)
                if obj < best["obj"]:
                    best["obj"], best["x"] = obj, np.array(x, copy=True)
            if callback is not None:
                callback(x)

        if not np.any(self.rhs):
            return SolverResult("minres", np.zeros(self.n), iterations=0, converged=True,
                                message="zero right-hand side: the solution is 0", info=0)
        x, info = minres(self.system.matvec, self.rhs, x0=x0, rtol=tol, maxiter=maxiter,
                         callback=cb, lstsq=self.regparam == 0)
        objective = float("nan")
        if keep_best and best["x"] is not None:
            objective = self.objective(x)
            if best["obj"] < objective:
                x, objective = best["x"], best["obj"]
        info = int(info)
        return SolverResult("minres", np.asarray(x, dtype=np.float64), objective=objective,
                            iterations=best["it"], converged=info == 0,
                            message="converged: relative residual <= tol" if info == 0
                            else "maxiter reached", info=info)
