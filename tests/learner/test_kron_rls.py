"""KronRLS (complete pairwise data) against explicit np.kron systems: closed forms in
kernel and linear mode, solve, in-sample LOO, conditional ranking, the symmetric and
reciprocal pairwise kernels, transposition checks and bad input."""

import warnings

import numpy as np
import pytest

from rlscore.learner.kron_rls import KronRLS
from rlscore.learner.rls import RLS
from rlscore.predictor import KernelPairwisePredictor, LinearPairwisePredictor


def gaussian(A, B, gamma=0.3):
    d = (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * d)


@pytest.fixture
def task(rng):
    n1, n2, d1, d2 = 7, 5, 4, 3
    X1 = rng.standard_normal((n1, d1))
    X2 = rng.standard_normal((n2, d2))
    X1t = rng.standard_normal((4, d1))
    X2t = rng.standard_normal((3, d2))
    Y = rng.standard_normal((n1, n2))
    return X1, X2, X1t, X2t, Y


def kron_dual(K1, K2, Y, lam):
    n1, n2 = Y.shape
    return np.linalg.solve(np.kron(K2, K1) + lam * np.eye(n1 * n2), Y.ravel(order="F"))


@pytest.mark.parametrize("lam", [1e-6, 1e-2, 1.0, 1e3, 1e6])
def test_kernel_mode_equals_explicit_kron_system(task, lam):
    X1, X2, X1t, X2t, Y = task
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    learner = KronRLS(K1=K1, K2=K2, Y=Y.ravel(order="F"), regparam=lam)
    a = kron_dual(K1, K2, Y, lam)
    np.testing.assert_allclose(learner.A.ravel(order="F"), a, rtol=1e-7,
                               atol=1e-9 * np.abs(a).max())
    K1t, K2t = gaussian(X1t, X1), gaussian(X2t, X2)
    ref = np.kron(K2t, K1t) @ a
    np.testing.assert_allclose(learner.predict(K1t, K2t), ref, rtol=1e-7,
                               atol=1e-10 * np.abs(ref).max())
    assert isinstance(learner.predictor, KernelPairwisePredictor)
    assert learner.Y.shape == Y.shape


def test_kernel_mode_equals_rls_with_kron_kernel(task):
    X1, X2, X1t, X2t, Y = task
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    K1t, K2t = gaussian(X1t, X1), gaussian(X2t, X2)
    lam = 0.01
    rls = RLS(np.kron(K2, K1), Y.reshape(-1, 1, order="F"), lam, kernel="PrecomputedKernel")
    ref = rls.predict(np.kron(K2t, K1t))
    learner = KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam)
    np.testing.assert_allclose(learner.predict(K1t, K2t), ref, rtol=1e-7)
    np.testing.assert_allclose(learner.in_sample_loo(), rls.leave_one_out(), rtol=1e-7)


@pytest.mark.parametrize("lam", [1e-4, 0.1, 10.0])
def test_linear_mode_equals_primal_kron_system(task, lam):
    X1, X2, X1t, X2t, Y = task
    learner = KronRLS(X1=X1, X2=X2, Y=Y, regparam=lam)
    Z = np.kron(X2, X1)
    w = np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T @ Y.ravel(order="F"))
    np.testing.assert_allclose(learner.W.ravel(order="F"), w, rtol=1e-8, atol=1e-12)
    assert isinstance(learner.predictor, LinearPairwisePredictor)
    np.testing.assert_allclose(learner.predict(X1t, X2t), np.kron(X2t, X1t) @ w, rtol=1e-8)
    # the same model as the kernel mode with linear kernels
    kern = KronRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y, regparam=lam)
    np.testing.assert_allclose(learner.predict(X1t, X2t),
                               kern.predict(X1t @ X1.T, X2t @ X2.T), rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(learner.in_sample_loo(), kern.in_sample_loo(), rtol=1e-7)


def test_wide_features_use_the_kernel_route(rng):
    X1 = rng.standard_normal((5, 12))
    X2 = rng.standard_normal((4, 9))
    Y = rng.standard_normal((5, 4))
    learner = KronRLS(X1=X1, X2=X2, Y=Y, regparam=0.5)
    Z = np.kron(X2, X1)
    w = np.linalg.solve(Z.T @ Z + 0.5 * np.eye(Z.shape[1]), Z.T @ Y.ravel(order="F"))
    np.testing.assert_allclose(learner.W.ravel(order="F"), w, rtol=1e-8, atol=1e-12)


def test_sparse_features(rng):
    import scipy.sparse as sp
    X1 = sp.random(9, 4, density=0.5, random_state=1, format="csr")
    X2 = sp.random(6, 3, density=0.6, random_state=2, format="csr")
    Y = rng.standard_normal((9, 6))
    a = KronRLS(X1=X1, X2=X2, Y=Y, regparam=0.3)
    b = KronRLS(X1=X1.toarray(), X2=X2.toarray(), Y=Y, regparam=0.3)
    np.testing.assert_allclose(a.W, b.W, rtol=1e-10, atol=1e-13)


def test_in_sample_loo_equals_retraining(task):
    X1, X2, _, _, Y = task
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    lam = 0.05
    n1, n2 = Y.shape
    learner = KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam)
    loo = learner.in_sample_loo()
    K = np.kron(K2, K1)
    y = Y.ravel(order="F")
    for h in [0, 5, 17, n1 * n2 - 1]:
        keep = np.setdiff1d(np.arange(n1 * n2), [h])
        a = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(keep.size), y[keep])
        np.testing.assert_allclose(loo[h], K[h, keep] @ a, rtol=1e-8)


