"""Gradient-based model selection: minimize a differentiable cross-validation criterion
over log-scale parameters (regparam, kernel widths, weights) with L-BFGS-B.

The driver knows nothing of kernels or solvers: it takes a callable returning the
criterion and its gradient (for RLS, :class:`rlscore.core.hyper.LOOObjective`), so it
stays below the learner families.
"""

import contextlib
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from rlscore._lapack_threads import blas_threads as _blas_threads
from rlscore._progress import progress
from rlscore._validation import check_positive_int, check_real, check_tol

__all__ = ["minimize_criterion", "CriterionSearchResult", "PenalizedCriterion",
           "Penalty", "SearchOptions", "restart_points"]


@dataclass(frozen=True)
class SearchOptions:
    """How a kernel-parameter search runs: :func:`minimize_criterion` and the
    ``learn_*`` drivers of :mod:`rlscore.core.hyper` (which build the starts and the
    box from ``restarts``, ``regparam_range`` and ``width_range``).

    Attributes
    ----------
    restarts : int >= 0, default 2
        Drivers: extra starts besides the data-driven one.
    maxiter : int > 0, default 100
        L-BFGS-B iterations per start.
    rtol : float in (0, 1), default 1e-6
        Stop rule in the criterion: a start ends when the objective has decreased by
        less than ``rtol`` (relative) over the last ``patience`` steps, or when
        L-BFGS-B's own tests (projected gradient, ftol = rtol) hold. (With
        ``penalty="bayes"`` or a ``fun`` whose attribute ``log_scale`` is true, e.g. a
        negative log-likelihood, the objective is on a log scale and its absolute
        decrease is compared with rtol.)
    patience : int > 0, default 5
    blas_threads : int or None, default None
        BLAS threads while the criterion is evaluated (None: leave them as they are;
        the drivers choose :func:`rlscore._lapack_threads.loop_threads`). A search is
        a loop of short dense factorizations, where several threads on busy cores cost
        more than they gain.
    verbose : bool or None
        Progress per step (None: the enclosing ``verbosity``).
    regparam_range, width_range : (low, high) or None
        Drivers: the search box of regparam and of each gamma (factors of its
        median-heuristic start); None: the driver's default.
    """
    restarts: int = 2
    maxiter: int = 100
    rtol: float = 1e-6
    patience: int = 5
    blas_threads: object = None
    verbose: object = None
    regparam_range: object = None
    width_range: object = None


@dataclass(frozen=True)
class Penalty:
    """A penalty on some coordinates of a search, added to its criterion against
    over-fitting the selection criterion with many parameters (Cawley & Talbot, JMLR
    8, 2007); :class:`PenalizedCriterion` applies it.

    Attributes
    ----------
    weight : float >= 0 or "bayes", default 0
        The weight xi; ``"bayes"``: their regularization with xi integrated out,
        log Q + (N / n) log Omega (no weight to choose; needs ``n_residuals``).
    kind : {"scale", "log"}, default "scale"
        ``"scale"``: xi/2 sum_k exp(2 (x_k - c_k)), i.e. xi/2 sum_k (eta_k / eta_k,c)^2
        for x = log eta: Cawley & Talbot's Gaussian prior on the ARD scale parameters
        (it shrinks widths towards 0, switching features off); ``"log"``:
        xi sum_k (x_k - c_k)^2 (a log-normal prior around the start). Not used with
        ``weight="bayes"`` (always the scale form).
    index : index array or None
        The coordinates penalized (e.g. the log widths); None: all.
    center : ndarray or None
        c; None: the first start.
    n_residuals : int or None
        ``weight="bayes"``: the number n of squared residuals the criterion averages
        (m t for the LOO error of m examples with t outputs).
    """
    weight: object = 0.0
    kind: str = "scale"
    index: object = None
    center: object = None
    n_residuals: object = None


