"""The r x r factors of Falkon's preconditioned CG in one r x r array: the Cholesky
factor C of the basis kernel (the Nystrom map) and the Cholesky factor A of the
preconditioner (Rudi, Carratino & Rosasco, "FALKON: An optimal large scale kernel
method", NeurIPS 2017, Algorithm 1, where they are T and A).

Memory
------
The straightforward layout holds K_RR, C, T = C^{-T}, C^T C and A, five r x r float64
arrays (16 GB at r = 20 000). Here one C-ordered r x r float64 array S holds both
triangular factors, and their diagonals are kept apart (O(r)) and swapped in before a
solve:

* the lower triangle of S is C (C C^T = K_RR): K_RR is computed into S and factored in
  place (LAPACK ``potrf`` on the Fortran view S^T, no copy);
* the upper triangle of S is A^T (A A^T = M, the preconditioner below): C is mirrored
  into the upper triangle, ``lauum`` turns it into C^T C in place, the low-rank
  centring terms and lambda are added and ``potrf`` factors it in place.

T = C^{-T} is never formed: T V and T^T V are triangular solves (``trtrs``), O(r^2 p)
for p columns. The peak is one r x r array, 8 r^2 bytes (3.2 GB at r = 20 000), plus
the kernel blocks of the CG. Only when K_RR is singular to working precision is it
refactored by pivoted Cholesky (:class:`rlscore.core.nystrom.NystromMap`, a warning names
the effective rank k), which briefly holds three more r x r arrays.

The float64 layout is kept on purpose: C *is* the model's feature map, and a float32
triangular solve has forward error ~ cond(C) eps_32 (1e-3 .. 1e-1 for Gaussian bases
of thousands of centres), too large for the 1e-6 agreement with the direct solution;
one float64 array already fits r = 20 000 in about 3.5 GB.

The preconditioner
------------------
For k centres drawn uniformly from the m rows, the k rows of Phi at the centres are the
rows of C (Phi_R = K_RR C^{-T} = C), and sum_i phi_i phi_i^T is estimated by
(m / k) sum_{i in R} phi_i phi_i^T = (m / k) C^T C (Falkon, Sect. 3, in the
coordinates w = C^T b). With a centring (RankRLS, :mod:`rlscore.core.rankrls`) the
rows are (P Phi)_i = phi_i - g_i, and the estimate (m / k) (C - G)^T (C - G) differs
from (m / k) C^T C by a low-rank symmetric term U D U^T, added here by blocks of
columns of U:

    M = (m / k) (C^T C + sum_j U_j D_j U_j^T) + mu I = A A^T.

M is refactored for a new mu (:meth:`NystromFactors.factor_preconditioner`),
O(k^3 / 3) for ``lauum`` and O(k^3 / 3) for ``potrf``, plus O(k^2 q) for a rank-q
update.
"""

import numpy as np
import scipy.linalg as la
from scipy.linalg import lapack

from rlscore._lapack_threads import lapack_threads
from rlscore._validation import as_data_matrix
from rlscore.kernel import kernel_block

__all__ = ["NystromFactors"]

_EPS = np.finfo(np.float64).eps


