"""Survival RankRLS (issue 43): unit against time-difference magnitudes on GBSG2, and the
exact hold-out against refits, ratios against baselines run in the same process.

Rows:

(a) GBSG2 (686 patients, ``../shared/data/gbsg2`` or ``RLSCORE_GBSG2``; skipped when
    absent): 5-fold cross-validation (random folds, seed 0), the hold-out predictions
    of every regparam of a grid from the exact hold-out, Harrell's C pooled over the
    folds and the mean per fold at the best regparam, for the linear and the Gaussian
    kernel (standardized features, gamma = 1 / d), unit and magnitude-preserving pairs.
    The choice of regparam on the same folds makes these optimistic: they compare
    the two costs, not estimate a test C.
(b) the exact K-fold (K = 5, 10; methods auto, stream, subgraph) and leave-one-out
    (auto) against plain refits (``method="refit"``, a new model per fold), 13
    regparams (target for the K-fold "auto" rows: <= 0.2 of the refits' time), linear (m = 4000, d = 20; LOO m = 800) and Gaussian dual (m = 600; LOO
    m = 200).

Timings are the median of ``--repeats`` runs, one BLAS thread; the machine load is
printed. Run:  python benchmarks/bench_survival_rankrls.py [--repeats 3]
"""

import argparse
import os

from _data import data_folder
from _timing import HEADER, limit_threads, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402


def gbsg2():
    d = data_folder("gbsg2", "RLSCORE_GBSG2")
    if d is None:
        return None
    import csv
    with open(os.path.join(d, "gbsg2.csv")) as f:
        rows = list(csv.DictReader(f))
    cols = []
    for key in ("age", "tsize", "pnodes", "progrec", "estrec"):
        cols.append([float(r[key]) for r in rows])
    cols.append([r["horTh"] == "yes" for r in rows])
    cols.append([r["menostat"] == "Post" for r in rows])
    cols.append([{"I": 1, "II": 2, "III": 3}[r["tgrade"]] for r in rows])
    X = np.array(cols, dtype=float).T
    X[:, [2, 3, 4]] = np.log1p(X[:, [2, 3, 4]])
    X = (X - X.mean(0)) / X.std(0)
    time = np.array([float(r["time"]) for r in rows])
    event = np.array([r["cens"] == "1" for r in rows])
    return X, time, event


def cv_table(X, time, event):
    from rlscore.core.survival import SurvivalRankRLSModel, holdout_cindex
    rng = np.random.default_rng(0)
    folds = np.array_split(rng.permutation(time.size), 5)
    grid = [2.0 ** k for k in range(-10, 11, 2)]
    print("| kernel | pairs | pooled C | mean fold C | best regparam |\n|---|---|---|---|---|")
    for kernel, kw in (("linear", {}),
                       ("Gaussian", dict(kernel="GaussianKernel", gamma=1.0 / X.shape[1]))):
        for mags in (False, True):
            # scale the time differences to mean 1 so the grids are comparable
            t = time / np.mean(time) if mags else time
            model = SurvivalRankRLSModel(X, t, event, regparam=1.0, magnitudes=mags, **kw)
            preds = model.holdout(folds, regparams=grid)
            best = None
            for k, lam in enumerate(grid):
                sc = holdout_cindex(event, time, folds, [p[k] for p in preds])
                if best is None or sc["cindex_pooled"] > best[0]:
                    best = (sc["cindex_pooled"], np.nanmean(sc["cindex_per_fold"]), lam)
            print(f"| {kernel} | {'time differences' if mags else 'unit'} | "
                  f"{best[0]:.4f} | {best[1]:.4f} | {best[2]:g} |", flush=True)


def holdout_rows(repeats):
    from rlscore.core.survival import SurvivalRankRLSModel
    rng = np.random.default_rng(1)
    grid = [2.0 ** k for k in range(-6, 7)]       # 13 regparams (issue 43)
    print(HEADER)
    for name, m, d, m_loo, kw in (
            ("linear", 4000, 20, 800, {}),
            ("Gaussian dual", 600, 5, 200, dict(kernel="GaussianKernel", gamma=0.2))):
        X = rng.standard_normal((m, d))
        t = np.round(rng.exponential(np.exp(-X[:, 0])), 2)
        event = rng.random(m) < 0.6
        model = SurvivalRankRLSModel(X, t, event, regparam=1.0, **kw)
        for K in (5, 10):
            folds = np.array_split(rng.permutation(m), K)
            for method in ("auto", "stream", "subgraph"):
                ours, _ = median_time(lambda: model.holdout(folds, grid, method=method),
                                      repeats)
                base, _ = median_time(lambda: model.holdout(folds, grid, method="refit"),
                                      1)
                row(f"{name} m={m}: {K}-fold, {len(grid)} regparams, {method}", ours,
                    base, "plain refits", target=0.2 if method == "auto" else None)
            # the refits a user writes: a new model per fold and per regparam
            def per_regparam():
                for h in folds:
                    r = np.setdiff1d(np.arange(m), h)
                    for lam in grid:
                        SurvivalRankRLSModel(X[r], t[r], event[r], regparam=lam,
                                             **kw).predictor.predict(X[h])
            ours, _ = median_time(lambda: model.holdout(folds, grid), repeats)
            base, _ = median_time(per_regparam, 1)
            row(f"{name} m={m}: {K}-fold, {len(grid)} regparams, auto", ours, base,
                "a refit per fold and regparam", target=0.2)
        small = SurvivalRankRLSModel(X[:m_loo], t[:m_loo], event[:m_loo], regparam=1.0,
                                     **kw)
        ours, _ = median_time(lambda: small.leave_one_out(grid), 1)
        base, _ = median_time(lambda: small.leave_one_out(grid, method="refit"), 1)
        row(f"{name} m={m_loo}: leave-one-out, {len(grid)} regparams, auto", ours, base,
            "plain refits")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--holdout-only", action="store_true",
                    help="only the hold-out against refits rows (b)")
    args = ap.parse_args()
    print(machine_line())
    data = None if args.holdout_only else gbsg2()
    if data is not None:
        cv_table(*data)
    holdout_rows(args.repeats)


if __name__ == "__main__":
    main()