def test_solve_reuses_decomposition_and_matches_fresh_fit(task):
    X1, X2, X1t, X2t, Y = task
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    learner = KronRLS(K1=K1, K2=K2, Y=Y, regparam=1.0)
    for lam in [2.0 ** k for k in range(-10, 11, 5)]:
        learner.solve(lam)
        assert learner.regparam == lam
        fresh = KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam)
        np.testing.assert_allclose(learner.A, fresh.A, rtol=1e-12)
        np.testing.assert_allclose(learner.in_sample_loo(), fresh.in_sample_loo(), rtol=1e-12)
    with pytest.raises(TypeError):
        learner.solve()


def test_singular_kernels_keep_all_eigenvalues(rng):
    # rank-2 linear kernels: the exact solution of (K2 kron K1 + l I) a = y
    X1 = rng.standard_normal((6, 2))
    X2 = rng.standard_normal((5, 2))
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    Y = rng.standard_normal((6, 5))
    learner = KronRLS(K1=K1, K2=K2, Y=Y, regparam=0.1)
    np.testing.assert_allclose(learner.A.ravel(order="F"), kron_dual(K1, K2, Y, 0.1),
                               rtol=1e-8)


@pytest.mark.parametrize("lam", [1e-3, 0.5, 20.0])
def test_conditional_ranking_equals_query_rankrls(task, lam):
    """Each domain-1 object is a query: A = (L K + l I)^{-1} L y with
    K = K2 kron K1 and L = C kron I (per-query centring, RLScore's QueryRankRLS)."""
    X1, X2, X1t, X2t, Y = task
    n1, n2 = Y.shape
    K = np.kron(X2 @ X2.T, X1 @ X1.T)
    L = np.kron(np.eye(n2) - 1.0 / n2, np.eye(n1))
    a = np.linalg.solve(L @ K + lam * np.eye(n1 * n2), L @ Y.ravel(order="F"))
    ref = np.kron(X2t @ X2.T, X1t @ X1.T) @ a
    lin = KronRLS(X1=X1, X2=X2, Y=Y, regparam=1.0)
    lin.solve_linear_conditional_ranking(lam)
    np.testing.assert_allclose(lin.predict(X1t, X2t), ref, rtol=1e-7, atol=1e-9)
    kern = KronRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y, regparam=1.0)
    kern.solve_conditional_ranking(lam)
    np.testing.assert_allclose(kern.predict(X1t @ X1.T, X2t @ X2.T), ref, rtol=1e-7,
                               atol=1e-9)
    with pytest.raises(ValueError, match="linear mode"):
        kern.solve_linear_conditional_ranking(lam)


def test_conditional_ranking_gaussian_kernel(task):
    X1, X2, X1t, X2t, Y = task
    n1, n2 = Y.shape
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    K = np.kron(K2, K1)
    L = np.kron(np.eye(n2) - 1.0 / n2, np.eye(n1))
    a = np.linalg.solve(L @ K + 0.1 * np.eye(n1 * n2), L @ Y.ravel(order="F"))
    learner = KronRLS(K1=K1, K2=K2, Y=Y)
    learner.solve_conditional_ranking(0.1)
    K1t, K2t = gaussian(X1t, X1), gaussian(X2t, X2)
    np.testing.assert_allclose(learner.predict(K1t, K2t), np.kron(K2t, K1t) @ a, rtol=1e-7,
                               atol=1e-10)
    # the plain regression model is back after solve
    learner.solve(0.1)
    np.testing.assert_allclose(learner.A.ravel(order="F"), kron_dual(K1, K2, Y, 0.1),
                               rtol=1e-8)


# -- one domain: symmetric and reciprocal pairwise kernels -----------------------------

