"""Reduced-set RankRLS with many centres by preconditioned CG: the centred operators of
global and query RankRLS on the streamed kernel blocks of
:class:`rlscore.core.nystrom.StreamedGramOperator` (Falkon's solver, Rudi, Carratino &
Rosasco, NeurIPS 2017, Algorithm 1, with the Laplacian of RankRLS between the two kernel
products).

The problems are those of :class:`rlscore.core.nystrom.StreamedReducedSet` ("query",
"global"):

* query: (Phi^T P Phi + lambda I) w = Phi^T P Y, P = I - sum_q 1_q 1_q^T / n_q the
  per-query centring (:class:`rlscore.core.structure.QueryGroups`, the one home of the
  query structure). A block holds whole queries
  (:func:`rlscore.core.structure.query_blocks`), so P is block diagonal over the blocks
  and each block contributes K_b^T P_b (K_b T V): the per-query means of the b x l
  products, O(b l).
* global: L = m I - 1 1^T = m P_c, and the r x r problem is
  (Phi^T P_c Phi + (lambda / m) I) w = Phi^T P_c Y. The global mean of U = K T V is
  known before the pass, u_bar = c^T T V with c the mean kernel row (summed in the
  pass of the right-hand side), so each block contributes
  (K_b - 1 c^T)^T (U_b - 1 u_bar^T) = K_b^T (U_b - 1 u_bar^T) - c 1^T (U_b - 1 u_bar^T):
  both factors centred, no cancellation between large sums.

The preconditioner
------------------
Falkon's estimate of Phi^T Phi from the k basis rows, (m / k) C^T C (Phi_R = C), has
an unbiased counterpart for the centred problem: P Phi's rows are phi_i - g_i (g_i the
mean feature row of the centring group of row i), so

    Phi^T P Phi = sum_i (P Phi)_i (P Phi)_i^T ~ (m / k) (C - G)^T (C - G),

G the rows g_i of the basis rows: the global mean feature row phi_bar for "global"
(a rank-2 update of C^T C: U = [C^T 1, phi_bar], D = [[0, -1], [-1, k]]), and the
means of the basis rows' own queries for "query" (rank 2 q_R for q_R queries holding
basis rows: with J the basis rows' query indicator, F the queries' mean features and
H = C^T J, (C - J F)^T (C - J F) = C^T C + [H, F^T] [[0, -I], [-I, J^T J]] [H, F^T]^T,
added q_R / 256 chunks at a time). The query means of the basis rows' queries are
accumulated in the pass of the right-hand side (O(q_R r) memory).

What was chosen, and why (``benchmarks/bench_pcg.py``, m = 10 000 rows in queries of
20 whose features carry a strong query offset, r = 500, iterations to a relative
residual of 1e-6 at lambda = 1e-3 / 0.1 / 10):

* global: the centred preconditioner, 54 / 54 / 54 iterations against 72 / 72 / 72
  without (mu = lambda / m is tiny, so the counts do not move with lambda). It is the
  default.
* query: the centred preconditioner took 104 / 82 / 15 iterations, the uncentred
  (m / k) C^T C + mu I 69 / 63 / 20, and none 60 / 54 / 17 (a dense check at
  m = 6000, k = 300: none 47 / 43 / 15, centred 79 / 65 / 15, uncentred 57 / 53 / 19,
  a scalar-rescaled uncentred one 57 / 52 / 16, an independent sample of k rows
  288 / 77 / 13). Falkon's estimate rests on the basis rows being the rows of C; the
  query centring takes away the between-query directions that dominate C^T C, and the
  preconditioned spectrum spreads. So ``precondition="auto"`` is no preconditioner for
  "query" (the features are already whitened by C^{-T}, Falkon's first factor), and
  ``precondition="nystrom"`` gives the centred one, which may pay off when the query
  means carry little of the variance (without ``basis_indices`` it falls back to the
  uncentred one).

Costs: as :class:`rlscore.core.nystrom.StreamedGramOperator` plus O(b l) per block for the
centring; the preconditioner O(2 k^3 / 3 + k^2 q_R).
"""

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from rlscore.core.nystrom import (StreamedGramOperator, pcg_select, run_pcg, select_basis,
                                  streamed_fit)
