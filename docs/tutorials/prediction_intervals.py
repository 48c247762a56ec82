"""Prediction intervals for free: jackknife+ and CV+ from the exact hold-out models of
RLS, against MAPIE's jackknife+ / CV+ with scikit-learn's KernelRidge (same kernel,
alpha = regparam), which refits the model once per example / fold.

``python prediction_intervals.py`` runs the diabetes part (scikit-learn's bundled data
set, no download); ``--davis FOLDER`` (or the environment variable ``RLSCORE_DATA``
naming the folder that holds ``davis/``) adds the Davis drug-target affinities with
drug-wise CV+. ``--no-mapie`` skips the comparison (MAPIE is not a dependency of
rlscore: ``pip install mapie``).
"""

import argparse
import os
import time

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.kernel_ridge import KernelRidge

from rlscore.learner import RLS, KfoldRLS, LeaveOneOutRLS

METHODS = ("jackknife", "jackknife+", "jackknife-minmax", "cv+")


def _coverage(y, lo, hi):
    return float(np.mean((lo <= y) & (y <= hi))), float(np.mean(hi - lo))


# -- diabetes (442 patients, 10 features) --------------------------------------------

def diabetes_split(seed, n_train=300):
    """Standardized features, a random train/test split of scikit-learn's diabetes."""
    from sklearn.datasets import load_diabetes
    X, y = load_diabetes(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], y[tr], X[te], y[te]


def mapie_jackknife_plus(X, y, Xt, regparam, gamma, alpha, cv=None, groups=None):
    """MAPIE's jackknife+ (cv=None: LeaveOneOut) or CV+ (cv a splitter) with
    KernelRidge; returns (lower, upper, seconds)."""
    from mapie.regression import CrossConformalRegressor
    from sklearn.model_selection import LeaveOneOut
    est = (KernelRidge(alpha=regparam, kernel="rbf", gamma=gamma) if gamma is not None
           else regparam)        # a ready estimator may be passed as ``regparam``
    t0 = time.process_time()
    reg = CrossConformalRegressor(est, confidence_level=1 - alpha, method="plus",
                                  cv=LeaveOneOut() if cv is None else cv)
    reg.fit_conformalize(X, y, groups=groups)
    _, iv = reg.predict_interval(Xt, aggregate_point_predictions=None)
    return iv[:, 0, 0], iv[:, 1, 0], time.process_time() - t0


def run_diabetes(n_splits=20, alpha=0.1, gamma=0.05, n_folds=10, mapie=True):
    """Coverage and width of each method over ``n_splits`` random splits (regparam chosen
    by leave-one-out on each training set), and on the first split the comparison
    with MAPIE: seconds of each and the largest difference of the bounds.

    Returns dict with "methods": {method: (coverage, width)}, "regparams", and
    "mapie": (ours seconds, MAPIE seconds, max |difference|) or None.
    """
    stats = {m: [] for m in METHODS}
    regparams, comparison = [], None
    grid = [2.0 ** k for k in range(-8, 9)]
    for s in range(n_splits):
        X, y, Xt, yt = diabetes_split(s)
        lam = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=gamma,
                             regparams=grid).regparam
        regparams.append(lam)
        t0 = time.process_time()
        model = RLS(X, y, regparam=lam, kernel="GaussianKernel", gamma=gamma)
        _, lo, hi = model.predict_interval(Xt, alpha, "jackknife+")
        t_ours = time.process_time() - t0
        stats["jackknife+"].append(_coverage(yt, lo, hi))
        for method in ("jackknife", "jackknife-minmax"):
            stats[method].append(_coverage(yt, *model.predict_interval(Xt, alpha, method)[1:]))
        _, clo, chi = model.predict_interval(Xt, alpha, "cv+", n_folds=n_folds, seed=s)
        stats["cv+"].append(_coverage(yt, clo, chi))
        if s == 0 and mapie:
            mlo, mhi, t_mapie = mapie_jackknife_plus(X, y, Xt, lam, gamma, alpha)
            comparison = (t_ours, t_mapie,
                          float(max(np.abs(lo - mlo).max(), np.abs(hi - mhi).max())))
    return {"methods": {m: tuple(np.mean(v, axis=0)) for m, v in stats.items()},
            "regparams": regparams, "mapie": comparison}