def symmetric_kernel_matrix(K, sign):
    """Explicit pairwise kernel 1/2 [K(a,c) K(b,d) + sign K(a,d) K(b,c)] over all pairs
    (a, b) in column-major order (a fastest)."""
    n = K.shape[0]
    a, b = np.arange(n * n) % n, np.arange(n * n) // n
    return 0.5 * (K[np.ix_(a, a)] * K[np.ix_(b, b)] + sign * K[np.ix_(a, b)] * K[np.ix_(b, a)])


def test_sym_and_recip_kernels_equal_explicit_pairwise_kernel_rls(rng):
    n = 6
    X = rng.standard_normal((n, 3))
    Xt = rng.standard_normal((4, 3))
    K, Kt = gaussian(X, X), gaussian(Xt, X)
    Y = rng.standard_normal((n, n))
    lam = 0.2
    for kind, sign in (("symmetric", 1.0), ("reciprocal", -1.0)):
        G = symmetric_kernel_matrix(K, sign)
        a = np.linalg.solve(G + lam * np.eye(n * n), Y.ravel(order="F"))
        at, bt = np.arange(16) % 4, np.arange(16) // 4
        a_, b_ = np.arange(n * n) % n, np.arange(n * n) // n
        Gt = 0.5 * (Kt[np.ix_(at, a_)] * Kt[np.ix_(bt, b_)]
                    + sign * Kt[np.ix_(at, b_)] * Kt[np.ix_(bt, a_)])
        learner = KronRLS(K1=K, Y=Y, regparam=lam, pairwise_kernel=kind)
        np.testing.assert_allclose(learner.predict(Kt, Kt), Gt @ a, rtol=1e-8, atol=1e-12)
        # Prop. 4.7: plain Kronecker kernel on symmetrized labels
        plain = KronRLS(K1=K, K2=K, Y=0.5 * (Y + sign * Y.T), regparam=lam)
        np.testing.assert_allclose(learner.predict(Kt, Kt), plain.predict(Kt, Kt),
                                   rtol=1e-10, atol=1e-14)
        with pytest.raises(ValueError):
            learner.in_sample_loo()
    # symmetric labels: the symmetric kernel changes nothing
    Ys = Y + Y.T
    a = KronRLS(K1=K, K2=K, Y=Ys, regparam=lam)
    b = KronRLS(K1=K, Y=Ys, regparam=lam, pairwise_kernel="symmetric")
    np.testing.assert_allclose(a.predict(Kt, Kt), b.predict(Kt, Kt), rtol=1e-12)
    with pytest.raises(ValueError, match="one domain"):
        KronRLS(K1=K, K2=2 * K, Y=Ys, pairwise_kernel="symmetric")
    with pytest.raises(ValueError):
        KronRLS(K1=K, Y=Ys, pairwise_kernel="antisymmetric")


def test_reciprocal_relation_is_not_transposed(rng):
    """y(a, b) = f(a) - f(b): predictions for (u, v) must approximate f(u) - f(v), and
    swapping the test objects flips the sign. A transposition bug flips every sign."""
    n = 25
    X = rng.uniform(-2, 2, (n, 1))
    f = lambda Z: np.sin(2 * Z[:, 0]) + Z[:, 0]
    Y = f(X)[:, None] - f(X)[None, :]
    Xt = rng.uniform(-2, 2, (8, 1))
    K, Kt = gaussian(X, X, 1.0), gaussian(Xt, X, 1.0)
    truth = (f(Xt)[:, None] - f(Xt)[None, :]).ravel(order="F")
    for learner in (KronRLS(K1=K, K2=K, Y=Y, regparam=1e-4),
                    KronRLS(K1=K, Y=Y, regparam=1e-4, pairwise_kernel="reciprocal")):
        P = learner.predict(Kt, Kt)
        assert np.corrcoef(P, truth)[0, 1] > 0.99
        Pm = P.reshape(8, 8, order="F")
        np.testing.assert_allclose(Pm, -Pm.T, atol=1e-8)
        np.testing.assert_allclose(learner.predict(Kt, Kt, [1, 2], [3, 4]),
                                   -learner.predict(Kt, Kt, [3, 4], [1, 2]), atol=1e-8)


