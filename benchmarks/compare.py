"""One table of speed (and peak-memory) ratios of every learner family against
scikit-learn and naive baselines measured in the same run.

The suites are asv-style classes: ``setup()`` builds the data, ``time_*`` methods time
rlscore and ``time_baseline_*`` the baseline of the same task, ``peakmem_*`` methods are
measured for peak traced memory. asv can run them directly (``asv run`` with this
folder as ``benchmark_dir``); ``python benchmarks/compare.py [--quick] [--repeats N]``
runs them without asv and prints a markdown table of medians and ratios.

Not a test: timings depend on the machine and its load (printed in the header).
"""

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, median_time  # noqa: E402
from bench_kronecker import gaussian  # noqa: E402
from bench_ranksvm import make_data  # noqa: E402

SCALE = {"quick": 0.5, "full": 1.0}


def _n(base, scale):
    return max(20, int(base * scale))


class RLSSuite:
    """Gaussian kernel RLS: one fit, and the LOO path over 31 lambdas."""

    def setup(self, scale=1.0):
        m = _n(2000, scale)
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((m, 20))
        self.y = rng.standard_normal(m)
        self.gamma = 0.05
        self.grid = [2.0 ** k for k in range(-15, 16)]
        self.label = f"m={m}"

    def time_fit(self):
        from rlscore.learner import RLS
        RLS(self.X, self.y, 1.0, "GaussianKernel", gamma=self.gamma)

    def time_baseline_fit(self):
        from sklearn.kernel_ridge import KernelRidge
        KernelRidge(alpha=1.0, kernel="rbf", gamma=self.gamma).fit(self.X, self.y)

    def time_loo_path(self):
        from rlscore.learner import LeaveOneOutRLS
        LeaveOneOutRLS(self.X, self.y, kernel="GaussianKernel", gamma=self.gamma,
                       regparams=self.grid)

    def time_baseline_loo_path(self):
        from sklearn.linear_model import RidgeCV
        # sklearn's efficient LOO (eigendecomposition of the precomputed kernel)
        K = gaussian(self.X, self.gamma)
        RidgeCV(alphas=self.grid, fit_intercept=False).fit(K, self.y)

    def peakmem_fit(self):
        self.time_fit()

    def peakmem_baseline_fit(self):
        self.time_baseline_fit()


class LinearRLSSuite:
    """Linear RLS, exact LOO over 31 lambdas (primal)."""

    def setup(self, scale=1.0):
        m = _n(20000, scale)
        self.X, self.y = make_data(m, 50, seed=2)
        self.grid = [2.0 ** k for k in range(-15, 16)]
        self.label = f"m={m}, d=50"

    def time_loo_path(self):
        from rlscore.learner import LeaveOneOutRLS
        LeaveOneOutRLS(self.X, self.y, regparams=self.grid)

    def time_baseline_loo_path(self):
        from sklearn.linear_model import RidgeCV
        RidgeCV(alphas=self.grid).fit(self.X, self.y)


class LPOSuite:
    """Leave-pair-out AUC of Gaussian RLS over all positive-negative pairs."""

    def setup(self, scale=1.0):
        m = _n(300, scale)
        from rlscore.datasets import make_classification
        self.X, self.y = make_classification(m, 10, 1.0, 0.5, random_state=3)
        self.label = f"m={m}, {int((self.y > 0).sum() * (self.y < 0).sum())} pairs"
        pos, neg = np.flatnonzero(self.y > 0), np.flatnonzero(self.y < 0)
        self.s, self.e = np.repeat(pos, neg.size), np.tile(neg, pos.size)
        rng = np.random.default_rng(0)
        k = min(200, self.s.size)
        self.sample = rng.choice(self.s.size, k, replace=False)

    def time_lpo(self):
        from rlscore.learner import RLS
        RLS(self.X, self.y, 1.0, "GaussianKernel", gamma=0.1).leave_pair_out(self.s, self.e)

    def time_baseline_lpo(self):
        # naive: retrain without each pair; timed on a sample, scaled to all pairs
        from sklearn.kernel_ridge import KernelRidge
        keep = np.ones(self.y.size, bool)
        for h in self.sample:
            i, j = self.s[h], self.e[h]
            keep[[i, j]] = False
            KernelRidge(alpha=1.0, kernel="rbf", gamma=0.1).fit(
                self.X[keep], self.y[keep]).predict(self.X[[i, j]])
            keep[[i, j]] = True
    baseline_scale = "pairs / sample"


