"""Survival RankRLS: RankRLS on Harrell's comparability graph, and its exact hold-out.

Risk scores are "higher risk = earlier event". The model is the preference-graph
RankRLS of Pahikkala et al. (2009) on the comparability graph G of the training
outcomes (:class:`ComparabilityGraph`): every comparable pair (i, j) -- i an observed
event, t_i < t_j, or t_i == t_j with j censored -- wants f(x_i) - f(x_j) = z_ij,

    J(f) = sum_{(i,j) in G} (z_ij - f(x_i) + f(x_j))^2 + lambda ||f||^2
         = f^T L f - 2 f^T b + const + lambda ||f||^2,

with L = M M^T the Laplacian of G and b = M N (their eqs. 12-14 and 24); z = 1
(unit magnitudes, their cost (20)) by default, z_ij = t_j - t_i >= 0 with
``magnitudes=True`` (magnitude preserving, their cost (21); then b = -L t). L is applied
in O(m) after one sort (:class:`ComparabilityGraph`), never as a pair list. In the
coordinates F of :func:`rlscore.core.rankrls.laplacian_system` -- the centred features
(linear kernel or Nystrom basis vectors) or Z = V Lambda^{1/2} of the kernel matrix --
the solution is x = (F^T L F + lambda I)^{-1} F^T b, the dual solution (17) of the seed
being A = V Lambda^{-1/2} x.

Exact hold-out (the held-out rows take their edges with them)
---------------------------------------------------------------
The seed's hold-out (32)-(33) covers label ranking, where no edge joins a held-out
object to the rest, so that the held-out system is the principal block (R^{-1})_{UU}.
Here the edges cross: with H held out and R the remaining rows, the Laplacian of the
training graph of the fold is

    L_R = L_RR - diag(d_H),     d_H(k) = number of neighbours of k in H,

the principal block minus a diagonal correction, and diag(d_H) has full rank (an early
event is comparable to nearly every row), so no low-rank update of R^{-1} applies. By
Lemma 2 (eq. 34 of the seed) the held-out predictions are F_H x_H with

    x_H = (C - E_H + lambda I)^{-1} (F^T b - e_H),     C = F^T L F,

E_H = F^T L^{touch H} F and e_H = F^T b^{touch H} the contributions of the edges that
touch H. Summing the edges over their held-out ends counts the edges inside H twice:

    E_H = sum_{h in H} M_h - F_H^T L^{(H)} F_H,    e_H = sum_{h in H} d_h - F_H^T b^{(H)},

L^{(H)}, b^{(H)} the comparability graph of the held-out rows alone, and per row h
(N(h) its neighbours, s_h = sum_{k in N(h)} f_k, G_h = sum_{k in N(h)} f_k f_k^T)

    M_h = deg_h f_h f_h^T - f_h s_h^T - s_h f_h^T + G_h,
    d_h = b_h f_h - sum_{k in out(h)} z_hk f_k + sum_{k in in(h)} z_kh f_k.

In the time order N(h) is a suffix plus (for an event) the censored rows of its time,
or a prefix of the events plus (censored) the events of its time, so G_h is a running
Gram matrix: one pass over the groups of tied times gives every G_h (and the folds'
sums of them), the s_h and d_h in O(m r). Three exact methods, r the number of
coordinates F (d + 1 linear, the basis size with Nystrom, rank(K) dual):

* ``"stream"`` -- the one pass above: a few r x r updates per group of tied times
  (memory-bound), then O(size(H) r^2 + r^3) per fold (a Cholesky per lambda, or one
  eigendecomposition when there are more than 27). Leave-one-out: O(r^3) per row
  instead of O(m r^2) per refit, O(m r^3) in all.
* ``"subgraph"`` -- Lemma 2 directly: the comparability graph of the remaining rows
  applied to F_R in O(size(R) r), C_R = F_R^T L_R F_R by one GEMM, 2 size(R) r^2 flops per fold,
  the same in the primal, dual and Nystrom forms (the dual never refactors K_RR).
  K-fold: about K GEMMs of the training (2 m r^2 each), cheaper than the stream pass
  in practice (a GEMM against memory-bound updates; measured in
  benchmarks/bench_survival_rankrls.py).
* ``"refit"`` -- a plain new model on the remaining rows: the subgraph cost plus, in
  the dual, the eigendecomposition of K_RR (about 9 size(R)^3).

``method="auto"`` takes the cheapest by :func:`holdout_cost` (GEMM-flop equivalents:
the stream pass costs 96 ng r^2 for ng groups of tied times, 12 r x r updates each
weighted 8 for memory traffic), so: ``"stream"`` for leave-one-out, ``"subgraph"``
for K-fold with few folds; never ``"refit"``, which is always the most expensive.
"""

