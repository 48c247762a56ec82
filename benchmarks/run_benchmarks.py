"""Speed ratios of rlscore against baselines run in the same process.

Each row times rlscore and its baseline (scikit-learn, a naive computation, or the
physical limit such as one LAPACK call) on the same data and reports the median of
several runs and their ratio. Run:  python benchmarks/run_benchmarks.py [--quick]

Not a test: timings vary with the machine; the ratios are what the issues track.
"""

import argparse
import statistics
import sys
import time

import numpy as np
import scipy.linalg as la


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(name, ours, base, base_name, target):
    ratio = ours / base
    flag = "ok" if ratio <= target else "MISSED"
    print(f"| {name} | {ours:.3f} s | {base_name}: {base:.3f} s | {ratio:.3f} | <= {target} | {flag} |",
          flush=True)


def bench_gaussian_fit(m, repeats):
    from sklearn.kernel_ridge import KernelRidge
    from rlscore.learner import RLS
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    gamma = 1.0 / 20
    ours = median_time(lambda: RLS(X, y, 1.0, "GaussianKernel", gamma=gamma), repeats)
    base = median_time(lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=gamma).fit(X, y), repeats)
    row(f"(a) Gaussian RLS fit, one lambda, m={m}", ours, base, "sklearn KernelRidge.fit", 1.2)


def bench_gaussian_loo_path(m, repeats):
    from rlscore.kernel import GaussianKernel
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    K = GaussianKernel(X, gamma=0.05).getKM(X)
    ours = median_time(lambda: LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=0.05), repeats)
    base = median_time(lambda: la.eigh(K, driver="evd"), repeats)
    row(f"(b) LeaveOneOutRLS, 31 lambdas, Gaussian, m={m}", ours, base,
        "one scipy eigh(K, evd)", 1.3)


def bench_linear_loo_path(m, d, repeats):
    from sklearn.linear_model import RidgeCV
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(2)
    X = rng.standard_normal((m, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(m)
    grid = [2.0 ** k for k in range(-15, 16)]
    ours = median_time(lambda: LeaveOneOutRLS(X, y, regparams=grid), repeats)
    base = median_time(lambda: RidgeCV(alphas=grid).fit(X, y), repeats)
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
    train = median_time(lambda: learners.append(RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)),
                        repeats)

    def lpo_fresh():
        learner = RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)
        t0 = time.perf_counter()
        learner.leave_pair_out(s, e)
        return time.perf_counter() - t0

    lpo = statistics.median(lpo_fresh() for _ in range(repeats))
    row(f"(d) leave_pair_out, {s.size} pos-neg pairs, Gaussian, m={m}, after training", lpo,
        train, "training (one Cholesky)", 0.5)

    # after a regularization path (the learner holds an eigendecomposition)
    def lpo_after_path():
        learner = RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)
        learner.solve(2.0)
        t0 = time.perf_counter()
        learner.leave_pair_out(s, e)
        return time.perf_counter() - t0

    def path_training():
        learner = RLS(X, y, 1.0, "GaussianKernel", gamma=0.05)
        learner.solve(2.0)

    lpo2 = statistics.median(lpo_after_path() for _ in range(repeats))
    train2 = median_time(path_training, repeats)
    row(f"(d') leave_pair_out, {s.size} pairs, m={m}, after a lambda path", lpo2, train2,
        "training with eigendecomposition", 0.5)


def bench_lpo_selection(m, repeats):
    from rlscore.learner import LeavePairOutRLS
    rng = np.random.default_rng(4)
    X = rng.standard_normal((m, 20))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    t = median_time(lambda: LeavePairOutRLS(X, y, kernel="GaussianKernel", gamma=0.05), repeats)
    print(f"| (d'') LeavePairOutRLS, 31 lambdas, Gaussian, m={m} | {t:.3f} s | absolute | - | "
          f"< 2 s | {'ok' if t < 2 else 'MISSED'} |", flush=True)


def bench_cindex(m, repeats):
    from scipy.stats import kendalltau
    from rlscore.measure import cindex
    rng = np.random.default_rng(5)
    y = rng.standard_normal(m)
    p = np.round(y + rng.standard_normal(m))
    ours = median_time(lambda: cindex(y, p), repeats)
    base = median_time(lambda: kendalltau(y, p), repeats)
    row(f"(e) cindex, m={m}, heavily tied predictions", ours, base, "scipy.stats.kendalltau", 1.5)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer runs")
    args = parser.parse_args(argv)
    q = args.quick
    r = 2 if q else 3
    print("| benchmark | rlscore | baseline | ratio | target | |")
    print("|---|---|---|---|---|---|")
    bench_gaussian_fit(1000 if q else 4000, r)
    bench_gaussian_loo_path(1000 if q else 4000, r)
    bench_linear_loo_path(20000 if q else 100000, 100, r)
    bench_lpo(600 if q else 2000, r)
    bench_lpo_selection(400 if q else 1000, r)
    bench_cindex(100000 if q else 1000000, 5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
