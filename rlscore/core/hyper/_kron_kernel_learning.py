"""Kernel parameters of both domains of complete-data KronRLS (one Gaussian gamma per
side, or per feature) and regparam, learned by minimizing the exact in-sample
leave-one-pair-out error (:mod:`._loo_gradient`) with L-BFGS-B
(:func:`rlscore.core.selection.minimize_criterion`).

Which criterion
---------------
``criterion="rows"`` / ``"cols"`` / ``"both"`` (the faces' names ``"drugs"``,
``"targets"`` too) minimizes the exact hold-out error for new objects (settings B-D,
:mod:`._kron_setting_criteria`) with its gradient. Otherwise:

The in-sample leave-one-pair-out error scores predictions for *new pairs of known
objects* (setting A of Pahikkala et al. 2015). For predictions on new drugs, new
targets or both (settings B-D) it is optimistic and can pick narrower kernels than a
leave-row-out or leave-column-out criterion would: use those for new objects.

``criterion="evidence"`` minimizes instead the Gaussian-process evidence of the
Kronecker model (:func:`rlscore.core.hyper.kron_evidence_gradient`), as
:func:`rlscore.core.hyper.learn_kernel` does for RLS.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from rlscore._validation import check_positive_int, check_real
from rlscore.core.hyper._kron_loo_gradient import KronEvidenceObjective, KronLOOObjective
from rlscore.core.hyper._kron_setting_criteria import (KRON_SETTING_CRITERIA,
                                                       KronSettingObjective,
                                                       kron_setting_criterion)
from rlscore.core.hyper._options import as_learnable_kernel
from rlscore.core.selection import Penalty, SearchOptions, minimize_criterion, restart_points
from rlscore.kernel import as_kernel_input, FixedFamily, GaussianFamily, LinearKernel, PolynomialFamily

__all__ = ["learn_kron_kernel", "KronKernelLearningResult", "KRON_LEARNABLE_KERNELS",
           "similarity_features"]

#: kernels of a domain for :func:`learn_kron_kernel` (the linear kernel is kept fixed)
KRON_LEARNABLE_KERNELS = ("GaussianKernel", "PolynomialKernel", "LinearKernel")

_REGPARAM_RANGE = (1e-8, 1e3)   # times the mean diagonal of K2 kron K1 at the start
_WIDTH_RANGE = (1e-4, 1e3)      # gamma / gamma_start
_COEF0_RANGE = (1e-3, 1e3)


def similarity_features(S, name="S"):
    """Features phi of the objects of a similarity matrix with phi phi^T = S (negative
    eigenvalues clipped to 0), so that the Gaussian kernel of phi is the Gaussian of
    the similarity-induced distance, exp(-gamma (S_ii + S_jj - 2 S_ij)) (exactly, for
    a positive semidefinite S): a similarity matrix with a width to learn.

    Parameters
    ----------
    S : (n, n) symmetric similarity matrix of *all* objects (training and test)

    Returns
    -------
    ndarray (n, r), r the number of positive eigenvalues. O(n^3).
    """
    from rlscore.core.kronecker import check_square_kernel
    S = check_square_kernel(S, name)
    e, V = np.linalg.eigh(0.5 * (S + S.T))
    keep = e > e.max() * 1e-12 if e.max() > 0 else e > 0
    if not keep.any():
        raise ValueError(f"{name} has no positive eigenvalue: it defines no distance")
    return np.ascontiguousarray(V[:, keep] * np.sqrt(e[keep]))


@dataclass
class KronKernelLearningResult:
    """The learned parameters of :func:`learn_kron_kernel`.

    Attributes
    ----------
    regparam : float
    kernel_params1, kernel_params2 : dict, each domain's kernel constructor parameters
        (``gamma`` a float, or an ndarray with ``ard=True``; empty for a linear side)
    criterion : float, the minimized criterion: the leave-one-pair-out mean squared
        error, the evidence per pair, or the new-object hold-out mean squared error
        (penalty excluded)
    history : list of dict per optimizer step: ``restart``, ``step``, ``criterion``,
        ``grad_norm``, ``regparam``, ``kernel_params1``, ``kernel_params2``, ``best``
        (True for the one entry at the learned point, which the last step need not be)
    search : CriterionSearchResult
    family1, family2 : the kernel families; theta1, theta2 : their log parameters
    """
    regparam: float
    kernel_params1: dict
    kernel_params2: dict
    criterion: float
    history: list
    search: object
    family1: object
    family2: object
    theta1: np.ndarray
    theta2: np.ndarray

    def kernel1(self):
        """Domain 1's kernel object at the learned parameters (training objects as
        basis)."""
        return self.family1.kernel(self.theta1)

    def kernel2(self):
        """Domain 2's kernel object at the learned parameters."""
        return self.family2.kernel(self.theta2)

    def kernel_matrices(self):
        """(K1, K2) over the training objects at the learned parameters."""
        return (self.family1.evaluate(self.theta1)[0],
                self.family2.evaluate(self.theta2)[0])


