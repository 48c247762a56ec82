"""Speed ratios of rlscore against baselines run in the same process.

Each row times rlscore and its baseline (scikit-learn, a naive computation, or the
physical limit such as one LAPACK call) on the same data and reports the median of
several runs and their ratio. Run:  python benchmarks/run_benchmarks.py [--quick]

Not a test: timings vary with the machine; the ratios are what the issues track.
"""

import argparse
import sys

import numpy as np
import scipy.linalg as la

from _timing import median_time, row


def bench_gaussian_fit(m, repeats):
    from sklearn.kernel_ridge import KernelRidge
    from rlscore.learner import RLS
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    gamma = 1.0 / 20
    ours, _ = median_time(lambda: RLS(X, y, 1.0, "GaussianKernel", gamma=gamma), repeats)
    base, _ = median_time(lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=gamma).fit(X, y), repeats)
    row(f"(a) Gaussian RLS fit, one lambda, m={m}", ours, base, "sklearn KernelRidge.fit", 1.2)


def bench_gaussian_loo_path(m, repeats):
    from rlscore.kernel import GaussianKernel
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    K = GaussianKernel(X, gamma=0.05).getKM(X)
    ours, _ = median_time(lambda: LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=0.05), repeats)
    base, _ = median_time(lambda: la.eigh(K, driver="evd"), repeats)
    row(f"(b) LeaveOneOutRLS, 31 lambdas, Gaussian, m={m}", ours, base,
        "one scipy eigh(K, evd)", 1.3)


def bench_linear_loo_path(m, d, repeats):
    from sklearn.linear_model import RidgeCV
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(2)
    X = rng.standard_normal((m, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(m)
    grid = [2.0 ** k for k in range(-15, 16)]
    ours, _ = median_time(lambda: LeaveOneOutRLS(X, y, regparams=grid), repeats)
    base, _ = median_time(lambda: RidgeCV(alphas=grid).fit(X, y), repeats)
    row(f"(c) linear LeaveOneOutRLS, 31 lambdas, m={m}, d={d}", ours, base,
        "sklearn RidgeCV (LOO)", 0.25)


def bench_lpo(m, repeats):
    from rlscore.learner import RLS
    rng = np.random.default_rng(3)
    X = rng.standard_normal((m, 20))
    y = np.where(np.arange(m) < m // 2, 1.0, -1.0)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    s = np.repeat(pos, neg.size)
    e = np.tile(neg, pos.size)
    learners = []
    train, _ = median_time(lambda: learners.append(RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)),
                        repeats)

    def fresh():
        return RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)

    lpo, _ = median_time(lambda learner: learner.leave_pair_out(s, e), repeats,
                         setup=fresh)
    row(f"(d) leave_pair_out, {s.size} pos-neg pairs, Gaussian, m={m}, after training", lpo,
        train, "training (one Cholesky)", 0.5)

    # after a regularization path (the learner holds an eigendecomposition)
    def path_training():
        learner = RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)
        learner.solve(2.0)
        return learner

    lpo2, _ = median_time(lambda learner: learner.leave_pair_out(s, e), repeats,
                          setup=path_training)
    train2, _ = median_time(path_training, repeats)
    row(f"(d') leave_pair_out, {s.size} pairs, m={m}, after a lambda path", lpo2, train2,
        "training with eigendecomposition", 0.5)


def bench_lpo_selection(m, repeats):
    from rlscore.learner import LeavePairOutRLS
    rng = np.random.default_rng(4)
    X = rng.standard_normal((m, 20))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    t, _ = median_time(lambda: LeavePairOutRLS(X, y, kernel="GaussianKernel", gamma=0.05), repeats)
    row(f"(d'') LeavePairOutRLS, 31 lambdas, Gaussian, m={m}", t, target=2.0)


def bench_cindex(m, repeats):
    from scipy.stats import kendalltau
    from rlscore.measure import cindex
    rng = np.random.default_rng(5)
    y = rng.standard_normal(m)
    p = np.round(y + rng.standard_normal(m))
    ours, _ = median_time(lambda: cindex(y, p), repeats)
    base, _ = median_time(lambda: kendalltau(y, p), repeats)
    row(f"(e) cindex, m={m}, heavily tied predictions", ours, base, "scipy.stats.kendalltau", 1.5)


# -- RankRLS (issue 3) ------------------------------------------------------------------
def bench_global_rankrls_fit(m, repeats):
    from rlscore.learner import RLS, GlobalRankRLS
    rng = np.random.default_rng(6)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    ours, _ = median_time(lambda: GlobalRankRLS(X, y, 1.0, "GaussianKernel", gamma=0.05), repeats)
    base, _ = median_time(lambda: RLS(X, y, 1.0, "GaussianKernel", gamma=0.05), repeats)
    row(f"(3a) GlobalRankRLS fit, Gaussian, m={m}", ours, base, "RLS fit", 1.2)


