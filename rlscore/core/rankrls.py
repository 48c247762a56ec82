"""RankRLS: regularized least-squares ranking through the Laplacian of a preference graph.

Pahikkala, Tsivtsivadze, Airola, Järvinen and Boberg, "An efficient algorithm for
learning to rank from preference graphs", Machine Learning 75(1):129-165, 2009.

Three models, all returning 2-D arrays (the learners of :mod:`rlscore.learner` squeeze):

* :class:`GlobalRankRLSModel` -- one ranking over all examples, the magnitude-preserving
  pairwise least squares  sum_{i<j} ((y_i - y_j) - (f_i - f_j))^2 + lambda ||f||^2,
  i.e. the Laplacian L = m I - 1 1^T of the complete graph;
* :class:`QueryRankRLSModel` -- pairs only within a query, with RLScore's per-query
  centering Laplacian L = I - sum_q 1_q 1_q^T / n_q (a pair of query q weighs 1/n_q);
* :class:`rlscore.core.rankrls_pairs.PPRankRLSModel` -- explicit preference pairs (a
  multigraph, edge weights and the three cost functions of the paper).

:mod:`rlscore.core.rankrls_pairs` also holds :class:`RankLPOCV` (the leave-pair-out
cross-validator of the global model), :func:`preference_pairs` and :func:`lpo_cindex`.

The algebra of the first two
---------------------------
For a block-centering projection P (one block for the global model, one per query),
(y - f)^T P (y - f) = min_beta ||y - f - D beta||^2 with D the block indicator: RankRLS
is ridge regression with an unpenalized offset per block.  Its dual coefficients are
A = (P K P + mu I)^{-1} P Y, with mu = lambda / m (global) or lambda (query), and its
primal weights W = (Phi^T P Phi + mu I)^{-1} Phi^T P Y.  We never form L: in the primal
we centre the features, in the dual we rotate the kernel matrix with one Householder
reflection per block (O(m^2)), B^T K B with B an orthonormal basis of range(P), which
leaves a symmetric positive semidefinite system of size m - #blocks.  One Cholesky
factorization trains one lambda (the cost of plain RLS); the first cross-validation
request or the second lambda eigendecomposes it, after which each lambda costs
O(m^2 p) (dual) or O(d^2 p) (primal).

Hold-out (exact retraining on the complement).  Removing the rows H of one block q
turns P into P~ with P - P~ = the projection onto span{P e_i : i in H}.  With
U diag(s2) U^T the eigendecomposition of the centred kernel P K P (or the left singular
vectors of the centred features), w = 1 / (s2 + mu),

    M = mu P G_c P   = (P - U U^T) + U diag(mu w) U^T   (the lambda-scaled inverse),
    N = P - M        = U diag(s2 w) U^T                  (the centred hat matrix),
    R = P (Y - F)    = (P - U U^T) Y + U diag(mu w) U^T Y (centred residuals),
    t_H              = rows H of Kbar_q P G_c P           (Kbar_q: block-q mean kernel row),

each formed without cancellation, the predictions of the model retrained without H are

    X   = (M_HH + [H = q] 1 1^T / n_q)^{-1} R_H,
    f_H = F_H - N_HH X - 1 (t_H X),

F the fit of the full model (derivation: ridge regression with one unpenalized offset
per block; block inverse of the bordered system). Holding out a whole query gives
leave-query-out (the paper's eq. 33, without its m x m inverse); holding out part of a
query gives true retraining with the remaining members forming a smaller query. For the
global model the complement's Laplacian has size m - h, i.e. mu' = lambda / (m - h);
with h = 2 this is the exact leave-pair-out of Sect. 3.4 (eqs. 35-38; the paper's
Q = V diag(Lambda / (lambda + (m - 2) Lambda)) V^T in its notation), O(p) per pair after
an O(m^3) setup: one SYRK of the eigenvectors, or -- when no eigendecomposition exists
yet -- one Cholesky at mu' and its inverse.
"""

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.linalg import blas, lapack

