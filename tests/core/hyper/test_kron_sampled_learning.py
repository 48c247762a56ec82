"""Kernel learning on sampled pairs (incomplete data): the criterion equals refits of
the explicit sampled system (np.kron rows of the labelled pairs), and the learned point
is the best the search evaluated and no worse than its start."""

import numpy as np
import pytest

from rlscore.core.hyper import (SampledKernelSearch, learn_sampled_kron_kernel,
                                sampled_holdout_error)


def _data(n1=9, n2=7, frac=0.6, seed=0):
    rng = np.random.default_rng(seed)
    X1, X2 = rng.normal(size=(n1, 2)), rng.normal(size=(n2, 3))
    Y = np.sin(2 * X1[:, :1]) @ np.cos(X2[:, :1]).T + 0.2 * rng.normal(size=(n1, n2))
    rows, cols = np.nonzero(rng.random((n1, n2)) < frac)
    return X1, X2, Y[rows, cols], rows, cols


def _gauss(X, g):
    return np.exp(-g * ((X[:, None] - X[None]) ** 2).sum(-1))


def _brute(K1, K2, y, rows, cols, folds, lam):
    """K-fold error of explicit solves of the sampled system (labels centred per fold)."""
    K = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
    sq = 0.0
    for te in folds:
        tr = np.setdiff1d(np.arange(y.size), te)
        mu = y[tr].mean()
        a = np.linalg.solve(K[np.ix_(tr, tr)] + lam * np.eye(tr.size), y[tr] - mu)
        sq += np.sum((K[np.ix_(te, tr)] @ a + mu - y[te]) ** 2)
    return sq / y.size


@pytest.mark.parametrize("setting", ["pairs", "drugs"])
def test_learned_point_is_its_refit_error(setting):
    X1, X2, y, rows, cols = _data()
    search = SampledKernelSearch(max_evaluations=40, rtol=1e-12)
    res = learn_sampled_kron_kernel(X1, X2, y, rows, cols, setting=setting, n_folds=3,
                                    search=search)
    from rlscore.core.hyper._kron_sampled_learning import _folds
    folds = _folds(setting, rows, cols, 3, 0)
    if setting == "drugs":              # each fold holds whole rows
        for f in folds:
            assert not np.isin(rows[f], rows[np.setdiff1d(np.arange(y.size), f)]).any()
    g1, g2 = res.kernel_params1["gamma"], res.kernel_params2["gamma"]
    at = _brute(_gauss(X1, g1), _gauss(X2, g2), y, rows, cols, folds, res.regparam)
    assert res.criterion == pytest.approx(at, rel=1e-6)
    first = res.history[0]
    start = _brute(_gauss(X1, first["kernel_params1"]["gamma"]),
                   _gauss(X2, first["kernel_params2"]["gamma"]), y, rows, cols, folds,
                   first["regparam"])
    assert first["criterion"] == pytest.approx(start, rel=1e-6)
    assert res.criterion <= start
    assert sum(h["best"] for h in res.history) == 1
    assert len(res.history) <= 40 + 5


def test_holdout_error_equals_explicit_solves():
    X1, X2, y, rows, cols = _data(seed=3)
    K1, K2 = _gauss(X1, 0.7), _gauss(X2, 0.3)
    folds = [np.arange(0, y.size, 2), np.arange(1, y.size, 2)]
    v = sampled_holdout_error(K1, K2, y, (rows, cols), folds, 0.5,
                              SampledKernelSearch(rtol=1e-12))
    assert v == pytest.approx(_brute(K1, K2, y, rows, cols, folds, 0.5), rel=1e-8)


def test_bad_arguments_are_named():
    X1, X2, y, rows, cols = _data()
    with pytest.raises(ValueError, match="setting"):
        learn_sampled_kron_kernel(X1, X2, y, rows, cols, setting="drug")
    with pytest.raises(ValueError, match="label_row_inds"):
        learn_sampled_kron_kernel(X1, X2, y, rows[:-1], cols)
    with pytest.raises(TypeError, match="search"):
        learn_sampled_kron_kernel(X1, X2, y, rows, cols, search={"rtol": 1e-3})
