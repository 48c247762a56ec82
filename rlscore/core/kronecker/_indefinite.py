"""One policy for indefinite factor kernels in every Kronecker and two-step learner.

Similarity matrices used as kernels (normalized Smith-Waterman scores of proteins,
Tanimoto-like scores of compounds) are often not positive semidefinite. With factor
eigenvalues e1, e2 the pairwise kernel K2 kron K1 has the eigenvalues e1_a e2_b, so
its smallest eigenvalue is the smallest product of the factors' extreme eigenvalues,

    mu_min = min(e1_min e2_min, e1_min e2_max, e1_max e2_min, e1_max e2_max),

and K2 kron K1 + lambda I is positive definite exactly when lambda > -mu_min. Two-step
RLS solves with each factor separately: K + lambda I is positive definite when
lambda > -e_min. (On sampled pairs the system matrix is a principal submatrix of
K2 kron K1 + lambda I, so the same bound is sufficient there.)

The policy, selected by ``indefinite``:

* ``"raise"`` (default): when a factor has a negative eigenvalue and the regparam does
  not make the system positive definite, refuse with a ValueError that gives the
  factor's smallest eigenvalue and the smallest regparam that works. Regparams above
  that bound are accepted (RLS with a regularized indefinite kernel is well posed).
* ``"clip"``: each factor's negative eigenvalues are set to 0 (the nearest positive
  semidefinite matrix in Frobenius norm), with a UserWarning.
* ``"shift"``: abs(e_min) I is added to each factor with a negative eigenvalue (its
  smallest eigenvalue becomes 0), with a UserWarning.

A repaired factor is a different kernel on the training objects ("shift" raises each
object's similarity with itself by abs(e_min)): predictions for pairs of training objects
(setting A) should use the repaired matrix (:func:`repair_kernel` returns it), while
the kernel between new and training objects is unchanged by "shift".

Factors whose eigendecomposition exists (KronRLS, TwoStepRLS) are judged from it;
the iterative learner estimates the extreme eigenvalues of each factor with Lanczos
(:func:`scipy.sparse.linalg.eigsh`), or exactly for small factors.
"""

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse.linalg as spla

__all__ = ["INDEFINITE", "check_indefinite", "extreme_eigenvalues", "kron_min_eigenvalue",
           "check_kron_regparam", "check_factor_regparam", "repair_spectrum",
           "repair_kernel"]

INDEFINITE = ("raise", "clip", "shift")
_EPS = np.finfo(np.float64).eps
# factors up to this size get an exact two-ended eigvalsh (a tridiagonal reduction,
# O(n^3) but well under a second here); Lanczos above it. Lanczos ("SA") converges
# slowly to the bottom of a spectrum that clusters near 0, as kernel spectra do (on
# Davis's cosine-normalized SW kernel it returned 4.5e-4 for an eigenvalue of ~0), so
# it is kept for the factors where O(n^3) would cost more than the solve.
DENSE_LIMIT = 1000


def check_indefinite(value):
    """``indefinite`` as one of "raise", "clip", "shift" (ValueError otherwise)."""
    if not isinstance(value, str) or value not in INDEFINITE:
        raise ValueError(f"indefinite must be one of {INDEFINITE}, got {value!r}")
    return value


def _negligible(lo, hi, n):
    """Eigenvalues within the rounding level of 0 count as 0 (the rule of
    :func:`rlscore.core.optim.psd_eigh`)."""
    return abs(lo) < n * _EPS * max(abs(lo), abs(hi), 1e-300)


def extreme_eigenvalues(K):
    """(smallest, largest) eigenvalue of a symmetric matrix; a smallest eigenvalue
    within rounding of 0 is returned as 0.

    Exact (``eigvalsh`` of the two ends, O(n^3)) for n <= ``DENSE_LIMIT`` (1000);
    otherwise a Lanczos estimate (``eigsh``, a few dozen products with K, O(n^2)
    each)."""
    n = K.shape[0]
    if n <= DENSE_LIMIT:
        lo = float(la.eigvalsh(K, subset_by_index=[0, 0], check_finite=False)[0])
        hi = float(la.eigvalsh(K, subset_by_index=[n - 1, n - 1], check_finite=False)[0])
    else:
        v0 = np.ones(n)
        lo = float(spla.eigsh(K, k=1, which="SA", v0=v0, return_eigenvectors=False)[0])
        hi = float(spla.eigsh(K, k=1, which="LA", v0=v0, return_eigenvectors=False)[0])
    if _negligible(lo, hi, n):
        lo = 0.0
    return lo, hi