def bench_rank_lpo(m, repeats):
    from rlscore.core.rankrls import preference_pairs
    from rlscore.learner import GlobalRankRLS
    rng = np.random.default_rng(7)
    X = rng.standard_normal((m, 20))
    y = np.where(np.arange(m) < m // 2, 1.0, -1.0)
    s, e = preference_pairs(y, kind="bipartite")[:2]

    def train(path):
        learner = GlobalRankRLS(X, y, 1.0, "GaussianKernel", gamma=0.05)
        if path:
            learner.solve(2.0)
        return learner

    for path, what in ((False, "one Cholesky"), (True, "with eigendecomposition")):
        t, _ = median_time(lambda learner: learner.leave_pair_out(s, e), repeats,
                           setup=lambda: train(path))
        base, _ = median_time(lambda: train(path), repeats)
        row(f"(3b) GlobalRankRLS leave_pair_out, {s.size} pos-neg pairs, m={m}", t, base,
            f"training ({what})", 0.5)


def bench_rank_lpo_selection(m, repeats):
    from rlscore.learner import LeavePairOutRankRLS
    rng = np.random.default_rng(8)
    X = rng.standard_normal((m, 20))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    t, _ = median_time(lambda: LeavePairOutRankRLS(X, y, kernel="GaussianKernel", gamma=0.05),
                    repeats)
    row(f"(3b') LeavePairOutRankRLS, 31 lambdas, Gaussian, m={m}", t, target=2.0)


def bench_lqo(m, repeats):
    from rlscore.learner import LeaveQueryOutRankRLS
    rng = np.random.default_rng(9)
    X = rng.standard_normal((m, 100))
    y = X[:, 0] + rng.standard_normal(m)
    qids = np.repeat(np.arange(m // 20), 20)
    grid = [2.0 ** k for k in range(-15, 15)]
    t, _ = median_time(lambda: LeaveQueryOutRankRLS(X, y, qids, regparams=grid), repeats)
    row(f"(3c) LeaveQueryOutRankRLS, linear d=100, 20 per query, m={m}, 30 lambdas", t,
        target=1.0)


def bench_letor(path):
    """QueryRankRLS vs RLS regression on LETOR 4.0 MQ2008 fold 1 (train S1-S3, test S5),
    regparam chosen by leave-query-out / leave-one-out on the training part."""
    import os
    from rlscore.datasets import load_letor
    from rlscore.learner import LeaveOneOutRLS, LeaveQueryOutRankRLS
    from rlscore.measure import query_cindex, query_ndcg
    parts = [load_letor(os.path.join(path, f"S{i}.txt"), fdim=46) for i in (1, 2, 3)]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    q = np.concatenate([np.char.add(f"S{i}-", p[2].astype(str)) for i, p in zip((1, 2, 3), parts)])
    Xt, yt, qt = load_letor(os.path.join(path, "S5.txt"), fdim=46)
    grid = [2.0 ** k for k in range(-10, 11)]
    rank = LeaveQueryOutRankRLS(X, y, q, regparams=grid)
    reg = LeaveOneOutRLS(X, y, regparams=grid)
    for name, model in (("QueryRankRLS (LQO-selected)", rank), ("RLS regression (LOO-selected)", reg)):
        P = model.predict(Xt)
        print(f"| (3d) LETOR MQ2008 fold 1 test S5: {name} | regparam {model.regparam:g} | "
              f"NDCG@10 {query_ndcg(yt, P, qt, k=10):.4f} | c-index {query_cindex(yt, P, qt):.4f} | | |",
              flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer runs")
    parser.add_argument("--letor", default=None,
                        help="folder with LETOR 4.0 MQ2008 S1.txt ... S5.txt (optional)")
    parser.add_argument("--only", choices=["rls", "rankrls"], default=None)
    args = parser.parse_args(argv)
    q = args.quick
    r = 2 if q else 3
    print("| benchmark | rlscore | baseline | ratio | target | |")
    print("|---|---|---|---|---|---|")
    if args.only in (None, "rls"):
        bench_gaussian_fit(1000 if q else 4000, r)
        bench_gaussian_loo_path(1000 if q else 4000, r)
        bench_linear_loo_path(20000 if q else 100000, 100, r)
        bench_lpo(600 if q else 2000, r)
        bench_lpo_selection(400 if q else 1000, r)
        bench_cindex(100000 if q else 1000000, 5)
    if args.only in (None, "rankrls"):
        bench_global_rankrls_fit(1000 if q else 4000, r)
        bench_rank_lpo(600 if q else 2000, r)
        bench_rank_lpo_selection(400 if q else 1000, r)
        bench_lqo(2000 if q else 10000, r)
        if args.letor:
            bench_letor(args.letor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
