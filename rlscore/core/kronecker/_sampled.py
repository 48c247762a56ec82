"""Kronecker RLS on a sample of labelled pairs (incomplete data), trained iteratively
with MINRES and the generalized vec trick.

:class:`SampledKronRLSModel` is the one implementation; :class:`rlscore.learner.CGKronRLS`
and :class:`rlscore.estimators.PairwiseRLS` adapt it. Its ``solve(regparam)`` and
``solve_path(regparams)`` re-train from the current solution (warm start), and the
pairwise kernel may be a weighted sum of Kronecker terms (lists of factor kernels or a
:class:`~rlscore.core.structure.PairwiseKernelOperator`), which is what a learner
combining several pairwise kernels builds on.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from rlscore.core.kronecker._data import check_pairwise_kernel, check_square_kernel
from rlscore.core.kronecker._indefinite import (check_indefinite, check_kron_regparam,
                                                kron_min_eigenvalue, repair_kernel)
from rlscore.core.kronecker._cg import GroupCentering, KronMinres
from rlscore.core.optim import ConvergenceWarning
from rlscore._progress import Progress
from rlscore._validation import as_data_matrix, check_real_dtype, check_regparam
from rlscore.core.structure import PairwiseKernelOperator, SampledKronProduct, as_index_vector
from rlscore.predictor.pairwise_predictor import (KernelPairwisePredictor,
                                                  LinearPairwisePredictor,
                                                  PairwisePredictorInterface)

__all__ = ["SampledKronRLSModel", "SampledKronRLSOptions", "sampled_kron_arguments"]


@dataclass(frozen=True)
class SampledKronRLSOptions:
    """How :class:`SampledKronRLSModel` trains (as :class:`KronSVMOptions` for the
    Kronecker SVM); checked when the model is built.

    Parameters
    ----------
    maxiter : int or None
        MINRES iteration cap (None: 5 q or 5 d1 d2).
    rtol : float > 0, default 1e-10
        MINRES stops when its relative residual falls below ``rtol`` (the faces'
        ``tol``, as the error message names it).
    weights : sequence of floats or None
        Term weights for lists of kernels (default all ones).
    compute_risk : bool, default False
    conditional_ranking : bool, default False
    pairwise_kernel : {"kronecker", "symmetric", "reciprocal"}, default "kronecker"
    indefinite : {"raise", "clip", "shift"}, default "raise"
        See the model's Parameters.
    """
    maxiter: object = None
    rtol: float = 1e-10
    weights: object = None
    compute_risk: bool = False
    conditional_ranking: bool = False
    pairwise_kernel: str = "kronecker"
    indefinite: str = "raise"


#: RLScore's flat keywords that are fields of SampledKronRLSOptions (``tol`` is rtol)
_OPTION_KEYS = ("maxiter", "weights", "compute_risk", "conditional_ranking",
                "pairwise_kernel", "indefinite")


def sampled_kron_arguments(**keywords):
    """The arguments of :class:`SampledKronRLSModel` from RLScore's flat keywords
    (``Y``, ``label_row_inds``, ``label_col_inds``, ``K1``, ``K2``, ``X1``, ``X2``,
    ``pko``, ``regparam``, ``callback``, ``maxiter``, ``tol``, ``weights``, ...):
    ``kernels`` = ``pko`` or (K1, K2), ``features`` = (X1, X2), the rest in
    :class:`SampledKronRLSOptions`. O(1)."""
    kw = dict(keywords)
    out = {k: kw.pop(k) for k in ("Y", "label_row_inds", "label_col_inds", "regparam",
                                  "callback") if k in kw}
    K1, K2, X1, X2 = (kw.pop(k, None) for k in ("K1", "K2", "X1", "X2"))
    pko = kw.pop("pko", None)
    if pko is not None:
        out["kernels"] = pko
    elif K1 is not None or K2 is not None:
        out["kernels"] = (K1, K2)
    if X1 is not None or X2 is not None:
        out["features"] = (X1, X2)
    opts = {k: kw.pop(k) for k in _OPTION_KEYS if k in kw}
    if "tol" in kw:
        opts["rtol"] = kw.pop("tol")
    out["options"] = SampledKronRLSOptions(**opts)
    if kw:
        raise TypeError(f"unexpected keyword(s) {sorted(kw)}")
    return out



def _is_list(x):
    return isinstance(x, (list, tuple))


def _per_term_inds(inds, T, n_bounds, name):
    """Index vectors per term: a list of T vectors, or one vector shared by all."""
    if inds is None:
        raise TypeError(f"CGKronRLS needs {name} (or a pko)")
    if _is_list(inds) and len(inds) > 0 and np.ndim(inds[0]) == 1:
        if len(inds) != T:
            raise ValueError(f"{name} must hold one index vector per kernel term ({T})")
        vecs = list(inds)
    elif isinstance(inds, np.ndarray) and inds.ndim == 2:
        if inds.shape[0] != T:
            raise ValueError(f"{name} must hold one index vector per kernel term ({T})")
        vecs = list(inds)
    else:
        vecs = [inds] * T
    return [as_index_vector(v, n_bounds[t], f"{name}" + (f"[{t}]" if T > 1 else ""))
            for t, v in enumerate(vecs)]


def _labels(Y):
    Y = check_real_dtype(np.asarray(Y), "Y")
    if Y.ndim == 2 and 1 in Y.shape:
        Y = Y.ravel()
    if Y.ndim != 1:
        raise ValueError(f"Y must hold one label per labelled pair (1-D), got shape "
                         f"{Y.shape}")
    Y = np.array(Y, dtype=np.float64)
    if Y.size == 0:
        raise ValueError("Y is empty")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y contains NaN or infinity")
    return Y


class SampledKronRLSModel(PairwisePredictorInterface):
    """Kronecker RLS on a sample of labelled pairs, solved by MINRES; the pairwise
    kernel matrix is never formed (each iteration is one generalized vec trick).
    The core object behind :class:`rlscore.learner.CGKronRLS` (RLScore's keyword
    interface) and :class:`rlscore.estimators.PairwiseRLS` (iterative solver).

    RLScore's flat keywords (``K1=``, ``maxiter=``, ``indefinite=``, ...) are grouped
    into these arguments by :func:`sampled_kron_arguments`.

    Parameters
    ----------
    Y : (q,) labels of the labelled pairs
    label_row_inds, label_col_inds : (q,) label k belongs to the pair (domain-1 object
        label_row_inds[k], domain-2 object label_col_inds[k]); repeated pairs are
        allowed. For a sum of kernels, lists of per-term index vectors (or one vector
        pair shared by all terms).
    kernels : (K1, K2) or PairwiseKernelOperator
        (n1, n1), (n2, n2) symmetric training kernels (kernel mode), or lists of them
        for a weighted sum of Kronecker kernels sum_t w_t K1_t kron K2_t, or a
        PairwiseKernelOperator over the training pairs (kernel mode with any sum of
        Kronecker terms; its column index vectors are the training indices), or
    features : (X1, X2)
        (n1, d1), (n2, d2) feature matrices (linear mode; lists share one weight
        matrix of size d1 x d2)
    regparam : float >= 0, default 0.0
        0 relies on early stopping (``maxiter``) for regularization, as in the
        paper; with regparam 0 and no maxiter a UserWarning says the system may be
        singular. Negative or NaN is a ValueError.
    options : SampledKronRLSOptions or None
        The fields below (None: their defaults); also readable as the attributes
        ``maxiter``, ``tol``, ``compute_risk``, ``indefinite``, ...
    options.weights : term weights for lists of kernels (default all ones)
    options.maxiter : int or None (MINRES default, 5 q or 5 d1 d2)
    options.rtol : float, default 1e-10
        MINRES stops when its relative residual falls below ``rtol`` (``convergence_info``
        is then 0) or after ``maxiter`` iterations (> 0). Stopping at ``maxiter``
        emits a :class:`ConvergenceWarning`, except with regparam 0, where ``maxiter``
        is the regularizer (early stopping).
    options.indefinite : "raise" (default), "clip" or "shift"
        Kernel mode: factor kernels with negative eigenvalues (estimated by Lanczos,
        ``scipy.sparse.linalg.eigsh``, exactly for factors up to 1000 objects) are
        refused when regparam does not make K2 kron K1 + regparam I positive definite
        (the message gives the smallest eigenvalue and the smallest regparam that
        works), or repaired with a warning: "clip" sets negative eigenvalues to 0
        (one eigendecomposition per factor), "shift" adds abs(smallest eigenvalue) I.
        The same policy as KronRLS and TwoStepRLS (:mod:`rlscore.core.kronecker`).
        Not applied to a given ``pko``.
        The model keeps the repair and applies it to the test kernels at
        prediction ("shift": a row equal to a training object's row of K gets the
        shift on that object's own column; "clip": every row is projected as K was),
        so ``predict(K1, K2, rows, cols)`` gives the fitted values of the repaired model
        (attribute ``repairs``; the rule is in :mod:`rlscore.core.kronecker`).
    callback : object with ``callback(learner)`` (called after each iteration, with
        ``learner.A`` / ``learner.W`` and ``learner.predictor`` set to the current
        iterate) and optionally ``finished(learner)`` (called once at the end).
    options.compute_risk : bool, default False
        Show the training objective at every iteration on stderr (one extra operator
        product each; see :mod:`rlscore._progress`) and return the iterate with the
        smallest objective.
    options.conditional_ranking : bool, default False
        Minimize the conditional ranking loss instead of the squared loss: the labelled
        pairs that share their domain-1 object form a query, and the loss is the
        squared error after centring each query (Pahikkala et al. 2013, Sect. 4.4).
    options.pairwise_kernel : "kronecker" (default), "symmetric" or "reciprocal"
        Kernel mode, one domain (K1 only): the symmetric kernel
        1/2 [k(a,c) k(b,d) + k(a,d) k(b,c)] or the reciprocal kernel (minus sign), as
        a two-term operator. ``predict(K1pred)`` or ``predict(K1pred, K1pred, ...)``
        then expands the terms; ``predictor.predict`` needs the lists
        ``([K1pred, K1pred], [K1pred, K1pred], [i, i], [j, j])``.

    Attributes
    ----------
    predictor : KernelPairwisePredictor or LinearPairwisePredictor
    repairs : the indefinite-kernel repairs ``predict`` applies to test kernels (see
        ``indefinite``), or None
    A : (q,) dual coefficients (kernel mode), W : (d1 * d2,) vec_F weights (linear)
    regparam, Y, input1_inds, input2_inds (int32; 2-D, one row per term, for several
    terms), convergence_info (0 = converged to tol, > 0 = stopped by maxiter),
    iterations, pko (kernel mode)

    Notes
    -----
    Per iteration: kernel mode one operator product, O(min(n1 q + n2 q, ...)) per
    term with the vec trick (so O(q (n1 + n2)) rather than O(q^2)); linear mode one
    product with Z and one with Z^T, O(q (d1 + d2) + n d1 d2). Memory O(q + n1^2 +
    n2^2).
    """

    def __init__(self, Y=None, label_row_inds=None, label_col_inds=None, *, kernels=None,
                 features=None, regparam=0.0, callback=None, options=None):
        opts = SampledKronRLSOptions() if options is None else options
        self.options = opts
        maxiter, tol = opts.maxiter, opts.rtol
        self.indefinite = check_indefinite(opts.indefinite)
        self._spectra = None
        self._repairs = None
        self.regparam = check_regparam(regparam)
        self.maxiter = maxiter
        if self.maxiter is not None:
            if isinstance(self.maxiter, bool) or int(self.maxiter) != self.maxiter \
                    or self.maxiter < 1:
                raise ValueError(f"maxiter must be a positive integer, got {self.maxiter!r}")
            self.maxiter = int(self.maxiter)
        self.tol = float(tol)
        if not np.isfinite(self.tol) or self.tol <= 0:
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        self.callbackfun = callback
        self.compute_risk = bool(opts.compute_risk)
        self.conditional_ranking = bool(opts.conditional_ranking)
        self.pairwise_kernel = check_pairwise_kernel(opts.pairwise_kernel)
        if Y is None:
            raise TypeError(f"{type(self).__name__} needs the labels Y")
        self.Y = _labels(Y)
        q = self.Y.size
        if self.regparam == 0 and self.maxiter is None:
            warnings.warn("CGKronRLS with regparam=0 and no maxiter: the system may be "
                          "singular; regularize with regparam > 0 or stop early with "
                          "maxiter", UserWarning, stacklevel=2)

        weights = opts.weights
        pko = None if kernels is None or isinstance(kernels, (tuple, list)) else kernels
        K1, K2 = (None, None) if kernels is None or pko is not None else kernels
        X1, X2 = (None, None) if features is None else features
        rows, cols = label_row_inds, label_col_inds
        if pko is not None:
            self._setup_pko(pko, q)
        elif K1 is not None or K2 is not None:
            self._setup_kernel(K1, K2, rows, cols, weights, q)
        elif X1 is not None or X2 is not None:
            if self.pairwise_kernel != "kronecker":
                raise ValueError("the symmetric and reciprocal pairwise kernels need "
                                 "kernel mode (K1); for features use K1 = X X^T")
            self._setup_linear(X1, X2, rows, cols, weights, q)
        else:
            raise ValueError("no data given: pass K1 and K2, X1 and X2, or pko")

        center = None
        if self.conditional_ranking:
            if rows is None:
                raise ValueError("conditional_ranking needs label_row_inds (the queries)")
            if isinstance(rows, np.ndarray) and rows.ndim == 2:
                g = rows[0]
            elif _is_list(rows) and len(rows) and np.ndim(rows[0]) == 1:
                g = rows[0]
            else:
                g = rows
            g = np.asarray(g)
            if g.ndim != 1 or g.shape[0] != q:
                raise ValueError("label_row_inds and Y differ in length")
            center = GroupCentering(g)
        self._center = center
        self._user_maxiter = maxiter is not None
        self._train()

    # -- set-up ---------------------------------------------------------------------
    def _setup_pko(self, pko, q):
        if not isinstance(pko, PairwiseKernelOperator):
            raise TypeError("pko must be a rlscore PairwiseKernelOperator")
        if pko.shape != (q, q):
            raise ValueError(f"pko must be a q x q training operator for the q = {q} "
                             f"labels, got shape {pko.shape}")
        self.kernelmode = True
        self.pko = pko
        self._op = pko
        c1, c2 = pko.original_col_inds_K1, pko.original_col_inds_K2
        self.input1_inds = self._stack(c1)
        self.input2_inds = self._stack(c2)
        self._pred_args = (c1, c2, pko.weights)

    @staticmethod
    def _stack(inds):
        if inds is None:
            return None
        if _is_list(inds) and len(inds) and np.ndim(inds[0]) == 1:
            if len(inds) == 1:
                return np.asarray(inds[0], dtype=np.int32)
            return np.array([np.asarray(v, dtype=np.int32) for v in inds])
        return np.asarray(inds, dtype=np.int32)

    def _setup_kernel(self, K1, K2, rows, cols, weights, q):
        self.kernelmode = True
        if self.pairwise_kernel != "kronecker":
            if _is_list(K1):
                raise ValueError("the symmetric / reciprocal kernel takes one kernel K1")
            K = check_square_kernel(K1, "K1")
            if K2 is not None:
                K2 = check_square_kernel(K2, "K2")
                if K2.shape != K.shape or not np.allclose(K2, K, rtol=1e-10, atol=0):
                    raise ValueError("the symmetric / reciprocal pairwise kernel needs one "
                                     "domain: K2 must equal K1 (or be omitted)")
            r = as_index_vector(rows, K.shape[0], "label_row_inds")
            c = as_index_vector(cols, K.shape[0], "label_col_inds")
            self._check_q(r, c, q)
            K, ext, rule = repair_kernel(K, self.indefinite, "K1", rule=True)
            self._spectra = [((ext, ext), ("K1", "K1"), 1.0)]
            self._repairs = None if rule is None else ([rule, rule], [rule, rule])
            sign = 1.0 if self.pairwise_kernel == "symmetric" else -1.0
            w = [0.5, 0.5 * sign]
            self.pko = PairwiseKernelOperator([K, K], [K, K], [r, r], [c, c], [r, c],
                                              [c, r], w)
            self._op = self.pko
            self.input1_inds, self.input2_inds = r, c
            self._pred_args = ([r, c], [c, r], w)
            return
        multi = _is_list(K1)
        if multi != _is_list(K2):
            raise ValueError("K1 and K2 must both be matrices or both be lists")
        K1s = [check_square_kernel(K, f"K1[{t}]" if multi else "K1")
               for t, K in enumerate(K1 if multi else [K1])]
        K2s = [check_square_kernel(K, f"K2[{t}]" if multi else "K2")
               for t, K in enumerate(K2 if multi else [K2])]
        T = len(K1s)
        if T == 0 or len(K2s) != T:
            raise ValueError("K1 and K2 must hold the same positive number of kernels")
        r = _per_term_inds(rows, T, [K.shape[0] for K in K1s], "label_row_inds")
        c = _per_term_inds(cols, T, [K.shape[0] for K in K2s], "label_col_inds")
        for t in range(T):
            self._check_q(r[t], c[t], q)
        w = None if weights is None else list(np.asarray(weights, dtype=np.float64))
        self._spectra = []
        rules = ([], [])
        for t in range(T):
            sfx = f"[{t}]" if multi else ""
            K1s[t], e1, r1 = repair_kernel(K1s[t], self.indefinite, "K1" + sfx, rule=True)
            K2s[t], e2, r2 = repair_kernel(K2s[t], self.indefinite, "K2" + sfx, rule=True)
            rules[0].append(r1)
            rules[1].append(r2)
            self._spectra.append(((e1, e2), ("K1" + sfx, "K2" + sfx),
                                  1.0 if w is None else float(w[t])))
        self._repairs = None
        if any(r is not None for side in rules for r in side):
            self._repairs = rules if multi else (rules[0][0], rules[1][0])
        if multi:
            self.pko = PairwiseKernelOperator(K1s, K2s, r, c, r, c, w)
            self.input1_inds, self.input2_inds = np.array(r), np.array(c)
            self._pred_args = (r, c, w)
        else:
            self.pko = PairwiseKernelOperator(K1s[0], K2s[0], r[0], c[0], r[0], c[0], w)
            self.input1_inds, self.input2_inds = r[0], c[0]
            self._pred_args = (r[0], c[0], w)
        self._op = self.pko

    def _setup_linear(self, X1, X2, rows, cols, weights, q):
        self.kernelmode = False
        multi = _is_list(X1)
        if multi != _is_list(X2):
            raise ValueError("X1 and X2 must both be matrices or both be lists")
        X1s = [self._dense(X, "X1") for X in (X1 if multi else [X1])]
        X2s = [self._dense(X, "X2") for X in (X2 if multi else [X2])]
        T = len(X1s)
        if T == 0 or len(X2s) != T:
            raise ValueError("X1 and X2 must hold the same positive number of matrices")
        d1, d2 = X1s[0].shape[1], X2s[0].shape[1]
        if any(X.shape[1] != d1 for X in X1s) or any(X.shape[1] != d2 for X in X2s):
            raise ValueError("in linear mode all X1 (and all X2) must have the same number "
                             "of features: the terms share one weight matrix")
        r = _per_term_inds(rows, T, [X.shape[0] for X in X1s], "label_row_inds")
        c = _per_term_inds(cols, T, [X.shape[0] for X in X2s], "label_col_inds")
        for t in range(T):
            self._check_q(r[t], c[t], q)
        w = np.ones(T) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if w.size != T:
            raise ValueError(f"weights must have one entry per term ({T})")
        prods = [SampledKronProduct(X2s[t], X1s[t], c[t], r[t], None, None)
                 for t in range(T)]
        from scipy.sparse.linalg import LinearOperator

        def mv(v):
            out = w[0] * prods[0].matvec(v)
            for wt, p in zip(w[1:], prods[1:]):
                out += wt * p.matvec(v)
            return out

        def rmv(u):
            out = w[0] * prods[0].rmatvec(u)
            for wt, p in zip(w[1:], prods[1:]):
                out += wt * p.rmatvec(u)
            return out

        self._op = LinearOperator((q, d1 * d2), matvec=mv, rmatvec=rmv, dtype=np.float64)
        self.input1_inds = r[0] if T == 1 else np.array(r)
        self.input2_inds = c[0] if T == 1 else np.array(c)
        self._pred_args = (None if weights is None else list(w),)

    @staticmethod
    def _dense(X, name):
        X = as_data_matrix(X, name=name)
        if not isinstance(X, np.ndarray):
            X = X.toarray()
        return np.ascontiguousarray(X, dtype=np.float64)

    @staticmethod
    def _check_q(r, c, q):
        if r.size != q or c.size != q:
            raise ValueError(f"label_row_inds ({r.size}), label_col_inds ({c.size}) and Y "
                             f"({q}) must have the same length")

    # -- training -----------------------------------------------------------------------
    def _make_predictor(self, x):
        if self.kernelmode:
            self.A = x
            c1, c2, w = self._pred_args
            self.predictor = KernelPairwisePredictor(x, c1, c2, w, repairs=self._repairs)
        else:
            self.W = x
            self.predictor = LinearPairwisePredictor(x, weights=self._pred_args[0])

    def _check_definite(self):
        """Refuse a regparam that leaves the system indefinite (indefinite factors)."""
        if not self._spectra:
            return
        if len(self._spectra) == 1:
            exts, names, wt = self._spectra[0]
            if wt > 0:
                check_kron_regparam(exts, names, self.regparam / wt)
            return
        # a sum of terms: the smallest eigenvalue is at least the sum of the terms' ones
        if all(e[0] >= 0 for exts, _, _ in self._spectra for e in exts):
            return
        bound = sum(min(wt * kron_min_eigenvalue(*exts), 0.0)
                    for exts, _, wt in self._spectra)
        if self.regparam + bound <= 0:
            raise ValueError(
                f"the factor kernels are indefinite and the weighted sum of Kronecker "
                f"kernels may have eigenvalues down to {bound:.6g}: use regparam > "
                f"{-bound:.6g}, or indefinite='clip' or 'shift'")

    def solve(self, regparam, warm_start=True):
        """Re-train for a new regparam, starting MINRES from the current solution
        (``warm_start=True``; the result equals a cold start to within ``tol``) or
        from zero. Same cost per iteration as training; usually fewer iterations
        along a path of close regparams."""
        self.regparam = check_regparam(regparam)
        x0 = None
        if warm_start:
            x0 = self.A if self.kernelmode else self.W
        self._train(x0=x0)

    def solve_path(self, regparams, warm_start=True):
        """Train for each regparam in turn (e.g. a decreasing grid), each run
        warm-started from the previous solution. Returns the list of predictors;
        ``path_iterations`` holds the MINRES iterations of each point. The learner is
        left at the last regparam."""
        regparams = [check_regparam(r) for r in np.atleast_1d(regparams)]
        if not regparams:
            raise ValueError("regparams is empty")
        predictors, its = [], []
        for k, lam in enumerate(regparams):
            self.solve(lam, warm_start=warm_start)
            predictors.append(self.predictor)
            its.append(self.iterations)
        self.path_iterations = its
        return predictors

    def _train(self, x0=None):
        self._check_definite()
        kind = "dual" if self.kernelmode else "primal"
        solver = KronMinres(kind, self._op, self.Y, self.regparam, self._center)
        self.iterations = 0
        cb_obj = self.callbackfun

        def cb(x):
            self.iterations += 1
            if cb_obj is not None:
                self._make_predictor(np.array(x, copy=True))
                cb_obj.callback(self)

        # compute_risk shows the objective of every iterate (on stderr, whatever verbose)
        risk = Progress("training objective", self.maxiter, True, bar=False, interval=0) \
            if self.compute_risk else None
        report = None if risk is None else (lambda it, obj: risk.step(objective=obj))
        res = solver.solve(self.maxiter, self.tol, cb, keep_best=self.compute_risk,
                           report=report, x0=x0)
        x, info = res.solution, res.info
        if risk is not None:
            risk.close()
        self.convergence_info = info
        if info > 0 and not (self.regparam == 0 and self._user_maxiter):
            warnings.warn(f"CGKronRLS stopped at maxiter={info} iterations before the "
                          f"relative residual reached tol={self.tol:g}; raise maxiter or "
                          f"regparam (an ill-conditioned or indefinite system converges "
                          f"slowly)", ConvergenceWarning, stacklevel=3)
        self._make_predictor(x)
        if cb_obj is not None and hasattr(cb_obj, "finished"):
            cb_obj.finished(self)

    # -- prediction ---------------------------------------------------------------------
    @property
    def repairs(self):
        return self._repairs

    def predict(self, X1=None, X2=None, inds_X1pred=None, inds_X2pred=None, pko=None, *,
                objects=None):
        """Predictions for test pairs: feature matrices (linear mode) or test-by-training
        kernels (kernel mode), full grid in vec_F order or the pairs
        (inds_X1pred[h], inds_X2pred[h]); lists for several kernel terms. With the
        symmetric / reciprocal kernel, ``predict(K1pred)`` (or with K1pred twice)
        predicts for pairs of the test objects. ``objects``: see
        :meth:`rlscore.predictor.KernelPairwisePredictor.predict`."""
        if pko is None and self.kernelmode and self.pairwise_kernel != "kronecker" \
                and not _is_list(X1):
            Kt = X1 if X2 is None else X2
            if X2 is not None and X1 is not None:
                a, b = np.asarray(X1), np.asarray(X2)
                if a.shape != b.shape or not np.array_equal(a, b):
                    raise ValueError("with a symmetric / reciprocal kernel both test "
                                     "kernels must be the same (one domain)")
            i = None if inds_X1pred is None else [inds_X1pred, inds_X1pred]
            j = None if inds_X2pred is None else [inds_X2pred, inds_X2pred]
            if objects is not None:
                objects = (objects[0], objects[0])
            return super().predict([Kt, Kt], [Kt, Kt], i, j, objects=objects)
        return super().predict(X1, X2, inds_X1pred, inds_X2pred, pko, objects=objects)
