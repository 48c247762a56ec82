"""Kronecker RLS on sampled pairs (incomplete data), solved iteratively.

With q labelled pairs (r_k, c_k), the pairwise kernel matrix is
Kq[k, l] = sum_t w_t K1_t[r_k, r_l] K2_t[c_k, c_l] (a sum of sampled Kronecker
products, never formed: each product with it is one generalized vec trick,
:class:`rlscore.core.vec_trick.PairwiseKernelOperator`).

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

from rlscore.core.groups import as_query_groups
from rlscore._progress import Progress
from rlscore.core.solver_result import SolverResult

__all__ = ["GroupCentering", "KronMinres", "minres"]


# Why not scipy.sparse.linalg.minres (measured): scipy stops on the backward-error test
# ||r|| / (||A|| ||x|| + ||b||) <= rtol and reports success (info 0). On a Kronecker
# system of Davis's size (68 x 442 RBF factor kernels, 80 % of the 30056 pairs sampled,
# rtol = tol = 1e-10) scipy returned relative residuals ||b - A x|| / ||b|| of 2.0e-6
# (lambda = 1), 2.2e-4 (lambda = 1e-2) and 1.1e-3 (lambda = 1e-4); this function, which
# stops on ||b - A x|| / ||b|| itself, returned 9.7e-11, 1.4e-10 and 7.0e-9. It also
# has the least-squares stop for singular systems (lambda = 0, early stopping).
def minres(matvec, b, x0=None, tol=1e-10, maxiter=None, callback=None, lstsq=False,
           verbose=None, desc="MINRES"):
    """MINRES (Paige & Saunders 1975) for a symmetric, possibly singular, system A x = b.

    Stops when the residual norm ||b - A x_k|| (which MINRES tracks for free) falls
    below ``tol * ||b||`` (so a warm start ``x0`` near the solution saves
    iterations), or after ``maxiter`` iterations (default 5 n). With
    ``lstsq=True`` (a possibly singular, inconsistent system, whose residual cannot
    reach ``tol``) it also stops when the least-squares measure
    ||A r_k|| / (||A|| ||r_k||) falls below ``tol``; in any case it stops when the
    Krylov space runs into a null space (the next step would divide by ~0). Returns (x, info): info 0 on convergence, else the
    number of iterations done. ``callback(x_k)`` runs after every iteration.

    Progress: one step per iteration with the relative residual ||b - A x_k|| / ||b||,
    logged (logger ``"rlscore"``, DEBUG) and, with ``verbose`` (None: as
    :func:`rlscore._progress.verbosity`), shown on stderr under the name ``desc``.

    Each iteration: one product with A and O(n) vector work.
    """
    report = Progress(desc, maxiter, verbose)
    x, info = _minres(matvec, b, x0, tol, maxiter, callback, lstsq, report)
    report.close(iterations=report.count, converged=info == 0)
    return x, info


def _minres(matvec, b, x0, tol, maxiter, callback, lstsq, report):
    b = np.asarray(b, dtype=np.float64)
    n = b.size
    x = np.zeros(n) if x0 is None else np.array(x0, dtype=np.float64)
    if maxiter is None:
        maxiter = 5 * n
    r1 = b - matvec(x) if x0 is not None else b.copy()
    y = r1
    beta1 = float(np.sqrt(r1 @ r1))
    bnorm = float(np.sqrt(b @ b)) if x0 is not None else beta1
    if beta1 <= tol * bnorm:
        return x, 0
    eps = np.finfo(np.float64).eps
    oldb, beta, dbar, epsln, phibar = 0.0, beta1, 0.0, 0.0, beta1
    cs, sn = -1.0, 0.0
    tnorm2 = 0.0
    w = np.zeros(n)
    w2 = np.zeros(n)
    r2 = r1
    for itn in range(1, maxiter + 1):
        v = y / beta
        y = np.asarray(matvec(v), dtype=np.float64).ravel()
        if itn >= 2:
            y = y - (beta / oldb) * r1
        alfa = float(v @ y)
        y = y - (alfa / beta) * r2
        r1 = r2
        r2 = y
        oldb = beta
        beta = float(np.sqrt(y @ y))
        tnorm2 += alfa * alfa + oldb * oldb + beta * beta
        oldeps = epsln
        delta = cs * dbar + sn * alfa
        gbar = sn * dbar - cs * alfa
        epsln = sn * beta
        dbar = -cs * beta
        root = float(np.hypot(gbar, dbar))
        anorm = np.sqrt(tnorm2)
        gamma = float(np.hypot(gbar, beta))
        if gamma <= 10 * eps * anorm:
            # the Krylov space is exhausted in a null direction of a singular system:
            # x is the minimum-residual (least-squares) solution already
            return x, 0
        cs = gbar / gamma
        sn = beta / gamma
        phi = cs * phibar
        phibar = sn * phibar
        w1 = w2
        w2 = w
        w = (v - oldeps * w1 - delta * w2) / gamma
        x = x + phi * w
        if callback is not None:
            callback(x)
        report.step(residual=phibar / bnorm)
        if phibar <= tol * bnorm or beta == 0.0:
            return x, 0
        if lstsq and root <= tol * anorm:
            return x, 0          # ||A r|| / (||A|| ||r||) small: least-squares solution
    return x, maxiter


class GroupCentering:
    """v -> L v, subtracting from each entry the mean of its group: the query centring
    of :class:`rlscore.core.groups.QueryGroups` (built once here). O(q)."""

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
        x, info = minres(self.system.matvec, self.rhs, x0=x0, tol=tol, maxiter=maxiter,
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
