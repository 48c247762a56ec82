"""How a fit is computed, decided once at a face's boundary and passed down as objects:
:class:`ComputePlan` (memory budget, block size, solver route, precision and PCG's
options, :class:`PCGOptions`), :class:`CVIntent` (the cross-validation that will follow
the fit, which sizes the memory estimate) and :class:`Workload` (the sizes of a
reduced-set fit). Each is validated once, in its constructor; core functions take them
(``plan=``, ``cv=``) instead of loose keywords.

The faces spell the options their own way (``pcg_maxiter`` in the learners,
``pcg_max_iter`` in the estimators, ``--pcg-maxiter`` on the command line). Core never
receives those spellings: a refusal is a :class:`PlanError` whose message names the
plan's fields, and a face rewords it with its own names
(``with PlanError.reworded({"maxiter": "pcg_maxiter"}): ...``). This follows
Falkon's ``FalkonOptions`` (one options object passed through, grouped per
component), frozen and checked where it is made.
"""

import contextlib
import numbers
from dataclasses import dataclass, field, replace

import numpy as np

from rlscore._memory import ReducedSetSizes
from rlscore._validation import (check_float_dtype,
                                 check_positive_int, check_real, check_tol)

__all__ = ["ComputePlan", "PCGOptions", "CVIntent", "Workload", "PlanError",
           "PlanTypeError", "MEMORY_BUDGET_DEFAULT", "SOLVERS", "PCG_TOL",
           "PLAN_FIELD_NAMES", "NO_CV", "StreamedSelection"]

#: The default ``memory_budget`` of the faces: what the process holds plus half the
#: memory available at fit time.
MEMORY_BUDGET_DEFAULT = "auto"
#: The ``solver`` values: "auto" (direct, in memory or streamed; PCG when only PCG fits
#: and no cross-validation is asked), "direct", "pcg".
SOLVERS = ("auto", "direct", "pcg")
#: PCG's default stopping tolerance (relative residual) in every face.
PCG_TOL = 1e-6

#: How a :class:`PlanError` names each field unless a face rewords it: the plan's own
#: field names, and three phrases of the memory refusal (the way to ask for PCG, the
#: ways to have fewer basis vectors or more memory).
PLAN_FIELD_NAMES = {"memory_budget": "memory_budget", "block_size": "block_size",
                    "solver": "solver", "dtype": "dtype", "rtol": "rtol",
                    "maxiter": "maxiter", "precondition": "precondition",
                    "use_pcg": "solver='pcg'", "n_basis": "n_basis / basis_vectors",
                    "more_memory": "a larger memory_budget"}

_MARK = "\x00field\x00"


class PlanError(ValueError):
    """A refused plan or option. ``template`` names the fields as ``{rtol}``,
    ``{memory_budget}``... (:data:`PLAN_FIELD_NAMES`); the message fills them with
    ``names`` (the plan's own by default). A face rewords the error with its
    spellings: :meth:`reword`, or the context manager :meth:`reworded`."""

    def __init__(self, template, names=None):
        self.template = template
        self.names = {**PLAN_FIELD_NAMES, **(names or {})}
        super().__init__(template.format_map(self.names))

    def __reduce__(self):
        return type(self), (self.template, self.names)

    def reword(self, names):
        """The same error (same type) naming the fields as ``names`` says. O(1)."""
        return type(self)(self.template, {**self.names, **names})

    @classmethod
    @contextlib.contextmanager
    def reworded(cls, names):
        """Re-raise a :class:`PlanError` of the block with the fields named as
        ``names`` says (``{"maxiter": "pcg_maxiter"}``): a face's boundary."""
        try:
            yield
        except PlanError as exc:
            raise exc.reword(names) from None


class PlanTypeError(PlanError, TypeError):
    """A :class:`PlanError` for a value of the wrong type (also a TypeError)."""


def _checked(check, value, name, *args, **kwargs):
    """``check(value, <field>, ...)`` of :mod:`rlscore._validation`, its refusal a
    :class:`PlanError` (PlanTypeError for a TypeError) naming the field ``name``."""
    try:
        return check(value, _MARK, *args, **kwargs)
    except (TypeError, ValueError) as exc:
        text = str(exc).replace("{", "{{").replace("}", "}}")
        error = PlanTypeError if isinstance(exc, TypeError) else PlanError
        raise error(text.replace(_MARK, "{" + name + "}")) from None


