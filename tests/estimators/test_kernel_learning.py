"""KernelRLSCV(gamma="learn"): fitted gamma_/length_scales_, the LOO score equal to the
learned criterion, Pipeline use, scikit-learn's estimator checks, bad input."""

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from rlscore.core.hyper import LearnableKernel
from rlscore.core.hyper import learn_kernel
from rlscore.estimators import KernelRLS, KernelRLSCV  # noqa: E402


def data(m=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=m)


@pytest.mark.parametrize("kernel,ard,penalty", [("rbf", False, 0.0), ("rbf", True, 0.0),
                                                ("rbf", True, "bayes"), ("poly", False, 0.0)])
def test_learned_estimator_matches_core(kernel, ard, penalty):
    X, y = data()
    est = KernelRLSCV(kernel=kernel, gamma="learn", ard=ard, degree=2,
                      penalty=penalty).fit(X, y)
    name = "GaussianKernel" if kernel == "rbf" else "PolynomialKernel"
    core = learn_kernel(X, y, LearnableKernel(name, ard=ard, degree=2), penalty=penalty)
    _check_against_core(est, core, kernel, ard, penalty, X, y)


def test_evidence_criterion_matches_core():
    X, y = data()
    est = KernelRLSCV(kernel="rbf", gamma="learn", ard=True,
                      criterion="evidence").fit(X, y)
    core = learn_kernel(X, y, LearnableKernel(ard=True), criterion="evidence")
    assert est.alpha_ == core.regparam
    np.testing.assert_array_equal(est.gamma_, core.kernel_params["gamma"])
    np.testing.assert_allclose(est.length_scales_, core.length_scales)
    assert len(est.learning_history_) == len(core.history)
    # best_score_: the exact LOO error at the learned point, not the evidence
    from rlscore.core.hyper import LOOObjective
    from rlscore.kernel import GaussianFamily
    loo = LOOObjective(GaussianFamily(X, ard=True), y).value(core.search.x)
    np.testing.assert_allclose(-est.best_score_, loo, rtol=1e-6)


def _check_against_core(est, core, kernel, ard, penalty, X, y):
    assert est.alpha_ == core.regparam
    np.testing.assert_array_equal(est.gamma_, core.kernel_params["gamma"])
    # eigendecomposition (CV path) vs Cholesky (criterion) of an ill-conditioned K;
    # with ard=True the default criterion is the evidence: the LOO error recomputed
    loo = core.criterion
    if core.criterion_name != "loo":
        from rlscore.core.hyper import LOOObjective
        loo = LOOObjective(core.family, y).value(core.search.x)
    np.testing.assert_allclose(-est.best_score_, loo, rtol=1e-6)
    assert est.criterion_ == core.criterion
    params = dict(gamma=core.kernel_params["gamma"])
    if kernel == "poly":
        params.update(degree=2, coef0=core.kernel_params["coef0"])
        assert est.coef0_ == core.kernel_params["coef0"]
    else:
        np.testing.assert_allclose(est.length_scales_, core.length_scales)
    if not ard:
        ref = KernelRLS(alpha=core.regparam, kernel=kernel, **params).fit(X, y)
        np.testing.assert_allclose(est.predict(X[:5]), ref.predict(X[:5]), rtol=1e-6)  # eigh vs Cholesky
    if penalty == 0.0:      # with a penalty the objective, not the LOO error, decreases
        assert est.learning_history_[-1]["criterion"] >= core.criterion - 1e-15


def test_in_pipeline_and_refit_clears_learned_attributes():
    X, y = data()
    pipe = make_pipeline(StandardScaler(), KernelRLSCV(kernel="rbf", gamma="learn",
                                                       ard=True)).fit(X, y)
    assert pipe.predict(X).shape == (len(y),)
    est = KernelRLSCV(kernel="rbf", gamma="learn").fit(X, y)
    est.set_params(gamma=0.5).fit(X, y)
    assert not hasattr(est, "gamma_")


@pytest.mark.parametrize("est", [KernelRLSCV(kernel="rbf", gamma="learn"),
                                 KernelRLSCV(kernel="rbf", gamma="learn", ard=True)])
def test_check_estimator(est):
    check_estimator(est)


@pytest.mark.parametrize("params,exc,match", [
    (dict(kernel="linear", gamma="learn"), ValueError, "rbf"),
    (dict(kernel="rbf", gamma="learn", cv=5), ValueError, "cv='loo'"),
    (dict(kernel="rbf", gamma="learn", alphas=[1.0]), ValueError, "alphas"),
    (dict(kernel="rbf", gamma="learn", n_basis=5), ValueError, "reduced-set"),
    (dict(kernel="rbf", gamma="learn", ard="x"), TypeError, "ard"),
    (dict(kernel="rbf", gamma="lern"), ValueError, "learn"),
    (dict(kernel="rbf", gamma=0.5, ard=True), ValueError, "ard=True needs"),
    (dict(kernel="rbf", gamma=-0.5), ValueError, "gamma"),
    (dict(kernel="rbf", gamma="learn", penalty="jeffreys"), ValueError, "penalty"),
    (dict(kernel="rbf", gamma="learn", penalty=-1.0), ValueError, "penalty"),
    (dict(kernel="rbf", gamma="learn", criterion="aic"), ValueError, "criterion"),
])
def test_bad_parameters(params, exc, match):
    X, y = data()
    with pytest.raises(exc, match=match):
        KernelRLSCV(**params).fit(X, y)


def test_constant_feature_with_ard_and_nonfinite_data():
    X, y = data()
    Xc = X.copy()
    Xc[:, 2] = 1.0
    with pytest.raises(ValueError, match="constant features"):
        KernelRLSCV(kernel="rbf", gamma="learn", ard=True).fit(Xc, y)
    X[0, 0] = np.inf
    with pytest.raises(ValueError):
        KernelRLSCV(kernel="rbf", gamma="learn").fit(X, y)
