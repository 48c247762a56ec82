"""Decomposed Nystrom map, basis-vector removal and cross-validation that removes the
held-out basis vectors.

Airola, Pahikkala and Salakoski, "On learning and cross-validation with decomposed
Nystrom approximation of kernel matrix", Neural Processing Letters 33(1), 2011 (Paper III
of the Airola 2011 thesis); Tsivtsivadze et al. 2008 (sparse RankRLS).

The map
-------
With the basis R (r vectors), K_MR = k(X, X_R) and the Cholesky factor C C^T = K_RR,

    Phi = K_MR C^{-T}   (m x r),   Phi Phi^T = K_MR K_RR^{-1} K_RM,

so any primal linear learner trained on Phi is the reduced-set (subset-of-regressors)
kernel learner  min_b c(Y, K_MR b) + lambda b^T K_RR b,  with the map back
b = C^{-T} w (predictions k(x, X_R) b: |R| kernel evaluations).

A K_RR that is not numerically positive definite is factored by pivoted Cholesky
(LAPACK ``dpstrf``): the basis vectors after the effective rank k are linear
combinations of the first k in feature space, they span nothing new, and they get
coefficient 0 (a warning states the effective rank).

Removal (Theorem 1)
-------------------
For held-out basis positions H (kept L), with Ci = C^{-1} and
A = C_LL^{-1} C_LH = -Ci_LH Ci_HH^{-1} = P Sigma W^T (thin SVD),

    Z     = K_ML C_LL^{-T} = Phi[:, L] + Phi[:, H] A^T,
    Phi_L = Z (I - B B^T)^{1/2},  B = A (I + A^T A)^{-1/2},

and with (I - B B^T)^{1/2} = I + P diag(1/sqrt(1 + sigma^2) - 1) P^T this is the rank-|H|
update Phi_L = Phi[:, L] + (Phi[:, L] P D + Phi[:, H] W S) P^T, O(m |L| |H|)
(:func:`rlscore._ext._nystrom.removal_update`). Phi_L Phi_L^T = K_ML K_LL^{-1} K_LM; the
map back is b_L = T w with T = C_LL^{-T} (I - B B^T)^{1/2} (the rotation between Phi_L
and the Cholesky map of K_LL).

Cross-validation
----------------
Removing H is the linear constraint N^T w = 0 on the full map's weights, where
N = Ci[:, H] spans the orthogonal complement of range(C[L, :]^T) (C[L, :] Ci[:, H] = 0):
indeed K_ML b_L = Phi C[L, :]^T b_L. So the model retrained on the rows outside U with
the basis L is the constrained ridge regression

    min_w ||Y_U' - Phi_U' w||^2 + lambda ||w||^2   s.t.  N^T w = 0,

and its coefficients map back through the same b = C^{-T} w, whose entries H vanish.
:class:`NystromSolver` solves it from the eigendecomposition of Phi^T Phi by a
rank-|U| Woodbury downdate and a rank-|H| constraint: O(|U| r (p + |H|) + |U|^2 r +
r |H| (p + |H|)) per fold and lambda after O(r^2 |H|) per fold, never forming Phi_L;
or, for folds where that costs more (:func:`rlscore.core.rls.prefer_primal_fold`), by
refitting the constrained problem in the r map coordinates from the downdated
Phi^T Phi, O(|U| r^2 + r^3) once per fold and O(r (|U| p + |H| (p + |H|))) per lambda.
"""

import warnings

import numpy as np
import scipy.linalg as la
from scipy.linalg import lapack

from rlscore._lapack_threads import lapack_threads
from rlscore._ext import _nystrom
from rlscore.core.rls import LinearSolver, primal_fold_predictions
from rlscore._validation import as_index_array, check_holdout_rows, check_positive_int

__all__ = ["NystromMap", "ReducedMap", "NystromSolver", "select_basis", "basis_positions",
           "held_out_directions", "remove_basis_from_pairs", "constrained_solve",
           "removal_directions_eigen", "loo_removal_rows"]

_EPS = np.finfo(np.float64).eps


