"""Kronecker SVM on a sample of labelled pairs: the squared-hinge (L2-SVM) loss over the
pairwise kernel, trained by Newton's method with the generalized vec trick.

With q labelled pairs (r_k, c_k), labels y_k in {-1, +1} and predictions f = Z w
(linear: row k of Z is kron(X2[c_k], X1[r_k])) or f = Kq a (kernel: Kq the sampled
pairwise kernel matrix of :mod:`rlscore.core.kronecker._cg`), the objective is that of
RLScore's ``KronSVM``:

    J = 1/2 sum_k max(0, 1 - y_k f_k)^2 + lambda/2 ||w||^2,   ||w||^2 = a^T Kq a (dual).

Newton's method for the L2-SVM (Keerthi & DeCoste 2005; Chapelle 2007, Sect. 3 for the
dual form): with S the pairs inside the margin (y_k f_k < 1), J is quadratic on the
region where S stays the same, and since y_k^2 = 1 its minimizer there is the RLS
solution on the pairs of S alone:

    primal  (Z_S^T Z_S + lambda I) w = Z_S^T y_S,
    dual    (Kq[S, S] + lambda I) a_S = y_S,  a_k = 0 outside S

(the dual step of RLScore's KronSVM, (D Kq + lambda I) x = D (f - y) + lambda a with
D the indicator of S, reduces to this). Each Newton step solves that system by
conjugate gradients (one vec-trick product per iteration, O(size(S) (n1 + n2)) in the
dual), warm-started from the current point, and is followed by an exact line search
on the convex piecewise-quadratic J along the step (O(q) per trial). The iteration
stops when the gradient (the K-scaled gradient D (f - y) + lambda a in the dual) is at
most ``rtol`` times its value at zero -- a stopping rule relative to the problem's scale
-- or after ``maxiter`` Newton steps (:class:`KronSVMOptions`). J is strictly convex in w (in f for the dual), so
the primal and dual forms reach the same predictions.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from rlscore.core.optim import ConvergenceWarning, conjugate_gradient
from rlscore.core.structure import PairwiseKernelOperator, SampledKronProduct, as_index_vector
from rlscore.core.kronecker._data import check_square_kernel
from rlscore._validation import (as_data_matrix, check_positive_int, check_real_dtype,
                                 check_regparam, check_tol)
from rlscore.predictor.pairwise_predictor import (KernelPairwisePredictor,
                                                  LinearPairwisePredictor,
                                                  PairwisePredictorInterface)

__all__ = ["SampledKronSVMModel", "KronSVMOptions", "svm_labels", "exact_line_search"]


def svm_labels(Y):
    """The labels of a Kronecker SVM as a float vector of -1 and +1 (ValueError for
    anything else, naming the first bad value). O(q)."""
    Y = check_real_dtype(np.asarray(Y), "Y")
    if Y.ndim == 2 and 1 in Y.shape:
        Y = Y.ravel()
    if Y.ndim != 1 or Y.size == 0:
        raise ValueError(f"Y must be a non-empty vector of labels (one per labelled "
                         f"pair), got shape {Y.shape}")
    Y = np.array(Y, dtype=np.float64)
    bad = ~np.isin(Y, (-1.0, 1.0))
    if bad.any():
        raise ValueError(f"KronSVM labels must be -1 or +1 (the squared hinge "
                         f"max(0, 1 - y f)^2 of RLScore's KronSVM), got "
                         f"{Y[np.argmax(bad)]!r} at position {int(np.argmax(bad))}")
    return Y


def exact_line_search(margin, h, regparam, wd, dd, t=1.0, max_steps=100):
    """Minimize phi(t) = 1/2 sum_k max(0, margin_k - t h_k)^2 + lambda/2 ||w + t d||^2
    over t >= 0, exactly: phi is convex and piecewise quadratic, and Newton's method on
    it (solve phi'(t) = 0 with the active set of the current t) reaches the minimizer
    in finitely many steps (Keerthi & DeCoste 2005, Sect. 3).

    Parameters
    ----------
    margin : (q,) 1 - y f at t = 0
    h : (q,) y (Z d) (the change of y f per unit step)
    regparam : lambda
    wd, dd : <w, d> and <d, d> in the norm of the model (a^T K d and d^T K d dual)

    Returns
    -------
    float, the minimizing step (O(q) per Newton step on t).
    """
    t = float(t)
    for _ in range(max_steps):
        active = margin - t * h > 0
        num = float(h[active] @ margin[active]) - regparam * wd
        den = float(h[active] @ h[active]) + regparam * dd
        if den <= 0:
            return t
        t_new = max(num / den, 0.0)
        if np.array_equal(active, margin - t_new * h > 0) or t_new == t:
            return t_new
        t = t_new
    return t


@dataclass(frozen=True)
class KronSVMOptions:
    """How :class:`SampledKronSVMModel` trains, checked on construction.

    Parameters
    ----------
    maxiter : int, default 100
        Cap on the Newton steps (RLScore's ``maxiter``).
    inneriter : int or None, default None
        Cap on the conjugate-gradient iterations of one Newton step (RLScore's
        ``inneriter``, there 50 QMR iterations); None runs CG to ``rtol / 10``. A capped
        step is still a descent direction and the line search keeps J decreasing.
    rtol : float in (0, 1), default 1e-8
        Stop when the gradient norm is at most ``rtol`` times its norm at zero; CG runs
        each step to ``rtol / 10`` relative residual. The faces' ``tol`` (the error
        message names it so).
    weights : sequence of floats or None
        Term weights for lists of kernels (default all ones).
    compute_risk : bool, default False
        Record the objective of every Newton step in ``risks`` (J decreases
        monotonically, so the last iterate is the best).

    Raises
    ------
    ValueError
        A maxiter or inneriter that is not a positive int, rtol outside (0, 1). O(1).
    """

    maxiter: int = 100
    inneriter: int | None = None
    rtol: float = 1e-8
    weights: object = None
    compute_risk: bool = False

    def __post_init__(self):
        checked = dict(maxiter=check_positive_int(self.maxiter, "maxiter"),
                       inneriter=check_positive_int(self.inneriter, "inneriter",
                                                    allow_none=True),
                       rtol=check_tol(self.rtol, "tol"),
                       compute_risk=bool(self.compute_risk))
        for name, value in checked.items():
            object.__setattr__(self, name, value)


class SampledKronSVMModel(PairwisePredictorInterface):
    """Kronecker SVM (squared hinge) on a sample of labelled pairs, by Newton's method
    with the generalized vec trick; the pairwise kernel matrix is never formed.
    The core object behind :class:`rlscore.learner.KronSVM` (RLScore's keyword
    interface) and :class:`rlscore.estimators.PairwiseSVM`.

    Parameters
    ----------
    Y : (q,) labels in {-1, +1}, one per labelled pair
    label_row_inds, label_col_inds : (q,) label k belongs to the pair (domain-1 object
        label_row_inds[k], domain-2 object label_col_inds[k]); repeats allowed
    kernels : (K1, K2), (n1, n1) and (n2, n2) training kernels (kernel mode; lists of
        them with ``options.weights`` for a weighted sum of Kronecker kernels), or
    features : (X1, X2), (n1, d1) and (n2, d2) feature matrices (linear mode, weights W
        of size d1 d2 in vec_F order, as :class:`rlscore.core.kronecker.SampledKronRLSModel`)
    regparam : float > 0, default 1.0
    callback : object with ``callback(learner)`` called after each Newton step (with
        ``A`` / ``W`` and ``predictor`` set) and optionally ``finished(learner)``.
    options : KronSVMOptions or None
        ``maxiter``, ``inneriter``, ``rtol``, ``weights``, ``compute_risk``
        (:class:`KronSVMOptions`; None: its defaults). Also readable as the attributes
        ``maxiter``, ``inneriter``, ``tol`` and ``compute_risk``.

    Attributes
    ----------
    predictor, A (kernel mode, (q,)) or W (linear mode, (d1 d2,)), iterations (Newton
    steps), cg_iterations, converged, objective, support (indices of the pairs with
    y f < 1 at the solution), risks (with compute_risk)

    Notes
    -----
    Per Newton step: CG on the system of the size(S) support pairs, each CG iteration one
    vec-trick product O(size(S) (n1 + n2)) (kernel) or O(size(S) (d1 + d2) + d1 d2 ...) with Z
    and Z^T (linear), plus one product over all q pairs for the line search. Memory
    O(q + n1^2 + n2^2) (kernel) or O(q + d1 d2) (linear).
    """

    def __init__(self, Y=None, label_row_inds=None, label_col_inds=None, *, kernels=None,
                 features=None, regparam=1.0, callback=None, options=None):
        if Y is None:
            raise TypeError(f"{type(self).__name__} needs the labels Y")
        self.Y = svm_labels(Y)
        q = self.Y.size
        self.regparam = check_regparam(regparam)
        if self.regparam == 0:
            raise ValueError("KronSVM needs regparam > 0 (the squared hinge alone has "
                             "no unique minimizer)")
        self.options = KronSVMOptions() if options is None else options
        self.maxiter, self.inneriter = self.options.maxiter, self.options.inneriter
        self.tol = self.options.rtol
        self.callbackfun = callback
        self.compute_risk = self.options.compute_risk
        weights = self.options.weights
        K1, K2 = (None, None) if kernels is None else kernels
        X1, X2 = (None, None) if features is None else features
        if (K1 is None) == (X1 is None) or (K2 is None) == (X2 is None) \
                or (K1 is None) != (K2 is None):
            raise ValueError("pass K1 and K2 (kernel mode) or X1 and X2 (linear mode)")
        if label_row_inds is None or label_col_inds is None:
            raise TypeError("KronSVM needs label_row_inds and label_col_inds")
        self.kernelmode = K1 is not None
        if self.kernelmode:
            self._setup_kernel(K1, K2, label_row_inds, label_col_inds, weights, q)
        else:
            self._setup_linear(X1, X2, label_row_inds, label_col_inds, q)
        self._train()

    # -- set-up ---------------------------------------------------------------------
    def _indices(self, rows, cols, n1, n2, q):
        r = as_index_vector(rows, n1, "label_row_inds")
        c = as_index_vector(cols, n2, "label_col_inds")
        if r.size != q or c.size != q:
            raise ValueError(f"label_row_inds ({r.size}), label_col_inds ({c.size}) and "
                             f"Y ({q}) must have the same length")
        return r, c

    def _setup_kernel(self, K1, K2, rows, cols, weights, q):
        multi = isinstance(K1, (list, tuple))
        if multi != isinstance(K2, (list, tuple)):
            raise ValueError("K1 and K2 must both be matrices or both be lists")
        K1s = [check_square_kernel(K, f"K1[{t}]" if multi else "K1")
               for t, K in enumerate(K1 if multi else [K1])]
        K2s = [check_square_kernel(K, f"K2[{t}]" if multi else "K2")
               for t, K in enumerate(K2 if multi else [K2])]
        if not K1s or len(K1s) != len(K2s):
            raise ValueError("K1 and K2 must hold the same positive number of kernels")
        if any(K.shape != K1s[0].shape for K in K1s) or \
                any(K.shape != K2s[0].shape for K in K2s):
            raise ValueError("the kernels of one domain must have the same shape")
        r, c = self._indices(rows, cols, K1s[0].shape[0], K2s[0].shape[0], q)
        self.label_row_inds, self.label_col_inds = r, c
        T = len(K1s)
        w = None if weights is None else [float(x) for x in np.ravel(weights)]
        if w is not None and len(w) != T:
            raise ValueError(f"weights must have one entry per kernel term ({T})")
        self._K = (K1s, K2s, w)
        if multi:
            self._pred_args = ([r] * T, [c] * T, w)
        else:
            self._pred_args = (r, c, w)

    def _kernel_op(self, rows, cols):
        """Kq[rows, cols] as an operator (rows, cols: index arrays into the q pairs)."""
        K1s, K2s, w = self._K
        r, c = self.label_row_inds, self.label_col_inds
        T = len(K1s)
        if T == 1:
            return PairwiseKernelOperator(K1s[0], K2s[0], r[rows], c[rows], r[cols],
                                          c[cols], w)
        return PairwiseKernelOperator(K1s, K2s, [r[rows]] * T, [c[rows]] * T,
                                      [r[cols]] * T, [c[cols]] * T, w)

    def _setup_linear(self, X1, X2, rows, cols, q):
        X1 = as_data_matrix(X1, name="X1")
        X2 = as_data_matrix(X2, name="X2")
        X1 = np.ascontiguousarray(X1.toarray() if hasattr(X1, "toarray") else X1,
                                  dtype=np.float64)
        X2 = np.ascontiguousarray(X2.toarray() if hasattr(X2, "toarray") else X2,
                                  dtype=np.float64)
        r, c = self._indices(rows, cols, X1.shape[0], X2.shape[0], q)
        self.label_row_inds, self.label_col_inds = r, c
        self._X = (X1, X2)

    def _z_op(self, rows):
        """Z[rows] (rows of the q pairs) as a SampledKronProduct."""
        X1, X2 = self._X
        return SampledKronProduct(X2, X1, self.label_col_inds[rows],
                                  self.label_row_inds[rows], None, None)

    # -- training -----------------------------------------------------------------------
    def _predictor(self, x):
        if self.kernelmode:
            self.A = x
            c1, c2, w = self._pred_args
            self.predictor = KernelPairwisePredictor(x, c1, c2, w)
        else:
            self.W = x
            self.predictor = LinearPairwisePredictor(x)

    def _objective(self, f, reg):
        z = np.maximum(1.0 - self.Y * f, 0.0)
        return 0.5 * float(z @ z) + 0.5 * self.regparam * reg

    def _train(self):
        y, lam, q = self.Y, self.regparam, self.Y.size
        everything = np.arange(q)
        if self.kernelmode:
            full = self._kernel_op(everything, everything)
            x = np.zeros(q)
            f = np.zeros(q)
            product = full.matvec
        else:
            Z = self._z_op(everything)
            x = np.zeros(Z.shape[1])
            f = np.zeros(q)
            product = Z.matvec
        self.iterations = self.cg_iterations = 0
        self.risks = []
        g0 = None
        converged = False
        for _ in range(self.maxiter):
            S = np.flatnonzero(y * f < 1.0)
            if self.kernelmode:
                grad = lam * x
                grad[S] += f[S] - y[S]
            else:
                grad = lam * x + Z.rmatvec(np.where(y * f < 1.0, f - y, 0.0))
            gnorm = float(np.linalg.norm(grad))
            if g0 is None:
                g0 = gnorm
            if gnorm <= self.tol * g0:
                converged = True
                break
            x_new = self._newton_point(S, x)
            d = x_new - x
            g = product(d)
            h = y * g
            if self.kernelmode:
                wd, dd = float(x @ g), float(d @ g)
            else:
                wd, dd = float(x @ d), float(d @ d)
            t = exact_line_search(1.0 - y * f, h, lam, wd, dd)
            if t == 0.0:
                break
            x = x + t * d
            f = f + t * g
            self.iterations += 1
            self._predictor(x)
            if self.compute_risk:
                reg = float(x @ f) if self.kernelmode else float(x @ x)
                self.risks.append(self._objective(f, reg))
            if self.callbackfun is not None:
                self.callbackfun.callback(self)
        self.converged = converged
        reg = float(x @ f) if self.kernelmode else float(x @ x)
        self.objective = self._objective(f, reg)
        self.support = np.flatnonzero(y * f < 1.0)
        self._predictor(x)
        if not converged:
            warnings.warn(f"KronSVM stopped after {self.iterations} Newton steps before "
                          f"the gradient fell to tol={self.tol:g} of its initial norm; "
                          f"raise maxiter", ConvergenceWarning, stacklevel=3)
        if self.callbackfun is not None and hasattr(self.callbackfun, "finished"):
            self.callbackfun.finished(self)

    def _newton_point(self, S, x):
        """The minimizer of J with the support set S fixed (the RLS system on S),
        by CG warm-started at the current point."""
        lam, y = self.regparam, self.Y
        if S.size == 0:
            return np.zeros_like(x)
        if self.kernelmode:
            op = self._kernel_op(S, S)
            res = conjugate_gradient(lambda V: op.matvec(V[:, 0])[:, None] + lam * V,
                                     y[S], rtol=self.tol / 10, maxiter=self.inneriter,
                                     x0=x[S])
            out = np.zeros_like(x)
            out[S] = np.ravel(res.solution)
        else:
            Zs = self._z_op(S)
            res = conjugate_gradient(
                lambda V: Zs.rmatvec(Zs.matvec(V[:, 0]))[:, None] + lam * V,
                Zs.rmatvec(y[S]), rtol=self.tol / 10, maxiter=self.inneriter, x0=x)
            out = np.ravel(res.solution)
        self.cg_iterations += int(res.iterations)
        return out
