"""Survival RankSVM (hinge and squared hinge over Harrell's comparable pairs) against
the explicit list of comparable pairs: the losses, gradients and Hessian products, and
the trained models (scipy on the pair list, scikit-learn's LinearSVC on the pair
differences, scikit-survival's FastSurvivalSVM)."""

import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

from rlscore.core.ranksvm import (RankSVMOptions, SquaredSurvivalRankingRisk,
                                  SurvivalRankingRisk)
from rlscore.core.survival import train_survival_ranksvm
from rlscore.learner import SurvivalRankSVM


def comparable_pairs(time, event):
    """Harrell's comparable pairs written out: i an event, t_i < t_j, or t_i == t_j
    with j censored."""
    m = len(time)
    pairs = [(i, j) for i in range(m) for j in range(m) if i != j and event[i]
             and (time[i] < time[j] or (time[i] == time[j] and not event[j]))]
    return np.array(pairs).T


def data(m=40, d=4, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    if ties:
        time = rng.integers(1, 8, m).astype(float)
    else:
        time = rng.exponential(size=m) * np.exp(-0.8 * X[:, 0]) + 0.01
    event = rng.random(m) < 0.6
    return X, time, event


def explicit(I, J, p, squared):
    r = 1.0 - p[I] + p[J]
    act = r > 0
    loss = np.sum(r[act] ** 2) if squared else np.sum(r[act])
    c = 2.0 * r * act if squared else act.astype(float)
    g = np.zeros(p.size)
    np.add.at(g, I, -c)
    np.add.at(g, J, c)
    return loss, g, act


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("normalize", ["pairs", "none"])
def test_loss_gradient_hessian_against_pair_list(squared, normalize):
    X, time, event = data()
    I, J = comparable_pairs(time, event)
    cls = SquaredSurvivalRankingRisk if squared else SurvivalRankingRisk
    risk = cls(X, time, event, normalize=normalize)
    assert risk.n_pairs == I.size
    s = 1.0 / I.size if normalize == "pairs" else 1.0
    rng = np.random.default_rng(1)
    for k in range(6):
        p = X @ rng.normal(size=4) * (k + 1) * 0.3
        if k == 5:
            p = np.round(p)         # tied predictions, pairs exactly on the margin
        loss, coef = risk.loss_from_predictions(p)
        ref_loss, ref_g, act = explicit(I, J, p, squared)
        np.testing.assert_allclose(loss, s * ref_loss, rtol=1e-12)
        np.testing.assert_allclose(coef, s * ref_g, atol=1e-12 * max(1, ref_g.max()))
        if squared:
            z = rng.normal(size=p.size)
            dz = (z[I] - z[J]) * act
            lz = np.zeros(p.size)
            np.add.at(lz, I, dz)
            np.add.at(lz, J, -dz)
            _, _, active = risk.evaluate_predictions(p)
            np.testing.assert_allclose(active.hessian_coef(z), 2 * s * lz, atol=1e-12)
    # the closed-form gradient at w = 0 (every pair active with r = 1)
    if squared:
        _, g0, _ = explicit(I, J, np.zeros(time.size), True)
        np.testing.assert_allclose(risk.zero_gradient(), s * X.T @ g0, atol=1e-12)


def test_squared_hinge_model_against_scipy_on_pair_list():
    X, time, event = data(m=50, d=3, seed=2)
    I, J = comparable_pairs(time, event)
    D = X[I] - X[J]
    regparam = 0.05

    def J_obj(w):
        r = np.maximum(0.0, 1.0 - D @ w)
        return 0.5 * regparam * w @ w + np.sum(r ** 2) / I.size, \
            regparam * w - 2.0 * D.T @ r / I.size

    ref = so.minimize(J_obj, np.zeros(3), jac=True, method="L-BFGS-B",
                      options=dict(gtol=1e-13, ftol=1e-16, maxiter=5000)).x
    sol = train_survival_ranksvm(X, time, event, regparam,
                                 options=RankSVMOptions(loss="squared_hinge"))
    assert sol.converged and sol.n_pairs == I.size
    np.testing.assert_allclose(sol.w, ref, atol=1e-6)
    np.testing.assert_allclose(sol.objective, J_obj(ref)[0], rtol=1e-10)
    # sparse input, the bundle method on the same loss: the same model
    sol_sp = train_survival_ranksvm(sp.csr_matrix(X), time, event, regparam,
                                    options=RankSVMOptions(loss="squared_hinge"))
    np.testing.assert_allclose(sol_sp.w, ref, atol=1e-6)
    sol_b = train_survival_ranksvm(X, time, event, regparam,
                                   options=RankSVMOptions(loss="squared_hinge",
                                                          optimizer="bundle", rtol=1e-9))
    np.testing.assert_allclose(sol_b.w, ref, atol=1e-3)


def test_hinge_model_against_linearsvc_on_pair_differences():
    svm = pytest.importorskip("sklearn.svm")
    X, time, event = data(m=40, d=3, seed=3)
    I, J = comparable_pairs(time, event)
    D = X[I] - X[J]
    N = I.size
    regparam = 0.02
    # (1/2)||w||^2 + C sum_pairs hinge, C = 1 / (regparam N): both orientations so
    # that LinearSVC sees two classes (each pair's hinge counted twice: C / 2)
    C = 1.0 / (regparam * N)
    clf = svm.LinearSVC(loss="hinge", C=C / 2, fit_intercept=False, tol=1e-8,
                        max_iter=10 ** 6, dual=True)
    clf.fit(np.vstack([D, -D]), np.r_[np.ones(N), -np.ones(N)])
    ref = clf.coef_.ravel()

    def J_obj(w):
        return 0.5 * regparam * w @ w + np.mean(np.maximum(0, 1 - D @ w))

    sol = train_survival_ranksvm(X, time, event, regparam,
                                 options=RankSVMOptions(loss="hinge", rtol=1e-9))
    assert sol.converged
    np.testing.assert_allclose(sol.objective, J_obj(sol.w), rtol=1e-12)
    assert J_obj(sol.w) <= J_obj(ref) + 1e-9
    np.testing.assert_allclose(sol.w, ref, atol=1e-3)


def test_fast_survival_svm_same_model():
    pytest.importorskip("sksurv")
    from sksurv.svm import FastSurvivalSVM
    from sksurv.util import Surv
    X, time, event = data(m=120, d=5, seed=4, ties=False)
    alpha = 0.3
    sk = FastSurvivalSVM(alpha=alpha, rank_ratio=1.0, fit_intercept=False,
                         optimizer="rbtree", tol=1e-10, max_iter=1000)
    sk.fit(X, Surv.from_arrays(event, time))
    sol = train_survival_ranksvm(X, time, event, 2.0 / alpha,
                                 options=RankSVMOptions(loss="squared_hinge",
                                                        normalize="none"))
    np.testing.assert_allclose(sol.w, -sk.coef_, atol=1e-6)
    np.testing.assert_allclose(X @ sol.w, sk.predict(X), atol=1e-6)
    # the mean-pair normalization: regparam = 2 / (alpha N), the same model
    sol2 = train_survival_ranksvm(X, time, event, 2.0 / (alpha * sol.n_pairs),
                                  options=RankSVMOptions(loss="squared_hinge"))
    np.testing.assert_allclose(sol2.w, -sk.coef_, atol=1e-6)


def test_learner_is_the_core_model():
    X, time, event = data(m=60, d=3, seed=5)
    for loss in ("hinge", "squared_hinge"):
        lrn = SurvivalRankSVM(X, time, event, regparam=0.1, loss=loss)
        sol = train_survival_ranksvm(X, time, event, 0.1, options=RankSVMOptions(loss=loss))
        np.testing.assert_array_equal(lrn.predictor.W.ravel(), sol.w)
        np.testing.assert_allclose(lrn.predict(X), X @ sol.w)
        assert lrn.n_pairs == comparable_pairs(time, event)[0].size


def test_bad_input():
    X, time, event = data(m=20, d=2)
    with pytest.raises(ValueError, match="comparable"):
        train_survival_ranksvm(X, time, np.zeros(20, bool))
    with pytest.raises(ValueError, match="time"):
        train_survival_ranksvm(X, time[:-1], event)
    with pytest.raises(ValueError, match="event"):
        train_survival_ranksvm(X, time, np.full(20, 2))
    with pytest.raises(ValueError, match="regparam"):
        train_survival_ranksvm(X, time, event, regparam=0.0)
    with pytest.raises(ValueError, match="loss"):
        train_survival_ranksvm(X, time, event, options=RankSVMOptions(loss="logistic"))
    with pytest.raises(ValueError, match="normalize"):
        train_survival_ranksvm(X, time, event, options=RankSVMOptions(normalize="query"))
    with pytest.raises(ValueError, match="NaN"):
        train_survival_ranksvm(np.full((20, 2), np.nan), time, event)


def test_warm_start_on_a_subsample_gives_the_same_model():
    """From 5000 rows on, Newton starts from the model of a random tenth of the rows
    (SurvivalRankingRisk.subsample); the stopping test is on all rows, so the model is
    the cold start's."""
    X, time, event = data(m=6000, d=5, seed=6, ties=False)
    for normalize, lam in (("pairs", 1e-3), ("none", 1e3)):
        warm = train_survival_ranksvm(X, time, event, lam,
                                      options=RankSVMOptions(loss="squared_hinge",
                                                             normalize=normalize))
        cold = train_survival_ranksvm(X, time, event, lam,
                                      options=RankSVMOptions(loss="squared_hinge",
                                                             normalize=normalize, warm_start=None))
        assert warm.warm_start_iterations > 0 and cold.warm_start_iterations == 0
        np.testing.assert_allclose(warm.w, cold.w, atol=1e-7 * np.abs(cold.w).max())
    risk = SurvivalRankingRisk(X, time, event, normalize="none")
    sub, factor = risk.subsample(0.1)
    assert sub.m == 600 and factor == pytest.approx(sub.n_pairs / risk.n_pairs)
