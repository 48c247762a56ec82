"""Survival RankRLS core against brute force: the comparability-graph Laplacian against
the enumerated pair list, the model against PPRankRLSModel on the enumerated pairs and
against the explicit objective, every hold-out against refits."""

import numpy as np
import pytest

from rlscore.core.rankrls import PairCosts, PPRankRLSModel
from rlscore.core.survival import (ComparabilityGraph, SurvivalRankRLSModel,
                                   holdout_cindex)
from rlscore.kernel import GaussianKernel
from rlscore.measure import concordance_index_censored


def _pairs(event, time):
    """Harrell's comparable pairs by enumeration: (i, j), i the earlier event."""
    S, E = [], []
    for i in range(len(time)):
        if not event[i]:
            continue
        for j in range(len(time)):
            if j != i and (time[i] < time[j] or (time[i] == time[j] and not event[j])):
                S.append(i)
                E.append(j)
    return np.array(S, dtype=int), np.array(E, dtype=int)


def _laplacian(m, s, e):
    L = np.zeros((m, m))
    for i, j in zip(s, e):
        L[i, i] += 1
        L[j, j] += 1
        L[i, j] -= 1
        L[j, i] -= 1
    return L


def _data(seed, m=40, d=5, n_times=8):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    time = rng.integers(0, n_times, m).astype(float)
    event = rng.random(m) < 0.6
    event[0] = True
    time[0] = -1 + time.min() if time.min() > 0 else 0.0
    time[1] = time.max() + 1
    return X, time, event


@pytest.mark.parametrize("seed", range(6))
def test_laplacian_and_targets_equal_the_pair_list(seed):
    rng = np.random.default_rng(seed)
    _, time, event = _data(seed, m=int(rng.integers(2, 50)), n_times=int(rng.integers(1, 6)))
    m = time.size
    s, e = _pairs(event, time)
    L = _laplacian(m, s, e)
    g = ComparabilityGraph(event, time)
    assert g.n_edges == s.size
    V = rng.standard_normal((m, 3))
    np.testing.assert_allclose(g.apply(V), L @ V, atol=1e-12)
    np.testing.assert_allclose(g.apply(V[:, 0]), L @ V[:, 0], atol=1e-12)
    np.testing.assert_array_equal(g.degree, np.diag(L))
    unit = np.bincount(s, minlength=m) - np.bincount(e, minlength=m)
    np.testing.assert_array_equal(g.targets(), unit)
    z = time[e] - time[s]
    mag = np.bincount(s, weights=z, minlength=m) - np.bincount(e, weights=z, minlength=m)
    np.testing.assert_allclose(g.targets(magnitudes=True), mag, atol=1e-12)


def test_graph_edge_cases():
    g = ComparabilityGraph([0, 0, 0], [1.0, 2.0, 3.0])        # all censored
    assert g.n_edges == 0
    np.testing.assert_array_equal(g.apply(np.ones(3)), 0.0)
    g = ComparabilityGraph([1, 1], [2.0, 2.0])                # tied events: no pair
    assert g.n_edges == 0
    with pytest.raises(ValueError, match="time"):
        ComparabilityGraph([1, 0], [1.0, np.inf])
    with pytest.raises(ValueError, match="empty"):
        ComparabilityGraph([], [])


def _objective(P, time, event, regparam, norm2, magnitudes):
    s, e = _pairs(event, time)
    z = time[e] - time[s] if magnitudes else np.ones(s.size)
    return np.sum((z - (P[s] - P[e])) ** 2) + regparam * norm2


@pytest.mark.parametrize("magnitudes", [False, True])
@pytest.mark.parametrize("kernel", ["LinearKernel", "GaussianKernel", "nystrom"])
def test_model_equals_pair_list_rankrls_and_minimizes_objective(kernel, magnitudes):
    X, time, event = _data(3)
    s, e = _pairs(event, time)
    kw = {}
    if kernel == "GaussianKernel":
        kw = dict(kernel="GaussianKernel", gamma=0.3)
    elif kernel == "nystrom":
        kw = dict(kernel="GaussianKernel", gamma=0.3, basis_vectors=X[:12])
    mags = time[e] - time[s] if magnitudes else None
    for lam in (0.5, 3.0):
        model = SurvivalRankRLSModel(X, time, event, regparam=lam, magnitudes=magnitudes,
                                     **kw)
        ref = PPRankRLSModel(X, s, e, regparam=lam, costs=PairCosts(magnitudes=mags),
                             **kw)
        P = model.predictor.predict(X)
        np.testing.assert_allclose(P, ref.predictor.predict(X), atol=1e-9)
    # the explicit objective: a perturbation of the dual coefficients never helps
    if kernel == "GaussianKernel":
        K = GaussianKernel(X, gamma=0.3).getKM(X)
        a = np.ravel(model.coef)
        f0 = _objective(K @ a, time, event, 3.0, a @ K @ a, magnitudes)
        rng = np.random.default_rng(0)
        for _ in range(5):
            a2 = a + 1e-3 * rng.standard_normal(a.size)
            assert _objective(K @ a2, time, event, 3.0, a2 @ K @ a2, magnitudes) > f0


