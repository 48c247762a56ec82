"""Learning to rank on LETOR 4.0 MQ2008, the standard 5 folds, with the Python API and
the command line: linear RankSVM (hinge and squared hinge), QueryRankRLS, and a
Gaussian-kernel QueryRankRLS on Nystrom basis vectors, beside gradient-boosted rankers
(LightGBM lambdarank, XGBoost rank:ndcg) when they are installed.

Protocol of the LETOR baselines: train on three parts, choose the regularization on the
validation part by MAP (as most LETOR baselines do), report NDCG@10 and MAP on the test
part under the rules of the LETOR 4.0 evaluation script (rlscore.measure, default
convention), averaged over the five folds.

Usage::

    python docs/tutorials/letor_mq2008.py [DATA_DIR]

DATA_DIR holds S1.txt ... S5.txt (default: $RLSCORE_DATA/letor4_mq2008, RLSCORE_DATA
defaulting to ../shared/data relative to the repository).
"""

import json
import os
import pathlib
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

from rlscore.core.ranksvm import grid_below, ranksvm_lambda_max
from rlscore.learner import LinearRankSVM, QueryRankRLS
from rlscore.measure import mean_average_precision, ndcg
from rlscore.utilities.reader import read_svmlight

# LETOR's fold definition: (training parts, validation part, test part)
FOLDS = {1: ((1, 2, 3), 4, 5), 2: ((2, 3, 4), 5, 1), 3: ((3, 4, 5), 1, 2),
         4: ((4, 5, 1), 2, 3), 5: ((5, 1, 2), 3, 4)}
RLS_GRID = [2.0 ** e for e in range(-10, 11)]


def data_dir(arg=None):
    if arg:
        return pathlib.Path(arg)
    root = pathlib.Path(__file__).resolve().parents[2]
    base = pathlib.Path(os.environ.get("RLSCORE_DATA", root.parent / "shared" / "data"))
    return base / "letor4_mq2008"


def read_parts(folder):
    """{part: (X, y, qids)} of S1..S5, all with the same number of columns."""
    folder = pathlib.Path(folder)
    raw = {i: read_svmlight(folder / f"S{i}.txt", zero_based=False) for i in range(1, 6)}
    d = max(X.shape[1] for X, _, _ in raw.values())
    out = {}
    for i, (X, Y, q) in raw.items():
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
        out[i] = (X.toarray(), Y[:, 0], np.asarray(q))
    return out


def split(parts, fold):
    train, vali, test = FOLDS[fold]
    X = np.vstack([parts[i][0] for i in train])
    y = np.concatenate([parts[i][1] for i in train])
    q = np.concatenate([parts[i][2] for i in train])
    return (X, y, q), parts[vali], parts[test]


# ------------------------------------------------------------------ the learners
# each: (train, vali) -> (predict function, chosen parameters); the choice maximizes
# the validation MAP (first maximum on ties)


def _choose(candidates, vali):
    Xv, yv, qv = vali
    best, best_map = None, -1.0
    for params, predict in candidates:
        v = mean_average_precision(yv, predict(Xv), qv)
        if v > best_map:
            best, best_map = (params, predict), v
    return best


def ranksvm(train, vali, loss="hinge"):
    X, y, q = train
    lmax = ranksvm_lambda_max(X, y, q, loss=loss)
    grid = grid_below(lmax, 21)       # what `rlscore fit --learner ranksvm` uses
    cands = []
    for lam in grid:
        model = LinearRankSVM(X, y, q, regparam=lam, loss=loss)
        cands.append(({"regparam": lam}, model.predict))
    params, predict = _choose(cands, vali)
    params["lambda_max"] = lmax
    return predict, params


def squared_ranksvm(train, vali):
    return ranksvm(train, vali, loss="squared_hinge")


def _rankrls_path(learner, grid, extra):
    cands = []
    for lam in grid:
        learner.solve(lam)
        pred = learner.predictor       # a fresh predictor per solve
        cands.append((dict(extra, regparam=lam), pred.predict))
    return cands


def query_rankrls(train, vali):
    X, y, q = train
    learner = QueryRankRLS(X, y, q, regparam=RLS_GRID[0])
    params, predict = _choose(_rankrls_path(learner, RLS_GRID, {}), vali)
    return predict, params


def nystrom_rankrls(train, vali, n_basis=1000, gammas=(2.0 ** -4, 2.0 ** -2), seed=0):
    X, y, q = train
    idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], min(n_basis, X.shape[0]),
                                                     replace=False))
    cands = []
    for gamma in gammas:
        learner = QueryRankRLS(X, y, q, regparam=RLS_GRID[0], kernel="GaussianKernel",
                               gamma=gamma, basis_vectors=X[idx])
        cands += _rankrls_path(learner, RLS_GRID, {"gamma": gamma})
    params, predict = _choose(cands, vali)
    return predict, params


def _groups(q):
    """Sizes of the runs of equal qids (the files keep each query contiguous)."""
    change = np.flatnonzero(q[1:] != q[:-1]) + 1
    return np.diff(np.concatenate(([0], change, [len(q)])))


