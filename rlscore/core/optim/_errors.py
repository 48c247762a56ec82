"""The one error of a regularized system without a unique solution at the given
regparam (:class:`SingularRegparamError`), raised by every dense solver and hold-out
shortcut of core."""

__all__ = ["SingularRegparamError"]


class SingularRegparamError(ValueError):
    """The regularized system is singular (or indefinite) at this regparam: no unique
    solution, or a hold-out the other examples determine exactly.

    The message is built here, once: ``"<problem>; <remedy>"``, the remedy by default
    ``"use <name> > 0"``.

    Parameters
    ----------
    problem : str
        What is singular, e.g. ``"regparam=0 with rank-deficient features: the problem
        has no unique solution"``.
    remedy : str, optional
        The way out, when it is not ``use <name> > 0`` (e.g. ``"use a larger
        regparam"``).
    name : str, default "regparam"
        The regularization argument's name as the caller spells it.
    """

    def __init__(self, problem, remedy=None, name="regparam"):
        self.problem = problem
        self.remedy = remedy
        self.name = name
        super().__init__(f"{problem}; {remedy if remedy is not None else f'use {name} > 0'}")

    def __reduce__(self):
        # pickled (Dask) with the parts, not the built message, so that it is not
        # built twice
        return type(self), (self.problem, self.remedy, self.name)
