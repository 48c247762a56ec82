"""Linear RankSVM: the pairwise hinge loss in O(m log m + nnz) per evaluation, trained
with the bundle method (Airola, Pahikkala & Salakoski, "Training linear ranking SVMs in
linearithmic time using red-black trees", Pattern Recognition Letters 32(9), 2011).

Objective (scored data, optionally query-structured; pairs only inside a query, label
ties are not pairs):

    J(w) = (regparam / 2) ||w||^2 + sum_q s_q sum_{(u, l) in q, y_u > y_l}
                                               max(0, 1 - w^T x_u + w^T x_l)

with the pair weight s_q given by ``normalize``:

* ``"pairs"`` (default, the bundle-method convention of the paper): s_q = 1 / N, N the
  number of pairs over all queries, so the loss is the mean pairwise hinge;
* ``"query"``: s_q = 1 / (Q' N_q), N_q the pairs of query q and Q' the number of queries
  that have pairs: the mean over queries of the mean hinge inside the query (Cao et al.
  2006);
* ``"none"``: s_q = 1, the plain sum over pairs (SVMlight ``-z p`` with C = 1 / regparam).

Relation to SVMrank (Joachims 2006, ``svm_rank_learn -c C``), which minimizes
(1/2) ||w||^2 + (C / n) sum_pairs xi with n the number of queries (its documentation:
C_light = C_rank / n): with ``normalize="pairs"`` the minimizers coincide when
``regparam = n / (C N)``, i.e. ``C = n / (regparam N)``; SVMlight's ``-z p -c C`` (and
scikit-learn's ``LinearSVC(loss="hinge", C=C, fit_intercept=False)`` on the explicit
pair differences) corresponds to ``regparam = 1 / (C N)``.

Each evaluation of the loss and a subgradient computes p = X w (O(nnz)), the counts
c_i, d_i of the margin-violating pairs in which example i is the lower / upper item
(O(m log m), :class:`rlscore._ext._ranksvm.RankingPairs`), the loss
sum_i s (c_i (1 + p_i) - d_i p_i) and the subgradient X^T (s (c - d)) (O(nnz)). Two
counting engines give identical counts: the paper's sweep with an order-statistic
red-black tree (``engine="rbtree"``), and, by default, sweeps in prediction order over a
bit-packed Fenwick tree (``engine="fenwick"``), which does the same O(log m) work per
example on a structure that stays in cache (docs/engines.rst compares them). Dense and CSR
input; any scipy sparse format is converted to CSR once.

Training uses the bundle method of :mod:`rlscore.core.optim`; for m >= 50000 it starts
from the solution on a random tenth of the data (recursively), see
:func:`solve_ranksvm`.

Squared hinge (``loss="squared_hinge"``): the same objective with the pair loss
max(0, 1 - w^T x_u + w^T x_l)^2 (the L2-loss RankSVM of Lee & Lin, "Large-scale linear
RankSVM", Neural Computation 26(4), 2014), i.e.

    J(w) = (regparam / 2) ||w||^2 + sum_q s_q sum_{(u, l) in q} max(0, 1 - p_u + p_l)^2.

Dividing by regparam gives Lee & Lin's (and LIBLINEAR's ``-c C``)
J2(w) = 1/2 ||w||^2 + C sum_pairs max(0, 1 - p_u + p_l)^2 with ``C = s / regparam``:
``C = 1 / (regparam N)`` for ``normalize="pairs"``, ``C = 1 / regparam`` for
``normalize="none"``; the minimizers coincide and J = regparam J2. It is
differentiable with a piecewise constant generalized Hessian, and is trained by the
trust-region Newton method (:func:`solve_ranksvm_newton`, :mod:`rlscore.core.optim`):
the gradient needs, per example, the counts and the sums of the partners' predictions
over the active pairs (:meth:`rlscore._ext._ranksvm.RankingPairs.squared_hinge`,
O(m log m)), and a Hessian-vector product H v = regparam v + X^T (2 s Lap (X v)), Lap
the Laplacian of the active-pair graph, the sums of X v over the same partners
(O(m log m) replaying the windows of the evaluation, no sort). Stopping rule of Lee &
Lin: ||grad J(w)|| <= rtol ||grad J(0)||, relative to the problem's own scale (the
gradient of the loss at w = 0), with a default rtol of 1e-10 (:data:`DEFAULT_RTOL`):
the distance to the minimizer is about ||H^-1|| ||grad J||, and at small regparam
||H^-1|| is up to 1 / regparam, so the 1e-3 customary for classifiers left models of
the same regparam differing by a quarter of the prediction range (dense or sparse
input, a start from another point); Newton's local convergence makes the last seven
digits cost a few steps. The bundle method also accepts this loss.

Kernel RankSVM works through an empirical kernel map: the Cholesky factor L of the
kernel matrix (K = L L^T, O(m^3 / 3); an eigendecomposition when K is singular) or the
Nystrom features of a reduced set, on which the linear solver runs; the weights map
back to dual coefficients A = L^{-T} w.
"""

