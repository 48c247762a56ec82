"""Drug-target affinity prediction on Davis and Metz with the Kronecker learners:
DeepDTA's setting 1 (their folds, pKd, regparam chosen by cross-validation on the
training folds only) and settings B-D (new drugs, new targets, both new) with
drug-wise / target-wise / both-wise folds and nested model selection.

``python drug_target.py [--data FOLDER] [--metz N]``: FOLDER holds ``davis/`` (and
``metz/``); default ``$RLSCORE_DATA`` or ``../shared/data`` next to the repository.
"""

import argparse
import json
import os
import pathlib
import sys
import time
import warnings

import numpy as np

from rlscore.datasets import load_davis, load_metz
from rlscore.core.kronecker import repair_kernel
from rlscore.learner import CGKronRLS, KronRLS
from rlscore.measure import cindex, rm2
from rlscore.utilities.pairs import flat_to_pairs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairwise_mkl import splits  # noqa: E402  (the settings A-D folds, one home)

GRID = [2.0 ** k for k in range(4, -7, -2)]        # decreasing: warm starts follow it


def mse(y, p):
    return float(np.mean((np.asarray(y) - np.asarray(p)) ** 2))


def data_folder(arg=None):
    if arg:
        return pathlib.Path(arg)
    env = os.environ.get("RLSCORE_DATA")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"


def cosine(K):
    """Unit diagonal: K_ij / sqrt(K_ii K_jj) (keeps a PSD matrix PSD)."""
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def davis_kernels(folder, target_kernel="cosine-SW", indefinite="raise"):
    """Drug kernel: the 2D similarity file; target kernel: the raw Smith-Waterman
    scores cosine-normalized (PSD), or Pahikkala's normalized SW file / 100
    ("normalized-SW", indefinite: smallest eigenvalue -2.59), repaired by
    ``indefinite`` ("shift" / "clip", with a warning) so that training and the
    predictions for these same objects use one kernel."""
    raw = target_kernel == "cosine-SW"
    KD, KT, Y = load_davis(folder, target_kernel="raw" if raw else "normalized")
    KT = cosine(KT) if raw else KT / 100.0
    KT, _ = repair_kernel(0.5 * (KT + KT.T), indefinite, "KT")
    return KD, KT, Y


def deepdta_folds(folder):
    """DeepDTA's setting-1 split as (row, col) pairs of the 68 x 442 matrix: their
    files hold row-major flat indices (drug * 442 + target)."""
    with open(pathlib.Path(folder) / "folds" / "test_fold_setting1.txt") as fh:
        test = np.array(json.load(fh))
    with open(pathlib.Path(folder) / "folds" / "train_fold_setting1.txt") as fh:
        train = [np.array(f) for f in json.load(fh)]
    return test, train


