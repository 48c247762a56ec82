"""The face-equivalence matrix of the survival learners (issue 43): survival RankRLS
(linear, Gaussian) x {K-fold, leave-one-out} x {core SurvivalCV, learner, estimator,
command line; K-fold also GridSearchCV's refits}, and the survival RankSVM's K-fold x {learner refits, estimator refits,
command line}, against brute force computed here from scratch.

The reference enumerates Harrell's comparable pairs of the training rows of every split
(O(m^2) loops), builds their Laplacian L and targets b explicitly and solves the
RankRLS normal equations ((X^T L X + lam I) w = X^T b linear, (L K + lam I) a = b
Gaussian) -- the model retrained on the remaining rows' own comparability graph --,
scores the held-out risk scores with Harrell's C written out as an O(m^2) loop, and
applies the rule every face documents: K-fold, the mean over the folds of each fold's C
(folds without a comparable pair skipped); leave-one-out, the C of the pooled scores.
Every face must give the same estimates, the same chosen regparam and the same test
predictions (rtol 1e-8).
"""

import csv
import functools
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore.utilities.cross_validation import random_folds

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")

RTOL = 1e-8
GAMMA = 0.2
GRID = [0.01, 3.0, 30.0, 300.0, 3000.0]
K_FOLDS, SEED = 4, 3


@functools.lru_cache(maxsize=None)
def _data(seed=0, m=40, d=4):
    """Tied times (rounded), 60 % events, a risk depending on the features; a test
    set of 10 rows."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m + 10, d)), 6)
    risk = X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2] * X[:, 3]
    time = np.round(rng.exponential(np.exp(-risk[:m])) * 4) / 4
    event = rng.random(m) < 0.6
    return X[:m], time, event, X[m:]


# ------------------------------------------------------------------ brute force

def _pairs(event, time):
    """Harrell's comparable pairs (i, j): i an observed event, t_i < t_j, or t_i == t_j
    and j censored."""
    out = []
    for i in range(len(time)):
        for j in range(len(time)):
            if i != j and event[i] and (time[i] < time[j] or
                                        (time[i] == time[j] and not event[j])):
                out.append((i, j))
    return out


def _kernel(A, B, kernel):
    if kernel == "linear":
        return A @ B.T
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-GAMMA * np.maximum(d2, 0))


def _fit(X, time, event, lam, kernel):
    """The survival RankRLS of (X, time, event) from the explicit pair list: a function
    predicting risk scores."""
    m = len(time)
    L, b = np.zeros((m, m)), np.zeros(m)
    for i, j in _pairs(event, time):
        L[i, i] += 1
        L[j, j] += 1
        L[i, j] -= 1
        L[j, i] -= 1
        b[i] += 1
        b[j] -= 1
    if kernel == "linear":
        w = np.linalg.solve(X.T @ L @ X + lam * np.eye(X.shape[1]), X.T @ b)
        return lambda Z: Z @ w
    a = np.linalg.solve(L @ _kernel(X, X, kernel) + lam * np.eye(m), b)
    return lambda Z: _kernel(Z, X, kernel) @ a


def _harrell(event, time, risk):
    """Harrell's C by an O(m^2) loop (risk ties within 1e-8 count 1/2); None without a
    comparable pair."""
    pairs = _pairs(event, time)
    if not pairs:
        return None
    score = [0.5 if abs(risk[i] - risk[j]) <= 1e-8 else float(risk[i] > risk[j])
             for i, j in pairs]
    return float(np.mean(score))


def _folds(cv, m):
    if cv == "loo":
        return [np.array([i]) for i in range(m)]
    return [np.sort(f) for f in random_folds(m, K_FOLDS, seed=SEED)]


@functools.lru_cache(maxsize=None)
def _reference(kernel, cv):
    """(estimates per grid value, chosen regparam, test risk scores, hold-out risk
    scores in row order per grid value) by refits."""
    X, time, event, Xt = _data()
    m = len(time)
    perfs, holdout = [], np.empty((len(GRID), m))
    for k, lam in enumerate(GRID):
        preds = []
        for h in _folds(cv, m):
            rest = np.setdiff1d(np.arange(m), h)
            preds.append(_fit(X[rest], time[rest], event[rest], lam, kernel)(X[h]))
            holdout[k, h] = preds[-1]
        if cv == "loo":
            perfs.append(_harrell(event, time, np.concatenate(preds)))
        else:
            fold_c = [_harrell(event[h], time[h], p) for h, p in zip(_folds(cv, m), preds)]
            perfs.append(np.mean([c for c in fold_c if c is not None]))
    perfs = np.array(perfs)
    lam = GRID[int(np.argmax(perfs))]
    return perfs, lam, _fit(X, time, event, lam, kernel)(Xt), holdout


def _rows(cv, preds, m):
    """A face's hold-out risk scores of one grid value (per fold, or (m,) for
    leave-one-out) in row order."""
    if cv == "loo":
        return np.ravel(preds)
    out = np.empty(m)
    for h, p in zip(random_folds(m, K_FOLDS, seed=SEED), preds):   # the faces' order
        out[h] = np.ravel(p)
    return out


def _check(got, ref, pred_rtol=RTOL, pred_atol=1e-12):
    """Estimates, choice and test predictions; with a 4th item (the face's hold-out
    risk scores per grid value) those too, against the refits'."""
    lam, perfs, pred = got[:3]
    ref_perfs, ref_lam, ref_pred = ref[:3]
    assert_allclose(np.ravel(perfs), ref_perfs, rtol=RTOL, atol=0)
    assert lam == ref_lam
    assert_allclose(np.ravel(pred), ref_pred, rtol=pred_rtol, atol=pred_atol)
    if len(got) > 3:
        cv, holdout = got[3]
        for k, preds in enumerate(holdout):
            assert_allclose(_rows(cv, preds, ref[3].shape[1]), ref[3][k], rtol=RTOL,
                            atol=1e-12)


