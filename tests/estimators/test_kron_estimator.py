"""PairwiseRLS, the scikit-learn face of the Kronecker learners: the index-pair input
format, closed-form vs iterative training, agreement with the RLScore learners,
scikit-learn tools (clone, cross-validation with groups = settings A/B, grid search),
and bad input."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_val_score

from rlscore.estimators._kronecker import PairwiseRLS
from rlscore.learner.cg_kron_rls import CGKronRLS
from rlscore.learner.kron_rls import KronRLS


def gaussian(A, B, gamma):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


@pytest.fixture
def objects(rng):
    D = rng.standard_normal((12, 3))          # drugs
    T = rng.standard_normal((9, 4))           # targets
    f = lambda i, j: np.sin(D[i, 0]) * T[j, 1] + 0.3 * D[i, 1] * T[j, 0]
    return D, T, f


def all_pairs(rows, cols):
    return np.array([(i, j) for j in cols for i in rows])


def test_complete_grid_uses_closed_form_and_matches_kronrls(objects):
    D, T, f = objects
    train = all_pairs(range(8), range(6))
    y = f(train[:, 0], train[:, 1])
    est = PairwiseRLS(D, T, alpha=0.1, kernel="rbf", gamma=0.5).fit(train, y)
    assert est.solver_ == "closed_form" and est.n_iter_ is None
    K1, K2 = gaussian(D[:8], D[:8], 0.5), gaussian(T[:6], T[:6], 0.5)
    ref = KronRLS(K1=K1, K2=K2, Y=y, regparam=0.1)
    test = all_pairs(range(8, 12), range(6, 9))
    P = est.predict(test)
    R = ref.predict(gaussian(D[8:], D[:8], 0.5), gaussian(T[6:], T[:6], 0.5))
    np.testing.assert_allclose(P, R, rtol=1e-10)
    assert est.dual_coef_.shape == (8, 6)
    # shuffled pair order and duplicated-free grid: same model
    perm = np.random.default_rng(0).permutation(len(y))
    est2 = PairwiseRLS(D, T, alpha=0.1, kernel="rbf", gamma=0.5).fit(train[perm], y[perm])
    np.testing.assert_allclose(est2.predict(test), P, rtol=1e-10)


def test_incomplete_pairs_use_iterative_solver(objects, rng):
    D, T, f = objects
    grid = all_pairs(range(12), range(9))
    idx = rng.choice(len(grid), 60, replace=False)
    train = grid[idx]
    y = f(train[:, 0], train[:, 1])
    est = PairwiseRLS(D, T, alpha=0.5, kernel="rbf", gamma=0.3, tol=1e-12).fit(train, y)
    assert est.solver_ == "iterative" and est.n_iter_ > 0
    o1, o2 = est.objects1_, est.objects2_
    r, c = np.searchsorted(o1, train[:, 0]), np.searchsorted(o2, train[:, 1])
    ref = CGKronRLS(K1=gaussian(D[o1], D[o1], 0.3), K2=gaussian(T[o2], T[o2], 0.3), Y=y,
                    label_row_inds=r, label_col_inds=c, regparam=0.5, tol=1e-12)
    test = grid[:20]
    Kq = gaussian(D[o1], D[o1], 0.3)[np.ix_(r, r)] * gaussian(T[o2], T[o2], 0.3)[np.ix_(c, c)]
    a = np.linalg.solve(Kq + 0.5 * np.eye(60), y)
    Kt = gaussian(D[test[:, 0]], D[o1], 0.3)[:, r] * gaussian(T[test[:, 1]], T[o2], 0.3)[:, c]
    np.testing.assert_allclose(est.predict(test), Kt @ a, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(est.dual_coef_, ref.A, rtol=1e-7)
    with pytest.raises(ValueError, match="closed_form"):
        PairwiseRLS(D, T, solver="closed_form").fit(train, y)


def test_linear_kernel_coef(objects):
    D, T, f = objects
    train = all_pairs(range(12), range(9))
    y = f(train[:, 0], train[:, 1])
    est = PairwiseRLS(D, T, alpha=1e-3).fit(train, y)
    assert est.coef_.shape == (3, 4)
    P = est.predict(train[:5])
    np.testing.assert_allclose(P, [D[i] @ est.coef_ @ T[j] for i, j in train[:5]],
                               rtol=1e-10)
    it = PairwiseRLS(D, T, alpha=1e-3, solver="iterative", tol=1e-13).fit(train, y)
    np.testing.assert_allclose(it.coef_, est.coef_, rtol=1e-6, atol=1e-9)


def test_precomputed_kernels(objects):
    D, T, f = objects
    K1, K2 = gaussian(D, D, 0.2), gaussian(T, T, 0.2)
    train = all_pairs(range(10), range(7))
    y = f(train[:, 0], train[:, 1])
    test = all_pairs([10, 11], [7, 8])
    a = PairwiseRLS(K1, K2, alpha=0.3, kernel="precomputed").fit(train, y)
    b = PairwiseRLS(D, T, alpha=0.3, kernel="rbf", gamma=0.2).fit(train, y)
    np.testing.assert_allclose(a.predict(test), b.predict(test), rtol=1e-10)
    with pytest.raises(ValueError, match="square"):
        PairwiseRLS(D, T, kernel="precomputed").fit(train, y)


def test_one_domain_reciprocal_relation(rng):
    X = rng.uniform(-2, 2, (20, 1))
    s = X[:, 0] ** 3 - X[:, 0]
    games = rng.integers(0, 20, (150, 2))
    games = games[games[:, 0] != games[:, 1]]
    y = s[games[:, 0]] - s[games[:, 1]]
    est = PairwiseRLS(X, alpha=1e-3, kernel="rbf", gamma=1.0,
                      pairwise_kernel="reciprocal").fit(games, y)
    test = rng.integers(0, 20, (30, 2))
    P = est.predict(test)
    np.testing.assert_allclose(est.predict(test[:, ::-1]), -P, atol=1e-8)
    assert np.corrcoef(P, s[test[:, 0]] - s[test[:, 1]])[0, 1] > 0.95
    with pytest.raises(ValueError, match="one domain"):
        PairwiseRLS(X, X, pairwise_kernel="symmetric").fit(games, y)


def test_conditional_ranking_loss(objects):
    D, T, f = objects
    train = all_pairs(range(12), range(9))
    y = f(train[:, 0], train[:, 1])
    est = PairwiseRLS(D, T, alpha=0.1, kernel="rbf", gamma=0.5,
                      loss="conditional_ranking").fit(train, y)
    ref = KronRLS(K1=gaussian(D, D, 0.5), K2=gaussian(T, T, 0.5), Y=y)
    ref.solve_conditional_ranking(0.1)
    np.testing.assert_allclose(est.predict(train), ref.predict(gaussian(D, D, 0.5),
                                                               gaussian(T, T, 0.5)),
                               rtol=1e-8, atol=1e-10)


def test_sklearn_tools(objects):
    D, T, f = objects
    pairs = all_pairs(range(12), range(9))
    y = f(pairs[:, 0], pairs[:, 1])
    est = PairwiseRLS(D, T, alpha=0.1, kernel="rbf", gamma=0.5)
    c = clone(est)
    assert c.get_params()["alpha"] == 0.1 and c.X1 is not None
    # setting A (random pairs: incomplete training grids -> iterative solver)
    a = cross_val_score(est, pairs, y, cv=KFold(3, shuffle=True, random_state=0))
    # setting B (new drugs: complete grids of the other drugs -> closed form)
    b = cross_val_score(est, pairs, y, cv=GroupKFold(3), groups=pairs[:, 0])
    assert np.all(np.isfinite(a)) and np.all(np.isfinite(b))
    assert a.mean() > 0.3 and b.mean() > 0.3
    gs = GridSearchCV(est, {"alpha": [0.01, 1.0]}, cv=GroupKFold(3)).fit(
        pairs, y, groups=pairs[:, 0])
    # the choice equals the best mean R^2 of refits on the same new-drug folds
    manual = {a: np.mean([clone(est).set_params(alpha=a).fit(pairs[tr], y[tr])
                          .score(pairs[te], y[te])
                          for tr, te in GroupKFold(3).split(pairs, y, pairs[:, 0])])
              for a in (0.01, 1.0)}
    assert gs.best_params_["alpha"] == max(manual, key=manual.get)
    np.testing.assert_allclose(gs.best_score_, max(manual.values()), rtol=1e-10)


def test_bad_input(objects):
    D, T, f = objects
    pairs = all_pairs(range(3), range(3))
    y = np.zeros(9)
    with pytest.raises(IndexError):
        PairwiseRLS(D, T).fit(np.array([[0, 9]]), [1.0])
    with pytest.raises(ValueError, match="n_pairs, 2"):
        PairwiseRLS(D, T).fit(np.zeros((3, 3), dtype=int), np.zeros(3))
    with pytest.raises(ValueError, match="integer"):
        PairwiseRLS(D, T).fit(np.array([[0.5, 1.0]]), [1.0])
    with pytest.raises(ValueError, match="one label per pair"):
        PairwiseRLS(D, T).fit(pairs, np.zeros(8))
    with pytest.raises(ValueError):
        PairwiseRLS(D, T, alpha=-1.0).fit(pairs, y)
    with pytest.raises(ValueError):
        PairwiseRLS(D, T, loss="hinge").fit(pairs, y)
    with pytest.raises(ValueError):
        PairwiseRLS(D, T, solver="newton").fit(pairs, y)
    with pytest.raises(ValueError, match="X1"):
        PairwiseRLS().fit(pairs, y)
    with pytest.raises(ValueError, match="max_iter"):
        PairwiseRLS(D, T, alpha=0.0).fit(pairs[:5], y[:5])
    with pytest.raises(ValueError, match="NaN"):
        PairwiseRLS(D, T).fit(pairs, np.full(9, np.nan))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        PairwiseRLS(D, T).predict(pairs)