# -- Davis: pairs (drug, kinase), drug-wise CV+ ---------------------------------------

class PairKernelRidge(RegressorMixin, BaseEstimator):
    """scikit-learn's KernelRidge on the pair kernel KD[d, d'] KT[t, t'] for rows
    (drug index, target index), so that MAPIE can refit it on any subset of pairs."""

    def __init__(self, KD=None, KT=None, alpha=1.0):
        self.KD, self.KT, self.alpha = KD, KT, alpha

    def _kernel(self, A, B):
        a, b = A.astype(int), B.astype(int)
        return self.KD[np.ix_(a[:, 0], b[:, 0])] * self.KT[np.ix_(a[:, 1], b[:, 1])]

    def fit(self, X, y):
        self.X_ = np.asarray(X)
        self.kr_ = KernelRidge(alpha=self.alpha, kernel="precomputed").fit(
            self._kernel(self.X_, self.X_), y)
        return self

    def predict(self, X):
        return self.kr_.predict(self._kernel(np.asarray(X), self.X_))


def davis_pairs(folder, n_train_drugs=50, m=1500, n_test=1000, seed=0):
    """Pairs of the Davis data: m training pairs of ``n_train_drugs`` random drugs, and
    n_test pairs of the other (new) drugs and n_test unseen pairs of the training drugs.
    Returns (KD, KT, train, y, test_new, y_new, test_known, y_known); the pair arrays
    hold (drug, target) rows."""
    from rlscore.datasets import load_davis
    KD, KT, Y = load_davis(folder)
    KT = KT / np.sqrt(np.outer(np.diag(KT), np.diag(KT)))   # unit diagonal
    rng = np.random.default_rng(seed)
    drugs = rng.permutation(KD.shape[0])
    train_drugs = np.isin(np.arange(KD.shape[0]), drugs[:n_train_drugs])
    d, t = np.meshgrid(np.arange(KD.shape[0]), np.arange(KT.shape[0]), indexing="ij")
    pairs = np.column_stack([d.ravel(), t.ravel()])
    known = np.flatnonzero(train_drugs[pairs[:, 0]])
    new = np.flatnonzero(~train_drugs[pairs[:, 0]])
    known = rng.permutation(known)
    tr, te_known = known[:m], known[m:m + n_test]
    te_new = rng.choice(new, size=min(n_test, new.size), replace=False)
    y = Y.ravel()
    return KD, KT, pairs[tr], y[tr], pairs[te_new], y[te_new], pairs[te_known], y[te_known]


def pair_kernel(KD, KT, A, B):
    return KD[np.ix_(A[:, 0], B[:, 0])] * KT[np.ix_(A[:, 1], B[:, 1])]