def fit_cg(KD, KT, rows, cols, y, regparams, maxiter=300, **kw):
    """CGKronRLS along a decreasing regparam path, each point warm-started from the
    previous one; returns the list of predictors (labels centred by their mean)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # maxiter reached on tiny regparams
        m = CGKronRLS(K1=KD, K2=KT, Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=regparams[0], maxiter=maxiter, tol=1e-5, **kw)
        return m.solve_path(regparams)


def setting1(KD, KT, Y, test, train, grid=GRID):
    """DeepDTA's setting 1: pick regparam by 5-fold CV over the training folds (each
    fold predicted by the model trained on the other four), refit on all training
    folds, score the test fold once."""
    shape = Y.shape
    t0, c0 = time.perf_counter(), time.process_time()
    tr_all = np.concatenate(train)
    cv = np.zeros((len(grid), 2))
    for j, fold in enumerate(train):
        tr = np.concatenate([f for k, f in enumerate(train) if k != j])
        r, c = flat_to_pairs(tr, shape, order="C")
        rv, cvv = flat_to_pairs(fold, shape, order="C")
        mu = Y[r, c].mean()
        preds = fit_cg(KD, KT, r, c, Y[r, c] - mu, grid)
        for g, p in enumerate(preds):
            pv = p.predict(KD, KT, rv, cvv) + mu
            cv[g] += (cindex(Y[rv, cvv], pv), mse(Y[rv, cvv], pv))
    cv /= len(train)
    best = int(np.argmin(cv[:, 1]))
    r, c = flat_to_pairs(tr_all, shape, order="C")
    rt, ct = flat_to_pairs(test, shape, order="C")
    mu = Y[r, c].mean()
    path = grid[: best + 1]
    p = fit_cg(KD, KT, r, c, Y[r, c] - mu, path)[-1]
    pt = p.predict(KD, KT, rt, ct) + mu
    return dict(regparam=grid[best], cv_ci=cv[best, 0], cv_mse=cv[best, 1],
                ci=cindex(Y[rt, ct], pt), mse=mse(Y[rt, ct], pt),
                seconds=time.perf_counter() - t0, cpu=time.process_time() - c0)


def object_folds(n, k, rng):
    perm = rng.permutation(n)
    return [np.sort(perm[i::k]) for i in range(k)]


def settings_bcd(KD, KT, Y, k=5, grid=GRID, seed=0, trace=None):
    """Settings B-D on the complete matrix: outer k-fold over drugs (B), targets (C)
    or both (D: every drug fold x target fold block, trained without those drugs and
    targets); regparam chosen by the same kind of k-fold inside the outer training
    part (KronRLS's exact hold-outs, no refits), then one model per outer fold.
    Returns {setting: (c-index, MSE, wall seconds, CPU seconds)} over the pooled
    outer predictions;
    ``trace`` (a dict, if given) receives per setting the prediction matrix and the
    (outer drugs, outer targets, inner drug folds, inner target folds, regparam) of
    every outer fold."""
    rng = np.random.default_rng(seed)
    n1, n2 = Y.shape
    out = {}
    for setting in "BCD":
        t0, c0 = time.perf_counter(), time.process_time()
        df = object_folds(n1, k, rng) if setting in "BD" else [np.array([], int)]
        tf = object_folds(n2, k, rng) if setting in "CD" else [np.array([], int)]
        P = np.full(Y.shape, np.nan)
        for R in df:
            for C in tf:
                T1, T2 = np.setdiff1d(np.arange(n1), R), np.setdiff1d(np.arange(n2), C)
                Ytr = Y[np.ix_(T1, T2)]
                mu = Ytr.mean()
                m = KronRLS(K1=KD[np.ix_(T1, T1)], K2=KT[np.ix_(T2, T2)], Y=Ytr - mu,
                            regparam=None)
                inner_r = object_folds(T1.size, k, rng)
                inner_c = object_folds(T2.size, k, rng)
                scores = []
                for lam in grid:
                    m.solve(lam)
                    if setting == "B":
                        p = m.x1_kfold_cv(inner_r)
                    elif setting == "C":
                        p = m.x2_kfold_cv(inner_c)
                    else:
                        p = m.out_of_sample_kfold_cv(inner_r, inner_c)
                    scores.append(mse(Ytr.ravel(order="F") - mu, p))
                m.solve(grid[int(np.argmin(scores))])
                RR = R if R.size else T1
                CC = C if C.size else T2
                pred = KD[np.ix_(RR, T1)] @ m.A @ KT[np.ix_(T2, CC)] + mu
                P[np.ix_(RR, CC)] = pred
                if trace is not None:
                    trace.setdefault(setting, {"P": P, "folds": []})["folds"].append(
                        (R, C, inner_r, inner_c, m.regparam))
        mask = ~np.isnan(P)
        out[setting] = (cindex(Y[mask], P[mask]), mse(Y[mask], P[mask]),
                        time.perf_counter() - t0, time.process_time() - c0)
    return out


def metz_settings(KD, KT, Y, k=5, grid=(4.0, 1.0), seed=0, maxiter=100,
                  settings="ABCD", n_outer=None, log=None):
    """Metz (incomplete, both kernels indefinite) in settings A-D over the labelled
    pairs: k outer folds of pairs (A), of drugs (B), of targets (C), or (D) the k
    diagonal blocks drug fold i x target fold i, trained on the pairs of neither
    (the folds of :func:`pairwise_mkl.splits`). Inside each outer training part one
    inner fold of the same setting picks regparam along a warm-started CGKronRLS path
    (at most ``maxiter`` MINRES iterations per regparam); the model refitted on the
    whole training part predicts the outer fold. ``n_outer`` runs the first folds
    only; ``log`` (a callable) receives each fold's row as it finishes.

    Returns {setting: list of per-fold dicts (fold, n_test, regparam, ci, mse,
    seconds, cpu)}."""
    rows, cols = np.where(~np.isnan(Y))
    y = Y[rows, cols]
    out = {}
    for setting in settings:
        rng = np.random.default_rng(seed)
        out[setting] = []
        for f, (tr, te) in enumerate(splits(setting, rows, cols, k, rng)[:n_outer]):
            t0, c0 = time.perf_counter(), time.process_time()
            itr, iva = splits(setting, rows[tr], cols[tr], k, rng)[0]
            fit, va = tr[itr], tr[iva]
            mu = y[fit].mean()
            preds = fit_cg(KD, KT, rows[fit], cols[fit], y[fit] - mu, list(grid),
                           maxiter=maxiter)
            errs = [mse(y[va], p.predict(KD, KT, rows[va], cols[va]) + mu) for p in preds]
            best = int(np.argmin(errs))
            mu = y[tr].mean()
            p = fit_cg(KD, KT, rows[tr], cols[tr], y[tr] - mu, list(grid[: best + 1]),
                       maxiter=maxiter)[-1]
            pt = p.predict(KD, KT, rows[te], cols[te]) + mu
            row = dict(setting=setting, fold=f + 1, n_test=int(te.size),
                       regparam=grid[best], ci=float(cindex(y[te], pt)),
                       mse=mse(y[te], pt), seconds=time.perf_counter() - t0,
                       cpu=time.process_time() - c0)
            out[setting].append(row)
            if log is not None:
                log(row)
    return out


def metz_table(res):
    """Markdown rows: per setting the mean ± sample standard deviation over the outer
    folds of the test c-index and MSE, the number of folds, the chosen regparams and
    the CPU seconds per fold."""
    names = {"A": "A: new pairs", "B": "B: new drugs", "C": "C: new targets",
             "D": "D: both new"}
    lines = ["| setting | folds | test CI | test MSE | regparams | CPU s / fold |",
             "|---|---|---|---|---|---|"]
    for s, folds in res.items():
        ci = np.array([f["ci"] for f in folds])
        e = np.array([f["mse"] for f in folds])
        lams = ",".join(f"{f['regparam']:g}" for f in folds)
        sd = (lambda v: v.std(ddof=1)) if len(folds) > 1 else (lambda v: np.nan)
        lines.append(f"| {names[s]} | {len(folds)} | {ci.mean():.3f} ± {sd(ci):.3f} | "
                     f"{e.mean():.3f} ± {sd(e):.3f} | {lams} | "
                     f"{np.mean([f['cpu'] for f in folds]):.0f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", metavar="FOLDER", help="folder holding davis/ and metz/")
    ap.add_argument("--metz", type=int, default=0, metavar="N",
                    help="also run Metz on its first N outer folds (minutes each)")
    ap.add_argument("--metz-only", action="store_true", help="skip Davis")
    ap.add_argument("--settings", default="ABCD", help="Metz settings (default ABCD)")
    ap.add_argument("--skip-setting1", action="store_true",
                    help="Davis: settings B-D only")
    ap.add_argument("--learned", type=int, default=0, metavar="N",
                    help="Davis: only learned kernels vs the grid, new drugs, N outer "
                         "folds")
    ap.add_argument("--methods", default="grid,learned",
                    help="with --learned: grid, learned (LOO criterion), evidence")
    ap.add_argument("--intervals", action="store_true",
                    help="Davis: only the 90%% jackknife+ intervals for new drugs")
    ap.add_argument("--intervals-both", action="store_true",
                    help="Davis: only the 90%% CV+ intervals for a new drug with a new "
                         "target (setting D)")
    ap.add_argument("--metz-learned", type=int, default=0, metavar="N",
                    help="Metz: only new drugs with learned kernels, the grid and CV+ "
                         "intervals, N outer folds")
    args = ap.parse_args(argv)
    root = data_folder(args.data)
    if args.metz_learned:
        KD, KT, Y = load_metz(root / "metz")
        res = metz_new_drugs(KD, KT, Y, n_outer=args.metz_learned)
        cov = np.array(res.pop("intervals"))
        print(learned_table(res, seconds="wall s per fold"))
        print(f"Metz, new drugs, 90% CV+ by drug: coverage per outer fold "
              f"{', '.join(f'{c:.3f}' for c in cov[:, 0])}, mean width "
              f"{cov[:, 1].mean():.3f}")
        return None
    if args.metz_only:
        return run_metz(root, args)
    davis = root / "davis"
    if args.learned:
        KD, KT, Y = davis_kernels(davis)
        res = learned_vs_grid(KD, KT, Y, n_outer=args.learned,
                              methods=args.methods.split(","))
        print(learned_table(res))
        return None
    if args.intervals or args.intervals_both:
        KD, KT, Y = davis_kernels(davis)
        t0, c0 = time.perf_counter(), time.process_time()
        by = "both" if args.intervals_both else "drugs"
        r = new_drug_intervals(KD, KT, Y, by=by)
        print(f"Davis, new {by}, 90% intervals by {by}: coverage {r['coverage']:.3f}, "
              f"mean width {r['width']:.3f}; per outer fold "
              f"{', '.join(f'{c:.3f}' for c in r['per_fold'])}; alphas "
              f"{', '.join(f'{a:g}' for a in r['alphas'])}; "
              f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")
        return None
    if not args.skip_setting1:
        davis_setting1(davis)
    KD, KT, Y = davis_kernels(davis)
    print("\nDavis, settings B-D (5-fold outer, 5-fold inner model selection; per outer "
          "fold: mean ± sample std over the outer folds, D's 25 blocks)")
    print("| setting | pooled CI | pooled MSE | CI per fold | MSE per fold | wall s | "
          "CPU s |\n|---|---|---|---|---|---|---|")
    trace = {}
    for s, (c, e, sec, cpu) in settings_bcd(KD, KT, Y, trace=trace).items():
        ci, err = fold_scores(trace[s], Y)
        print(f"| {s} | {c:.3f} | {e:.3f} | {ci.mean():.3f} ± {ci.std(ddof=1):.3f} | "
              f"{err.mean():.3f} ± {err.std(ddof=1):.3f} | {sec:.0f} | {cpu:.0f} |")
    if args.metz:
        run_metz(root, args)


def pairs_of(rows, cols):
    """Every pair (row, col) of the given objects, as PairwiseRLS's (n, 2) samples."""
    return np.column_stack([np.repeat(rows, len(cols)), np.tile(cols, len(rows))])


def new_drug_intervals(KD, KT, Y, alpha=0.1, k=5, seed=0, method="jackknife+", by="drugs"):
    """Prediction intervals for new drugs: outer k-fold over drugs; in each training
    part PairwiseRLSCV chooses alpha by exact leave-one-drug-out CV (setting B) and
    ``predict_interval(by="drugs")`` gives jackknife+ intervals (the models without
    each training drug, no refit) for every pair of the held-out drugs. Labels are
    centred by the training mean. ``by="both"`` (setting D): the k diagonal blocks
    drug fold i x target fold i are held out, each trained without those drugs and
    targets; PairwiseRLSCV(cv="both", n_folds=k) chooses alpha and
    ``predict_interval(by="both", n_folds=k)`` gives CV+ intervals from the models
    without each block of a training drug fold and a training target fold. Returns
    the coverage and the mean width over all held-out pairs, the coverage per outer
    fold and the chosen alphas."""
    from rlscore.estimators import PairwiseRLSCV
    n1, n2 = Y.shape
    rng = np.random.default_rng(seed)
    folds = object_folds(n1, k, rng)
    tfolds = object_folds(n2, k, rng) if by == "both" else [np.arange(n2)] * k
    covered, width, per_fold, alphas = [], [], [], []
    for R, C in zip(folds, tfolds):
        train = np.setdiff1d(np.arange(n1), R)
        ttrain = np.setdiff1d(np.arange(n2), C) if by == "both" else np.arange(n2)
        tr, te = pairs_of(train, ttrain), pairs_of(R, C)
        y = Y[tr[:, 0], tr[:, 1]]
        mu = y.mean()
        est = PairwiseRLSCV(KD, KT, kernel="precomputed", cv=by,
                            n_folds=k if by == "both" else None).fit(tr, y - mu)
        _, lo, hi = est.predict_interval(te, miscoverage=alpha, method=method,
                                         n_folds=k if by == "both" else None)
        yt = Y[te[:, 0], te[:, 1]] - mu
        inside = (lo <= yt) & (yt <= hi)
        covered.append(inside)
        width.append(hi - lo)
        per_fold.append(inside.mean())
        alphas.append(est.alpha_)
    covered, width = np.concatenate(covered), np.concatenate(width)
    return dict(coverage=float(covered.mean()), width=float(width.mean()),
                per_fold=per_fold, alphas=alphas)


def learned_vs_grid(KD, KT, Y, k=5, seed=0, n_outer=None, log=print,
                    methods=("grid", "learned")):
    """New drugs (outer k-fold over drugs): the given kernels with alpha chosen by
    exact leave-one-drug-out CV (PairwiseRLSCV(cv="drugs")) beside one Gaussian gamma
    per domain learned on the similarity matrices with alpha (PairwiseRLS(gamma=
    "learn"), the in-sample leave-one-pair-out criterion). Labels centred by the
    training mean. ``"drugs"`` learns the widths and alpha by the exact
    leave-one-drug-out error (setting B) and its gradient instead. Returns
    {method: [(ci, mse, CPU seconds, rm2), ...]} over the outer folds."""
    from rlscore.estimators import PairwiseRLS, PairwiseRLSCV
    n1, n2 = Y.shape
    folds = object_folds(n1, k, np.random.default_rng(seed))[:n_outer]
    targets = np.arange(n2)
    out = {name: [] for name in methods}
    for R in folds:
        train = np.setdiff1d(np.arange(n1), R)
        tr, te = pairs_of(train, targets), pairs_of(R, targets)
        y = Y[tr[:, 0], tr[:, 1]]
        mu = y.mean()
        yt = Y[te[:, 0], te[:, 1]]
        candidates = {
            "grid": PairwiseRLSCV(KD, KT, kernel="precomputed", cv="drugs"),
            "learned": PairwiseRLS(KD, KT, kernel="precomputed", gamma="learn"),
            "evidence": PairwiseRLS(KD, KT, kernel="precomputed", gamma="learn",
                                    criterion="evidence"),
            "drugs": PairwiseRLS(KD, KT, kernel="precomputed", gamma="learn",
                                 criterion="drugs")}
        for name in methods:
            est = candidates[name]
            t0 = time.process_time()            # CPU: the machine may be shared
            p = est.fit(tr, y - mu).predict(te) + mu
            out[name].append((cindex(yt, p), mse(yt, p), time.process_time() - t0,
                              rm2(yt, p)))
            log(name, out[name][-1], getattr(est, "gamma1_", None),
                getattr(est, "gamma2_", None), getattr(est, "alpha_", None))
    return out


def learned_table(res, seconds="CPU s per fold"):
    """Markdown rows: per method the mean ± sample standard deviation over the outer
    folds of the test c-index, MSE and r_m^2, and the seconds per fold (the column
    named ``seconds``: CPU for :func:`learned_vs_grid`, wall-clock for
    :func:`metz_new_drugs`)."""
    lines = [f"| new drugs | test CI | test MSE | test r_m^2 | {seconds} |",
             "|---|---|---|---|---|"]
    for name, rows in res.items():
        a = np.array(rows, dtype=float)
        sd = (lambda v: v.std(ddof=1)) if len(a) > 1 else (lambda v: np.nan)
        lines.append(f"| {name} | {a[:, 0].mean():.3f} ± {sd(a[:, 0]):.3f} | "
                     f"{a[:, 1].mean():.3f} ± {sd(a[:, 1]):.3f} | "
                     f"{a[:, 3].mean():.3f} ± {sd(a[:, 3]):.3f} | {a[:, 2].mean():.0f} |")
    return "\n".join(lines)


#: options of :func:`metz_new_drugs`
METZ_LEARNED = dict(grid=(4.0, 1.0), maxiter=100, alpha=0.1, n_learn=20000,
                    max_evaluations=25)


def metz_new_drugs(KD, KT, Y, k=5, seed=0, n_outer=None, log=print, opts=None):
    """Metz (incomplete), new drugs: outer k-fold over drugs. In each training part

    * ``grid``: the given (shifted) kernels, regparam from ``grid`` by one inner fold
      of drugs along a warm-started CGKronRLS path (as :func:`metz_settings`);
    * ``learned``: one Gaussian width per domain on the similarity-induced distance
      (:func:`rlscore.core.hyper.similarity_features`) and regparam, by Nelder-Mead on
      the 3-fold leave-drugs-out error of the sampled solver
      (:func:`rlscore.core.hyper.learn_sampled_kron_kernel`) over at most ``n_learn``
      training pairs, then refitted on all of them;
    * 90% CV+ intervals by drug for the grid model: k inner folds of training drugs,
      each refitted without its drugs (k CGKronRLS fits), the residuals of its drugs'
      pairs and its predictions for the outer fold's pairs, through
      :class:`rlscore.core.rls.IntervalModel`.

    Labels are centred by the training mean; ``opts`` overrides :data:`METZ_LEARNED`
    (``grid``, ``maxiter`` of MINRES, miscoverage ``alpha``, ``n_learn``,
    ``max_evaluations``). Returns {"grid": [...], "learned": [...]} rows (ci, mse,
    wall-clock seconds, rm2) and "intervals": (coverage, mean width, wall-clock
    seconds) per outer fold."""
    from rlscore.core.hyper import (SampledKernelSearch, learn_sampled_kron_kernel,
                                    similarity_features)
    from rlscore.core.rls import IntervalModel
    o = dict(METZ_LEARNED, **(opts or {}))
    grid, maxiter, alpha = tuple(o["grid"]), o["maxiter"], o["alpha"]
    rows, cols = np.where(~np.isnan(Y))
    y = Y[rows, cols]
    n1 = Y.shape[0]
    rng = np.random.default_rng(seed)
    drug_folds = object_folds(n1, k, rng)[:n_outer]
    KDs, _ = repair_kernel(0.5 * (KD + KD.T), "shift", "KD")
    KTs, _ = repair_kernel(0.5 * (KT + KT.T), "shift", "KT")
    FD, FT = similarity_features(KD, "KD"), similarity_features(KT, "KT")
    out = {"grid": [], "learned": [], "intervals": []}
    for R in drug_folds:
        te = np.flatnonzero(np.isin(rows, R))
        tr = np.flatnonzero(~np.isin(rows, R))
        yt = y[te]
        # the grid: regparam by one inner fold of drugs
        t0 = time.perf_counter()
        inner = object_folds(n1, k, rng)
        va = tr[np.isin(rows[tr], inner[0])]
        fit = tr[~np.isin(rows[tr], inner[0])]
        mu = y[fit].mean()
        preds = fit_cg(KDs, KTs, rows[fit], cols[fit], y[fit] - mu, list(grid),
                       maxiter=maxiter)
        errs = [mse(y[va], p.predict(KDs, KTs, rows[va], cols[va]) + mu) for p in preds]
        lam = grid[int(np.argmin(errs))]
        mu = y[tr].mean()
        model = fit_cg(KDs, KTs, rows[tr], cols[tr], y[tr] - mu, list(grid[: grid.index(lam)
                                                                           + 1]),
                       maxiter=maxiter)[-1]
        p = model.predict(KDs, KTs, rows[te], cols[te]) + mu
        out["grid"].append((cindex(yt, p), mse(yt, p), time.perf_counter() - t0,
                            rm2(yt, p)))
        log("grid", lam, out["grid"][-1])
        # CV+ by drug: k refits without each inner fold of training drugs
        t0 = time.perf_counter()
        res = np.empty(tr.size)
        fold_of = np.empty(tr.size, dtype=np.intp)
        cols_out = []
        for f, F in enumerate(inner):
            hold = np.isin(rows[tr], F)
            sub = tr[~hold]
            m_f = fit_cg(KDs, KTs, rows[sub], cols[sub], y[sub] - mu, [lam],
                         maxiter=maxiter)[-1]
            res[hold] = y[tr[hold]] - mu - m_f.predict(KDs, KTs, rows[tr[hold]],
                                                       cols[tr[hold]])
            fold_of[hold] = f
            cols_out.append(m_f.predict(KDs, KTs, rows[te], cols[te]))

        class Columns:                      # the full model and the k fold models
            def predict(self, X):              # X: (u, 1) positions among te
                X = np.asarray(X, dtype=np.intp)[:, 0]
                return np.column_stack([p[X] - mu] + [c[X] for c in cols_out])
        im = IntervalModel(Columns(), 1, "folds", res[:, None], fold_of=fold_of)
        _, lo, hi = im.predict_interval(np.arange(te.size)[:, None], alpha, "cv+")
        inside = (lo[:, 0] + mu <= yt) & (yt <= hi[:, 0] + mu)
        out["intervals"].append((float(inside.mean()), float(np.mean(hi - lo)),
                                 time.perf_counter() - t0))
        log("intervals", out["intervals"][-1])
        # learned widths and regparam on the sampled solver
        t0 = time.perf_counter()
        sub = tr if tr.size <= o["n_learn"] else np.sort(rng.choice(tr, o["n_learn"],
                                                                   replace=False))
        r = learn_sampled_kron_kernel(
            FD, FT, y[sub], rows[sub], cols[sub], setting="drugs", n_folds=3,
            search=SampledKernelSearch(max_evaluations=o["max_evaluations"],
                                       maxiter=maxiter, rtol=1e-6))
        K1, K2 = (f.evaluate(t)[0] for f, t in ((r.family1, r.theta1),
                                                (r.family2, r.theta2)))
        mu = y[tr].mean()
        m = fit_cg(K1, K2, rows[tr], cols[tr], y[tr] - mu, [r.regparam],
                   maxiter=maxiter)[-1]
        p = m.predict(K1, K2, rows[te], cols[te]) + mu
        out["learned"].append((cindex(yt, p), mse(yt, p), time.perf_counter() - t0,
                               rm2(yt, p)))
        log("learned", r.regparam, r.kernel_params1, r.kernel_params2,
            len(r.history), out["learned"][-1])
    return out


def fold_scores(trace, Y):
    """(c-index, MSE) arrays over the outer folds (D: blocks) of one setting of
    :func:`settings_bcd`, from its ``trace``."""
    ci, err = [], []
    for R, C, *_ in trace["folds"]:
        RR = R if R.size else np.arange(Y.shape[0])
        CC = C if C.size else np.arange(Y.shape[1])
        y, p = Y[np.ix_(RR, CC)].ravel(), trace["P"][np.ix_(RR, CC)].ravel()
        ci.append(cindex(y, p))
        err.append(mse(y, p))
    return np.array(ci), np.array(err)


def davis_setting1(davis):
    test, train = deepdta_folds(davis)
    print("Davis, DeepDTA setting 1 (test fold; regparam by CV on the training folds)")
    print("| target kernel | regparam | CV CI | CV MSE | test CI | test MSE | wall s | "
          "CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for tk, how in (("cosine-SW", "raise"), ("normalized-SW", "shift")):
        KD, KT, Y = davis_kernels(davis, tk, how)
        r = setting1(KD, KT, Y, test, train)
        name = tk if how == "raise" else f"{tk}, indefinite='{how}'"
        print(f"| {name} | {r['regparam']:g} | {r['cv_ci']:.3f} | {r['cv_mse']:.3f} | "
              f"{r['ci']:.3f} | {r['mse']:.3f} | {r['seconds']:.0f} | {r['cpu']:.0f} |")


def run_metz(root, args):
    KD, KT, Y = load_metz(root / "metz")
    KD, _ = repair_kernel(0.5 * (KD + KD.T), "shift", "KD")
    KT, _ = repair_kernel(0.5 * (KT + KT.T), "shift", "KT")
    print(f"\nMetz, settings {args.settings}, {args.metz or 5} of 5 outer folds")

    def log(r):
        print(json.dumps(r), flush=True)
    res = metz_settings(KD, KT, Y, settings=args.settings, n_outer=args.metz or None,
                        log=log)
    print(metz_table(res))


if __name__ == "__main__":
    main()