def select_basis(m, basis_indices=None, n_basis=None, random_state=None):
    """Basis indices into m examples: ``basis_indices`` validated, or ``n_basis`` drawn
    uniformly without replacement (Paper III, Sect. 2) with ``random_state``, sorted.

    Raises IndexError for indices out of range or repeated, ValueError for more than m
    or fewer than 1 basis indices, or both arguments given.
    """
    if basis_indices is not None and n_basis is not None:
        raise ValueError("give basis_indices or n_basis, not both")
    if basis_indices is not None:
        idx = np.asarray(basis_indices)
        if idx.ndim == 1 and idx.size > m:
            raise ValueError(f"basis_indices holds {idx.size} basis vectors but there are "
                             f"only {m} examples (|R| > m)")
        return as_index_array(basis_indices, m, name="basis_indices")
    if n_basis is None:
        return None
    n_basis = check_positive_int(n_basis, "n_basis")
    if n_basis > m:
        raise ValueError(f"n_basis={n_basis} exceeds the number of examples m={m} "
                         f"(|R| > m)")
    rng = random_state if isinstance(random_state, np.random.RandomState) \
        else np.random.default_rng(random_state)
    idx = rng.choice(m, size=int(n_basis), replace=False)
    return np.sort(idx).astype(np.intp)


def _factor_basis(K_RR):
    """(C, order, k, tol): C C^T = K_RR[order][:, order] for the first k basis vectors
    of ``order`` (k = effective rank). Plain Cholesky when K_RR is positive definite to
    working precision (smallest pivot > tol = r eps max diag), pivoted Cholesky
    otherwise. O(r^3 / 3)."""
    r = K_RR.shape[0]
    scale = max(float(np.max(np.diag(K_RR), initial=0.0)), 0.0)
    if not np.all(np.isfinite(K_RR)):
        raise ValueError("the kernel matrix of the basis vectors contains NaN or infinity")
    if scale <= 0:
        raise ValueError("the kernel matrix of the basis vectors is zero")
    tol = r * _EPS * scale
    with lapack_threads(r):
        c, info = lapack.dpotrf(K_RR, lower=1, clean=1)
    if info == 0 and np.min(np.diag(c)) ** 2 > tol:
        return np.ascontiguousarray(c), np.arange(r, dtype=np.intp), r, tol
    with lapack_threads(r):
        c, piv, k, info = lapack.dpstrf(K_RR, tol=tol, lower=1)
    order = np.ascontiguousarray(piv - 1, dtype=np.intp)
    k = int(k)
    warnings.warn(
        f"the kernel matrix of the basis vectors is not positive definite: effective "
        f"rank {k} of {r}; the {r - k} dependent basis vectors get coefficient 0",
        UserWarning, stacklevel=5)
    C = np.ascontiguousarray(np.tril(c[:k, :k]))
    return C, order, k, tol