import warnings
from dataclasses import replace

import numpy as np
import scipy.linalg as la

from rlscore.core.optim import BMRMOptions, TRONOptions, bmrm, tron
from rlscore.core.nystrom import build_representation
from rlscore.core.optim import ConvergenceWarning, SolverResult
from rlscore.core.ranksvm._risk import (LOSSES, NORMALIZATIONS, PairRisk, RankingRisk,
                                        SquaredRankingRisk, _as_features, _check_normalize,
                                        check_utilities, pair_structure, pair_weights)
from rlscore.core.ranksvm._options import RankSVMOptions
from rlscore._validation import check_regparam
from rlscore.predictor import LinearPredictor

__all__ = [
    "ConvergenceWarning", "RankingRisk", "pair_weights", "PairRisk", "RankSVMSolution",
    "ranksvm_result", "solution_attributes", "SOLUTION_ATTRIBUTES",
    "check_utilities", "ranksvm_regparam", "solve_ranksvm", "fit_linear_ranksvm",
    "fit_pairwise_ranksvm", "empirical_kernel_map", "fit_kernel_ranksvm",
    "NORMALIZATIONS", "LOSSES",
    "SquaredRankingRisk", "solve_ranksvm_newton", "make_risk",
    "train_ranksvm", "pair_structure", "run_newton",
]

# ---------------------------------------------------------------------------------------
# input checking (the options' own checks live in _options: RankSVMOptions)