@dataclass
class CriterionSearchResult:
    """Outcome of :func:`minimize_criterion`.

    Attributes
    ----------
    x : ndarray (p,), the best point (log space)
    fun : float, the criterion there (penalty excluded)
    objective : float, the penalized objective there (what was minimized)
    history : list of dict, one per optimizer step of every restart: ``restart``,
        ``step``, ``criterion``, ``objective``, ``grad_norm``, ``x`` and ``best``
        (True for exactly one entry: the returned point ``x``; the last entry is the
        last step of the last start, not the optimum)
    restarts : list of dict, per start: ``x0``, ``x``, ``fun``, ``objective``,
        ``steps``, ``evaluations``, ``message``
    n_evaluations : int, criterion+gradient evaluations over all restarts
    """
    x: np.ndarray
    fun: float
    objective: float
    history: list = field(default_factory=list)
    restarts: list = field(default_factory=list)
    n_evaluations: int = 0


class PenalizedCriterion:
    """A criterion plus a penalty on some of its log-scale coordinates: the objective
    that :func:`minimize_criterion` minimizes.

    Parameters
    ----------
    fun : callable, ``fun(x) -> (criterion, gradient)`` (criterion > 0 for ``"bayes"``)
    penalty : float >= 0 or ``"bayes"``
    index : index array, the penalized coordinates x_k = log eta_k
    center : ndarray, c (eta is measured in units of exp(c))
    kind : {"scale", "log"}, the form of a fixed-weight penalty
    n_residuals : int, n: the number of squared residuals the criterion averages
        (``"bayes"`` only)

    Notes
    -----
    With u = x[index] - c and N = len(index), the objective is

    * fixed weight xi, ``kind="scale"``: Q + xi Omega, Omega = 1/2 sum_k exp(2 u_k)
      (Cawley & Talbot's Gaussian prior on the scale factors eta_k / eta_k,c);
    * fixed weight xi, ``kind="log"``: Q + xi sum_k u_k^2;
    * ``"bayes"``: xi integrated out (Cawley & Talbot, JMLR 8, 2007). With
      the likelihood of the n LOO residuals ~ zeta^(n/2) exp(-zeta n Q / 2) (precision
      zeta; Q their mean square) and the prior ~ xi^(N/2) exp(-xi Omega), both
      precisions integrated out under Jeffreys priors 1/zeta, 1/xi
      (int_0^inf s^(k/2 - 1) exp(-s c) ds = Gamma(k/2) c^(-k/2)) leave
      -log p(theta | data) = (n/2) log Q + (N/2) log Omega + const. Divided by n/2
      (same minimizer; one unit of the objective is then a relative change of Q):

          L = log Q + (N / n) log Omega,
          dL/dx_j = (dQ/dx_j) / Q + (N / n) [j in index] exp(2 u_j) / Omega.

      No weight to choose: the penalty's strength follows from N / n (many widths
      on few examples: strong) and the gradient stays O(p). log Omega has no lower
      bound: as all eta_k -> 0 together its pull does not fade, and only the box (or
      a rising Q) stops that direction.

    ``x`` itself is never penalized beyond ``index`` (the regparam coordinate is
    left free). A call costs one ``fun`` call plus O(p).
    """

    def __init__(self, fun, penalty=0.0, index=None, center=None, kind="scale",
                 n_residuals=None):
        self.fun = fun
        self.bayes = isinstance(penalty, str)
        if self.bayes:
            if penalty != "bayes":
                raise ValueError(f"penalty must be a number >= 0 or 'bayes', got "
                                 f"{penalty!r}")
            n_residuals = check_positive_int(n_residuals, "n_residuals")
        else:
            penalty = check_real(penalty, "penalty", minimum=0)
            if kind not in ("scale", "log"):
                raise ValueError(f"penalty_kind must be 'scale' or 'log', got {kind!r}")
        self.penalty, self.kind, self.n_residuals = penalty, kind, n_residuals
        self.index = None if index is None else np.asarray(index, dtype=int)
        self.center = None if center is None else np.asarray(center, dtype=np.float64)

    def evaluate(self, x):
        """(criterion, objective, gradient of the objective) at x."""
        value, grad = self.fun(x)
        value = float(value)
        grad = np.array(grad, dtype=np.float64)
        idx = np.arange(len(x)) if self.index is None else self.index
        c = np.zeros(len(x)) if self.center is None else self.center
        u = x[idx] - c[idx]
        if self.bayes:
            if not value > 0:
                raise FloatingPointError(f"penalty='bayes' needs a positive criterion, "
                                         f"got {value} at x = {x}")
            e2 = np.exp(2.0 * (u - u.max()))         # Omega up to exp(2 max u)
            ratio = idx.size / self.n_residuals
            obj = np.log(value) + ratio * (np.log(0.5 * e2.sum()) + 2.0 * u.max())
            grad /= value
            grad[idx] += ratio * 2.0 * e2 / e2.sum()
        elif self.penalty == 0:
            obj = value
        elif self.kind == "log":
            obj = value + self.penalty * float(u @ u)
            grad[idx] += 2.0 * self.penalty * u
        else:
            e2 = np.exp(2.0 * u)
            obj = value + 0.5 * self.penalty * float(e2.sum())
            grad[idx] += self.penalty * e2
        return value, float(obj), grad

    def __call__(self, x):
        """(objective, gradient)."""
        _, obj, grad = self.evaluate(np.asarray(x, dtype=np.float64))
        return obj, grad

    def value(self, x):
        """The objective alone."""
        return self(x)[0]


