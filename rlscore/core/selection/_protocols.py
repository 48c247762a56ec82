"""What a trained model offers to model selection, and what a cross-validator is.

The boundary between the learner families and :mod:`rlscore.core.selection`: every
cross-validator here calls a model only through these methods, and every face (the
RLScore-compatible learners, the scikit-learn estimators, the command line, Dask) hands
:func:`rlscore.core.selection.grid_search` a :class:`CrossValidator` over a core model
and reads one :class:`rlscore.core.selection.SelectionResult` back.

The optional hold-outs are capabilities: a model has the method or it has not
(:func:`capabilities` lists them), and a cross-validator that needs one asks for it
by name. ``tests/core/test_holdout_contract.py`` runs every model class of every family
through :class:`HoldoutModel` against refits without the held-out rows.
"""

from typing import Any, Protocol, runtime_checkable

__all__ = ["HoldoutModel", "CrossValidator", "HOLDOUT_CAPABILITIES", "capabilities"]

#: the optional exact hold-outs a model may offer, beyond ``holdout``
HOLDOUT_CAPABILITIES = ("holdout_rows", "leave_one_out", "leave_one_out_path",
                        "leave_pair_out", "leave_query_out", "leave_query_out_rows",
                        "holdout_path")


@runtime_checkable
class HoldoutModel(Protocol):
    """A trained model that model selection can drive.

    Attributes
    ----------
    Y : ndarray, shape (m, p)
        The training labels (the hold-out predictions are scored against them).

    Methods
    -------
    solve(regparam)
        Re-solve at another regularization value (the decomposition is reused).
    holdout(rows)
        The predictions for ``rows`` of the model trained without them: shape
        (len(rows), p).

    Optional methods (:data:`HOLDOUT_CAPABILITIES`): ``holdout_rows`` (several queries
    at once, where ``holdout`` takes rows of one query), ``leave_one_out``,
    ``leave_one_out_path(grid)``, ``leave_pair_out(starts, ends)``,
    ``leave_query_out``, ``leave_query_out_rows``, ``holdout_path(folds, grid)``.
    """

    Y: Any

    def solve(self, regparam): ...

    def holdout(self, rows): ...


@runtime_checkable
class CrossValidator(Protocol):
    """One estimate per grid value for :func:`rlscore.core.selection.grid_search`.

    Attributes
    ----------
    rls : HoldoutModel or None
        The model that ``grid_search`` re-solves at each value before calling ``cv``
        (RLScore's name; None when the cross-validator refits per split itself).
    measure : callable with a boolean ``iserror``

    Methods
    -------
    cv(value) -> (performance, predictions)
        The estimate at ``value`` (the model already solved there).

    An optional ``prepare(grid)`` is given the whole grid first (a whole path at once).
    """

    rls: Any
    measure: Any

    def cv(self, value): ...


def capabilities(model):
    """The optional hold-outs of :data:`HOLDOUT_CAPABILITIES` that ``model`` offers, as
    a frozenset of method names. O(1)."""
    return frozenset(name for name in HOLDOUT_CAPABILITIES
                     if callable(getattr(model, name, None)))