def test_two_domains_are_not_swapped(rng):
    """Different domains and a relation that depends on both asymmetrically: the
    predicted grid must be indexed (domain-1 object, domain-2 object)."""
    X1 = rng.uniform(-1, 1, (12, 1))
    X2 = rng.uniform(-1, 1, (9, 1))
    Y = np.exp(X1) @ (X2.T ** 2) + X1  # n1 x n2, broadcast X1 over columns
    learner = KronRLS(X1=np.hstack([X1, np.exp(X1), np.ones((12, 1))]),
                      X2=np.hstack([X2 ** 2, np.ones((9, 1))]), Y=Y, regparam=1e-8)
    P = learner.predict(np.hstack([X1, np.exp(X1), np.ones((12, 1))]),
                        np.hstack([X2 ** 2, np.ones((9, 1))]))
    np.testing.assert_allclose(P.reshape(12, 9, order="F"), Y, atol=1e-5)
    np.testing.assert_allclose(learner.predict(np.hstack([X1, np.exp(X1), np.ones((12, 1))]),
                                               np.hstack([X2 ** 2, np.ones((9, 1))]),
                                               [3, 11], [8, 0]), [Y[3, 8], Y[11, 0]],
                               atol=1e-5)


# -- conventions and bad input -----------------------------------------------------------

def test_label_layouts(task):
    X1, X2, _, _, Y = task
    K1, K2 = X1 @ X1.T + np.eye(7), X2 @ X2.T + np.eye(5)
    ref = KronRLS(K1=K1, K2=K2, Y=Y).A
    for Yv in (Y.ravel(order="F"), Y.reshape(-1, 1, order="F"), np.asmatrix(Y),
               Y.ravel(order="F").tolist()):
        np.testing.assert_allclose(KronRLS(K1=K1, K2=K2, Y=Yv).A, ref, rtol=1e-12)


def test_bad_input(task):
    X1, X2, _, _, Y = task
    K1, K2 = X1 @ X1.T + np.eye(7), X2 @ X2.T + np.eye(5)
    with pytest.raises(ValueError, match="transposed"):
        KronRLS(K1=K1, K2=K2, Y=Y.T)
    with pytest.raises(ValueError, match="35 pairs"):
        KronRLS(K1=K1, K2=K2, Y=np.ones(34))
    with pytest.raises(ValueError, match="square"):
        KronRLS(K1=K1[:, :3], K2=K2, Y=Y)
    K1n = K1.copy()
    K1n[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        KronRLS(K1=K1n, K2=K2, Y=Y)
    with pytest.raises(ValueError, match="NaN"):
        KronRLS(K1=K1, K2=K2, Y=np.where(Y > 1, np.nan, Y))
    with pytest.raises(ValueError):
        KronRLS(K1=K1, K2=K2, Y=Y, regparam=-1.0)
    with pytest.raises(ValueError):
        KronRLS(K1=K1, K2=K2, Y=Y, regparam=float("nan"))
    with pytest.raises(ValueError, match="both"):
        KronRLS(K1=K1, X2=X2, Y=Y)
    with pytest.raises(ValueError, match="no data"):
        KronRLS(Y=Y)
    with pytest.raises(TypeError):
        KronRLS(K1, K2, Y)
    with pytest.raises(TypeError):
        KronRLS(K1=K1, K2=K2)
    with pytest.raises(ValueError, match="singular"):
        KronRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y, regparam=0.0)


def test_k_wins_over_x_and_unknown_keywords_warn(task):
    X1, X2, _, _, Y = task
    K1, K2 = gaussian(X1, X1), gaussian(X2, X2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        learner = KronRLS(K1=K1, K2=K2, X1=X1, X2=X2, Y=Y, xmatrix1=X1)
    assert any("xmatrix1" in str(x.message) for x in w)
    assert learner.kernelmode
    np.testing.assert_allclose(learner.A, KronRLS(K1=K1, K2=K2, Y=Y).A)


def test_too_large_problem_is_refused_before_allocating(monkeypatch, rng):
    import rlscore._validation as validation
    monkeypatch.setattr(validation, "available_memory", lambda: 10_000)
    K = np.eye(20)
    with pytest.raises(MemoryError, match="CGKronRLS"):
        KronRLS(K1=K, K2=K, Y=np.zeros((20, 20)))


def test_conditional_ranking_equals_rlscore_query_rankrls(task):
    """As in upstream's test: QueryRankRLS on kron(K2, K1) with qids = domain-1 index."""
    qmod = pytest.importorskip("rlscore.learner.query_rankrls")
    X1, X2, X1t, X2t, Y = task
    n1, n2 = Y.shape
    lam = 0.001
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    qids = np.tile(np.arange(n1), n2)          # vec_F order: pair (i, j) at i + j n1
    rank = qmod.QueryRankRLS(np.kron(K2, K1), Y.reshape(-1, 1, order="F"), qids,
                             regparam=lam, kernel="PrecomputedKernel")
    ref = rank.predict(np.kron(X2t @ X2.T, X1t @ X1.T))
    learner = KronRLS(X1=X1, X2=X2, Y=Y)
    learner.solve_linear_conditional_ranking(lam)
    np.testing.assert_allclose(learner.predict(X1t, X2t), ref, rtol=1e-6, atol=1e-8)
