"""How a RankSVM is trained, decided once: the loss, its normalization, the optimizer
and its stopping rule, in one frozen :class:`RankSVMOptions` that a face builds at its
boundary and the core passes down unchanged.

Spelling. Inside the core the optimizer ("bundle" or "newton") is ``optimizer``, the
relative tolerance ``rtol`` and the iteration cap ``maxiter`` (SciPy's names, as in
:mod:`rlscore.core.optim`). Every RankSVM face spells them ``solver``, ``tol`` and
``max_iter`` (docs/names.rst; ``solver`` means the memory route in the RLS faces, a
different concept), and the error messages here name the faces' keywords
(:data:`FACE_NAMES`), so that a face's refusal reads the same as before the options
existed.
"""

from dataclasses import dataclass

from rlscore.core.ranksvm._risk import LOSSES
from rlscore._validation import check_positive_int, check_tol

__all__ = ["RankSVMOptions", "OPTIMIZERS", "DEFAULT_RTOL", "DEFAULT_MAXITER",
           "FACE_NAMES", "check_loss_solver", "ranksvm_tol"]

#: The RankSVM optimizers: the bundle method (:func:`rlscore.core.optim.bmrm`) and the
#: trust-region Newton method (:func:`rlscore.core.optim.tron`, squared hinge only).
OPTIMIZERS = ("bundle", "newton")

#: The default ``rtol`` of each optimizer: the duality gap relative to R(0) (bundle
#: method), ||grad J(w)|| / ||grad J(0)|| (Newton; see :mod:`rlscore.core.ranksvm`).
DEFAULT_RTOL = {"bundle": 1e-3, "newton": 1e-10}

#: The default ``maxiter``: bundle iterations (risk evaluations) or Newton steps.
DEFAULT_MAXITER = {"bundle": 1000, "newton": 100}

#: The faces' keyword for each core option name (every RankSVM face shares them); the
#: error messages name these.
FACE_NAMES = {"optimizer": "solver", "rtol": "tol", "maxiter": "max_iter"}


def ranksvm_tol(tol, optimizer, name="tol"):
    """``tol`` checked (a finite number in (0, 1)), or the optimizer's default
    (:data:`DEFAULT_RTOL`) for None; ``name`` is the caller's spelling in the error
    message. O(1)."""
    return DEFAULT_RTOL[optimizer] if tol is None else check_tol(tol, name)


def check_loss_solver(loss, solver=None):
    """A face's (loss, solver) checked: returns (loss, optimizer), the optimizer None
    picks the default of the loss ("bundle" for the hinge, "newton" for the squared
    hinge). ValueError for unknown names and for the Newton method on the hinge loss
    (not differentiable: no Hessian); the messages name the faces' ``solver``."""
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if solver is None:
        solver = "bundle" if loss == "hinge" else "newton"
    if not isinstance(solver, str) or solver not in OPTIMIZERS:
        raise ValueError(f"solver must be one of {OPTIMIZERS} (or None for the loss's "
                         f"default), got {solver!r}")
    if loss == "hinge" and solver == "newton":
        raise ValueError("solver='newton' needs a twice differentiable loss: the hinge "
                         "loss has no Hessian; use loss='squared_hinge' with "
                         "solver='newton', or solver='bundle' for the hinge")
    return loss, solver


@dataclass(frozen=True)
class RankSVMOptions:
    """The options of one RankSVM training, checked and completed on construction.

    Parameters
    ----------
    loss : "hinge" (default) or "squared_hinge"
    optimizer : "bundle", "newton" or None (the loss's default: the bundle method for
        the hinge, trust-region Newton for the squared hinge; Newton needs the squared
        hinge). The faces' ``solver``.
    rtol : float in (0, 1) or None
        Bundle method: stop at duality gap <= rtol R(0); Newton: at ||grad J(w)|| <=
        rtol ||grad J(0)||. None: :data:`DEFAULT_RTOL` of the optimizer. The faces'
        ``tol``.
    maxiter : int > 0 or None
        Risk evaluations (bundle) or Newton steps; None: :data:`DEFAULT_MAXITER`. The
        faces' ``max_iter``.
    normalize : "pairs" (default), "query" or "none"
        The pair weights of the loss (:mod:`rlscore.core.ranksvm`); checked by the risk
        that uses it (the survival risk takes "pairs" and "none"; explicit pairs map
        "pairs" to the mean and "none" to the sum).
    warm_start : "auto" (default) or None
        "auto": start from the solution on a random tenth of the data for large m
        (:func:`rlscore.core.ranksvm.solve_ranksvm`); None: start at w = 0 (or ``x0``).
    verbose : bool, default False
        One progress line per iteration on stderr (:mod:`rlscore._progress`).
    warn : bool, default True
        A ConvergenceWarning when ``maxiter`` stops the optimizer first.
    eps_cg : float, default 0.1
        Newton: the forcing constant of the inner CG (:class:`rlscore.core.optim.TRONOptions`).

    Raises
    ------
    ValueError
        An unknown loss or optimizer, Newton on the hinge, rtol outside (0, 1), a
        maxiter that is not a positive int, a warm_start other than "auto" or None; the
        messages name the faces' keywords (:data:`FACE_NAMES`).

    Notes
    -----
    After construction ``optimizer``, ``rtol`` and ``maxiter`` hold the resolved
    values (never None). O(1).
    """

    loss: str = "hinge"
    optimizer: str | None = None
    rtol: float | None = None
    maxiter: int | None = None
    normalize: str = "pairs"
    warm_start: str | None = "auto"
    verbose: bool = False
    warn: bool = True
    eps_cg: float = 0.1

    def __post_init__(self):
        loss, optimizer = check_loss_solver(self.loss, self.optimizer)
        rtol = ranksvm_tol(self.rtol, optimizer, FACE_NAMES["rtol"])
        maxiter = DEFAULT_MAXITER[optimizer] if self.maxiter is None else \
            check_positive_int(self.maxiter, FACE_NAMES["maxiter"])
        if self.warm_start not in ("auto", None):
            raise ValueError(f"warm_start must be 'auto' or None, got "
                             f"{self.warm_start!r}")
        for name, value in (("optimizer", optimizer), ("rtol", rtol),
                            ("maxiter", maxiter)):
            object.__setattr__(self, name, value)

    def using(self, optimizer):
        """These options for ``optimizer`` (ValueError if they name another one): the
        check of a driver that runs one optimizer. O(1)."""
        if self.optimizer != optimizer:
            raise ValueError(f"these RankSVMOptions are for optimizer="
                             f"{self.optimizer!r}, not {optimizer!r}")
        return self