import numpy as np
import scipy.linalg as sla

from rlscore._validation import check_index_folds, check_regparam, check_regparam_grid
from rlscore.core.rankrls import LaplacianSystem, laplacian_system
from rlscore.core.rls import KernelSolver
from rlscore.core.nystrom import build_representation, n_rows
from rlscore.core.survival._graph import ComparabilityGraph

__all__ = ["SurvivalRankRLSModel", "holdout_cost"]

METHODS = ("auto", "stream", "subgraph", "refit")


def holdout_cost(m, r, fold_sizes, n_regparams=1, n_groups=None, dual=False):
    """Cost estimates of the exact hold-out predictions of folds of the given sizes, in
    GEMM-flop equivalents: a dict with ``"stream"``, ``"subgraph"`` and ``"refit"``
    (module docstring). r coordinates, ``n_regparams`` values of lambda, ``n_groups``
    groups of tied times (default m), ``dual`` when a refit eigendecomposes K_RR.
    Every method pays a factorization per fold: a Cholesky per lambda (r^3 / 3) up to
    27 lambdas, else one eigh (~9 r^3) and 2 r^2 per lambda."""
    sizes = np.asarray(fold_sizes, dtype=np.float64)
    ng = m if n_groups is None else n_groups
    fac = (n_regparams * r ** 3 / 3.0 if n_regparams <= 27
           else 9.0 * r ** 3 + n_regparams * 2.0 * r ** 2)
    rest = m - sizes
    stream = 96.0 * ng * r * r + np.sum(2.0 * sizes * r * r + fac)
    subgraph = np.sum(2.0 * rest * r * r + fac)
    refit = subgraph + (np.sum(9.0 * rest ** 3) if dual else 0.0)
    return {"stream": float(stream), "subgraph": float(subgraph), "refit": float(refit)}


def _solve_path(C, rhs, regparams):
    """x (n_lambda, r, p) of (C + lambda I) x = rhs for every lambda: a Cholesky per
    lambda (r^3 / 3 each) up to 27 lambdas, else one eigendecomposition (~9 r^3)."""
    if len(regparams) <= 27:
        eye = np.eye(C.shape[0])
        return np.stack([sla.solve(C + lam * eye, rhs, assume_a="pos")
                         for lam in regparams])
    mu, V = np.linalg.eigh(C)
    Vr = V.T @ rhs
    return np.stack([V @ (Vr / (mu + lam)[:, None]) for lam in regparams])


