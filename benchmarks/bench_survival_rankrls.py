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

(c) ``--scale [M ...]`` (opt-in, minutes): reduced-set survival RankRLS on M synthetic
    censored rows (d = 10, generated block by block, about 60 % events, times rounded
    to 10^-3) with 1000 Nystrom centres, trained by
    :func:`rlscore.core.survival.pcg_survival_rankrls` (the faces' ``basis_vectors``
    use the direct solver, which holds the m x r features), lambda ``--regparam``,
    in a child process: wall and CPU seconds, CG iterations, the peak resident set of
    the child (ru_maxrss, the whole process), Harrell's C on 10^4 held-out rows and
    that of the true risk. Goals of issue 43: 10^5 rows in <= 2 GB and <= 5 min,
    10^6 in <= 4 GB.
(d) ``--kernel-5000`` (opt-in, minutes; scikit-survival needed): 5,000 random FLCHAIN
    rows (the tutorial's ``load_set``) for training, the other 1,524 for Harrell's C;
    Gaussian survival RankRLS (dual, and 1000 Nystrom centres; lambda = 1) against
    scikit-survival's FastKernelSurvivalSVM (rbf, alpha = 1, its default max_iter),
    gamma = 1 / d for both, each in a child process: time and peak resident set.

Timings are the median of ``--repeats`` runs, one BLAS thread; the machine load is
printed. Run:  python benchmarks/bench_survival_rankrls.py [--repeats 3]
[--holdout-only | --scale [M ...] | --kernel-5000]
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

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


# (c) reduced-set survival RankRLS at scale through the public core path
# (rlscore.core.survival.pcg_survival_rankrls: the faces' basis_vectors train the direct
# solver, which holds the m x r features), in a child process whose peak resident set
# (ru_maxrss) is the whole process's: interpreter, data, graph, kernel blocks, CG.
SCALE_CHILD = textwrap.dedent(r"""
    import json, resource, sys, time
    import numpy as np
    from rlscore.core.nystrom import NystromFeatureMap, PCGOptions
    from rlscore.core.survival import pcg_survival_rankrls
    from rlscore.measure import concordance_index_censored
    sys.path.insert(0, sys.argv[5])
    from bench_survival_rankrls import synthetic_survival
    m, r, m_test, lam = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), \
        float(sys.argv[4])
    d = 10
    X, t, e, _ = synthetic_survival(m, d, seed=0)
    Xte, tte, ete, risk_te = synthetic_survival(m_test, d, seed=1)
    held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0, c0 = time.perf_counter(), time.process_time()
    if sys.argv[6] == "learner":        # the face a user calls
        from rlscore.learner import SurvivalRankRLS
        model = SurvivalRankRLS(X, t, e, lam, "GaussianKernel", X[:r], gamma=1.0 / d,
                                solver="pcg", pcg_maxiter=500)._model
        res, op, pred = model.solver_result, model.operator, model.predictor
    else:
        fmap = NystromFeatureMap("GaussianKernel", X[:r], gamma=1.0 / d)  # iid rows
        res = pcg_survival_rankrls(X, t, e, fmap, lam, pcg=PCGOptions(maxiter=500))
        op = res.extras["operator"]
        pred = op.factors.predictor(res.solution)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    p = np.ravel(pred.predict(Xte))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({
        "wall": wall, "cpu": cpu, "iterations": int(res.iterations),
        "converged": bool(res.converged), "cached": bool(op.cached),
        "block": int(op.block_size), "edges": int(op.graph.n_edges),
        "events": float(np.mean(e)), "held": held, "peak": peak,
        "c_test": concordance_index_censored(ete, tte, p)[0],
        "c_oracle": concordance_index_censored(ete, tte, risk_te)[0]}))
""")


def synthetic_survival(m, d, seed, block=65536):
    """(X (m, d), time, event, true risk) of a censored synthetic set, generated block
    by block (each block its own seeded generator, no m-sized temporaries beyond the
    outputs): X standard normal, risk x0 + sin(2 x1) / 2 + x2 x3 / 2, event time
    exponential with rate exp(risk), censoring time exponential with mean 2, times
    rounded to 10^-3 (ties). About 60 % events."""
    X = np.empty((m, d))
    time = np.empty(m)
    event = np.empty(m, dtype=bool)
    risk = np.empty(m)
    for k, a in enumerate(range(0, m, block)):
        z = min(m, a + block)
        rng = np.random.default_rng([seed, k])
        Xb = rng.standard_normal((z - a, d))
        rb = Xb[:, 0] + 0.5 * np.sin(2 * Xb[:, 1]) + 0.5 * Xb[:, 2] * Xb[:, 3]
        T = rng.exponential(np.exp(-rb))
        C = rng.exponential(2.0, z - a)
        X[a:z], risk[a:z] = Xb, rb
        time[a:z] = np.round(np.minimum(T, C), 3)
        event[a:z] = T <= C
    return X, time, event, risk


def scale_rows(sizes, n_basis=1000, m_test=10000, regparam=1.0):
    """Two child processes per m, each training on m synthetic rows with n_basis
    centres and scoring m_test held-out rows: the learner face
    (``SurvivalRankRLS(..., solver="pcg")``) and the core call it adapts
    (:func:`rlscore.core.survival.pcg_survival_rankrls`, the baseline of the ratio);
    prints a markdown row each (goals of issue 43: 10^5 rows in <= 2 GB and <= 5 min,
    10^6 in <= 4 GB)."""
    goals = {100000: (2.0, 300.0), 1000000: (4.0, None)}
    print(f"| rows | centres | path | wall s (face / core) | CPU s | CG iterations | "
          f"kernel blocks | peak RSS (data held before training) | goal | test C "
          f"({m_test} rows) | C of the true risk |\n"
          f"|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for m in sizes:
        walls = {}
        for mode in ("core", "learner"):
            out = subprocess.run([sys.executable, "-W", "ignore", "-c", SCALE_CHILD,
                                  str(m), str(n_basis), str(m_test), str(regparam), here,
                                  mode], capture_output=True, text=True)
            if out.returncode:
                print(f"| {m} | {n_basis} | {mode} | failed: "
                      f"{out.stderr.strip()[-300:]} |", flush=True)
                continue
            r = json.loads(out.stdout)
            walls[mode] = r["wall"]
            gb, secs = goals.get(m, (None, None))
            ok = []
            if gb is not None:
                ok.append(f"<= {gb:g} GB: {'ok' if r['peak'] <= gb * 2**30 else 'MISSED'}")
            if secs is not None:
                ok.append(f"<= {secs:g} s: {'ok' if r['wall'] <= secs else 'MISSED'}")
            ratio = f" ({walls['learner'] / walls['core']:.2f})" \
                if mode == "learner" and "core" in walls else ""
            print(f"| {m} | {n_basis} | {mode} | {r['wall']:.1f}{ratio} | {r['cpu']:.1f} | "
                  f"{r['iterations']}{'' if r['converged'] else ' (not converged)'} | "
                  f"{'cached' if r['cached'] else 'recomputed'}, {r['block']} rows | "
                  f"{r['peak'] / 2**30:.2f} GiB ({r['held'] / 2**30:.2f}) | "
                  f"{'; '.join(ok)} | {r['c_test']:.4f} | {r['c_oracle']:.4f} |",
                  flush=True)


# (d) kernel survival RankRLS against scikit-survival's FastKernelSurvivalSVM on 5,000
# FLCHAIN rows (the tutorial's loader: docs/tutorials/survival.py load_set), each
# method in its own child process: training time, peak resident set (ru_maxrss),
# Harrell's C on the held-out rows. Same Gaussian kernel width gamma = 1 / d.
KERNEL_CHILD = textwrap.dedent(r"""
    import importlib.util, json, resource, sys, time, warnings
    import numpy as np
    from rlscore.measure import concordance_index_censored
    method, m_train, tutorial = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    spec = importlib.util.spec_from_file_location("survival_tutorial", tutorial)
    tut = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tut)
    X, t, e, _ = tut.load_set("FLCHAIN")
    perm = np.random.default_rng(0).permutation(X.shape[0])
    tr, te = np.sort(perm[:m_train]), np.sort(perm[m_train:])
    Xtr, Xte = tut.standardize(X[tr], X[te])
    gamma = 1.0 / X.shape[1]
    if method == "fksvm":
        from sksurv.svm import FastKernelSurvivalSVM
        from sksurv.util import Surv
        y = Surv.from_arrays(e[tr], t[tr])
    held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if method == "fksvm":
            est = FastKernelSurvivalSVM(alpha=1.0, kernel="rbf", gamma=gamma,
                                        random_state=0).fit(Xtr, y)
            predict = est.predict
        else:
            from rlscore.core.survival import SurvivalRankRLSModel
            basis = None
            if method.startswith("nystrom"):
                b = int(method[len("nystrom"):])
                basis = Xtr[np.sort(np.random.default_rng(0).choice(m_train, b,
                                                                    replace=False))]
            model = SurvivalRankRLSModel(Xtr, t[tr], e[tr], 1.0, "GaussianKernel",
                                         basis_vectors=basis, gamma=gamma)
            predict = model.predictor.predict
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    c = concordance_index_censored(e[te], t[te], np.ravel(predict(Xte)))[0]
    print(json.dumps({"wall": wall, "cpu": cpu, "held": held, "peak": peak, "c": c,
                      "n_test": int(te.size), "d": int(X.shape[1]),
                      "warnings": sorted({str(w.message)[:100] for w in caught})}))
""")


def kernel_rows(m_train=5000):
    """Rows of (d): survival RankRLS (dual; Nystrom with 1000 centres) and
    FastKernelSurvivalSVM (alpha = 1, its default max_iter), one child each."""
    tutorial = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                            "tutorials", "survival.py")
    print(f"| FLCHAIN, {m_train} training rows | training wall s | CPU s | peak RSS MiB "
          f"(held before training) | test C | note |\n|---|---|---|---|---|---|",
          flush=True)
    names = {"dual": "survival RankRLS, Gaussian, dual, lambda = 1 (rlscore)",
             "nystrom1000": "survival RankRLS, Gaussian, 1000 Nystrom centres, "
                            "lambda = 1 (rlscore)",
             "fksvm": "FastKernelSurvivalSVM, rbf, alpha = 1 (scikit-survival)"}
    for method, name in names.items():
        out = subprocess.run([sys.executable, "-c", KERNEL_CHILD, method, str(m_train),
                              tutorial], capture_output=True, text=True)
        if out.returncode:
            print(f"| {name} | failed: {out.stderr.strip()[-300:]} |", flush=True)
            continue
        r = json.loads(out.stdout)
        print(f"| {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['peak'] / 2**20:.0f} "
              f"({r['held'] / 2**20:.0f}) | {r['c']:.4f} ({r['n_test']} rows) | "
              f"gamma = 1/{r['d']}; {'; '.join(r['warnings']) or 'no warning'} |",
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--holdout-only", action="store_true",
                    help="only the hold-out against refits rows (b)")
    ap.add_argument("--scale", type=int, nargs="*", metavar="M",
                    help="only the Nystrom rows (c) at these sizes (default 100000; "
                         "slow: minutes each)")
    ap.add_argument("--regparam", type=float, default=1.0, help="lambda of --scale")
    ap.add_argument("--kernel-5000", action="store_true",
                    help="only the rows (d) against FastKernelSurvivalSVM on 5,000 FLCHAIN "
                         "rows (scikit-survival needed; minutes)")
    args = ap.parse_args()
    print(machine_line())
    if args.kernel_5000:
        kernel_rows()
        return
    if args.scale is not None:
        scale_rows(args.scale or [100000], regparam=args.regparam)
        return
    data = None if args.holdout_only else gbsg2()
    if data is not None:
        cv_table(*data)
    holdout_rows(args.repeats)


if __name__ == "__main__":
    main()
