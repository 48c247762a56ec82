"""Nystrom reduced-set learning and basis-removal cross-validation, in one run.

(a) Gaussian reduced-set RLS, m=100000, |R|=500, 31 lambdas with leave-one-out
    (rlscore.learner.LeaveOneOutRLS, n_basis=500) vs scikit-learn Nystroem(500) +
    RidgeCV(31 alphas, efficient LOO).
(b) Leave-group-out CV, m=10000, |R|=1000, 500 groups, one lambda: basis-removal
    hold-outs (rlscore) vs recomputing the map and retraining for each fold; max
    difference of the predictions printed.
(c) The experiment of Airola et al. 2011 (Fig. 1) in miniature: group-structured data,
    basis vectors drawn per group, 10-fold group-level CV; MSE over lambda of CV that
    keeps held-out basis vectors vs CV that removes them vs a fresh test set.

    python benchmarks/bench_nystrom.py [--quick] [--plot PATH]

Set OMP_NUM_THREADS / OPENBLAS_NUM_THREADS before running (default here: 1).
"""

import argparse
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import scipy.linalg as la  # noqa: E402

from rlscore.core.rls import RLSModel  # noqa: E402
from rlscore.kernel import GaussianKernel  # noqa: E402
from rlscore.learner import LeaveOneOutRLS  # noqa: E402

GRID = [2.0 ** k for k in range(-15, 16)]


def median_time(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


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


def _group_data(n_groups, per_group, d=5, seed=0, noise=0.3):
    """Groups with a shared random offset in input and output space (group-dependent
    examples, as the parses of one sentence)."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(n_groups, d))
    shift = rng.normal(size=n_groups)
    g = np.repeat(np.arange(n_groups), per_group)
    X = centers[g] + 0.3 * rng.normal(size=(g.size, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + shift[g] + noise * rng.normal(size=g.size)
    return X, y, g


def bench_b(m, r, n_groups, repeats):
    X, y, g = _group_data(n_groups, m // n_groups, seed=1)
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


def bias_experiment(n_groups=120, per_group=20, per_group_basis=2, n_folds=10,
                    lambdas=None, seed=0):
    """Pessimistic bias of CV that keeps held-out basis vectors (Airola et al. 2011,
    Fig. 1, in miniature). Returns (lambdas, mse_keep, mse_remove, mse_test)."""
    if lambdas is None:
        lambdas = np.logspace(-9, 9, 19)
    X, y, g = _group_data(n_groups, per_group, seed=seed)
    Xt, yt, _ = _group_data(n_groups, per_group, seed=seed + 100)
    rng = np.random.default_rng(seed)
    basis = np.sort(np.concatenate([rng.choice(np.flatnonzero(g == k), per_group_basis,
                                               replace=False) for k in range(n_groups)]))
    gfold = rng.permutation(n_groups) % n_folds
    folds = [np.flatnonzero(gfold[g] == k) for k in range(n_folds)]
    gamma = 0.2
    models = {keep: RLSModel(X, y, lambdas[0], "GaussianKernel", basis_indices=basis,
                             keep_basis_in_cv=keep, path=True, gamma=gamma)
              for keep in (True, False)}
    res = {True: [], False: [], "test": []}
    for lam in lambdas:
        for keep, model in models.items():
            model.solve(lam)
            err = np.concatenate([(model.holdout(f)[:, 0] - y[f]) for f in folds])
            res[keep].append(float(np.mean(err ** 2)))
        pt = models[False].predictor.predict(Xt)
        res["test"].append(float(np.mean((np.ravel(pt) - yt) ** 2)))
    return np.asarray(lambdas), np.array(res[True]), np.array(res[False]), \
        np.array(res["test"])


def plot_bias(path, lambdas, keep, remove, test):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(lambdas, keep, "o-", label="CV keeping held-out basis vectors")
    ax.loglog(lambdas, remove, "s-", label="CV removing them (Theorem 1)")
    ax.loglog(lambdas, test, "k--", label="independent test set")
    ax.set_xlabel("regularization parameter lambda")
    ax.set_ylabel("mean squared error")
    ax.set_title("Group-level 10-fold CV, 2 basis vectors per group")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--plot", default=None, help="save the plot of (c) to this path")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"load average: {os.getloadavg()}, OMP_NUM_THREADS="
          f"{os.environ['OMP_NUM_THREADS']}, OPENBLAS_NUM_THREADS="
          f"{os.environ['OPENBLAS_NUM_THREADS']}")
    reps = 1 if args.quick else args.repeats
    ma, ra = (10000, 200) if args.quick else (100000, 500)
    mb, rb, gb = (2000, 200, 100) if args.quick else (10000, 1000, 500)
    t_ours, t_sk = bench_a(ma, ra, reps)
    t_rem, t_base, diff = bench_b(mb, rb, gb, reps)
    print()
    print("| benchmark | rlscore (s) | baseline (s) | ratio | note |")
    print("|---|---|---|---|---|")
    print(f"| (a) reduced-set RLS LOO, m={ma}, R={ra}, 31 lambdas | {t_ours:.2f} | "
          f"{t_sk:.2f} (Nystroem+RidgeCV) | {t_ours / t_sk:.3f} | target <= 0.3 |")
    print(f"| (b) leave-group-out, m={mb}, R={rb}, {gb} groups | {t_rem:.2f} | "
          f"{t_base:.2f} (recompute map per fold, 25 folds timed, extrapolated) | speed-up {t_base / t_rem:.1f} | "
          f"max |diff| = {diff:.2e} |")
    lams, keep, remove, test = bias_experiment(
        n_groups=60 if args.quick else 120)
    print()
    print("(c) MSE of group-level 10-fold CV, basis 2 per group")
    print("| lambda | CV keeping basis | CV removing basis | test set | keep / remove |")
    print("|---|---|---|---|---|")
    for lam, a, b, c in zip(lams, keep, remove, test):
        print(f"| {lam:.0e} | {a:.4f} | {b:.4f} | {c:.4f} | {a / b:.2f} |")
    if args.plot:
        plot_bias(args.plot, lams, keep, remove, test)
        print(f"plot saved to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