def kron_min_eigenvalue(ext1, ext2):
    """Smallest eigenvalue of K2 kron K1 from the (smallest, largest) eigenvalues of
    the two factors."""
    return min(a * b for a in ext1 for b in ext2)


def _advice(name="regparam"):
    return (f"use a larger {name}, or repair the factor kernels with "
            f"indefinite='clip' (negative eigenvalues set to 0) or indefinite='shift' "
            f"(abs(smallest eigenvalue) * I added)")


def check_kron_regparam(exts, names, regparam):
    """ValueError unless K2 kron K1 + regparam I is positive definite, for factors
    with (smallest, largest) eigenvalues ``exts`` = (ext1, ext2), when one of them
    is indefinite (positive semidefinite factors are left to the solvers' own
    checks). The message gives each indefinite factor's smallest eigenvalue and the
    smallest regparam that works."""
    bad = [(nm, e[0]) for nm, e in zip(names, exts) if e[0] < 0]
    if not bad:
        return
    mu = kron_min_eigenvalue(*exts)
    if regparam + mu > 0:
        return
    what = " and ".join(f"{nm} is indefinite (smallest eigenvalue {lo:.6g})"
                        for nm, lo in bad)
    raise ValueError(
        f"{what}: {names[1]} kron {names[0]} has smallest eigenvalue {mu:.6g}, so "
        f"{names[1]} kron {names[0]} + regparam*I is positive definite only for "
        f"regparam > {-mu:.6g} (got regparam={regparam!r}); {_advice()}")


def check_factor_regparam(lo, name, regparam, regname="regparam"):
    """ValueError unless K + regparam I is positive definite for an indefinite factor
    K with smallest eigenvalue ``lo`` (two-step RLS, one factor at a time)."""
    if lo >= 0 or regparam + lo > 0:
        return
    raise ValueError(
        f"{name} is indefinite (smallest eigenvalue {lo:.6g}), so {name} + "
        f"{regname}*I is positive definite only for {regname} > {-lo:.6g} (got "
        f"{regname}={regparam!r}); {_advice(regname)}")


def _warn(name, lo, how, count):
    if how == "shift":
        msg = (f"{name} is indefinite (smallest eigenvalue {lo:.6g}); indefinite='shift' "
               f"adds {-lo:.6g} * I to it")
    else:
        msg = (f"{name} is indefinite (smallest eigenvalue {lo:.6g}); indefinite='clip' "
               f"sets its {count} negative eigenvalue(s) to 0")
    warnings.warn(msg, UserWarning, stacklevel=4)


def repair_spectrum(e, how, name):
    """Eigenvalues of the repaired factor (the eigenvectors stay): unchanged when
    none is negative or ``how == "raise"``; negatives set to 0 ("clip"); all raised
    by abs(e_min) ("shift"). Warns when it changes anything. O(n)."""
    e = np.asarray(e, dtype=np.float64)
    lo = float(e.min(initial=0.0))
    if lo >= 0 or how == "raise":
        return e
    _warn(name, lo, how, int(np.sum(e < 0)))
    return np.maximum(e, 0.0) if how == "clip" else e - lo


def repair_kernel(K, how, name="K", ext=None):
    """A factor kernel matrix under the policy, for learners that never decompose it.

    ``how`` is the policy (``"raise"``, ``"shift"`` or ``"clip"``); ``name`` names the
    matrix in the warning (default ``"K"``); ``ext`` the (smallest, largest)
    eigenvalues when already known. Returns (K', (smallest, largest) eigenvalue of K').
    ``"shift"`` costs O(n) on top of the eigenvalue estimate; ``"clip"`` needs one
    eigendecomposition, O(n^3)."""
    lo, hi = extreme_eigenvalues(K) if ext is None else ext
    if lo >= 0 or how == "raise":
        return K, (lo, hi)
    if how == "shift":
        _warn(name, lo, how, None)
        K = K.copy()
        K.flat[:: K.shape[0] + 1] -= lo
        return K, (0.0, hi - lo)
    e, V = la.eigh(K, driver="evd", check_finite=False)
    _warn(name, lo, how, int(np.sum(e < -K.shape[0] * _EPS * np.abs(e).max())))
    e = np.maximum(e, 0.0)
    K = (V * e) @ V.T
    return 0.5 * (K + K.T), (0.0, float(e.max()))
