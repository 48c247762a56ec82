"""RankRLS and RankRLSCV: scikit-learn's estimator checks, equality with the core
models, the RLScore learners and the explicit pairwise least-squares problem, every
cross-validation estimate against brute force (retraining RankRLS without each held-out
pair / query / fold), pipelines, GridSearchCV with groups, and bad input."""

import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
import sklearn  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV, GroupKFold, GroupShuffleSplit, KFold, cross_val_score)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel  # noqa: F401
from rlscore.core.selection import DEFAULT_REGPARAMS, NfoldCV  # noqa: F401
from rlscore.core.structure import QueryGroups  # noqa: E402
from rlscore.estimators._rankrls import RankRLS, RankRLSCV  # noqa: E402
from rlscore.learner import GlobalRankRLS, QueryRankRLS  # noqa: E402
from rlscore.measure import (  # noqa: E402
    cindex, query_average, query_cindex, spearman)

RTOL = 1e-7
ALPHAS = [1e-6, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e6]
LPO_ALPHAS = [1e-6, 0.1, 10.0, 1e3, 1e6]
KERNELS = {
    "linear": ({"kernel": "linear"}, {"kernel": "LinearKernel"}),
    "rbf": ({"kernel": "rbf", "gamma": 0.2},
            {"kernel": "GaussianKernel", "gamma": 0.2}),
    "poly": ({"kernel": "poly", "gamma": 0.3, "degree": 2, "coef0": 1.0},
             {"kernel": "PolynomialKernel", "gamma": 0.3, "degree": 2, "coef0": 1.0}),
}


def _data(m=24, d=4, p=1, n_queries=None, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    Y = np.sin(X @ rng.normal(size=(d, p))) + 0.3 * rng.normal(size=(m, p))
    y = Y[:, 0] if p == 1 else Y
    if n_queries is None:
        return X, y
    qid = rng.permutation(np.arange(m) % n_queries)      # not contiguous
    return X, y, qid


# --------------------------------------------------------------------------------------
# scikit-learn's checks


CHECKED = [
    RankRLS(),
    RankRLS(kernel="rbf"),
    RankRLS(kernel="poly"),
    RankRLS(kernel="precomputed"),
    RankRLSCV(alphas=[0.01, 1.0, 100.0]),
    RankRLSCV(alphas=[0.01, 1.0, 100.0], cv=3),
]

# The only exemptions (reported in the estimators' notes):
EXEMPTIONS = {
    # X *is* the kernel matrix: RankRLS needs the centred kernel + alpha I positive
    # definite and refuses an indefinite one with a ValueError, like KernelRLS.
    "precomputed": {
        "check_estimators_dtypes":
            "it truncates a Gram matrix to integers, which makes it indefinite: not a "
            "kernel matrix",
    },
    # The check's features have mean 100 (unscaled): the cubic kernel has entries
    # ~1e12, and centring it (a ranking is shift invariant) leaves rounding errors of
    # order 1e-2 in its ~90 null directions, more than the regularization alpha/m =
    # 0.01 of global RankRLS; the centred system is numerically indefinite and the
    # core refuses it with a ValueError (as rlscore.learner.GlobalRankRLS does).
    # alpha >= 10 or centred features pass.
    "poly": {
        "check_fit_check_is_fitted":
            "features of mean 100 make the centred cubic kernel numerically indefinite "
            "at alpha/m = 0.01 (rounding ~1e-2); RankRLS raises ValueError",
    },
    # iris targets are sorted by class, so each unshuffled 3-fold test fold holds one
    # class: no fold has a pair with different labels, the c-index estimate is
    # undefined on every fold and RankRLSCV says so with a ValueError.
    "kfold": {
        "check_positive_only_tag_during_fit":
            "iris is sorted by class: every unshuffled K-fold test fold holds one "
            "class, so the cross-validated c-index is undefined (ValueError)",
    },
}


# scikit-learn 1.9 fits check_n_features_in on the same mean-100 features
if tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 9):
    EXEMPTIONS["poly"]["check_n_features_in"] = EXEMPTIONS["poly"][
        "check_fit_check_is_fitted"]


def _expected_failed_checks(estimator):
    if estimator.kernel in ("precomputed", "poly"):
        return EXEMPTIONS[estimator.kernel]
    if isinstance(estimator, RankRLSCV) and estimator.cv == 3:
        return EXEMPTIONS["kfold"]
    return {}


