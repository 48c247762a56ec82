"""Survival ranking on GBSG2: rlscore's survival RankRLS (linear and Gaussian kernel,
regparam and gamma chosen inside each training fold by the exact hold-out) and linear
survival RankSVM, beside scikit-survival's Cox model, survival SVMs and random survival
forest, on the same five folds, scored by Harrell's C on the held-out patients.

``python survival.py`` prints the table (GBSG2 ships with rlscore:
:func:`rlscore.datasets.load_gbsg2`); ``--no-sksurv`` leaves out scikit-survival
(``pip install scikit-survival``; not an rlscore dependency). ``--sets`` runs the same
protocol on the six data sets of ``sksurv.datasets`` (scikit-survival needed for the
data; categoricals one-hot encoded, rows with a missing value or a zero time dropped)
and prints one table of every method on every set; ``--json FILE`` also writes the
results.
"""

import argparse
import json
import re
import sys
import warnings
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


def select_rankrls(X, time, event, inner, kernel, n_basis=None):
    """(regparam, gamma) maximizing the pooled hold-out Harrell's C of the inner folds,
    every regparam of RLS_GRID from one exact hold-out per gamma, and the model trained
    on all of X with them. ``n_basis``: the kernel model on that many Nystrom centres
    (training rows drawn at random, kept in every hold-out model) instead of the dual
    form, for training sets whose m x m kernel eigendecomposition is too slow."""
    best = (-np.inf, None, None, None)
    gammas = GAMMAS if kernel == "GaussianKernel" else (None,)
    d = X.shape[1]
    basis = None
    if n_basis is not None and kernel != "LinearKernel" and n_basis < X.shape[0]:
        basis = X[np.sort(np.random.default_rng(0).choice(X.shape[0], n_basis,
                                                          replace=False))]
    for g in gammas:
        params = {} if g is None else {"gamma": g / d}
        model = SurvivalRankRLSModel(X, time, event, 1.0, kernel, basis_vectors=basis,
                                     **params)
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


#: training folds above this many rows: the Gaussian RankRLS on NYSTROM_CENTRES
#: Nystrom centres, the random survival forest's trees on bootstrap samples of
#: RSF_MAX_SAMPLES rows (``methods(large=True)``)
MAX_DUAL = 2000
NYSTROM_CENTRES = 1000
RSF_MAX_SAMPLES = 1000


