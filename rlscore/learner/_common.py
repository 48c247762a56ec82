"""Keyword handling shared by the RLScore-compatible learners."""

import functools
import inspect
import textwrap
import threading
import weakref

import numpy as np

from rlscore.core.nystrom import kernel_param_names
from rlscore._progress import as_verbose_flag, verbosity
from rlscore._validation import check_regparam_grid, warn_unused_kwargs


def split_kernel_kwargs(kwargs, kernel, owner, extra=(), force=None, basis=()):
    """Pick the kernel's parameters and the reduced-set keywords named in ``basis``
    (:data:`BASIS_KEYWORDS` or some of them) out of ``kwargs``; warn once about the
    rest.

    ``extra`` names further keywords the learner consumes itself; ``force`` overrides
    kernel parameters (the RankRLS learners force bias = 0).
    """
    names = kernel_param_names(kernel)
    params = {k: kwargs[k] for k in names if k in kwargs}
    if force:
        params.update({k: v for k, v in force.items() if k in names})
    params.update({k: kwargs[k] for k in basis if k in kwargs})
    warn_unused_kwargs(kwargs, set(names) | set(extra) | set(basis), owner, stacklevel=4)
    return params


def squeeze(a):
    """RLScore's output rule: every singleton dimension disappears."""
    return None if a is None else np.squeeze(np.asarray(a))


def regparam_grid(regparams, default):
    """The grid of a selection wrapper: ``default`` when None, else the values given,
    checked by :func:`rlscore._validation.check_regparam_grid` (a value given twice is
    refused)."""
    return check_regparam_grid(default if regparams is None else regparams, "regparams")


#: The memory keywords of the RLS learners (:func:`rlscore.core.nystrom.fit_rls_model`).
MEMORY_KEYWORDS = ("memory_budget", "block_size", "solver", "pcg_tol", "pcg_maxiter")
#: How the learners spell the fields of :class:`rlscore.core.nystrom.ComputePlan` that
#: they name differently (a refusal of the core names the learner's keyword).
PLAN_NAMES = {"rtol": "pcg_tol", "maxiter": "pcg_maxiter"}


def compute_plan(kwargs):
    """The learner's memory keywords (:data:`MEMORY_KEYWORDS`, those given in
    ``kwargs``) as one :class:`rlscore.core.nystrom.ComputePlan`, validated once
    (a ValueError / TypeError naming the learner's keyword). O(1)."""
    from rlscore.core.nystrom import ComputePlan, PlanError
    memory = {k: kwargs[k] for k in MEMORY_KEYWORDS if k in kwargs}
    with PlanError.reworded(PLAN_NAMES):
        return ComputePlan.from_options(
            **{k: memory[k] for k in ("memory_budget", "block_size", "solver")
               if k in memory},
            rtol=memory.get("pcg_tol"), maxiter=memory.get("pcg_maxiter"))


def fit_core_model(fit, kwargs, cv, *args, **options):
    """The core model ``fit(*args, plan=, cv=, **options)`` (a core model builder:
    :func:`rlscore.core.nystrom.fit_rls_model`,
    :func:`rlscore.core.rankrls.fit_rank_model`) under the learner's plan
    (:func:`compute_plan`) and the cross-validation that follows (``cv``, a
    :class:`rlscore.core.nystrom.CVIntent` or None), the core's refusals naming the
    learner's keywords."""
    from rlscore.core.nystrom import PlanError
    plan = compute_plan(kwargs)
    with PlanError.reworded(PLAN_NAMES):
        return fit(*args, plan=plan, cv=cv, **options)

_PCG_DOC = """
    pcg_tol : keyword, float in (0, 1) or None (default)
        PCG's stopping tolerance on the relative residual ||b - S w|| <= tol ||b||
        (None: 1e-6). Refused, not ignored, when the model is trained by the direct
        solver.
    pcg_maxiter : keyword, int or None (default)
        PCG's iteration cap (None: none; a ConvergenceWarning when it stops there).
        Refused, not ignored, when the model is trained by the direct solver."""