from rlscore._ext import _lpo
from rlscore._progress import stage
from rlscore.core.groups import QueryGroups, as_query_groups
from rlscore.core.representation import build_representation
from rlscore.core.rls import n_rows
from rlscore.core.rls_solvers import KernelSolver, _check_pairs, psd_eigh
from rlscore._validation import (
    as_2d_labels, as_index_array, check_peak_memory, check_regparam)

__all__ = ["GlobalRankRLSModel", "QueryRankRLSModel", "gram_matrix"]

_CHUNK = 1 << 22          # elements per temporary block in the chunked loops
_CACHE = 1 << 24          # elements of lambda-independent blocks kept between calls


def _symmetrize(C):
    C = np.asarray(C, dtype=np.float64)
    return np.ascontiguousarray(0.5 * (C + C.T))


def gram_matrix(Phi):
    """Phi^T Phi for a dense (m, d) array, via SYRK."""
    C = blas.dsyrk(1.0, Phi.T, trans=0, lower=0)
    C = np.triu(C)
    C += np.triu(C, 1).T
    return np.ascontiguousarray(C)


class _RotatedSolver:
    """(K' + mu I)^{-1} Y' for the rotated kernel K' = B^T K B, held embedded in an
    m x m array whose rows and columns ``first`` are decoupled (1 on the diagonal, the
    right-hand side 0 there, so the solution is 0 there).

    One Cholesky (O(m^3/3)) per mu until a second mu is requested; then one
    eigendecomposition of the (m - g) x (m - g) block (O(m^3)) and O(m^2 p) per mu.
    """

    def __init__(self, K, Y, rest):
        self.K = K
        self.Y = Y
        self.rest = rest
        self._chol = None          # (mu, Fortran lower Cholesky factor)
        self._eig = None           # (s2, V (m - g, m - g), V^T Y[rest])
        self._x = None             # (mu, solution)

    @property
    def decomposed(self):
        return self._eig is not None

    def decompose(self):
        if self._eig is None:
            sub = self.K[np.ix_(self.rest, self.rest)]
            s2, V = psd_eigh(sub)
            del sub
            self._eig = (s2, V, V.T @ self.Y[self.rest])
            self._chol = None
        return self._eig

    def _cho(self, mu):
        if self._chol is None or self._chol[0] != mu:
            self._chol = None
            S = np.array(self.K, order="F")              # one copy
            S.flat[:: S.shape[0] + 1] += mu
            with stage(f"Cholesky factorization ({S.shape[0]} x {S.shape[0]})"):
                c, info = lapack.dpotrf(S, lower=1, overwrite_a=1, clean=1)
            if info != 0:
                raise ValueError(
                    f"the centred kernel matrix + regparam*I is not positive definite "
                    f"(regparam={mu!r} after scaling); use a larger regparam")
            self._chol = (mu, c)
        return self._chol[1]

    def solve(self, mu):
        if self._x is not None and self._x[0] == mu:
            return self._x[1]
        if self._eig is None and self._x is not None:
            self.decompose()
        if self._eig is not None:
            s2, V, c = self._eig
            denom = s2 + mu
            if np.any(denom <= 0):
                raise ValueError("regparam=0 with a singular centred kernel matrix: the "
                                 "problem has no unique solution; use regparam > 0")
            x = np.zeros_like(self.Y)
            x[self.rest] = V @ (c / denom[:, None])
        else:
            x = la.cho_solve((self._cho(mu), True), self.Y, check_finite=False)
        self._x = (mu, x)
        return x

    def solve_cholesky(self, mu):
        """The solution at mu from a Cholesky factorization, whatever the path state."""
        if self._x is not None and self._x[0] == mu:
            return self._x[1]
        return la.cho_solve((self._cho(mu), True), self.Y, check_finite=False)

    def inverse(self, mu):
        """(K' + mu I)^{-1} embedded in m x m (garbage in the decoupled rows/columns),
        from the Cholesky factor: O(m^3)."""
        c = self._cho(mu)
        G, info = lapack.dpotri(c, lower=1, overwrite_c=0)
        if info != 0:
            raise ValueError("could not invert the regularized kernel matrix")
        G = np.tril(G)
        G += np.tril(G, -1).T
        return np.ascontiguousarray(G)


