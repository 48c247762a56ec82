"""The survival estimators: y layouts, errors, scikit-learn's search and pipelines
against refits, the learners, scikit-learn's estimator checks, and scikit-survival
(optional: importorskip) on the same objective and measure."""

import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.estimators import (SurvivalRankRLS, SurvivalRankRLSCV,  # noqa: E402
                                SurvivalRankSVM)

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")


def _data(seed=0, m=50, d=4, distinct=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    time = rng.exponential(np.exp(-X[:, 0] + 0.5 * X[:, 1]))
    if not distinct:
        time = np.round(time * 4) / 4
    event = rng.random(m) < 0.65
    return X, time, event


def _y(event, time, names=("event", "time")):
    y = np.empty(len(time), dtype=[(names[0], bool), (names[1], np.float64)])
    y[names[0]], y[names[1]] = event, time
    return y


def test_y_layouts_give_one_model():
    X, time, event = _data()
    ref = SurvivalRankRLS(alpha=2.0).fit(X, _y(event, time)).predict(X)
    # field names and order free: the boolean field is the event
    y2 = np.empty(len(time), dtype=[("futime", np.float64), ("status", bool)])
    y2["futime"], y2["status"] = time, event
    for y in (y2, np.column_stack([event, time])):
        np.testing.assert_allclose(SurvivalRankRLS(alpha=2.0).fit(X, y).predict(X), ref,
                                   rtol=1e-12)


@pytest.mark.parametrize("bad,match", [
    ("nan", "NaN"), ("negative", ">= 0"), ("event2", "0/1"), ("length", "rows"),
    ("1d", "structured"), ("censored", "comparable")])
def test_bad_y_is_a_value_error_naming_y(bad, match):
    X, time, event = _data(1)
    event = event.astype(float)
    if bad == "nan":
        time[3] = np.nan
    elif bad == "negative":
        time[3] = -1.0
    elif bad == "event2":
        event[3] = 2
    elif bad == "censored":
        event[:] = 0
    y = np.column_stack([event, time])
    if bad == "length":
        y = y[:-1]
    elif bad == "1d":
        y = time
    for est in (SurvivalRankRLS(), SurvivalRankRLSCV(alphas=[1.0]), SurvivalRankSVM()):
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


def test_estimators_equal_the_learners():
    from rlscore.learner import SurvivalRankRLS as LRLS, SurvivalRankSVM as LSVM
    X, time, event = _data(2)
    y = _y(event, time)
    est = SurvivalRankRLS(alpha=3.0, kernel="rbf", gamma=0.3).fit(X, y)
    ref = LRLS(X, time, event, regparam=3.0, kernel="GaussianKernel", gamma=0.3)
    np.testing.assert_allclose(est.predict(X), ref.predict(X), rtol=1e-10)
    svm = SurvivalRankSVM(alpha=0.1, loss="squared_hinge").fit(X, y)
    ref = LSVM(X, time, event, regparam=0.1, loss="squared_hinge")
    np.testing.assert_allclose(svm.predict(X), ref.predict(X), rtol=1e-10)
    assert svm.n_pairs_ == ref.n_pairs


def test_cv_estimator_equals_gridsearchcv_refits():
    """SurvivalRankRLSCV's exact K-fold = GridSearchCV's refits and its mean of the
    folds' scores (Harrell's C, score): the same rule, the same choice."""
    X, time, event = _data(3, m=60)
    y = _y(event, time)
    grid = [0.1, 10.0, 100.0, 1000.0]
    splits = [(np.setdiff1d(np.arange(60), f), f)
              for f in np.array_split(np.random.default_rng(0).permutation(60), 4)]
    for kw in ({}, {"kernel": "rbf", "gamma": 0.2}):
        cv = SurvivalRankRLSCV(alphas=grid, cv=splits, **kw).fit(X, y)
        gs = GridSearchCV(SurvivalRankRLS(**kw), {"alpha": grid}, cv=splits).fit(X, y)
        np.testing.assert_allclose(cv.cv_results_["mean_test_score"],
                                   gs.cv_results_["mean_test_score"], rtol=1e-9)
        assert cv.alpha_ == gs.best_params_["alpha"]
        np.testing.assert_allclose(cv.predict(X), gs.predict(X), rtol=1e-9)
    # an int is KFold(k): the same folds as the splits of KFold
    from sklearn.model_selection import KFold
    a = SurvivalRankRLSCV(alphas=grid, cv=3).fit(X, y)
    b = SurvivalRankRLSCV(alphas=grid, cv=list(KFold(3).split(X))).fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["cv_performances"],
                                  b.cv_results_["cv_performances"])


def test_pipeline_and_pickle():
    X, time, event = _data(4)
    y = _y(event, time)
    pipe = make_pipeline(StandardScaler(), SurvivalRankRLSCV(alphas=[1.0, 100.0], cv="loo"))
    pipe.fit(X, y)
    Xs = StandardScaler().fit(X).transform(X)
    ref = SurvivalRankRLSCV(alphas=[1.0, 100.0], cv="loo").fit(Xs, y)
    np.testing.assert_allclose(pipe.predict(X), ref.predict(Xs), rtol=1e-10)
    assert pipe.score(X, y) == ref.score(Xs, y)
    back = pickle.loads(pickle.dumps(ref))
    assert back.model_ is None
    np.testing.assert_array_equal(back.predict(Xs), ref.predict(Xs))
    with pytest.raises(ValueError, match="complement"):
        SurvivalRankRLSCV(cv=[(np.arange(10), np.arange(10, 20))]).fit(X, y)


# -------------------------------------------------------- scikit-learn's checks

CHECKED = [SurvivalRankRLS(), SurvivalRankRLS(kernel="rbf"), SurvivalRankRLSCV(cv=3),
           SurvivalRankSVM()]

# The only exemptions: these checks fit the estimator on a 1-D regression or
# classification y (make_regression / make_blobs), which is no survival outcome; the
# estimators refuse it with the ValueError that names the (event, time) layout.
_ONE_D_Y = {name: "sklearn's check fits a 1-D y; a survival y is (event, time)" for name in (
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_1sample",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent",
    "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency",
    "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_requires_y_none")}


@parametrize_with_checks(CHECKED, expected_failed_checks=lambda est: _ONE_D_Y,
                         xfail_strict=True)
def test_sklearn_checks(estimator, check):
    check(estimator)


# ------------------------------------------------------------- scikit-survival

def test_score_and_ranksvm_equal_scikit_survival():
    pytest.importorskip("sksurv")
    from sksurv.metrics import concordance_index_censored
    from sksurv.svm import FastSurvivalSVM
    from sksurv.util import Surv
    X, time, event = _data(5, m=80, distinct=True)
    y = Surv.from_arrays(event, time)
    a = 0.5
    sk = FastSurvivalSVM(alpha=a, rank_ratio=1.0, fit_intercept=False, optimizer="rbtree",
                         tol=1e-12, max_iter=200).fit(X, y)
    ours = SurvivalRankSVM(alpha=2 / a, loss="squared_hinge", normalize="none",
                           tol=1e-12).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.coef_, -sk.coef_, rtol=1e-6, atol=1e-8)
    rls = SurvivalRankRLS(alpha=1.0).fit(X, y)
    assert rls.score(X, y) == pytest.approx(
        concordance_index_censored(event, time, rls.predict(X))[0], abs=1e-12)
    # scikit-survival's search and scorer take the estimator as one of theirs
    gs = GridSearchCV(SurvivalRankRLS(), {"alpha": [0.1, 10.0]}, cv=3).fit(X, y)
    assert 0.5 < gs.best_score_ <= 1.0