class NystromMap:
    """The decomposed Nystrom map of a basis: Phi = K_MR C^{-T}, b = C^{-T} w.

    Parameters
    ----------
    K_MR : ndarray (m, r), kernel between the examples and the basis vectors
    K_RR : ndarray (r, r), kernel of the basis vectors (symmetric PSD)

    Attributes
    ----------
    Phi : (m, k) features, k = effective rank of K_RR (= r when positive definite)
    C : (k, k) lower Cholesky factor of K_RR restricted to ``order[:k]``
    order : (r,) basis positions; the first k are the ones the map uses
    r, k

    Notes
    -----
    O(r^3/3 + m r^2) time, O(m r) memory. ``back`` O(r^2 p). ``Cinv`` (C^{-1}) is formed
    on first use, O(r^3/3).
    """

    def __init__(self, K_MR, K_RR):
        K_RR = np.ascontiguousarray(K_RR, dtype=np.float64)
        K_MR = np.asarray(K_MR, dtype=np.float64)
        self.r = K_RR.shape[0]
        self.C, self.order, self.k, self._tol = _factor_basis(K_RR)
        cols = self.order[:self.k]
        # kernel between the used and the dependent basis vectors (removal_directions)
        self._K_dep = K_RR[np.ix_(cols, self.order[self.k:])] if self.k < self.r else None
        self._dep_coords = None
        K_used = K_MR if self.k == self.r and np.all(cols == np.arange(self.r)) \
            else K_MR[:, cols]
        # Phi^T = C^{-1} K_MR^T: one triangular solve
        self.Phi = np.ascontiguousarray(
            la.solve_triangular(self.C, K_used.T, lower=True, check_finite=False).T)
        self._Cinv = None
        self._position = None

    @property
    def Cinv(self):
        if self._Cinv is None:
            self._Cinv = np.ascontiguousarray(la.solve_triangular(
                self.C, np.eye(self.k), lower=True, check_finite=False))
        return self._Cinv

    def back_matrix(self):
        """T (r, k) with b = T w: C^{-T} scattered to the used basis positions."""
        T = np.zeros((self.r, self.k))
        T[self.order[:self.k]] = self.Cinv.T
        return T

    def back(self, W):
        """Basis coefficients b (r, p) = C^{-T} W (zero for dependent basis vectors)."""
        W = np.asarray(W, dtype=np.float64)
        b = np.zeros((self.r,) + W.shape[1:])
        b[self.order[:self.k]] = la.solve_triangular(self.C, W, lower=True, trans="T",
                                                     check_finite=False)
        return b

    def positions(self, basis_subset):
        """Map basis positions (0..r-1) to columns of Phi (0..k-1); dependent basis
        vectors (not in the map) are dropped."""
        if self._position is None:
            pos = np.full(self.r, -1, dtype=np.intp)
            pos[self.order[:self.k]] = np.arange(self.k)
            self._position = pos
        p = self._position[np.asarray(basis_subset, dtype=np.intp)]
        return np.ascontiguousarray(np.sort(p[p >= 0]))

    def removal_directions(self, held_out):
        """Directions N (k, h) of the map's weight space that removing the basis
        positions ``held_out`` takes away: the model with the kept basis is the full
        map's model under the constraint N^T w = 0 (module docstring, Cross-validation).

        N spans the orthogonal complement of the feature coordinates of every kept
        basis vector -- the kept vectors of the map (rows of C) *and* the kept dependent
        ones (C^{-1} k(R_used, x_j)). Without dependent vectors this is C^{-1}[:, H]. A
        held-out vector of the map whose direction a kept dependent vector still spans
        (a duplicate, say) removes nothing; the test of "still spans" is the one
        pivoted Cholesky applies when the kept basis is factored anew: a squared
        residual above r eps max diag(K_RR).

        Returns
        -------
        ndarray (k, h), h = 0 when the removal changes nothing.

        Notes
        -----
        O(k h) without dependent basis vectors; O(k h (h + d)) with d of them, plus
        O(k^2 d) once.
        """
        held = np.asarray(held_out, dtype=np.intp)
        H = self.positions(held)
        N = self.Cinv[:, H]
        if H.size == 0 or self._K_dep is None:
            return N
        dep = self.order[self.k:]
        kept = ~np.isin(dep, held)
        if not kept.any():
            return N
        if self._dep_coords is None:
            self._dep_coords = self.Cinv @ self._K_dep            # (k, d)
        Q, _ = np.linalg.qr(N)
        # components of the kept dependent vectors in the removed subspace: what they
        # span there beyond the kept vectors of the map
        Us, s, _ = la.svd(Q.T @ self._dep_coords[:, kept], check_finite=False)
        restored = int(np.count_nonzero(s * s > self._tol))
        return np.ascontiguousarray(Q @ Us[:, restored:])

    def single_removal_directions(self):
        """(cols, N): for each column ``cols[i]`` of Phi whose basis vector's removal
        alone changes the model, the direction N[:, i] it takes away
        (:meth:`removal_directions` of that one vector). Without dependent basis
        vectors, every column and N = C^{-1}. O(k^2) then; O(k^2 d) with d dependent
        vectors."""
        if self.k == self.r:
            return np.arange(self.k, dtype=np.intp), self.Cinv
        cols, dirs = [], []
        for j, pos in enumerate(self.order[:self.k]):
            Nj = self.removal_directions([pos])
            if Nj.shape[1]:
                cols.append(j)
                dirs.append(Nj[:, 0])
        N = np.array(dirs).T if dirs else np.empty((self.k, 0))
        return np.asarray(cols, dtype=np.intp), N

    def remove(self, held_out):
        """The map of the basis without the positions ``held_out``.

        Parameters
        ----------
        held_out : basis positions (0..r-1) to remove

        Returns
        -------
        ReducedMap with Phi (m, q) satisfying Phi Phi^T = K_ML K_LL^+ K_LM for the kept
        basis vectors L (q = the rank of K_LL), ``basis`` the kept basis positions that
        carry coefficients and ``back`` giving those coefficients.

        Raises
        ------
        ValueError when the kept basis vectors span nothing.

        Notes
        -----
        Kept dependent basis vectors count: a held-out vector of the map whose direction
        a kept dependent vector (a duplicate, say) still spans is restored, exactly as
        cross-validation restores it (:meth:`removal_directions`), so that a model
        trained on the reduced map is the one cross-validation computes. Without such a
        vector: Theorem 1, ``O(m |L| |H| + |L|^2 |H|)`` given ``Cinv``. With one: the map is
        Phi Q for an orthonormal basis Q (k, q) of the kept vectors' coordinates (the
        complement of :meth:`removal_directions`), O(m k q + k^2 (h + d)), and ``back``
        is the least-squares solution in the kept vectors' coordinates V of shape
        ``(k, |L|)``, V b = Q w, ``O(k |L|^2)`` once.
        """
        held = as_index_array(held_out, self.r, name="held_out")
        H = self.positions(held)
        N = self.removal_directions(held)
        if N.shape[1] >= self.k:
            raise ValueError("removing these basis vectors leaves no basis vector")
        if N.shape[1] < H.size:
            return self._remove_restored(held, N)
        return self._remove_theorem1(H)

    def _remove_theorem1(self, H):
        """Theorem 1 on the map's own vectors (module docstring, Removal)."""
        L = np.setdiff1d(np.arange(self.k), H).astype(np.intp)
        Ci = self.Cinv
        if H.size == 0:
            return ReducedMap(self.Phi.copy(), Ci.T.copy(), self.order[:self.k])
        A = -la.solve(Ci[np.ix_(H, H)].T, Ci[np.ix_(L, H)].T, check_finite=False).T
        P, sig, Wt = la.svd(A, full_matrices=False, check_finite=False)
        root = 1.0 / np.sqrt(1.0 + sig * sig)
        PD = np.ascontiguousarray(P * (root - 1.0))
        S = np.ascontiguousarray((Wt.T * (sig * root)))
        Pt = np.ascontiguousarray(P.T)
        out = np.empty((self.Phi.shape[0], L.size))
        _nystrom.removal_update(self.Phi, L, H, PD, S, Pt, out)
        # T = C_LL^{-T} Q, C_LL^{-1} = Ci_LL + A Ci_HL, Q = I + P D P^T (O(|L|^2 |H|))
        CLLinvT = Ci[np.ix_(L, L)].T + Ci[np.ix_(H, L)].T @ A.T
        T = CLLinvT + (CLLinvT @ PD) @ Pt
        return ReducedMap(out, T, self.order[L])

    def _remove_restored(self, held, N):
        """The reduced map when kept dependent vectors restore removed directions: the
        feature space is the orthogonal complement of N (the span of the kept vectors'
        coordinates), Phi_L = Phi Q; the coordinates of the kept vectors are the rows
        of C (the map's own) and C^{-1} k(R_used, x_j) (the dependent ones)."""
        Qfull, _ = np.linalg.qr(N, mode="complete")
        Q = np.ascontiguousarray(Qfull[:, N.shape[1]:])
        used, dep = self.order[:self.k], self.order[self.k:]
        if self._dep_coords is None:
            self._dep_coords = self.Cinv @ self._K_dep
        keep_used, keep_dep = ~np.isin(used, held), ~np.isin(dep, held)
        V = np.hstack([self.C[keep_used].T, self._dep_coords[:, keep_dep]])
        T = la.lstsq(V, Q, check_finite=False)[0]
        return ReducedMap(self.Phi @ Q, T,
                          np.concatenate([used[keep_used], dep[keep_dep]]))


