"""KernelRLSCV: every cross-validation estimate against brute force (retraining
scikit-learn's KernelRidge on every split), alpha selection, scoring, validation."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from numpy.testing import assert_allclose  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV, GroupKFold, KFold, LeaveOneOut, ShuffleSplit, TimeSeriesSplit)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from rlscore.core.selection import DEFAULT_REGPARAMS, LOOCV, LPOCV, NfoldCV  # noqa: F401
from rlscore.core.selection import TrainTestCV  # noqa: F401
from rlscore.estimators._cv import make_crossvalidator  # noqa: E402
from rlscore.estimators import KernelRLS, KernelRLSCV  # noqa: E402
from rlscore.measure import auc, cindex, spearman, sqerror  # noqa: E402

RTOL = 1e-7
ALPHAS = [1e-6, 1e-3, 0.03, 0.3, 1.0, 3.0, 30.0, 1e3, 1e6]

# (KernelRLSCV/KernelRLS parameters, the equivalent KernelRidge and a feature map)
SETUPS = {
    "linear": ({"kernel": "linear", "bias": 1.0},
               {"kernel": "linear"},
               lambda Z: np.hstack([Z, np.ones((Z.shape[0], 1))])),
    "linear-nobias": ({"kernel": "linear", "bias": 0.0}, {"kernel": "linear"},
                      lambda Z: Z),
    "rbf": ({"kernel": "rbf", "gamma": 0.3}, {"kernel": "rbf", "gamma": 0.3},
            lambda Z: Z),
}


def _data(m=24, d=4, p=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    Y = np.sin(X @ rng.normal(size=(d, p))) + 0.3 * rng.normal(size=(m, p))
    return X, (Y[:, 0] if p == 1 else Y)


def _brute_predictions(X, y, alpha, kr_params, fmap, train, test):
    """Retrain scikit-learn's KernelRidge on ``train`` and predict ``test``."""
    Z = fmap(X)
    return KernelRidge(alpha=alpha, **kr_params).fit(Z[train], y[train]).predict(Z[test])


def _brute_split_scores(X, y, alphas, kr_params, fmap, splits, measure=sqerror):
    return np.array([
        np.mean([measure(y[te], _brute_predictions(X, y, a, kr_params, fmap, tr, te))
                 for tr, te in splits])
        for a in alphas])


def _brute_loo(X, y, alpha, kr_params, fmap):
    m = X.shape[0]
    P = np.empty_like(y, dtype=np.float64)
    for i in range(m):
        train = np.delete(np.arange(m), i)
        P[i] = _brute_predictions(X, y, alpha, kr_params, fmap, train, [i])[0]
    return P


def _best(perfs, iserror=True):
    return int(np.argmin(perfs) if iserror else np.argmax(perfs))


# --------------------------------------------------------------------------------------
# leave-one-out


@pytest.mark.parametrize("setup", sorted(SETUPS))
@pytest.mark.parametrize("p", [1, 3])
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_loo_against_brute_force(setup, p):
    params, kr_params, fmap = SETUPS[setup]
    X, y = _data(p=p)
    est = KernelRLSCV(alphas=ALPHAS, **params).fit(X, y)
    brute = np.array([sqerror(y, _brute_loo(X, y, a, kr_params, fmap)) for a in ALPHAS])
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert_allclose(est.cv_results_["mean_test_score"], -brute, rtol=RTOL)
    b = _best(brute)
    assert est.alpha_ == ALPHAS[b]
    assert est.best_index_ == b
    assert est.best_score_ == pytest.approx(-brute[b], rel=RTOL)
    assert est.cv_results_["rank_test_score"][b] == 1
    # the final model is the one trained on all data with alpha_
    ref = KernelRLS(alpha=est.alpha_, **params).fit(X, y)
    assert_allclose(est.predict(X), ref.predict(X), rtol=RTOL)
    assert est.predict(X).shape == y.shape


