"""SurvivalCV and the HoldoutModel face of SurvivalRankRLSModel against refits without
the held-out rows and measures written out here."""

import numpy as np
import pytest

from rlscore.core.selection import HoldoutModel, RefitModel, capabilities, grid_search
from rlscore.core.survival import SurvivalCV, SurvivalRankRLSModel, survival_measure
from rlscore.measure import concordance_index_ipcw

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")


def _data(seed=0, m=30, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    time = rng.exponential(np.exp(-X[:, 0]))          # distinct times
    event = rng.random(m) < 0.6
    return X, time, event


def _refit(X, time, event, rows, lam, **kw):
    rest = np.setdiff1d(np.arange(len(time)), rows)
    model = SurvivalRankRLSModel(X[rest], time[rest], event[rest], lam, **kw)
    return np.ravel(model.predictor.predict(X[rows]))


def _harrell(event, time, risk):
    s = c = 0.0
    for i in range(len(time)):
        for j in range(len(time)):
            if event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j])):
                s += 1
                c += 0.5 if abs(risk[i] - risk[j]) <= 1e-8 else float(risk[i] > risk[j])
    return c / s


def test_model_is_a_holdout_model_whose_rows_hold_out_equal_refits():
    X, time, event = _data()
    model = SurvivalRankRLSModel(X, time, event, 0.5, kernel="GaussianKernel", gamma=0.4)
    assert isinstance(model, HoldoutModel)
    assert {"holdout_rows", "leave_one_out", "leave_one_out_path",
            "holdout_path"} <= capabilities(model)
    assert model.Y.dtype.names == ("event", "time")
    np.testing.assert_array_equal(model.Y["time"], time)
    rows = np.array([2, 7, 11, 20])
    ref = _refit(X, time, event, rows, 0.5, kernel="GaussianKernel", gamma=0.4)
    np.testing.assert_allclose(model.holdout_rows(rows)[:, 0], ref, rtol=1e-9)
    folds = [rows, np.array([0, 1])]
    path = model.holdout_path(folds, [0.1, 2.0])
    for k, lam in enumerate([0.1, 2.0]):
        for f, p in zip(folds, path[k]):
            np.testing.assert_allclose(p, _refit(X, time, event, f, lam,
                                                 kernel="GaussianKernel", gamma=0.4),
                                       rtol=1e-9)


def test_kfold_skips_folds_without_pairs_and_scores_uno_with_all_rows():
    X, time, event = _data(1)
    event[:3] = False                      # fold 0 (rows 0-2): all censored, no pair
    folds = [np.arange(3), np.arange(3, 16), np.arange(16, 30)]
    model = SurvivalRankRLSModel(X, time, event, 1.0)
    grid = [0.1, 10.0]
    for name in ("cindex", "uno"):
        res = grid_search(SurvivalCV(model, folds, name), grid)
        for lam, perf in zip(grid, res.performances):
            scores = []
            for h in folds[1:]:
                p = _refit(X, time, event, h, lam)
                scores.append(_harrell(event[h], time[h], p) if name == "cindex" else
                              concordance_index_ipcw((event, time), (event[h], time[h]),
                                                     p)[0])
            assert perf == pytest.approx(np.mean(scores), rel=1e-10)


def test_refit_model_and_outcomes():
    """Any HoldoutModel with the outcomes given: RefitModel of a training function."""
    X, time, event = _data(2)

    def train(rows, lam):
        rows = np.arange(len(time)) if rows is None else rows
        return SurvivalRankRLSModel(X[rows], time[rows], event[rows], lam)
    folds = np.array_split(np.arange(30), 3)
    ref = RefitModel(train, X, np.column_stack([time, event]))
    a = grid_search(SurvivalCV(ref, folds, outcomes=(event, time)), [0.1, 10.0])
    b = grid_search(SurvivalCV(SurvivalRankRLSModel(X, time, event, 1.0), folds),
                    [0.1, 10.0])
    np.testing.assert_allclose(a.performances, b.performances, rtol=1e-10)


def test_bad_arguments():
    X, time, event = _data(3, m=12)
    model = SurvivalRankRLSModel(X, time, event, 1.0)
    with pytest.raises(ValueError, match="survival measure"):
        SurvivalCV(model, "loo", "ndcg")
    with pytest.raises(ValueError, match="'loo'"):
        SurvivalCV(model, "lpo")
    with pytest.raises(ValueError, match="comparable pair"):
        SurvivalCV(model, [np.array([i]) for i in range(12)])
    with pytest.raises(ValueError):
        SurvivalCV(model, [np.array([0, 40])])
    assert survival_measure("UNO").name == "uno"