#: Their entry in a learner's Parameters.
MEMORY_DOC = """\
    memory_budget : keyword, "auto" (default), MiB or None
        A reduced-set model (basis_vectors, basis_indices or n_basis) whose in-memory
        arrays (the m x b features, and the leave-one-out / hold-out arrays of the
        selection wrappers) would exceed this budget is trained by streaming blocks of
        rows (:class:`rlscore.core.nystrom.StreamedRLSModel`: the same model, memory
        O(b^2 + block b + m p)); "auto" is half the available memory, None never
        streams. The switch is reported once (:mod:`rlscore._progress`); when even
        streaming cannot fit, a ValueError names the estimate and the ways out. A
        streamed model has no ``A``, ``leave_pair_out`` or prediction intervals.
    block_size : keyword, int or None (default)
        Rows per block when streaming (default: from the budget).
    solver : keyword, "auto" (default), "direct" or "pcg"
        "direct": in memory or streamed, exact cross-validation; "pcg": Falkon's
        preconditioned conjugate gradients (one regparam, always streamed); "auto":
        direct, or PCG when only PCG fits the budget and no cross-validation follows.""" \
    + _PCG_DOC

#: Their entry in the RankRLS learners' Parameters (GlobalRankRLS, QueryRankRLS).
RANK_MEMORY_DOC = """\
    memory_budget : keyword, "auto" (default), MiB or None
        A reduced-set model drawn from the rows (basis_indices or n_basis) whose
        in-memory arrays would exceed this budget -- the budget of the whole run, as
        in every face -- is trained by streaming blocks of rows
        (:class:`rlscore.core.rankrls.StreamedRankModel`: the same model, memory
        O(b^2 + block b + m p)); "auto" is half the available memory, None never
        streams. One decision for every face
        (:func:`rlscore.core.rankrls.fit_rank_model`), reported once; when even
        streaming cannot fit, a ValueError names the estimate and the ways out. A
        streamed model has no ``A`` and no ``holdout``, ``leave_one_out`` or
        ``leave_pair_out``; ``KfoldRankRLS``, ``KfoldQueryRankRLS`` and
        ``LeaveQueryOutRankRLS`` stream their cross-validation (the folds' b x b
        statistics, folds of whole queries, one per query for leave-query-out; the
        same values to rounding), ``LeavePairOutRankRLS`` keeps the model in memory
        (its estimate needs the in-memory formulas).
    block_size : keyword, int or None (default)
        Rows per block when streaming (default: from the budget).
    solver : keyword, "auto" (default), "direct" or "pcg"
        "direct": in memory or streamed; "pcg": Falkon's preconditioned conjugate
        gradients on the centred problem (one regparam, always streamed; not in the
        selection wrappers); "auto": direct, or PCG when only PCG fits the budget.""" \
    + _PCG_DOC

#: The reduced-set keywords: ``basis_indices``, ``n_basis``, ``random_state`` and, for
#: learners with cross-validation, ``keep_basis_in_cv``.
BASIS_KEYWORDS = ("basis_indices", "n_basis", "random_state", "keep_basis_in_cv")


def fit_rank_learner(owner, data, regparam, kernel, basis_vectors, kwargs, path, cv):
    """The core model of the RankRLS learners: ``data`` is ``(X, Y)`` (GlobalRankRLS)
    or ``(X, Y, qids)`` (QueryRankRLS: qids checked); the kernel, reduced-set and memory keywords picked from
    ``kwargs`` (bias forced to 0; ``owner`` names the learner in warnings), the model
    from :func:`rlscore.core.rankrls.fit_rank_model` (the one memory decision; ``cv``
    the cross-validation that follows)."""
    from rlscore.core.nystrom import n_rows
    from rlscore.core.rankrls import fit_rank_model, query_groups
    X, Y = data[:2]
    params = split_kernel_kwargs(kwargs, kernel, owner, extra=MEMORY_KEYWORDS,
                                 force={"bias": 0.0}, basis=BASIS_KEYWORDS)
    groups = None if len(data) == 2 else query_groups(data[2], n_rows(X))
    return fit_core_model(fit_rank_model, kwargs, cv, X, Y, groups, regparam, kernel,
                          path, basis_vectors=basis_vectors, **params)


def clean_doc(doc):
    """A docstring as Python 3.13 compiles it, on every Python: the first line
    stripped, the common indentation of the others removed (:func:`inspect.cleandoc`),
    one final newline. Text cut from or spliced into another class's docstring goes
    through it, so that the result does not depend on the interpreter's version."""
    return inspect.cleandoc(doc) + "\n"


def adapted_doc(core_doc, core_intro, face_intro):
    """The docstring of a learner that subclasses a core model: the core's, with its
    ``core_intro`` paragraph replaced by ``face_intro`` and the ``verbose`` keyword of
    :func:`reports_progress` documented before the Attributes section. All three are
    compared and joined without their common indentation (:func:`clean_doc`), which
    Python 3.13 strips from docstrings and earlier versions keep."""
    doc = clean_doc(core_doc)
    return doc.replace(textwrap.dedent(core_intro), textwrap.dedent(face_intro)).replace(
        "\nAttributes\n",
        "verbose : bool, default False (keyword)\n"
        "    Show the progress on stderr; it is logged either way (logger\n"
        "    ``\"rlscore\"``, see :doc:`/progress`).\n\nAttributes\n", 1)