def test_loo_default_grid_against_brute_force():
    params, kr_params, fmap = SETUPS["rbf"]
    X, y = _data(m=15)
    est = KernelRLSCV(**params).fit(X, y)
    assert_allclose(est.cv_results_["alphas"], DEFAULT_REGPARAMS)
    brute = np.array([sqerror(y, _brute_loo(X, y, a, kr_params, fmap))
                      for a in DEFAULT_REGPARAMS])
    assert est.alpha_ == DEFAULT_REGPARAMS[_best(brute)]
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=1e-6)


def test_loo_explicit_splitter_equals_loo_shortcut():
    X, y = _data()
    a = KernelRLSCV(alphas=ALPHAS, kernel="rbf").fit(X, y)
    b = KernelRLSCV(alphas=ALPHAS, kernel="rbf", cv=LeaveOneOut()).fit(X, y)
    assert a.alpha_ == b.alpha_
    assert_allclose(a.cv_results_["cv_performances"], b.cv_results_["cv_performances"],
                    rtol=RTOL)


@pytest.mark.parametrize("scoring, measure", [("cindex", cindex), (spearman, spearman)])
def test_loo_with_a_score_measure(scoring, measure):
    params, kr_params, fmap = SETUPS["rbf"]
    X, y = _data()
    est = KernelRLSCV(alphas=ALPHAS, scoring=scoring, **params).fit(X, y)
    brute = np.array([measure(y, _brute_loo(X, y, a, kr_params, fmap)) for a in ALPHAS])
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert_allclose(est.cv_results_["mean_test_score"], brute, rtol=RTOL)  # not negated
    assert est.alpha_ == ALPHAS[_best(brute, iserror=False)]
    assert est.best_score_ == pytest.approx(brute.max(), rel=RTOL)


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_custom_measure_function():
    X, y = _data()

    def mae(Y, P):
        return np.mean(np.abs(np.asarray(Y) - np.asarray(P)))
    mae.iserror = True
    params, kr_params, fmap = SETUPS["linear"]
    est = KernelRLSCV(alphas=ALPHAS, scoring=mae, **params).fit(X, y)
    brute = np.array([mae(y, _brute_loo(X, y, a, kr_params, fmap)) for a in ALPHAS])
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert est.alpha_ == ALPHAS[_best(brute)]


# --------------------------------------------------------------------------------------
# K-fold and splitters


@pytest.mark.parametrize("setup", sorted(SETUPS))
@pytest.mark.parametrize("p", [1, 2])
def test_kfold_against_brute_force(setup, p):
    params, kr_params, fmap = SETUPS[setup]
    X, y = _data(m=23, p=p)
    est = KernelRLSCV(alphas=ALPHAS, cv=5, **params).fit(X, y)
    splits = list(KFold(5).split(X))
    brute = _brute_split_scores(X, y, ALPHAS, kr_params, fmap, splits)
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert est.alpha_ == ALPHAS[_best(brute)]
    assert est.best_score_ == pytest.approx(-brute.min(), rel=RTOL)


@pytest.mark.parametrize("cv_name", ["shuffled", "groups", "iterable", "shuffle-split",
                                     "time-series", "partial-iterable"])