def _escaped(value):
    return repr(value).replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class PCGOptions:
    """The options of Falkon's preconditioned CG (SciPy's ``cg`` spelling).

    Parameters
    ----------
    rtol : float in (0, 1) or None
        Stop when ||b - S w|| <= rtol ||b|| (None: :data:`PCG_TOL`, see :attr:`tol`).
    maxiter : int >= 1 or None
        Iteration cap (None: none; a ConvergenceWarning when it stops there).
    precondition : "auto", "nystrom" or None
        Of :func:`rlscore.core.nystrom.pcg_solve` ("auto": the operator's default).
    callback : callable or None
        Of :func:`rlscore.core.optim.conjugate_gradient`.

    Notes
    -----
    ``rtol`` and ``maxiter`` left None count as not given (:meth:`given`): a face
    refuses given options when the direct solver trains the model. O(1).
    """

    rtol: float = None
    maxiter: int = None
    precondition: str = "auto"
    callback: object = field(default=None, compare=False)

    def __post_init__(self):
        if self.rtol is not None:
            object.__setattr__(self, "rtol", _checked(check_tol, self.rtol, "rtol"))
        object.__setattr__(self, "maxiter", _checked(
            check_positive_int, self.maxiter, "maxiter", allow_none=True))

    @property
    def tol(self):
        """The stopping tolerance PCG runs at: ``rtol``, or :data:`PCG_TOL`."""
        return PCG_TOL if self.rtol is None else self.rtol

    def given(self):
        """The fields given (not None) among ``rtol`` and ``maxiter``, in that order."""
        return [f for f in ("rtol", "maxiter") if getattr(self, f) is not None]


@dataclass(frozen=True)
class ComputePlan:
    """How a fit is computed: the memory budget, the blocks, the solver route and the
    precision, with PCG's options. Validated once, here; the faces build it from their
    keywords (:meth:`from_options`) and core functions take it as ``plan=``.

    Parameters
    ----------
    memory_budget : "auto" (default), MiB > 0, or None
        The bound on the peak resident set of the whole process (None: no limit;
        "auto": what the process holds when planned plus half the available memory,
        :func:`rlscore.core.nystrom.budget_bytes`).
    block_size : int >= 1 or None
        Rows per block when streaming (None: from the budget).
    solver : "auto" (default), "direct" or "pcg" (:data:`SOLVERS`)
    dtype : np.float64 (default) or np.float32
        PCG's kernel blocks (the direct solver computes in float64).
    pcg : :class:`PCGOptions` or None (PCG's defaults, nothing given)

    Notes
    -----
    O(1). Frozen: two faces given the same options build equal plans.
    """

    memory_budget: object = MEMORY_BUDGET_DEFAULT
    block_size: int = None
    solver: str = "auto"
    dtype: object = np.float64
    pcg: PCGOptions = None

    def __post_init__(self):
        if not isinstance(self.solver, str) or self.solver not in SOLVERS:
            raise PlanError(f"{{solver}} must be one of {SOLVERS}, got "
                            f"{_escaped(self.solver)}")
        b = self.block_size
        if b is not None and (isinstance(b, bool) or not isinstance(
                b, numbers.Integral) or b < 1):
            raise PlanError(f"{{block_size}} must be a positive int or None, got "
                            f"{_escaped(b)}")
        object.__setattr__(self, "block_size", None if b is None else int(b))
        mb = self.memory_budget
        if isinstance(mb, str):
            if mb != "auto":
                raise PlanError(f"{{memory_budget}} must be 'auto', a number of MiB "
                                f"> 0 or None, got {_escaped(mb)}")
        elif mb is not None:
            object.__setattr__(self, "memory_budget", _checked(
                check_real, mb, "memory_budget", minimum=0, open_minimum=True))
        object.__setattr__(self, "dtype", _checked(check_float_dtype, self.dtype,
                                                   "dtype"))
        if self.pcg is not None and not isinstance(self.pcg, PCGOptions):
            raise PlanTypeError(f"pcg must be PCGOptions or None, got "
                                f"{_escaped(self.pcg)}")

    @classmethod
    def from_options(cls, memory_budget=MEMORY_BUDGET_DEFAULT, block_size=None,
                     solver="auto", dtype=np.float64, rtol=None, maxiter=None):
        """The plan of a face's keywords, PCG's two among them (``pcg`` None when
        neither is given). Raises :class:`PlanError` naming the plan's fields, in the
        order memory budget, solver, block size... as the faces always checked them.
        O(1)."""
        plan = cls(memory_budget=memory_budget, block_size=block_size, solver=solver,
                   dtype=dtype)
        if rtol is None and maxiter is None:
            return plan
        return replace(plan, pcg=PCGOptions(rtol=rtol, maxiter=maxiter))

    @property
    def pcg_options(self):
        """:attr:`pcg`, or the defaults when none were given."""
        return self.pcg if self.pcg is not None else PCGOptions()


