"""K-fold cross-validation by whole queries for query RankRLS: the exact multi-query
hold-out (QueryRankRLSModel.holdout_rows) against the refits it replaces, in one run.

LETOR 4.0 MQ2008, training rows S1-S3 (9630 documents, 471 queries; the rows of the
official Fold1/train.txt), Gaussian kernel gamma = 0.02, 1000 Nystrom basis vectors, 5
folds of whole queries x 13 regparams (2^-12 .. 2^12 step 4x), MAP (LETOR 4.0 rules):

(a) the command line, ``rlscore cv TRAIN --learner query-rankrls --kernel gaussian
    --gamma 0.02 --basis 1000 --cv kfold --measure map`` (each fold's per-query MAP,
    the mean over the folds), each run a fresh process (reading the file and
    importing included), against the same command with the learner's hold-out shortcut
    switched off (``RefitModel``: 65 refits on the same folds, the path before the
    shortcut). The command keeps the basis vectors in every fold (the same vectors).
(b) the API with the same basis vectors kept: ``KfoldQueryRankRLS(..., basis_vectors=)``
    (mean of the per-fold MAP) against :class:`NfoldCV` over :class:`RefitModel` (65
    refits), and against refits with one eigendecomposition per fold (5 refits, then a
    re-solve per regparam; what RankRLSCV did before the shortcut).
(c) the API with the held-out basis vectors removed from each fold's model
    (``basis_indices=``, the default ``keep_basis_in_cv=False``) against 65 refits on the
    remaining basis rows.

Each row prints the largest difference of the CV measures between the shortcut and its
refits (they must agree to rounding) and the time ratio (target <= 0.1).

    nice -n 10 python benchmarks/bench_query_kfold.py [--data DIR] [--repeats N]
        [--refit-repeats N] [--skip a,b,c]

``--data`` (or the environment variable ``RLSCORE_DATA``): the ``letor4_mq2008``
directory holding S1.txt .. S5.txt, or a directory containing it. One BLAS thread by
default (``RLSCORE_BENCH_THREADS``); wall and process CPU seconds are both reported
(CPU seconds are the work done, robust to the load of a shared machine).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

from _data import SHARED_DATA  # noqa: E402
from _timing import HEADER, cli_json, limit_threads, machine_line, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

GAMMA = 0.02
N_BASIS = 1000
N_FOLDS = 5
GRID_SPEC = "2^-12..2^12:2"
GRID = [2.0 ** k for k in range(-12, 13, 2)]
BASIS_SEED = 0
FOLD_SEED = 0


def find_data(arg):
    """The letor4_mq2008 directory from --data, RLSCORE_DATA or the shared default."""
    candidates = [arg, os.environ.get("RLSCORE_DATA"), SHARED_DATA]
    for c in candidates:
        if not c:
            continue
        for d in (c, os.path.join(c, "letor4_mq2008")):
            if all(os.path.isfile(os.path.join(d, f"S{i}.txt")) for i in (1, 2, 3)):
                return d
    sys.exit("MQ2008 not found: pass --data DIR (the letor4_mq2008 directory or its "
             "parent) or set RLSCORE_DATA")


def training_file(data, tmp):
    """S1 + S2 + S3 concatenated (byte-identical to LETOR's Fold1/train.txt)."""
    path = os.path.join(tmp, "mq2008_train_S1-S3.txt")
    with open(path, "wb") as out:
        for i in (1, 2, 3):
            with open(os.path.join(data, f"S{i}.txt"), "rb") as f:
                out.write(f.read())
    return path


# ---------------------------------------------------------------------------------------
# (a) the command line, one process per run

_REFIT_CLI = ("import sys; import rlscore.cli._learners; "
              "from rlscore.cli._base import LEARNERS; "
              "LEARNERS['query-rankrls'].holdout = False; "
              "from rlscore.cli import main; sys.exit(main(sys.argv[1:]))")
_CLI = "import sys; from rlscore.cli import main; sys.exit(main(sys.argv[1:]))"


def cli_argv(train):
    return ["cv", train, "--learner", "query-rankrls", "--kernel", "gaussian", "--gamma",
            str(GAMMA), "--basis", str(N_BASIS), "--basis-seed", str(BASIS_SEED),
            "--regparams", GRID_SPEC, "--cv", "kfold", "--folds", str(N_FOLDS), "--seed",
            str(FOLD_SEED), "--measure", "map", "--format", "json", "-q"]


def run_cli(code, train):
    """(wall s, CPU s of the child, the JSON result) of one command in a new process."""
    return cli_json(code, cli_argv(train))


def median_runs(fn, repeats):
    runs = [fn() for _ in range(max(1, repeats))]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            runs[-1][2])


def bench_cli(train, repeats, refit_repeats):
    ours_w, ours_c, ours = median_runs(lambda: run_cli(_CLI, train), repeats)
    base_w, base_c, base = median_runs(lambda: run_cli(_REFIT_CLI, train), refit_repeats)
    diff = np.max(np.abs(np.array(ours["cv_performances"]) -
                         np.array(base["cv_performances"])))
    same = ours["regparam"] == base["regparam"]
    note = (f"max |MAP diff| {diff:.1e} over {len(GRID)} regparams, same regparam "
            f"{same} ({ours['regparam']:g}), MAP {max(ours['cv_performances']):.4f}")
    row("(a) CLI cv --cv kfold, wall", ours_w, base_w, "CLI, 65 refits", 0.1, note)
    row("(a) CLI cv --cv kfold, CPU", ours_c, base_c, "CLI, 65 refits", 0.1)
    return diff


