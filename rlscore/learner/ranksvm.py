"""Linear RankSVM with RLScore's interface (the constructor trains): scored and
query-structured data (:class:`LinearRankSVM`), explicit preference pairs
(:class:`PPLinearRankSVM`), kernels through the empirical kernel map
(:class:`KernelRankSVM`) and regparam selection by K-fold cross-validation over queries
(:class:`KfoldLinearRankSVM`).

The default solver is the bundle method over the pairwise hinge loss evaluated in
O(m log m + nnz) with an order-statistic structure (Airola, Pahikkala & Salakoski
2011). ``loss="squared_hinge"`` trains the L2-loss RankSVM of Lee & Lin (2014) with a
trust-region Newton method (``solver="newton"``, the default for that loss). See
:mod:`rlscore.core.ranksvm` for the objectives, their normalizations and the mapping to
SVMrank's and LIBLINEAR's C.
"""

from rlscore.core.ranksvm import (RankSVMOptions, fit_kernel_ranksvm, fit_linear_ranksvm,
                                  fit_pairwise_ranksvm, kfold_ranksvm, solution_attributes)
from rlscore._validation import check_bias, check_positive_int, warn_unused_kwargs
from rlscore.learner._common import VERBOSE_DOC, reports_progress, split_kernel_kwargs
from rlscore.predictor import LinearPredictor, PredictorInterface

__all__ = ["LinearRankSVM", "PPLinearRankSVM", "KernelRankSVM", "KfoldLinearRankSVM"]


class _SolutionAttributes:
    """Copies the solver's outcome onto the learner
    (:func:`rlscore.core.ranksvm.solution_attributes`: solution, regparam, iterations,
    duality_gap, objective, converged, history)."""

    def _store(self, solution):
        vars(self).update(solution_attributes(solution))