from rlscore.core.structure import (ArraySource, QueryGroups, as_source,
                                    contiguous_queries)

__all__ = ["CenteredGramOperator", "pcg_rankrls", "pcg_select_rankrls",
           "streamed_rank_fit", "CENTRED_KINDS"]

CENTRED_KINDS = ("query", "global")
_CHUNK = 256


class CenteredGramOperator(StreamedGramOperator):
    """V -> Phi^T P Phi V + mu V for query ("query") or global ("global") RankRLS,
    streamed (module docstring).

    Parameters
    ----------
    source, fmap, block_size, cache, dtype, rows, threads : of
        :class:`rlscore.core.nystrom.StreamedGramOperator` (``rows`` must hold whole
        queries for "query")
    kind : "query" (default) or "global"
    basis_indices : (r,) the source rows of the basis vectors (the centred
        preconditioner of "query" needs their queries), optional

    Notes
    -----
    ``matvec`` O(m r l) cached or O(m r (d + l)) recomputed, plus O(m l) for the
    centring; ``rhs`` one pass, which also sums the mean kernel row ("global") or the
    kernel means of the basis rows' queries ("query", O(q_R r) memory).
    """

    def __init__(self, source, fmap, kind="query", basis_indices=None, **options):
        super().__init__(source, fmap, **options)
        if kind not in CENTRED_KINDS:
            raise ValueError(f"kind must be one of {CENTRED_KINDS}, got {kind!r}")
        self.kind = kind
        q = self.source.qids
        if kind == "query":
            if q is None:
                raise ValueError("QueryRankRLS needs qids")
            contiguous_queries(q)
            if self.rows is not None:
                groups = QueryGroups.from_qids(q)
                frac = groups.mean(self.rows.astype(np.float64))
                if np.any((frac > 0) & (frac < 1)):
                    raise ValueError("rows must hold whole queries")
        self.basis_indices = None
        if basis_indices is not None:
            idx = np.asarray(basis_indices, dtype=np.intp)
            if idx.shape != (self.factors.n_basis,):
                raise ValueError(f"basis_indices must hold {self.factors.n_basis} rows")
            self.basis_indices = idx
        self._mean_row = None
        self._query_means = None

    @property
    def default_preconditioner(self):
        """"nystrom" (the centred one) for "global"; None for "query", where every
        Nystrom variant measured cost iterations (module docstring)."""
        return "nystrom" if self.kind == "global" else None

    def effective_regparam(self, regparam):
        """lambda / m for the global centring (L = m P_c), lambda for queries."""
        return regparam / self.m if self.kind == "global" else regparam

    # -- right-hand side -----------------------------------------------------------
    def rhs(self):
        Y = self.source.Y if self.rows is None else self.source.Y[self.rows]
        self._ybar = Y.mean(axis=0)
        self._ksum = np.zeros(self.factors.n_basis)
        self._qpos = None
        if self.kind == "query" and self.basis_indices is not None:
            used = self.basis_indices[self.factors.order[:self.factors.n_features]]
            ids, self._basis_query = np.unique(self.source.qids[used],
                                               return_inverse=True)
            self._qpos = {qid: j for j, qid in enumerate(ids.tolist())}
            self._query_means = np.zeros((ids.size, self.factors.n_basis))
        out = super().rhs()
        self._mean_row = self._ksum / self.m
        return out

    def _block_rhs(self, idx, Kb):
        """(K_b^T P_b Y_b, the block's kernel column sums, the kernel means of the
        basis rows' queries in it or None): read only, the fold is :meth:`_add_rhs`."""
        Y = self.source.Y[idx]
        ksum = Kb.sum(axis=0, dtype=np.float64)
        if self.kind == "global":
            return Kb.T @ (Y - self._ybar).astype(Kb.dtype), ksum, None
        groups = QueryGroups.from_qids(self.source.qids[idx])
        means = None
        if self._qpos is not None:
            pos = np.array([self._qpos.get(g, -1) for g in groups.ids.tolist()])
            hit = pos >= 0
            if hit.any():
                means = (pos[hit], groups.mean(Kb)[hit])
        return Kb.T @ groups.center(Y).astype(Kb.dtype), ksum, means

    def _add_rhs(self, acc, part):
        contribution, ksum, means = part
        acc += contribution
        self._ksum += ksum
        if means is not None:
            self._query_means[means[0]] = means[1]

    # -- products ------------------------------------------------------------------
    def _begin_product(self, TV):
        if self._mean_row is None:
            raise RuntimeError("the right-hand side pass (rhs) must come first")
        self._ubar = (self._mean_row @ TV).astype(TV.dtype)

    def _block_product(self, idx, Kb, TV):
        U = Kb @ TV
        if self.kind == "global":
            U -= self._ubar
            return Kb.T @ U - np.outer(self._mean_row, U.sum(axis=0))
        groups = QueryGroups.from_qids(self.source.qids[idx])
        return Kb.T @ groups.center(U).astype(Kb.dtype)

    # -- preconditioner --------------------------------------------------------------
    def preconditioner_updates(self):
        """(U, D) of (C - G)^T (C - G) - C^T C (module docstring)."""
        f = self.factors
        k = f.n_features
        if self.kind == "global":
            phibar = f.apply_Tt(self._mean_row)
            U = np.column_stack([f.column_sums(), phibar])
            yield U, np.array([[0.0, -1.0], [-1.0, float(k)]])
            return
        if self._query_means is None:
            return
        nq = self._query_means.shape[0]
        for j0 in range(0, nq, _CHUNK):
            j1 = min(nq, j0 + _CHUNK)
            c = j1 - j0
            members = np.flatnonzero((self._basis_query >= j0) & (self._basis_query < j1))
            J = np.zeros((members.size, c))
            J[np.arange(members.size), self._basis_query[members] - j0] = 1.0
            H = f.basis_rows(members).T @ J                       # C^T J, (k, c)
            Ft = f.apply_Tt(self._query_means[j0:j1].T)           # (k, c)
            D = np.zeros((2 * c, 2 * c))
            D[:c, c:] = D[c:, :c] = -np.eye(c)
            D[c:, c:] = np.diag(J.sum(axis=0))
            yield np.hstack([H, Ft]), D