class RankRLSSuite:
    """Query RankRLS: exact leave-query-out over 30 lambdas vs retraining per query."""

    def setup(self, scale=1.0):
        from rlscore.datasets import make_ranking_queries
        nq = _n(200, scale)
        self.X, self.y, self.q = make_ranking_queries(nq, 20, 30, random_state=4)
        self.grid = [2.0 ** k for k in range(-15, 15)]
        self.label = f"{nq} queries x 20, d=30"

    def time_lqo(self):
        from rlscore.learner import LeaveQueryOutRankRLS
        LeaveQueryOutRankRLS(self.X, self.y, self.q, regparams=self.grid)

    def time_baseline_lqo(self):
        # naive: one QueryRankRLS per held-out query, one lambda (x 30 would be fair)
        from rlscore.learner import QueryRankRLS
        for qq in np.unique(self.q):
            keep = self.q != qq
            QueryRankRLS(self.X[keep], self.y[keep], self.q[keep], regparam=1.0).predict(
                self.X[~keep])


class RankSVMSuite:
    """Linear RankSVM on query data vs a linear SVM on explicit pair differences."""

    def setup(self, scale=1.0):
        from rlscore.datasets import make_ranking_queries
        nq = _n(300, scale)
        self.X, self.y, self.q = make_ranking_queries(nq, 20, 50, random_state=5)
        i, j = [], []
        for qq in np.unique(self.q):
            rows = np.flatnonzero(self.q == qq)
            a, b = np.meshgrid(rows, rows, indexing="ij")
            mask = self.y[a] > self.y[b]
            i.append(a[mask]); j.append(b[mask])
        self.i, self.j = np.concatenate(i), np.concatenate(j)
        self.label = f"m={self.X.shape[0]}, {self.i.size} pairs"

    def time_fit(self):
        from rlscore.learner import LinearRankSVM
        LinearRankSVM(self.X, self.y, self.q, regparam=1e-3)

    def time_baseline_fit(self):
        from sklearn.svm import LinearSVC
        D = self.X[self.i] - self.X[self.j]
        Z = np.vstack([D, -D])
        t = np.r_[np.ones(len(D)), -np.ones(len(D))]
        LinearSVC(C=1.0 / (1e-3 * len(Z)), fit_intercept=False, tol=1e-3,
                  max_iter=2000).fit(Z, t)

    def peakmem_fit(self):
        self.time_fit()

    def peakmem_baseline_fit(self):
        self.time_baseline_fit()


class KronSuite:
    """Kronecker RLS on a complete n x n pair matrix vs solving with np.kron."""

    def setup(self, scale=1.0):
        n = _n(40, scale)
        rng = np.random.default_rng(6)
        self.K1 = gaussian(rng.standard_normal((n, 5)), 0.1)
        self.K2 = gaussian(rng.standard_normal((n, 5)), 0.1)
        self.Y = rng.standard_normal(n * n)
        self.label = f"{n} x {n} pairs"

    def time_fit(self):
        from rlscore.learner import KronRLS
        KronRLS(K1=self.K1, K2=self.K2, Y=self.Y, regparam=1.0)

    def time_baseline_fit(self):
        import scipy.linalg as la
        K = np.kron(self.K2, self.K1)
        K[np.diag_indices_from(K)] += 1.0
        la.solve(K, self.Y, assume_a="pos")

    def peakmem_fit(self):
        self.time_fit()

    def peakmem_baseline_fit(self):
        self.time_baseline_fit()