@parametrize_with_checks(CHECKED, expected_failed_checks=_expected_failed_checks,
                         xfail_strict=True)
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------
# RankRLS against the core models, the learners and brute force


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("p", [1, 2])
def test_global_equals_core_and_learner(kernel, p):
    est_params, learner_params = KERNELS[kernel]
    X, y = _data(p=p)
    Xt = _data(m=7, p=p, seed=1)[0]
    for alpha in (1e-6, 1.0, 1e6):
        est = RankRLS(alpha=alpha, **est_params).fit(X, y)
        learner = GlobalRankRLS(X, y, regparam=alpha, **learner_params)
        ref = learner.predict(Xt)
        assert est.predict(Xt).shape == ref.shape == ((7,) if p == 1 else (7, p))
        assert_allclose(est.predict(Xt), ref, rtol=RTOL, atol=1e-10 * np.abs(ref).max())
        kp = {k: v for k, v in learner_params.items() if k != "kernel"}
        core = GlobalRankRLSModel(X, y, alpha, learner_params["kernel"],
                                  **({"bias": 0.0} if kernel == "linear" else kp))
        P_core = np.reshape(core.predictor.predict(Xt), ref.shape)
        assert_allclose(est.predict(Xt), P_core, rtol=RTOL,
                        atol=1e-10 * np.abs(ref).max())
        assert isinstance(est.model_, GlobalRankRLSModel)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("p", [1, 2])
def test_query_equals_core_and_learner(kernel, p):
    est_params, learner_params = KERNELS[kernel]
    X, y, qid = _data(m=30, p=p, n_queries=5)
    Xt = _data(m=7, p=p, seed=1)[0]
    for alpha in (1e-6, 1.0, 1e6):
        est = RankRLS(alpha=alpha, **est_params).fit(X, y, qid=qid)
        ref = QueryRankRLS(X, y, qid, regparam=alpha, **learner_params).predict(Xt)
        assert_allclose(est.predict(Xt), ref, rtol=RTOL, atol=1e-10 * np.abs(ref).max())
        assert isinstance(est.model_, QueryRankRLSModel)
        # groups is an alias of qid
        alias = RankRLS(alpha=alpha, **est_params).fit(X, y, groups=qid)
        assert_allclose(alias.predict(Xt), est.predict(Xt), rtol=1e-12)


def _pairwise_brute(X, y, alpha, qid=None):
    """Solve the explicit pairwise least-squares problem (linear, no bias):
    sum over pairs c_ij ((y_i - y_j) - (x_i - x_j) w)^2 + alpha ||w||^2 with c = 1
    (global) or 1 / n_q (pairs within query q)."""
    rows, targets, weights = [], [], []
    m = X.shape[0]
    for i in range(m):
        for j in range(i + 1, m):
            if qid is None or qid[i] == qid[j]:
                rows.append(X[i] - X[j])
                targets.append(y[i] - y[j])
                weights.append(1.0 if qid is None else 1.0 / np.sum(qid == qid[i]))
    D, t, c = np.array(rows), np.array(targets), np.array(weights)
    return np.linalg.solve(D.T @ (c[:, None] * D) + alpha * np.eye(X.shape[1]),
                           D.T @ (c * t))


@pytest.mark.parametrize("queries", [False, True])
def test_linear_equals_explicit_pairwise_problem(queries):
    X, y, qid = _data(m=20, n_queries=4)
    q = qid if queries else None
    for alpha in (1e-6, 1e-2, 1.0, 1e2, 1e6):
        est = RankRLS(alpha=alpha).fit(X, y, qid=q)
        w = _pairwise_brute(X, y, alpha, q)
        assert_allclose(est.coef_, w, rtol=1e-7, atol=1e-12 * np.abs(w).max())
        assert est.intercept_ == 0.0
        assert_allclose(est.predict(X), X @ w, rtol=1e-7, atol=1e-10)


def test_one_query_is_global_at_scaled_alpha():
    X, y = _data()
    a = RankRLS(alpha=0.7).fit(X, y, qid=np.zeros(24))
    b = RankRLS(alpha=0.7 * 24).fit(X, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-9)


