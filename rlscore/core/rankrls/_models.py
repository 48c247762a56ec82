"""RankRLS: regularized least-squares ranking through the Laplacian of a preference graph.

Pahikkala, Tsivtsivadze, Airola, Järvinen and Boberg, "An efficient algorithm for
learning to rank from preference graphs", Machine Learning 75(1):129-165, 2009.

Three models, all returning 2-D arrays (the learners of :mod:`rlscore.learner` squeeze):

* :class:`GlobalRankRLSModel` -- one ranking over all examples, the magnitude-preserving
  pairwise least squares  sum_{i<j} ((y_i - y_j) - (f_i - f_j))^2 + lambda ||f||^2,
  i.e. the Laplacian L = m I - 1 1^T of the complete graph;
* :class:`QueryRankRLSModel` -- pairs only within a query, with RLScore's per-query
  centering Laplacian L = I - sum_q 1_q 1_q^T / n_q (a pair of query q weighs 1/n_q);
* :class:`rlscore.core.rankrls.PPRankRLSModel` -- explicit preference pairs (a
  multigraph, edge weights and the three cost functions of the paper).

:mod:`rlscore.core.rankrls` also holds :class:`RankLPOCV` (the leave-pair-out
cross-validator of the global model), :func:`preference_pairs` and :func:`lpo_cindex`.

Where the parts live: the block-centred model both share (construction, training,
hold-out, and the algebra behind them) in :mod:`rlscore.core.rankrls`; the
rotated dual solver and the primal Gram matrices in :mod:`rlscore.core.rankrls`;
this module adds what differs: leave-one-out and leave-pair-out of the global model,
leave-query-out of the query model.
"""

from typing import NamedTuple

import numpy as np
from scipy.linalg import blas

from rlscore._blocks import block_elements
from rlscore._ext import _lpo
from rlscore.core.structure import QueryGroups, as_query_groups
from rlscore.core.rankrls._centered import CenteredRankModel
from rlscore.core.rankrls._solver import RotatedSolver, gram_matrix  # noqa: F401
from rlscore.core.optim import SingularRegparamError
from rlscore.core.rls import CheckedRows
from rlscore.core.nystrom import n_rows, remove_basis_from_pairs
from rlscore._validation import as_index_array, check_index_pairs
from rlscore._validation import check_peak_memory

__all__ = ["GlobalRankRLSModel", "QueryRankRLSModel", "gram_matrix", "query_groups"]


def query_groups(qids, m):
    """The queries of a query-structured RankRLS model: a
    :class:`rlscore.core.structure.QueryGroups` from the ids (or the one given, checked
    against ``m``); refused when ``qids`` is None -- the one check of every query
    RankRLS face and model. O(m log m)."""
    if qids is None:
        raise ValueError("qids is None: ranking within queries needs one query id "
                         "per example (for one ranking over all examples use "
                         "GlobalRankRLS)")
    return as_query_groups(qids, m)

_CACHE = 1 << 24          # elements of lambda-independent blocks kept between calls


class QueryChunk(NamedTuple):
    """k queries of n rows each, stacked for leave-query-out (module docstring of
    :mod:`rlscore.core.rankrls._centered`: U_q the rows of U of query q)."""
    start: int                   # first and
    stop: int                    # past-the-last position in the batch's query codes
    rows: np.ndarray             # (k, n) row indices
    U_blocks: np.ndarray         # (k, n, r) the U_q, or None when not kept
    primal_part: np.ndarray      # (k, n, n) I - U_q U_q^T (primal), else None
    UUt: np.ndarray              # (k, n, n) U_q U_q^T when the blocks are kept, else None


class QueryBatch(NamedTuple):
    """The queries of one size n: their codes and their chunks (None: the queries a
    primal model refits in the primal, n > d)."""
    size: int
    queries: np.ndarray
    chunks: list


