"""PairwiseMKL against brute force with explicit pairwise kernel matrices."""

import itertools

import numpy as np
import pytest

from rlscore.core.kronecker import alignment_statistics, alignment_weights, centered_alignment
from rlscore.learner import CGKronRLS, KronRLS, PairwiseMKL


def _gauss(X, gamma):
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)


def _kernels(rng, n, d, count):
    X = rng.normal(size=(n, d))
    Ks = [X @ X.T, _gauss(X, 0.5), (X @ X.T + 1.0) ** 2, _gauss(X, 0.05)]
    return Ks[:count], X


def _problem(seed=0, n1=7, n2=6, P=2, Q=3, frac=0.6):
    rng = np.random.default_rng(seed)
    K1s, _ = _kernels(rng, n1, 3, P)
    K2s, _ = _kernels(rng, n2, 4, Q)
    pairs = [(r, c) for r in range(n1) for c in range(n2) if rng.random() < frac]
    rows = np.array([p[0] for p in pairs])
    cols = np.array([p[1] for p in pairs])
    y = rng.normal(size=rows.size)
    return K1s, K2s, y, rows, cols


def _explicit(K1, K2, rows, cols):
    """The pairwise kernel on the labelled pairs, from np.kron (pair (r, c) is row
    r * n2 + c of K1 (x) K2)."""
    n2 = K2.shape[0]
    idx = rows * n2 + cols
    return np.kron(K1, K2)[np.ix_(idx, idx)]


def _brute_statistics(K1s, K2s, y, rows, cols):
    s = y.size
    C = np.eye(s) - np.ones((s, s)) / s
    Kc = [C @ _explicit(K1, K2, rows, cols) @ C for K1 in K1s for K2 in K2s]
    Yc = C @ np.outer(y, y) @ C
    a = np.array([np.sum(K * Yc) for K in Kc])
    M = np.array([[np.sum(K * L) for L in Kc] for K in Kc])
    return a, M


def _brute_qp(a, M):
    """min_{mu >= 0} mu^T M mu - 2 a^T mu by enumerating the supports (KKT)."""
    T = a.size
    best, best_mu = np.inf, None
    for k in range(1, T + 1):
        for S in itertools.combinations(range(T), k):
            S = list(S)
            muS = np.linalg.lstsq(M[np.ix_(S, S)], a[S], rcond=None)[0]
            if np.any(muS < -1e-12):
                continue
            mu = np.zeros(T)
            mu[S] = np.clip(muS, 0, None)
            f = mu @ M @ mu - 2 * a @ mu
            if f < best - 1e-12:
                best, best_mu = f, mu
    return best_mu, best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_statistics_equal_explicit_centred_kernels(seed):
    K1s, K2s, y, rows, cols = _problem(seed)
    a, M = alignment_statistics(K1s, K2s, y, rows, cols)
    a_ref, M_ref = _brute_statistics(K1s, K2s, y, rows, cols)
    np.testing.assert_allclose(a, a_ref, rtol=1e-9, atol=1e-9 * np.abs(a_ref).max())
    np.testing.assert_allclose(M, M_ref, rtol=1e-9, atol=1e-9 * np.abs(M_ref).max())


def test_statistics_with_repeated_pairs():
    K1s, K2s, y, rows, cols = _problem(3)
    rows = np.concatenate([rows, rows[:4]])
    cols = np.concatenate([cols, cols[:4]])
    y = np.concatenate([y, y[:4] + 0.5])
    a, M = alignment_statistics(K1s, K2s, y, rows, cols)
    a_ref, M_ref = _brute_statistics(K1s, K2s, y, rows, cols)
    np.testing.assert_allclose(a, a_ref, rtol=1e-9, atol=1e-9 * np.abs(a_ref).max())
    np.testing.assert_allclose(M, M_ref, rtol=1e-9, atol=1e-9 * np.abs(M_ref).max())


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_weights_solve_the_qp_exactly(seed):
    K1s, K2s, y, rows, cols = _problem(seed)
    a, M = _brute_statistics(K1s, K2s, y, rows, cols)
    mu_ref, f_ref = _brute_qp(a, M)
    learner = PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols,
                          regparam=1.0)
    mu = learner.weights.ravel()
    assert np.all(mu >= 0)
    assert np.isclose(mu.sum(), 1.0)
    # the learner's weights are the QP minimizer normalised to sum 1
    np.testing.assert_allclose(mu, mu_ref / mu_ref.sum(), atol=1e-7)
    scale = mu_ref.sum()
    f = (scale * mu) @ M @ (scale * mu) - 2 * a @ (scale * mu)
    assert f <= f_ref + 1e-9 * abs(f_ref)