def test_sparse_precomputed_and_basis_vectors():
    X, y, qid = _data(m=30, n_queries=5)
    Xt = _data(m=6, seed=3)[0]
    dense = RankRLS(alpha=0.3).fit(X, y, qid=qid)
    sparse = RankRLS(alpha=0.3).fit(sp.csr_matrix(X), y, qid=qid)
    assert_allclose(sparse.predict(sp.csr_matrix(Xt)), dense.predict(Xt), rtol=1e-9)
    rbf = RankRLS(alpha=0.3, kernel="rbf", gamma=0.2).fit(X, y, qid=qid)
    pre = RankRLS(alpha=0.3, kernel="precomputed").fit(rbf_kernel(X, gamma=0.2), y,
                                                      qid=qid)
    assert_allclose(pre.predict(rbf_kernel(Xt, X, gamma=0.2)), rbf.predict(Xt),
                    rtol=1e-8)
    B = X[::3]
    red = RankRLS(alpha=0.3, kernel="rbf", gamma=0.2, basis_vectors=B)
    red.fit(X, y, qid=qid)
    ref = QueryRankRLS(X, y, qid, regparam=0.3, kernel="GaussianKernel", gamma=0.2,
                       basis_vectors=B)
    assert_allclose(red.predict(Xt), ref.predict(Xt), rtol=1e-8)
    assert red.dual_coef_.shape == (10,)


def test_score_is_the_cindex():
    X, y, qid = _data(m=30, n_queries=5)
    est = RankRLS(alpha=1.0).fit(X, y)
    P = est.predict(X)
    assert est.score(X, y) == pytest.approx(cindex(y, P))
    assert est.score(X, y, qid=qid) == pytest.approx(query_cindex(y, P, qid))
    assert est.score(X, y, groups=qid) == est.score(X, y, qid=qid)
    assert est.score(X, y, qid=qid) != est.score(X, y)
    # several targets: averaged
    X2, Y2 = _data(p=3)
    est2 = RankRLS().fit(X2, Y2)
    assert est2.score(X2, Y2) == pytest.approx(cindex(Y2, est2.predict(X2)))


def test_pickle_keeps_predictions():
    X, y, qid = _data(m=30, n_queries=5)
    est = RankRLS(alpha=0.5, kernel="rbf").fit(X, y, qid=qid)
    est2 = pickle.loads(pickle.dumps(est))
    assert est2.model_ is None
    assert_allclose(est2.predict(X), est.predict(X), rtol=1e-12)


# --------------------------------------------------------------------------------------
# RankRLSCV against brute force (retraining RankRLS without the held-out rows)


def _brute_lpo(lpo_by_refit, X, y, alpha, est_params, qid=None):
    """Pooled LPO ranking accuracy: every pair (within a query) with different labels
    held out, RankRLS retrained on the rest (its query ids kept)."""
    def refit_pair(i, j):
        keep = np.setdiff1d(np.arange(X.shape[0]), [i, j])
        est = RankRLS(alpha=alpha, **est_params).fit(
            X[keep], y[keep], qid=None if qid is None else qid[keep])
        return est.predict(X[[i, j]])
    return lpo_by_refit(y, refit_pair, qid)


def _brute_splits(X, y, alpha, est_params, splits, qid=None, measure=cindex):
    perfs = []
    for train, test in splits:
        est = RankRLS(alpha=alpha, **est_params).fit(
            X[train], y[train], qid=None if qid is None else qid[train])
        P = est.predict(X[test])
        perfs.append(measure(y[test], P) if qid is None else
                     (query_cindex(y[test], P, qid[test]) if measure is cindex else
                      query_average(measure, y[test], P, qid[test])))
    return float(np.mean(perfs))


def _check_selection(est, brute):
    brute = np.asarray(brute)
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    assert_allclose(est.cv_results_["mean_test_score"], brute, rtol=RTOL)
    b = int(np.argmax(brute))
    assert est.alpha_ == est.cv_results_["alphas"][b]
    assert est.best_index_ == b
    assert est.best_score_ == pytest.approx(brute[b], rel=RTOL)
    assert est.cv_results_["rank_test_score"][b] == 1


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_lpo_global_against_brute_force(kernel, lpo_by_refit):
    est_params = KERNELS[kernel][0]
    X, y = _data(m=10)
    est = RankRLSCV(alphas=LPO_ALPHAS, cv="lpo", **est_params).fit(X, y)
    brute = [_brute_lpo(lpo_by_refit, X, y, a, est_params) for a in LPO_ALPHAS]
    _check_selection(est, brute)
    ref = RankRLS(alpha=est.alpha_, **est_params).fit(X, y)
    assert_allclose(est.predict(X), ref.predict(X), rtol=RTOL, atol=1e-12)