class ReducedMap:
    """A map after basis removal: features ``Phi`` (m, |L|), ``basis`` (the kept basis
    positions), ``back(W)`` -> coefficients (|L|, p) of those basis vectors."""

    def __init__(self, Phi, T, basis):
        self.Phi = Phi
        self.T = T
        self.basis = np.asarray(basis, dtype=np.intp)

    def back(self, W):
        return self.T @ np.asarray(W, dtype=np.float64)


def basis_positions(basis_indices, rows):
    """Positions (into ``basis_indices``) of the basis vectors among ``rows``."""
    return np.flatnonzero(np.isin(basis_indices, rows)).astype(np.intp)


def held_out_directions(nmap, basis_indices, rows):
    """N (k, h) of :meth:`NystromMap.removal_directions` for the basis vectors among
    ``rows`` (h = 0 when removing them changes nothing): the constraint N^T w = 0 of a
    hold-out that removes them. O(k h) (see ``removal_directions``).

    Raises
    ------
    ValueError
        The rows hold every basis vector (no basis would be left).
    """
    N = nmap.removal_directions(basis_positions(basis_indices, rows))
    if N.shape[1] >= nmap.k:
        raise ValueError(
            "the hold-out set contains every basis vector: removing them leaves no "
            "basis; use more basis vectors, other folds, or keep_basis_in_cv=True")
    return N


