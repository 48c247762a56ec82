"""CGRLS: linear RLS by conjugate gradient for large sparse data, with RLScore's
interface, and the early-stopping callback ``EarlyStopCB``."""

import warnings

import numpy as np

from rlscore._validation import check_positive_int, check_tol
from rlscore.core.optim import CGStop
from rlscore.core.rls import CGRLSOptions, cg_rls
from rlscore._validation import warn_unused_kwargs
from rlscore.predictor import LinearPredictor, PredictorInterface
from rlscore.learner._common import reports_progress

__all__ = ["CGRLS", "EarlyStopCB", "Finished"]


class Finished(CGStop):
    """Raised by a callback to stop :class:`CGRLS`; ``.value`` holds the message. The
    learner keeps the dual coefficients that ``learner.A`` holds at that moment."""

    def __init__(self, value):
        super().__init__(value)
        self.value = value

    def __str__(self):
        return repr(self.value)


def _better(measure, perf, best):
    if best is None:
        return True
    return perf < best if getattr(measure, "iserror", True) else perf > best


class EarlyStopCB:
    """Early stopping for :class:`CGRLS` on a validation set.

    After each CG iteration the current model is evaluated on ``(X_valid, Y_valid)``;
    the best dual iterate is remembered (strict improvement, in the direction given by
    ``measure.iserror``). After ``maxiter`` consecutive iterations without improvement
    (the patience) the learner's ``A`` is reset to the best iterate and
    :class:`Finished` is raised, so the learner ends with the best model seen.

    Parameters
    ----------
    X_valid : array-like or sparse (n, d)
    Y_valid : array-like (n,) or (n, l)
    measure : performance measure, default ``sqerror``
    maxiter : int, default 10
        The patience: iterations without improvement before stopping (RLScore's
        keyword; not the cap on CG iterations, which is the learner's ``maxiter``).

    Attributes
    ----------
    bestperf, bestA, iter, last_update, patience
    maxiter : RLScore's name of ``patience`` (reading or setting it is the same)

    Notes
    -----
    One prediction on the validation set per iteration: O(nnz(X_valid) l).
    """

    def __init__(self, X_valid, Y_valid, measure=None, maxiter=10):
        if measure is None:
            from rlscore.measure import sqerror as measure
        self.X_valid = X_valid
        self.Y_valid = Y_valid
        self.measure = measure
        self.patience = maxiter
        self.bestperf = None
        self.bestA = None
        self.iter = 0
        self.last_update = 0

    _finished = Finished

    @property
    def maxiter(self):
        return self.patience

    @maxiter.setter
    def maxiter(self, value):
        self.patience = value

    def _performance(self, P):
        return self.measure(self.Y_valid, P)

    def callback(self, learner):
        perf = self._performance(learner.predict(self.X_valid))
        if _better(self.measure, perf, self.bestperf):
            self.bestperf = perf
            self.bestA = np.array(learner.A, copy=True)
            self.last_update = self.iter
        elif self.iter - self.last_update >= self.patience:
            learner.A = self.bestA
            raise self._finished("Done")
        self.iter += 1

    def finished(self, learner):
        pass


def run_cg(learner, solve, callbackfun, tol, maxiter, name, to_predictor):
    """The driver of the CG learners (CGRLS, CGRankRLS, PCGRankRLS): the per-iteration
    callback (the learner's ``A`` is the current iterate, its ``predictor`` the model
    of that iterate; :class:`CGStop` from ``callbackfun.callback`` stops the solver),
    the warning when CG stops short of ``tol`` without a ``maxiter``, the final
    ``callbackfun.finished`` and the final ``A``, ``b`` and ``predictor`` (from the
    solution, or from the ``A`` the callback left, e.g. the best iterate of
    :class:`EarlyStopCB`). Progress is reported by the solver, see
    :func:`rlscore.core.optim.conjugate_gradient`.

    ``solve(callback)`` runs the solver and returns ``(solution, result, op)``;
    ``to_predictor(A, op)`` gives the predictor's ``(W, b)`` for coefficients ``A``.
    Sets ``n_iter``, ``converged`` (False after a stop by the callback), ``A`` (= W
    at the end), ``b`` (1, l) and ``predictor``.
    """
    learner._stopped = False

    def cb(k, x, op, residuals):
        learner.A = np.array(x, copy=True)
        _publish(learner, *to_predictor(learner.A, op))
        try:
            callbackfun.callback(learner)
        except CGStop:
            learner._stopped = True
            return True
        return False

    solution, res, op = solve(None if callbackfun is None else cb)
    learner.n_iter = res.iterations
    learner.converged = res.converged and not learner._stopped
    if not learner._stopped:
        learner.A = solution
    if not learner._stopped and not learner.converged and maxiter is None:
        warnings.warn(
            f"{name}: conjugate gradient did not reach tol={tol} in {res.iterations} "
            f"iterations (relative residual {float(np.max(res.residuals)):.3g})",
            UserWarning, stacklevel=3)
    if callbackfun is not None and hasattr(callbackfun, "finished"):
        callbackfun.finished(learner)
    W, b = to_predictor(np.asarray(learner.A, dtype=np.float64), op)
    _publish(learner, W, b)
    learner.A = W