def test_brute_force_sees_the_grid():
    """The matrix can fail: the estimates differ over the grid (a face that ignored
    regparam, or scored another rule, would not match them)."""
    for kernel in ("linear", "gaussian"):
        for cv in ("kfold", "loo"):
            perfs = _reference(kernel, cv)[0]
            assert np.unique(np.round(perfs, 12)).size >= 3, (kernel, cv, perfs)


# ------------------------------------------------------------------------ faces

def _surv_y(event, time):
    y = np.empty(len(time), dtype=[("event", bool), ("time", np.float64)])
    y["event"], y["time"] = event, time
    return y


def _kernel_kw(kernel, face):
    if kernel == "linear":
        return {"kernel": "LinearKernel" if face != "estimator" else "linear"}
    return {"kernel": "GaussianKernel" if face != "estimator" else "rbf", "gamma": GAMMA}


def _core(kernel, cv, **_):
    from rlscore.core.selection import grid_search
    from rlscore.core.survival import SurvivalCV, SurvivalRankRLSModel
    X, time, event, Xt = _data()
    model = SurvivalRankRLSModel(X, time, event, GRID[0], **_kernel_kw(kernel, "core"))
    folds = "loo" if cv == "loo" else random_folds(len(time), K_FOLDS, seed=SEED)
    res = grid_search(SurvivalCV(model, folds, "cindex"), GRID)
    return res.best, res.performances, model.predictor.predict(Xt), (cv, res.predictions)


def _learner(kernel, cv, **_):
    from rlscore.learner import KfoldSurvivalRankRLS, LeaveOneOutSurvivalRankRLS
    X, time, event, Xt = _data()
    kw = dict(regparams=GRID, measure="cindex", **_kernel_kw(kernel, "learner"))
    if cv == "loo":
        lrn = LeaveOneOutSurvivalRankRLS(X, time, event, **kw)
    else:
        lrn = KfoldSurvivalRankRLS(X, time, event, random_folds(len(time), K_FOLDS,
                                                                seed=SEED), **kw)
    return lrn.regparam, lrn.cv_performances, lrn.predict(Xt), (cv, lrn.cv_predictions)


def _estimator(kernel, cv, **_):
    from rlscore.estimators import SurvivalRankRLSCV
    X, time, event, Xt = _data()
    m = len(time)
    splits = "loo" if cv == "loo" else [
        (np.setdiff1d(np.arange(m), f), f) for f in _folds(cv, m)]
    est = SurvivalRankRLSCV(alphas=GRID, cv=splits, scoring="cindex",
                            **_kernel_kw(kernel, "estimator"))
    est.fit(X, _surv_y(event, time))
    assert est.best_score_ == est.cv_results_["cv_performances"][est.best_index_]
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


def _write_csv(path, X, time=None, event=None):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["T", "E"] + [f"x{k}" for k in range(X.shape[1])])
        for i in range(X.shape[0]):
            w.writerow([repr(float(time[i])) if time is not None else 0,
                        int(event[i]) if event is not None else 0]
                       + [repr(float(v)) for v in X[i]])