@dataclass(frozen=True)
class CVIntent:
    """The cross-validation that will follow a fit, as the memory plan needs to know
    it (the estimate of the streamed and in-memory paths grows with it).

    Parameters
    ----------
    kind : None (one fit, no cross-validation), "loo", "kfold", "lqo" (leave-query-out:
        K-fold with one fold per query, :meth:`per_query`) or another name ("lpo",
        "rank": the cross-validation needs the in-memory formulas; the model stays in
        memory)
    n_values : the regparams of the grid (L; the m x L x p held-out predictions)
    n_fold_statistics : "kfold": the sets of per-fold b x b statistics the streamed
        K-fold keeps (0 when not known; 0 for the other kinds). For K folds given as
        index lists that is K + 1 (:meth:`kfold`): the rows that no fold holds out
        form one more fold, whose statistics are summed into every training set
        (:meth:`rlscore.core.nystrom.StreamedHoldoutPath.holdout_path`). The "+ 1" is
        that fold, not a final refit: the model on every row is solved from the
        totals, which every streamed path keeps anyway. For (m,) fold numbers that
        cover every row it is K.

    Notes
    -----
    O(1).
    """

    kind: str = None
    n_values: int = 1
    n_fold_statistics: int = 0

    @classmethod
    def kfold(cls, n_values, n_folds):
        """K-fold over ``n_folds`` folds given as index lists (0: not known): their
        statistics and those of the rows in no fold. O(1)."""
        return cls("kfold", n_values, int(n_folds) + 1)

    def per_query(self, n_groups):
        """Leave-query-out as what it streams as: K-fold with one fold per query
        (:meth:`kfold` over the ``n_groups`` queries). Other kinds are returned
        unchanged. O(1)."""
        if self.kind != "lqo":
            return self
        return CVIntent.kfold(self.n_values, n_groups)


#: No cross-validation follows (one fit).
NO_CV = CVIntent()


@dataclass(frozen=True)
class Workload:
    """The sizes of a reduced-set fit that the memory plan weighs.

    Parameters
    ----------
    m, n_basis, d, p : rows, basis vectors, input features, outputs
    kind : "rls" (default), "query" or "global": the model (RankRLS's streamed
        statistics centre each block, :data:`rlscore._memory.CENTRING_BLOCKS`)
    streamable : False: the model cannot stream (structured or precomputed input, a
        kernel outside :data:`rlscore.core.nystrom.STREAMABLE_KERNELS`)
    stream : True: the data are streamed whatever the budget (a file read in passes);
        only the streamed paths are considered
    pass_bytes : bytes a pass over the data source holds besides the blocks (a file's
        parser buffers, :func:`rlscore._memory.parser_bytes`)
    """

    m: int
    n_basis: int
    d: int
    p: int = 1
    kind: str = "rls"
    streamable: bool = True
    stream: bool = False
    pass_bytes: float = 0.0

    @property
    def sizes(self):
        """The sizes the estimates weigh: :class:`rlscore._memory.ReducedSetSizes`."""
        return ReducedSetSizes(self.m, self.n_basis, self.d, self.p, self.kind)


@dataclass(frozen=True)
class StreamedSelection:
    """How a streamed fit (:func:`rlscore.core.nystrom.streamed_fit`,
    :func:`rlscore.core.nystrom.pcg_select`) gets its regparam.

    Parameters
    ----------
    regparam : the lambda when ``regparams`` is None (default 1.0)
    regparams : grid of lambdas to choose from by cross-validation, optional
    cv : "loo" (RLS only), an int K (K folds of rows; of whole queries for "query"), or
        (m,) fold numbers (e.g. the qids for leave-query-out); None: leave-one-out for
        :func:`streamed_fit`, none for :func:`pcg_select` (then ``validation``)
    measure : f(Y, P) with ``iserror``; default sqerror
    validation : PCG with a grid: the fraction of rows (whole queries for "query")
        held out once, instead of ``cv`` folds
    random_state : seed of the random folds and validation split
    """

    regparam: float = 1.0
    regparams: object = None
    cv: object = None
    measure: object = None
    validation: float = None
    random_state: object = None

    def intent(self, solver):
        """The :class:`CVIntent` of this selection under ``solver``: none without a
        grid; leave-one-out for ``cv`` "loo" (direct); else K-fold, whose per-fold
        statistics the direct solver keeps (K, or the distinct fold numbers, which
        cover every row; none for PCG or a validation split). O(1), O(m log m) for
        fold numbers."""
        if self.regparams is None:
            return NO_CV
        n_values = max(len(self.regparams), 1)
        cv = "loo" if self.cv is None else self.cv
        if isinstance(cv, str) and cv == "loo" and not (solver == "pcg" or
                                                        self.validation is not None):
            return CVIntent("loo", n_values)
        if self.validation is not None or solver == "pcg":
            return CVIntent("kfold", n_values)
        if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            k = max(int(cv), 0)
        elif isinstance(cv, str):
            k = 0
        else:
            k = int(np.unique(np.asarray(cv).ravel()).size)
        return CVIntent("kfold", n_values, k)