def _publish(learner, W, b):
    learner.predictor = LinearPredictor(W, b)
    learner.b = np.zeros((1, W.shape[1])) + np.reshape(b, (1, -1))


class CGRLS(PredictorInterface):
    """Linear regularized least squares solved by conjugate gradient (for large sparse
    data); trains in the constructor.

    Minimizes ``||Y - X W - b||^2 + regparam (||W||^2 + w_bias^2)`` with the constant
    feature ``sqrt(bias)`` (weight w_bias, so ``b = sqrt(bias) w_bias``), by CG on the
    dual system ``(X_a X_a^T + regparam I) a = Y`` started from 0; then
    ``[W; w_bias] = X_a^T a``. Equals :class:`rlscore.learner.RLS` with the same
    ``regparam`` and ``bias`` up to the CG tolerance.

    Parameters
    ----------
    X : array-like or sparse (m, d)
        ``numpy.matrix``, lists and every scipy sparse format are accepted; sparse data
        stays sparse (explicit zeros and unsorted indices are handled).
    Y : array-like (m,) or (m, l)
        Several columns are solved together (one CG run each, sharing the products).
    regparam : float >= 0, default 1.0
    bias : float >= 0, default 1.0
    callbackfun : object with ``callback(learner)`` (and optionally
        ``finished(learner)``), or None
        ``callback`` runs after every iteration with ``learner.A`` the current dual
        iterate (m x l) and ``learner.predictor`` the model it defines; it may raise
        :class:`Finished` to stop (the model is then built from whatever
        ``learner.A`` holds). ``finished`` runs once at the end, before the dual
        coefficients are converted to the primal model.
    tol : float in (0, 1), default 1e-8
        Stop when ``||Y - S a|| <= tol ||Y||`` per column (RLScore used scipy's 1e-5).
    maxiter : int > 0 or None
        Iteration limit (None: 10 m).
    verbose : bool, default False
        Show the relative residual after every iteration on stderr (the steps are
        logged either way, logger ``"rlscore"``; see :mod:`rlscore._progress`).
    **kwargs
        ``kernel="LinearKernel"`` is accepted (always linear); other keywords are
        ignored with a UserWarning.

    Attributes
    ----------
    predictor : LinearPredictor
    A : ndarray (d, l)
        The primal weights (without the bias weight).
    b : ndarray (1, l)
        The intercept.
    regparam, bias
    n_iter : int
        CG iterations performed.
    converged : bool
        Whether every column reached ``tol`` (False when stopped early).

    Notes
    -----
    Never forms X X^T or X^T X: O(t (nnz(X) + m + d) l) time for t iterations (two
    passes over X per iteration) and O(nnz(X) + (m + d) l) memory. With a callback, the
    predictor is refreshed before each call (one more pass over X).
    """

    @reports_progress
    def __init__(self, X, Y, regparam=1.0, bias=1.0, callbackfun=None, tol=1e-8,
                 maxiter=None, verbose=False, **kwargs):
        kernel = kwargs.get("kernel", "LinearKernel")
        used = {"kernel"} if kernel == "LinearKernel" else set()
        warn_unused_kwargs(kwargs, used, "CGRLS")
        tol = check_tol(tol)
        user_maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
        self.regparam = regparam
        self.bias = bias
        self.callbackfun = callbackfun

        def solve(cb):
            W, b, res, op = cg_rls(X, Y, regparam, bias, rtol=tol, maxiter=user_maxiter,
                                   callback=cb, options=CGRLSOptions(form="dual"))
            self.regparam = op.regparam
            self.bias = op.bias
            return res.solution, res, op

        run_cg(self, solve, callbackfun, tol, user_maxiter, "CGRLS",
               lambda A, op: op.primal_weights(A.reshape(op.m, -1)))
