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

A repaired factor is a different kernel, and the model keeps the rule that carries the
repair to the kernel rows it is given at prediction (:class:`KernelRepair`; every
learner and estimator applies it, so ``predict`` on the training objects gives the
model's own fitted values):

* ``"shift"`` defines k'(a, b) = k(a, b) + s [a is b], s = abs(e_min): only an
  object's similarity with itself changes. A test row that equals, entry for entry, the
  row of training object i in the (unrepaired) training kernel is object i and gets s
  added in column i (row h is object h if it equals that object's row, e.g. for the
  training kernel itself; else the first such object); any other row is a new object
  and is used unchanged. Pass the training kernel's own rows (or slices of one matrix
  over all objects) to predict pairs of training objects. Objects with identical rows
  (duplicates) are told apart only by position; the estimators, which index their
  objects, pass the identities instead of matching rows.
* ``"clip"`` replaces K = V diag(e) V^T by K' = V diag(max(e, 0)) V^T = K P with the
  projector P = I - N N^T that removes the eigenvectors N of the negative eigenvalues.
  The same linear map is applied to every test row, k' = k P (the treatment of test
  similarities under spectrum clip in Chen et al., "Similarity-based classification:
  concepts and algorithms", JMLR 10, 2009). For a training object's row k = K[i] it
  gives K'[i] exactly, so no object identity is needed; O(u n r) for u rows and r
  negative eigenvalues.

The learners refuse a non-symmetric kernel matrix (ValueError); so does
:class:`rlscore.estimators.PairwiseRLS` with ``kernel="precomputed"`` (a symmetrized
training block with unsymmetrized test rows would predict with another kernel than it
trained with). Symmetrize the matrix of all objects, ``(K + K.T) / 2``, before training.

