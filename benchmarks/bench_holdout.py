"""Hold-out shortcuts against naive refits: every learner x CV kind x {d << m, d >> m},
linear and Gaussian kernels, one table (issue #35, item 12: no row slower than its
refit).

Shortcut: the core model trained once with ``path=True``, then for every lambda of the
grid ``solve`` and the cross-validation (``holdout`` per fold, ``leave_one_out``,
``leave_pair_out`` of the pairs, ``leave_query_out``). Refit: for each hold-out set the
system of the remaining rows formed once (X^T L X in the primal when d < m, the fold's
kernel matrix and its eigendecomposition in the dual otherwise; the kernel matrix of all
rows computed once), then one solve per lambda -- the naive computation the shortcut
replaces. Learners: RLS, GlobalRankRLS, QueryRankRLS, and Nystrom RLS (reduced set with
basis removal: primal in its r basis features whatever d; its refit drops the held-out
basis vectors).

Times are process CPU seconds with one BLAS thread (median of ``--repeats`` runs for the
shortcut). Refits of leave-one-out and leave-pair-out are timed on the first
``--sample`` hold-out sets and scaled to all of them (the "scaled" note); the refit of
those sets is also compared with the shortcut's predictions (``max rel diff``, relative
to the largest prediction). ratio = shortcut / refit, target <= 1.

    python benchmarks/bench_holdout.py [--quick] [--repeats 3] [--sample 20]

Not a test: timings depend on the machine and its load (printed in the header).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import limit_threads, machine_line, median_wall_cpu, one_blas_thread  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402
import scipy.linalg as la  # noqa: E402

from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel  # noqa: E402
from rlscore.core.nystrom import RLSModel
from rlscore.core.structure import as_query_groups  # noqa: E402

GAMMA_SCALE = 1.0


# ---------------------------------------------------------------------------------------
# data and hold-out sets

def make_data(m, d, n_queries, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = X @ rng.standard_normal(d) / np.sqrt(d) + 0.5 * rng.standard_normal(m)
    qids = np.repeat(np.arange(n_queries), -(-m // n_queries))[:m]
    return X, y, qids


def holdout_sets(kind, m, qids, n_pairs, rng):
    """The hold-out sets of a CV kind: a list of index arrays."""
    if kind == "loo":
        return [np.array([i]) for i in range(m)]
    if kind == "kfold":
        return np.array_split(rng.permutation(m), 10)
    if kind == "lqo":
        return [np.flatnonzero(qids == q) for q in np.unique(qids)]
    # lpo: random pairs (within queries for the query model)
    pairs = []
    while len(pairs) < n_pairs:
        i, j = rng.choice(m, 2, replace=False)
        if qids is None or qids[i] == qids[j]:
            pairs.append(np.array([i, j]))
    return pairs


# ---------------------------------------------------------------------------------------
# the shortcut

def _model(learner, X, y, qids, kernel, gamma, basis, lam0):
    kp = dict(kernel=kernel, path=True)
    if kernel == "GaussianKernel":
        kp["gamma"] = gamma
    if learner == "RLS":
        return RLSModel(X, y, regparam=lam0, **kp)
    if learner == "NystromRLS":
        return RLSModel(X, y, regparam=lam0, basis_indices=basis, **kp)
    if kernel == "LinearKernel":
        kp["bias"] = 0.0            # the ranking learners' convention
    if learner == "GlobalRankRLS":
        return GlobalRankRLSModel(X, y, regparam=lam0, **kp)
    return QueryRankRLSModel(X, y, qids, regparam=lam0, **kp)


def shortcut(learner, kind, X, y, qids, kernel, gamma, basis, grid, sets):
    """{lambda: [predictions of each hold-out set]} from the model's shortcuts."""
    model = _model(learner, X, y, qids, kernel, gamma, basis, grid[0])
    out = {}
    for lam in grid:
        model.solve(lam)
        if kind == "loo":
            P = model.leave_one_out()
            out[lam] = [P[H] for H in sets]
        elif kind == "lqo":
            out[lam] = model.leave_query_out()
        elif kind == "lpo" and learner != "QueryRankRLS":
            s = np.array([H[0] for H in sets])
            e = np.array([H[1] for H in sets])
            ps, pe = model.leave_pair_out(s, e)
            out[lam] = [np.vstack([a, b]) for a, b in zip(ps, pe)]
        else:        # K-fold, and leave-pair-out within queries (the query model's holdout)
            out[lam] = [model.holdout(H) for H in sets]
    return out


# ---------------------------------------------------------------------------------------
# the naive refit

def _gauss(A, B, gamma):
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-gamma * np.maximum(d2, 0.0))


def _kernel(X, kernel, gamma):
    if kernel == "GaussianKernel":
        return _gauss(X, X, gamma)
    return X @ X.T


def _centre(A, codes):
    """Rows of A minus the mean of their block (codes: block of each row)."""
    if codes is None:
        return A
    g = as_query_groups(codes, A.shape[0])
    return A - g.expand(g.mean(A))


