"""Large-scale linear learners and greedy selection (issue 7): ratios measured in one run.

(a) GreedyRLS, m=10000, d=1000, k=50: total time (target < 2 s) and time / (k x one
    pass over an X-sized array, timed as the GEMV X^T v).
(b) CGRankRLS on sparse data, m=10^5, d=10^4, 0.1% density, 20 items per query, to a
    relative residual of 1e-6: iterations, the true final residual, and time /
    (iterations x one XtLX-free CG iteration, i.e. one operator product).
(c) scikit-learn SequentialFeatureSelector(Ridge, 5-fold) against GreedyRLSSelector
    (exact LOO) on m=2000, d=200, k=20.

Run:  python benchmarks/bench_linear_large.py [--quick]
Not a test: timings vary with the machine and its load (printed with the table).
"""

import argparse
import os

import numpy as np
import scipy.sparse as sp

from _timing import median_time, median_wall_cpu, row


def bench_greedy(m, d, k, repeats):
    from rlscore.learner.greedy_rls import GreedyRLS
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, d))
    w = np.zeros(d)
    w[rng.choice(d, 20, replace=False)] = rng.standard_normal(20)
    y = X @ w + rng.standard_normal(m)
    v = rng.standard_normal(m)
    t_pass, _ = median_time(lambda: X.T @ v, 15)
    t, cpu, g = median_wall_cpu(lambda: GreedyRLS(X, y, k, regparam=1.0, bias=1.0),
                                repeats)
    target = "ok" if t < 2.0 else "MISSED"
    row(f"(a) GreedyRLS m={m} d={d} k={k} (target < 2 s: {target}; CPU time of all "
        f"threads {cpu:.2f} s)", t, k * t_pass, f"{k} x one X pass (X^T v)",
        note=f"time / (k x pass); found {len(set(g.selected) & set(np.flatnonzero(w)))}/20 "
        f"true features")


def bench_cg_rankrls(m, d, density, qsize, repeats):
    from rlscore.core.rankrls import RankRLSOperator
    from rlscore.learner.cg_rankrls import CGRankRLS
    rng = np.random.default_rng(1)
    per_row = max(1, int(round(density * d)))     # scipy.sparse.random is slow here
    cols = rng.integers(0, d, size=(m, per_row))
    X = sp.csr_matrix((rng.standard_normal(m * per_row), cols.ravel(),
                       np.arange(0, m * per_row + 1, per_row)), shape=(m, d))
    X.sum_duplicates()
    w = rng.standard_normal(d)
    qids = np.repeat(np.arange(m // qsize), qsize)
    y = X @ w + 3.0 * rng.standard_normal(m // qsize)[qids] + rng.standard_normal(m)
    regparam = 1.0
    t, learner = median_time(
        lambda: CGRankRLS(X, y, regparam, qids=qids, tol=1e-6), repeats)
    op = RankRLSOperator(X, regparam, qids, m // qsize)
    V = rng.standard_normal((d, 1))
    t_it, _ = median_time(lambda: op.matvec(V), 15)
    b = op.rhs(y.reshape(-1, 1))
    res = np.linalg.norm(b - op.matvec(learner.A)) / np.linalg.norm(b)
    ok = "converged" if res <= 1.01e-6 else "NOT converged"
    row(f"(b) CGRankRLS sparse m={m} d={d} nnz={X.nnz} {m // qsize} queries "
        f"({learner.n_iter} iterations, residual {res:.1e}, {ok})", t,
        learner.n_iter * t_it, "iterations x one CG iteration (X^T L X v)",
        note="time / (iterations x iteration)")


def bench_sfs(m, d, k):
    import warnings

    from sklearn.feature_selection import SequentialFeatureSelector
    from sklearn.linear_model import Ridge

    from rlscore.estimators._greedy import GreedyRLSSelector
    rng = np.random.default_rng(2)
    X = rng.standard_normal((m, d))
    w = np.zeros(d)
    informative = rng.choice(d, 30, replace=False)
    w[informative] = rng.standard_normal(30)
    y = X @ w + rng.standard_normal(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_sfs, sfs = median_time(             # one run: the baseline is the slow one
            lambda: SequentialFeatureSelector(Ridge(alpha=1.0), n_features_to_select=k,
                                              direction="forward", cv=5).fit(X, y), 1)
    t_ours, sel = median_time(
        lambda: GreedyRLSSelector(k, alpha=1.0, bias=1.0).fit(X, y), 3)
    common = len(set(sfs.get_support(indices=True)) & set(sel.selected_features_))
    row(f"(c) GreedyRLSSelector (exact LOO) vs SequentialFeatureSelector(Ridge, cv=5), "
        f"m={m} d={d} k={k}", t_ours, t_sfs, "sklearn SFS",
        note=f"ours / sklearn; {common}/{k} features in common")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller problems")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}")
    print("| benchmark | rlscore | reference | ratio | meaning |")
    print("|---|---|---|---|---|")
    if args.quick:
        bench_greedy(2000, 200, 10, 1)
        bench_cg_rankrls(10_000, 1000, 0.005, 20, 1)
        bench_sfs(500, 50, 5)
    else:
        bench_greedy(10_000, 1000, 50, 3)
        bench_cg_rankrls(100_000, 10_000, 0.001, 20, 3)
        bench_sfs(2000, 200, 20)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
