"""Leave-query-out criterion of query RankRLS on fixed Nystrom basis rows: against refits
without each query (basis unchanged, explicit centred systems), its O(m r^2) gradient
against central differences, and the block hold-out of reduced-set RLS with one-row
blocks against its leave-one-out."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel
from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import NystromLQOObjective, learn_kernel_lqo
from rlscore.core.hyper import nystrom_loo_error_gradient
from rlscore.kernel import GaussianFamily, GaussianKernel
from rlscore.learner import QueryRankRLS


def ranking_data(m=36, d=3, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * [1.0, 2.0, 0.5]
    Y = X[:, :1] + 0.5 * np.sin(X[:, 1:2]) + 0.3 * rng.normal(size=(m, t))
    qids = rng.integers(0, 6, size=m)
    qids[:2] = 9          # a query of 2
    qids[2] = 11          # and one of a single example (centred away: contributes 0)
    return X, (Y[:, 0] if t == 1 else Y), qids


def centring(q):
    P = np.zeros((q.size, q.size))
    for g in np.unique(q):
        i = np.flatnonzero(q == g)
        P[np.ix_(i, i)] = np.eye(i.size) - 1.0 / i.size
    return P


def refit_lqo(Phi, Krr, Y, qids, regparam):
    """Mean per-example squared centred residual of the models trained without each
    query on the same basis: (Phi' P Phi + lambda K_BB) beta = Phi' P y."""
    Y = Y.reshape(len(Y), -1)
    total = 0.0
    for q in np.unique(qids):
        te, tr = np.flatnonzero(qids == q), np.flatnonzero(qids != q)
        P = centring(qids[tr])
        beta = np.linalg.solve(Phi[tr].T @ P @ Phi[tr] + regparam * Krr,
                               Phi[tr].T @ P @ Y[tr])
        Rq = Y[te] - Phi[te] @ beta
        total += np.sum((Rq - Rq.mean(axis=0)) ** 2)
    return total / Y.size


def objective(X, Y, qids, B, ard):
    return NystromLQOObjective(GaussianFamily(X, ard=ard), GaussianFamily(B, ard=ard),
                               Y, qids)


@pytest.mark.parametrize("regparam", [1e-3, 0.5, 20.0])
@pytest.mark.parametrize("t", [1, 2])
def test_criterion_is_refit_lqo(regparam, t):
    X, Y, qids = ranking_data(t=t)
    B = X[::4] + 0.05
    obj = objective(X, Y, qids, B, False)
    z = np.array([np.log(regparam), np.log(0.3)])
    kern = GaussianKernel(B, gamma=0.3)
    np.testing.assert_allclose(obj.value(z), refit_lqo(kern.getKM(X), kern.getKM(B), Y,
                                                        qids, regparam), rtol=1e-9)
    np.testing.assert_allclose(obj(z)[0], obj.value(z), rtol=1e-12)


def test_criterion_matches_query_rankrls_learner():
    """The learner's Nystrom QueryRankRLS trained without a query predicts it as the
    criterion's model does."""
    X, y, qids = ranking_data()
    B = X[::3]
    lam, gamma = 0.7, 0.4
    total = 0.0
    for q in np.unique(qids):
        te, tr = qids == q, qids != q
        f = QueryRankRLS(X[tr], y[tr], qids[tr], regparam=lam, kernel="GaussianKernel",
                         gamma=gamma, basis_vectors=B).predict(X[te])
        r = y[te] - f
        total += np.sum((r - r.mean()) ** 2)
    obj = objective(X, y, qids, B, False)
    np.testing.assert_allclose(obj.value([np.log(lam), np.log(gamma)]), total / y.size,
                               rtol=1e-8)


@pytest.mark.parametrize("ard", [False, True])
@pytest.mark.parametrize("regparam", [1e-2, 1.0])
@pytest.mark.parametrize("t", [1, 2])
def test_gradient_is_central_differences(ard, regparam, t, check_gradient):
    X, Y, qids = ranking_data(t=t)
    B = X[1::5] + 0.05          # basis rows need not be training rows
    obj = objective(X, Y, qids, B, ard)
    z = np.concatenate([[np.log(regparam)], GaussianFamily(X, ard=ard).start() + 0.2])
    check_gradient(obj, z)


@pytest.mark.parametrize("gradient", [False, True])
def test_one_row_blocks_are_leave_one_out(gradient):
    X, Y, _ = ranking_data(t=2)
    B = X[::4]
    kern = GaussianKernel(B, gamma=0.3)
    Phi, Krr = kern.getKM(X), kern.getKM(B)
    loo = nystrom_loo_error_gradient(Phi, Krr, Y, 0.2, gradient=gradient)
    blk = nystrom_loo_error_gradient(Phi, Krr, Y, 0.2, gradient=gradient,
                                     blocks=[np.array([i]) for i in range(len(Y))])
    for a, b in zip(loo, blk):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-14)


def test_learn_kernel_lqo_with_basis_vectors():
    X, y, qids = ranking_data(m=60)
    B = X[::6]
    res = learn_kernel_lqo(X, y, qids, LearnableKernel(ard=True),
                           search=SearchOptions(restarts=0), basis_vectors=B)
    obj = objective(X, y, qids, B, True)
    z = np.concatenate([[np.log(res.regparam)], np.log(res.kernel_params["gamma"])])
    np.testing.assert_allclose(res.criterion, obj.value(z), rtol=1e-12)
    assert res.criterion < obj.value(np.concatenate([[np.log(1e-2)],
                                                     GaussianFamily(X, ard=True).start()]))
    with pytest.raises(ValueError, match="features"):
        learn_kernel_lqo(X, y, qids, basis_vectors=B[:, :2])
    with pytest.raises(ValueError, match="GaussianKernel"):
        learn_kernel_lqo(X, y, qids, "PolynomialKernel", basis_vectors=B)