# ---------------------------------------------------------------------------------------
# (b), (c) the API, in this process


def load(train):
    from rlscore.core.structure import QueryGroups
    from rlscore.utilities.reader import read_svmlight
    X, y, q = read_svmlight(train)
    q = np.asarray(q)
    groups = QueryGroups.from_qids(q)
    # the command's draws: the basis rows (--basis-seed) and the folds (--seed)
    basis = np.sort(np.random.default_rng(BASIS_SEED).choice(X.shape[0], N_BASIS,
                                                             replace=False))
    return X, y, q, groups, basis, groups.folds(N_FOLDS, FOLD_SEED)


def timed(fn, repeats):
    walls, cpus, out = [], [], None
    for _ in range(max(1, repeats)):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), out


def bench_api(train, repeats, refit_repeats, remove):
    from rlscore.core.rankrls import QueryRankRLSModel
    from rlscore.core.selection import NfoldCV, RefitCV, RefitModel, grid_search
    from rlscore.learner import KfoldQueryRankRLS
    from rlscore.measure import mean_average_precision as MAP
    X, y, q, groups, basis, folds = load(train)
    kw = {"basis_indices": basis} if remove else {"basis_vectors": X[basis]}

    def ours():
        sel = KfoldQueryRankRLS(X, y, q, folds, kernel="GaussianKernel", regparams=GRID,
                                measure=MAP, gamma=GAMMA, **kw)
        return np.asarray(sel.cv_performances)

    def basis_of(rows):
        if not remove:
            return {"basis_vectors": X[basis]}
        pos = np.full(X.shape[0], -1)
        pos[rows] = np.arange(rows.size)
        kept = pos[basis]
        return {"basis_indices": kept[kept >= 0]}

    def train_rows(rows, regparam, path=False):
        rows = np.arange(X.shape[0]) if rows is None else rows
        return QueryRankRLSModel(X[rows], y[rows], q[rows], regparam, "GaussianKernel",
                                 path=path, gamma=GAMMA, **basis_of(rows))

    def refits():
        cv = NfoldCV(RefitModel(train_rows, X, y), MAP, folds, groups)
        return grid_search(cv, GRID)[0]

    def fold_refits():
        m = X.shape[0]
        splits = [(np.setdiff1d(np.arange(m), f), f) for f in folds]

        def fit_split(tr, te):
            model = train_rows(tr, GRID[0], path=True)

            def predict_at(lam):
                model.solve(lam)
                return np.reshape(model.predictor.predict(X[te]), (te.size, -1))
            return predict_at
        return grid_search(RefitCV(y, MAP, splits, fit_split, groups=groups), GRID)[0]

    name = "(c) API, basis removed" if remove else "(b) API, basis kept"
    ours_w, ours_c, P = timed(ours, repeats)
    base_w, base_c, R = timed(refits, refit_repeats)
    diff = float(np.max(np.abs(P - R)))
    same = int(np.argmax(P)) == int(np.argmax(R))
    note = (f"max |MAP diff| {diff:.1e}, same regparam {same} "
            f"({GRID[int(np.argmax(P))]:g}), MAP {P.max():.4f}")
    row(f"{name}, wall", ours_w, base_w, "65 refits", 0.1, note)
    row(f"{name}, CPU", ours_c, base_c, "65 refits", 0.1)
    if not remove:
        fw, fc, F = timed(fold_refits, refit_repeats)
        row(f"{name}, wall", ours_w, fw, "5 refits + re-solves", None,
            f"max |MAP diff| {np.max(np.abs(P - F)):.1e}")
    return diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="the letor4_mq2008 directory or its parent "
                    "(default: RLSCORE_DATA, then ../shared/data)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each shortcut "
                    "(median; default 3)")
    ap.add_argument("--refit-repeats", type=int, default=1, help="runs of each refit "
                    "baseline (median; default 1: 65 refits take minutes)")
    ap.add_argument("--skip", default="", help="parts to skip, e.g. b,c")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    data = find_data(args.data)
    print(f"MQ2008 from {data}; {machine_line()}")
    print(f"Gaussian gamma={GAMMA}, {N_BASIS} Nystrom basis vectors, {N_FOLDS} folds of "
          f"whole queries x {len(GRID)} regparams ({GRID_SPEC}), MAP; shortcut runs: "
          f"median of {args.repeats}, refit runs: median of {args.refit_repeats}\n")
    print(HEADER)
    diffs = []
    with tempfile.TemporaryDirectory() as tmp:
        train = training_file(data, tmp)
        if "a" not in skip:
            diffs.append(bench_cli(train, args.repeats, args.refit_repeats))
        if "b" not in skip:
            diffs.append(bench_api(train, args.repeats, args.refit_repeats, False))
        if "c" not in skip:
            diffs.append(bench_api(train, args.repeats, args.refit_repeats, True))
    print(f"\n{machine_line()}")
    if diffs and max(diffs) > 1e-9:
        sys.exit(f"the shortcut and the refits disagree: {max(diffs):.2e}")


if __name__ == "__main__":
    main()