def lightgbm_lambdarank(train, vali):
    import lightgbm as lgb
    X, y, q = train
    Xv, yv, qv = vali
    model = lgb.LGBMRanker(objective="lambdarank", n_estimators=500, learning_rate=0.05,
                           num_leaves=31, min_child_samples=20, verbose=-1,
                           random_state=0)
    model.fit(X, y, group=_groups(q), eval_set=[(Xv, yv)], eval_group=[_groups(qv)],
              eval_at=[10], callbacks=[lgb.early_stopping(50, verbose=False)])
    return model.predict, {"n_trees": int(model.best_iteration_ or 500)}


def xgboost_rank_ndcg(train, vali):
    import xgboost as xgb
    X, y, q = train
    Xv, yv, qv = vali
    model = xgb.XGBRanker(objective="rank:ndcg", n_estimators=500, learning_rate=0.05,
                          max_depth=6, eval_metric="ndcg@10", early_stopping_rounds=50,
                          random_state=0)
    model.fit(X, y, group=_groups(q), eval_set=[(Xv, yv)], eval_group=[_groups(qv)],
              verbose=False)
    return model.predict, {"n_trees": int(model.best_iteration) + 1}


LEARNERS = {
    "RankSVM (hinge)": ranksvm,
    "RankSVM (squared hinge)": squared_ranksvm,
    "QueryRankRLS (linear)": query_rankrls,
    "QueryRankRLS (Gaussian, 1000 Nystrom basis vectors)": nystrom_rankrls,
    "LightGBM lambdarank": lightgbm_lambdarank,
    "XGBoost rank:ndcg": xgboost_rank_ndcg,
}


def available(name):
    mod = {"LightGBM lambdarank": "lightgbm", "XGBoost rank:ndcg": "xgboost"}.get(name)
    if mod is None:
        return True
    try:
        __import__(mod)
    except ImportError:
        return False
    return True


def run(folder, folds=(1, 2, 3, 4, 5), learners=None, parts=None):
    """{learner: [per-fold dict(ndcg10, map, seconds, params)]}: training, selection on
    the validation part and the test measures of every fold."""
    parts = read_parts(folder) if parts is None else parts
    names = [n for n in (learners or LEARNERS) if available(n)]
    res = {n: [] for n in names}
    for fold in folds:
        train, vali, (Xt, yt, qt) = split(parts, fold)
        for name in names:
            t0 = time.perf_counter()
            predict, params = LEARNERS[name](train, vali)
            seconds = time.perf_counter() - t0
            P = predict(Xt)
            res[name].append({"fold": fold, "ndcg10": float(ndcg(yt, P, qt, k=10)),
                              "map": float(mean_average_precision(yt, P, qt)),
                              "seconds": seconds, "params": params})
    return res


def table(res):
    lines = ["| learner | NDCG@10 | MAP | seconds per fold |", "|---|---|---|---|"]
    for name, folds in res.items():
        lines.append(f"| {name} | {np.mean([f['ndcg10'] for f in folds]):.4f} | "
                     f"{np.mean([f['map'] for f in folds]):.4f} | "
                     f"{np.mean([f['seconds'] for f in folds]):.1f} |")
    return "\n".join(lines)


# ------------------------------------------------------------------ the command line


def write_fold(folder, fold, out):
    """FoldK/train.txt, vali.txt, test.txt as LETOR ships them (concatenated parts)."""
    folder, out = pathlib.Path(folder), pathlib.Path(out)
    train, vali, test = FOLDS[fold]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "train.txt", "w") as fh:
        for i in train:
            fh.write((folder / f"S{i}.txt").read_text())
    (out / "vali.txt").write_text((folder / f"S{vali}.txt").read_text())
    (out / "test.txt").write_text((folder / f"S{test}.txt").read_text())
    return out


def cli_fold(folder, fold=1, workdir=None, learner="ranksvm"):
    """The command-line version of one fold: fit with the validation file, evaluate on
    the test file. Returns the JSON of ``rlscore evaluate``."""
    from rlscore.cli import main
    work = pathlib.Path(workdir or tempfile.mkdtemp())
    d = write_fold(folder, fold, work / f"Fold{fold}")
    model = d / "model.npz"
    code = main(["fit", str(d / "train.txt"), "-o", str(model), "--learner", learner,
                 "--valid", str(d / "vali.txt"), "--measure", "map", "-q"])
    if code != 0:
        raise RuntimeError(f"rlscore fit exited with {code}")
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["evaluate", str(model), str(d / "test.txt"), "--measure",
                     "ndcg@10,map", "--format", "json"])
    if code != 0:
        raise RuntimeError(f"rlscore evaluate exited with {code}")
    return json.loads(buf.getvalue())


if __name__ == "__main__":
    folder = data_dir(sys.argv[1] if len(sys.argv) > 1 else None)
    res = run(folder)
    print(table(res))
    for name, folds in res.items():
        print(name, [f["params"] for f in folds])
    print("command line, fold 1, ranksvm:", cli_fold(folder, 1))