class GlobalRankRLSModel(CenteredRankModel):
    """Global RankRLS: min (Y - f)^T (m I - 1 1^T)(Y - f) + lambda ||f||^2.

    Parameters
    ----------
    X, kernel, basis_vectors, kernel_params : see
        :func:`rlscore.core.nystrom.build_representation` (pass bias=0 for the
        RLScore convention; a bias feature has no effect on a ranking anyway).
    Y : labels (m,) or (m, p); each column is ranked separately.
    regparam : float >= 0
    decompose_now : eigendecompose at once (a lambda path or cross-validation will
        follow) instead of one Cholesky factorization.

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
                 decompose_now=False, prefer="auto", **kernel_params):
        m = n_rows(X)
        groups = QueryGroups.single(m)
        self._build(X, Y, regparam, kernel, basis_vectors, groups, decompose_now,
                    dict(kernel_params, prefer=prefer))

    def leave_one_out(self):
        """Leave-one-out predictions (m, p), each from the model trained on the other
        m - 1 examples (L of size m - 1). O(m r p) after the eigendecomposition."""
        if self.m < 2:
            raise ValueError("leave-one-out needs at least 2 examples")
        mu = self._mu(self.regparam, 1)
        w, Pr, F = self._state(mu)
        parts = self._parts()
        U2 = self._U2()
        mdiag = U2 @ (mu * w)
        if self.kind == "primal":
            mdiag = mdiag + parts.qdiag
        if np.any(mdiag <= 0):
            raise SingularRegparamError("leave-one-out is undefined at regparam=0 here")
        X = Pr / mdiag[:, None]
        shift = U2 @ (parts.s2 * w) + parts.U @ (w * parts.block_means[0])
        P = F - shift[:, None] * X
        if self.remove_basis:
            P = self._basis_rows_removing(P)
        return P

    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        """Exact leave-pair-out: for pair k, the predictions for its two examples from
        the model trained without both (L of size m - 2). Returns two (n_pairs, p)
        arrays. O(p) per pair after an O(m^3) (dual) / O(m r) (primal) setup. With
        basis removal (a known basis, ``keep_basis_in_cv=False``) a pair holding a
        basis vector is retrained without it as well, like ``holdout``: O(r^3) for
        each such pair (one Cholesky in the map's coordinates)."""
        s, e = check_index_pairs(pairs_start_inds, pairs_end_inds, self.m)
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
        self._lpo_fast(s, e, mu, offconst, out_s, out_e)
        if self.remove_basis:
            remove_basis_from_pairs(self.representation.basis_indices, self.m, s, e,
                                    out_s, out_e, self._holdout_removing)
        return out_s, out_e

    def _lpo_fast(self, s, e, mu, offconst, out_s, out_e):
        """The pair formula (basis vectors kept) into out_s, out_e."""
        if self.kind == "primal":
            w, Pr, F = self._state(mu)
            parts = self._parts()
            U, s2, Yf, qdiag = parts.U, parts.s2, parts.block_means, parts.qdiag
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
            parts = self._parts()
            U, s2, Yf = parts.U, parts.s2, parts.block_means
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
                raise SingularRegparamError("leave-pair-out at regparam=0 needs the "
                                            "eigendecomposition")
            x = self.solver.solve_cholesky(mu)
            A = gr.reflect_rows(x.copy())
            Pr = np.ascontiguousarray(mu * A)            # P(Y - F) = mu P G_c P Y
            F = (self.PY - Pr) + self._Kbar @ A
            G = self.solver.inverse(mu, keep=False)
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


class QueryRankRLSModel(CenteredRankModel):
    """Query-structured RankRLS: pairs only within a query, L = I - sum_q 1_q 1_q^T/n_q.

    The parameters are those of :class:`GlobalRankRLSModel`, and the query ids.

    Parameters
    ----------
    qids : sequence of hashable (m,), or QueryGroups
        One query id per row (grouped by equal value), or a
        :class:`rlscore.core.structure.QueryGroups` built once by the caller. Queries of
        one item are allowed; they contribute no pairs.

    Notes
    -----
    Training costs as for :class:`GlobalRankRLSModel`, plus O(m) for the queries.
    ``holdout`` of one query (or part of one) O(m r p + h^2 r + h^3) after the
    eigendecomposition; ``holdout_rows`` of several queries (a fold of K-fold by query)
    O(m r p + h^2 r + h^3) per lambda, or for a primal / Nystrom model with large folds
    O(h k p) per lambda after O((h + t) k^2 + k^3) once per fold (t touched queries);
    ``leave_query_out`` all queries O(m r p + sum_q n_q^2 r + n_q^3)
    per lambda, i.e. O(m^2 n_max) (dual, r = m - #queries) or O(m n_max d) (primal),
    n_max the size of the largest query; a primal model refits a query of n_q > d rows
    in the primal instead (O(n_q d^2 + d^3) once, O(n_q d p) per lambda), and
    ``holdout`` of h > d rows likewise.
    """

    _global = False

    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 decompose_now=False, prefer="auto", **kernel_params):
        groups = query_groups(qids, n_rows(X))
        self.qids = groups.codes
        self._build(X, Y, regparam, kernel, basis_vectors, groups, decompose_now,
                    dict(kernel_params, prefer=prefer))

    @property
    def qidlist(self):
        """The row indices of each query, a list of lists of int (RLScore's
        attribute; built on first use, O(m))."""
        return self.groups.member_lists()

    def holdout_rows(self, indices):
        """Predictions (h, p) for the rows ``indices`` -- any rows: several whole
        queries (a fold of K-fold cross-validation by query), parts of queries, or both
        -- from the model retrained without them; with basis removal (Nystrom basis
        rows, ``keep_basis_in_cv=False``) also without the basis vectors among them.

        The exact hold-out of :class:`CenteredRankModel` for rows of several blocks
        (:mod:`rlscore.core.rankrls`: eq. 33 of Pahikkala et al. 2009 in the centred
        form, one term per touched query; or, for primal and Nystrom models, the refit
        of the centred Gram matrix downdated per touched query, which removes basis
        vectors as a constraint). The lambda-independent parts of each set of rows are
        kept between calls (:class:`rlscore.core.rls.FoldCache`), so the folds of a
        grid search are prepared once.

        Raises
        ------
        ValueError, IndexError
            Bad indices (:func:`rlscore._validation.as_index_array`), every row held
            out, every basis vector held out (with basis removal), or a singular
            problem at regparam 0.

        Notes
        -----
        Per lambda, h = len(indices): O(m r p + h^2 r + h^3) (dual: r ~ m), or -- primal
        and Nystrom models whose refit is cheaper
        (:func:`rlscore.core.rls.prefer_primal_fold`, or a fold revisited at another
        lambda) and folds whose basis vectors are removed -- O(h k p) (+ O(k^2 b + b^3)
        for b removed directions) after O((h + t) k^2 + k^3) once per fold, t the
        touched queries.
        """
        rows = self.__dict__.get("_any_rows")
        if rows is None:
            rows = self._any_rows = CheckedRows(self._check_rows)
        return self._holdout(*rows(indices))

    def leave_query_out(self):
        """Predictions for every query from the model trained without it: a list (one
        per query, first-appearance order) of (n_q, p) arrays: views of
        :meth:`leave_query_out_rows` split by
        :meth:`rlscore.core.structure.QueryGroups.per_query`. O(sum_q n_q^2 r + n_q^3)
        per call, as :meth:`leave_query_out_rows`."""
        return self.groups.per_query(self.leave_query_out_rows())

    def leave_query_out_rows(self):
        """Leave-query-out predictions (m, p) in row order: row i from the model
        trained without the query of row i.

        The hold-out formula of :mod:`rlscore.core.rankrls` for whole queries, batched
        over the queries of equal size n: stacked (k, n, n) systems, one
        ``np.linalg.solve`` per chunk (chunked to bound the temporaries), no Python
        loop over queries. The lambda-independent blocks U_q (and, primal, U_q U_q^T)
        are kept between calls when they take at most ``_CACHE`` elements. A primal
        model refits the queries of n > d rows in the d primal coordinates instead
        (:meth:`_primal_holdout`: O(n d^2 + d^3) once per query, O(n d p) per
        lambda); with basis removal the queries holding basis rows are refitted
        without them (:meth:`_holdout_removing`).

        Notes
        -----
        O(m r p + sum_q n_q^2 r + n_q^3) per call: O(m^2 n_max) (dual,
        r = m - #queries) or O(m n_max d) (primal), n_max the size of the largest
        query; 10^5 queries of two rows with d = 10 take a few stacked array
        operations of 10^5 x 2 x 10 elements.
        """
        gr = self.groups
        gr.require_several()
        if isinstance(self.solver, RotatedSolver):
            check_peak_memory("lqo", self.m, what=f"leave-query-out on {self.m} examples")
        mu = self._mu(self.regparam)
        w, Pr, F = self._state(mu)
        parts = self._parts()
        U, s2, Yf = parts.U, parts.s2, parts.block_means
        out = np.empty_like(F)
        mw = mu * w
        nw = s2 * w
        wY = w * Yf                                            # (g, r)
        for n, qs, chunks in self._batches():
            if chunks is None:
                # queries larger than the primal dimension: refit in the primal
                # (O(n d^2 + d^3) per query once, then O(n d p) per lambda)
                for q in qs:
                    rows = np.ascontiguousarray(gr.members(q))
                    out[rows] = self._primal_holdout(rows)
                continue
            for k0, k1, ik, UH, Qpart, G in chunks:
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
                X = self._solve_small(M, Pr[ik])               # (k, n, p)
                t = UH @ wY[qs[k0:k1]][:, :, None]             # (k, n, 1)
                out[ik] = F[ik] - N @ X - (t.transpose(0, 2, 1) @ X)
        if self.remove_basis:
            # only the queries holding basis rows change when those are removed
            for q in np.unique(gr.codes[self.representation.basis_indices]):
                rows = np.ascontiguousarray(gr.members(q))
                fresh = self._holdout_removing(rows)
                if fresh is not None:
                    out[rows] = fresh
        return out

    def _batches(self):
        """Queries grouped by size n, in chunks: a list of :class:`QueryBatch` (n,
        query codes, a list of :class:`QueryChunk`), the chunk list None for the
        queries that a primal model refits in the primal: n > d, where the n x n block outgrows the d x d refit (a batch has no
        per-call overhead to amortize, unlike one hold-out,
        :func:`rlscore.core.rls.prefer_primal_fold`). O(m) index work, plus
        O(sum_q n_q^2 r) for the kept blocks."""
        if getattr(self, "_batch_cache", None) is not None:
            return self._batch_cache
        gr = self.groups
        U = self._parts().U
        r = U.shape[1]
        keep_blocks = self.m * r <= _CACHE
        batches = []
        for n in np.unique(gr.sizes):
            n = int(n)
            qs = np.flatnonzero(gr.sizes == n)
            if self.kind == "primal" and n > self.solver.K.shape[0]:
                batches.append(QueryBatch(n, qs, None))
                continue
            idx = gr.order[gr.starts[qs][:, None] + np.arange(n)]     # (queries, n)
            step = max(1, block_elements() // max(1, n * r))
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
                chunks.append(QueryChunk(k0, k1, ik, UH, Qpart, G))
            batches.append(QueryBatch(n, qs, chunks))
        self._batch_cache = batches
        return batches