class LinearRankSVM(PredictorInterface, _SolutionAttributes):
    """Linear RankSVM (pairwise hinge or squared hinge loss); trains in the constructor.

    Minimizes exactly

        J(w) = (regparam / 2) ||w||^2
               + (1 / N) sum_{(i, j): y_i > y_j, same query} l(1 - w^T x_i + w^T x_j)

    with l(r) = max(0, r) (``loss="hinge"``, default, trained with the bundle method)
    or l(r) = max(0, r)^2 (``loss="squared_hinge"``, trained with a trust-region Newton
    method by default), and N the number of such pairs (``normalize="pairs"``, the
    bundle-method convention of Airola et al. 2011); label ties are not pairs and pairs
    never cross queries.

    Hinge: SVMrank's ``-c C`` (objective (1/2)||w||^2 + (C / n) sum xi over n queries)
    gives the same minimizer for ``regparam = n / (C N)``; SVMlight ``-z p -c C`` and
    ``LinearSVC(loss="hinge", C=C, fit_intercept=False)`` on the pair differences for
    ``regparam = 1 / (C N)``. Squared hinge: J = regparam J2 for Lee & Lin's
    J2(w) = 1/2 ||w||^2 + C sum_pairs max(0, 1 - w^T x_i + w^T x_j)^2 (LIBLINEAR's
    RankSVM ``-c C``) with ``C = 1 / (regparam N)``, i.e. ``regparam = 1 / (C N)``
    (``normalize="none"``: ``regparam = 1 / C``).

    Parameters
    ----------
    X : array-like or sparse matrix (m, d)
        Any scipy sparse format (converted to CSR once).
    Y : array-like (m,) or (m, 1)
        Real-valued utilities (any number of distinct values).
    qids : sequence (m,), optional
        Query ids: pairs are formed inside each query only. Queries of one example are
        allowed and contribute no pairs.
    regparam : float > 0, default 1.0
    bias : float >= 0, default 0.0
        Accepted for RLScore compatibility: a constant feature cancels in every pairwise
        difference, so the model (and ``predictor.b`` = 0) does not depend on it.
    tol : float in (0, 1) or None, default None
        Bundle method: stop when the duality gap (an upper bound of J(w) - min J) is
        <= tol * R(0), where R(0) is the loss of w = 0 (1 for the normalized losses);
        None means 1e-3. Newton method: stop when ||grad J(w)|| <= tol *
        ||grad J(0)||; None means 1e-10, tight enough that the model does not depend
        on dense or sparse input, all-zero columns or the start (at small regparam the
        Hessian is ill-conditioned, and 1e-3 left models of one regparam that differ
        visibly; see :data:`rlscore.core.ranksvm.DEFAULT_RTOL`).
    max_iter : int, optional
        Maximum number of loss evaluations (bundle, default 1000) or Newton steps
        (default 100); a ``ConvergenceWarning`` is emitted when it is reached first.
    loss : "hinge" (default) or "squared_hinge"
    solver : "bundle", "newton" or None (default: "bundle" for the hinge, "newton" for
        the squared hinge). The Newton method needs the squared hinge (ValueError
        otherwise).
    n_threads : int, default 1
        OpenMP threads of the counting / summing sweeps (used from m = 50000 on for
        the squared hinge).
    callback : callable or object with ``callback(info)`` (and optionally
        ``finished(info)``), optional
        Called after each iteration with a dict (iteration, objective, best_objective,
        lower_bound, gap, n_planes, time, w); returning True stops training.
    normalize : "pairs" (default), "query" or "none"
        ``"query"``: the loss is the mean over queries of the mean hinge inside the
        query; ``"none"``: the plain sum over pairs.
    verbose : bool, default False
        Show one line per iteration (objective, gap or gradient norm) on stderr; it is
        logged either way (logger ``"rlscore"``, see :doc:`/progress`).
    warm_start : "auto" (default) or None
        "auto": from m = 5000 examples (Newton) or 50000 (bundle) on, start from the
        solution on a random tenth of the data (see Notes). None: start at w = 0, as
        :class:`rlscore.distributed.LinearRankSVM` does, whose model is then this one
        up to round-off.
    **kwargs : ignored with a UserWarning.

    Attributes
    ----------
    predictor : LinearPredictor (W of shape (d,), b = 0)
    iterations : int, loss and subgradient evaluations (bundle) or Newton steps
    duality_gap : float, J(w) minus the best lower bound of min J (nan for Newton,
        see ``solution.grad_norm``)
    objective : float, J(w)
    converged : bool
    regparam : float
    n_pairs : int
    solution : rlscore.core.optim.SolverResult (history, cutting planes)

    Raises
    ------
    ValueError
        NaN/inf, mismatched lengths, qids of the wrong length, no pairs (all utilities
        equal within every query), regparam <= 0, Y with several columns.

    Notes
    -----
    Each iteration costs O(m log m + nnz): X w, the counts of margin-violating pairs per
    example (an order-statistic structure swept in prediction order), and X^T (c - d).
    A Newton step (squared hinge) costs one such evaluation, with the sums of the
    partners' predictions besides the counts, plus one Hessian-vector product per
    conjugate-gradient iteration (O(m log m + nnz), no sort); 5-30 steps to the
    default tol are typical (more at small regparam).
    The number of iterations is O(1 / (regparam tol)) at worst, far fewer in practice;
    from m = 50000 examples on (5000 for the Newton method), a solution on a random
    tenth of the data (recursively) is the starting point, which typically leaves 5-10
    bundle iterations on all the data (``solution.warm_start_iterations`` counts the
    others); the stopping test is on all the data either way.
    """

    @reports_progress
    def __init__(self, X, Y, qids=None, regparam=1.0, bias=0.0, tol=None, max_iter=None,
                 callback=None, normalize="pairs", verbose=False, loss="hinge",
                 solver=None, n_threads=1, warm_start="auto", **kwargs):
        warn_unused_kwargs(kwargs, (), type(self).__name__)
        self.bias = check_bias(bias)
        options = RankSVMOptions(loss=loss, optimizer=solver, rtol=tol, maxiter=max_iter,
                                 normalize=normalize, warm_start=warm_start,
                                 verbose=verbose)
        self.loss, self.solver = options.loss, options.optimizer
        solution, risk = fit_linear_ranksvm(X, Y, qids, regparam, n_threads=n_threads,
                                            callback=callback, options=options)
        self.n_pairs = risk.n_pairs
        self._store(solution)
        self.predictor = LinearPredictor(solution.w, 0.0)


