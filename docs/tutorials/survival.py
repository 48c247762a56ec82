"""Survival ranking on GBSG2: rlscore's survival RankRLS (linear and Gaussian kernel,
regparam and gamma chosen inside each training fold by the exact hold-out) and linear
survival RankSVM, beside scikit-survival's Cox model, survival SVMs and random survival
forest, on the same five folds, scored by Harrell's C on the held-out patients.

``python survival.py`` prints the table (GBSG2 ships with rlscore:
:func:`rlscore.datasets.load_gbsg2`); ``--no-sksurv`` leaves out scikit-survival
(``pip install scikit-survival``; not an rlscore dependency).
"""

import argparse
import sys
import time as _time

import numpy as np

from rlscore.core.survival import SurvivalRankRLSModel, holdout_cindex
from rlscore.datasets import load_gbsg2
from rlscore.learner import SurvivalRankSVM
from rlscore.measure import concordance_index_censored

#: 13 regparams for RankRLS, 6 for the RankSVMs, 3 kernel widths (times 1 / d)
RLS_GRID = tuple(2.0 ** k for k in range(-6, 7))
SVM_GRID = tuple(10.0 ** k for k in range(-4, 2))
GAMMAS = (0.25, 1.0, 4.0)


def encode(columns):
    """The raw GBSG2 columns as a numeric matrix: the two yes/no columns as 0/1, the
    tumour grade as 1, 2, 3, log(1 + x) of the skewed counts (positive nodes, the two
    receptors), age and tumour size as they are. (m, 8)."""
    return np.column_stack([
        columns["horTh"] == "yes",
        columns["age"],
        columns["menostat"] == "Post",
        columns["tsize"],
        np.searchsorted(["I", "II", "III"], columns["tgrade"]) + 1,
        np.log1p(columns["pnodes"]),
        np.log1p(columns["progrec"]),
        np.log1p(columns["estrec"]),
    ]).astype(np.float64)


def standardize(Xtr, Xte):
    """Scale by the training rows' mean and standard deviation only."""
    mu, sd = Xtr.mean(0), Xtr.std(0)
    sd[sd == 0] = 1.0
    return (Xtr - mu) / sd, (Xte - mu) / sd


def folds_of(m, k, seed):
    return np.array_split(np.random.default_rng(seed).permutation(m), k)


def pooled_c(time, event, folds, preds):
    return holdout_cindex(event, time, folds, preds)["cindex_pooled"]


def select_rankrls(X, time, event, inner, kernel):
    """(regparam, gamma) maximizing the pooled hold-out Harrell's C of the inner folds,
    every regparam of RLS_GRID from one exact hold-out per gamma, and the model trained
    on all of X with them."""
    best = (-np.inf, None, None, None)
    gammas = GAMMAS if kernel == "GaussianKernel" else (None,)
    d = X.shape[1]
    for g in gammas:
        params = {} if g is None else {"gamma": g / d}
        model = SurvivalRankRLSModel(X, time, event, 1.0, kernel, **params)
        H = model.holdout(inner, regparams=RLS_GRID)
        for k, lam in enumerate(RLS_GRID):
            c = pooled_c(time, event, inner, [h[k] for h in H])
            if c > best[0]:
                best = (c, lam, params, model)
    _, lam, params, model = best
    return model.solve(lam).predictor.predict


def select_by_refits(X, time, event, inner, grid, fit):
    """The grid value maximizing the pooled Harrell's C of refits on the inner folds,
    and the predict function of the model refitted on all of X with it. ``fit(X, time,
    event, value)`` returns a predict function (risk scores)."""
    best = (-np.inf, None)
    m = X.shape[0]
    for v in grid:
        preds = []
        for h in inner:
            r = np.setdiff1d(np.arange(m), h)
            preds.append(fit(X[r], time[r], event[r], v)(X[h]))
        c = pooled_c(time, event, inner, preds)
        if c > best[0]:
            best = (c, v)
    return fit(X, time, event, best[1])


def fit_survival_ranksvm(X, time, event, regparam):
    return SurvivalRankSVM(X, time, event, regparam=regparam, loss="squared_hinge").predict