class CGGreedySuite:
    """CG RLS vs sklearn Ridge(sparse_cg); GreedyRLS vs naive forward selection."""

    def setup(self, scale=1.0):
        import scipy.sparse as sp
        m = _n(20000, scale)
        rng = np.random.default_rng(7)
        self.Xs = sp.random(m, 2000, density=0.01, format="csr", random_state=7)
        self.ys = rng.standard_normal(m)
        self.Xg, self.yg = make_data(_n(1000, scale), 200, seed=8)
        self.k = 5
        self.label = f"CG: {m} x 2000 sparse; greedy: {self.Xg.shape[0]} x 200, k=5"

    def time_cg(self):
        from rlscore.learner import CGRLS
        CGRLS(self.Xs, self.ys, regparam=1.0)

    def time_baseline_cg(self):
        from sklearn.linear_model import Ridge
        Ridge(alpha=1.0, solver="sparse_cg", fit_intercept=False).fit(self.Xs, self.ys)

    def time_greedy(self):
        from rlscore.learner import GreedyRLS
        GreedyRLS(self.Xg, self.yg, self.k, regparam=1.0)

    def time_baseline_greedy(self):
        # naive forward selection by LOO error: one small ridge solve per candidate
        X, y, lam = self.Xg, self.yg, 1.0
        chosen = []
        for _ in range(self.k):
            best, best_err = None, np.inf
            for f in range(X.shape[1]):
                if f in chosen:
                    continue
                Z = X[:, chosen + [f]]
                H = Z @ np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T)
                err = np.sum(((y - H @ y) / (1 - np.diag(H))) ** 2)
                if err < best_err:
                    best, best_err = f, err
            chosen.append(best)


SUITES = [RLSSuite, LinearRLSSuite, LPOSuite, RankRLSSuite, RankSVMSuite, KronSuite,
          CGGreedySuite]


def peak_memory(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_suite(cls, scale, repeats):
    suite = cls()
    suite.setup(scale)
    rows = []
    for name in dir(suite):
        if name.startswith("time_") and not name.startswith("time_baseline_"):
            task = name[5:]
            base = getattr(suite, "time_baseline_" + task, None)
            ours, _ = median_time(getattr(suite, name), repeats)
            theirs = median_time(base, max(1, repeats))[0] if base else None
            if task == "lpo" and base:
                theirs *= suite.s.size / suite.sample.size
            rows.append((cls.__name__, task, suite.label, "time", ours, theirs,
                         (base.__doc__ or "").strip() if base else ""))
        elif name.startswith("peakmem_") and not name.startswith("peakmem_baseline_"):
            task = name[8:]
            base = getattr(suite, "peakmem_baseline_" + task, None)
            ours = peak_memory(getattr(suite, name))
            theirs = peak_memory(base) if base else None
            rows.append((cls.__name__, task, suite.label, "peakmem", ours, theirs, ""))
    return rows


BASELINES = {
    ("RLSSuite", "fit"): "sklearn KernelRidge.fit",
    ("RLSSuite", "loo_path"): "sklearn RidgeCV on the kernel matrix",
    ("LinearRLSSuite", "loo_path"): "sklearn RidgeCV (LOO)",
    ("LPOSuite", "lpo"): "KernelRidge retrained per pair (extrapolated)",
    ("RankRLSSuite", "lqo"): "QueryRankRLS retrained per query, 1 lambda",
    ("RankSVMSuite", "fit"): "sklearn LinearSVC on pair differences",
    ("KronSuite", "fit"): "np.kron + Cholesky solve",
    ("CGGreedySuite", "cg"): "sklearn Ridge(sparse_cg)",
    ("CGGreedySuite", "greedy"): "naive forward selection (LOO)",
}


def _fmt(kind, v):
    if v is None:
        return "-"
    return f"{v:.3f} s" if kind == "time" else f"{v / 2**20:.1f} MiB"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="half-size problems")
    ap.add_argument("--repeats", type=int, default=3, help="runs per timing (median)")
    args = ap.parse_args(argv)
    scale = SCALE["quick" if args.quick else "full"]
    t0 = time.perf_counter()
    print(f"load average {load():.2f}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}"
          f", OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; median of "
          f"{args.repeats} runs\n")
    print("| suite | task | size | measure | rlscore | baseline | baseline value | "
          "ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for cls in SUITES:
        for suite, task, label, kind, ours, theirs, _ in run_suite(cls, scale, args.repeats):
            ratio = f"{ours / theirs:.3f}" if theirs else "-"
            print(f"| {suite} | {task} | {label} | {kind} | {_fmt(kind, ours)} | "
                  f"{BASELINES.get((suite, task), '-')} | {_fmt(kind, theirs)} | {ratio} |",
                  flush=True)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s; load average now {load():.2f}")


if __name__ == "__main__":
    main()
