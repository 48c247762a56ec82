"""Jackknife+ prediction intervals for Gaussian-kernel RLS: rlscore's exact hold-out
models against MAPIE's jackknife+ (``CrossConformalRegressor(cv=LeaveOneOut(),
method="plus")``) with scikit-learn's ``KernelRidge`` on the same kernel and
``alpha = regparam``, which refits the model once per training example.

Both run in this process on the same data with one BLAS thread (threadpoolctl). The
table gives the time of each (ours: median of ``--repeats`` runs of training plus
intervals; MAPIE: one run), the ratio, the largest difference between the two sets of
bounds (they are the same intervals), and the empirical coverage of held-out points
beside 1 - alpha with the mean width. At ``--big`` (default m = 10^4) only ours runs.

    python benchmarks/bench_intervals.py [--m 2000] [--n-test 1000] [--big 10000]
                                         [--alpha 0.1] [--repeats 3] [--no-mapie]

Not a test: timings depend on the machine and its load (printed in the header).
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_kronecker import load, median_time  # noqa: E402


def make_data(m, n_test, d=8, seed=0):
    """A smooth regression function with heteroscedastic-free Gaussian noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(m + n_test, d))
    w = rng.normal(size=d) / np.sqrt(d)
    y = np.sin(2 * X @ w) + 0.5 * np.cos(X[:, 0] * X[:, 1]) + 0.3 * rng.normal(size=m + n_test)
    return X[:m], y[:m], X[m:], y[m:]


def ours(X, y, Xt, regparam, gamma, alpha):
    from rlscore.learner import RLS
    model = RLS(X, y, regparam=regparam, kernel="GaussianKernel", gamma=gamma)
    return model.predict_interval(Xt, alpha=alpha, method="jackknife+")


def mapie_jackknife_plus(X, y, Xt, regparam, gamma, alpha):
    from mapie.regression import CrossConformalRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import LeaveOneOut
    reg = CrossConformalRegressor(KernelRidge(alpha=regparam, kernel="rbf", gamma=gamma),
                                  confidence_level=1 - alpha, method="plus",
                                  cv=LeaveOneOut())
    reg.fit_conformalize(X, y)
    pred, iv = reg.predict_interval(Xt, aggregate_point_predictions=None)
    return pred, iv[:, 0, 0], iv[:, 1, 0]


def coverage(lo, hi, yt):
    return float(np.mean((lo <= yt) & (yt <= hi))), float(np.mean(hi - lo))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=2000)
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--big", type=int, default=10000, help="m of the ours-only run (0: skip)")
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--regparam", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-mapie", action="store_true")
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    import rlscore
    d = 8
    gamma = 1.0 / d
    a = args.alpha
    print(f"rlscore {rlscore.__version__}; jackknife+ for Gaussian RLS (gamma = 1/{d}, "
          f"regparam = {args.regparam}), {args.n_test} test points, alpha = {a}; "
          f"one BLAS thread; load average {load():.1f}")
    if not args.no_mapie:
        import mapie as mapie_pkg
        print(f"baseline: MAPIE {mapie_pkg.__version__} CrossConformalRegressor(KernelRidge, "
              f"cv=LeaveOneOut(), method='plus'), one run")
    print()
    print("| m | ours (s) | MAPIE (s) | speed-up | max bound difference | coverage "
          "(ours) | 1 - alpha | mean width |")
    print("|---|---|---|---|---|---|---|---|")
    sizes = [args.m] + ([args.big] if args.big else [])
    with threadpool_limits(limits=1):
        for m in sizes:
            X, y, Xt, yt = make_data(m, args.n_test)
            res = {}
            t_ours = median_time(
                lambda: res.__setitem__("o", ours(X, y, Xt, args.regparam, gamma, a)),
                args.repeats if m == args.m else 1)
            _, lo, hi = res["o"]
            cov, width = coverage(lo, hi, yt)
            base, diff, ratio = "-", "-", "-"
            if m == args.m and not args.no_mapie:
                t0 = time.perf_counter()
                _, mlo, mhi = mapie_jackknife_plus(X, y, Xt, args.regparam, gamma, a)
                t_mapie = time.perf_counter() - t0
                scale = max(np.abs(mlo).max(), np.abs(mhi).max())
                err = max(np.abs(lo - mlo).max(), np.abs(hi - mhi).max()) / scale
                base = f"{t_mapie:.1f}"
                diff = f"{err:.1e} (relative)"
                ratio = f"{t_mapie / t_ours:.0f}x"
            print(f"| {m} | {t_ours:.2f} | {base} | {ratio} | {diff} | {cov:.3f} | "
                  f"{1 - a:.2f} | {width:.3f} |", flush=True)


if __name__ == "__main__":
    main()