def run_davis(folder, alpha=0.1, n_folds=10, mapie=True, **split):
    """Jackknife+ (pairs exchangeable) and drug-wise CV+ (``n_folds`` folds of whole
    drugs, scikit-learn's GroupKFold) on new drugs and on new pairs of known drugs.

    Returns dict (method, test set) -> (coverage, width), "regparam", "times"
    {method: seconds} and "mapie": (ours seconds, MAPIE seconds, max |difference|) of
    drug-wise CV+, or None.
    """
    from sklearn.model_selection import GroupKFold
    KD, KT, P, y, Pn, yn, Pk, yk = davis_pairs(folder, **split)
    K = pair_kernel(KD, KT, P, P)
    drugs = P[:, 0]
    folds = [te for _, te in GroupKFold(n_folds).split(P, y, drugs)]
    lam = KfoldRLS(K, y, folds, kernel="PrecomputedKernel",
                   regparams=[2.0 ** k for k in range(-6, 7)]).regparam
    out = {"regparam": lam, "times": {}}
    for method, kw in (("jackknife+", {}), ("cv+ (drug-wise)", {"folds": folds})):
        t0 = time.process_time()
        model = RLS(K, y, regparam=lam, kernel="PrecomputedKernel")
        res_new = model.predict_interval(pair_kernel(KD, KT, Pn, P), alpha,
                                         method.split()[0], **kw)
        out["times"][method] = time.process_time() - t0
        res_known = model.predict_interval(pair_kernel(KD, KT, Pk, P), alpha,
                                           method.split()[0], **kw)
        out[(method, "new drugs")] = _coverage(yn, *res_new[1:])
        out[(method, "known drugs")] = _coverage(yk, *res_known[1:])
        if method.startswith("cv+"):
            ours_new = res_new
    out["mapie"] = None
    if mapie:
        est = PairKernelRidge(KD=KD, KT=KT, alpha=lam)
        mlo, mhi, t_mapie = mapie_jackknife_plus(P.astype(float), y, Pn.astype(float),
                                                 est, None, alpha, cv=GroupKFold(n_folds),
                                                 groups=drugs)
        out["mapie"] = (out["times"]["cv+ (drug-wise)"], t_mapie,
                        float(max(np.abs(ours_new[1] - mlo).max(),
                                  np.abs(ours_new[2] - mhi).max())))
    return out


def table_diabetes(res, alpha=0.1):
    lines = [f"diabetes, Gaussian RLS, 20 random splits (300 train / 142 test), "
             f"1 - alpha = {1 - alpha:.2f}",
             "| method | coverage | mean width |", "|---|---|---|"]
    for m, (c, w) in res["methods"].items():
        lines.append(f"| {m} | {c:.3f} | {w:.1f} |")
    if res["mapie"]:
        t, tm, d = res["mapie"]
        lines.append(f"\njackknife+ on split 0 (CPU seconds, one BLAS thread): rlscore "
                     f"{t:.3f} s (training included), MAPIE {tm:.2f} s ({tm / t:.0f}x), "
                     f"largest bound difference {d:.1e}")
    return "\n".join(lines)


def table_davis(res, alpha=0.1):
    lines = [f"Davis pKd, pair kernel, regparam {res['regparam']:g}, 1 - alpha = "
             f"{1 - alpha:.2f}",
             "| method | test set | coverage | mean width |", "|---|---|---|---|"]
    for key, val in res.items():
        if isinstance(key, tuple):
            lines.append(f"| {key[0]} | {key[1]} | {val[0]:.3f} | {val[1]:.2f} |")
    if res["mapie"]:
        t, tm, d = res["mapie"]
        lines.append(f"\ndrug-wise CV+ (CPU seconds, one BLAS thread): rlscore {t:.2f} s "
                     f"(training included), MAPIE {tm:.2f} s ({tm / t:.0f}x), largest bound "
                     f"difference {d:.1e}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--davis", help="folder of the Davis files")
    ap.add_argument("--no-mapie", action="store_true")
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = ap.parse_args()
    import importlib.util
    # MAPIE is optional: without it the script reports rlscore's intervals alone
    mapie = not args.no_mapie and importlib.util.find_spec("mapie") is not None
    folder = args.davis
    if folder is None and os.environ.get("RLSCORE_DATA"):
        folder = os.path.join(os.environ["RLSCORE_DATA"], "davis")
    # one BLAS thread for both libraries: comparable times on a shared machine
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.threads):
        print(table_diabetes(run_diabetes(n_splits=args.splits, mapie=mapie)), flush=True)
        if folder:
            print()
            print(table_davis(run_davis(folder, mapie=mapie)))


if __name__ == "__main__":
    main()
