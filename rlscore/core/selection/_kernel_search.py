"""Gradient-based model selection: minimize a differentiable cross-validation criterion
over log-scale parameters (regparam, kernel widths, weights) with L-BFGS-B.

The driver knows nothing of kernels or solvers: it takes a callable returning the
criterion and its gradient (for RLS, :class:`rlscore.core.rls.LOOObjective`), so it
stays below the learner families.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from rlscore._progress import progress
from rlscore._validation import check_positive_int, check_real, check_tol

__all__ = ["minimize_criterion", "CriterionSearchResult"]


@dataclass
class CriterionSearchResult:
    """Outcome of :func:`minimize_criterion`.

    Attributes
    ----------
    x : ndarray (p,), the best point (log space)
    fun : float, the criterion there (penalty excluded)
    objective : float, criterion + penalty there (what was minimized)
    history : list of dict, one per optimizer step of every restart: ``restart``,
        ``step``, ``criterion``, ``objective``, ``grad_norm``, ``x``
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


class _Stop(Exception):
    pass


def minimize_criterion(fun, starts, bounds, *, penalty=0.0, penalty_index=None,
                       penalty_center=None, penalty_kind="scale", maxiter=100, rtol=1e-6,
                       patience=5,
                       describe=None, desc="kernel learning", verbose=None):
    """Minimize ``fun(x) -> (value, gradient)`` over a box, from several starts.

    Parameters
    ----------
    fun : callable
        ``fun(x)`` returns the criterion (float) and its gradient (ndarray (p,)).
    starts : array-like (n_starts, p) or (p,)
        Starting points; the first is usually data-driven, the others restarts.
    bounds : sequence of p (low, high) pairs
        Box of the search (log space); starts are clipped into it.
    penalty : float >= 0, default 0
        Weight xi of a penalty on the coordinates ``penalty_index`` added to the
        criterion, against over-fitting the selection criterion with many parameters
        (Cawley & Talbot, JMLR 8, 2007).
    penalty_index : index array or None
        The coordinates penalized (e.g. the log widths); None: all.
    penalty_center : ndarray or None
        c; None: the first start.
    penalty_kind : {"scale", "log"}, default "scale"
        ``"scale"``: xi/2 sum_k exp(2 (x_k - c_k)), i.e. xi/2 sum_k (eta_k / eta_k,c)^2
        for x = log eta: Cawley & Talbot's Gaussian prior on the ARD scale parameters
        (it shrinks widths towards 0, switching features off); ``"log"``:
        xi sum_k (x_k - c_k)^2 (a log-normal prior around the start).
    maxiter : int, default 100
        L-BFGS-B iterations per start.
    rtol : float in (0, 1), default 1e-6
        Stop rule in the criterion: a start ends when the objective has decreased by
        less than ``rtol`` (relative) over the last ``patience`` steps, or when
        L-BFGS-B's own tests (projected gradient, ftol = rtol) hold.
    patience : int, default 5
    describe : callable or None
        ``describe(x) -> dict`` of named values (e.g. ``regparam``, ``gamma``) shown in
        the progress report of each step.
    desc : str, verbose : bool or None
        Progress report name and switch (None: the enclosing ``verbosity``); each step
        reports criterion, gradient norm and ``describe(x)``.

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
    penalty = check_real(penalty, "penalty", minimum=0)
    maxiter = check_positive_int(maxiter, "maxiter")
    patience = check_positive_int(patience, "patience")
    rtol = check_tol(rtol, "rtol")
    if penalty_kind not in ("scale", "log"):
        raise ValueError(f"penalty_kind must be 'scale' or 'log', got {penalty_kind!r}")
    idx = np.arange(p) if penalty_index is None else np.asarray(penalty_index, dtype=int)
    center = np.clip(starts[0], lo, hi) if penalty_center is None else np.asarray(
        penalty_center, dtype=np.float64)
    counter = [0]
    cache = {}                     # x bytes -> (criterion, objective, gradient)

    def objective(x):
        key = x.tobytes()
        if key not in cache:
            value, grad = fun(x)
            counter[0] += 1
            value = float(value)
            grad = np.array(grad, dtype=np.float64)
            obj = value
            if penalty > 0:
                diff = x[idx] - center[idx]
                if penalty_kind == "log":
                    obj = value + penalty * float(diff @ diff)
                    grad[idx] += 2.0 * penalty * diff
                else:
                    e2 = np.exp(2.0 * diff)
                    obj = value + 0.5 * penalty * float(e2.sum())
                    grad[idx] += penalty * e2
            if not np.isfinite(obj) or not np.all(np.isfinite(grad)):
                raise FloatingPointError(f"the criterion is not finite at x = {x}")
            if len(cache) > 8:
                cache.clear()
            cache[key] = (value, obj, grad)
        return cache[key]

    def make_callback(r, trace):
        def callback(intermediate_result):
            x = np.asarray(intermediate_result.x, dtype=np.float64)
            value, obj, grad = objective(x)
            # the projected gradient: zero where a bound is active and the descent
            # direction leaves the box
            pg = np.where(((x <= lo) & (grad > 0)) | ((x >= hi) & (grad < 0)), 0.0, grad)
            gnorm = float(np.linalg.norm(pg))
            rec = {"restart": r, "step": len(trace) + 1, "criterion": value,
                   "objective": obj, "grad_norm": gnorm, "x": x.copy()}
            trace.append(rec)
            history.append(rec)
            prog.step(criterion=value, grad_norm=gnorm,
                      **({} if describe is None else describe(x)))
            if len(trace) > patience:
                old = trace[-1 - patience]["objective"]
                if old - obj <= rtol * max(abs(old), 1e-300):
                    raise StopIteration
        return callback

    history, runs = [], []
    best = None
    with progress(desc, total=None, verbose=verbose) as prog:
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
            if best is None or obj < best["objective"]:
                best = run
        prog.close(f"criterion {best['fun']:.6g}")
    return CriterionSearchResult(x=best["x"], fun=best["fun"], objective=best["objective"],
                                 history=history, restarts=runs,
                                 n_evaluations=counter[0])
