"""Kernel parameters (and regparam) learned by minimizing the exact leave-one-out error
of dual RLS with its adjoint gradient (:mod:`._loo_gradient`) and L-BFGS-B
(:func:`rlscore.core.selection.minimize_criterion`)."""

import dataclasses
from dataclasses import dataclass

import numpy as np

from rlscore._lapack_threads import loop_threads
from rlscore._validation import as_2d_labels, check_positive_int, check_real
from rlscore.core.hyper._evidence_gradient import EvidenceObjective
from rlscore.core.hyper._loo_gradient import LOOObjective
from rlscore.core.hyper._nystrom_gradient import NystromLOOObjective
from rlscore.core.hyper._options import as_learnable_kernel
from rlscore.core.nystrom import RLSModel
from rlscore.core.selection import (LOOCV, Penalty, SearchOptions, grid_search_params,
                                    minimize_criterion, restart_points)
from rlscore.kernel import as_kernel_input, GaussianFamily, PolynomialFamily

__all__ = ["learn_kernel", "KernelLearningResult", "LEARNABLE_KERNELS", "gaussian_grid_loo",
           "GRID_GAMMA_FACTORS", "GRID_REGPARAMS"]

#: kernels whose parameters ``learn_kernel`` fits, with the learned parameter names
LEARNABLE_KERNELS = {"GaussianKernel": ("gamma",), "PolynomialKernel": ("gamma", "coef0")}

# default search box around the data-driven start, in factors of the parameter
_REGPARAM_RANGE = (1e-8, 1e3)      # times the mean diagonal of K at the start
_WIDTH_RANGE = (1e-4, 1e3)         # gamma / gamma_start (ARD: per feature)
_EVIDENCE_WIDTH_RANGE = (1e-6, 1e3)  # criterion="evidence": length-scales up to 1000x
_COEF0_RANGE = (1e-3, 1e3)

#: the default grid of :func:`gaussian_grid_loo`: 10 gammas (times the median-heuristic
#: gamma) x 13 regparams
GRID_GAMMA_FACTORS = np.logspace(-2, 1, 10)
GRID_REGPARAMS = np.logspace(-6, 2, 13)


@dataclass
class KernelLearningResult:
    """The learned parameters.

    Attributes
    ----------
    regparam : float
    kernel_params : dict, the kernel's constructor parameters (``gamma`` a float, or an
        ndarray (d,) with ``ard=True``; ``degree``, ``coef0`` for the polynomial kernel)
    criterion : float, the criterion there, penalty excluded (the LOO mean squared
        error; with ``criterion="evidence"`` the negative log marginal likelihood per
        example)
    history : list of dict, per optimizer step: ``restart``, ``step``, ``criterion``,
        ``grad_norm``, ``regparam``, ``kernel_params``
    search : CriterionSearchResult, the optimizer's record (log-space points,
        restarts, evaluation count)
    family : the kernel family (maps log parameters to kernels)
    theta : ndarray, the log kernel parameters
    criterion_name : str, what was minimized: ``"loo"``, ``"evidence"`` (the
        ``criterion="auto"`` of :func:`learn_kernel` resolved) or ``"objective"`` (a
        given ``objective``)
    """
    regparam: float
    kernel_params: dict
    criterion: float
    history: list
    search: object
    family: object
    theta: np.ndarray
    criterion_name: str = "loo"

    @property
    def length_scales(self):
        """Gaussian kernel only: 1 / sqrt(2 gamma) (per feature with ARD)."""
        g = np.asarray(self.kernel_params["gamma"], dtype=np.float64)
        return 1.0 / np.sqrt(2.0 * g)

    def kernel(self, basis=None):
        """The kernel object at the learned parameters (basis: default the training
        rows)."""
        return self.family.kernel(self.theta, basis)


#: the criteria of :func:`learn_kernel` (``"auto"``: :func:`resolve_criterion`)
CRITERIA = ("auto", "loo", "evidence")