def _side(X, spec, name, w_lo, w_hi):
    """(family, lower, upper, start shift direction) of one domain's
    :class:`LearnableKernel` ``spec``."""
    kernel, ard, degree = spec.name, bool(spec.ard), spec.degree
    if kernel not in KRON_LEARNABLE_KERNELS:
        raise ValueError(f"{name}: the kernel must be one of {list(KRON_LEARNABLE_KERNELS)}, "
                         f"got {kernel!r}")
    if ard and kernel != "GaussianKernel":
        raise ValueError(f"ard=True needs the Gaussian kernel ({name}={kernel!r})")
    if kernel == "GaussianKernel":
        fam = GaussianFamily(X, ard=ard)
        t0 = fam.start()
        return fam, t0, t0 + np.log(w_lo), t0 + np.log(w_hi), np.ones(fam.n_params)
    if kernel == "PolynomialKernel":
        fam = PolynomialFamily(X, degree)
        t0 = fam.start()
        lo = np.array([t0[0] + np.log(w_lo), np.log(_COEF0_RANGE[0])])
        hi = np.array([t0[0] + np.log(w_hi), np.log(_COEF0_RANGE[1])])
        return fam, t0, lo, hi, np.array([1.0, 0.0])
    fam = FixedFamily(LinearKernel(X), X)
    return fam, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)