def test_lpo_bipartite_labels_is_the_auc_estimate(lpo_by_refit):
    X, y = _data(m=10)
    y = np.where(y > np.median(y), 1.0, -1.0)
    a = RankRLSCV(alphas=LPO_ALPHAS, cv="lpo", scoring="auc").fit(X, y)
    b = RankRLSCV(alphas=LPO_ALPHAS, cv="lpo").fit(X, y)
    brute = [_brute_lpo(lpo_by_refit, X, y, al, {}) for al in LPO_ALPHAS]
    _check_selection(a, brute)
    assert_allclose(a.cv_results_["cv_performances"], b.cv_results_["cv_performances"])


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_lpo_within_queries_against_brute_force(kernel, lpo_by_refit):
    est_params = KERNELS[kernel][0]
    X, y, qid = _data(m=15, n_queries=3)
    est = RankRLSCV(alphas=LPO_ALPHAS, cv="lpo", **est_params).fit(X, y, qid=qid)
    brute = [_brute_lpo(lpo_by_refit, X, y, a, est_params, qid) for a in LPO_ALPHAS]
    _check_selection(est, brute)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_lqo_against_brute_force(kernel):
    est_params = KERNELS[kernel][0]
    X, y, qid = _data(m=30, n_queries=6)
    est = RankRLSCV(alphas=ALPHAS, cv="lqo", **est_params).fit(X, y, qid=qid)
    m = X.shape[0]
    brute = []
    for a in ALPHAS:
        P = np.empty(m)
        for q in np.unique(qid):
            test = np.flatnonzero(qid == q)
            train = np.flatnonzero(qid != q)
            P[test] = RankRLS(alpha=a, **est_params).fit(
                X[train], y[train], qid=qid[train]).predict(X[test])
        brute.append(query_cindex(y, P, qid))
    _check_selection(est, brute)


def test_lqo_with_another_measure():
    X, y, qid = _data(m=30, n_queries=6)
    est = RankRLSCV(alphas=ALPHAS, cv="lqo", scoring=spearman).fit(X, y, groups=qid)
    splits = [(np.flatnonzero(qid != q), np.flatnonzero(qid == q)) for q in range(6)]
    brute = []
    for a in ALPHAS:
        P = np.empty(30)
        for train, test in splits:
            P[test] = RankRLS(alpha=a).fit(X[train], y[train], qid=qid[train]).predict(
                X[test])
        brute.append(query_average(spearman, y, P, qid))
    _check_selection(est, brute)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_kfold_global_against_brute_force(kernel):
    est_params = KERNELS[kernel][0]
    X, y = _data(m=23)
    est = RankRLSCV(alphas=ALPHAS, cv=4, **est_params).fit(X, y)
    splits = list(KFold(4).split(X))
    brute = [_brute_splits(X, y, a, est_params, splits) for a in ALPHAS]
    _check_selection(est, brute)


def test_kfold_global_uses_the_holdout_shortcut():
    from rlscore.estimators._cv import make_crossvalidator
    X, y = _data()
    est = RankRLSCV(alphas=[1.0], cv=3).fit(X, y)
    assert isinstance(make_crossvalidator(3, est.model_, cindex, X, y, None), NfoldCV)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_kfold_queries_against_brute_force(kernel):
    est_params = KERNELS[kernel][0]
    X, y, qid = _data(m=36, n_queries=6)
    est = RankRLSCV(alphas=ALPHAS, cv=3, **est_params).fit(X, y, qid=qid)
    # the library's folds of whole queries (QueryGroups.folds, seed 0)
    splits = [(np.setdiff1d(np.arange(len(y)), f), f)
              for f in QueryGroups.from_qids(qid).folds(3, seed=0)]
    for train, test in splits:       # no query is split
        assert not set(qid[train]) & set(qid[test])
    brute = [_brute_splits(X, y, a, est_params, splits, qid) for a in ALPHAS]
    _check_selection(est, brute)