# ---------------------------------------------------------------------------------------
# the centred (global / query) model


class _CenteredRankModel:
    """RankRLS with a block-centering Laplacian; see the module docstring.

    Subclasses set ``_global``: True for L = m P with one block (the complement of h
    held-out rows then has L of size m - h), False for the per-query L = P.
    """

    _global = False

    def _build(self, X, Y, regparam, kernel, basis_vectors, groups, path, prefer,
               kernel_params):
        kernel_params = dict(kernel_params)
        keep_basis = kernel_params.pop("keep_basis_in_cv", False)
        self.Y = as_2d_labels(Y)
        m = n_rows(X)
        if m != self.Y.shape[0]:
            raise ValueError(f"X has {m} rows but Y has {self.Y.shape[0]}: lengths must match")
        self.m = m
        self.groups = groups
        self._check_pairs_exist()
        rep = build_representation(X, kernel, basis_vectors, prefer=prefer, **kernel_params)
        self.representation = rep
        self.remove_basis = rep.basis_indices is not None and not keep_basis
        self._rem = None
        gr = groups
        self._Ybar = gr.mean(self.Y)                      # (g, p) block label means
        self.PY = self.Y - gr.expand(self._Ybar)
        self.kind = rep.kind
        if rep.kind == "primal":
            self._init_primal(rep.matrix)
        else:
            K = rep.matrix
            if isinstance(X, np.ndarray) and np.may_share_memory(K, X):
                K = K.copy()
            rep.matrix = None          # rotated in place below; the model owns it now
            self._init_dual(K)
        self._cv = None
        self._states = {}
        self._lpo_cache = None
        if path:
            self.solver.decompose()
        self.solve(regparam)

    def _check_pairs_exist(self):
        gr, Y = self.groups, self.Y
        if gr.sizes.max() < 2:
            what = "there is a single example" if self._global else \
                "every query holds a single example"
            warnings.warn(f"{what}: there are no pairs, the model is zero", UserWarning,
                          stacklevel=4)
            return
        big = gr.sizes[gr.codes] >= 2
        Yb = Y[big]
        codes = gr.codes[big]
        mx = np.full((gr.n_groups, Y.shape[1]), -np.inf)
        mn = np.full((gr.n_groups, Y.shape[1]), np.inf)
        np.maximum.at(mx, codes, Yb)
        np.minimum.at(mn, codes, Yb)
        if not np.any(mx > mn):
            raise ValueError("all labels are tied within every query (every column of Y): "
                             "there are no pairs with different labels to learn from")

    # -- construction -----------------------------------------------------------
    def _init_primal(self, Phi):
        """Centred features: dense Phi is centred explicitly; for sparse Phi the Gram
        matrix is Phi^T Phi - sum_q n_q mean_q mean_q^T (no densification; features
        whose mean dwarfs their spread lose digits to that subtraction)."""
        gr = self.groups
        if sp.issparse(Phi):
            Phi = sp.csr_matrix(Phi, dtype=np.float64)
            Phibar = gr.mean(Phi)
            C = (Phi.T @ Phi).toarray() - (Phibar.T * gr.sizes) @ Phibar
            C = _symmetrize(C)
            b = np.asarray(Phi.T @ self.PY)
            self._PhiP = None
        else:
            Phi = np.ascontiguousarray(Phi, dtype=np.float64)
            Phibar = gr.mean(Phi)
            PhiP = np.ascontiguousarray(Phi - gr.expand(Phibar))
            C = gram_matrix(PhiP)
            b = PhiP.T @ self.Y
            self._PhiP = PhiP
        self._Phi = Phi
        self._Phibar = Phibar
        self.solver = KernelSolver(C, b)

    def _init_dual(self, K):
        gr = self.groups
        check_peak_memory("one_lambda", self.m, what=f"the {self.m} x {self.m} rotated kernel")
        self._Kbar = gr.mean(K)                            # (g, m)
        K = gr.rotate_kernel(K)
        YB = gr.reflect_rows(self.Y.copy())
        YB[gr.first] = 0.0
        self._YB = YB
        self.solver = _RotatedSolver(K, YB, gr.rest)

    # -- regularization ---------------------------------------------------------
    def _mu(self, regparam, h=0):
        return regparam / (self.m - h) if self._global else regparam

    def solve(self, regparam):
        """Train for ``regparam``: O(m^3/3) (dual Cholesky) or O(d^3/3) the first time,
        O(m^2 p) / O(d^2 p) after an eigendecomposition."""
        self.regparam = check_regparam(regparam)
        mu = self._mu(self.regparam)
        x = self.solver.solve(mu)
        if self.kind == "primal":
            self.coef = x
        else:
            self.coef = self.groups.reflect_rows(x.copy())
        self.predictor = self.representation.predictor(self.coef)
        return self

    def fitted(self):
        """In-sample predictions F (m, p) of the current model."""
        if self.kind == "primal":
            return np.asarray(self._Phi @ self.coef)
        x = self.solver.solve(self._mu(self.regparam))
        PF = self.groups.reflect_rows(self.solver.K @ x)
        return PF + self.groups.expand(self._Kbar @ self.coef)

    @property
    def A(self):
        """Dual coefficients (LK + lambda I)^{-1} L Y (m, p); for a primal model
        P (Y - F) / mu (None at regparam 0)."""
        if self.kind == "dual":
            return self.coef
        mu = self._mu(self.regparam)
        if mu <= 0:
            return None
        return self.groups.center(self.Y - self.fitted()) / mu

    # -- eigen-parts for the cross-validation shortcuts -------------------------
    def _parts(self):
        """U (m, r) orthonormal in range(P), s2 (r,), c = U^T Y (r, p), Yf (g, r) the
        block means of the rotated features, qdiag = diag(P - U U^T) (primal)."""
        if self._cv is not None:
            return self._cv
        gr = self.groups
        s2, V, VtB = self.solver.decompose()
        if self.kind == "primal":
            keep = s2 > 0
            s = np.sqrt(s2[keep])
            Vk = np.ascontiguousarray(V[:, keep])
            if self._PhiP is not None:
                ZP = self._PhiP @ Vk
            else:
                ZP = np.asarray(self._Phi @ Vk) - gr.expand(self._Phibar @ Vk)
            U = np.ascontiguousarray(ZP / s)
            Yf = (self._Phibar @ Vk) * s
            c = VtB[keep] / s[:, None]
            qdiag = (1.0 - 1.0 / gr.sizes[gr.codes]) - np.einsum("ij,ij->i", U, U)
            np.maximum(qdiag, 0.0, out=qdiag)
            self._R0 = self.PY - U @ c          # (P - U U^T) Y, lambda-independent
            self._cv = (U, s2[keep], c, Yf, qdiag, bool(np.all(keep)))
        else:
            U = np.ascontiguousarray(gr.basis(V))
            del V
            Yf = self._Kbar @ U
            Yf[:, s2 == 0] = 0.0
            self._R0 = None                     # U spans range(P): U U^T = P
            self._cv = (U, s2, VtB, Yf, None, bool(np.all(s2 > 0)))
        return self._cv

    def _U2(self):
        """U * U (cached), for the diagonals of the hold-out matrices."""
        if getattr(self, "_U2cache", None) is None:
            U = self._parts()[0]
            self._U2cache = U * U
        return self._U2cache

    def _weights(self, mu):
        U, s2, c, Yf, qdiag, full = self._parts()
        if mu <= 0 and not (full and np.all(s2 > 0)):
            raise ValueError("regparam=0 with a singular (centred) kernel matrix: the "
                             "problem has no unique solution; use regparam > 0")
        return 1.0 / (s2 + mu)

    def _state(self, mu):
        """(w, Pr, F) at mu: w = 1/(s2 + mu), the centred residuals P(Y - F) and the
        fit F of the model trained on all examples at mu. O(m r p)."""
        st = self._states.get(mu)
        if st is not None:
            return st
        U, s2, c, Yf, qdiag, full = self._parts()
        w = self._weights(mu)
        cw = c * w[:, None]
        # P(Y - F) = (P - U U^T) Y + U diag(mu w) U^T Y, free of cancellation; one pass
        # over U for both products
        p = c.shape[1]
        both = U @ np.hstack([cw * s2[:, None], cw * mu])
        PF, Pr = both[:, :p], both[:, p:]
        if self._R0 is not None:
            Pr += self._R0
        Pr = np.ascontiguousarray(Pr)
        F = np.ascontiguousarray(PF + self.groups.expand(Yf @ cw))
        if len(self._states) >= 4:
            self._states.pop(next(iter(self._states)))
        st = (w, Pr, F)
        self._states[mu] = st
        return st

    # -- hold-out -----------------------------------------------------------------
    def _block_of(self, H):
        q = self.groups.codes[H]
        if np.any(q != q[0]):
            raise IndexError("indices must all belong to the same query; got indices of "
                             f"{np.unique(q).size} different queries")
        return int(q[0])

    def holdout(self, indices):
        """Predictions (h, p) for the rows ``indices`` (all of one query) from the model
        retrained without them: O(m r p + h^2 r + h^3) after the eigendecomposition."""
        H = as_index_array(indices, self.m, name="indices")
        if H.size >= self.m:
            raise ValueError("indices hold out every example; nothing is left to train on")
        q = self._block_of(H)
        if self.remove_basis:
            out = self._holdout_removing(H)
            if out is not None:
                return out
        h = H.size
        nq = float(self.groups.sizes[q])
        mu = self._mu(self.regparam, h)
        w, Pr, F = self._state(mu)
        U, s2, c, Yf, qdiag, full = self._parts()
        UH = U[H]
        M = (UH * (mu * w)) @ UH.T
        if self.kind == "primal":
            M += np.eye(h) - 1.0 / nq - UH @ UH.T
        if h == self.groups.sizes[q]:
            M += 1.0 / nq
        N = (UH * (s2 * w)) @ UH.T
        X = self._solve_small(M, Pr[H])
        t = (UH * w) @ Yf[q]
        return F[H] - N @ X - (t @ X)[None, :]

    # -- cross-validation that removes held-out basis vectors -------------------
    def _holdout_removing(self, U):
        """Predictions for the rows U from the sparse RankRLS model retrained without
        them and without the basis vectors among them (None when U holds no basis
        vector). Retrains in the full map's coordinates: the fold's centred Gram matrix
        by a downdate of |U| rows and of the touched blocks (O((|U| + n_touched) r^2)),
        the removal as the constraint N^T w = 0 with N = C^{-1}[:, H]
        (:mod:`rlscore.core.nystrom`), one O(r^3/3) Cholesky per fold."""
        from rlscore.core.nystrom import basis_positions, constrained_solve
        rep = self.representation
        nmap = rep.nystrom
        Hpos = nmap.positions(basis_positions(rep.basis_indices, U))
        if Hpos.size == 0:
            return None
        if Hpos.size >= nmap.k:
            raise ValueError(
                "the hold-out set contains every basis vector: removing them leaves no "
                "basis; use more basis vectors, other folds, or keep_basis_in_cv=True")
        gr = self.groups
        Phi = np.asarray(self._Phi)
        if self._rem is None:
            S = gr.sum(Phi)                                 # (g, r) block sums
            T = gr.sum(self.Y)                              # (g, p)
            inv_n = 1.0 / gr.sizes
            self._rem = (Phi.T @ Phi, Phi.T @ self.Y,
                         (S.T * inv_n) @ S, (S.T * inv_n) @ T, S, T)
        G, B, SS, ST, S, T = self._rem
        PU, YU = Phi[U], self.Y[U]
        C = G - PU.T @ PU - SS
        b = B - PU.T @ YU - ST
        qs, qpos = np.unique(gr.codes[U], return_inverse=True)
        for j, q in enumerate(qs):
            rows = qpos == j
            nq = gr.sizes[q] - rows.sum()
            s_old, t_old = S[q][:, None], T[q][None, :]
            C += (s_old @ s_old.T) / gr.sizes[q]
            b += (s_old @ t_old) / gr.sizes[q]
            if nq > 0:
                s_new = s_old - PU[rows].sum(axis=0)[:, None]
                t_new = t_old - YU[rows].sum(axis=0)[None, :]
                C -= (s_new @ s_new.T) / nq
                b -= (s_new @ t_new) / nq
        C = 0.5 * (C + C.T)
        C.flat[:: C.shape[0] + 1] += self._mu(self.regparam, U.size)
        try:
            c = la.cho_factor(C, lower=True, check_finite=False)
        except la.LinAlgError:
            raise ValueError("the hold-out problem is singular (regparam=0 with too few "
                             "remaining examples); use regparam > 0") from None
        W = constrained_solve(lambda R: la.cho_solve(c, R, check_finite=False),
                              nmap.Cinv[:, Hpos], b)
        return PU @ W

    def _basis_rows_removing(self, P):
        """Overwrite the leave-one-out predictions P of the basis examples by those of
        the model retrained without them as examples and as basis vectors. O(r^4)."""
        for i in self.representation.basis_indices:
            out = self._holdout_removing(np.array([i], dtype=np.intp))
            if out is not None:
                P[i] = out[0]
        return P

    @staticmethod
    def _solve_small(M, R):
        try:
            return la.solve(M, R, assume_a="sym", check_finite=False)
        except (la.LinAlgError, ValueError):
            raise ValueError("the hold-out problem is singular (regparam=0 with too few "
                             "remaining examples); use regparam > 0") from None