def _cli(kernel, cv, run_cli, tmp_path, learner="survival-rankrls", grid=GRID):
    X, time, event, Xt = _data()
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    _write_csv(train, X, time, event)
    _write_csv(test, Xt)
    opts = ["--learner", learner, "--time-column", "T", "--event-column", "E",
            "--regparams", ",".join(map(str, grid)), "--cv", cv, "--measure", "cindex",
            "--folds", K_FOLDS, "--seed", SEED]
    opts += ["--kernel", "linear"] if kernel == "linear" else \
        ["--kernel", "gaussian", "--gamma", GAMMA]
    opts = [str(o) for o in opts]
    code, out, err = run_cli(["cv", train, *opts, "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", train, "-o", model, *opts])
    assert code == 0, err
    code, _, err = run_cli(["predict", model, test, "-o", tmp_path / "p.txt"])
    assert code == 0, err
    # evaluate reports Harrell's C of the model on a labelled file
    code, out, err = run_cli(["evaluate", model, train, "--format", "json"])
    assert code == 0, err
    P = _fit(X, time, event, res["regparam"], kernel)(X) if learner != "survival-ranksvm" \
        else None
    if P is not None:
        assert json.loads(out)["cindex"] == pytest.approx(_harrell(event, time, P),
                                                          rel=1e-12)
    return res["regparam"], np.array(res["cv_performances"]), \
        np.loadtxt(tmp_path / "p.txt")


def _gridsearch(kernel, cv, **_):
    """scikit-learn's GridSearchCV over SurvivalRankRLS: a refit per split and alpha,
    the mean of the splits' ``score`` (Harrell's C) -- the K-fold rule."""
    from sklearn.model_selection import GridSearchCV
    from rlscore.estimators import SurvivalRankRLS
    X, time, event, Xt = _data()
    m = len(time)
    splits = [(np.setdiff1d(np.arange(m), f), f) for f in _folds(cv, m)]
    g = GridSearchCV(SurvivalRankRLS(**_kernel_kw(kernel, "estimator")), {"alpha": GRID},
                     cv=splits).fit(X, _surv_y(event, time))
    return g.best_params_["alpha"], g.cv_results_["mean_test_score"], g.predict(Xt)


FACES = {"core": _core, "learner": _learner, "estimator": _estimator, "cli": _cli,
         "gridsearch": _gridsearch}
ROWS = [(k, cv, face) for k in ("linear", "gaussian") for cv in ("kfold", "loo")
        for face in sorted(FACES) if not (face == "gridsearch" and cv == "loo")]


@pytest.mark.parametrize("kernel,cv,face", ROWS)
def test_survival_rankrls(kernel, cv, face, run_cli, tmp_path):
    got = FACES[face](kernel, cv, run_cli=run_cli, tmp_path=tmp_path)
    _check(got, _reference(kernel, cv))


# ------------------------------------------------------------- survival RankSVM

SVM_GRID = [1e-3, 1e-2, 0.1, 1.0]


@functools.lru_cache(maxsize=None)
def _svm_reference():
    """K-fold of refits of the learner itself (no closed form): the same folds, the
    Harrell's C of each fold written out, the mean over the folds."""
    from rlscore.learner import SurvivalRankSVM
    X, time, event, Xt = _data()
    m = len(time)
    perfs = []
    for lam in SVM_GRID:
        cs = []
        for h in _folds("kfold", m):
            rest = np.setdiff1d(np.arange(m), h)
            lrn = SurvivalRankSVM(X[rest], time[rest], event[rest], regparam=lam)
            c = _harrell(event[h], time[h], lrn.predict(X[h]))
            if c is not None:
                cs.append(c)
        perfs.append(np.mean(cs))
    lam = SVM_GRID[int(np.argmax(perfs))]
    return np.array(perfs), lam, SurvivalRankSVM(X, time, event, regparam=lam).predict(Xt)


def _svm_estimator():
    from sklearn.model_selection import GridSearchCV
    from rlscore.estimators import SurvivalRankSVM
    X, time, event, Xt = _data()
    m = len(time)
    splits = [(np.setdiff1d(np.arange(m), f), f) for f in _folds("kfold", m)]
    g = GridSearchCV(SurvivalRankSVM(), {"alpha": SVM_GRID}, cv=splits).fit(
        X, _surv_y(event, time))
    return g.best_params_["alpha"], g.cv_results_["mean_test_score"], g.predict(Xt)


@pytest.mark.parametrize("face", ["estimator", "cli"])
def test_survival_ranksvm_kfold(face, run_cli, tmp_path):
    if face == "cli":
        got = _cli("linear", "kfold", run_cli, tmp_path, "survival-ranksvm", SVM_GRID)
    else:
        got = _svm_estimator()
    _check(got, _svm_reference())