def methods(sksurv=True, large=False):
    """name -> train(X, time, event, inner_folds) returning a predict function.
    ``large``: the bounded variants of MAX_DUAL (their names say so)."""
    n_basis = NYSTROM_CENTRES if large else None
    gauss = (f"survival RankRLS, Gaussian, {NYSTROM_CENTRES} Nystrom centres (rlscore)"
             if large else "survival RankRLS, Gaussian (rlscore)")
    out = {
        "survival RankRLS, linear (rlscore)":
            lambda X, t, e, inner: select_rankrls(X, t, e, inner, "LinearKernel"),
        gauss:
            lambda X, t, e, inner: select_rankrls(X, t, e, inner, "GaussianKernel",
                                                  n_basis),
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
    rsf = (f"RandomSurvivalForest, trees on {RSF_MAX_SAMPLES} rows (scikit-survival)"
           if large else "RandomSurvivalForest (scikit-survival)")
    out[rsf] = \
        lambda X, t, e, inner: sk(lambda v: RandomSurvivalForest(
            n_estimators=100, min_samples_leaf=15, random_state=0, n_jobs=1,
            max_samples=RSF_MAX_SAMPLES if large else None, low_memory=large))(
                X, t, e, None)
    # one fit takes about a minute of CPU on 548 patients: alpha is fixed (its
    # default), not selected
    out["FastKernelSurvivalSVM, rbf, alpha=1 (scikit-survival)"] = \
        lambda X, t, e, inner: sk(lambda v: FastKernelSurvivalSVM(
            alpha=1.0, kernel="rbf", gamma=1.0 / X.shape[1], max_iter=100,
            random_state=0))(X, t, e, None)
    return out


def run(n_rows=None, n_folds=5, n_inner=3, seed=0, sksurv=True, only=None,
        verbose=False, data=None, skip=(), failed=None, warned=None):
    """Harrell's C on each outer fold and the CPU seconds of each training (selection
    included) of every method: {name: (cindices (n_folds,), seconds (n_folds,))}.
    ``n_rows`` takes a random subset of GBSG2 (the tests' small runs); ``verbose``
    prints each method's row on stderr when it is done. ``data``: (X, time, event)
    instead of GBSG2 (training folds of more than MAX_DUAL rows take the bounded
    methods, ``methods(large=True)``); ``skip``: parts of names of methods not run
    (their row left out); ``failed``, ``warned``: dicts that, when given, collect the
    error of a method that raised (its row then left out) and the warnings of each."""
    warned = {} if warned is None else warned
    if data is None:
        columns, time, event = load_gbsg2()
        X = encode(columns)
    else:
        X, time, event = data
    if n_rows is not None:
        keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], n_rows,
                                                          replace=False))
        X, time, event = X[keep], time[keep], event[keep]
    outer = folds_of(X.shape[0], n_folds, seed)
    res = {}
    large = X.shape[0] - min(h.size for h in outer) > MAX_DUAL
    for name, train in methods(sksurv, large).items():
        if (only is not None and name not in only) or any(k in name for k in skip):
            continue
        cs, secs = [], []
        try:
            with warnings.catch_warnings(record=failed is not None) as caught:
                for h in outer:
                    r = np.setdiff1d(np.arange(X.shape[0]), h)
                    Xtr, Xte = standardize(X[r], X[h])
                    inner = folds_of(r.size, n_inner, seed + 1)
                    t0 = _time.process_time()
                    predict = train(Xtr, time[r], event[r], inner)
                    secs.append(_time.process_time() - t0)
                    cs.append(concordance_index_censored(event[h], time[h],
                                                         predict(Xte))[0])
        except (ArithmeticError, ValueError, np.linalg.LinAlgError) as err:
            if failed is None:
                raise
            failed[name] = f"{type(err).__name__}: {str(err)[:120]}"
            continue
        if caught:
            warned[name] = sorted({f"{w.category.__name__}: {str(w.message)[:120]}"
                                   for w in caught})
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


#: the six data sets of sksurv.datasets: name -> loader
SETS = {"GBSG2": "load_gbsg2", "WHAS500": "load_whas500", "FLCHAIN": "load_flchain",
        "veterans": "load_veterans_lung_cancer", "AIDS": "load_aids",
        "breast cancer": "load_breast_cancer"}

#: columns dropped before encoding: FLCHAIN's ``chapter`` is the chapter of the cause
#: of death, known only for those who died (the outcome itself)
DROP = {"FLCHAIN": ("chapter",)}

#: (data set, method name part) -> why that cell is not run here
NOT_RUN = {
    ("FLCHAIN", "FastKernelSurvivalSVM"):
        "the 5,217 x 5,217 kernel of a training fold and minutes per fit "
        "(benchmarks/bench_survival_rankrls.py --kernel-5000 times one at 5,000 rows)",
}


def load_set(name):
    """(X (m, p) float, time, event, rows dropped) of one ``sksurv.datasets`` set:
    DROP columns removed, categoricals one-hot encoded
    (``sksurv.column.encode_categorical``, first level dropped), rows with a missing
    value or a time of zero (FLCHAIN has 3, which scikit-survival's models refuse)
    dropped."""
    from sksurv import datasets
    from sksurv.column import encode_categorical
    Xdf, y = getattr(datasets, SETS[name])()
    Xdf = Xdf.drop(columns=list(DROP.get(name, ())))
    ev, tm = y.dtype.names          # (event, time) in every set
    keep = ~Xdf.isna().any(axis=1).to_numpy() & (y[tm] > 0)
    Xdf = Xdf[keep]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        X = encode_categorical(Xdf).to_numpy(dtype=np.float64)
    return X, y[tm][keep].astype(np.float64), y[ev][keep].astype(bool), int((~keep).sum())


