"""Leave-query-out criterion of query RankRLS and its adjoint gradient against refits
without each query (explicit centred systems and the QueryRankRLS learner) and central
finite differences."""

import numpy as np
import pytest

from rlscore.core.hyper import LQOObjective, learn_kernel_lqo, lqo_error_gradient
from rlscore.kernel import GaussianFamily, GaussianKernel, PolynomialFamily, SumFamily
from rlscore.learner import QueryRankRLS


def ranking_data(m=30, d=3, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    Y = X[:, :1] + 0.5 * np.sin(X[:, 1:2]) + 0.3 * rng.normal(size=(m, t))
    qids = rng.integers(0, 6, size=m)
    qids[:2] = 9          # a query of 2
    qids[2] = 11          # and one of a single example (P_q = 0: contributes 0)
    return X, (Y[:, 0] if t == 1 else Y), qids


def refit_lqo(K, Y, qids, regparam):
    """Mean per-example squared centred residual of the models trained without each
    query: a = P b, (P K P + lambda I) b = P y on the other queries."""
    Y = Y.reshape(len(Y), -1)
    total = 0.0
    for q in np.unique(qids):
        te, tr = np.flatnonzero(qids == q), np.flatnonzero(qids != q)
        P = np.zeros((tr.size, tr.size))
        for g in np.unique(qids[tr]):
            i = np.flatnonzero(qids[tr] == g)
            P[np.ix_(i, i)] = np.eye(i.size) - 1.0 / i.size
        Ktr = K[np.ix_(tr, tr)]
        b = np.linalg.solve(P @ Ktr @ P + regparam * np.eye(tr.size), P @ Y[tr])
        F = K[np.ix_(te, tr)] @ (P @ b)
        Rq = Y[te] - F
        Rq -= Rq.mean(axis=0)
        total += np.sum(Rq ** 2)
    return total / Y.size


@pytest.mark.parametrize("regparam", [1e-3, 0.5, 20.0])
@pytest.mark.parametrize("t", [1, 2])
def test_criterion_is_refit_lqo(regparam, t):
    X, Y, qids = ranking_data(t=t)
    K = GaussianKernel(X, gamma=0.3).getKM(X)
    value = lqo_error_gradient(K, Y, qids, regparam)[0]
    np.testing.assert_allclose(value, refit_lqo(K, Y, qids, regparam), rtol=1e-9)


def test_criterion_matches_query_rankrls_learner():
    X, y, qids = ranking_data()
    lam, gamma = 0.3, 0.4
    K = GaussianKernel(X, gamma=gamma).getKM(X)
    total = 0.0
    for q in np.unique(qids):
        te = qids == q
        lrn = QueryRankRLS(X[~te], y[~te], qids[~te], regparam=lam,
                           kernel="GaussianKernel", gamma=gamma)
        r = y[te] - lrn.predict(X[te])
        total += np.sum((r - r.mean()) ** 2)
    np.testing.assert_allclose(lqo_error_gradient(K, y, qids, lam)[0], total / len(y),
                               rtol=1e-8)


@pytest.mark.parametrize("make", [lambda X: GaussianFamily(X),
                                  lambda X: GaussianFamily(X, ard=True),
                                  lambda X: PolynomialFamily(X, 2),
                                  lambda X: SumFamily([GaussianFamily(X),
                                                       PolynomialFamily(X, 2)])])
@pytest.mark.parametrize("regparam", [1e-2, 1.0])
def test_gradient_is_central_differences(make, regparam, check_gradient):
    X, Y, qids = ranking_data(t=2)
    fam = make(X)
    obj = LQOObjective(fam, Y, qids)
    z = np.concatenate([[np.log(regparam)], fam.start() + 0.1])
    check_gradient(obj, z)


def test_learned_lqo_beats_grid():
    X, y, qids = ranking_data(m=60, seed=3)
    fam = GaussianFamily(X)
    obj = LQOObjective(fam, y, qids)
    g0 = fam.start()[0]
    grid = min(obj.value([np.log(lam), g0 + np.log(f)])
               for lam in 10.0 ** np.arange(-5, 2) for f in np.logspace(-2, 2, 9))
    res = learn_kernel_lqo(X, y, qids)
    assert res.criterion <= grid * (1 + 1e-9)


def test_bad_input():
    X, y, qids = ranking_data()
    K = GaussianKernel(X).getKM(X)
    with pytest.raises(ValueError, match="regparam"):
        lqo_error_gradient(K, y, qids, 0.0)
    with pytest.raises(ValueError):
        lqo_error_gradient(K, y, qids[:-1], 1.0)
