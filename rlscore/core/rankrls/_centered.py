"""RankRLS with a block-centering Laplacian: construction, training, the eigen-parts of
the cross-validation shortcuts and exact hold-out, shared by
:class:`rlscore.core.rankrls.GlobalRankRLSModel` (one block) and
:class:`rlscore.core.rankrls.QueryRankRLSModel` (one block per query) through
:class:`CenteredRankModel`.

The algebra
-----------
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

Rows of several blocks (query model; a fold of K-fold by query, parts of queries, or
both).  D^T D is diagonal (the offsets of different blocks do not couple) and P is block
diagonal, so the same block inverse separates over the touched blocks q (H_q = H cap q):

    S   = M_HH + sum_{q : H_q = q} 1_{H_q} 1_{H_q}^T / n_q,
    X   = S^{-1} R_H,
    f_H = F_H - N_HH X - sum_q 1_{H_q} (t_q[H] X),

one 1 1^T / n_q term per block held out whole (a block held out in part keeps its
offset, fitted on its remaining rows, and adds nothing) and one offset correction per
touched block, t_q = Kbar_q P G_c P; for H = whole queries this is eq. 33 without its
m x m inverse. With the primal's U of rank r < m - g, M_HH gains (P - U U^T)_HH, whose
-1/n_q of P cancels the +1/n_q of a whole block's offset: S = I - U_H U_H^T
- sum_{q partial} 1 1^T / n_q + U_H diag(mu w) U_H^T. O(h^2 r + h^3) per lambda.

The feature side (primal and Nystrom models).  The centred Gram matrix of the remaining
rows is a downdate of C = Phi^T P Phi by the held-out rows centred by their full block
means, Pc_H, and, per block held out in part, by the sum s_q of its rows in Pc_H (the
remaining n'_q rows' mean moves by -s_q / n'_q):

    C_f = C - Pc_H^T Pc_H - sum_{q partial} s_q s_q^T / n'_q,
    b_f = b - Pc_H^T Y_H  + sum_{q partial} s_q (sum of the remaining Y_q)^T / n'_q

(a block held out whole adds nothing: its centred rows sum to 0), O((h + t) r^2) for t
touched blocks, or formed from the remaining rows when they are fewer. The refit
(:func:`rlscore.core.rls.primal_fold_parts`, cached per hold-out set in a
:class:`rlscore.core.rls.FoldCache`) then costs O(h r p) per lambda; removing held-out
basis vectors is the constraint N^T w = 0 in the same coordinates
(:func:`rlscore.core.nystrom.held_out_directions`). :meth:`CenteredRankModel._holdout`
chooses between the two sides.
"""

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from rlscore.core.rankrls._solver import RotatedSolver, gram_matrix, symmetrize
from rlscore.core.structure import QueryGroups
from rlscore.core.nystrom import build_representation
from rlscore.core.nystrom import n_rows
from rlscore.core.optim import SingularRegparamError
from rlscore.core.rls import CheckedRows, FoldCache, KernelSolver, primal_fold_parts, primal_fold_predictions
from rlscore.core.nystrom import held_out_directions
from rlscore._validation import (
    as_2d_labels, as_index_array, check_peak_memory, check_regparam)

__all__ = ["CenteredRankModel", "EigenParts", "LambdaState", "TouchedBlocks"]


class EigenParts(NamedTuple):
    """The lambda-independent parts of the shortcuts (module docstring), from one
    eigendecomposition of the centred kernel (dual) or Gram matrix (primal)."""
    U: np.ndarray            # (m, r) orthonormal columns in range(P)
    s2: np.ndarray           # (r,) the eigenvalues
    UtY: np.ndarray          # (r, p) U^T Y
    block_means: np.ndarray  # (g, r) per block q the mean kernel row Kbar_q times U
    qdiag: np.ndarray        # (m,) diag(P - U U^T) (primal), None (dual: U U^T = P)
    full_rank: bool          # every eigenvalue > 0: regparam = 0 is solvable


class LambdaState(NamedTuple):
    """The model trained on all examples at one mu (module docstring)."""
    weights: np.ndarray           # (r,) w = 1 / (s2 + mu)
    centred_residual: np.ndarray  # (m, p) R = P (Y - F)
    fitted: np.ndarray            # (m, p) F