def ranksvm_regparam(regparam, name="regparam"):
    """regparam as a float > 0 (the bundle method needs strong convexity)."""
    value = check_regparam(regparam, name=name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0 for RankSVM, got {regparam!r}")
    return value


# ---------------------------------------------------------------------------------------
# training


def ranksvm_result(result, regparam, loss, risk=None):
    """Complete the :class:`~rlscore.core.optim.SolverResult` of the bundle
    method or of TRON into a trained linear RankSVM: both methods then carry the same
    extras (in place; returns ``result``).

    Extras added: ``regparam``; ``loss`` ("hinge" or "squared_hinge");
    ``duality_gap`` (J(w) - the lower bound of min J: the suboptimality is at most
    this; nan for Newton) and ``lower_bound`` (nan for Newton); ``risk`` (the loss part
    of J(w)); ``bundle`` (the cutting planes; None for Newton); ``grad_norm``,
    ``grad_norm0`` (nan for the bundle method) and ``cg_iterations`` (0 for it);
    ``warm_start_iterations`` (the iterations spent on random subsets first, see
    :func:`solve_ranksvm`; 0 here). ``iterations`` counts risk and subgradient
    evaluations (bundle) or Newton steps; ``converged`` means duality_gap <= rtol R(0)
    (bundle) or grad_norm <= rtol grad_norm0 (Newton). O(1).
    """
    result.regparam = regparam
    result.loss = loss
    result.warm_start_iterations = 0
    if result.solver == "newton":
        result.risk = risk
        result.duality_gap = result.lower_bound = float("nan")
        result.bundle = None
    else:
        result.duality_gap = result.gap
        result.grad_norm = result.grad_norm0 = float("nan")
        result.cg_iterations = 0
    return result


#: What the RankSVM faces (:mod:`rlscore.learner`, :mod:`rlscore.distributed`) show of a
#: trained solution as attributes of the same names, beside ``solution`` itself.
SOLUTION_ATTRIBUTES = ("regparam", "iterations", "duality_gap", "objective", "converged",
                       "history")


def solution_attributes(solution):
    """The attributes a RankSVM face copies from a trained solution (completed by
    :func:`ranksvm_result`): ``{"solution": solution}`` plus the
    :data:`SOLUTION_ATTRIBUTES` read from it. O(1)."""
    out = {"solution": solution}
    out.update((name, getattr(solution, name)) for name in SOLUTION_ATTRIBUTES)
    return out


#: A trained linear RankSVM is a :class:`rlscore.core.optim.SolverResult`
#: completed by :func:`ranksvm_result`; the old name stays importable.
RankSVMSolution = SolverResult


#: Below this many examples no subsample warm start is used (bundle method).
WARM_START_MIN = 50000
#: The same for the Newton method, whose steps on a subset are cheaper relative to the
#: ones they save on all the data (6 -> 2-3 Newton steps from m = 10^4 on).
NEWTON_WARM_START_MIN = 5000
#: The Newton method's tolerance on those random subsets (the start of the full
#: problem, whose own tolerance decides the result).
SUBSET_TOL = 1e-3


def solve_ranksvm(risk, regparam, *, options=None, x0=None, bundle=None, callback=None):
    """Train a linear RankSVM on a risk oracle (:class:`RankingRisk` or
    :class:`PairRisk`) with the bundle method.

    ``options`` (:class:`RankSVMOptions` for ``optimizer="bundle"``; None: the defaults)
    gives ``rtol`` (default 1e-3), relative to R(0) = risk.scale (1 for the normalized
    losses, so it is the absolute duality gap in the units of J; N for
    ``normalize="none"``), ``maxiter`` (default 1000 risk evaluations), ``verbose``,
    ``warn`` (a :class:`ConvergenceWarning` when ``maxiter`` is reached first) and
    ``warm_start``. ``x0`` is the start (default 0), ``bundle`` the cutting planes of an
    earlier run (:class:`rlscore.core.optim.BMRMOptions`), ``callback`` as in
    :func:`rlscore.core.optim.bmrm`.

    ``warm_start="auto"`` (scored data with at least ``WARM_START_MIN`` examples, no
    ``x0`` or ``bundle`` given): first train on a random tenth of the examples (of the
    queries), recursively, and start from that solution. The subset's solution is
    already close to the full one, so the bundle method on all the data needs several
    times fewer iterations (e.g. 36 -> 5 at m = 2 10^5, regparam 1e-3) for a tenth of
    their cost. The result is the solution of the full problem to ``rtol`` either way
    (the stopping test does not depend on the start). None disables it.

    Returns
    -------
    SolverResult (``solver="bundle"``, completed by :func:`ranksvm_result`;
    ``warm_start_iterations``: the iterations spent on the subsets)

    Notes
    -----
    O(1 / (regparam rtol)) iterations at worst, each O(m log m + nnz) (one evaluation of
    the risk) plus O(d t) for t <= 100 cutting planes.
    """
    options = RankSVMOptions() if options is None else options.using("bundle")
    regparam = ranksvm_regparam(regparam)
    tol, max_iter = options.rtol, options.maxiter
    sub_iterations = 0
    if options.warm_start == "auto" and x0 is None and bundle is None and \
            hasattr(risk, "subsample") and risk.m >= WARM_START_MIN:
        sub = risk.subsample(0.1)
        if sub is not None:
            sub_risk, factor = sub
            sub_sol = solve_ranksvm(sub_risk, regparam * factor,
                                    options=replace(options, warn=False, verbose=False))
            x0 = sub_sol.w
            sub_iterations = sub_sol.iterations + sub_sol.warm_start_iterations
    result = bmrm(risk, risk.dim, regparam, atol=tol * risk.scale, maxiter=max_iter,
                  x0=x0, callback=callback,
                  options=BMRMOptions(bundle=bundle, verbose=options.verbose))
    if options.warn and not result.converged and result.iterations >= max_iter:
        warnings.warn(
            f"RankSVM did not converge in max_iter={max_iter} iterations: duality gap "
            f"{result.gap:.3g} > tol {tol:g} (relative to R(0)); increase max_iter or "
            f"regparam", ConvergenceWarning, stacklevel=3)
    sol = ranksvm_result(result, regparam, "squared_hinge" if hasattr(
        risk, "newton_oracle") else "hinge")
    sol.warm_start_iterations = sub_iterations
    return sol


def solve_ranksvm_newton(risk, regparam, *, options=None, x0=None, callback=None):
    """Train the squared-hinge linear RankSVM with the trust-region Newton method.

    Minimizes J(w) = regparam / 2 ||w||^2 + R(w) for a :class:`SquaredRankingRisk` R
    until ||grad J(w)|| <= rtol ||grad J(0)|| (the rule of Lee & Lin 2014; J = regparam
    J2, so the test is the same for J2).

    Parameters
    ----------
    risk : SquaredRankingRisk (or any squared-hinge risk with ``newton_oracle``,
        ``zero_gradient``, ``subsample``, ``m`` and ``dim``, e.g.
        :class:`SquaredSurvivalRankingRisk`)
    regparam : float > 0
    options : RankSVMOptions for ``optimizer="newton"``, or None (the defaults of
        ``loss="squared_hinge"``):

        - ``rtol`` default 1e-10 (:data:`DEFAULT_RTOL`), tight enough that the model
          does not depend on the start, on dense or sparse input or on all-zero
          columns (predictions agree to ~1e-7 relative at regparam 1e-6 on LETOR
          MQ2008, where 1e-3 left differences of 0.3 on a range of 3.3);
        - ``maxiter``: Newton steps, default 100 (a ConvergenceWarning when reached,
          unless ``warn`` is False);
        - ``warm_start``: "auto" or None. "auto" without ``x0``, for at least
          ``NEWTON_WARM_START_MIN`` (5000) examples: start from the solution on a
          random tenth of the examples (queries), recursively, solved to
          ``max(rtol, SUBSET_TOL)`` (the stopping test on all the data does not depend
          on the start);
        - ``verbose``, ``eps_cg`` (CG stops at ||r|| <= eps_cg ||g||).
    x0 : ndarray (dim,), optional start (e.g. the solution for a neighbouring
        regparam on a regularization path)
    callback : see :func:`rlscore.core.optim.tron`

    Returns
    -------
    SolverResult (``solver="newton"``, see :func:`ranksvm_result`; ``grad_norm``,
    ``grad_norm0``, ``cg_iterations``; ``duality_gap`` is nan)

    Notes
    -----
    Each Newton step costs one evaluation (X^T coef, a sort and the sweeps,
    O(m log m + nnz); the predictions X w come from the CG directions' X d) and one
    Hessian-vector product per CG iteration (X v, the replayed sweeps, X^T u:
    O(m log m + nnz)); 5-30 Newton steps to the default rtol are typical (more at
    small regparam, where the Hessian is ill-conditioned).
    """
    if not hasattr(risk, "newton_oracle"):
        raise TypeError("solve_ranksvm_newton needs a squared-hinge risk with a "
                        "newton_oracle (SquaredRankingRisk, SquaredSurvivalRankingRisk): "
                        "the Newton method needs the squared hinge")
    options = RankSVMOptions(loss="squared_hinge") if options is None else \
        options.using("newton")
    regparam = ranksvm_regparam(regparam)
    sub_iterations = 0
    if x0 is not None:
        x0 = np.asarray(x0, dtype=np.float64).ravel()
        if x0.shape != (risk.dim,) or not np.all(np.isfinite(x0)):
            raise ValueError(f"x0 (the start w0 of the weights) must be a finite vector "
                             f"of length {risk.dim}")
    elif options.warm_start == "auto" and risk.m >= NEWTON_WARM_START_MIN:
        sub = risk.subsample(0.1)
        if sub is not None:
            sub_risk, factor = sub
            # the subset's solution is only a starting point: its own tolerance
            # need not be tighter than the default of the bundle method's start
            sub_sol = solve_ranksvm_newton(
                sub_risk, regparam * factor,
                options=replace(options, rtol=max(options.rtol, SUBSET_TOL), warn=False,
                                verbose=False))
            x0 = sub_sol.w
            sub_iterations = sub_sol.iterations + sub_sol.warm_start_iterations
    if x0 is None:
        x0 = np.zeros(risk.dim)
    gnorm0 = float(np.linalg.norm(risk.zero_gradient()))
    sol = run_newton(risk.newton_oracle(regparam), x0, regparam, gnorm0, options=options,
                     callback=callback)
    sol.warm_start_iterations = sub_iterations
    return sol


def run_newton(oracle, x0, regparam, grad_norm0, *, options=None, callback=None):
    """TRON on a squared-hinge Newton oracle (one machine's or a distributed one) from
    ``x0``, stopping at ||grad J(w)|| <= options.rtol * grad_norm0; a
    ConvergenceWarning when ``options.maxiter`` stops it first (``options.warn``).
    ``options``: :class:`RankSVMOptions` for ``optimizer="newton"`` (None: the
    defaults of the squared hinge). Returns a
    :class:`~rlscore.core.optim.SolverResult` (see :func:`ranksvm_result`).
    Cost: that of :func:`rlscore.core.optim.tron` with the oracle's products."""
    options = RankSVMOptions(loss="squared_hinge") if options is None else \
        options.using("newton")
    tol, max_iter = options.rtol, options.maxiter
    result = tron(oracle, x0, rtol=tol, maxiter=max_iter, callback=callback,
                  grad_norm0=grad_norm0,
                  options=TRONOptions(eps_cg=options.eps_cg, verbose=options.verbose))
    if options.warn and not result.converged and result.iterations >= max_iter:
        warnings.warn(
            f"RankSVM (Newton) did not converge in max_iter={max_iter} steps: gradient "
            f"norm {result.grad_norm:.3g} > tol {tol:g} x {grad_norm0:.3g}; increase "
            f"max_iter", ConvergenceWarning, stacklevel=4)
    return ranksvm_result(result, regparam, "squared_hinge", risk=result.point.loss)


def make_risk(X, y, qids=None, loss="hinge", normalize="pairs", n_threads=1):
    """The risk oracle of a loss: :class:`RankingRisk` or :class:`SquaredRankingRisk`."""
    cls = SquaredRankingRisk if loss == "squared_hinge" else RankingRisk
    return cls(X, y, qids, normalize=normalize, n_threads=n_threads)


def train_ranksvm(risk, regparam, options, *, x0=None, bundle=None, callback=None):
    """Dispatch on ``options.optimizer`` (:class:`RankSVMOptions`) to
    :func:`solve_ranksvm` (``"bundle"``) or :func:`solve_ranksvm_newton`
    (``"newton"``). ``bundle`` is only used by the bundle method; ``x0`` and
    ``callback`` are passed to either."""
    if options.optimizer == "newton":
        return solve_ranksvm_newton(risk, regparam, options=options, x0=x0,
                                    callback=callback)
    return solve_ranksvm(risk, regparam, options=options, x0=x0, bundle=bundle,
                         callback=callback)


def fit_linear_ranksvm(X, y, qids=None, regparam=1.0, *, n_threads=1, callback=None,
                       options=None):
    """Linear RankSVM on scored data: (solution, risk). See :class:`RankingRisk`,
    :class:`SquaredRankingRisk`, :func:`solve_ranksvm` and :func:`solve_ranksvm_newton`;
    ``options`` (:class:`RankSVMOptions`, None: the defaults) holds the loss, its
    normalization, the optimizer and its stopping rule (rtol None: the optimizer's
    default, :data:`DEFAULT_RTOL`: 1e-3 bundle, 1e-10 Newton; maxiter None: 1000
    bundle iterations or 100 Newton steps) and ``warm_start`` ("auto", the subsample
    start of the solvers, or None: start at w = 0, as :mod:`rlscore.distributed`
    does)."""
    options = RankSVMOptions() if options is None else options
    regparam = ranksvm_regparam(regparam)
    risk = make_risk(X, y, qids, options.loss, options.normalize, n_threads)
    return train_ranksvm(risk, regparam, options, callback=callback), risk


def fit_pairwise_ranksvm(X, starts, ends, regparam=1.0, *, weights=None, callback=None,
                         options=None):
    """Linear RankSVM on explicit preference pairs: (solution, risk). See
    :class:`PairRisk`. ``options`` (:class:`RankSVMOptions`, hinge loss and bundle
    method): ``options.normalize`` "pairs" (default) takes the (weighted) mean over the
    pairs, "none" their sum."""
    options = RankSVMOptions() if options is None else options
    regparam = ranksvm_regparam(regparam)
    if options.normalize not in ("pairs", "none"):
        raise ValueError(f"normalize must be 'pairs' (the mean) or 'none' (the sum) for "
                         f"explicit pairs, got {options.normalize!r}")
    risk = PairRisk(X, starts, ends, weights=weights,
                    normalize=options.normalize == "pairs")
    return solve_ranksvm(risk, regparam, options=options, callback=callback), risk


# ---------------------------------------------------------------------------------------
# kernels through the empirical kernel map


def empirical_kernel_map(X, kernel="GaussianKernel", basis_vectors=None, **kernel_params):
    """Features on which a linear RankSVM trains the kernel RankSVM, and the map back.

    Returns ``(Phi, to_predictor)``: Phi is (m, r) and ``to_predictor(w)`` gives the
    predictor of the kernel model for the weights w (r,).

    * Linear kernel without basis vectors: Phi = X (a bias has no effect on pairwise
      losses and is dropped), a :class:`~rlscore.predictor.LinearPredictor`.
    * Reduced set (``basis_vectors``): the Nystrom features of
      :func:`rlscore.core.nystrom.build_representation`, O(m b^2 + b^3).
    * Otherwise the full map: K = L L^T (Cholesky, O(m^3 / 3), O(m^2) memory), Phi = L
      and dual coefficients A = L^{-T} w; when K is singular, K = E diag(nu) E^T with
      Phi = E diag(nu^1/2) and A = E diag(nu^-1/2) w over the nonzero eigenvalues.
      ValueError if K has a clearly negative eigenvalue (not a kernel matrix).
    """
    params = dict(kernel_params)
    reduced = basis_vectors is not None or params.get("basis_indices") is not None \
        or params.get("n_basis") is not None
    if kernel == "LinearKernel" and not reduced:
        Phi = _as_features(X)
        return Phi, lambda w: LinearPredictor(np.asarray(w, dtype=np.float64), 0.0)
    if kernel == "LinearKernel":
        params["bias"] = 0.0
    rep = build_representation(X, kernel, basis_vectors, prefer="primal", **params)
    if rep.kind == "primal":
        return rep.matrix, rep.predictor
    K = rep.matrix
    try:
        L = la.cholesky(K, lower=True, check_finite=False)
        if not np.all(np.isfinite(L)) or np.min(np.abs(np.diag(L))) <= \
                1e-10 * np.sqrt(max(np.max(np.diag(K)), 1e-300)):
            raise la.LinAlgError("ill-conditioned")

        def to_predictor(w):
            A = la.solve_triangular(L, w, lower=True, trans="T", check_finite=False)
            return rep.predictor(A)
        return L, to_predictor
    except la.LinAlgError:
        from rlscore.core.optim import psd_eigh
        nu, E = psd_eigh(K)
        if nu.min() < -1e-8 * max(nu.max(), 0.0):
            raise ValueError(f"the kernel matrix is not positive semidefinite (smallest "
                             f"eigenvalue {nu.min():.3g}): not a kernel matrix") from None
        keep = nu > 0
        if not np.any(keep):
            raise ValueError("the kernel matrix is zero") from None
        s = np.sqrt(nu[keep])
        Phi = E[:, keep] * s
        T = E[:, keep] / s
        return np.ascontiguousarray(Phi), lambda w: rep.predictor(T @ w)


def fit_kernel_ranksvm(X, y, qids=None, regparam=1.0, kernel="GaussianKernel",
                       basis_vectors=None, *, callback=None, options=None,
                       **kernel_params):
    """Kernel RankSVM through :func:`empirical_kernel_map`: (solution, predictor).

    The solution's ``w`` holds the weights of the map's features; ``options`` as in
    :func:`fit_linear_ranksvm`.

    Notes
    -----
    The map costs O(m^2 d + m^3 / 3) (full kernel) or O(m b d + m b^2) (b basis
    vectors); each bundle iteration then O(m r + m log m) with r = m or b.
    """
    options = RankSVMOptions() if options is None else options
    regparam = ranksvm_regparam(regparam)
    _check_normalize(options.normalize)
    shape = getattr(X, "shape", None)
    m = shape[0] if shape else np.asarray(X).shape[0]
    y = check_utilities(y, m)
    # the labels and the query structure are checked before the (expensive) kernel map
    pair_structure(y, qids, m)
    Phi, to_predictor = empirical_kernel_map(X, kernel, basis_vectors, **kernel_params)
    risk = make_risk(Phi, y, qids, options.loss, options.normalize)
    sol = train_ranksvm(risk, regparam, options, callback=callback)
    return sol, to_predictor(sol.w)