class CoreModelAdapter:
    """Base of the learners that adapt one core model ``self._model``: the learner's
    ``Y``, ``regparam``, ``predictor`` and ``A`` are the model's current ones.

    A subclass builds its core model in the classmethod ``_fit_model(data, regparam,
    kernel, basis_vectors, kwargs, path, cv)`` (``data`` the tuple of its data
    arguments); its constructor trains through it, and the selection wrappers adopt the
    model they chose with :meth:`from_model`."""

    def _adopt(self, model):
        """Take ``model`` as this learner's core model. O(1)."""
        self._model = model
        self._sync()

    @classmethod
    def from_model(cls, model, *, verbose=False):
        """The learner around an already trained core model (e.g. the one a selection
        wrapper chose), without training again. O(1)."""
        learner = object.__new__(cls)
        learner._verbose = verbose
        learner._adopt(model)
        return learner

    def _sync(self):
        self.Y = self._model.Y
        self.regparam = self._model.regparam
        self.predictor = self._model.predictor

    @property
    def A(self):
        return self._model.A


def select_regparam(wrapper, base, data, model_args, regparams, default_grid, make_cv):
    """The body of every RLScore selection wrapper, on the one road: the core model of
    ``base`` (``base._fit_model(data, grid[0], *model_args, path=True, cv=)``, decomposed
    for the path; ``model_args`` = (kernel, basis_vectors, kwargs); the wrapper's
    ``_cv_intent`` sizes the memory plan), :func:`rlscore.core.selection.grid_search` with
    the cross-validator ``make_cv(model)``, and the
    :class:`~rlscore.core.selection.SelectionResult` renamed onto ``wrapper``
    (``learner`` -- ``base`` around the chosen model --, ``cv_performances``,
    ``regparam``, ``predictor``). Returns the per-regparam predictions of the
    cross-validator."""
    from rlscore.core.selection import grid_search
    grid = regparam_grid(regparams, default_grid)
    if not grid:
        raise ValueError("regparams is empty")
    model = base._fit_model(data, grid.checked[0], *model_args, path=True,
                            cv=getattr(wrapper, "_cv_intent", None))
    result = grid_search(make_cv(model), grid)
    wrapper.learner = base.from_model(result.model,
                                      verbose=getattr(wrapper, "_verbose", False))
    wrapper.cv_performances = result.performances
    wrapper.regparam = result.best
    wrapper.predictor = wrapper.learner.predictor
    return result.predictions


def learns_kernel(kwargs):
    """True when the learner's keywords ask for ``gamma="learn"``."""
    return isinstance(kwargs.get("gamma"), str) and kwargs["gamma"] == "learn"


def learn_kernel_parameters(learner, kernel, basis_vectors, regparams, kwargs, fit):
    """``gamma="learn"`` of a selection learner: check the combination, run ``fit``
    (a core search such as :func:`rlscore.core.hyper.learn_kernel`, called with ``ard``,
    ``degree``, ``penalty`` and, when given, ``criterion``, ``basis_vectors``
    (Gaussian kernel: the criterion of the Nystrom model on them), ``restarts`` and
    ``maxiter``), keep its result on ``learner`` (``kernel_learning``,
    ``cv_history``, ``gamma``, ``length_scales`` or ``coef0``) and return the kernel
    keywords at the learned values and the one-element regparam grid."""
    from rlscore.core.hyper import LEARNABLE_KERNELS
    if kernel not in LEARNABLE_KERNELS:
        raise ValueError(f"gamma='learn' needs kernel='GaussianKernel' or "
                         f"'PolynomialKernel', got kernel={kernel!r}")
    if regparams is not None:
        raise ValueError("gamma='learn' learns regparam too: regparams must be None")
    search = {}
    if basis_vectors is not None:
        if kernel != "GaussianKernel":
            raise ValueError("gamma='learn' with basis_vectors needs "
                             "kernel='GaussianKernel'")
        search["basis_vectors"] = basis_vectors
    kwargs = dict(kwargs)
    ard = kwargs.pop("ard", False)
    penalty = kwargs.pop("penalty", 0.0)
    for key in ("criterion", "restarts", "maxiter"):
        if key in kwargs:
            search[key] = kwargs.pop(key)
    res = fit(ard=ard, degree=kwargs.get("degree", 2), penalty=penalty, **search)
    learner.kernel_learning = res
    learner.cv_history = res.history
    learner.gamma = res.kernel_params["gamma"]
    if kernel == "GaussianKernel":
        learner.length_scales = res.length_scales if ard else float(res.length_scales)
    else:
        learner.coef0 = res.kernel_params["coef0"]
    kwargs.update({k: v for k, v in res.kernel_params.items() if k != "degree"})
    return kwargs, [res.regparam]


