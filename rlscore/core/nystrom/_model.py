"""RLS (kernel ridge regression) as one object: representation + solver + lambda.

Both public faces wrap :class:`RLSModel`: ``rlscore.learner.RLS`` (RLScore names and
squeezed outputs) and ``rlscore.estimators.KernelRLS`` (scikit-learn). All arrays it
returns are 2-D (m, p).
"""

import numpy as np

from rlscore.core.nystrom._representation import build_representation
from rlscore.core.rls import KernelSolver, LinearSolver
from rlscore._validation import as_2d_labels, check_regparam

__all__ = ["RLSModel", "make_solver", "n_rows"]


def make_solver(rep, Y):
    """The RLS solver for a representation: primal, primal with a known Nystrom basis
    (cross-validation can remove basis vectors), or dual."""
    if rep.kind == "primal" and rep.basis_indices is not None:
        from rlscore.core.nystrom._nystrom import NystromSolver
        return NystromSolver(rep.nystrom, Y, rep.basis_indices)
    return LinearSolver(rep.matrix, Y) if rep.kind == "primal" else KernelSolver(rep.matrix, Y)


def n_rows(X, name="X"):
    """Number of rows of an array-like without converting it."""
    shape = getattr(X, "shape", None)
    if shape is None and isinstance(X, list):
        return len(X)     # e.g. graphs or documents for a structured-input kernel
    if shape is None:
        X = np.asarray(X)
        shape = X.shape
    if len(shape) == 0:
        raise ValueError(f"{name} must be at least 1-D")
    return shape[0]


class RLSModel:
    """Regularized least squares: min ``||Y - K A||^2 + lambda tr(A^T K A)``.

    Parameters
    ----------
    X, kernel, basis_vectors, kernel_params : see
        :func:`rlscore.core.nystrom.build_representation`.
    Y : labels (m,) or (m, p)
    regparam : float >= 0
    path : bool
        Eigendecompose at once (a lambda path or cross-validation will follow).
    prefer : {"auto", "primal", "dual"}, see ``build_representation``.
    options : keywords
        The kernel's parameters, and: ``basis_indices``, ``n_basis``,
        ``random_state``, a reduced-set model whose basis is given as indices into X
        (or drawn), see ``build_representation``; ``keep_basis_in_cv`` (below).
    keep_basis_in_cv : bool, default False (in ``options``)
        With a known basis, ``holdout``, ``leave_one_out`` and ``leave_pair_out``
        remove the held-out basis vectors (Airola et al. 2011, Theorem 1), i.e. they
        equal retraining with the reduced basis. True keeps them (the model then uses test examples as basis
        vectors, which biases the estimate). With ``basis_vectors`` the indices are
        unknown and the basis is always kept.

    Notes
    -----
    Training a single lambda costs one Cholesky factorization (O(m^3/3) dual,
    O(m d^2) primal); a lambda path one eigendecomposition, then O(m^2 p) (dual) or
    O(d^2 p) (primal) per lambda. See :mod:`rlscore.core.rls` for the
    hold-out, leave-one-out and leave-pair-out costs.
    """

    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 path=False, prefer="auto", **options):
        options = dict(options)
        keep_basis_in_cv = options.pop("keep_basis_in_cv", False)
        self.Y = as_2d_labels(Y)
        m = n_rows(X)
        if m != self.Y.shape[0]:
            raise ValueError(f"X has {m} rows but Y has {self.Y.shape[0]}: lengths must match")
        self.representation = build_representation(X, kernel, basis_vectors, prefer=prefer,
                                                   **options)
        self.solver = make_solver(self.representation, self.Y)
        self.remove_basis = (self.representation.basis_indices is not None
                             and not keep_basis_in_cv)
        if path:
            self.solver.decompose()
        self.solve(regparam)

    def solve(self, regparam):
        """Train for ``regparam`` (cheap after a decomposition)."""
        self.regparam = check_regparam(regparam)
        self.coef = self.solver.solve(self.regparam)
        self.predictor = self.representation.predictor(self.coef)
        return self

    @property
    def A(self):
        """Dual coefficients (m, p) w.r.t. the (possibly approximated) kernel."""
        if self.representation.kind == "dual":
            return self.coef
        return self.solver.dual_coefficients(self.regparam)

    @property
    def basis_indices(self):
        return self.representation.basis_indices

    def holdout(self, indices):
        if self.remove_basis:
            return self.solver.holdout_removing(self.regparam, indices)
        return self.solver.holdout(self.regparam, indices)

    def leave_one_out(self):
        if self.remove_basis:
            return self.solver.leave_one_out_removing(self.regparam)
        return self.solver.leave_one_out(self.regparam)

    def leave_one_out_path(self, regparams):
        """Leave-one-out predictions (m, p) for every lambda of ``regparams`` (a list);
        batched over the grid for primal models (see
        :meth:`rlscore.core.rls.LinearSolver.leave_one_out_path`), else one
        :meth:`leave_one_out` per lambda. The model's own lambda is unchanged."""
        grid = [check_regparam(lam) for lam in regparams]
        if self.remove_basis:
            return self.solver.leave_one_out_removing_path(grid)
        if hasattr(self.solver, "leave_one_out_path"):
            return self.solver.leave_one_out_path(grid)
        return [self.solver.leave_one_out(lam) for lam in grid]

    def leave_pair_out(self, starts, ends):
        """Predictions for both members of each pair from the model trained without
        the pair; with basis removal (a known basis, ``keep_basis_in_cv=False``) also
        without the basis vectors of the pair, like :meth:`holdout`: one exact
        hold-out (O(r^2 p)) per pair holding a basis vector, the fast pair formula for
        the others."""
        if self.remove_basis:
            return self.solver.leave_pair_out_removing(self.regparam, starts, ends)
        return self.solver.leave_pair_out(self.regparam, starts, ends)

    def interval_model(self, method="jackknife+", folds=None, groups=None, n_folds=None,
                       seed=0):
        """The :class:`rlscore.core.rls.IntervalModel` of ``method`` (the
        leave-one-out models, cached per lambda, or the models without each fold);
        see :func:`rlscore.core.rls.interval_model`. O(m^3) dual, O(m d^2) primal
        once."""
        from rlscore.core.rls import METHODS, interval_model
        if (METHODS.get(method) == "loo" and folds is None and groups is None
                and n_folds is None):
            cached = getattr(self, "_loo_intervals", None)
            if cached is None or cached[0] != self.regparam:
                cached = (self.regparam, interval_model(self, method))
                self._loo_intervals = cached
            return cached[1]
        return interval_model(self, method, folds, groups, n_folds, seed)