class SurvivalRankRLSModel:
    """RankRLS on the comparability graph of right-censored outcomes (higher risk =
    earlier event): the predictions are risk scores.

    Parameters
    ----------
    X : data (m, d), or a precomputed kernel, as for RLS.
    time : (m,) float >= 0, event or censoring times.
    event : (m,) bool or 0/1, True when the event was observed.
    regparam : float >= 0
    kernel, basis_vectors, prefer, kernel_params : as for
        :func:`rlscore.core.nystrom.build_representation` (linear primal, kernel dual, or
        the primal form on Nystrom basis vectors).
    magnitudes : bool, default False
        False: every comparable pair wants a risk difference of 1 (unit magnitudes);
        True: the time difference t_j - t_i (magnitude preserving).

    Attributes
    ----------
    graph : ComparabilityGraph
    system : LaplacianSystem (the coordinates F, C = F^T L F, rhs = F^T b)
    coef, predictor : the model for the current regparam.

    Notes
    -----
    L F in O(m r) from the time order, C in O(m r^2); primal O(m d^2 + d^3), dual
    O(m^3) for eigh(K); then every further lambda O(r^2) (one eigendecomposition of C,
    :class:`rlscore.core.rls.KernelSolver`). Equals :class:`PPRankRLSModel` on the
    enumerated comparability pairs, without their O(m^2) list.
    """

    def __init__(self, X, time, event, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, magnitudes=False, prefer="auto", **kernel_params):
        m = n_rows(X)
        self.graph = ComparabilityGraph(event, time)
        if self.graph.m != m:
            raise ValueError(f"time and event must have one entry per row of X ({m}), "
                             f"got {self.graph.m}")
        if self.graph.n_edges == 0:
            raise ValueError("the outcomes have no comparable pair (no observed event "
                             "before another time): nothing to rank")
        if not isinstance(magnitudes, (bool, np.bool_)):
            raise TypeError(f"magnitudes must be True or False, got {magnitudes!r}")
        self.m = m
        self.magnitudes = bool(magnitudes)
        b = self.graph.targets(self.magnitudes)[:, None]
        rep = build_representation(X, kernel, basis_vectors, prefer=prefer, **kernel_params)
        self.representation = rep
        self.kind = rep.kind
        self._fit_args = (X, kernel, basis_vectors, prefer, kernel_params)
        self.system = laplacian_system(rep, self.graph.apply, b)
        self.solver = KernelSolver(self.system.C, self.system.rhs)
        self.solve(regparam)

    def solve(self, regparam):
        """Train for ``regparam``: a Cholesky the first time, then (second lambda) one
        eigendecomposition of C and O(r^2) per lambda."""
        self.regparam = check_regparam(regparam)
        x = self.solver.solve(self.regparam)
        self.coef = LaplacianSystem.to_coefficients(self.system.back, x)
        self.predictor = self.representation.predictor(self.coef)
        return self

    @property
    def Y(self):
        """The training outcomes as a structured array with the fields ``event`` (bool)
        and ``time`` (float), scikit-survival's layout: what the hold-out risk scores
        are scored against (:class:`rlscore.core.survival.SurvivalCV`). O(m)."""
        Y = np.empty(self.m, dtype=[("event", bool), ("time", np.float64)])
        Y["event"], Y["time"] = self.graph.event, self.graph.time
        return Y

    # -- hold-out ----------------------------------------------------------------
    def holdout_rows(self, rows):
        """The risk scores of ``rows`` by the model trained without them and their
        pairs, at the current regparam: (len(rows), 1) (the
        :class:`rlscore.core.selection.HoldoutModel` hold-out). The cost of one fold
        of :meth:`holdout`."""
        return self.holdout([rows])[0][:, None]

    def holdout_path(self, folds, regparams):
        """The hold-out risk scores of every fold at every regparam, grouped by
        regparam: a list (one entry per regparam) of lists (one (size(H),) array per
        fold). One :meth:`holdout` call."""
        per_fold = self.holdout(folds, regparams)
        return [[p[i] for p in per_fold] for i in range(len(regparams))]

    def leave_one_out_path(self, regparams):
        """:meth:`leave_one_out` of every regparam: (len(regparams), m)."""
        return self.leave_one_out(regparams)

    def _predict_rows(self, rows, x):
        """Predictions of the training rows ``rows`` for coordinates x (n_l, r, 1)."""
        F = self.system.F[rows]
        out = np.einsum("ir,lr->li", F, x[..., 0])
        if self.system.shift is not None:
            out += x[..., 0] @ self.system.shift[:, None]
        return out

    def _row_terms(self):
        """Per row: deg_h, s_h = sum of f over N(h) (m, r) and d_h (m, r)."""
        g, F = self.graph, self.system.F
        s_out, s_in = g.neighbour_sums(F)
        b = g.targets(self.magnitudes)
        if self.magnitudes:
            t = g.time[:, None]
            o_t, i_t = g.neighbour_sums(t * F)
            d = b[:, None] * F - (o_t - t * s_out) + (t * s_in - i_t)
        else:
            d = b[:, None] * F - s_out + s_in
        return s_out + s_in, d

    def _gram_pass(self, fold_of_row, n_folds, loo_rows=None):
        """The sums over each fold's rows of G_h (n_folds, r, r) from one pass over
        the time order, O(m r^2); with ``loo_rows`` (a bool mask) yields instead the
        G_h of each marked row: (row, G_h)."""
        g, F = self.graph, self.system.F
        r = F.shape[1]
        es = g._es
        order, starts = g.order, g._starts
        ends = np.r_[starts[1:], g.m]
        total = F.T @ F
        before = np.zeros((r, r))          # Gram of the rows before the group
        ev_before = np.zeros((r, r))       # Gram of the events before the group
        acc = None if loo_rows is not None else np.zeros((n_folds, r, r))
        for a, z in zip(starts, ends):
            rows = order[a:z]
            Fg = F[rows]
            ev = es[a:z]
            Ge = Fg[ev].T @ Fg[ev]
            Gc = Fg[~ev].T @ Fg[~ev]
            after = total - before - Ge - Gc
            G_event = after + Gc + ev_before
            G_cens = ev_before + Ge
            if loo_rows is None:
                fr = fold_of_row[rows]
                for mask, G in ((ev, G_event), (~ev, G_cens)):
                    f = fr[mask]
                    f = f[f >= 0]
                    if f.size:
                        ids, cnt = np.unique(f, return_counts=True)
                        acc[ids] += cnt[:, None, None] * G
            else:
                for k in range(rows.size):
                    if loo_rows[rows[k]]:
                        yield rows[k], (G_event if ev[k] else G_cens)
            before += Ge + Gc
            ev_before += Ge
        if loo_rows is None:
            yield acc

    def _exact_parts(self, h, S, D):
        """sum_{h in H} M_h without the G_h and sum_{h in H} d_h, O(size(H) r^2)."""
        F = self.system.F[h]
        deg = self.graph.degree[h].astype(np.float64)
        FS = F.T @ S[h]
        return (F * deg[:, None]).T @ F - FS - FS.T, D[h].sum(axis=0)

    def holdout(self, folds, regparams=None, method="auto"):
        """Exact hold-out predictions: for every fold, the risk scores of its rows by
        the model trained on the other rows with the comparability graph of those rows
        alone (the held-out rows' edges removed).

        Parameters
        ----------
        folds : list of index sequences (disjoint within a fold; folds may overlap).
        regparams : sequence of floats, optional (default: the model's regparam).
        method : "auto" (the cheapest by :func:`holdout_cost`), "stream", "subgraph"
            or "refit" (module docstring); all exact.

        Returns
        -------
        list of ndarrays, one per fold: (size(H),) for the default regparam, else
        (len(regparams), size(H)).

        Notes
        -----
        See the module docstring: stream O(ng r^2 + sum_H (size(H) r^2 + r^3)), subgraph
        O(sum_H (size(R) r^2 + r^3)), refit that plus O(size(R)^3) per fold in the dual.
        """
        # each fold is its own hold-out set with its own predictions: folds may
        # overlap (holdout_cindex's pooled C refuses overlap)
        folds = check_index_folds(folds, self.m, disjoint=False)
        single = regparams is None
        lams = [self.regparam] if single else check_regparam_grid(regparams)
        lams = [float(v) for v in lams]
        method = self._method(method, [f.size for f in folds], len(lams))
        if method == "stream":
            preds = self._holdout_exact(folds, lams)
        elif method == "subgraph":
            preds = [self._subgraph(h, lams) for h in folds]
        else:
            preds = [self._refit(h, lams) for h in folds]
        return [p[0] if single else p for p in preds]

    def _method(self, method, sizes, n_lams):
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if method != "auto":
            return method
        cost = holdout_cost(self.m, self.system.F.shape[1], sizes, n_lams,
                            self.graph._starts.size, self.kind == "dual")
        return min(("stream", "subgraph", "refit"), key=cost.__getitem__)

    def _refit(self, h, lams):
        """A plain new model on the rows outside h, predicting h."""
        X, kernel, basis_vectors, prefer, kernel_params = self._fit_args
        rest = np.setdiff1d(np.arange(self.m), h)
        g = self.graph
        if kernel == "PrecomputedKernel" and basis_vectors is None:
            Xr, Xh = X[np.ix_(rest, rest)], X[np.ix_(h, rest)]
        elif isinstance(X, list):
            Xr, Xh = [X[i] for i in rest], [X[i] for i in h]
        else:
            Xr, Xh = X[rest], X[h]
        model = SurvivalRankRLSModel(Xr, g.time[rest], g.event[rest], regparam=lams[0],
                                     kernel=kernel, basis_vectors=basis_vectors,
                                     magnitudes=self.magnitudes, prefer=prefer,
                                     **kernel_params)
        return np.stack([np.ravel(model.solve(lam).predictor.predict(Xh))
                         for lam in lams])

    def _subgraph(self, h, lams):
        F, C, rhs = self.system.F, self.system.C, self.system.rhs
        keep = np.ones(self.m, dtype=bool)
        keep[h] = False
        rest = np.flatnonzero(keep)
        sub = self.graph.subgraph(rest)
        FR = F[rest]
        CR = FR.T @ sub.apply(FR)
        CR = (CR + CR.T) / 2
        rhsR = FR.T @ sub.targets(self.magnitudes)[:, None]
        return self._predict_rows(h, _solve_path(CR, rhsR, lams))

    def _holdout_exact(self, folds, lams):
        C, rhs = self.system.C, self.system.rhs
        S, D = self._row_terms()
        fold_of_row = np.full(self.m, -1, dtype=np.intp)
        # folds may overlap: one pass per group of pairwise disjoint folds
        pending = list(range(len(folds)))
        out = [None] * len(folds)
        while pending:
            taken, batch = np.zeros(self.m, dtype=bool), []
            for k in pending:
                if not taken[folds[k]].any():
                    taken[folds[k]] = True
                    batch.append(k)
            pending = [k for k in pending if k not in batch]
            fold_of_row[:] = -1
            for j, k in enumerate(batch):
                fold_of_row[folds[k]] = j
            (acc,) = self._gram_pass(fold_of_row, len(batch))
            for j, k in enumerate(batch):
                h = folds[k]
                Mh, dh = self._exact_parts(h, S, D)
                E = Mh + acc[j]
                e = dh[:, None]
                if h.size > 1:
                    sub = self.graph.subgraph(h)
                    FH = self.system.F[h]
                    E = E - FH.T @ sub.apply(FH)
                    e = e - FH.T @ sub.targets(self.magnitudes)[:, None]
                CR = C - E
                CR = (CR + CR.T) / 2
                out[k] = self._predict_rows(h, _solve_path(CR, rhs - e, lams))
        return out

    def leave_one_out(self, regparams=None, method="auto"):
        """Exact leave-one-out risk scores (each row held out with its edges): (m,) for
        the model's regparam, else (len(regparams), m). ``method`` as in
        :meth:`holdout`; "auto" streams: O(ng r^2) for the pass plus O(r^3) per row,
        against O(m r^2 + r^3) per row for "subgraph" and "refit"."""
        single = regparams is None
        lams = [self.regparam] if single else [float(v) for v in
                                                check_regparam_grid(regparams)]
        method = self._method(method, np.ones(self.m), len(lams))
        P = np.empty((len(lams), self.m))
        if method != "stream":
            fit = self._subgraph if method == "subgraph" else self._refit
            for i in range(self.m):
                P[:, i] = fit(np.array([i]), lams)[:, 0]
        else:
            C, rhs = self.system.C, self.system.rhs
            S, D = self._row_terms()
            for i, Gh in self._gram_pass(None, 0, np.ones(self.m, dtype=bool)):
                h = np.array([i])
                Mh, dh = self._exact_parts(h, S, D)
                CR = C - (Mh + Gh)
                CR = (CR + CR.T) / 2
                P[:, i] = self._predict_rows(h, _solve_path(CR, rhs - dh[:, None],
                                                            lams))[:, 0]
        return P[0] if single else P