def methods(sksurv=True):
    """name -> train(X, time, event, inner_folds) returning a predict function."""
    out = {
        "survival RankRLS, linear (rlscore)":
            lambda X, t, e, inner: select_rankrls(X, t, e, inner, "LinearKernel"),
        "survival RankRLS, Gaussian (rlscore)":
            lambda X, t, e, inner: select_rankrls(X, t, e, inner, "GaussianKernel"),
        "survival RankSVM, linear (rlscore)":
            lambda X, t, e, inner: select_by_refits(X, t, e, inner, SVM_GRID,
                                                    fit_survival_ranksvm),
    }
    if not sksurv:
        return out
    from sksurv.ensemble import RandomSurvivalForest
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.svm import FastKernelSurvivalSVM, FastSurvivalSVM
    from sksurv.util import Surv

    def sk(make):
        def fit(X, t, e, v):
            est = make(v).fit(X, Surv.from_arrays(e, t))
            return est.predict
        return fit

    out["CoxPHSurvivalAnalysis (scikit-survival)"] = \
        lambda X, t, e, inner: sk(lambda v: CoxPHSurvivalAnalysis())(X, t, e, None)
    out["FastSurvivalSVM (scikit-survival)"] = \
        lambda X, t, e, inner: select_by_refits(
            X, t, e, inner, SVM_GRID,
            sk(lambda a: FastSurvivalSVM(alpha=a, max_iter=100, random_state=0)))
    out["RandomSurvivalForest (scikit-survival)"] = \
        lambda X, t, e, inner: sk(lambda v: RandomSurvivalForest(
            n_estimators=100, min_samples_leaf=15, random_state=0, n_jobs=1))(X, t, e, None)
    # one fit takes about a minute of CPU on 548 patients: alpha is fixed (its
    # default), not selected
    out["FastKernelSurvivalSVM, rbf, alpha=1 (scikit-survival)"] = \
        lambda X, t, e, inner: sk(lambda v: FastKernelSurvivalSVM(
            alpha=1.0, kernel="rbf", gamma=1.0 / X.shape[1], max_iter=100,
            random_state=0))(X, t, e, None)
    return out


def run(n_rows=None, n_folds=5, n_inner=3, seed=0, sksurv=True, only=None,
        verbose=False):
    """Harrell's C on each outer fold and the CPU seconds of each training (selection
    included) of every method: {name: (cindices (n_folds,), seconds (n_folds,))}.
    ``n_rows`` takes a random subset of GBSG2 (the tests' small runs); ``verbose``
    prints each method's row on stderr when it is done."""
    columns, time, event = load_gbsg2()
    X = encode(columns)
    if n_rows is not None:
        keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], n_rows,
                                                          replace=False))
        X, time, event = X[keep], time[keep], event[keep]
    outer = folds_of(X.shape[0], n_folds, seed)
    res = {}
    for name, train in methods(sksurv).items():
        if only is not None and name not in only:
            continue
        cs, secs = [], []
        for h in outer:
            r = np.setdiff1d(np.arange(X.shape[0]), h)
            Xtr, Xte = standardize(X[r], X[h])
            inner = folds_of(r.size, n_inner, seed + 1)
            t0 = _time.process_time()
            predict = train(Xtr, time[r], event[r], inner)
            secs.append(_time.process_time() - t0)
            cs.append(concordance_index_censored(event[h], time[h], predict(Xte))[0])
        res[name] = (np.array(cs), np.array(secs))
        if verbose:
            print(table({name: res[name]}).splitlines()[-1], file=sys.stderr, flush=True)
    return res


def table(res):
    lines = ["| method | test Harrell's C (mean ± std) | fit s / fold |",
             "|---|---|---|"]
    for name, (c, s) in res.items():
        lines.append(f"| {name} | {c.mean():.3f} ± {c.std():.3f} | {s.mean():.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--no-sksurv", action="store_true")
    args = ap.parse_args()
    print(table(run(sksurv=not args.no_sksurv, verbose=True)))


if __name__ == "__main__":
    main()