def _row_blocks(n, size=None):
    """Row ranges of an n x n array, small enough that a block's temporaries stay a
    few percent of the array (n / 16 rows, 32 .. 512)."""
    size = size or max(32, min(512, n // 16))
    for i0 in range(0, n, size):
        yield i0, min(n, i0 + size)


class NystromFactors:
    """The Nystrom map of a basis and Falkon's preconditioner in one r x r array
    (module docstring).

    Parameters
    ----------
    kernel : "LinearKernel", "GaussianKernel" or "PolynomialKernel"
    basis_vectors : (r, d) basis rows
    kernel_params : the kernel's parameters (``bias`` for the linear kernel)

    Attributes
    ----------
    kernel : the kernel object whose ``train_X`` is the basis
    n_basis : r;  n_features : k (= r unless K_RR is singular)
    order : (r,) basis positions, the first k used by the map
    dim : d

    Notes
    -----
    Construction O(r^2 d + r^3 / 3), memory 8 r^2 bytes (one array);
    ``apply_T`` / ``apply_Tt`` O(k^2 p); ``precondition`` O(k^2 p).
    """

    def __init__(self, kernel, basis_vectors, **kernel_params):
        from rlscore.core.nystrom._representation import basis_kernel
        B = as_data_matrix(basis_vectors, name="basis_vectors")
        self.n_basis, self.dim = B.shape
        self.kernel, self._kobj, self.bias, self._Ba = basis_kernel(kernel, B,
                                                                    kernel_params)
        r = self.n_basis
        S = np.empty((r, r))
        kernel_block(self.kernel, self.kernel.train_X, out=S)
        scale = float(S.flat[:: r + 1].max(initial=0.0))
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError("the kernel matrix of the basis vectors is zero or not "
                             "finite")
        # C C^T = K_RR into the lower triangle of S (upper of the Fortran view S^T)
        with lapack_threads(r):
            _, info = lapack.dpotrf(S.T, lower=0, clean=0, overwrite_a=1)
        d = S.flat[:: r + 1]
        if info == 0 and np.all(np.isfinite(d)) and d.min() ** 2 > r * _EPS * scale:
            self._set(S, np.arange(r, dtype=np.intp))
            return
        del S, d
        self._pivoted()

    def _pivoted(self):
        """K_RR singular to working precision: the pivoted factor of NystromMap (k of r
        basis vectors), copied into a k x k array."""
        from rlscore.core.nystrom._nystrom import _factor_basis
        K = kernel_block(self.kernel, self.kernel.train_X)
        C, order, k, _ = _factor_basis(K)
        del K
        S = np.empty((k, k))
        S[...] = C
        del C
        self._set(S, order)

    def _set(self, S, order):
        self._S = S
        self.n_features = k = S.shape[0]
        self.order = order
        self._used = np.ascontiguousarray(order[:k])
        self._identity = k == self.n_basis and np.all(self._used == np.arange(k))
        self._diags = {"C": S.flat[:: k + 1].copy()}
        self._dA = None
        self._diag = "C"
        self.version = 0          # changes whenever A is refactored

    @classmethod
    def from_feature_map(cls, fmap):
        """The factors of a :class:`rlscore.core.nystrom.NystromFeatureMap` (its C copied;
        O(k^2))."""
        new = object.__new__(cls)
        new.n_basis, new.dim = fmap.n_basis, fmap.dim
        new.kernel, new._kobj, new.bias = fmap.kernel, fmap._kobj, fmap.bias
        new._Ba = getattr(fmap, "_Ba", None)
        C = fmap.nmap.C
        S = np.empty(C.shape)
        S[...] = C
        new._set(S, fmap.nmap.order)
        return new

    # -- the two triangles ---------------------------------------------------------
    def _use(self, which):
        """Swap the diagonal of ``which`` ("C", "A", or "M" while M is being built)
        into S, keeping the one it replaces. O(k)."""
        if self._diag != which:
            d = self._S.flat[:: self.n_features + 1]
            self._diags[self._diag] = d.copy()
            self._S.flat[:: self.n_features + 1] = self._diags[which]
            self._diag = which

    @property
    def _dC(self):
        return self._S.flat[:: self.n_features + 1].copy() if self._diag == "C" \
            else self._diags["C"]

    def _trtrs(self, which, V, trans):
        self._use(which)
        # the Fortran view S^T: C^T in its upper triangle, A in its lower one
        with lapack_threads(self.n_features):
            x, info = lapack.dtrtrs(self._S.T, V, lower=int(which == "A"), trans=trans)
        if info != 0:
            raise la.LinAlgError(f"triangular solve failed (info={info})")
        return x

    def apply_T(self, V):
        """Basis coefficients T V = C^{-T} V (n_basis, p), zero for unused basis
        vectors. O(k^2 p)."""
        V = np.asarray(V, dtype=np.float64)
        x = self._trtrs("C", V.reshape(V.shape[0], -1), 0)
        if self._identity:
            return x.reshape((self.n_basis,) + V.shape[1:])
        out = np.zeros((self.n_basis, x.shape[1]))
        out[self._used] = x
        return out.reshape((self.n_basis,) + V.shape[1:])

    back = apply_T

    def apply_Tt(self, A):
        """T^T A = C^{-1} A[used] (k, p) for kernel-space A (n_basis, p). O(k^2 p)."""
        A = np.asarray(A, dtype=np.float64)
        A2 = A.reshape(A.shape[0], -1)
        if not self._identity:
            A2 = A2[self._used]
        return self._trtrs("C", A2, 1).reshape((self.n_features,) + A.shape[1:])

    def basis_rows(self, rows):
        """Rows of C (the features of the used basis vectors), (len(rows), k). O(len k)."""
        rows = np.asarray(rows, dtype=np.intp)
        out = self._S[rows].copy()
        cols = np.arange(self.n_features)
        out[cols[None, :] > rows[:, None]] = 0.0
        out[np.arange(rows.size), rows] = self._dC[rows]
        return out

    def column_sums(self):
        """C^T 1 (k,): the sum of the basis vectors' features. O(k^2)."""
        s = np.zeros(self.n_features)
        for i0, i1 in _row_blocks(self.n_features):
            s += self.basis_rows(np.arange(i0, i1)).sum(axis=0)
        return s

    # -- the preconditioner ----------------------------------------------------------
    def _upper_blocks(self):
        """(i0, i1, off, diag) over row blocks of the upper triangle: ``off`` the view
        S[i0:i1, i1:], ``diag`` the view of the diagonal block."""
        S = self._S
        for i0, i1 in _row_blocks(self.n_features):
            yield i0, i1, S[i0:i1, i1:], S[i0:i1, i0:i1]

    def factor_preconditioner(self, scale, mu, updates=()):
        """Factor M = scale (C^T C + sum_j U_j D_j U_j^T) + mu I = A A^T in the upper
        triangle (module docstring). ``updates``: an iterable of (U (k, q), D (q, q)).

        Raises ValueError when M is not positive definite (mu too small).
        O(2 k^3 / 3 + k^2 sum q), no r x r temporary."""
        k = self.n_features
        self._use("C")
        # mirror C into the upper triangle: S^T's lower triangle is then C
        for i0, i1, off, diag in self._upper_blocks():
            off[...] = self._S[i1:, i0:i1].T
            iu = np.triu_indices(i1 - i0, 1)
            diag[iu] = diag.T[iu]
        with lapack_threads(k):
            lapack.dlauum(self._S.T, lower=1, overwrite_c=1)  # C^T C, upper of S
        self._diag = "M"        # the diagonal of the matrix being built
        self._dA = None
        for U, D in updates:
            # U may come from solves with C (which swap C's diagonal in): M's back
            self._use("M")
            UD = np.asarray(U) @ np.asarray(D)
            for i0, i1, off, diag in self._upper_blocks():
                off += UD[i0:i1] @ U[i1:].T
                blk = UD[i0:i1] @ U[i0:i1].T
                iu = np.triu_indices(i1 - i0)
                diag[iu] += blk[iu]
        self._use("M")
        for i0, i1, off, diag in self._upper_blocks():
            off *= scale
            iu = np.triu_indices(i1 - i0)
            diag[iu] *= scale
        self._S.flat[:: k + 1] += mu
        with lapack_threads(k):
            _, info = lapack.dpotrf(self._S.T, lower=1, clean=0, overwrite_a=1)
        self._dA = True
        self._diag = "A"
        self.version += 1
        if info != 0:
            self._dA = None
            raise ValueError("the Nystrom preconditioner is not positive definite; use "
                             "a larger regparam or precondition=None")

    def precondition(self, R):
        """M^{-1} R = A^{-T} A^{-1} R. O(k^2 p)."""
        if self._dA is None:
            raise RuntimeError("factor_preconditioner has not been called")
        R = np.asarray(R, dtype=np.float64)
        return self._trtrs("A", self._trtrs("A", R, 0), 1)

    # -- models ------------------------------------------------------------------------
    def predictor(self, W):
        """The predictor of the weights W (k,) or (k, p) of the features. O(k^2 p)."""
        from rlscore.core.nystrom._representation import _PredictorMap
        b = self.apply_T(W)
        if self._kobj is None:
            return _PredictorMap(transform=np.asarray(self._Ba.T), bias=self.bias)(b)
        return _PredictorMap(kernel=self._kobj)(b)

    def kernel_rows(self, X, out=None, dtype=np.float64, num_threads=0):
        """K(X, basis) (m, r) of ``dtype`` (float64, or float32: the fast single-
        precision block of :func:`rlscore.kernel.kernel_block`, whose ``num_threads``
        this passes on)."""
        if X.shape[1] != self.dim:
            raise ValueError(f"basis_vectors has {self.dim} features but X has "
                             f"{X.shape[1]}")
        return kernel_block(self.kernel, X, out=out, dtype=dtype, num_threads=num_threads)

    def nbytes(self):
        return self._S.nbytes