def test_model_equals_explicit_weighted_kernel_solve():
    K1s, K2s, y, rows, cols = _problem(5)
    lam = 0.7
    learner = PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols,
                          regparam=lam, tol=1e-14, maxiter=5000)
    W = learner.weights
    K = sum(W[i, j] * _explicit(K1s[i], K2s[j], rows, cols)
            for i in range(len(K1s)) for j in range(len(K2s)))
    A_ref = np.linalg.solve(K + lam * np.eye(y.size), y)
    np.testing.assert_allclose(learner.A, A_ref, rtol=1e-6, atol=1e-8)
    # predictions on new objects equal the explicit test-by-training pairwise kernel
    rng = np.random.default_rng(9)
    t_rows = rng.integers(0, K1s[0].shape[0], size=11)
    t_cols = rng.integers(0, K2s[0].shape[0], size=11)
    pred = learner.predict(K1s, K2s, t_rows, t_cols)
    n2 = K2s[0].shape[0]
    test_idx, train_idx = t_rows * n2 + t_cols, rows * n2 + cols
    Kt = sum(W[i, j] * np.kron(K1s[i], K2s[j])[np.ix_(test_idx, train_idx)]
             for i in range(len(K1s)) for j in range(len(K2s)))
    np.testing.assert_allclose(pred, Kt @ A_ref, rtol=1e-6, atol=1e-8)


def test_one_kernel_per_side_equals_cgkronrls_and_kronrls():
    rng = np.random.default_rng(7)
    K1s, _ = _kernels(rng, 6, 3, 2)
    K2s, _ = _kernels(rng, 5, 3, 2)
    K1, K2 = K1s[1], K2s[1]
    rows, cols = np.divmod(np.arange(30), 5)
    y = rng.normal(size=30)
    mkl = PairwiseMKL(K1=[K1], K2=[K2], Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=0.3, tol=1e-14, maxiter=3000)
    assert mkl.weights.shape == (1, 1) and mkl.weights[0, 0] == 1.0
    cg = CGKronRLS(K1=K1, K2=K2, Y=y, label_row_inds=rows, label_col_inds=cols,
                   regparam=0.3, tol=1e-14, maxiter=3000)
    np.testing.assert_allclose(mkl.A, cg.A, rtol=1e-8, atol=1e-10)
    # complete data: KronRLS's closed form (its Y is the n1 x n2 label matrix)
    Y = np.zeros((6, 5))
    Y[rows, cols] = y
    kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=0.3)
    P_mkl = mkl.predict([K1], [K2])
    np.testing.assert_allclose(P_mkl, kr.predict(K1, K2), rtol=1e-6, atol=1e-8)


def test_weights_single_out_the_generating_term():
    rng = np.random.default_rng(11)
    n1, n2 = 25, 20
    X1 = rng.normal(size=(n1, 4))
    X2 = rng.normal(size=(n2, 4))
    K1s = [_gauss(X1, 0.3), X1 @ X1.T]
    K2s = [X2 @ X2.T, _gauss(X2, 0.3)]
    # labels drawn from the Gaussian process of the term K1s[0] (x) K2s[1]
    Ktrue = np.kron(K1s[0], K2s[1])
    L = np.linalg.cholesky(Ktrue + 1e-8 * np.eye(n1 * n2))
    f = L @ rng.normal(size=n1 * n2)
    labelled = rng.random(n1 * n2) < 0.5
    idx = np.flatnonzero(labelled)
    rows, cols = np.divmod(idx, n2)
    y = f[idx]
    learner = PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols)
    assert np.unravel_index(np.argmax(learner.weights), (2, 2)) == (0, 1)
    assert learner.weights[0, 1] > 0.9
    assert np.argmax(learner.alignment) == 1


