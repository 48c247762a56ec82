"""Learning to rank on LETOR 4.0 MQ2008 and LETOR 3.0 OHSUMED, the standard 5 folds,
with the command line and the Python API: linear RankSVM (hinge and squared hinge),
QueryRankRLS, a Gaussian-kernel QueryRankRLS on Nystrom basis vectors (gamma from a
grid, or the widths learned on the training part by the leave-query-out gradient),
further candidate procedures (4000 Nystrom basis vectors, a linear + Gaussian sum
kernel, GlobalRankRLS, the gain 2^y - 1 as the target, the validation mean of the
seven measures as the selection rule: ``MORE_LEARNERS``), beside gradient-boosted
rankers (LightGBM lambdarank, XGBoost rank:ndcg) when they are installed, and beside
the published LETOR rows.

Protocol of the LETOR baselines (T.-Y. Liu, Learning to Rank for Information Retrieval,
Springer 2011, section 11.1): train on three parts, choose the regularization (kernel
width, number of boosting rounds) by MAP on the validation part, report NDCG@1, 3, 10,
P@1, 3, 10 and MAP on the test part under the rules of the release's evaluation script
(``rlscore evaluate --convention letor4`` for MQ2008, ``letor3`` for OHSUMED), the mean
and the standard deviation over the five folds.

Usage::

    python docs/tutorials/letor_mq2008.py [--dataset mq2008|ohsumed] [--data DIR]
        [--learners NAME ...] [--folds K ...] [--maxiter N] [--verbose] [--json FILE]

DIR holds S1.txt ... S5.txt (default: $RLSCORE_DATA/letor4_mq2008 or
$RLSCORE_DATA/letor3_ohsumed). ``--api`` runs the Python-API version instead (NDCG@10
and MAP of the same learners).
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
from rlscore.kernel import GaussianKernel, LinearKernel
from rlscore.learner import GlobalRankRLS, LinearRankSVM, QueryRankRLS
from rlscore.measure import mean_average_precision, ndcg, precision_at_k
from rlscore.utilities.reader import read_svmlight

# LETOR's fold definition: (training parts, validation part, test part)
FOLDS = {1: ((1, 2, 3), 4, 5), 2: ((2, 3, 4), 5, 1), 3: ((3, 4, 5), 1, 2),
         4: ((4, 5, 1), 2, 3), 5: ((5, 1, 2), 3, 4)}
RLS_GRID = [2.0 ** e for e in range(-10, 11)]
GAMMAS = (0.005, 0.02, 0.08)      # Gaussian kernel widths, chosen by validation MAP


def data_dir(arg=None, dataset="mq2008"):
    if arg:
        return pathlib.Path(arg)
    root = pathlib.Path(__file__).resolve().parents[2]
    base = pathlib.Path(os.environ.get("RLSCORE_DATA", root.parent / "shared" / "data"))
    return base / DATASETS[dataset]["folder"]


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


def _choose(candidates, vali, measure=mean_average_precision):
    """The (params, predict) of the largest validation ``measure`` (first on ties)."""
    Xv, yv, qv = vali
    best, best_v = None, -np.inf
    for params, predict in candidates:
        v = measure(yv, predict(Xv), qv)
        if v > best_v:
            best, best_v = (params, predict), v
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


def _basis_rows(m, n_basis, seed=0):
    """The Nystrom basis: ``n_basis`` training rows drawn without replacement."""
    return np.sort(np.random.default_rng(seed).choice(m, min(n_basis, m), replace=False))


def gaussian_candidates(train, n_basis=1000, gammas=GAMMAS, seed=0, target=None):
    """Gaussian QueryRankRLS on ``n_basis`` Nystrom basis rows (``None``: the exact
    kernel model on all m training rows, one O(m^3) eigendecomposition per gamma), every
    gamma of ``gammas`` with its regparam path ``RLS_GRID``; ``target`` (a function of
    the labels) replaces the regression target of the training part.
    [(params, predict)]."""
    X, y, q = train
    yt = y if target is None else target(y)
    basis = None if n_basis is None else X[_basis_rows(X.shape[0], n_basis, seed)]
    cands = []
    for gamma in gammas:
        learner = QueryRankRLS(X, yt, q, regparam=RLS_GRID[0], kernel="GaussianKernel",
                               gamma=gamma, basis_vectors=basis)
        cands += _rankrls_path(learner, RLS_GRID, {"gamma": gamma})
    return cands


def nystrom_rankrls(train, vali, n_basis=1000, gammas=GAMMAS, seed=0):
    params, predict = _choose(gaussian_candidates(train, n_basis, gammas, seed), vali)
    return predict, params


_LEARNED = {}


VERBOSE = False      # progress of the kernel learning on stderr (--verbose)


def learned_candidates(train, n_basis=1000, seed=0, maxiter=20):
    """Gaussian QueryRankRLS on Nystrom basis rows with the kernel widths learned on the
    training part alone: isotropic and ARD (one width per feature), each by the
    gradient of the exact leave-query-out error of the Nystrom model
    (``LeaveQueryOutRankRLS(gamma="learn", basis_vectors=...)``, ``maxiter`` L-BFGS-B
    steps from the median heuristic), then each with its regparam path (the learned
    regparam and ``RLS_GRID``). Features constant on the training part are dropped
    (no width is defined for them). Returns [(params, predict)], cached per training
    part so that several validation rules share one search."""
    from rlscore.learner import LeaveQueryOutRankRLS
    X, y, q = train
    key = (X.shape, float(X.sum()), float(y.sum()), n_basis, seed, maxiter)
    if key in _LEARNED:
        return _LEARNED[key]
    cols = np.flatnonzero(X.max(axis=0) > X.min(axis=0))
    Xc = X[:, cols]
    B = Xc[_basis_rows(X.shape[0], n_basis, seed)]
    cands = []
    for ard in (False, True):
        lqo = LeaveQueryOutRankRLS(Xc, y, q, kernel="GaussianKernel", gamma="learn",
                                   ard=ard, basis_vectors=B, restarts=0, maxiter=maxiter,
                                   verbose=VERBOSE)
        g = np.atleast_1d(lqo.gamma)
        info = {"ard": ard, "steps": len(lqo.cv_history),
                "gamma": float(g[0]) if not ard else
                f"{g.min():.3g}..{np.median(g):.3g}..{g.max():.3g}"}
        learner = QueryRankRLS(Xc, y, q, regparam=lqo.regparam, kernel="GaussianKernel",
                               gamma=lqo.gamma, basis_vectors=B)
        for lam in sorted(set(RLS_GRID) | {lqo.regparam}):
            learner.solve(lam)
            pred = learner.predictor
            cands.append((dict(info, regparam=lam, learned=lam == lqo.regparam),
                          lambda Z, p=pred: p.predict(Z[:, cols])))
    _LEARNED.clear()
    _LEARNED[key] = cands
    return cands


def learned_rankrls(train, vali, n_basis=1000, maxiter=20, measure=mean_average_precision):
    """Learned-width Nystrom QueryRankRLS (:func:`learned_candidates`): isotropic or
    ARD and regparam chosen by the validation ``measure`` (MAP: the LETOR protocol)."""
    params, predict = _choose(learned_candidates(train, n_basis, maxiter=maxiter), vali,
                              measure)
    return predict, params


def learned_rankrls_ndcg1(train, vali, n_basis=1000, maxiter=20):
    """As :func:`learned_rankrls`, the candidate chosen by validation NDCG@1."""
    return learned_rankrls(train, vali, n_basis, maxiter,
                           measure=lambda y, p, q: ndcg(y, p, q, k=1))


def _groups(q):
    """Sizes of the runs of equal qids (the files keep each query contiguous)."""
    change = np.flatnonzero(q[1:] != q[:-1]) + 1
    return np.diff(np.concatenate(([0], change, [len(q)])))


LEARNERS = {
    "RankSVM (hinge)": ranksvm,
    "RankSVM (squared hinge)": squared_ranksvm,
    "QueryRankRLS (linear)": query_rankrls,
    "QueryRankRLS (Gaussian, 1000 Nystrom basis vectors)": nystrom_rankrls,
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


def rlscore_command(*args):
    """Run one ``rlscore`` command in this process; its standard output (RuntimeError
    with the command's stderr when it fails)."""
    import contextlib
    import io
    from rlscore.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    if code != 0:
        raise RuntimeError(f"rlscore {' '.join(map(str, args))} exited with {code}: "
                           f"{err.getvalue().strip()}")
    return out.getvalue()


def cli_fold(folder, fold=1, workdir=None, learner="ranksvm"):
    """The command-line version of one fold: fit with the validation file, evaluate on
    the test file. Returns the JSON of ``rlscore evaluate``."""
    work = pathlib.Path(workdir or tempfile.mkdtemp())
    d = write_fold(folder, fold, work / f"Fold{fold}")
    model = d / "model.npz"
    rlscore_command("fit", d / "train.txt", "-o", model, "--learner", learner,
                    "--valid", d / "vali.txt", "--measure", "map", "-q")
    return json.loads(rlscore_command("evaluate", model, d / "test.txt", "--measure",
                                      "ndcg@10,map", "--format", "json"))


# ------------------------------------------------------------------ the seven-column table

COLUMNS = ("ndcg@1", "ndcg@3", "ndcg@10", "p@1", "p@3", "p@10", "map")
HEADER = ("NDCG@1", "NDCG@3", "NDCG@10", "P@1", "P@3", "P@10", "MAP")

# T.-Y. Liu, Learning to Rank for Information Retrieval, Springer 2011, section 11.3:
# Table 11.10 (MQ2008, LETOR 4.0) and Table 11.7 (OHSUMED, LETOR 3.0); QueryLevelNorm
# data, the release's evaluation script, parameters chosen by MAP on the validation set.
PUBLISHED = {
    "mq2008": ("Liu (2011), Table 11.10", {
        "RankSVM": (0.363, 0.429, 0.228, 0.427, 0.390, 0.249, 0.470),
        "RankBoost": (0.386, 0.429, 0.226, 0.458, 0.392, 0.249, 0.478),
        "ListNet": (0.375, 0.432, 0.230, 0.445, 0.384, 0.248, 0.478),
        "AdaRank": (0.375, 0.437, 0.230, 0.443, 0.390, 0.245, 0.476)}),
    "ohsumed": ("Liu (2011), Table 11.7", {
        "Regression": (0.446, 0.443, 0.411, 0.597, 0.577, 0.466, 0.422),
        "RankSVM": (0.496, 0.421, 0.414, 0.597, 0.543, 0.486, 0.433),
        "RankBoost": (0.463, 0.456, 0.430, 0.558, 0.561, 0.497, 0.441),
        "FRank": (0.530, 0.481, 0.443, 0.643, 0.593, 0.501, 0.444),
        "ListNet": (0.533, 0.473, 0.441, 0.652, 0.602, 0.497, 0.446),
        "AdaRank": (0.539, 0.468, 0.442, 0.634, 0.590, 0.497, 0.449),
        "SVMmap": (0.523, 0.466, 0.432, 0.643, 0.580, 0.491, 0.445)}),
}
DATASETS = {"mq2008": {"folder": "letor4_mq2008", "convention": "letor4"},
            "ohsumed": {"folder": "letor3_ohsumed", "convention": "letor3"}}



def cli_learners(n_basis=1000):
    """Our learners as `rlscore fit` options; several option sets = a kernel parameter
    chosen by the validation MAP of each set's own regparam choice."""
    return {
        "RankSVM (hinge)": [("--learner", "ranksvm")],
        "RankSVM (squared hinge)": [("--learner", "ranksvm-squared")],
        "QueryRankRLS (linear)": [("--learner", "query-rankrls")],
        "QueryRankRLS (Gaussian, Nystrom)": [
            ("--learner", "query-rankrls", "--kernel", "gaussian", "--gamma", g,
             "--basis", n_basis) for g in GAMMAS],
    }


CLI_LEARNERS = cli_learners()


def _valid_map(model, vali):
    return json.loads(rlscore_command("evaluate", model, vali, "--measure", "map",
                                      "--format", "json"))["map"]


def cli_learner(options, d, work):
    """`rlscore fit TRAIN --valid VALI --measure map` for every option set, the set of
    the best validation MAP kept, `rlscore predict` on the test file. Returns (the
    prediction file, the chosen options with their regparam)."""
    best = None
    for i, opts in enumerate(options):
        model = work / f"model{i}.npz"
        rlscore_command("fit", d / "train.txt", "-o", model, "--valid", d / "vali.txt",
                        "--measure", "map", "-q", *opts)
        v = _valid_map(model, d / "vali.txt")
        if best is None or v > best[0]:
            best = (v, model, opts)
    _, model, opts = best
    pred = work / "test.pred"
    rlscore_command("predict", model, d / "test.txt", "-o", pred)
    from rlscore.model_io import load_model
    _, meta = load_model(model, return_metadata=True)
    return pred, " ".join(map(str, opts)) + f" (regparam {meta['regparam']:g})"


def _boosted_by_map(fit, settings, vali, n_rounds, step=10):
    """Boosted rankers: ``fit(setting)`` (a (name, value) pair) trains ``n_rounds``
    trees and returns ``predict(Z, t)`` with the first t trees; the setting and the
    number of trees (a multiple of ``step``) of the largest validation MAP (LETOR rules)
    are kept, the first on ties. Returns (predict function, description)."""
    Xv, yv, qv = vali
    best = None
    for setting in settings:
        predict = fit(setting)
        for t in range(step, n_rounds + 1, step):
            v = mean_average_precision(yv, predict(Xv, t), qv)
            if best is None or v > best[0]:
                best = (v, predict, t, setting)
    _, predict, t, setting = best
    return (lambda Z: predict(Z, t)), f"{setting[0]} {setting[1]}, {t} trees"


def lightgbm_by_map(train, vali, leaves=(7, 31), n_rounds=500):
    """LightGBM lambdarank (learning rate 0.05); leaves and trees chosen by the
    validation MAP."""
    import lightgbm as lgb
    X, y, q = train

    def fit(setting):
        model = lgb.LGBMRanker(objective="lambdarank", n_estimators=n_rounds,
                               learning_rate=0.05, num_leaves=setting[1],
                               min_child_samples=20, verbose=-1, random_state=0,
                               n_jobs=1)
        model.fit(X, y, group=_groups(q))
        return lambda Z, t: model.predict(Z, num_iteration=t)
    return _boosted_by_map(fit, [("num_leaves", n) for n in leaves], vali, n_rounds)


def xgboost_by_map(train, vali, depths=(3, 6), n_rounds=500):
    """XGBoost rank:ndcg (learning rate 0.05); depth and trees chosen by the
    validation MAP."""
    import xgboost as xgb
    X, y, q = train

    def fit(setting):
        model = xgb.XGBRanker(objective="rank:ndcg", n_estimators=n_rounds,
                              learning_rate=0.05, max_depth=setting[1], random_state=0,
                              n_jobs=1)
        model.fit(X, y, group=_groups(q))
        return lambda Z, t: model.predict(Z, iteration_range=(0, t))
    return _boosted_by_map(fit, [("max_depth", d) for d in depths], vali, n_rounds)


LEARNED = "QueryRankRLS (Gaussian, widths learned by LQO, Nystrom)"
LEARNED_NDCG1 = LEARNED + ", chosen by validation NDCG@1"
BOOSTERS = {"LightGBM lambdarank": lightgbm_by_map,
            "XGBoost rank:ndcg": xgboost_by_map}
# the API learners of the seven-column table; keywords: (n_basis, maxiter, n_rounds)
PY_LEARNERS = {LEARNED: learned_rankrls, LEARNED_NDCG1: learned_rankrls_ndcg1,
               **BOOSTERS}
LEARNERS.update(PY_LEARNERS)


# ------------------------------------------------------------------ more candidates
# Each row below is one procedure fixed before its test figures were seen: a set of
# candidate models fitted on the training part, the one of the largest validation
# measure kept (MAP, as LETOR's protocol, or the mean of the seven table measures under
# the release's rules). Every such row that was run is in the tutorial's table.

GAMMAS6 = (0.0025, 0.005, 0.01, 0.02, 0.04, 0.08)
SUM_WEIGHTS = (0.1, 1.0, 10.0)    # weight of the (normalized) linear term


def mean_of_seven(convention="letor4"):
    """The validation measure: the mean of NDCG@1, 3, 10, P@1, 3, 10 and MAP under
    ``convention`` (O(m log m))."""
    def measure(y, p, q):
        vals = [ndcg(y, p, q, k=k, convention=convention) for k in (1, 3, 10)]
        vals += [precision_at_k(y, p, q, k=k, convention=convention) for k in (1, 3, 10)]
        return np.mean(vals + [mean_average_precision(y, p, q, convention=convention)])
    return measure


def gain(y):
    """The LETOR gain 2^y - 1 of the labels, as a regression target."""
    return 2.0 ** y - 1.0


def linear_candidates(train, target=None, learner="query"):
    """Linear QueryRankRLS (``learner="query"``) or GlobalRankRLS (``"global"``, pairs
    across queries too) along ``RLS_GRID``. [(params, predict)]."""
    X, y, q = train
    yt = y if target is None else target(y)
    model = (QueryRankRLS(X, yt, q, regparam=RLS_GRID[0]) if learner == "query"
             else GlobalRankRLS(X, yt, regparam=RLS_GRID[0]))
    return _rankrls_path(model, RLS_GRID, {})


def sum_kernel_candidates(train, n_basis=1000, gammas=GAMMAS6, weights=SUM_WEIGHTS,
                          seed=0):
    """QueryRankRLS with the sum kernel k(x, z) = w <x, z> / s + exp(-gamma |x - z|^2)
    (s the mean squared norm of the training rows, so w is the linear term's share) on
    ``n_basis`` Nystrom basis rows, as a precomputed reduced-set kernel (training x
    basis and basis x basis matrices of the library's LinearKernel and GaussianKernel);
    every (w, gamma) with its regparam path. O(m r^2) per (w, gamma)."""
    X, y, q = train
    B = X[_basis_rows(X.shape[0], n_basis, seed)]
    s = float(np.mean(np.einsum("ij,ij->i", X, X)))
    lin = LinearKernel(B, bias=0.0)
    L_r, L_rr = lin.getKM(X) / s, lin.getKM(B) / s
    cands = []
    for gamma in gammas:
        gk = GaussianKernel(B, gamma=gamma)
        G_r, G_rr = gk.getKM(X), gk.getKM(B)
        for w in weights:
            model = QueryRankRLS(w * L_r + G_r, y, q, regparam=RLS_GRID[0],
                                 kernel="PrecomputedKernel",
                                 basis_vectors=w * L_rr + G_rr)
            for lam in RLS_GRID:
                model.solve(lam)
                pred = model.predictor
                cands.append(({"w": w, "gamma": gamma, "regparam": lam},
                              lambda Z, p=pred, g=gk, w=w:
                              p.predict(w * lin.getKM(Z) / s + g.getKM(Z))))
    return cands


_CANDIDATES = {}


def _cached(kind, train, build):
    """``build(train)``, kept while the training part is the same (several rows share
    one candidate set)."""
    X, y, _ = train
    key = (X.shape, float(X.sum()), float(y.sum()))
    if _CANDIDATES.get("key") != key:
        _CANDIDATES.clear()
        _CANDIDATES["key"] = key
    if kind not in _CANDIDATES:
        _CANDIDATES[kind] = build(train)
    return _CANDIDATES[kind]


def _selected_row(kind, build, select):
    """A table row: the candidates of ``build`` (cached per training part as ``kind``),
    the one of the largest validation MAP (``select="map"``) or mean of seven
    (``"mean7"``) kept."""
    def learner(train, vali, convention="letor4"):
        measure = (mean_average_precision if select == "map"
                   else mean_of_seven(convention))
        params, predict = _choose(_cached(kind, train, build), vali, measure)
        return predict, params
    learner.kind, learner.build, learner.select = kind, build, select
    return learner


BY_MAP, BY_MEAN7 = "chosen by validation MAP", "chosen by validation mean of seven"
MORE_LEARNERS = {
    f"QueryRankRLS (Gaussian, 1000 Nystrom, 3 gammas), {BY_MEAN7}": _selected_row(
        "g1000", gaussian_candidates, "mean7"),
    f"QueryRankRLS (Gaussian, 4000 Nystrom, 6 gammas), {BY_MAP}": _selected_row(
        "g4000", lambda t: gaussian_candidates(t, 4000, GAMMAS6), "map"),
    f"QueryRankRLS (Gaussian, 4000 Nystrom, 6 gammas), {BY_MEAN7}": _selected_row(
        "g4000", lambda t: gaussian_candidates(t, 4000, GAMMAS6), "mean7"),
    f"QueryRankRLS (Gaussian, exact kernel, 6 gammas), {BY_MAP}": _selected_row(
        "exact", lambda t: gaussian_candidates(t, None, GAMMAS6), "map"),
    f"QueryRankRLS (Gaussian, exact kernel, 6 gammas), {BY_MEAN7}": _selected_row(
        "exact", lambda t: gaussian_candidates(t, None, GAMMAS6), "mean7"),
    f"QueryRankRLS (linear + Gaussian, 1000 Nystrom, 3 weights x 6 gammas), {BY_MAP}":
        _selected_row("sum", sum_kernel_candidates, "map"),
    f"QueryRankRLS (linear + Gaussian, 1000 Nystrom, 3 weights x 6 gammas), {BY_MEAN7}":
        _selected_row("sum", sum_kernel_candidates, "mean7"),
    f"QueryRankRLS (linear), {BY_MEAN7}": _selected_row("lin", linear_candidates,
                                                        "mean7"),
    f"GlobalRankRLS (linear), {BY_MAP}": _selected_row(
        "global", lambda t: linear_candidates(t, learner="global"), "map"),
    f"QueryRankRLS (linear, target 2^y - 1), {BY_MAP}": _selected_row(
        "lin-gain", lambda t: linear_candidates(t, target=gain), "map"),
    f"QueryRankRLS (Gaussian, 1000 Nystrom, 3 gammas, target 2^y - 1), {BY_MAP}":
        _selected_row("g1000-gain", lambda t: gaussian_candidates(t, target=gain), "map"),
}
PY_LEARNERS.update(MORE_LEARNERS)
LEARNERS.update(MORE_LEARNERS)


def _py_keywords(name, n_basis, maxiter, n_rounds, convention="letor4"):
    if name in MORE_LEARNERS:
        return {"convention": convention}
    return {"n_rounds": n_rounds} if name in BOOSTERS else {"n_basis": n_basis,
                                                             "maxiter": maxiter}


def seven_columns(folder, dataset="mq2008", folds=(1, 2, 3, 4, 5), learners=None,
                  workdir=None, log=None, n_basis=1000, n_rounds=500, maxiter=20):
    """The seven test measures of every learner and fold, all from
    ``rlscore evaluate TEST --predictions PRED --convention C`` on the test predictions
    (``n_basis`` Nystrom basis vectors, at most ``n_rounds`` boosting rounds,
    ``maxiter`` optimizer steps per learned kernel).

    Returns {learner: [per-fold dict(fold, measures..., seconds, params)]}; ``log``
    (a callable) receives each row as it finishes."""
    conv = DATASETS[dataset]["convention"]
    names = [n for n in (learners or list(CLI_LEARNERS) + list(PY_LEARNERS))
             if available(n)]
    work = pathlib.Path(workdir or tempfile.mkdtemp())
    parts = read_parts(folder) if any(n in PY_LEARNERS for n in names) else None
    res = {n: [] for n in names}
    for fold in folds:
        d = write_fold(folder, fold, work / f"Fold{fold}")
        for name in names:
            t0 = time.perf_counter()
            if name in CLI_LEARNERS:
                pred, params = cli_learner(cli_learners(n_basis)[name], d, d)
            else:
                train, vali, (Xt, _, _) = split(parts, fold)
                predict, params = PY_LEARNERS[name](
                    train, vali, **_py_keywords(name, n_basis, maxiter, n_rounds, conv))
                pred = d / "test.pred"
                np.savetxt(pred, predict(Xt))
            seconds = time.perf_counter() - t0
            out = json.loads(rlscore_command(
                "evaluate", d / "test.txt", "--predictions", pred, "--measure",
                ",".join(COLUMNS), "--convention", conv, "--format", "json"))
            row = dict(out, fold=fold, seconds=seconds, params=params)
            res[name].append(row)
            if log is not None:
                log(name, row)
    return res


def seven_column_table(res, dataset="mq2008"):
    """Markdown: our learners (mean ± sample standard deviation over the folds) and the
    published rows; a column's best published value is the bar to clear."""
    source, rows = PUBLISHED[dataset]
    lines = ["| learner | " + " | ".join(HEADER) + " | s / fold |",
             "|---|" + "---|" * (len(COLUMNS) + 1)]
    for name, folds in res.items():
        cells = []
        for c in COLUMNS:
            v = np.array([f[c] for f in folds])
            sd = v.std(ddof=1) if v.size > 1 else float("nan")
            cells.append(f"{v.mean():.3f} ± {sd:.3f}")
        lines.append(f"| {name} | " + " | ".join(cells)
                     + f" | {np.mean([f['seconds'] for f in folds]):.0f} |")
    for name, vals in rows.items():
        lines.append(f"| {name} ({source}) | " + " | ".join(f"{v:.3f}" for v in vals)
                     + " | |")
    return "\n".join(lines)


def beats_published(res, dataset="mq2008"):
    """{learner: [columns where its mean is not above every published row]}."""
    best = np.max(np.array(list(PUBLISHED[dataset][1].values())), axis=0)
    return {name: [h for h, c, b in zip(HEADER, COLUMNS, best)
                   if not np.mean([f[c] for f in folds]) > b]
            for name, folds in res.items()}


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", choices=sorted(DATASETS), default="mq2008")
    ap.add_argument("--data", help="folder of S1.txt ... S5.txt")
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--learners", nargs="+", help="default: all available")
    ap.add_argument("--json", help="also write the per-fold rows to this file")
    ap.add_argument("--maxiter", type=int, default=20,
                    help="optimizer steps per learned kernel (default 20)")
    ap.add_argument("--api", action="store_true", help="the Python-API version")
    ap.add_argument("--verbose", action="store_true",
                    help="progress of the kernel learning on stderr")
    args = ap.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose
    folder = data_dir(args.data, args.dataset)
    if args.api:
        res = run(folder, folds=args.folds, learners=args.learners)
        print(table(res))
        return 0

    def log(name, row):
        print(json.dumps(dict(row, learner=name)), file=sys.stderr, flush=True)
    res = seven_columns(folder, args.dataset, args.folds, args.learners, log=log,
                        maxiter=args.maxiter)
    print(seven_column_table(res, args.dataset))
    for name, missed in beats_published(res, args.dataset).items():
        print(f"{name}: " + ("above every published row in every column" if not missed
                             else "not above every published row in " + ", ".join(missed)))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