def constrained_solve(solve, N, rhs):
    """w = argmin of the quadratic with solve(x) = M^{-1} x, subject to N^T w = 0:
    w = M^{-1} rhs - M^{-1} N (N^T M^{-1} N)^{-1} N^T M^{-1} rhs. O(cost of solve on
    p + h columns + h^3)."""
    X = solve(np.hstack([rhs, N]))
    p = rhs.shape[1]
    u, v = X[:, :p], X[:, p:]
    return u - v @ la.solve(N.T @ v, N.T @ u, assume_a="sym", check_finite=False)



def remove_basis_from_pairs(basis_indices, m, starts, ends, out_s, out_e, holdout):
    """Leave-pair-out with basis removal: overwrite, for every pair holding a basis
    vector, the fast (basis-keeping) pair predictions ``out_s``/``out_e`` (n, p) by
    ``holdout([start, end])`` -- the model retrained without both examples *and*
    without the basis vectors among them (``holdout_removing`` of the solver or model).
    Pairs without a basis vector are left as they are: removing them removes no basis
    vector, and the fast path already equals retraining.

    Notes
    -----
    One exact hold-out per pair holding a basis vector: at most b (2m - b) / 2 of the
    pairs for b basis vectors (O(r^2) each for RLS, O(r^3) for RankRLS), the rest
    untouched. Returns the number of pairs replaced.
    """
    is_basis = np.zeros(m, dtype=bool)
    is_basis[np.asarray(basis_indices, dtype=np.intp)] = True
    hit = np.flatnonzero(is_basis[starts] | is_basis[ends])
    for k in hit:
        P = holdout(np.array([starts[k], ends[k]], dtype=np.intp))
        out_s[k], out_e[k] = P[0], P[1]
    return hit.size