def resolve_criterion(criterion, ard, objective=None, basis_vectors=None, penalty=0.0):
    """The criterion :func:`learn_kernel` minimizes: ``"loo"`` or ``"evidence"``
    (``"auto"``: the evidence with ``ard=True`` when it applies, i.e. no ``objective``,
    no ``basis_vectors`` and no ``penalty``; the LOO error otherwise). ValueError for
    an unknown name or for ``"evidence"`` where it does not apply. O(1)."""
    if not isinstance(criterion, str) or criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    plain = objective is None and basis_vectors is None
    if criterion == "auto":
        return ("evidence" if ard and plain and not isinstance(penalty, str)
                and penalty == 0 else "loo")
    if criterion == "evidence" and (not plain or isinstance(penalty, str)):
        raise ValueError("criterion='evidence' is the full-kernel RLS criterion: no "
                         "objective, basis_vectors or penalty='bayes' with it")
    return criterion


def _ranges(value, name, default):
    if value is None:
        return default
    lo, hi = value
    lo = check_real(lo, f"{name}[0]", minimum=0, open_minimum=True)
    hi = check_real(hi, f"{name}[1]", minimum=lo)
    return lo, hi


def learn_kernel(X, Y, kernel="GaussianKernel", *, search=None, penalty=0.0,
                 objective=None, basis_vectors=None, criterion="auto"):
    """Regparam and kernel parameters of RLS minimizing its exact LOO squared error or,
    with ARD widths by default, its Gaussian-process evidence.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    Y : array-like (m,) or (m, t), real values or +-1 labels
    kernel : str or LearnableKernel, default "GaussianKernel"
        ``"GaussianKernel"`` or ``"PolynomialKernel"``, or a
        :class:`rlscore.core.hyper.LearnableKernel` carrying the name with ``ard`` and
        ``degree`` (the faces' flat keywords: :func:`rlscore.core.hyper.
        learning_options`):
    kernel.ard : bool, default False
        Gaussian kernel only: one width per feature (automatic relevance determination).
    kernel.degree : int, default 2
        Polynomial kernel only (kept fixed; gamma and coef0 > 0 are learned).
    search : SearchOptions or None
        :class:`rlscore.core.selection.SearchOptions` (None: its defaults); the fields
        the search reads:
    search.regparam_range : (low, high) or None
        Search box of regparam; default 1e-8 ... 1e3 times the mean diagonal of the
        starting kernel (1 for the Gaussian kernel).
    search.width_range : (low, high) or None
        Search box of each gamma as factors of its median-heuristic start; default
        (1e-4, 1e3): a length-scale can grow 100-fold (an irrelevant feature is
        switched off at the upper bound) or shrink ~30-fold. With
        ``criterion="evidence"`` (1e-6, 1e3): length-scales up to 1000-fold, since the
        evidence still counts a feature at 100-fold through log det (measured on
        Friedman #1: clipping the GP's irrelevant length-scales at 100-fold costs
        0.006 nats per example).
    search.restarts : int >= 0, default 2
        Extra starts besides the data-driven one (regparam 1e-2 of the kernel scale and
        median-heuristic widths): regparam 1e-4 and widths x e, regparam 1 and widths /
        e, then seeded random points of the box.
    search.maxiter, search.rtol : per start, L-BFGS-B steps and the stop rule
        (relative decrease of the criterion over 5 steps below rtol)
    search.verbose : bool or None, progress per step (criterion, gradient norm,
        regparam, gamma)
    penalty : float >= 0, "bayes" or Penalty, default 0
        The weight (or a :class:`rlscore.core.selection.Penalty` with weight and
        ``kind``) of Cawley & Talbot's regularization of the selection criterion (against
        over-fitting it with many ARD widths on few examples). A number xi: with
        ``kind="scale"`` (default) xi/2 sum_k (gamma_k / gamma_k,start)^2 is
        added to the LOO mean squared error (a Gaussian prior on the scale parameters,
        shrinking widths towards 0); with ``"log"`` xi sum_k (log gamma_k - log
        gamma_k,start)^2. The criterion is in units of y^2: scale xi with var(y) (e.g.
        1e-3 var(y)). ``"bayes"``: xi integrated out under a Jeffreys prior (Cawley &
        Talbot, JMLR 8, 2007), minimizing log Q + (N / n) log Omega with Q the LOO
        error, n = m t residuals, N the number of widths and Omega = 1/2 sum_k
        (gamma_k / gamma_k,start)^2 (:class:`rlscore.core.selection.PenalizedCriterion`;
        no weight to choose; an ``objective`` may set ``n_residuals``, else m t).
        Measured on the four sets of ``benchmarks/bench_kernel_learning.py`` it helps
        on diabetes (300 rows, 10 widths: test MSE 0.579 -> 0.494) and hurts on the
        others (Beijing 0.097 -> 0.104, relevance 0.025 -> 0.028; its pull on all
        widths towards 0 does not fade: log Omega has no lower bound), so it is not
        the default; ``criterion="evidence"`` did better on all four.
    objective : callable or None
        ``objective(family, Y)`` returning the criterion to minimize (a callable of
        z = [log regparam, theta] giving value and gradient); None: the RLS
        leave-one-out error (:class:`LOOObjective`). The ranking families pass their
        own (e.g. :class:`rlscore.core.hyper.LQOObjective`).
    basis_vectors : array-like (r, d) or None
        Gaussian kernel only: learn for the reduced-set (Nystrom) model on these fixed
        basis rows (:class:`NystromLOOObjective`, O(m r^2) per step, no m x m array);
        a given ``objective`` is then called as ``objective(family, Y,
        basis_family=...)`` (e.g. :class:`rlscore.core.hyper.NystromLQOObjective`).
    criterion : {"auto", "loo", "evidence"}, default "auto"
        What is minimized (with ``objective=None``): ``"loo"``, the exact
        leave-one-out mean squared error, or ``"evidence"``, the Gaussian-process
        negative log marginal likelihood per example with the amplitude profiled out
        (:class:`EvidenceObjective`; the model is the same RLS, regparam playing the
        noise-to-signal ratio; one factorization and inverse per step, no rank-m
        product). ``"auto"`` (:func:`resolve_criterion`): the evidence with
        ``ard=True`` and no ``objective``, ``basis_vectors`` or ``penalty``, else the
        LOO error. Why: with many widths on few examples the search fits the widths to
        the particular LOO residuals (Cawley & Talbot, JMLR 11, 2010) -- on 80 rows of
        Friedman #1 with 10 widths the LOO search's test error was 1.5-2.1 times a
        Gaussian process's, the evidence's within 1 % -- while the evidence charges
        the model's complexity through log det(K + lambda I) and follows the Gaussian
        process. On housing-sized sets (300-350 rows) neither won everywhere (means
        within 3-9 %, docs/tutorials/kernel_learning.rst). With one width the LOO
        error does not over-fit and stays the default. The evidence is that of a zero-mean
        process: centre Y. Not with ``basis_vectors`` or ``penalty="bayes"``.

    Returns
    -------
    KernelLearningResult

    Notes
    -----
    Each step costs one Cholesky factorization and inverse of K + lambda I and one
    symmetric rank-m product (~2 m^3 flops, about 6 Cholesky factors' worth), plus the
    kernel (O(m^2) isotropic, O(m^2 d) ARD) and O(m^2) per parameter (O(m^2 d) for all
    ARD widths together, never O(m^3) per width); with ``criterion="evidence"`` no
    rank-m product (~m^3 flops, about 3 Cholesky factors' worth). Typically 35-85
    evaluations per start. Up to :data:`rlscore._lapack_threads.SERIAL_N` examples the
    search runs with one BLAS thread (:func:`rlscore._lapack_threads.loop_threads`:
    two threads on shared cores made the ARD evidence search on 354 rows 26 times
    slower). Memory: ~5 m x m float64 arrays.
    """
    spec = as_learnable_kernel(kernel)
    kernel, ard, degree = spec.name, spec.ard, spec.degree
    search = SearchOptions() if search is None else search
    penalty = penalty if isinstance(penalty, Penalty) else Penalty(penalty)
    if kernel not in LEARNABLE_KERNELS:
        raise ValueError(f"kernel parameters can be learned for "
                         f"{sorted(LEARNABLE_KERNELS)}, got kernel={kernel!r}")
    if ard and kernel != "GaussianKernel":
        raise ValueError("ard=True needs kernel='GaussianKernel'")
    X = as_kernel_input(X)
    Y = as_2d_labels(Y)
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows, Y has {Y.shape[0]}")
    if X.shape[0] < 3:
        raise ValueError(f"learning kernel parameters by leave-one-out needs at least 3 "
                         f"examples, got {X.shape[0]}")
    restarts = check_positive_int(search.restarts, "restarts", minimum=0)
    criterion = resolve_criterion(criterion, ard, objective, basis_vectors, penalty.weight)
    name = criterion if objective is None else "objective"
    lam_lo, lam_hi = _ranges(search.regparam_range, "regparam_range", None) if (
        search.regparam_range is not None) else (None, None)
    w_lo, w_hi = _ranges(search.width_range, "width_range", _EVIDENCE_WIDTH_RANGE
                         if criterion == "evidence" else _WIDTH_RANGE)

    if kernel == "GaussianKernel":
        family = GaussianFamily(X, ard=bool(ard))
    else:
        family = PolynomialFamily(X, degree)
    theta0 = family.start()
    scale = 1.0 if kernel == "GaussianKernel" else float(
        np.mean(np.diagonal(family.evaluate(theta0)[0])))
    if lam_lo is None:
        lam_lo, lam_hi = scale * _REGPARAM_RANGE[0], scale * _REGPARAM_RANGE[1]
    lo = [np.log(lam_lo)]
    hi = [np.log(lam_hi)]
    if kernel == "GaussianKernel":
        lo += list(theta0 + np.log(w_lo))
        hi += list(theta0 + np.log(w_hi))
        width = np.ones(family.n_params)
    else:
        lo += [theta0[0] + np.log(w_lo), np.log(_COEF0_RANGE[0])]
        hi += [theta0[0] + np.log(w_hi), np.log(_COEF0_RANGE[1])]
        width = np.array([1.0, 0.0])
    lo, hi = np.array(lo), np.array(hi)
    starts = restart_points(theta0, width, scale, lo, hi, restarts)

    desc = ("kernel learning (LOO gradient)" if objective is None else
            "kernel learning (criterion gradient)")
    if basis_vectors is not None:
        if kernel != "GaussianKernel":
            raise ValueError("basis_vectors: the reduced-set criterion is available for "
                             "kernel='GaussianKernel' only")
        basis = as_kernel_input(basis_vectors, "basis_vectors")
        if basis.shape[1] != X.shape[1]:
            raise ValueError(f"basis_vectors has {basis.shape[1]} features, X has "
                             f"{X.shape[1]}")
        basis_family = GaussianFamily(basis, ard=bool(ard))
        given = objective

        def objective(fam, Yc):
            if given is None:
                return NystromLOOObjective(fam, basis_family, Yc)
            return given(fam, Yc, basis_family=basis_family)
    if objective is None:
        objective = EvidenceObjective if criterion == "evidence" else LOOObjective
    objective = objective(family, Y)

    def describe(z):
        g = np.exp(z[1:1 + (family.n_params if ard else 1)])
        out = {"regparam": float(np.exp(z[0]))}
        if ard:
            out.update(gamma_min=float(g.min()), gamma_max=float(g.max()))
        else:
            out["gamma"] = float(g[0])
        return out

    penalty = dataclasses.replace(
        penalty,
        index=(np.arange(1, 1 + family.n_params) if kernel == "GaussianKernel" else [1])
        if penalty.index is None else penalty.index,
        n_residuals=getattr(objective, "n_residuals", Y.size)
        if penalty.n_residuals is None else penalty.n_residuals)
    if search.blas_threads is None:
        search = dataclasses.replace(search, blas_threads=loop_threads(X.shape[0]))
    found = minimize_criterion(objective, starts, list(zip(lo, hi)), penalty=penalty,
                               options=search, describe=describe, desc=desc)
    history = [dict(restart=h["restart"], step=h["step"], criterion=h["criterion"],
                    grad_norm=h["grad_norm"], regparam=float(np.exp(h["x"][0])),
                    kernel_params=family.params(h["x"][1:]), best=h["best"])
               for h in found.history]
    theta = found.x[1:].copy()
    return KernelLearningResult(regparam=float(np.exp(found.x[0])),
                                kernel_params=family.params(theta), criterion=found.fun,
                                history=history, search=found, family=family,
                                theta=theta, criterion_name=name)


