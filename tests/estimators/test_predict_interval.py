"""predict_interval of the scikit-learn RLS estimators: the same intervals as the core
(tested against brute force in tests/core/rls/test_intervals.py), scikit-learn folds and
groups, layouts and refusals."""

import pickle

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, KFold

from rlscore.estimators import KernelRLS, KernelRLSCV
from rlscore.learner import RLS


def _data(m=30, n=11, p=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    Y = np.sin(X @ rng.normal(size=(3, p))) + 0.2 * rng.normal(size=(m, p))
    return X, (Y[:, 0] if p == 1 else Y), rng.normal(size=(n, 3))


def test_jackknife_plus_equals_the_learner():
    X, y, Xt = _data()
    est = KernelRLS(alpha=0.3, kernel="rbf", gamma=0.4).fit(X, y)
    ref = RLS(X, y, regparam=0.3, kernel="GaussianKernel", gamma=0.4)
    for method in ("jackknife", "jackknife+", "jackknife-minmax"):
        for a, b in zip(est.predict_interval(Xt, 0.2, method),
                        ref.predict_interval(Xt, 0.2, method)):
            assert a.shape == (11,)
            np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(est.predict_interval(Xt)[0], est.predict(Xt), rtol=1e-12)


def test_cv_plus_folds_from_int_splitter_and_groups():
    X, y, Xt = _data()
    est = KernelRLS(alpha=0.5, kernel="linear").fit(X, y)
    ref = RLS(X, y, regparam=0.5)
    folds = [test for _, test in KFold(5).split(X)]
    expected = ref.predict_interval(Xt, 0.1, "cv+", folds=folds)
    for a, b in zip(est.predict_interval(Xt, 0.1, "cv+", cv=5), expected):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    groups = np.arange(30) % 6
    gfolds = [test for _, test in GroupKFold(3).split(X, y, groups)]
    expected = ref.predict_interval(Xt, 0.1, "cv+", folds=gfolds)
    got = est.predict_interval(Xt, 0.1, "cv+", cv=GroupKFold(3), groups=groups)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    expected = ref.predict_interval(Xt, 0.1, "cv+", groups=groups)
    for a, b in zip(est.predict_interval(Xt, 0.1, "cv+", groups=groups), expected):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_multi_output_layout_and_cv_estimator():
    X, Y, Xt = _data(p=2)
    est = KernelRLSCV(alphas=[0.01, 0.1, 1.0], kernel="rbf", gamma=0.3).fit(X, Y)
    pred, lo, hi = est.predict_interval(Xt, 0.25)
    assert pred.shape == lo.shape == hi.shape == (11, 2)
    assert np.all(lo <= pred) and np.all(pred <= hi)
    ref = RLS(X, Y, regparam=est.alpha_, kernel="GaussianKernel", gamma=0.3)
    for a, b in zip((pred, lo, hi), ref.predict_interval(Xt, 0.25)):
        np.testing.assert_allclose(a, b, rtol=1e-9)


def test_refusals():
    X, y, Xt = _data()
    est = KernelRLS(alpha=1.0).fit(X, y)
    with pytest.raises(ValueError, match="needs cv"):
        est.predict_interval(Xt, method="cv+")
    with pytest.raises(ValueError, match="one sample at a time"):
        est.predict_interval(Xt, method="jackknife+", cv=3)
    with pytest.raises(ValueError, match="method"):
        est.predict_interval(Xt, method="naive")
    with pytest.raises(ValueError, match="alpha"):
        est.predict_interval(Xt, alpha=1.0)
    with pytest.raises(ValueError, match="features"):
        est.predict_interval(Xt[:, :2])
    back = pickle.loads(pickle.dumps(est))
    with pytest.raises(ValueError, match="refit"):
        back.predict_interval(Xt)