def test_splitter_with_queries_against_brute_force():
    X, y, qid = _data(m=36, n_queries=6)
    cv = GroupShuffleSplit(3, test_size=2, random_state=0)
    est = RankRLSCV(alphas=ALPHAS, cv=cv).fit(X, y, qid=qid)
    splits = list(cv.split(X, y, qid))
    brute = [_brute_splits(X, y, a, {}, splits, qid) for a in ALPHAS]
    _check_selection(est, brute)
    # precomputed kernel: the rows and columns of each split
    K = rbf_kernel(X, gamma=0.2)
    a = RankRLSCV(alphas=ALPHAS, cv=cv, kernel="precomputed").fit(K, y, qid=qid)
    b = RankRLSCV(alphas=ALPHAS, cv=cv, kernel="rbf", gamma=0.2).fit(X, y, qid=qid)
    assert_allclose(a.cv_results_["cv_performances"], b.cv_results_["cv_performances"],
                    rtol=1e-8)


def test_multi_output_lpo_and_lqo(lpo_by_refit):
    X, Y, qid = _data(m=10, p=2, n_queries=2)
    est = RankRLSCV(alphas=[1e-3, 10.0], cv="lpo").fit(X, Y)
    brute = [np.mean([_brute_lpo(lpo_by_refit, X, Y[:, c], a, {})
                      for c in range(2)])
             for a in [1e-3, 10.0]]
    # LPO retraining on one output at a time is the same as on both (separate tasks)
    _check_selection(est, brute)
    est = RankRLSCV(alphas=[1e-3, 10.0], cv="lqo").fit(X, Y, qid=qid)
    assert est.predict(X).shape == (10, 2)


def test_default_grid_and_scores():
    X, y, qid = _data(m=20, n_queries=4)
    est = RankRLSCV(cv="lqo").fit(X, y, qid=qid)
    assert_allclose(est.cv_results_["alphas"], DEFAULT_REGPARAMS)
    assert est.cv_results_["cv_performances"].shape == (31,)
    assert 0.0 <= est.best_score_ <= 1.0
    ref = RankRLS(alpha=est.alpha_).fit(X, y, qid=qid)
    assert_allclose(est.coef_, ref.coef_, rtol=1e-8)


# --------------------------------------------------------------------------------------
# pipelines and model selection with groups


def test_pipeline_with_qid():
    X, y, qid = _data(m=30, n_queries=5)
    pipe = make_pipeline(StandardScaler(), RankRLS(alpha=0.1))
    pipe.fit(X, y, rankrls__qid=qid)
    ref = RankRLS(alpha=0.1).fit(StandardScaler().fit_transform(X), y, qid=qid)
    assert_allclose(pipe.predict(X), ref.predict(StandardScaler().fit_transform(X)),
                    rtol=1e-10)
    cvpipe = make_pipeline(StandardScaler(), RankRLSCV(alphas=ALPHAS, cv="lqo"))
    cvpipe.fit(X, y, rankrlscv__groups=qid)
    assert cvpipe[-1].alpha_ in ALPHAS
    assert cvpipe.score(X, y) == pytest.approx(cindex(y, cvpipe.predict(X)))


def test_grid_search_with_groups_to_the_splitter():
    # without metadata routing, groups go to the splitter only: each fit is global
    X, y, qid = _data(m=30, n_queries=6)
    grid = {"alpha": [0.01, 1.0, 100.0]}
    gs = GridSearchCV(RankRLS(), grid, cv=GroupKFold(3)).fit(X, y, groups=qid)
    splits = list(GroupKFold(3).split(X, y, qid))
    for k, a in enumerate(grid["alpha"]):
        manual = np.mean([RankRLS(alpha=a).fit(X[tr], y[tr]).score(X[te], y[te])
                          for tr, te in splits])
        assert gs.cv_results_["mean_test_score"][k] == pytest.approx(manual)


def test_grid_search_with_routed_query_ids():
    X, y, qid = _data(m=30, n_queries=6)
    grid = {"alpha": [0.01, 1.0, 100.0]}
    splits = list(GroupKFold(3).split(X, y, qid))
    with sklearn.config_context(enable_metadata_routing=True):
        est = RankRLS().set_fit_request(groups=True).set_score_request(groups=True)
        gs = GridSearchCV(est, grid, cv=GroupKFold(3)).fit(X, y, groups=qid)
        scores = cross_val_score(est, X, y, cv=GroupKFold(3), params={"groups": qid})
    for k, a in enumerate(grid["alpha"]):
        manual = np.mean([
            RankRLS(alpha=a).fit(X[tr], y[tr], qid=qid[tr]).score(X[te], y[te],
                                                                   qid=qid[te])
            for tr, te in splits])
        assert gs.cv_results_["mean_test_score"][k] == pytest.approx(manual)
    assert gs.best_estimator_.model_.qids.size == 30          # fitted with queries
    assert_allclose(scores, [RankRLS().fit(X[tr], y[tr], qid=qid[tr]).score(
        X[te], y[te], qid=qid[te]) for tr, te in splits])