def restart_points(theta0, width, scale, lo, hi, restarts):
    """Starting points [log regparam, theta] of the kernel searches: the data-driven
    start theta0 at regparam 1e-2 scale, then (restarts) a small regparam with the
    widths moved up by ``width`` (in log space; 0 where a parameter is not a width), a
    large regparam with them moved down, then uniform draws in the box (seed 0); all
    clipped to [lo, hi]. Returns an array (1 + restarts, 1 + len(theta0)). O(restarts
    len(theta0))."""
    theta0 = np.asarray(theta0, dtype=np.float64)
    width = np.asarray(width, dtype=np.float64)
    starts = [np.concatenate([[np.log(1e-2 * scale)], theta0])]
    shifts = [(np.log(1e-4 * scale), 1.0), (np.log(scale), -1.0)]
    rng = np.random.default_rng(0)
    for r in range(restarts):
        if r < len(shifts):
            starts.append(np.concatenate([[shifts[r][0]], theta0 + shifts[r][1] * width]))
        else:
            starts.append(rng.uniform(lo, hi))
    return np.clip(np.array(starts), lo, hi)


def _mark_best(history, trace, r, best, grad_norm):
    """Flag the step of ``history`` at the returned point ``best`` (``"best": True``):
    the last step of the winning start, or, when that start ended elsewhere (no step
    taken, or L-BFGS-B returned another point), a record of the point inserted after
    that start's steps (``grad_norm(x)`` gives its projected gradient norm).
    O(len(history))."""
    if trace and np.array_equal(trace[-1]["x"], best["x"]):
        trace[-1]["best"] = True
        return
    rec = {"restart": r, "step": len(trace) + 1, "criterion": best["fun"],
           "objective": best["objective"], "grad_norm": grad_norm(best["x"]),
           "x": best["x"].copy(), "best": True}
    after = max([i for i, h in enumerate(history) if h["restart"] <= r], default=-1)
    history.insert(after + 1, rec)


