"""RankRLSCV(gamma="learn"): gamma and alpha from the core's ranking criteria (leave-
query-out with query ids, global leave-one-out without), fitted gamma_ /
length_scales_ / learning_history_, the model at the learned values, scikit-learn's
estimator checks, bad input."""

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from rlscore.core.hyper import LearnableKernel
from rlscore.core.hyper import GlobalLOOObjective, LQOObjective, learn_kernel_global, learn_kernel_lqo
from rlscore.core.hyper import learn_kernel
from rlscore.estimators import RankRLS, RankRLSCV  # noqa: E402
from rlscore.kernel import GaussianFamily  # noqa: E402


def data(m=48, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=m)
    return X, y, np.repeat(np.arange(m // 6), 6)


@pytest.mark.parametrize("kernel,ard", [("rbf", False), ("rbf", True), ("poly", False)])
def test_query_learning_matches_core(kernel, ard):
    X, y, q = data()
    est = RankRLSCV(kernel=kernel, gamma="learn", ard=ard, degree=2, cv="lqo").fit(
        X, y, qid=q)
    name = "GaussianKernel" if kernel == "rbf" else "PolynomialKernel"
    core = learn_kernel_lqo(X, y, q, LearnableKernel(name, ard=ard, degree=2))
    assert est.alpha_ == core.regparam
    np.testing.assert_array_equal(est.gamma_, core.kernel_params["gamma"])
    if kernel == "poly":
        assert est.coef0_ == core.kernel_params["coef0"]
    else:
        np.testing.assert_allclose(est.length_scales_, core.length_scales, rtol=1e-15)
    assert est.learning_history_[-1]["criterion"] >= core.criterion - 1e-15
    params = {"gamma": core.kernel_params["gamma"]}
    if kernel == "poly":
        params.update(degree=2, coef0=core.kernel_params["coef0"])
    if not ard:
        ref = RankRLS(alpha=core.regparam, kernel=kernel, **params).fit(X, y, qid=q)
        np.testing.assert_allclose(est.predict(X[:7]), ref.predict(X[:7]), rtol=1e-8,
                                   atol=1e-10)


def test_global_learning_matches_core_and_maps_the_regparam():
    X, y, _ = data(seed=1)
    est = RankRLSCV(kernel="rbf", gamma="learn").fit(X, y)
    core = learn_kernel_global(X, y, "GaussianKernel")
    raw = learn_kernel(X, y, "GaussianKernel", objective=GlobalLOOObjective)
    # the criterion's lambda is the estimator's alpha / m (Laplacian form of RankRLS)
    assert est.alpha_ == core.regparam
    np.testing.assert_allclose(core.regparam, raw.regparam * X.shape[0], rtol=1e-15)
    np.testing.assert_allclose(core.history[-1]["regparam"],
                               raw.history[-1]["regparam"] * X.shape[0], rtol=1e-15)
    assert est.gamma_ == core.kernel_params["gamma"] == raw.kernel_params["gamma"]
    ref = RankRLS(alpha=est.alpha_, kernel="rbf", gamma=est.gamma_).fit(X, y)
    np.testing.assert_allclose(est.predict(X[:7]), ref.predict(X[:7]), rtol=1e-8,
                               atol=1e-10)
    # and the model at alpha_ is the criterion's: its global LOO value there
    obj = GlobalLOOObjective(GaussianFamily(X), y)
    z = np.log([est.alpha_ / X.shape[0], est.gamma_])
    np.testing.assert_allclose(obj.value(z), core.criterion, rtol=1e-12)


def test_query_criterion_value_is_the_learned_one():
    X, y, q = data(seed=2)
    est = RankRLSCV(kernel="rbf", gamma="learn", cv="lqo").fit(X, y, qid=q)
    obj = LQOObjective(GaussianFamily(X), y, q)
    value = obj.value(np.log([est.alpha_, est.gamma_]))
    assert abs(value - min(h["criterion"] for h in est.learning_history_)) <= 1e-12 * value


def test_refit_with_a_number_clears_learned_attributes():
    X, y, q = data()
    est = RankRLSCV(kernel="rbf", gamma="learn").fit(X, y, qid=q)
    assert est.gamma_ > 0
    est.set_params(gamma=0.5).fit(X, y, qid=q)
    assert not hasattr(est, "gamma_") and not hasattr(est, "learning_history_")


@pytest.mark.parametrize("est", [RankRLSCV(kernel="rbf", gamma="learn"),
                                 RankRLSCV(kernel="rbf", gamma="learn", ard=True)])
def test_check_estimator(est):
    check_estimator(est)


@pytest.mark.parametrize("params,exc,match", [
    (dict(kernel="linear", gamma="learn"), ValueError, "rbf"),
    (dict(kernel="rbf", gamma="learn", alphas=[1.0]), ValueError, "alphas"),
    (dict(kernel="rbf", gamma="learn", n_basis=5), ValueError, "reduced-set"),
    (dict(kernel="rbf", gamma="learn", ard="x"), TypeError, "ard"),
    (dict(kernel="rbf", gamma="lern"), ValueError, "learn"),
    (dict(kernel="rbf", gamma=0.5, ard=True), ValueError, "ard=True needs"),
])
def test_bad_parameters(params, exc, match):
    X, y, q = data()
    with pytest.raises(exc, match=match):
        RankRLSCV(**params).fit(X, y, qid=q)


def test_constant_feature_with_ard_and_single_sample_queries():
    X, y, q = data()
    Xc = X.copy()
    Xc[:, 2] = 1.0
    with pytest.raises(ValueError, match="constant features"):
        RankRLSCV(kernel="rbf", gamma="learn", ard=True).fit(Xc, y, qid=q)
    with pytest.raises(ValueError, match="single sample"):
        RankRLSCV(kernel="rbf", gamma="learn").fit(X, y, qid=np.arange(len(y)))