# --------------------------------------------------------------------------------------
# bad input


def test_bad_query_ids():
    X, y, qid = _data(m=20, n_queries=4)
    with pytest.raises(ValueError, match="qid has length 19"):
        RankRLS().fit(X, y, qid=qid[:-1])
    with pytest.raises(ValueError, match="groups has length 21"):
        RankRLSCV(cv="lqo").fit(X, y, groups=np.append(qid, 0))
    with pytest.raises(ValueError, match="qid has length"):
        RankRLS().fit(X, y).score(X, y, qid=qid[:5])
    with pytest.raises(ValueError, match="not both"):
        RankRLS().fit(X, y, qid=qid, groups=qid)
    with pytest.raises(ValueError, match="non-integral"):
        RankRLS().fit(X, y, qid=qid + 0.5)
    with pytest.raises(ValueError, match="NaN"):
        RankRLS().fit(X, y, qid=np.where(qid == 0, np.nan, qid))
    with pytest.raises(ValueError, match="single sample"):
        RankRLS().fit(X, y, qid=np.arange(20))
    # string ids are fine
    RankRLS().fit(X, y, qid=np.array(["a", "b"])[qid % 2])


def test_lqo_needs_queries():
    X, y, qid = _data(m=20, n_queries=4)
    with pytest.raises(ValueError, match="needs query ids"):
        RankRLSCV(cv="lqo").fit(X, y)
    with pytest.raises(ValueError, match="at least 2 queries"):
        RankRLSCV(cv="lqo").fit(X, y, qid=np.zeros(20))


@pytest.mark.parametrize("make", [
    lambda: RankRLS(), lambda: RankRLSCV(cv="lpo"), lambda: RankRLSCV(cv=3),
])
@pytest.mark.parametrize("queries", [False, True])
def test_all_labels_tied(make, queries):
    X, y, qid = _data(m=20, n_queries=4)
    with pytest.raises(ValueError, match="tied"):
        make().fit(X, np.full(20, 2.0), qid=qid if queries else None)
    # tied within every query but not globally: no within-query pair either
    if queries:
        with pytest.raises(ValueError, match="tied"):
            make().fit(X, qid.astype(float), qid=qid)


def test_lpo_with_one_tied_output():
    X, Y = _data(p=2)
    Y[:, 1] = 1.0
    with pytest.raises(ValueError, match="undefined.*output 1"):
        RankRLSCV(cv="lpo").fit(X, Y)


@pytest.mark.parametrize("params, exc, match", [
    ({"cv": "loo"}, ValueError, "cv must be"),
    ({"cv": "bogus"}, ValueError, "cv must be"),
    ({"cv": 2.5}, ValueError, "cv must be"),
    ({"cv": True}, ValueError, "cv must be"),
    ({"cv": "lpo", "scoring": "sqerror"}, ValueError, "scoring"),
    ({"scoring": "nope"}, ValueError, "not an rlscore measure"),
    ({"scoring": lambda Y, P: 0.0}, TypeError, "iserror"),
    ({"alphas": []}, ValueError, "non-empty"),
    ({"alphas": [1.0, -1.0]}, ValueError, "alphas"),
    ({"alphas": "1"}, TypeError, "alphas"),
    ({"kernel": "sigmoid"}, ValueError, "kernel must be"),
    ({"gamma": -1.0, "kernel": "rbf"}, ValueError, "gamma"),
])
def test_bad_cv_parameters(params, exc, match):
    X, y = _data()
    with pytest.raises(exc, match=match):
        RankRLSCV(**params).fit(X, y)


def test_bad_rankrls_parameters_and_data():
    X, y = _data()
    with pytest.raises(ValueError, match="alpha"):
        RankRLS(alpha=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        RankRLS(alpha="1").fit(X, y)
    with pytest.raises(ValueError, match="1 sample"):
        RankRLS().fit(X[:1], y[:1])
    with pytest.raises(ValueError, match="3 samples"):
        RankRLSCV(cv="lpo").fit(X[:2], y[:2])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        RankRLS().fit(Xn, y)
    with pytest.raises(ValueError):
        RankRLS().fit(X, y[:-1])
