"""Nystrom reduced-set learning and basis-removal cross-validation, in one run.

(a) Gaussian reduced-set RLS, m=100000, |R|=500, 31 lambdas with leave-one-out
    (rlscore.learner.LeaveOneOutRLS, n_basis=500) vs scikit-learn Nystroem(500) +
    RidgeCV(31 alphas, efficient LOO).
(b) Leave-group-out CV, m=10000, |R|=1000, 500 groups, one lambda: basis-removal
    hold-outs (rlscore) vs recomputing the map and retraining for each fold; max
    difference of the predictions printed.
The experiment of Airola et al. 2011 (Fig. 1) in miniature -- the bias of CV that keeps
held-out basis vectors -- is the tutorial docs/tutorials/nystrom_basis_removal.py.

    python benchmarks/bench_nystrom.py [--quick]

Set OMP_NUM_THREADS / OPENBLAS_NUM_THREADS before running (default here: 1).
"""

import argparse
import sys

from _timing import HEADER, limit_threads, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402
import scipy.linalg as la  # noqa: E402

from rlscore.core.nystrom import RLSModel
from rlscore.datasets import make_grouped_regression  # noqa: E402
from rlscore.kernel import GaussianKernel  # noqa: E402
from rlscore.learner import LeaveOneOutRLS  # noqa: E402

GRID = [2.0 ** k for k in range(-15, 16)]


def bench_a(m, r, repeats):
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeCV
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, 10))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=m)
    gamma = 0.1

    def ours():
        return LeaveOneOutRLS(X, y, "GaussianKernel", regparams=GRID, n_basis=r,
                              random_state=0, gamma=gamma)

    def theirs():
        F = Nystroem(gamma=gamma, n_components=r, random_state=0).fit_transform(X)
        return RidgeCV(alphas=GRID).fit(F, y)

    t_ours, _ = median_time(ours, repeats)
    t_sk, _ = median_time(theirs, repeats)
    return t_ours, t_sk


def bench_b(m, r, n_groups, repeats):
    X, y, g = make_grouped_regression(n_groups, m // n_groups, random_state=1)
    basis = np.sort(np.random.default_rng(2).choice(m, size=r, replace=False))
    gamma, lam = 0.2, 1.0
    folds = [np.flatnonzero(g == k) for k in range(n_groups)]

    def ours():
        model = RLSModel(X, y, lam, "GaussianKernel", basis_indices=basis, path=True,
                         gamma=gamma)
        return np.concatenate([model.holdout(f)[:, 0] for f in folds])

    kobj = GaussianKernel(X=X[basis], gamma=gamma)

    def recompute():
        # per fold: the map of the remaining basis from scratch (Cholesky of K_LL,
        # triangular solve for K_ML C^{-T}) and the primal solution on the training rows
        K_MR = kobj.getKM(X)
        K_RR = kobj.getKM(X[basis])
        out = []
        for f in folds[:n_base]:
            keep = ~np.isin(basis, f)
            train = np.setdiff1d(np.arange(m), f)
            C = la.cholesky(K_RR[np.ix_(keep, keep)], lower=True)
            Phi = la.solve_triangular(C, K_MR[:, keep].T, lower=True).T
            Pt = Phi[train]
            w = la.solve(Pt.T @ Pt + lam * np.eye(C.shape[0]), Pt.T @ y[train],
                         assume_a="pos")
            out.append(Phi[f] @ w)
        return np.concatenate(out)

    # recomputing takes O(m r^2) per fold: timed on the first n_base folds and
    # extrapolated to all of them (each fold costs the same)
    n_base = min(len(folds), 25)
    t_ours, P1 = median_time(ours, repeats)
    t_base, P2 = median_time(recompute, max(1, repeats // 2))
    t_base *= len(folds) / n_base
    return t_ours, t_base, float(np.abs(P1[:P2.size] - P2).max())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(machine_line())
    reps = 1 if args.quick else args.repeats
    ma, ra = (10000, 200) if args.quick else (100000, 500)
    mb, rb, gb = (2000, 200, 100) if args.quick else (10000, 1000, 500)
    t_ours, t_sk = bench_a(ma, ra, reps)
    t_rem, t_base, diff = bench_b(mb, rb, gb, reps)
    print()
    print(HEADER)
    row(f"(a) reduced-set RLS LOO, m={ma}, R={ra}, 31 lambdas", t_ours, t_sk,
        "Nystroem+RidgeCV", 0.3)
    row(f"(b) leave-group-out, m={mb}, R={rb}, {gb} groups", t_rem, t_base,
        "recompute map per fold, 25 folds timed, extrapolated",
        note=f"speed-up {t_base / t_rem:.1f}; max abs diff = {diff:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