class PPLinearRankSVM(PredictorInterface, _SolutionAttributes):
    """Linear RankSVM from explicit preference pairs; trains in the constructor.

    Minimizes (regparam / 2) ||w||^2 + (1 / l) sum_k max(0, 1 - w^T x_{s_k} + w^T x_{e_k})
    over the l pairs (s_k preferred over e_k), as ``PPRankRLS`` takes its pairs.

    Parameters
    ----------
    X : array-like or sparse matrix (m, d)
    pairs_start_inds, pairs_end_inds : int sequences (l,)
        Example ``pairs_start_inds[k]`` is preferred over ``pairs_end_inds[k]``;
        repeated pairs count repeatedly.
    regparam : float > 0, default 1.0
    weights : positive floats (l,), optional
        Pair weights v_k: the loss is sum_k v_k hinge_k / sum_k v_k.
    normalize : bool, default True
        False: the plain (weighted) sum over pairs.
    tol, max_iter, callback, verbose : as for :class:`LinearRankSVM`
    **kwargs : ignored with a UserWarning (``bias`` silently: it has no effect).

    Attributes
    ----------
    predictor, iterations, duality_gap, objective, converged, regparam, n_pairs,
    solution : as for :class:`LinearRankSVM`

    Raises
    ------
    ValueError
        Index lists of different lengths or empty, a pair joining an example with
        itself, NaN/inf, regparam <= 0. IndexError for indices outside 0 .. m - 1.

    Notes
    -----
    O(nnz + l) per iteration.
    """

    @reports_progress
    def __init__(self, X, pairs_start_inds, pairs_end_inds, regparam=1.0, tol=1e-3,
                 max_iter=1000, callback=None, weights=None, normalize=True,
                 verbose=False, **kwargs):
        if "bias" in kwargs:
            check_bias(kwargs.pop("bias"))
        warn_unused_kwargs(kwargs, (), type(self).__name__)
        options = RankSVMOptions(rtol=tol, maxiter=max_iter,
                                 normalize="pairs" if normalize else "none",
                                 verbose=verbose)
        solution, risk = fit_pairwise_ranksvm(X, pairs_start_inds, pairs_end_inds,
                                              regparam, weights=weights, callback=callback,
                                              options=options)
        self.n_pairs = risk.n_pairs
        self._store(solution)
        self.predictor = LinearPredictor(solution.w, 0.0)


class KernelRankSVM(PredictorInterface, _SolutionAttributes):
    """Kernel RankSVM through the empirical kernel map; trains in the constructor.

    The kernel matrix is factored, K = L L^T (Cholesky; an eigendecomposition when K is
    singular), the linear RankSVM is trained on the rows of L, and the weights map back
    to dual coefficients A = L^{-T} w, so f(x) = k(x, X) A minimizes
    (regparam / 2) A^T K A + (1 / N) sum_pairs max(0, 1 - f(x_i) + f(x_j)). With
    ``basis_vectors`` the reduced-set (Nystrom) features are used instead.

    Parameters
    ----------
    X : array-like (m, d), or the kernel matrix for ``kernel="PrecomputedKernel"``
    Y, qids, regparam, tol, max_iter, callback, normalize, verbose, loss, solver : as
        for :class:`LinearRankSVM`
    kernel : "GaussianKernel" (default), "PolynomialKernel", "LinearKernel",
        "RsetKernel" or "PrecomputedKernel" (alias
        "precomputed")
    basis_vectors : basis rows for a reduced-set model (or the basis kernel matrix)
    basis_indices, n_basis, random_state : keywords, the basis as indices into X or
        drawn uniformly (the decomposed Nystrom map of
        :mod:`rlscore.core.rls`); predictions need b kernel evaluations
    **kwargs : kernel parameters (gamma, coef0, degree); others ignored with a
        UserWarning.

    Attributes
    ----------
    predictor : KernelPredictor (or LinearPredictor for the linear and precomputed
        kernels)
    A : dual coefficients (m,) (or (b,) with basis vectors)
    iterations, duality_gap, objective, converged, regparam, solution : as for
        :class:`LinearRankSVM` (``solution.w`` holds the weights of the map).

    Notes
    -----
    O(m^2 d) for the kernel matrix and O(m^3 / 3) for its Cholesky factor (O(m^2)
    memory), then O(m^2 + m log m) per bundle iteration. With b basis vectors:
    O(m b d + m b^2), then O(m b + m log m) per iteration.
    """

    @reports_progress
    def __init__(self, X, Y, qids=None, regparam=1.0, kernel="GaussianKernel",
                 basis_vectors=None, tol=None, max_iter=None, callback=None,
                 normalize="pairs", verbose=False, loss="hinge", solver=None, **kwargs):
        params = split_kernel_kwargs(kwargs, kernel, type(self).__name__,
                                     force={"bias": 0.0},
                                     basis=("basis_indices", "n_basis", "random_state"))
        options = RankSVMOptions(loss=loss, optimizer=solver, rtol=tol, maxiter=max_iter,
                                 normalize=normalize, verbose=verbose)
        self.loss, self.solver = options.loss, options.optimizer
        solution, predictor = fit_kernel_ranksvm(
            X, Y, qids, regparam, kernel, basis_vectors, callback=callback,
            options=options, **params)
        self._store(solution)
        self.predictor = predictor

    @property
    def A(self):
        return getattr(self.predictor, "A", getattr(self.predictor, "W", None))