def naive(learner, kind, X, y, qids, kernel, gamma, basis, grid, sets):
    """{lambda: [predictions]} by refitting on the rows outside each hold-out set."""
    m, d = X.shape
    Y = y.reshape(m, 1)
    rank = learner in ("GlobalRankRLS", "QueryRankRLS")
    out = {lam: [] for lam in grid}
    if learner == "NystromRLS":
        Kfull = _gauss(X, X[basis], gamma) if kernel == "GaussianKernel" else X @ X[basis].T + 1.0
        KB = Kfull[basis]
    primal = learner != "NystromRLS" and kernel == "LinearKernel" and d < m
    if learner != "NystromRLS" and not primal:
        K = _kernel(X, kernel, gamma) + (1.0 if (kernel == "LinearKernel" and not rank) else 0.0)
    Phi = np.hstack([X, np.ones((m, 1))]) if (primal and not rank) else X
    for H in sets:
        R = np.setdiff1d(np.arange(m), H)
        n = R.size
        codes = None if not rank else (np.zeros(n, dtype=np.intp) if learner == "GlobalRankRLS"
                                       else qids[R])
        scale = n if learner == "GlobalRankRLS" else 1      # mu = lambda / n (global)
        if learner == "NystromRLS":
            keep = ~np.isin(basis, H)
            KRB = Kfull[np.ix_(R, np.flatnonzero(keep))]
            KBB = KB[np.ix_(np.flatnonzero(keep), np.flatnonzero(keep))]
            A, b = KRB.T @ KRB, KRB.T @ Y[R]
            KHB = Kfull[np.ix_(H, np.flatnonzero(keep))]
            for lam in grid:
                out[lam].append(KHB @ la.solve(A + lam * KBB, b, assume_a="sym"))
        elif primal:
            PR = _centre(Phi[R], codes) if rank else Phi[R]
            C, b = PR.T @ PR, PR.T @ Y[R]
            for lam in grid:
                c = la.cho_factor(C + (lam / scale) * np.eye(C.shape[0]))
                out[lam].append(Phi[H] @ la.cho_solve(c, b))
        else:
            KRR = K[np.ix_(R, R)]
            YR = Y[R]
            if rank:
                KRR = _centre(_centre(KRR, codes).T, codes)      # P K P
                YR = _centre(YR, codes)
            s2, V = la.eigh(KRR, driver="evd")
            VtY = V.T @ YR
            KHR = K[np.ix_(H, R)]
            for lam in grid:
                A = V @ (VtY / (s2 + lam / scale)[:, None])
                out[lam].append(KHR @ A)
    return out


# ---------------------------------------------------------------------------------------

def case(learner, kind, regime, X, y, qids, kernel, gamma, basis, grid, args, rng):
    m = X.shape[0]
    sets = holdout_sets(kind, m, qids if learner == "QueryRankRLS" else None,
                        args.pairs, rng)
    with one_blas_thread():
        _, t_short, pred = median_wall_cpu(
            lambda: shortcut(learner, kind, X, y, qids, kernel, gamma, basis, grid, sets),
            args.repeats)
        sample = sets if kind in ("kfold", "lqo") else sets[:args.sample]
        _, t_naive, ref = median_wall_cpu(
            lambda: naive(learner, kind, X, y, qids, kernel, gamma, basis, grid, sample), 1)
    note = ""
    if len(sample) < len(sets):
        t_naive *= len(sets) / len(sample)
        note = f"scaled from {len(sample)} of {len(sets)} sets"
    top = max(np.abs(np.vstack(pred[lam][:len(sample)])).max() for lam in grid)
    diff = max(np.abs(np.vstack(pred[lam][:len(sample)]).ravel()
                      - np.vstack(ref[lam]).ravel()).max() for lam in grid) / top
    ratio = t_short / t_naive
    flag = "ok" if ratio <= 1 else "SLOWER"
    kname = "linear" if kernel == "LinearKernel" else "Gaussian"
    print(f"| {learner} | {kind} | {kname} | {regime} | {t_short:.3f} | {t_naive:.3f} | "
          f"{ratio:.3f} | {diff:.1e} | {flag} | {note} |", flush=True)
    return ratio


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sample", type=int, default=20,
                    help="LOO/LPO hold-out sets refitted (time scaled to all)")
    ap.add_argument("--pairs", type=int, default=500, help="leave-pair-out pairs")
    args = ap.parse_args(argv)
    q = args.quick
    grid = list(2.0 ** np.linspace(-10, 10, 31))      # 31 values, as the default grid
    # (m, d, n_basis) per regime and kernel: the linear d << m case is the issue's
    # (m = 4000, d = 10); the Gaussian kernel is dual (m x m), so smaller there
    sizes = {("d << m", "LinearKernel"): (1000 if q else 4000, 10, 100),
             ("d << m", "GaussianKernel"): (300 if q else 1000, 10, 100),
             ("d >> m", "LinearKernel"): (100 if q else 200, 600 if q else 2000, 50),
             ("d >> m", "GaussianKernel"): (100 if q else 200, 600 if q else 2000, 50)}
    print(f"# hold-out shortcuts vs naive refits ({machine_line()}); {len(grid)} lambdas, "
          f"CPU seconds; 10 folds, 10 queries, {args.pairs} pairs; NystromRLS with "
          f"n_basis basis vectors (m, d, n_basis)\n")
    print("| learner | CV | kernel | regime (m, d[, n_basis]) | shortcut s | refit s | "
          "ratio | max rel diff | | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    ratios = []
    for (regime, kernel), (m, d, nb) in sizes.items():
        X, y, qids = make_data(m, d, 10)
        basis = np.sort(rng.choice(m, nb, replace=False))
        gamma = GAMMA_SCALE / d
        for learner, kinds in (("RLS", ("loo", "kfold", "lpo")),
                               ("GlobalRankRLS", ("loo", "kfold", "lpo")),
                               ("QueryRankRLS", ("lqo", "lpo")),
                               ("NystromRLS", ("loo", "kfold", "lpo"))):
            label = f"{regime} ({m}, {d}" + (f", {nb})" if learner == "NystromRLS" else ")")
            for kind in kinds:
                ratios.append(case(learner, kind, label, X, y, qids, kernel, gamma,
                                   basis, grid, args, rng))
    print(f"\nslowest ratio {max(ratios):.3f} (target <= 1: "
          f"{'met' if max(ratios) <= 1 else 'MISSED'})")


if __name__ == "__main__":
    main()