# --------------------------------------------------------------------------- progress


#: The ``verbose`` entry of a learner's Parameters (:func:`reports_progress` adds it)
VERBOSE_DOC = """\
    verbose : bool, default False (keyword)
        Show the progress (kernel matrix, factorizations, the regparam grid, solver
        iterations) on stderr; it is logged either way (logger ``"rlscore"``, see
        :doc:`/progress`)."""


def reports_progress(init):
    """Give a learner's constructor the keyword ``verbose`` (default False).

    Training runs inside :func:`rlscore._progress.verbosity`: with ``verbose=True`` its
    stages (kernel matrix, factorizations, the regparam grid) and solver iterations are
    shown on stderr, otherwise they are only logged (logger ``"rlscore"``). The flag is
    kept as ``_verbose`` for the learner's later stateful calls (``solve``,
    ``holdout``, ...; see :func:`exclusive`). A constructor that already takes
    ``verbose`` keeps its own parameter (positional or keyword); otherwise ``verbose``
    is added as a keyword-only parameter. RLScore callbacks are untouched.
    """
    sig = inspect.signature(init)
    own = "verbose" in sig.parameters

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if own:
            try:
                bound = sig.bind(self, *args, **kwargs)
            except TypeError:           # the constructor raises the proper message
                return init(self, *args, **kwargs)
            verbose = bound.arguments.get("verbose", sig.parameters["verbose"].default)
        else:
            verbose = kwargs.pop("verbose", False)
        self._verbose = as_verbose_flag(verbose)
        with verbosity(self._verbose):
            init(self, *args, **kwargs)

    if not own:
        params = list(sig.parameters.values())
        at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD),
                  len(params))
        params.insert(at, inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY,
                                            default=False))
        wrapper.__signature__ = sig.replace(parameters=params)
    return wrapper


class DataLabelsAdapter(CoreModelAdapter):
    """A :class:`CoreModelAdapter` whose constructor trains on ``(X, Y)`` (RLS,
    GlobalRankRLS): the core model of :meth:`_fit_model` for one regparam."""

    @reports_progress
    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 **kwargs):
        self._adopt(self._fit_model((X, Y), regparam, kernel, basis_vectors, kwargs,
                                    path=False, cv=None))


# --------------------------------------------------------------------------- threads

_LOCKS = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def exclusive(method):
    """Refuse a call while another thread runs a stateful method of the same learner.

    ``solve``, ``holdout``, ``leave_one_out`` and ``leave_pair_out`` read and replace
    the learner's current regparam and model; two threads interleaving them would mix
    regparams. A non-blocking per-learner lock (re-entrant within one thread, kept
    outside the instance so learners stay picklable) turns such a race into a
    RuntimeError. ``predict`` reads a finished predictor and is safe to share.
    The call reports progress as the learner's ``verbose`` flag says (see
    :func:`reports_progress`).
    """
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with _LOCKS_GUARD:
            lock = _LOCKS.get(self)
            if lock is None:
                lock = _LOCKS[self] = threading.RLock()
        if not lock.acquire(blocking=False):
            raise RuntimeError(
                f"{type(self).__name__}.{method.__name__}: another thread is running a "
                f"solve/hold-out call on this learner; learners are not thread-safe for "
                f"training -- give each thread its own learner (predict is safe to share)")
        try:
            with verbosity(getattr(self, "_verbose", None)):
                return method(self, *args, **kwargs)
        finally:
            lock.release()
    return wrapper


class SolveAdapter:
    """Base of the learners that adapt one core model ``self._model`` with
    ``solve(regparam)``, ``regparam`` and ``predictor`` (PPRankRLS, SurvivalRankRLS):
    the learner's ``regparam`` and ``predictor`` are the model's current ones."""

    def _sync(self):
        self.regparam = self._model.regparam
        self.predictor = self._model.predictor

    @exclusive
    def solve(self, regparam):
        """Re-train with a new regparam (required argument, as in RLScore)."""
        self._model.solve(regparam)
        self._sync()