def test_splitters_against_brute_force(cv_name):
    params, kr_params, fmap = SETUPS["rbf"]
    X, y = _data(m=30)
    groups = np.repeat(np.arange(6), 5)
    cv = {
        "shuffled": KFold(4, shuffle=True, random_state=0),
        "groups": GroupKFold(3),
        "iterable": list(KFold(3, shuffle=True, random_state=1).split(X)),
        "shuffle-split": ShuffleSplit(4, test_size=0.25, random_state=0),
        # training sets that are not the complement of the test sets
        "time-series": TimeSeriesSplit(4),
        "partial-iterable": [(np.arange(0, 10), np.arange(20, 30)),
                             (np.arange(10, 25), np.array([0, 3, 5, 8])),
                             (np.arange(5, 30)[::2], np.arange(6, 30)[::2])],
    }[cv_name]
    if cv_name != "groups":
        groups = None
    splits = list(cv.split(X, y, groups)) if hasattr(cv, "split") else cv
    est = KernelRLSCV(alphas=ALPHAS, cv=cv, **params).fit(X, y, groups=groups)
    # the exact shortcut of the core (NfoldCV) whenever the training sets are the
    # complements of the test sets; else hold-out of every non-training row
    cvr = make_crossvalidator(cv, est.model_, sqerror, X, y, groups)
    complementary = cv_name not in ("time-series", "partial-iterable")
    assert isinstance(cvr, NfoldCV if complementary else TrainTestCV)
    brute = _brute_split_scores(X, y, ALPHAS, kr_params, fmap, splits)
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert est.alpha_ == ALPHAS[_best(brute)]


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_crossvalidator_kinds():
    X, y = _data()
    est = KernelRLSCV().fit(X, y)
    assert isinstance(make_crossvalidator("loo", est.model_, sqerror, X, y, None), LOOCV)
    assert isinstance(make_crossvalidator("lpo", est.model_, cindex, X, y, None), LPOCV)
    kf = make_crossvalidator(4, est.model_, sqerror, X, y, None)
    assert isinstance(kf, NfoldCV)
    for fold, (_, test) in zip(kf.folds, KFold(4).split(X)):
        assert np.array_equal(fold, test)


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_boolean_mask_splits():
    X, y = _data()
    mask = np.zeros(24, dtype=bool)
    mask[:8] = True
    a = KernelRLSCV(alphas=ALPHAS, cv=[(~mask, mask), (mask, ~mask)]).fit(X, y)
    idx = np.flatnonzero(mask)
    rest = np.flatnonzero(~mask)
    b = KernelRLSCV(alphas=ALPHAS, cv=[(rest, idx), (idx, rest)]).fit(X, y)
    assert_allclose(a.cv_results_["cv_performances"], b.cv_results_["cv_performances"])


# --------------------------------------------------------------------------------------
# leave-pair-out


def _brute_lpo(lpo_by_refit, X, y, alpha, kr_params, fmap):
    m = X.shape[0]
    return lpo_by_refit(y, lambda i, j: _brute_predictions(
        X, y, alpha, kr_params, fmap, np.setdiff1d(np.arange(m), [i, j]), [i, j]))


@pytest.mark.parametrize("setup", ["linear", "rbf"])
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_lpo_against_brute_force(setup, lpo_by_refit):
    params, kr_params, fmap = SETUPS[setup]
    X, y = _data(m=12)
    alphas = [1e-3, 0.3, 3.0, 1e3]
    est = KernelRLSCV(alphas=alphas, cv="lpo", **params).fit(X, y)
    brute = np.array([_brute_lpo(lpo_by_refit, X, y, a, kr_params, fmap)
                      for a in alphas])
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert_allclose(est.cv_results_["mean_test_score"], brute, rtol=RTOL)
    assert est.alpha_ == alphas[_best(brute, iserror=False)]
    assert est.best_score_ == pytest.approx(brute.max(), rel=RTOL)