def pcg_rankrls(source, fmap, regparam, kind="query", *, pcg=None, x0=None,
                operator=None, **operator_options):
    """Weights W (k, p) of reduced-set query or global RankRLS by preconditioned CG
    (module docstring; Rudi et al. 2017, Alg. 1).

    Parameters
    ----------
    source : data source with qids for "query" (contiguous queries)
    fmap : :class:`rlscore.core.nystrom.NystromFactors` (or ``NystromFeatureMap``)
    regparam : float > 0 (lambda; the global kind solves with lambda / m)
    kind : "query" or "global"
    pcg : :class:`rlscore.core.nystrom.PCGOptions` (``rtol``, ``maxiter``,
        ``precondition`` -- "auto": the centred Nystrom preconditioner for "global",
        none for "query" -- and ``callback``; default: PCG's defaults)
    x0 : the starting point (warm start), optional
    operator : a :class:`CenteredGramOperator` to reuse across lambdas; else one is
        built from ``operator_options`` (basis_indices: the basis rows in the source,
        for the centred preconditioner; block_size, cache, dtype, rows, threads)

    Returns
    -------
    SolverResult (``solution`` W, extras ``operator``, ``preconditioner``)

    Notes
    -----
    O(2 k^3 / 3 + k^2 q_R) for the preconditioner, then per iteration one streamed
    product, O(m r l) cached or O(m r (d + l)) recomputed.
    """
    op = operator if operator is not None else CenteredGramOperator(
        source, fmap, kind, **operator_options)
    return run_pcg(op, regparam, pcg, x0)