class GlobalRankRLSModel(_CenteredRankModel):
    """Global RankRLS: min (Y - f)^T (m I - 1 1^T)(Y - f) + lambda ||f||^2.

    Parameters
    ----------
    X, kernel, basis_vectors, kernel_params : see
        :func:`rlscore.core.representation.build_representation` (pass bias=0 for the
        RLScore convention; a bias feature has no effect on a ranking anyway).
    Y : labels (m,) or (m, p); each column is ranked separately.
    regparam : float >= 0
    path : eigendecompose at once (a lambda path or cross-validation will follow).

    Notes
    -----
    Training: the kernel (or Phi^T Phi) plus O(m^2) for the rotation and one Cholesky
    (O(m^3/3) dual, O(d^3/3) primal) -- the cost of RLS. With the eigendecomposition:
    O(m^2 p) / O(d^2 p) per lambda; ``holdout`` O(m r p + h^2 r + h^3);
    ``leave_one_out`` O(m r p); ``leave_pair_out`` O(m^3) once per lambda (dense dual:
    one SYRK, or Cholesky + inverse without an eigendecomposition) or O(m r) (primal),
    then O(p) (dual) / O(r + p) (primal) per pair.
    """

    _global = True

    def __init__(self, X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 path=False, prefer="auto", **kernel_params):
        m = n_rows(X)
        groups = QueryGroups.single(m)
        self._build(X, Y, regparam, kernel, basis_vectors, groups, path, prefer,
                    kernel_params)

    def leave_one_out(self):
        """Leave-one-out predictions (m, p), each from the model trained on the other
        m - 1 examples (L of size m - 1). O(m r p) after the eigendecomposition."""
        if self.m < 2:
            raise ValueError("leave-one-out needs at least 2 examples")
        mu = self._mu(self.regparam, 1)
        w, Pr, F = self._state(mu)
        U, s2, c, Yf, qdiag, full = self._parts()
        U2 = self._U2()
        mdiag = U2 @ (mu * w)
        if self.kind == "primal":
            mdiag = mdiag + qdiag
        if np.any(mdiag <= 0):
            raise ValueError("leave-one-out is undefined at regparam=0 here; use "
                             "regparam > 0")
        X = Pr / mdiag[:, None]
        shift = U2 @ (s2 * w) + U @ (w * Yf[0])
        P = F - shift[:, None] * X
        if self.remove_basis:
            P = self._basis_rows_removing(P)
        return P

    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        """Exact leave-pair-out: for pair k, the predictions for its two examples from
        the model trained without both (L of size m - 2). Returns two (n_pairs, p)
        arrays. O(p) per pair after an O(m^3) (dual) / O(m r) (primal) setup."""
        s, e = _check_pairs(pairs_start_inds, pairs_end_inds, self.m)
        return self._leave_pair_out(s, e)

    def _leave_pair_out(self, s, e):
        """leave_pair_out for validated contiguous intp index arrays."""
        if self.m < 3:
            raise ValueError("leave-pair-out needs at least 3 examples")
        mu = self._mu(self.regparam, 2)
        p = self.Y.shape[1]
        out_s = np.empty((s.size, p))
        out_e = np.empty_like(out_s)
        offconst = -1.0 / self.m
        if self.kind == "primal":
            w, Pr, F = self._state(mu)
            U, s2, c, Yf, qdiag, full = self._parts()
            omega = np.ascontiguousarray(s2 * w)
            U2 = self._U2()
            mdiag = np.ascontiguousarray(qdiag + U2 @ (mu * w))
            ndiag = np.ascontiguousarray(U2 @ omega)
            tau = np.ascontiguousarray(U @ (w * Yf[0]))
            _lpo.rank_lpo_lowrank(U, omega, mdiag, ndiag, offconst, Pr, F, tau, s, e,
                                  out_s, out_e)
        else:
            M, ndiag, Pr, F, tau = self._dense_lpo_parts(mu)
            _lpo.rank_lpo_dense(M, ndiag, offconst, Pr, F, tau, s, e, out_s, out_e)
        return out_s, out_e

    def _dense_lpo_parts(self, mu):
        """M = mu P G_c P (m x m), diag(P - M), P(Y - F), F and tau at mu (dual)."""
        if self._lpo_cache is not None and self._lpo_cache[0] == mu:
            return self._lpo_cache[1]
        self._lpo_cache = None
        gr = self.groups
        m = self.m
        check_peak_memory("lpo", m, what=f"the {m} x {m} leave-pair-out matrix")
        if self.solver.decomposed:
            w, Pr, F = self._state(mu)
            U, s2, c, Yf, qdiag, full = self._parts()
            B = U * np.sqrt(mu * w)
            # B B^T, lower triangle of a Fortran array = upper triangle of its
            # C-ordered transpose, the only part the pair loop reads
            M = blas.dsyrk(1.0, B.T, trans=1, lower=1).T
            del B
            ndiag = self._U2() @ (s2 * w)
            tau = U @ (w * Yf[0])
        else:
            # no eigendecomposition: Cholesky of the rotated system at mu and its
            # inverse G' (O(m^3) in all), then O(m^2)
            if mu <= 0:
                raise ValueError("leave-pair-out at regparam=0 needs regparam > 0")
            x = self.solver.solve_cholesky(mu)
            A = gr.reflect_rows(x.copy())
            Pr = np.ascontiguousarray(mu * A)            # P(Y - F) = mu P G_c P Y
            F = (self.PY - Pr) + self._Kbar @ A
            G = self.solver.inverse(mu)
            u = gr.reflect_rows(np.array(self._Kbar.T))
            u[gr.first] = 0.0
            v = G @ u
            v[gr.first] = 0.0
            tau = gr.reflect_rows(v)[:, 0]
            G *= mu
            M = gr.unrotate_symmetric(G)
            ndiag = (1.0 - 1.0 / m) - np.diag(M)
        parts = (np.ascontiguousarray(M), np.ascontiguousarray(ndiag), Pr,
                 np.ascontiguousarray(F), np.ascontiguousarray(tau))
        self._lpo_cache = (mu, parts)
        return parts