class TouchedBlocks(NamedTuple):
    """The blocks a hold-out set H touches (:meth:`CenteredRankModel._blocks_of`)."""
    blocks: np.ndarray       # (t,) the block codes q, ascending
    position: np.ndarray     # (h,) each row's index into ``blocks``
    term: np.ndarray         # (t,) the 1 1^T / n_q term of S per touched block


def _check_pairs_exist(groups, Y, global_=False, stacklevel=4):
    """Refuse labels tied within every query (ValueError: no pair to learn from); warn
    when every query is a single example (the model is zero). ``global_``: one query
    of all rows (the message says so). O(m p)."""
    gr = groups
    if gr.sizes.max() < 2:
        what = "there is a single example" if global_ else \
            "every query holds a single example"
        warnings.warn(f"{what}: there are no pairs, the model is zero", UserWarning,
                      stacklevel=stacklevel)
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


class CenteredRankModel:
    """RankRLS with a block-centering Laplacian; see the module docstring.

    Subclasses set ``_global``: True for L = m P with one block (the complement of h
    held-out rows then has L of size m - h), False for the per-query L = P.
    """

    _global = False

    def _build(self, X, Y, regparam, kernel, basis_vectors, groups, decompose_now,
               options):
        """Train the model: ``options`` the keywords of the faces (``prefer`` and
        the kernel parameters); ``decompose_now``: eigendecompose at once (a lambda
        path or cross-validation follows) instead of one Cholesky."""
        kernel_params = dict(options)
        prefer = kernel_params.pop("prefer", "auto")
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
        self._folds = None
        self._rows = None
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
        if decompose_now:
            self.solver.decompose()
        self.solve(regparam)

    def _check_pairs_exist(self):
        _check_pairs_exist(self.groups, self.Y, self._global, stacklevel=5)

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
            C = symmetrize(C)
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
        self.solver = RotatedSolver(K, YB, gr.rest)

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
        PF = self.groups.reflect_rows(self.solver.fitted(self._mu(self.regparam)))
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
        """The :class:`EigenParts` of the model (computed once): U (m, r) orthonormal
        in range(P), s2 (r,), U^T Y (r, p), the block means Kbar_q U (g, r) and
        diag(P - U U^T) (primal)."""
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
            self._cv = EigenParts(U, s2[keep], c, Yf, qdiag, bool(np.all(keep)))
        else:
            U = np.ascontiguousarray(gr.basis(V[gr.rest]))   # V is 0 in the rows first
            del V
            Yf = self._Kbar @ U
            Yf[:, s2 == 0] = 0.0
            self._R0 = None                     # U spans range(P): U U^T = P
            self._cv = EigenParts(U, s2, VtB, Yf, None, bool(np.all(s2 > 0)))
        return self._cv

    def _U2(self):
        """U * U (cached), for the diagonals of the hold-out matrices."""
        if getattr(self, "_U2cache", None) is None:
            U = self._parts().U
            self._U2cache = U * U
        return self._U2cache

    def _weights(self, mu):
        parts = self._parts()
        if mu <= 0 and not (parts.full_rank and np.all(parts.s2 > 0)):
            raise SingularRegparamError("regparam=0 with a singular (centred) kernel "
                                        "matrix: the problem has no unique solution")
        return 1.0 / (parts.s2 + mu)

    def _state(self, mu):
        """The :class:`LambdaState` at mu: w = 1/(s2 + mu), the centred residuals
        P(Y - F) and the fit F of the model trained on all examples at mu (cached for
        the last four mu). O(m r p)."""
        st = self._states.get(mu)
        if st is not None:
            return st
        parts = self._parts()
        U, s2, c, Yf = parts.U, parts.s2, parts.UtY, parts.block_means
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
        st = LambdaState(w, Pr, F)
        self._states[mu] = st
        return st

    # -- hold-out -----------------------------------------------------------------
    def _check_rows(self, indices, one_block=False):
        """(H, blocks) for validated rows H (``one_block``: all of one block) and their
        blocks (:meth:`_blocks_of`); remembered per index array by
        :class:`rlscore.core.rls.CheckedRows`, so a grid's later calls skip both."""
        H = as_index_array(indices, self.m, name="indices")
        if H.size >= self.m:
            raise ValueError("indices hold out every example; nothing is left to train on")
        if one_block:
            q = self.groups.codes[H]
            if np.any(q != q[0]):
                raise IndexError("indices must all belong to the same query; got indices "
                                 f"of {np.unique(q).size} different queries")
        return H, self._blocks_of(H)

    def _blocks_of(self, H):
        """:class:`TouchedBlocks` (blocks, position, term): the blocks H touches, each
        row's position among them, and per touched block the 1 1^T / n_q term of the hold-out formula's S (module
        docstring): +1/n_q for a block held out whole in the dual, -1/n_q for a block
        held out in part in the primal, else 0. O(h log h)."""
        gr = self.groups
        qs, pos = np.unique(gr.codes[H], return_inverse=True)
        n = gr.sizes[qs]
        whole = np.bincount(pos, minlength=qs.size) == n
        if self.kind == "primal":
            term = np.where(whole, 0.0, -1.0 / n)
        else:
            term = np.where(whole, 1.0 / n, 0.0)
        return TouchedBlocks(qs, pos, term)

    def holdout(self, indices):
        """Predictions (h, p) for the rows ``indices`` (all of one query) from the model
        retrained without them (:meth:`_holdout`): O(m r p + h^2 r + h^3) after the
        eigendecomposition; a primal model with h > d, or asked for the same rows at
        another lambda, refits in the d primal coordinates instead
        (:meth:`_primal_holdout`, :class:`rlscore.core.rls.FoldCache`: O(h d^2 + d^3)
        once per hold-out set, O(h d p) per lambda)."""
        if self._rows is None:
            self._rows = CheckedRows(lambda ind: self._check_rows(ind, one_block=True))
        return self._holdout(*self._rows(indices))

    def _holdout(self, H, blocks):
        """Predictions (h, p) for the validated rows H -- of one block or, for the query
        model, of any blocks (``blocks`` of :meth:`_blocks_of`) -- from the model
        retrained without them (and with basis removal without the basis vectors among
        them), in the first form that applies:

        1. basis vectors among H to remove: the constrained primal refit
           (:meth:`_holdout_removing`);
        2. a primal model whose hold-out is cheaper, or cached, as a refit
           (:meth:`rlscore.core.rls.FoldCache.use_primal`, i.e.
           :func:`rlscore.core.rls.prefer_primal_fold` or a revisited set):
           :meth:`_primal_holdout`;
        3. the hold-out formula of the module docstring (:meth:`_holdout_side`).
        """
        if self.remove_basis:
            out = self._holdout_removing(H)
            if out is not None:
                return out
        elif self._folds is not None:
            parts = self._folds.cached(H)           # a refit asked for again: O(h)
            if parts is not None:
                return primal_fold_predictions(parts, self._mu(self.regparam, H.size))
        if self.kind == "primal" and self._fold_cache().use_primal(
                H, self.solver.K.shape[0]):
            return self._primal_holdout(H)
        return self._holdout_side(H, blocks)

    def _fold_cache(self):
        if self._folds is None:
            self._folds = FoldCache()
        return self._folds

    def _holdout_side(self, H, blocks):
        """The hold-out formula of the module docstring for rows H of any blocks:
        O(m r p + h^2 r + h^3) per lambda (the first term once per lambda)."""
        qs, pos, term = blocks
        h = H.size
        mu = self._mu(self.regparam, h)
        w, Pr, F = self._state(mu)
        parts = self._parts()
        U, s2, Yf = parts.U, parts.s2, parts.block_means
        UH = U[H]
        S = (UH * (mu * w)) @ UH.T
        if self.kind == "primal":
            # M_HH gains (P - U U^T)_HH; the whole blocks' offsets cancel its 1 1^T / n_q
            S += np.eye(h) - UH @ UH.T
        if qs.size == 1:
            S += term[0]
        else:
            S += np.where(pos[:, None] == pos[None, :], term[pos][None, :], 0.0)
        N = (UH * (s2 * w)) @ UH.T
        X = self._solve_small(S, Pr[H])
        T = (Yf[qs] * w) @ UH.T                          # (touched, h): t_q[H]
        TX = T @ X
        return F[H] - N @ X - (TX if qs.size == 1 else TX[pos])

    # -- cross-validation that removes held-out basis vectors -------------------
    def _holdout_removing(self, H):
        """Predictions for the rows H from the sparse RankRLS model retrained without
        them and without the basis vectors among them (None when H holds no basis
        vector whose removal changes the model). The removal is the constraint
        N^T w = 0 in the full map's coordinates (N of
        :meth:`rlscore.core.nystrom.NystromMap.removal_directions`, cached per hold-out
        set, :func:`rlscore.core.nystrom.held_out_directions`), applied by
        :meth:`_primal_holdout`: O((h + t) r^2 + r^3) once per hold-out
        set, then O(r^2 k + h r p) per lambda (k removed directions)."""
        rep = self.representation
        N, = self._fold_cache().get(
            H, lambda: (held_out_directions(rep.nystrom, rep.basis_indices, H),), b"N")
        if N.shape[1] == 0:
            return None
        return self._primal_holdout(H, N)

    def _fold_system(self, H):
        """(C, b, Phi_H): the centred Gram matrix and right-hand side of the rows
        outside H in the primal coordinates (no regularization) and the features of H,
        for rows H of any blocks (the module docstring, the feature side): by a
        downdate of the centred system, O((h + t) r^2) for t touched blocks, or from
        the remaining rows when they are fewer, O((m - h) r^2)."""
        gr = self.groups
        PhiH = _dense_rows(self._Phi, H)
        if self.m - H.size < H.size:
            keep = np.ones(self.m, dtype=bool)
            keep[H] = False
            rows = np.flatnonzero(keep)
            R = _dense_rows(self._Phi, rows)
            sub = QueryGroups.from_qids(gr.codes[rows])
            R = np.ascontiguousarray(R - sub.expand(sub.mean(R)))
            return gram_matrix(R), R.T @ self.Y[rows], PhiH
        qs, pos = np.unique(gr.codes[H], return_inverse=True)
        Pc = np.ascontiguousarray(PhiH - self._Phibar[gr.codes[H]])
        n_new = gr.sizes[qs] - np.bincount(pos, minlength=qs.size)
        part = n_new > 0
        # per touched block: the sums of its held-out centred rows and of its remaining
        # labels; a block held out whole adds nothing (its centred rows sum to 0)
        E = sp.csr_matrix((np.ones(H.size), (pos, np.arange(H.size))),
                          shape=(qs.size, H.size))
        s = np.asarray(E @ Pc)[part]
        YH = self.Y[H]
        ty = (self._Ybar[qs] * gr.sizes[qs][:, None] - E @ YH)[part]
        sn = s.T / n_new[part]
        C = self.solver.K - gram_matrix(Pc) - sn @ s
        b = self.solver.Y - Pc.T @ YH + sn @ ty
        return symmetrize(C), b, PhiH

    def _primal_holdout(self, H, N=None):
        """Predictions for the rows H from the primal refit without them (and, with N,
        under the basis-removal constraint N^T w = 0): the centred Gram matrix of the
        rest (:meth:`_fold_system`) eigendecomposed once per hold-out set (cached),
        then O(h r p) per lambda (:func:`rlscore.core.rls.primal_fold_predictions`)."""
        parts = self._fold_cache().get(
            H, lambda: primal_fold_parts(*self._fold_system(H), N),
            b"" if N is None else b"R")
        return primal_fold_predictions(parts, self._mu(self.regparam, H.size))

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
            return np.linalg.solve(M, R)        # small: numpy's call overhead is least
        except (np.linalg.LinAlgError, ValueError):
            raise SingularRegparamError("the hold-out problem is singular (regparam=0 "
                                        "with too few remaining examples)") from None


def _dense_rows(Phi, rows):
    R = Phi[rows]
    return R.toarray() if sp.issparse(R) else np.asarray(R, dtype=np.float64)
