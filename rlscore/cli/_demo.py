"""``rlscore demo``: the library's main job on the shipped Statlog heart sample -- the
regularization chosen by exact leave-one-out and leave-pair-out, in milliseconds."""

import time

import numpy as np


def _demo(args):
    from rlscore.datasets import load_heart
    from rlscore.learner import LeaveOneOutRLS, LeavePairOutRLS
    from rlscore.measure import auc
    from rlscore.utilities.cross_validation import random_folds

    X, y = load_heart()
    m, d = X.shape
    print(f"Statlog heart sample: {m} patients, {d} features, "
          f"{int(np.sum(y > 0))} with heart disease (+1), {int(np.sum(y < 0))} without (-1)")
    grid = [2.0 ** k for k in range(-10, 11)]

    t0 = time.perf_counter()
    lin = LeaveOneOutRLS(X, y, regparams=grid)
    t_lin = time.perf_counter() - t0
    print(f"\nLinear RLS, regparam chosen by exact leave-one-out over {len(grid)} values "
          f"({t_lin * 1000:.0f} ms): regparam = {lin.regparam:g}, "
          f"LOO mean squared error = {lin.cv_performances.min():.4f}")
    loo = lin.cv_predictions[int(np.argmin(lin.cv_performances))]
    print(f"  AUC of the leave-one-out predictions: {auc(y, loo):.4f}")
    W = np.asarray(lin.predictor.W)
    order = np.argsort(-np.abs(W))[:5]
    print("  largest weights: " + ", ".join(f"feature {i + 1}: {W[i]:+.3f}" for i in order))

    gamma = 1.0 / d
    t0 = time.perf_counter()
    gau = LeavePairOutRLS(X, y, kernel="GaussianKernel", gamma=gamma, regparams=grid)
    t_gau = time.perf_counter() - t0
    n_pairs = int(np.sum(y > 0)) * int(np.sum(y < 0))
    print(f"\nGaussian-kernel RLS (gamma = 1/{d}), regparam chosen by exact leave-pair-out "
          f"AUC over all {n_pairs} positive-negative pairs and {len(grid)} values "
          f"({t_gau * 1000:.0f} ms):")
    print(f"  regparam = {gau.regparam:g}, leave-pair-out AUC = {gau.cv_performances.max():.4f}")

    folds = random_folds(m, 10, seed=args.seed)
    P = np.empty(m)
    for fold in folds:
        P[fold] = gau.learner.holdout(fold)
    print(f"  pooled 10-fold AUC at that regparam (exact hold-out shortcut): {auc(y, P):.4f}")
    print("\nEvery estimate above is exact: it equals retraining without the held-out "
          "examples, computed without retraining.")
    return 0