class NystromSolver(LinearSolver):
    """Primal RLS on Nystrom features with cross-validation that removes held-out basis
    vectors (see the module docstring).

    Parameters
    ----------
    nmap : NystromMap
    Y : (m, p)
    basis_indices : (r,) indices of the basis vectors among the m examples

    Notes
    -----
    Training and the keep-basis shortcuts as :class:`LinearSolver` (O(m r^2) then
    O(r^2 p) per lambda). With removal: ``holdout_removing`` O(r^2 h) per fold, then
    O(|U| r (p + h) + |U|^2 r + |U|^3 + r h (p + h)) for the first lambda when
    |U| <= r; else, and for the next lambdas, a constrained refit in the map's
    coordinates (:class:`rlscore.core.rls.FoldCache`), O(|U| r^2 + r^3) once per fold
    and O(r^2 h + |U| r p) per lambda;
    ``leave_one_out_removing`` O(r^3) once, then O(m r p) per lambda.
    """

    def __init__(self, nmap, Y, basis_indices):
        super().__init__(nmap.Phi, Y)
        self.nmap = nmap
        self.basis_indices = np.asarray(basis_indices, dtype=np.intp)
        self._xi_all = None

    def _removed_directions(self, rows):
        """N (k, h) of :func:`held_out_directions` for the basis vectors among
        ``rows``."""
        return held_out_directions(self.nmap, self.basis_indices, rows)

    def _eig_parts(self):
        """(U (m, q), s2 (q,), keep mask (k,), V (k, k), V^T Phi^T Y (k, p))."""
        U, s2, q, P, UtY, U2 = self._cv_parts()
        s2all, V, VtPY = self._eig
        return U, s2, s2all > 0, V, VtPY

    def holdout_removing(self, regparam, indices):
        """Predictions (|U|, p) for the rows ``indices`` from the model retrained
        without them and without the basis vectors among them."""
        U_rows = check_holdout_rows(indices, self.m)
        N, = self._folds.get(U_rows, lambda: (self._removed_directions(U_rows),), b"N")
        if N.shape[1] == 0:
            return self.holdout(regparam, U_rows)
        if self._folds.use_primal(U_rows, self.d):
            # a refit in the map's coordinates under the constraint N^T w = 0
            return primal_fold_predictions(self._fold_parts(U_rows, N), regparam)
        U, s2, keep, V, VtPY = self._eig_parts()
        xi = V.T @ N                                        # (k, h), eigen coordinates
        xi, _ = np.linalg.qr(xi)
        g = 1.0 / (self._eig[0] + regparam)
        sq = np.sqrt(s2)
        Zu = U[U_rows] * sq                                 # (u, q)
        Y_U = self.Y[U_rows]
        # beta = Z_U'^T Y_U' in eigen coordinates; g*beta and g*xi over all k directions
        gb = g[:, None] * VtPY
        gb[keep] -= g[keep, None] * (Zu.T @ Y_U)
        gx = g[:, None] * xi
        Tb = Zu @ gb[keep]
        Tx = Zu @ gx[keep]
        S = self._blocks(regparam, U_rows)[0]               # I - Z_U diag(g) Z_U^T
        Sinv_T = la.solve(S, np.hstack([Tb, Tx]), assume_a="pos", check_finite=False)
        p = Tb.shape[1]
        SB, SX = Sinv_T[:, :p], Sinv_T[:, p:]
        xu = xi.T @ gb + Tx.T @ SB                          # xi^T M^{-1} beta
        xv = xi.T @ gx + Tx.T @ SX                          # xi^T M^{-1} xi
        return SB - SX @ la.solve(xv, xu, assume_a="pos", check_finite=False)

    def leave_pair_out_removing(self, regparam, starts, ends):
        """Leave-pair-out predictions (two (n, p) arrays), each pair's from the model
        retrained without both examples and without the basis vectors among them:
        the fast pair formula for pairs without basis vectors, :meth:`holdout_removing`
        (O(r^2 (p + 2)) after the decomposition) for each pair holding one."""
        from rlscore._validation import check_index_pairs
        s, e = check_index_pairs(starts, ends, self.m)
        out_s, out_e = self.leave_pair_out(regparam, s, e)
        remove_basis_from_pairs(self.basis_indices, self.m, s, e, out_s, out_e,
                                lambda H: self.holdout_removing(regparam, H))
        return out_s, out_e

    def leave_one_out_removing(self, regparam):
        """Leave-one-out predictions (m, p); a basis example's prediction comes from the
        model without it as an example and as a basis vector."""
        return self._remove_from_loo(regparam, self.leave_one_out(regparam))

    def leave_one_out_removing_path(self, regparams):
        """:meth:`leave_one_out_removing` for every lambda of ``regparams`` (a list),
        the plain leave-one-out part batched by :meth:`leave_one_out_path`."""
        return [self._remove_from_loo(lam, P) for lam, P in
                zip(regparams, self.leave_one_out_path(regparams))]

    def _remove_from_loo(self, regparam, P):
        """Replace the basis examples' rows of the plain LOO predictions P by those of
        the model without them as examples and as basis vectors. O(k^2 p)."""
        if self._xi_all is None:
            self._xi_all = removal_directions_eigen(self.nmap, self._eig[1])
        cols = self._xi_all[0]
        if cols.size == 0 or self.nmap.positions(np.arange(self.nmap.r)).size == 0:
            return P
        rows = self.basis_indices[self.nmap.order[cols]]    # row of column cols[i]
        U = self._cv_parts()[0]
        P[rows] = loo_removal_rows(self._eig, self._xi_all, U[rows], self.Y[rows],
                                   regparam)
        return P