def run_sets(names=tuple(SETS), n_rows=None, sksurv=True, only=None, verbose=False,
             not_run=None, seed=0):
    """:func:`run` on each named ``sksurv.datasets`` set, the same folds for every
    method of a set: {set: {"rows", "features", "events", "dropped", "results":
    {method: (cindices, seconds)}, "not_run": {method part: reason}, "failed":
    {method: error}, "warnings": {method: [messages]}}}. ``n_rows`` caps each set at a
    random subset (the tests)."""
    not_run = NOT_RUN if not_run is None else not_run
    out = {}
    for name in names:
        X, time, event, dropped = load_set(name)
        if n_rows is not None and n_rows < X.shape[0]:
            keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], n_rows,
                                                              replace=False))
            X, time, event = X[keep], time[keep], event[keep]
        skip = {part: why for (s, part), why in not_run.items() if s == name}
        if verbose:
            print(f"{name}: {X.shape[0]} rows, {X.shape[1]} features, "
                  f"{int(event.sum())} events, {dropped} rows dropped", file=sys.stderr,
                  flush=True)
        failed, warned = {}, {}
        out[name] = {"rows": X.shape[0], "features": X.shape[1],
                     "events": int(event.sum()), "dropped": dropped,
                     "results": run(data=(X, time, event), sksurv=sksurv, only=only,
                                    verbose=verbose, skip=tuple(skip), seed=seed,
                                    failed=failed, warned=warned),
                     "not_run": skip, "failed": failed, "warnings": warned}
    return out


def row_key(method):
    """The table row of a method: its name without the bounded variant's size."""
    return re.sub(r", (\d+ Nystrom centres|trees on \d+ rows)", "", method)


def table_sets(res):
    """One markdown table: a row per method, a column per set, each cell "test C mean
    ± std (fit s / fold)", marked * for the bounded variant (``methods(large=True)``),
    or why it is missing."""
    names = list(res)
    lines = ["| method | " + " | ".join(
        f"{n} ({r['rows']} rows, {r['features']} features, {r['events']} events)"
        for n, r in res.items()) + " |", "|---" * (len(names) + 1) + "|"]
    rows = {}
    for n, r in res.items():
        for method, (c, s) in r["results"].items():
            star = "*" if row_key(method) != method else ""
            rows.setdefault(row_key(method), {})[n] = (
                f"{np.mean(c):.3f} ± {np.std(c):.3f} ({np.mean(s):.2f} s){star}")
        for method, why in r.get("failed", {}).items():
            rows.setdefault(row_key(method), {})[n] = f"failed ({why})"
    for n, r in res.items():
        for part, why in r["not_run"].items():
            for key in rows:
                if part in key:
                    rows[key][n] = f"not run ({why})"
    for key, cells in rows.items():
        lines.append(f"| {key} | " + " | ".join(cells.get(n, "-") for n in names) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--no-sksurv", action="store_true")
    ap.add_argument("--sets", nargs="*", metavar="SET",
                    help=f"the sksurv.datasets sets (default all: {', '.join(SETS)})")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    if args.sets is None:
        res = run(sksurv=not args.no_sksurv, verbose=True)
        print(table(res))
        dump = {k: [c.tolist(), s.tolist()] for k, (c, s) in res.items()}
    else:
        res = run_sets(args.sets or tuple(SETS), sksurv=not args.no_sksurv,
                       verbose=True)
        print(table_sets(res))
        dump = {n: dict(r, results={k: [c.tolist(), s.tolist()]
                                    for k, (c, s) in r["results"].items()})
                for n, r in res.items()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dump, f, indent=1)


if __name__ == "__main__":
    main()