Factors whose eigendecomposition exists (KronRLS, TwoStepRLS) are judged from it;
the iterative learner estimates the extreme eigenvalues of each factor with Lanczos
(:func:`scipy.sparse.linalg.eigsh`), or exactly for small factors.
"""

import hashlib
import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse.linalg as spla

from rlscore._validation import INDEFINITE, check_indefinite, user_stacklevel
from rlscore.core.optim import SingularRegparamError

__all__ = ["INDEFINITE", "check_indefinite", "extreme_eigenvalues", "kron_min_eigenvalue",
           "check_kron_regparam", "check_factor_regparam", "repair_spectrum",
           "repair_kernel", "KernelRepair", "repaired_factor"]

_EPS = np.finfo(np.float64).eps
# factors up to this size get an exact two-ended eigvalsh (a tridiagonal reduction,
# O(n^3) but well under a second here); Lanczos above it. Lanczos ("SA") converges
# slowly to the bottom of a spectrum that clusters near 0, as kernel spectra do (on
# Davis's cosine-normalized SW kernel it returned 4.5e-4 for an eigenvalue of ~0), so
# it is kept for the factors where O(n^3) would cost more than the solve.
DENSE_LIMIT = 1000


def _negligible(lo, hi, n):
    """Eigenvalues within the rounding level of 0 count as 0 (the rule of
    :func:`rlscore.core.optim.psd_eigh`)."""
    return abs(lo) < n * _EPS * max(abs(lo), abs(hi), 1e-300)


#: Lanczos iterations of :func:`extreme_eigenvalues` before the exact fallback (ARPACK's
#: default, 10 n, cost minutes on a 1421 x 1421 Gaussian kernel before failing)
_LANCZOS_ITERATIONS = 300


def extreme_eigenvalues(K):
    """(smallest, largest) eigenvalue of a symmetric matrix; a smallest eigenvalue
    within rounding of 0 is returned as 0.

    Exact (``eigvalsh`` of the two ends, O(n^3)) for n <= ``DENSE_LIMIT`` (1000);
    otherwise a Lanczos estimate (``eigsh``, a few dozen products with K, O(n^2)
    each), or the exact ends when Lanczos does not converge (e.g. a Gaussian kernel,
    whose small eigenvalues cluster at 0)."""
    n = K.shape[0]
    lanczos = n > DENSE_LIMIT
    if lanczos:
        v0 = np.ones(n)
        try:            # at most _LANCZOS_ITERATIONS restarts, then the exact ends
            lo = float(spla.eigsh(K, k=1, which="SA", v0=v0, maxiter=_LANCZOS_ITERATIONS,
                                  return_eigenvectors=False)[0])
            hi = float(spla.eigsh(K, k=1, which="LA", v0=v0, maxiter=_LANCZOS_ITERATIONS,
                                  return_eigenvectors=False)[0])
        except spla.ArpackNoConvergence:
            lanczos = False
    if not lanczos:
        lo = float(la.eigvalsh(K, subset_by_index=[0, 0], check_finite=False)[0])
        hi = float(la.eigvalsh(K, subset_by_index=[n - 1, n - 1], check_finite=False)[0])
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
    raise SingularRegparamError(
        f"{what}: {names[1]} kron {names[0]} has smallest eigenvalue {mu:.6g}, so "
        f"{names[1]} kron {names[0]} + regparam*I is positive definite only for "
        f"regparam > {-mu:.6g} (got regparam={regparam!r})", remedy=_advice())


def check_factor_regparam(lo, name, regparam, regname="regparam"):
    """ValueError unless K + regparam I is positive definite for an indefinite factor
    K with smallest eigenvalue ``lo`` (two-step RLS, one factor at a time)."""
    if lo >= 0 or regparam + lo > 0:
        return
    raise SingularRegparamError(
        f"{name} is indefinite (smallest eigenvalue {lo:.6g}), so {name} + "
        f"{regname}*I is positive definite only for {regname} > {-lo:.6g} (got "
        f"{regname}={regparam!r})", remedy=_advice(regname), name=regname)


def _warn(name, lo, how, count):
    if how == "shift":
        msg = (f"{name} is indefinite (smallest eigenvalue {lo:.6g}); indefinite='shift' "
               f"adds {-lo:.6g} * I to it")
    else:
        msg = (f"{name} is indefinite (smallest eigenvalue {lo:.6g}); indefinite='clip' "
               f"sets its {count} negative eigenvalue(s) to 0")
    warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())


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


def _row_key(row):
    """A 128-bit digest of a float64 row (-0.0 counted as 0.0), O(n)."""
    return hashlib.blake2b(np.ascontiguousarray(row + 0.0).tobytes(),
                           digest_size=16).digest()


class KernelRepair:
    """The rule that carries a factor's repair to the kernel rows given at prediction
    (see :mod:`rlscore.core.kronecker`); callable on a (u, n) test-by-training kernel.

    Parameters
    ----------
    how : "shift" or "clip"
    K : (n, n) the unrepaired training kernel ("shift": its rows identify the training
        objects; only their digests are kept)
    shift : float, s = abs(smallest eigenvalue) ("shift")
    negative : (n, r) orthonormal eigenvectors of the negative eigenvalues ("clip")

    Notes
    -----
    ``"shift"``: O(u n) (one digest per row); memory 16 n bytes. ``"clip"``:
    k -> k - (k N) N^T, O(u n r); memory O(n r).
    """

    def __init__(self, how, K, shift=0.0, negative=None):
        self.how = how
        self.n = K.shape[0]
        self.shift = float(shift)
        self.negative = None if negative is None else np.ascontiguousarray(negative)
        self._objects = self._keys = None
        if how == "shift":
            self._keys = [_row_key(K[i]) for i in range(self.n)]
            objects = {}
            for i, key in enumerate(self._keys):
                objects.setdefault(key, i)
            self._objects = objects

    def __repr__(self):
        if self.how == "shift":
            return f"KernelRepair('shift', n={self.n}, shift={self.shift:.6g})"
        return f"KernelRepair('clip', n={self.n}, negative={self.negative.shape[1]})"

    def training_objects(self, Kt):
        """For each row h of the (u, n) kernel ``Kt``: the training object whose
        unrepaired kernel row it equals, or -1 (a new object). Row h is object h when
        it equals that object's row (so ``Kt = K`` maps every row to itself even when
        training objects repeat); otherwise the first training object with that row.
        O(u n)."""
        Kt = np.asarray(Kt, dtype=np.float64)
        out = np.empty(Kt.shape[0], dtype=np.int64)
        for h, row in enumerate(Kt):
            key = _row_key(row)
            out[h] = h if h < self.n and self._keys[h] == key else \
                self._objects.get(key, -1)
        return out

    def __call__(self, Kt, objects=None):
        """The repaired rows of the (u, n) float64 test-by-training kernel ``Kt`` (a
        new array; ``Kt`` with another number of columns is returned as it is, for the
        caller's own shape checks). ``objects`` ("shift"): for each row the training
        object it is, or -1 for a new object, when the caller knows them (the
        estimators, which index objects); otherwise rows are matched
        (:meth:`training_objects`)."""
        Kt = np.asarray(Kt, dtype=np.float64)
        if Kt.ndim != 2 or Kt.shape[1] != self.n:
            return Kt
        if self.how == "clip":
            return Kt - (Kt @ self.negative) @ self.negative.T
        if objects is None:
            own = self.training_objects(Kt)
        else:
            own = np.asarray(objects, dtype=np.int64).ravel()
            if own.shape != (Kt.shape[0],) or np.any(own >= self.n) or np.any(own < -1):
                raise ValueError(f"objects must give, for each of the {Kt.shape[0]} "
                                 f"rows, a training object in 0..{self.n - 1} or -1")
        hit = np.flatnonzero(own >= 0)
        out = np.array(Kt, dtype=np.float64)
        out[hit, own[hit]] += self.shift
        return out


def repaired_factor(K, e, V, how, name):
    """Repair of a decomposed factor K = V diag(e) V^T under the policy ``how``:
    (e', K', rule) with the repaired eigenvalues e', the repaired matrix K' and its
    :class:`KernelRepair` (K itself and rule None when nothing changes). Warns when it
    repairs. O(n^2) for "shift", O(n^3) for "clip" (one product)."""
    e2 = repair_spectrum(e, how, name)
    if e2 is e:
        return e, K, None
    if how == "shift":
        s = float(e2[0] - e[0])
        Kr = np.array(K, dtype=np.float64)
        Kr.flat[:: Kr.shape[0] + 1] += s
        return e2, Kr, KernelRepair("shift", K, shift=s)
    Kr = (V * e2) @ V.T
    return e2, 0.5 * (Kr + Kr.T), KernelRepair("clip", K, negative=V[:, e < 0])


def repair_kernel(K, how, name="K", ext=None, rule=False):
    """A factor kernel matrix under the policy, for learners that never decompose it.

    ``how`` is the policy (``"raise"``, ``"shift"`` or ``"clip"``); ``name`` names the
    matrix in the warning (default ``"K"``); ``ext`` the (smallest, largest)
    eigenvalues when already known. Returns (K', (smallest, largest) eigenvalue of K').
    With ``rule=True`` a third element is the :class:`KernelRepair` that carries the
    repair to test rows (None when nothing changed): apply it to the test-by-training
    kernels before predicting with a model trained on K'.
    ``"shift"`` costs O(n) on top of the eigenvalue estimate (O(n^2) for the rule);
    ``"clip"`` needs one eigendecomposition, O(n^3)."""
    out = _repair_kernel(K, how, name, ext)
    return out if rule else out[:2]


def _repair_kernel(K, how, name, ext):
    lo, hi = extreme_eigenvalues(K) if ext is None else ext
    if lo >= 0 or how == "raise":
        return K, (lo, hi), None
    if how == "shift":
        _warn(name, lo, how, None)
        Kr = K.copy()
        Kr.flat[:: K.shape[0] + 1] -= lo
        return Kr, (0.0, hi - lo), KernelRepair("shift", K, shift=-lo)
    e, V = la.eigh(K, driver="evd", check_finite=False)
    _warn(name, lo, how, int(np.sum(e < -K.shape[0] * _EPS * np.abs(e).max())))
    neg = V[:, e < 0]
    e = np.maximum(e, 0.0)
    Kr = (V * e) @ V.T
    return 0.5 * (Kr + Kr.T), (0.0, float(e.max())), KernelRepair("clip", K,
                                                                   negative=neg)