def removal_directions_eigen(nmap, V):
    """(cols, Xi): the columns of Phi whose basis vector's removal alone changes the
    model, and the unit directions (rows of Xi, (c, k)) it takes away, in the eigen
    coordinates V of Phi^T Phi. O(k^2 c) (plus :meth:`NystromMap.
    single_removal_directions`)."""
    if nmap.k == 1:
        raise ValueError("leave-one-out removal of the only basis vector leaves no "
                         "basis; use keep_basis_in_cv=True")
    cols, N = nmap.single_removal_directions()
    Xi = V.T @ N                                    # column i = V^T N_i
    Xi /= np.linalg.norm(Xi, axis=0)[None, :]
    return cols, np.ascontiguousarray(Xi.T)


def loo_removal_rows(eig, xi_all, U_rows, y, regparam):
    """Leave-one-out predictions (c, p) of the basis examples, each from the model
    without it as an example and as a basis vector (a rank-one downdate of the rows
    and a rank-one constraint N_i^T w = 0; module docstring, Cross-validation).

    Parameters
    ----------
    eig : (s2 (k,), V (k, k), V^T Phi^T Y (k, p)) of Phi^T Phi (all eigenvalues)
    xi_all : (cols, Xi) of :func:`removal_directions_eigen`
    U_rows : (c, q) rows of the left singular vectors U = Phi V_+ diag(s_+)^{-1} (the
        nonzero eigenvalues) at the basis examples of ``cols``, in that order
    y : (c, p) their labels

    Notes
    -----
    O(c k p); only the c <= r basis rows are needed, so a streamed solver computes
    them from the basis features alone.
    """
    s2all, V, VtPY = eig
    cols, Xi = xi_all
    keep = s2all > 0
    s2q = s2all[keep]
    g = 1.0 / (s2all + regparam)
    Z = U_rows * np.sqrt(s2q)                             # (c, q) rows of the basis
    gk = g[keep]
    q = np.maximum(1.0 - np.einsum("ij,ij->i", U_rows, U_rows), 0.0)
    Sd = q + (U_rows * U_rows) @ (regparam / (s2q + regparam))   # 1 - z^T g z
    t = 1.0 - Sd                                        # z^T g z
    gVtPY = g[:, None] * VtPY                           # (k_all, p)
    zgb = Z @ gVtPY[keep] - t[:, None] * y              # z^T g beta
    zgx = np.einsum("jq,jq->j", Z, Xi[:, keep] * gk)    # z^T g xi
    xgb = Xi @ gVtPY - zgx[:, None] * y                 # xi^T g beta
    xgx = np.einsum("jk,jk->j", Xi, Xi * g)             # xi^T g xi
    zu = zgb / Sd[:, None]
    zv = zgx / Sd
    xu = xgb + (zgx / Sd)[:, None] * zgb
    xv = xgx + zgx * zgx / Sd
    return zu - (zv / xv)[:, None] * xu