def learn_kron_kernel(X1, X2, Y, kernel1="GaussianKernel", kernel2="GaussianKernel", *,
                      search=None, penalty=0.0, criterion="loo"):
    """Regparam and the kernel parameters of both domains of complete-data KronRLS,
    minimizing the exact in-sample leave-one-pair-out squared error (or the
    Gaussian-process evidence, ``criterion="evidence"``).

    Parameters
    ----------
    X1 : array-like or sparse (n1, d1), the objects of domain 1 (rows of Y)
    X2 : array-like or sparse (n2, d2), the objects of domain 2 (columns of Y)
    Y : array-like (n1, n2), every pair labelled
    kernel1, kernel2 : str or LearnableKernel
        Each domain's kernel, ``"GaussianKernel"``, ``"PolynomialKernel"`` or
        ``"LinearKernel"``, or a :class:`rlscore.core.hyper.LearnableKernel` with its
        ``ard`` (one gamma per feature on a Gaussian side) and ``degree`` (the fixed
        polynomial degree); the Gaussian gamma (and the polynomial gamma and coef0) of
        each side are learned, a linear side is kept as it is.
    search : SearchOptions or None
        As in :func:`rlscore.core.hyper.learn_kernel`, except the box:
        ``search.regparam_range`` defaults to 1e-8 ... 1e3 times the mean diagonal of
        K2 kron K1 at the start, ``search.width_range`` (each gamma as factors of its
        median-heuristic start) to (1e-4, 1e3).
    penalty : float >= 0, "bayes" or Penalty
        As in :func:`rlscore.core.hyper.learn_kernel` (the penalty applies to the log
        gammas of both sides).
    criterion : {"loo", "evidence", "rows", "cols", "both"} or KronHoldoutCriterion
        The in-sample leave-one-pair-out mean squared error (setting A), or the negative log
        marginal likelihood per pair of the Gaussian process with covariance
        K2 kron K1 (amplitude profiled out; :func:`kron_evidence_gradient`, two
        eigendecompositions and O(n1 n2 (n1 + n2)) per step, no O(n1^3 n2) product),
        or the hold-out error for new objects: ``"rows"`` / ``"drugs"`` (setting B,
        leave-one-row-out), ``"cols"`` / ``"columns"`` / ``"targets"`` (C,
        leave-one-column-out), both by the shortcut with the exact gradient
        (:func:`kron_leave_row_out_gradient`, O(n1^3 n2 + n1^2 n2^2) per step),
        ``"both"`` (D, one row and one column per block: n1 n2 refits' adjoints,
        small data only), or ``KronHoldoutCriterion(setting, n_folds=k)`` for k
        folds of objects (D: k^2 blocks; :func:`kron_fold_error_gradient`, one
        decomposition per fold and O(n1 n2 (n1 + n2)) per block).

    Returns
    -------
    KronKernelLearningResult

    Notes
    -----
    The criterion scores new pairs of known objects (setting A); see the module
    docstring for new objects. A step costs the two kernels, their eigendecompositions
    O(n1^3 + n2^3) and the gradient's two symmetric products O(n1^3 n2 + n1 n2^3)
    (:func:`kron_loo_error_gradient`), never an (n1 n2) x (n1 n2) array.
    """
    spec1 = as_learnable_kernel(kernel1, "kernel1")
    spec2 = as_learnable_kernel(kernel2, "kernel2")
    kernel1, kernel2 = spec1.name, spec2.name
    ard = spec1.ard or spec2.ard
    search = SearchOptions() if search is None else search
    penalty = penalty if isinstance(penalty, Penalty) else Penalty(penalty)
    setting = kron_setting_criterion(criterion)
    if setting is None and criterion not in ("loo", "evidence"):
        raise ValueError(f"criterion must be 'loo', 'evidence', one of "
                         f"{sorted(KRON_SETTING_CRITERIA)} or a KronHoldoutCriterion, got "
                         f"{criterion!r}")
    X1 = as_kernel_input(X1, "X1")
    X2 = as_kernel_input(X2, "X2")
    Y = np.asarray(Y, dtype=np.float64)
    if Y.shape != (X1.shape[0], X2.shape[0]):
        raise ValueError(f"Y must have shape (n1, n2) = {(X1.shape[0], X2.shape[0])} (rows "
                         f"of X1 by rows of X2), got {Y.shape}")
    if Y.size < 3:
        raise ValueError(f"learning kernel parameters needs at least 3 pairs, got {Y.size}")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y has non-finite entries")
    restarts = check_positive_int(search.restarts, "restarts", minimum=0)
    width_range, regparam_range = search.width_range, search.regparam_range
    w_lo, w_hi = _WIDTH_RANGE
    if width_range is not None:
        w_lo = check_real(width_range[0], "width_range[0]", minimum=0, open_minimum=True)
        w_hi = check_real(width_range[1], "width_range[1]", minimum=w_lo)
    f1, t1, lo1, hi1, s1 = _side(X1, spec1, "kernel1", w_lo, w_hi)
    f2, t2, lo2, hi2, s2 = _side(X2, spec2, "kernel2", w_lo, w_hi)
    if f1.n_params + f2.n_params == 0:
        raise ValueError("both kernels are linear: there is no kernel parameter to learn "
                         "(select regparam with KronRLS's leave-one-out instead)")
    scale = (float(np.mean(np.diagonal(f1.evaluate(t1)[0])))
             * float(np.mean(np.diagonal(f2.evaluate(t2)[0]))))
    if regparam_range is None:
        lam_lo, lam_hi = scale * _REGPARAM_RANGE[0], scale * _REGPARAM_RANGE[1]
    else:
        lam_lo = check_real(regparam_range[0], "regparam_range[0]", minimum=0,
                            open_minimum=True)
        lam_hi = check_real(regparam_range[1], "regparam_range[1]", minimum=lam_lo)
    lo = np.concatenate([[np.log(lam_lo)], lo1, lo2])
    hi = np.concatenate([[np.log(lam_hi)], hi1, hi2])
    theta0 = np.concatenate([t1, t2])
    shift = np.concatenate([s1, s2])
    starts = restart_points(theta0, shift, scale, lo, hi, restarts)
    if setting is not None:
        objective = KronSettingObjective(f1, f2, Y, setting)
        criterion = f"leave-{setting.setting}-out"
    else:
        objective = (KronLOOObjective if criterion == "loo" else KronEvidenceObjective)(
            f1, f2, Y)
    p1 = f1.n_params
    gauss = np.concatenate([np.full(p1, kernel1 == "GaussianKernel"),
                            np.full(f2.n_params, kernel2 == "GaussianKernel")])
    poly_gamma = np.zeros(gauss.size, dtype=bool)
    if kernel1 == "PolynomialKernel":
        poly_gamma[0] = True
    if kernel2 == "PolynomialKernel":
        poly_gamma[p1] = True
    penalty_index = 1 + np.flatnonzero(gauss | poly_gamma)

    def describe(z):
        _, a, b = objective.split(z)
        out = {"regparam": float(np.exp(z[0]))}
        if a.size:
            out["gamma1"] = float(np.exp(a[0])) if a.size == 1 or not ard else float(
                np.exp(a).mean())
        if b.size:
            out["gamma2"] = float(np.exp(b[0])) if b.size == 1 or not ard else float(
                np.exp(b).mean())
        return out

    if penalty.index is None:
        penalty = dataclasses.replace(penalty, index=penalty_index)
    found = minimize_criterion(
        objective, starts, list(zip(lo, hi)), penalty=penalty, options=search,
        describe=describe, desc=f"KronRLS kernel learning ({criterion} gradient)")

    def params(z):
        _, a, b = objective.split(z)
        return f1.params(a), f2.params(b)

    history = []
    for h in found.history:
        k1, k2 = params(h["x"])
        history.append(dict(restart=h["restart"], step=h["step"],
                            criterion=h["criterion"], grad_norm=h["grad_norm"],
                            regparam=float(np.exp(h["x"][0])), kernel_params1=k1,
                            kernel_params2=k2, best=h["best"]))
    _, a, b = objective.split(found.x)
    k1, k2 = params(found.x)
    return KronKernelLearningResult(
        regparam=float(np.exp(found.x[0])), kernel_params1=k1, kernel_params2=k2,
        criterion=found.fun, history=history, search=found, family1=f1, family2=f2,
        theta1=a.copy(), theta2=b.copy())