class KfoldLinearRankSVM(PredictorInterface):
    __doc__ = f"""Linear RankSVM with regparam chosen by K-fold cross-validation over queries
    (no leave-pair-out: every fold is a set of whole queries).

    Parameters
    ----------
    X, Y, qids, tol, max_iter, normalize : as for :class:`LinearRankSVM`
    folds : list of index lists, optional
        Disjoint (a ValueError names a row in two folds). Default: ``n_folds`` random
        folds of whole queries (of examples without qids).
    n_folds : int, default 5
    regparams : sequence of floats > 0, default 10^-6, 10^-5, ..., 10^2
    measure : f(Y, P) with an ``iserror`` attribute, optional
        Default: the c-index. With qids every measure is per query: the mean over the
        fold's queries of the measure on each query, queries where it is undefined
        (e.g. without a pair) skipped (:func:`rlscore.core.selection.query_score`; a
        measure with a ``qids`` parameter is called with the fold's query ids).
    seed : int, default 0, for the random folds
    loss, solver : as for :class:`LinearRankSVM`. Every training (each fold, each
        regparam) starts cold, exactly as :class:`LinearRankSVM` on the fold's rows:
        the estimate at a regparam does not depend on the rest of the grid.
    **kwargs : ignored with a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    regparam : the selected value
    cv_performances : ndarray (n_regparams,), mean over the folds
    fold_performances : ndarray (n_regparams, n_folds)
    regparams : ndarray, the grid
    folds : the folds used
    predictor : LinearPredictor trained on all the data with ``regparam``
    solution : rlscore.core.optim.SolverResult of that final training
        (iterations, duality_gap, objective, converged, history)
    iterations, duality_gap : of the final training

    Notes
    -----
    K x n_regparams trainings on (K - 1)/K of the data, each from a cold start,
    O(iterations (m log m + nnz)) each.
    """

    @reports_progress
    def __init__(self, X, Y, qids=None, folds=None, n_folds=5, regparams=None,
                 measure=None, tol=None, max_iter=None, normalize="pairs", seed=0,
                 loss="hinge", solver=None, **kwargs):
        warn_unused_kwargs(kwargs, (), type(self).__name__)
        options = RankSVMOptions(loss=loss, optimizer=solver, rtol=tol, maxiter=max_iter,
                                 normalize=normalize)
        self.loss, self.solver = options.loss, options.optimizer
        if folds is None:
            folds = check_positive_int(n_folds, "n_folds")
        out = kfold_ranksvm(X, Y, qids, folds=folds, regparams=regparams, measure=measure,
                            seed=seed, options=options)
        self.regparams = out["regparams"]
        self.cv_performances = out["cv_performances"]
        self.fold_performances = out["fold_performances"]
        self.regparam = out["best_regparam"]
        self.folds = out["folds"]
        self.solution = out["solution"]
        self.iterations = self.solution.iterations
        self.duality_gap = self.solution.duality_gap
        self.predictor = LinearPredictor(self.solution.w, 0.0)