def pcg_select_rankrls(source, fmap, regparams, kind="query", *, basis_indices=None,
                       block_size=None, cache="auto", dtype=np.float64, **options):
    """lambda of PCG query / global RankRLS chosen on a validation split (whole queries
    for "query") or K-fold, warm-started along the decreasing grid:
    :func:`rlscore.core.nystrom.pcg_select` with the centred operators.

    Parameters
    ----------
    source, fmap, regparams, kind, basis_indices : of :func:`pcg_rankrls`
    block_size, cache, dtype : of the operators
    options : select, pcg, refit of :func:`rlscore.core.nystrom.pcg_select`

    Returns
    -------
    :class:`rlscore.core.nystrom.PCGSelection`

    Notes
    -----
    Cost as :func:`rlscore.core.nystrom.pcg_select`.
    """
    if kind not in CENTRED_KINDS:
        raise ValueError(f"kind must be one of {CENTRED_KINDS}, got {kind!r}")

    def make_operator(rows):
        return CenteredGramOperator(source, fmap, kind, basis_indices=basis_indices,
                                    block_size=block_size, cache=cache, dtype=dtype,
                                    rows=rows)
    return pcg_select(source, fmap, regparams, make_operator=make_operator, kind=kind,
                      **options)


def _centred_factory(kind):
    def make(source, factors, basis_indices, block_size, rows, dtype=np.float64,
             cache="auto"):
        return CenteredGramOperator(source, factors, kind, basis_indices=basis_indices,
                                    block_size=block_size, rows=rows, dtype=dtype,
                                    cache=cache)
    return make


def streamed_rank_fit(source, kernel="GaussianKernel", kernel_params=None, kind="query",
                      **options):
    """:func:`rlscore.core.nystrom.streamed_fit` for every kind, with the centred PCG
    operators of this module for ``solver="pcg"`` and kind "query" / "global" (the
    driver the faces call; ``options`` those of ``streamed_fit``). In-memory rows
    (ndarray, CSR) whose queries are not contiguous are grouped by query first (the
    model is the same; ``basis_indices``, fold numbers and ``cv_predictions`` keep
    the caller's row order); a file or memmap must come grouped.

    Returns
    -------
    :class:`rlscore.core.nystrom.StreamedFit`

    Notes
    -----
    Costs of :func:`rlscore.core.nystrom.streamed_fit`; PCG per iteration
    O(m r (d + l)) recomputed, plus O(2 k^3 / 3 + k^2 q_R) per lambda for the
    preconditioner.
    """
    factory = _centred_factory(kind) if kind in CENTRED_KINDS else None
    source = as_source(source)
    if kind == "query" and source.qids is not None and _scattered(source):
        return _grouped_fit(source, kernel, kernel_params, factory, options)
    return streamed_fit(source, kernel, kernel_params, kind,
                        operator_factory=factory, **options)


def _scattered(source):
    """True for an in-memory source whose queries are not contiguous (regrouped by
    :func:`_grouped_fit`); other sources must come grouped."""
    try:
        contiguous_queries(source.qids)
        return False
    except ValueError:
        if not isinstance(source, ArraySource) or not (
                isinstance(source.X, np.ndarray) and not isinstance(source.X, np.memmap)
                or sp.issparse(source.X)):
            raise
        return True


def _grouped_fit(source, kernel, kernel_params, factory, options):
    """Query RankRLS on in-memory rows whose queries are scattered: the rows grouped
    by query (:attr:`QueryGroups.order`, a stable sort), which changes nothing in the
    model; the basis indices, fold numbers and held-out predictions mapped between the
    two orders. O(m log m) plus a copy of X."""
    groups = QueryGroups.from_qids(source.qids)
    o = groups.order
    inv = np.empty_like(o)
    inv[o] = np.arange(o.size)
    opts = dict(options)
    idx = select_basis(source.m, opts.pop("basis_indices", None),
                       opts.pop("n_basis", None), opts.get("random_state"))
    select = opts.get("select")
    cv = None if select is None else select.cv
    if cv is not None and not isinstance(cv, (str, int, np.integer)):
        cv = np.asarray(cv).ravel()
        if cv.size == source.m:
            opts["select"] = replace(select, cv=cv[o])
    grouped = ArraySource(source.X[o], source.Y[o], qids=groups.codes[o])
    fit = streamed_fit(grouped, kernel, kernel_params, "query",
                       basis_indices=None if idx is None else np.sort(inv[idx]),
                       operator_factory=factory, **opts)
    fit.basis_indices = idx
    if fit.cv_predictions is not None:
        fit.cv_predictions = fit.cv_predictions[inv]
    return fit