def test_lpo_binary_labels_is_auc_estimate_and_accepts_auc(lpo_by_refit):
    params, kr_params, fmap = SETUPS["rbf"]
    X, y = _data(m=14)
    yb = np.where(y > np.median(y), 1.0, -1.0)
    alphas = [0.01, 1.0, 100.0]
    a = KernelRLSCV(alphas=alphas, cv="lpo", **params).fit(X, yb)
    b = KernelRLSCV(alphas=alphas, cv="lpo", scoring=auc, **params).fit(X, yb)
    brute = np.array([_brute_lpo(lpo_by_refit, X, yb, al, kr_params, fmap)
                      for al in alphas])
    assert_allclose(a.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert_allclose(b.cv_results_["cv_performances"], brute, rtol=RTOL)


def test_lpo_rejects_other_measures_and_constant_labels():
    X, y = _data()
    with pytest.raises(ValueError, match="lpo"):
        KernelRLSCV(cv="lpo", scoring="sqerror").fit(X, y)
    with pytest.raises(ValueError, match="undefined"):
        KernelRLSCV(cv="lpo").fit(X, np.ones_like(y))


# --------------------------------------------------------------------------------------
# parameters, layout, integration


@pytest.mark.parametrize("params, error", [
    ({"alphas": []}, ValueError),
    ({"alphas": [1.0, -1.0]}, ValueError),
    ({"alphas": [1.0, np.nan]}, ValueError),
    ({"alphas": [[1.0, 2.0]]}, ValueError),
    ({"alphas": "1.0"}, TypeError),
    ({"alphas": [1.0, "a"]}, TypeError),
    ({"cv": "lqo"}, ValueError),
    ({"cv": 1}, ValueError),
    ({"cv": 0.5}, ValueError),
    ({"cv": True}, ValueError),
    ({"cv": 100}, ValueError),
    ({"cv": [(np.arange(12), np.arange(12))]}, ValueError),     # overlapping
    ({"cv": [(np.arange(24), np.array([], dtype=int))]}, ValueError),
    ({"scoring": "r2"}, ValueError),
    ({"scoring": "query_cindex"}, ValueError),
    ({"scoring": lambda y, p: 0.0}, TypeError),                  # no iserror
    ({"scoring": 3}, TypeError),
    ({"kernel": "laplacian"}, ValueError),
    ({"kernel": "rbf", "gamma": -1}, ValueError),
])
def test_invalid_parameters_raise_at_fit(params, error):
    X, y = _data()
    est = KernelRLSCV(**params)
    with pytest.raises(error):
        est.fit(X, y)


def test_scalar_alphas_and_numpy_alphas():
    X, y = _data()
    assert KernelRLSCV(alphas=0.5).fit(X, y).alpha_ == 0.5
    est = KernelRLSCV(alphas=np.array([0.5, 2.0])).fit(X, y)
    assert est.alpha_ in (0.5, 2.0)
    assert isinstance(est.alpha_, float)


def test_needs_two_samples():
    with pytest.raises(ValueError, match="1 sample"):
        KernelRLSCV().fit(np.ones((1, 3)), [1.0])


def test_repeated_alphas_are_refused():
    """A value given twice would tie with itself as the best (issue 35 item 8): refused
    by the grid checker every face shares (the CLI's --regparams, the learners'
    regparams)."""
    X, y = _data()
    with pytest.raises(ValueError, match="alphas gives the value 2 twice"):
        KernelRLSCV(alphas=[2.0, 2.0, 1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match="twice"):
        KernelRLSCV(alphas=[1, 1.0]).fit(X, y)


def test_precomputed_kernel_cv_equals_rbf():
    X, y = _data()
    a = KernelRLSCV(alphas=ALPHAS, kernel="rbf", gamma=0.3, cv=4).fit(X, y)
    b = KernelRLSCV(alphas=ALPHAS, kernel="precomputed", cv=4).fit(
        rbf_kernel(X, gamma=0.3), y)
    assert a.alpha_ == b.alpha_
    assert_allclose(a.cv_results_["cv_performances"], b.cv_results_["cv_performances"],
                    rtol=RTOL)


def test_model_gives_core_shortcuts_at_alpha():
    X, y = _data()
    est = KernelRLSCV(alphas=ALPHAS, kernel="rbf", gamma=0.3).fit(X, y)
    assert est.model_.regparam == est.alpha_
    loo = est.model_.leave_one_out()[:, 0]
    assert sqerror(y, loo) == pytest.approx(-est.best_score_, rel=1e-12)


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_pipeline_and_grid_search():
    X, y = _data(m=40)
    pipe = make_pipeline(StandardScaler(), KernelRLSCV(kernel="rbf", cv=5))
    pipe.fit(X, y)
    assert pipe.predict(X).shape == y.shape
    search = GridSearchCV(KernelRLSCV(kernel="rbf"), {"gamma": [0.1, 1.0]}, cv=3)
    search.fit(X, y)
    assert search.best_estimator_.alpha_ in DEFAULT_REGPARAMS
