"""Every core model that model selection drives follows the HoldoutModel protocol
(rlscore.core.selection): ``solve``, ``holdout(rows)`` equal to a refit without the rows
(computed here with numpy from the closed forms, not by the code under test), and each
optional hold-out it declares (``capabilities``) equal to the same refits.

One case per model class of each family, in the style of SciPy's solver fixture."""

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")

from rlscore.core.nystrom import RLSModel
from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel
from rlscore.core.selection import (HOLDOUT_CAPABILITIES, CrossValidator, HoldoutModel,
                                    LOOCV, LQOCV, NfoldCV, capabilities, grid_search)

RNG = np.random.default_rng(7)
M, D = 24, 4
X = RNG.standard_normal((M, D))
Y = RNG.standard_normal((M, 2))
QIDS = np.repeat(np.arange(6), 4)
GAMMA = 0.3


def gaussian(A, B):
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-GAMMA * d2)


def laplacian(rows, kind):
    """The centring of the loss on ``rows``: identity (RLS), global (m I - 1 1^T) or
    per query (block-diagonal I - 1 1^T / n_q, Pahikkala et al. 2009)."""
    n = len(rows)
    if kind == "rls":
        return np.eye(n)
    if kind == "global":
        return n * np.eye(n) - np.ones((n, n))
    q = QIDS[rows]
    L = np.eye(n)
    for g in np.unique(q):
        idx = np.flatnonzero(q == g)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


BASIS = np.array([0, 2, 5, 9, 13, 17, 20, 23])


def refit_predict(train, test, lam, kind, kernel):
    """Minimizer of (Y - K a)^T L (Y - K a) + lam a^T K a on ``train``, predicted on
    ``test``: the dual (K L K + lam K) a = K L Y, i.e. a = (L K + lam I)^-1 L Y."""
    if kernel == "nystrom":
        # the reduced set without the held-out basis rows: a = (K_BT K_TB + lam K_BB)^-1
        # K_BT Y on the basis B of the training rows T (Airola et al. 2011)
        B = np.intersect1d(BASIS, train)
        KTB = gaussian(X[train], X[B])
        a = np.linalg.solve(KTB.T @ KTB + lam * gaussian(X[B], X[B]), KTB.T @ Y[train])
        return gaussian(X[test], X[B]) @ a
    if kernel == "gaussian":
        K = gaussian(X[train], X[train])
        Kt = gaussian(X[test], X[train])
        L = laplacian(train, kind)
        a = np.linalg.solve(L @ K + lam * np.eye(len(train)), L @ Y[train])
        return Kt @ a
    Xt, L = X[train], laplacian(train, kind)
    w = np.linalg.solve(Xt.T @ L @ Xt + lam * np.eye(D), Xt.T @ L @ Y[train])
    return X[test] @ w


CASES = {
    "rls-dual": (lambda lam: RLSModel(X, Y, lam, "GaussianKernel", gamma=GAMMA, path=True),
                 "rls", "gaussian"),
    "rls-primal": (lambda lam: RLSModel(X, Y, lam, "LinearKernel", bias=0.0, path=True),
                   "rls", "linear"),
    "rls-nystrom": (lambda lam: RLSModel(X, Y, lam, "GaussianKernel", gamma=GAMMA,
                                         basis_indices=BASIS, path=True),
                    "rls", "nystrom"),
    "global-rankrls": (lambda lam: GlobalRankRLSModel(X, Y, lam, "GaussianKernel",
                                                      gamma=GAMMA, decompose_now=True),
                       "global", "gaussian"),
    "query-rankrls": (lambda lam: QueryRankRLSModel(X, Y, QIDS, lam, "GaussianKernel",
                                                    gamma=GAMMA, decompose_now=True),
                      "query", "gaussian"),
    "query-rankrls-primal": (lambda lam: QueryRankRLSModel(X, Y, QIDS, lam,
                                                           "LinearKernel", bias=0.0,
                                                           decompose_now=True),
                             "query", "linear"),
}


@pytest.fixture(params=sorted(CASES))
def case(request):
    return CASES[request.param]