@dataclass
class GridLOOResult:
    """The best point of :func:`gaussian_grid_loo`.

    Attributes
    ----------
    gamma, regparam : float, the chosen grid point
    criterion : float, its LOO mean squared error
    gammas, regparams : ndarray, the grid
    performances : ndarray (n_gammas, n_regparams), the LOO mean squared errors
    model : RLSModel, decomposed at the chosen gamma and solved at the chosen regparam
    """
    gamma: float
    regparam: float
    criterion: float
    gammas: np.ndarray
    regparams: np.ndarray
    performances: np.ndarray
    model: object

    def predict(self, X):
        """Predictions of the chosen model for rows X. O(n m d)."""
        return self.model.predictor.predict(X)


def gaussian_grid_loo(X, Y, gammas=None, regparams=None):
    """The Gaussian kernel's gamma and regparam by the exact LOO error over a grid: the
    baseline :func:`learn_kernel` replaces.

    Parameters
    ----------
    X : array-like or sparse (m, d), Y : array-like (m,) or (m, t)
    gammas : sequence of floats > 0 or None
        Default :data:`GRID_GAMMA_FACTORS` (10 values, 1e-2 ... 1e1) times the
        median-heuristic gamma of X.
    regparams : sequence of floats > 0 or None
        Default :data:`GRID_REGPARAMS` (13 values, 1e-6 ... 1e2).

    Returns
    -------
    GridLOOResult

    Notes
    -----
    One eigendecomposition per gamma (O(m^3)) and O(m^2 t) per regparam
    (:class:`RLSModel` with ``path=True`` and :class:`LOOCV`, through
    :func:`rlscore.core.selection.grid_search_params`; an edge-of-grid warning when
    the best point is on the grid's border).
    """
    from rlscore.measure import sqerror
    X = as_kernel_input(X)
    if gammas is None:
        from rlscore.kernel import median_heuristic_gamma
        gammas = median_heuristic_gamma(X) * GRID_GAMMA_FACTORS
    gammas = [check_real(g, "gammas", minimum=0, open_minimum=True) for g in gammas]
    regparams = GRID_REGPARAMS if regparams is None else regparams
    regparams = [check_real(r, "regparams", minimum=0, open_minimum=True)
                 for r in regparams]
    out = grid_search_params(
        lambda gamma: RLSModel(X, Y, regparams[0], "GaussianKernel", path=True,
                               gamma=gamma),
        {"gamma": gammas}, regparams, lambda model: LOOCV(model, sqerror))
    i = out["settings"].index(out["best_setting"])
    j = regparams.index(out["best_regparam"])
    return GridLOOResult(gamma=float(out["best_setting"]["gamma"]),
                         regparam=float(out["best_regparam"]),
                         criterion=float(out["performances"][i, j]),
                         gammas=np.array(gammas), regparams=np.array(regparams),
                         performances=out["performances"], model=out["model"])
