"""Leave-pair-out follows ``keep_basis_in_cv`` like every other cross-validation (issue
#35, item 2): with a known basis, a pair's predictions are those of the model retrained
without the pair *and* without the basis vectors among it; with keep_basis_in_cv=True
those of the model retrained without the pair on the full basis. Brute force: the
reduced-set normal equations solved on the remaining rows, for RLS and global RankRLS,
through the learners' methods, the selection wrappers and the estimators."""

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")

from rlscore.learner import (GlobalRankRLS, LeavePairOutRankRLS, LeavePairOutRLS, RLS)

M = 30
BASIS = [0, 3, 7, 12, 20, 25]
GAMMA = 0.4


def _data(p=1):
    rng = np.random.default_rng(35)
    X = rng.standard_normal((M, 3))
    Y = np.column_stack([X[:, j % 3] + 0.3 * rng.standard_normal(M) for j in range(p)])
    return X, (Y[:, 0] if p == 1 else Y)


def _gauss(A, B):
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-GAMMA * np.maximum(d2, 0.0))


def _refit(X, Y, rows, basis, lam, rank):
    """Predictions at X (all rows) of the reduced-set model with basis ``basis``
    trained on ``rows``: b solves (K_RM L K_MR + lam K_RR) b = K_RM L y, L = I (RLS)
    or the Laplacian n I - 1 1^T of the n training rows (global RankRLS)."""
    Y2 = Y.reshape(len(Y), -1)
    K_MR = _gauss(X[rows], X[basis])
    n = len(rows)
    L = n * np.eye(n) - np.ones((n, n)) if rank else np.eye(n)
    lhs = K_MR.T @ L @ K_MR + lam * _gauss(X[basis], X[basis])
    b = np.linalg.lstsq(lhs, K_MR.T @ L @ Y2[rows], rcond=None)[0]
    return _gauss(X, X[basis]) @ b


def _brute_pairs(X, Y, s, e, lam, rank, keep):
    Y2 = Y.reshape(len(Y), -1)
    ps, pe = np.empty((len(s), Y2.shape[1])), np.empty((len(s), Y2.shape[1]))
    for k, (i, j) in enumerate(zip(s, e)):
        rows = np.setdiff1d(np.arange(M), [i, j])
        basis = BASIS if keep else [b for b in BASIS if b not in (i, j)]
        P = _refit(X, Y, rows, basis, lam, rank)
        ps[k], pe[k] = P[i], P[j]
    return ps, pe


def _all_pairs():
    i, j = np.triu_indices(M, k=1)
    return i, j


LEARNERS = {"RLS": (RLS, False), "GlobalRankRLS": (GlobalRankRLS, True)}


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("lam,p", [(1e-3, 1), (1.0, 2), (1e3, 1)])
@pytest.mark.parametrize("keep", [False, True])
def test_leave_pair_out_equals_refit(name, lam, keep, p):
    cls, rank = LEARNERS[name]
    X, Y = _data(p)
    learner = cls(X, Y, regparam=lam, kernel="GaussianKernel", gamma=GAMMA,
                  basis_indices=BASIS, keep_basis_in_cv=keep)
    s, e = _all_pairs()
    ps, pe = learner.leave_pair_out(s, e)
    bs, be = _brute_pairs(X, Y, s, e, lam, rank, keep)
    np.testing.assert_allclose(np.reshape(ps, bs.shape), bs, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.reshape(pe, be.shape), be, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_leave_pair_out_agrees_with_holdout(name):
    """The issue's example: leave_pair_out([7], [12]) = holdout([7, 12])."""
    cls, rank = LEARNERS[name]
    X, Y = _data()
    learner = cls(X, Y, regparam=1, kernel="GaussianKernel", gamma=GAMMA,
                  basis_indices=BASIS)
    ps, pe = learner.leave_pair_out([7], [12])
    np.testing.assert_allclose(np.ravel([ps, pe]), np.ravel(learner.holdout([7, 12])),
                               rtol=1e-10)


def _brute_lpo_cindex(X, y, lam, rank, keep):
    i, j = _all_pairs()
    d = y[i] != y[j]
    s, e = i[d], j[d]
    ps, pe = _brute_pairs(X, y, s, e, lam, rank, keep)
    dp = np.sign(ps[:, 0] - pe[:, 0])
    dy = np.sign(y[s] - y[e])
    return float(np.mean(np.where(dp == 0, 0.5, (dp == dy).astype(float))))


GRID = [1e-2, 1.0, 100.0]


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("wrapper,rank", [(LeavePairOutRLS, False),
                                          (LeavePairOutRankRLS, True)])
def test_selection_wrappers(wrapper, rank, keep):
    X, y = _data()
    sel = wrapper(X, y, regparams=GRID, kernel="GaussianKernel", gamma=GAMMA,
                  basis_indices=BASIS, keep_basis_in_cv=keep)
    brute = [_brute_lpo_cindex(X, y, lam, rank, keep) for lam in GRID]
    np.testing.assert_allclose(sel.cv_performances, brute, rtol=1e-12)


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("estimator,rank", [("KernelRLSCV", False), ("RankRLSCV", True)])
def test_estimators_lpo(estimator, rank, keep):
    pytest.importorskip("sklearn")
    from rlscore import estimators
    X, y = _data()
    est = getattr(estimators, estimator)(alphas=GRID, cv="lpo", kernel="rbf",
                                         gamma=GAMMA, basis_indices=BASIS,
                                         keep_basis_in_cv=keep).fit(X, y)
    brute = [_brute_lpo_cindex(X, y, lam, rank, keep) for lam in GRID]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], brute, rtol=1e-12)