def test_negatively_aligned_terms_fall_back_to_uniform_with_warning():
    a = np.array([-1.0, -2.0])
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    with pytest.warns(UserWarning, match="uniform"):
        mu = alignment_weights(a, M)
    np.testing.assert_allclose(mu, [0.5, 0.5])


def test_centered_alignment_in_unit_interval():
    K1s, K2s, y, rows, cols = _problem(1)
    a, M = alignment_statistics(K1s, K2s, y, rows, cols)
    al = centered_alignment(a, M, y)
    assert np.all(np.abs(al) <= 1 + 1e-12)
    a_ref, M_ref = _brute_statistics(K1s, K2s, y, rows, cols)
    yc = y - y.mean()
    np.testing.assert_allclose(al, a_ref / np.sqrt(np.diag(M_ref)) / (yc @ yc), rtol=1e-9)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"K1": []}, ValueError, "at least one"),
    ({"K1": [np.eye(7), np.eye(6)]}, ValueError, "same objects"),
    ({"K1": [np.ones((7, 6))]}, ValueError, "square"),
    ({"label_row_inds": np.full(5, 99)}, (ValueError, IndexError), None),
    ({"Y": np.array([np.nan])}, ValueError, None),
    ({"regparam": -1.0}, ValueError, "regparam"),
    ({"maxiter": 0}, ValueError, "maxiter"),
    ({"tol": float("nan")}, ValueError, "tol"),
])
def test_bad_input(kwargs, exc, match):
    K1s, K2s, y, rows, cols = _problem(0)
    args = dict(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        PairwiseMKL(**args)


def test_missing_argument_and_unknown_keyword():
    K1s, K2s, y, rows, cols = _problem(0)
    with pytest.raises(TypeError, match="K2"):
        PairwiseMKL(K1=K1s, Y=y, label_row_inds=rows, label_col_inds=cols)
    with pytest.warns(UserWarning, match="bogus"):
        PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols,
                    bogus=1)


def test_predict_needs_one_test_kernel_per_training_kernel():
    K1s, K2s, y, rows, cols = _problem(0)
    learner = PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols)
    with pytest.raises(ValueError, match="test kernels"):
        learner.predict(K1s[:1], K2s, rows, cols)


def test_estimator_equals_learner_and_works_in_grid_search():
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from rlscore.estimators import MultiKernelPairwiseRLS
    K1s, K2s, y, rows, cols = _problem(4, n1=9, n2=8, frac=0.7)
    pairs = np.column_stack([rows, cols])
    est = MultiKernelPairwiseRLS(K1s, K2s, alpha=0.5, tol=1e-12).fit(pairs, y)
    # every object occurs in training here, so the estimator's objects are all of them
    assert np.array_equal(est.objects1_, np.arange(9))
    learner = PairwiseMKL(K1=K1s, K2=K2s, Y=y, label_row_inds=rows, label_col_inds=cols,
                          regparam=0.5, tol=1e-12)
    np.testing.assert_allclose(est.weights_, learner.weights)
    test = np.array([[0, 1], [3, 7], [8, 0]])
    np.testing.assert_allclose(est.predict(test),
                               learner.predict(K1s, K2s, test[:, 0], test[:, 1]),
                               rtol=1e-9, atol=1e-12)
    gs = GridSearchCV(MultiKernelPairwiseRLS(K1s, K2s), {"alpha": [0.1, 1.0]},
                      cv=GroupKFold(3)).fit(pairs, y, groups=rows)
    assert gs.best_params_["alpha"] in (0.1, 1.0)
    with pytest.raises(ValueError, match="non-empty list"):
        MultiKernelPairwiseRLS(K1s[0], K2s).fit(pairs, y)