def _rows_fold(kind):
    # a fold of whole queries for query RankRLS (its holdout_rows), any rows otherwise
    return np.flatnonzero(np.isin(QIDS, [1, 4])) if kind == "query" else \
        np.array([0, 5, 9, 17])


def _holdout(model, rows):
    return (model.holdout_rows if "holdout_rows" in capabilities(model)
            else model.holdout)(rows)


@pytest.mark.parametrize("lam", [1e-3, 1.0, 100.0])
def test_holdout_equals_refit(case, lam):
    build, kind, kernel = case
    model = build(2.0)
    assert isinstance(model, HoldoutModel)
    model.solve(lam)
    rows = _rows_fold(kind)
    train = np.setdiff1d(np.arange(M), rows)
    np.testing.assert_allclose(np.reshape(_holdout(model, rows), (rows.size, -1)),
                               refit_predict(train, rows, lam, kind, kernel),
                               rtol=1e-7, atol=1e-9)


def test_declared_capabilities_equal_refits(case):
    build, kind, kernel = case
    lam = 0.5
    model = build(lam)
    caps = capabilities(model)
    assert caps <= set(HOLDOUT_CAPABILITIES)
    if "leave_one_out" in caps:
        P = np.reshape(model.leave_one_out(), (M, -1))
        for i in (0, 11, 23):
            train = np.setdiff1d(np.arange(M), [i])
            np.testing.assert_allclose(P[i], refit_predict(train, [i], lam, kind,
                                                           kernel)[0], rtol=1e-7)
    if "leave_query_out" in caps:
        preds = model.leave_query_out()
        for q, rows in enumerate(model.groups.split()):
            train = np.setdiff1d(np.arange(M), rows)
            np.testing.assert_allclose(np.reshape(preds[q], (rows.size, -1)),
                                       refit_predict(train, rows, lam, kind, kernel),
                                       rtol=1e-7, atol=1e-9)
    if "leave_pair_out" in caps and kind != "query":
        s, e = np.array([0, 3]), np.array([7, 20])
        ps, pe = model.leave_pair_out(s, e)
        for k in range(2):
            train = np.setdiff1d(np.arange(M), [s[k], e[k]])
            ref = refit_predict(train, [s[k], e[k]], lam, kind, kernel)
            np.testing.assert_allclose(np.reshape(ps, (2, -1))[k], ref[0], rtol=1e-7)
            np.testing.assert_allclose(np.reshape(pe, (2, -1))[k], ref[1], rtol=1e-7)


def test_cross_validators_follow_the_protocol_and_drive_the_model(case):
    """The grid search re-solves the model at each value through the protocol: the
    K-fold estimate of every value equals the refits', and the model ends at the best."""
    from rlscore.measure import sqerror
    build, kind, kernel = case
    model = build(1.0)
    folds = ([np.flatnonzero(np.isin(QIDS, g)) for g in ([0, 3], [1, 4], [2, 5])]
             if kind == "query" else [np.arange(k, M, 3) for k in range(3)])
    cv = NfoldCV(model, sqerror, folds)
    assert isinstance(cv, CrossValidator)
    grid = [0.01, 1.0, 100.0]
    result = grid_search(cv, grid)
    for j, lam in enumerate(grid):
        expect = np.mean([sqerror(Y[f], refit_predict(np.setdiff1d(np.arange(M), f), f,
                                                      lam, kind, kernel)) for f in folds])
        assert result.performances[j] == pytest.approx(expect, rel=1e-7)
    assert result.model is model and model.regparam == result.best
    assert list(result) [2] == result.best           # RLScore's (perfs, preds, best)


def test_loo_and_lqo_cross_validators_are_protocol_objects():
    from rlscore.measure import sqerror
    rls = CASES["rls-dual"][0](1.0)
    qr = CASES["query-rankrls"][0](1.0)
    for cv in (LOOCV(rls, sqerror), LQOCV(qr, sqerror)):
        assert isinstance(cv, CrossValidator)
        res = grid_search(cv, [0.1, 10.0])
        assert res.model is cv.rls and np.isfinite(res.performances).all()