def _refit_predictions(X, time, event, h, lam, magnitudes, **kw):
    keep = np.setdiff1d(np.arange(time.size), h)
    model = SurvivalRankRLSModel(X[keep], time[keep], event[keep], regparam=lam,
                                 magnitudes=magnitudes, **kw)
    return np.ravel(model.predictor.predict(X[h]))


@pytest.mark.parametrize("magnitudes", [False, True])
@pytest.mark.parametrize("kernel", ["LinearKernel", "GaussianKernel", "nystrom"])
@pytest.mark.parametrize("method", ["stream", "subgraph", "auto"])
def test_kfold_holdout_equals_refits(kernel, magnitudes, method):
    X, time, event = _data(5, m=36)
    kw = {}
    if kernel == "GaussianKernel":
        kw = dict(kernel="GaussianKernel", gamma=0.3)
    elif kernel == "nystrom":
        kw = dict(kernel="GaussianKernel", gamma=0.3, basis_vectors=X[:10])
    lams = [0.1, 1.0, 10.0]
    model = SurvivalRankRLSModel(X, time, event, regparam=1.0, magnitudes=magnitudes, **kw)
    rng = np.random.default_rng(1)
    folds = np.array_split(rng.permutation(time.size), 4)
    folds.append(np.array([0, 3]))          # an overlapping fold
    preds = model.holdout(folds, regparams=lams, method=method)
    single = model.holdout(folds, method=method)
    for h, P, P1 in zip(folds, preds, single):
        for k, lam in enumerate(lams):
            ref = _refit_predictions(X, time, event, h, lam, magnitudes, **kw)
            scale = max(1.0, np.abs(ref).max())
            np.testing.assert_allclose(P[k], ref, atol=1e-10 * scale)
        ref = _refit_predictions(X, time, event, h, 1.0, magnitudes, **kw)
        np.testing.assert_allclose(P1, ref, atol=1e-10 * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("magnitudes", [False, True])
@pytest.mark.parametrize("kernel", ["LinearKernel", "GaussianKernel"])
def test_leave_one_out_equals_refits(kernel, magnitudes):
    X, time, event = _data(7, m=25)
    kw = dict(kernel="GaussianKernel", gamma=0.5) if kernel == "GaussianKernel" else {}
    model = SurvivalRankRLSModel(X, time, event, regparam=0.7, magnitudes=magnitudes, **kw)
    lams = [0.2, 0.7]
    P = model.leave_one_out(regparams=lams)
    P1 = model.leave_one_out()
    P2 = model.leave_one_out(method="subgraph")
    for i in range(time.size):
        for k, lam in enumerate(lams):
            ref = _refit_predictions(X, time, event, [i], lam, magnitudes, **kw)[0]
            assert P[k, i] == pytest.approx(ref, abs=1e-10 * max(1, abs(ref)))
    np.testing.assert_allclose(P1, P[1], atol=1e-10 * max(1, np.abs(P1).max()))
    np.testing.assert_allclose(P2, P[1], atol=1e-10 * max(1, np.abs(P1).max()))


def test_refit_method_and_cost_model():
    from rlscore.core.survival import holdout_cost
    X, time, event = _data(4, m=30)
    K = X @ X.T + 1.0
    for kw, Xin in ((dict(kernel="GaussianKernel", gamma=0.3), X),
                    (dict(kernel="PrecomputedKernel"), K)):
        model = SurvivalRankRLSModel(Xin, time, event, regparam=0.5, **kw)
        folds = np.array_split(np.arange(30), 3)
        for h, P in zip(folds, model.holdout(folds, method="refit")):
            ref = _refit_predictions(Xin if "gamma" in kw else X, time, event, h, 0.5,
                                     False, **(kw if "gamma" in kw else {}))
            np.testing.assert_allclose(P, ref, atol=1e-10 * max(1, np.abs(ref).max()))
    # LOO streams, few folds take the fold's graph, a dual refit is never cheapest
    c = holdout_cost(1000, 1000, np.ones(1000), dual=True)
    assert min(c, key=c.get) == "stream"
    c = holdout_cost(1000, 1000, [200] * 5, n_groups=1000, dual=True)
    assert min(c, key=c.get) == "subgraph"
    assert c["refit"] > c["subgraph"]


def test_lambda_path_equals_separate_trainings():
    X, time, event = _data(9)
    model = SurvivalRankRLSModel(X, time, event, regparam=1.0, kernel="GaussianKernel",
                                 gamma=0.2)
    for lam in (0.01, 0.3, 30.0):
        model.solve(lam)
        ref = SurvivalRankRLSModel(X, time, event, regparam=lam, kernel="GaussianKernel",
                                   gamma=0.2)
        np.testing.assert_allclose(model.predictor.predict(X), ref.predictor.predict(X),
                                   atol=1e-9)


def test_holdout_cindex_per_fold_and_pooled():
    X, time, event = _data(11, m=30)
    model = SurvivalRankRLSModel(X, time, event, regparam=1.0)
    folds = np.array_split(np.arange(30), 3)
    preds = model.holdout(folds)
    res = holdout_cindex(event, time, folds, preds)
    for h, p, c in zip(folds, preds, res["cindex_per_fold"]):
        assert c == concordance_index_censored(event[h], time[h], p)[0]
    allp = np.empty(30)
    for h, p in zip(folds, preds):
        allp[h] = p
    assert res["cindex_pooled"] == pytest.approx(
        concordance_index_censored(event, time, allp)[0], abs=1e-15)


def test_model_bad_input():
    X, time, event = _data(0, m=10)
    with pytest.raises(ValueError, match="no comparable pair"):
        SurvivalRankRLSModel(X, time, np.zeros(10, dtype=bool))
    with pytest.raises(ValueError, match="one entry per row"):
        SurvivalRankRLSModel(X[:5], time, event)
    with pytest.raises(TypeError, match="magnitudes"):
        SurvivalRankRLSModel(X, time, event, magnitudes="yes")
    model = SurvivalRankRLSModel(X, time, event)
    with pytest.raises(ValueError, match="method"):
        model.holdout([[0, 1]], method="fast")


@pytest.mark.parametrize("magnitudes", [False, True])
@pytest.mark.parametrize("block_size", [7, None])
def test_pcg_matches_direct_nystrom_model(magnitudes, block_size):
    from rlscore.core.nystrom import NystromFeatureMap
    from rlscore.core.survival import pcg_survival_rankrls
    X, time, event = _data(13, m=120)
    idx = np.arange(0, 120, 6)
    lam = 0.5
    direct = SurvivalRankRLSModel(X, time, event, regparam=lam, kernel="GaussianKernel",
                                  gamma=0.3, basis_vectors=X[idx], magnitudes=magnitudes)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    from rlscore.core.nystrom import PCGOptions
    res = pcg_survival_rankrls(X, time, event, fmap, lam, magnitudes=magnitudes,
                               pcg=PCGOptions(rtol=1e-12, maxiter=3000),
                               block_size=block_size, cache=False)
    assert res.converged
    P = res.extras["operator"].factors.predictor(res.solution).predict(X)
    ref = direct.predictor.predict(X)
    np.testing.assert_allclose(np.ravel(P), np.ravel(ref), atol=1e-7 * np.abs(ref).max())


def test_pcg_nystrom_preconditioner_reaches_the_same_solution():
    from rlscore.core.nystrom import NystromFeatureMap
    from rlscore.core.survival import pcg_survival_rankrls
    X, time, event = _data(17, m=90)
    idx = np.arange(0, 90, 5)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    direct = SurvivalRankRLSModel(X, time, event, regparam=0.3, kernel="GaussianKernel",
                                  gamma=0.3, basis_vectors=X[idx])
    from rlscore.core.nystrom import PCGOptions
    res = pcg_survival_rankrls(X, time, event, fmap, 0.3, pcg=PCGOptions(
        rtol=1e-12, maxiter=3000, precondition="nystrom"))
    assert res.converged
    P = np.ravel(res.extras["operator"].factors.predictor(res.solution).predict(X))
    ref = np.ravel(direct.predictor.predict(X))
    np.testing.assert_allclose(P, ref, atol=1e-7 * np.abs(ref).max())


def test_solve_path_equals_separate_solves():
    """The lambda path of the hold-outs (one tridiagonal reduction, the reflectors
    applied in compact WY form) against np.linalg.solve per lambda: random, diagonal
    (every reflector trivial) and rank-deficient C, one and several right-hand sides,
    sizes 1..3 (the Cholesky branch) and up; lambda = 0 on a singular C raises as a
    Cholesky does."""
    from rlscore.core.survival._model import _solve_path
    rng = np.random.default_rng(3)
    lams = [0.0, 0.01, 1.0, 100.0]
    cases = []
    for r in (1, 2, 3, 4, 17, 60):
        A = rng.standard_normal((r, r + 2))
        cases.append(A @ A.T)
    cases.append(np.diag(rng.random(9) + 0.5))
    T = np.diag(rng.random(8) + 2.0) + np.diag(np.full(7, 0.5), 1) + np.diag(
        np.full(7, 0.5), -1)
    cases.append(T)                   # already tridiagonal
    for C in cases:
        for p in (1, 3):
            rhs = rng.standard_normal((C.shape[0], p))
            for grid in (lams, lams[1:2]):
                x = _solve_path(C, rhs, grid)
                assert x.shape == (len(grid), C.shape[0], p)
                for k, lam in enumerate(grid):
                    ref = np.linalg.solve(C + lam * np.eye(C.shape[0]), rhs)
                    np.testing.assert_allclose(x[k], ref, rtol=1e-8,
                                               atol=1e-10 * np.abs(ref).max())
    B = rng.standard_normal((12, 5))
    C = B @ B.T                       # rank 5
    rhs = rng.standard_normal((12, 1))
    x = _solve_path(C, rhs, [0.5, 2.0])
    for k, lam in enumerate([0.5, 2.0]):
        np.testing.assert_allclose(x[k], np.linalg.solve(C + lam * np.eye(12), rhs),
                                   rtol=1e-8, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        _solve_path(np.zeros((5, 5)), rhs[:5], [0.0, 1.0])