class QueryRankRLSModel(_CenteredRankModel):
    """Query-structured RankRLS: pairs only within a query, L = I - sum_q 1_q 1_q^T/n_q.

    Parameters
    ----------
    qids : sequence of hashable, length m (grouped by equal value), or a
        :class:`rlscore.core.groups.QueryGroups` built once by the caller. Queries of
        one item are allowed; they contribute no pairs.
    Other parameters as :class:`GlobalRankRLSModel`.

    Notes
    -----
    Training costs as for :class:`GlobalRankRLSModel`, plus O(m) for the queries.
    ``holdout`` of one query (or part of one) O(m r p + h^2 r + h^3) after the
    eigendecomposition; ``leave_query_out`` all queries O(m r p + sum_q n_q^2 r + n_q^3)
    per lambda, i.e. O(m^2 |q|) (dual, r = m - #queries) or O(m |q| d) (primal).
    """

    _global = False

    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 path=False, prefer="auto", **kernel_params):
        m = n_rows(X)
        groups = as_query_groups(qids, m)
        self.qids = groups.codes
        self.qidlist = [mem.tolist() for mem in groups.split()]
        self._build(X, Y, regparam, kernel, basis_vectors, groups, path, prefer,
                    kernel_params)

    def leave_query_out(self):
        """Predictions for every query from the model trained without it: a list (one
        per query, first-appearance order) of (n_q, p) arrays.

        Batched over queries of equal size (chunked to bound the temporaries); the
        lambda-independent blocks U_q are kept between calls when they take at most
        ``_CACHE`` elements. O(sum_q n_q^2 r + n_q^3) per call.
        """
        gr = self.groups
        if isinstance(self.solver, _RotatedSolver):
            check_peak_memory("lqo", self.m, what=f"leave-query-out on {self.m} examples")
        mu = self._mu(self.regparam)
        w, Pr, F = self._state(mu)
        U, s2, c, Yf, qdiag, full = self._parts()
        out = [None] * gr.n_groups
        mw = mu * w
        nw = s2 * w
        wY = w * Yf                                            # (g, r)
        for n, qs, chunks in self._batches():
            for k0, k1, ik, UH, Qpart, G in chunks:
                qk = qs[k0:k1]
                if UH is None:
                    UH = U[ik]                                 # (k, n, r)
                UHt = UH.transpose(0, 2, 1)
                M = (UH * mw) @ UHt
                # N = U_q diag(s2 w) U_q^T = G - M, as s2 w + mu w = 1 (one product
                # per lambda instead of two)
                N = (UH * nw) @ UHt if G is None else G - M
                if Qpart is not None:
                    M += Qpart
                else:
                    M += 1.0 / n
                X = np.linalg.solve(M, Pr[ik])                 # (k, n, p)
                t = UH @ wY[qk][:, :, None]                    # (k, n, 1)
                P = F[ik] - N @ X - (t.transpose(0, 2, 1) @ X)
                for j, q in enumerate(qk):
                    out[q] = P[j]
        if self.remove_basis:
            for q, mem in enumerate(gr.split()):
                fresh = self._holdout_removing(np.ascontiguousarray(mem, dtype=np.intp))
                if fresh is not None:
                    out[q] = fresh
        return out

    def _batches(self):
        """Queries grouped by size n, in chunks: (n, query codes, [(k0, k1, (k, n) row
        indices, U blocks or None, the lambda-independent part I - U_q U_q^T of the
        primal block matrices or None, U_q U_q^T when the blocks are kept, else
        None)])."""
        if getattr(self, "_batch_cache", None) is not None:
            return self._batch_cache
        gr = self.groups
        U = self._parts()[0]
        r = U.shape[1]
        keep_blocks = self.m * r <= _CACHE
        batches = []
        members = gr.split()
        for n in np.unique(gr.sizes):
            n = int(n)
            qs = np.flatnonzero(gr.sizes == n)
            idx = np.stack([members[q] for q in qs])
            step = max(1, _CHUNK // max(1, n * r))
            chunks = []
            for k0 in range(0, qs.size, step):
                k1 = min(qs.size, k0 + step)
                ik = idx[k0:k1]
                UH = U[ik] if (keep_blocks or self.kind == "primal") else None
                Qpart = G = None
                if UH is not None:
                    G = UH @ UH.transpose(0, 2, 1)
                if self.kind == "primal":
                    Qpart = np.eye(n)[None, :, :] - G
                if not keep_blocks:
                    UH = G = None
                chunks.append((k0, k1, ik, UH, Qpart, G))
            batches.append((n, qs, chunks))
        self._batch_cache = batches
        return batches