def minimize_criterion(fun, starts, bounds, *, penalty=None, options=None, describe=None,
                       desc="kernel learning"):
    """Minimize ``fun(x) -> (value, gradient)`` over a box, from several starts.

    Parameters
    ----------
    fun : callable
        ``fun(x)`` returns the criterion (float) and its gradient (ndarray (p,)).
    starts : array-like (n_starts, p) or (p,)
        Starting points; the first is usually data-driven, the others restarts.
    bounds : sequence of p (low, high) pairs
        Box of the search (log space); starts are clipped into it.
    penalty : Penalty or None
        A penalty on some coordinates added to the criterion (:class:`Penalty`);
        None: none.
    options : SearchOptions or None
        ``maxiter``, ``rtol``, ``patience``, ``blas_threads`` and ``verbose``
        (:class:`SearchOptions`; ``restarts`` and the ranges are the drivers'); None:
        the defaults.
    describe : callable or None
        ``describe(x) -> dict`` of named values (e.g. ``regparam``, ``gamma``) shown in
        the progress report of each step.
    desc : str
        Progress report name; each step reports criterion, gradient norm and
        ``describe(x)``.

    Returns
    -------
    CriterionSearchResult

    Notes
    -----
    The cost is that of the evaluations of ``fun``: L-BFGS-B adds O(p) per evaluation
    (memory 10 pairs). Usually one or two evaluations per step.
    """
    starts = np.atleast_2d(np.asarray(starts, dtype=np.float64))
    lo, hi = np.asarray(bounds, dtype=np.float64).T
    p = starts.shape[1]
    if lo.shape != (p,) or np.any(lo > hi) or not np.all(np.isfinite(starts)):
        raise ValueError(f"bounds must be {p} (low, high) pairs with low <= high and the "
                         f"starts finite")
    options = SearchOptions() if options is None else options
    penalty = Penalty() if penalty is None else penalty
    maxiter = check_positive_int(options.maxiter, "maxiter")
    patience = check_positive_int(options.patience, "patience")
    rtol = check_tol(options.rtol, "rtol")
    blas_threads, verbose = options.blas_threads, options.verbose
    idx = np.arange(p) if penalty.index is None else np.asarray(penalty.index, dtype=int)
    center = np.clip(starts[0], lo, hi) if penalty.center is None else np.asarray(
        penalty.center, dtype=np.float64)
    penalized = PenalizedCriterion(fun, penalty.weight, idx, center, penalty.kind,
                                   penalty.n_residuals)
    # stop rule: relative decrease of an additive objective; of a log-scale one (the
    # "bayes" objective, a negative log-likelihood), its absolute decrease
    floor = 1.0 if penalized.bayes or getattr(fun, "log_scale", False) else 1e-300
    counter = [0]
    cache = {}                     # x bytes -> (criterion, objective, gradient)

    def objective(x):
        key = x.tobytes()
        if key not in cache:
            value, obj, grad = penalized.evaluate(x)
            counter[0] += 1
            if not np.isfinite(obj) or not np.all(np.isfinite(grad)):
                raise FloatingPointError(f"the criterion is not finite at x = {x}")
            if len(cache) > 8:
                cache.clear()
            cache[key] = (value, obj, grad)
        return cache[key]

    def projected_norm(x, grad):
        # the projected gradient: zero where a bound is active and the descent
        # direction leaves the box
        pg = np.where(((x <= lo) & (grad > 0)) | ((x >= hi) & (grad < 0)), 0.0, grad)
        return float(np.linalg.norm(pg))

    def make_callback(r, trace):
        def callback(intermediate_result):
            x = np.asarray(intermediate_result.x, dtype=np.float64)
            value, obj, grad = objective(x)
            gnorm = projected_norm(x, grad)
            rec = {"restart": r, "step": len(trace) + 1, "criterion": value,
                   "objective": obj, "grad_norm": gnorm, "x": x.copy(), "best": False}
            trace.append(rec)
            history.append(rec)
            prog.step(criterion=value, grad_norm=gnorm,
                      **({} if describe is None else describe(x)))
            if len(trace) > patience:
                old = trace[-1 - patience]["objective"]
                if old - obj <= rtol * max(abs(old), floor):
                    raise StopIteration
        return callback

    history, runs, traces = [], [], []
    best = None
    threads = (contextlib.nullcontext() if blas_threads is None else
               _blas_threads(check_positive_int(blas_threads, "blas_threads")))
    with threads, progress(desc, total=None, verbose=verbose) as prog:
        for r, x0 in enumerate(starts):
            x0 = np.clip(x0, lo, hi)
            trace = []
            n0 = counter[0]
            res = minimize(lambda x: objective(x)[1:], x0, jac=True, method="L-BFGS-B",
                           bounds=list(zip(lo, hi)), callback=make_callback(r, trace),
                           options={"maxiter": maxiter, "ftol": rtol, "gtol": 1e-12})
            x = np.asarray(res.x, dtype=np.float64)
            value, obj, _ = objective(x)
            run = {"x0": x0, "x": x.copy(), "fun": value, "objective": obj,
                   "steps": len(trace), "evaluations": counter[0] - n0,
                   "message": str(res.message)}
            runs.append(run)
            traces.append(trace)
            if best is None or obj < best["objective"]:
                best, ib = run, r
        _mark_best(history, traces[ib], ib, best,
                   lambda x: projected_norm(x, objective(x)[2]))
        prog.close(f"criterion {best['fun']:.6g}")
    return CriterionSearchResult(x=best["x"], fun=best["fun"], objective=best["objective"],
                                 history=history, restarts=runs,
                                 n_evaluations=counter[0])
