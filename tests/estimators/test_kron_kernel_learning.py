"""PairwiseRLS(gamma="learn"): one gamma per domain and alpha from the core's gradient
search (core.kronecker.learn_kron_kernel), predictions equal to the model at the learned
parameters, refits clear the learned attributes, bad combinations refused."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from rlscore.core.hyper import LearnableKernel
from rlscore.core.hyper import learn_kron_kernel
from rlscore.estimators._kronecker import PairwiseRLS  # noqa: E402


def problem(seed=0):
    rng = np.random.default_rng(seed)
    D = rng.standard_normal((14, 3))
    T = rng.standard_normal((10, 2))
    pairs = np.array([(i, j) for j in range(8) for i in range(11)])   # complete grid
    y = (np.sin(D[pairs[:, 0], 0]) * np.cos(T[pairs[:, 1], 1])
         + 0.05 * rng.standard_normal(len(pairs)))
    return D, T, pairs, y


@pytest.mark.parametrize("kernel,ard", [("rbf", False), ("rbf", True), ("poly", False)])
def test_learned_estimator_matches_core(kernel, ard):
    D, T, pairs, y = problem()
    est = PairwiseRLS(D, T, kernel=kernel, gamma="learn", ard=ard, degree=2).fit(pairs, y)
    Y = y.reshape((11, 8), order="F")
    name = "GaussianKernel" if kernel == "rbf" else "PolynomialKernel"
    core = learn_kron_kernel(D[:11], T[:8], Y, LearnableKernel(name, ard=ard, degree=2),
                             LearnableKernel(name, ard=ard, degree=2))
    assert est.alpha_ == core.regparam
    np.testing.assert_array_equal(est.gamma1_, core.kernel_params1["gamma"])
    np.testing.assert_array_equal(est.gamma2_, core.kernel_params2["gamma"])
    if kernel == "poly":
        assert (est.coef0_1_, est.coef0_2_) == (core.kernel_params1["coef0"],
                                                core.kernel_params2["coef0"])
    assert est.learning_history_[-1]["criterion"] >= core.criterion - 1e-15
    # the fitted model is KronRLS at the learned parameters: its in-sample LOO is the
    # learned criterion, and new pairs are predicted with the learned kernels
    loo = est.model_.in_sample_loo()
    np.testing.assert_allclose(np.mean((loo - y) ** 2), core.criterion, rtol=1e-7)
    if kernel == "rbf" and not ard:
        ref = PairwiseRLS(D, T, alpha=core.regparam, kernel="rbf").set_params(
            gamma=core.kernel_params1["gamma"]).fit(pairs, y)
        new = np.array([(12, 9), (13, 0), (0, 9)])
        K1 = np.exp(-est.gamma1_ * ((D[[12, 13, 0], None] - D[None, :11]) ** 2).sum(-1))
        K2 = np.exp(-est.gamma2_ * ((T[[9, 0, 9], None] - T[None, :8]) ** 2).sum(-1))
        A = est.dual_coef_
        expect = np.einsum("uk,kl,ul->u", K1, A, K2)
        np.testing.assert_allclose(est.predict(new), expect, rtol=1e-9, atol=1e-12)
        assert ref.predict(new).shape == (3,)


def test_refit_with_a_number_clears_learned_attributes():
    D, T, pairs, y = problem(1)
    est = PairwiseRLS(D, T, kernel="rbf", gamma="learn").fit(pairs, y)
    assert est.gamma1_ > 0 and est.gamma2_ > 0
    est.set_params(gamma=0.5).fit(pairs, y)
    assert not hasattr(est, "gamma1_") and not hasattr(est, "alpha_")


@pytest.mark.parametrize("params,match", [
    (dict(kernel="linear", gamma="learn"), "rbf"),
    (dict(kernel="rbf", gamma="learn", solver="iterative"), "closed-form"),
    (dict(kernel="rbf", gamma="learn", loss="conditional_ranking"), "loss='squared'"),
    (dict(kernel="poly", gamma="learn", ard=True), "ard=True needs kernel='rbf'"),
    (dict(kernel="rbf", gamma=0.5, ard=True), "ard=True needs gamma='learn'"),
    (dict(kernel="rbf", gamma="lern"), "learn"),
])
def test_bad_parameters(params, match):
    D, T, pairs, y = problem()
    with pytest.raises(ValueError, match=match):
        PairwiseRLS(D, T, **params).fit(pairs, y)
    with pytest.raises(TypeError, match="ard"):
        PairwiseRLS(D, T, kernel="rbf", gamma="learn", ard="x").fit(pairs, y)


def test_incomplete_grid_and_one_domain_refused():
    D, T, pairs, y = problem()
    with pytest.raises(ValueError, match="exactly once"):
        PairwiseRLS(D, T, kernel="rbf", gamma="learn").fit(pairs[:-1], y[:-1])
    with pytest.raises(ValueError, match="two domains"):
        PairwiseRLS(D, kernel="rbf", gamma="learn").fit(pairs, y)


def test_learned_gamma_from_similarity_matrices():
    """kernel='precomputed' with gamma='learn': each domain's kernel is the Gaussian of
    the similarity-induced distance exp(-gamma (S_ii + S_jj - 2 S_ij)); the model at
    the learned gammas and alpha equals the np.kron solve with those kernels computed
    from the similarity matrices directly, for training and new objects."""
    from rlscore.estimators import PairwiseRLS
    rng = np.random.default_rng(11)
    A1, A2 = rng.normal(size=(11, 4)), rng.normal(size=(9, 3))
    S1, S2 = A1 @ A1.T, A2 @ A2.T                  # similarity matrices of all objects
    n1, n2 = 8, 7                                  # training objects; the rest are new
    train = np.array([(i, j) for j in range(n2) for i in range(n1)])
    y = np.tanh(A1[train[:, 0], 0] * A2[train[:, 1], 1]) + 0.1 * rng.normal(size=len(train))
    est = PairwiseRLS(S1, S2, kernel="precomputed", gamma="learn").fit(train, y)
    assert est.learning_history_ and est.alpha_ > 0

    def gauss(S, g):
        d = np.diag(S)
        return np.exp(-g * (d[:, None] + d[None, :] - 2 * S))
    K1, K2 = gauss(S1, est.gamma1_), gauss(S2, est.gamma2_)
    K = np.kron(K2[:n2, :n2], K1[:n1, :n1])       # vec_F order of the training pairs
    a = np.linalg.solve(K + est.alpha_ * np.eye(n1 * n2), y)
    test = np.array([(i, j) for j in range(9) for i in range(11)])
    expected = np.kron(K2[:, :n2], K1[:, :n1]) @ a
    np.testing.assert_allclose(est.predict(test), expected, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="ard=True"):
        PairwiseRLS(S1, S2, kernel="precomputed", gamma="learn", ard=True).fit(train, y)


def test_evidence_criterion_in_the_estimator():
    """PairwiseRLS(gamma='learn', criterion='evidence') is the model of the core's
    evidence search: its learned parameters are learn_kron_kernel's, and its
    predictions the np.kron solve at them."""
    from rlscore.estimators import PairwiseRLS
    rng = np.random.default_rng(12)
    X1, X2 = rng.normal(size=(8, 2)), rng.normal(size=(6, 3))
    train = np.array([(i, j) for j in range(6) for i in range(8)])
    Y = np.sin(X1[:, :1]) * X2[:, 1] + 0.2 * rng.normal(size=(8, 6))
    y = Y.ravel(order="F")
    est = PairwiseRLS(X1, X2, kernel="rbf", gamma="learn", criterion="evidence").fit(train, y)
    ref = learn_kron_kernel(X1, X2, Y, criterion="evidence")
    assert est.alpha_ == pytest.approx(ref.regparam, rel=1e-10)
    assert est.gamma1_ == pytest.approx(ref.kernel_params1["gamma"], rel=1e-10)
    loo = PairwiseRLS(X1, X2, kernel="rbf", gamma="learn").fit(train, y)
    assert loo.alpha_ != pytest.approx(est.alpha_, rel=1e-3)

    def rbf(X, g):
        return np.exp(-g * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    K = np.kron(rbf(X2, est.gamma2_), rbf(X1, est.gamma1_))
    a = np.linalg.solve(K + est.alpha_ * np.eye(48), y)
    np.testing.assert_allclose(est.predict(train), K @ a, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="criterion"):
        PairwiseRLS(X1, X2, kernel="rbf", gamma="learn", criterion="aic").fit(train, y)
    with pytest.raises(ValueError, match="criterion applies"):
        PairwiseRLS(X1, X2, criterion="evidence").fit(train, y)
