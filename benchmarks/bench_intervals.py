"""Jackknife+ prediction intervals for Gaussian-kernel RLS: rlscore's exact hold-out
models against MAPIE's jackknife+ (``CrossConformalRegressor(cv=LeaveOneOut(),
method="plus")``) with scikit-learn's ``KernelRidge`` on the same kernel and
``alpha = regparam``, which refits the model once per training example.

Both run in this process on the same data with one BLAS thread (threadpoolctl); times
are process CPU seconds (with one thread, the work done, robust to the load of a shared
machine) and wall seconds for ours. Ours: median of ``--repeats`` runs of training plus
intervals; MAPIE: one run. The table gives the ratio, the largest difference between the
two sets of bounds (they are the same intervals), and the empirical coverage of held-out
points beside 1 - alpha with the mean width. ``--mapie-refits K`` runs only the first K
of MAPIE's m refits (a leave-one-out splitter cut after K splits) and extrapolates its
time by m / K (no bound comparison then); for m in ``--big`` only ours runs.

    python benchmarks/bench_intervals.py [--sizes 2000] [--n-test 1000] [--big 10000]
        [--alpha 0.1] [--repeats 3] [--mapie-refits 0] [--no-mapie]

Not a test: timings depend on the machine and its load (printed in the header).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, median_wall_cpu, run_times  # noqa: E402


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


class _FirstLeaveOneOut:
    """The first k splits of leave-one-out (to time part of MAPIE's refits)."""

    def __new__(cls, k):
        from sklearn.model_selection import BaseCrossValidator

        class FirstLeaveOneOut(BaseCrossValidator):
            def __init__(self, k):
                self.k = k

            def get_n_splits(self, X=None, y=None, groups=None):
                return self.k

            def _iter_test_indices(self, X=None, y=None, groups=None):
                for i in range(self.k):
                    yield np.array([i])

        return FirstLeaveOneOut(k)


def mapie_jackknife_plus(X, y, Xt, regparam, gamma, alpha, refits=0):
    """(lower, upper) of MAPIE's jackknife+; with ``refits`` = k > 0 only k of the m
    leave-one-out refits are run (the bounds are then meaningless)."""
    import warnings
    from mapie.regression import CrossConformalRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import LeaveOneOut
    cv = _FirstLeaveOneOut(refits) if refits else LeaveOneOut()
    reg = CrossConformalRegressor(KernelRidge(alpha=regparam, kernel="rbf", gamma=gamma),
                                  confidence_level=1 - alpha, method="plus", cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg.fit_conformalize(X, y)
        pred, iv = reg.predict_interval(Xt, aggregate_point_predictions=None)
    return pred, iv[:, 0, 0], iv[:, 1, 0]


def coverage(lo, hi, yt):
    return float(np.mean((lo <= yt) & (yt <= hi))), float(np.mean(hi - lo))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000", help="m values compared with MAPIE")
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--big", default="10000", help="m values of ours alone ('' to skip)")
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--regparam", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mapie-refits", type=int, default=0,
                    help="run only this many of MAPIE's refits and extrapolate (0: all)")
    ap.add_argument("--no-mapie", action="store_true")
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    import rlscore
    d = 8
    gamma = 1.0 / d
    a = args.alpha
    compare = [int(v) for v in args.sizes.split(",") if v]
    alone = [int(v) for v in args.big.split(",") if v]
    print(f"rlscore {rlscore.__version__}; jackknife+ for Gaussian RLS (gamma = 1/{d}, "
          f"regparam = {args.regparam}), {args.n_test} test points, alpha = {a}; "
          f"one BLAS thread; load average {load():.1f}")
    if not args.no_mapie:
        import mapie as mapie_pkg
        print(f"baseline: MAPIE {mapie_pkg.__version__} CrossConformalRegressor("
              f"KernelRidge, cv=LeaveOneOut(), method='plus'), one run")
    print()
    print("| m | ours wall (s) | ours CPU (s) | MAPIE CPU (s) | speed-up (CPU) | max bound "
          "difference | coverage (ours) | 1 - alpha | mean width |")
    print("|---|---|---|---|---|---|---|---|---|")
    with threadpool_limits(limits=1):
        for m in compare + alone:
            X, y, Xt, yt = make_data(m, args.n_test)
            wall, cpu, (_, lo, hi) = median_wall_cpu(
                lambda: ours(X, y, Xt, args.regparam, gamma, a),
                args.repeats if m in compare else 1)
            cov, width = coverage(lo, hi, yt)
            base, diff, ratio = "-", "-", "-"
            if m in compare and not args.no_mapie:
                k = args.mapie_refits if 0 < args.mapie_refits < m else 0
                _, (t_mapie,), (_, mlo, mhi) = run_times(
                    lambda: mapie_jackknife_plus(X, y, Xt, args.regparam, gamma, a, k), 1)
                if k:
                    t_mapie *= m / k
                    base = f"{t_mapie:.0f} (extrapolated from {k} refits)"
                else:
                    scale = max(np.abs(mlo).max(), np.abs(mhi).max())
                    err = max(np.abs(lo - mlo).max(), np.abs(hi - mhi).max()) / scale
                    base = f"{t_mapie:.1f}"
                    diff = f"{err:.1e} (relative)"
                ratio = f"{t_mapie / cpu:.0f}x"
            print(f"| {m} | {wall:.2f} | {cpu:.2f} | {base} | {ratio} | {diff} | {cov:.3f} | "
                  f"{1 - a:.2f} | {width:.3f} |", flush=True)


if __name__ == "__main__":
    main()
