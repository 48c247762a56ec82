"""The scikit-learn face of query-structured ranking: ``qid`` and ``groups`` mean the
same in every estimator, ``score`` is per query, and GridSearchCV with whole queries
held out selects what the learners' exact leave-query-out selects."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn  # noqa: E402
from sklearn.model_selection import (GridSearchCV, GroupKFold,  # noqa: E402
                                     LeaveOneGroupOut)

from rlscore.core.selection import EdgeOfGridWarning  # noqa: F401
from rlscore.core.selection import defined_queries  # noqa: E402
from rlscore.estimators import (CGRankRLSRanker, KernelRLSCV, QuerySplitter,  # noqa: E402
                                RankRLS, RankRLSCV, RankSVM)
from rlscore.learner import LeaveQueryOutRankRLS  # noqa: E402
from rlscore.measure import UndefinedPerformance, cindex, measure_by_name  # noqa: E402


def _mean_query_cindex_by_hand(cindex_by_hand, y, p, q):
    vals = [cindex_by_hand(y[q == g], p[q == g]) for g in dict.fromkeys(q)]
    return np.mean([v for v in vals if v is not None])


def _data(seed=0, m=48, nq=8, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.round(X @ rng.normal(size=d) + 0.8 * rng.normal(size=m), 1)
    q = np.repeat(np.arange(nq), m // nq)
    return X, y, q


@pytest.mark.parametrize("make", [lambda: RankRLS(alpha=0.1), lambda: RankSVM(alpha=0.1),
                                  lambda: CGRankRLSRanker(alpha=0.1)])
def test_score_is_the_mean_per_query_cindex(make, cindex_by_hand):
    X, y, q = _data()
    y[q == 3] = 1.0                              # a query without pairs: skipped
    est = make().fit(X, y, qid=q)
    p = est.predict(X)
    expected = _mean_query_cindex_by_hand(cindex_by_hand, y, p, q)
    assert est.score(X, y, qid=q) == pytest.approx(expected, rel=1e-12)
    assert est.score(X, y, groups=q) == pytest.approx(expected, rel=1e-12)
    assert est.score(X, y) == pytest.approx(cindex_by_hand(y, p), rel=1e-12)
    with pytest.raises(ValueError, match="not both"):
        est.score(X, y, qid=q, groups=q)
    with pytest.raises(UndefinedPerformance):
        est.score(X, np.ones_like(y), qid=q)


@pytest.mark.parametrize("make", [lambda: RankRLS(alpha=0.1), lambda: RankSVM(alpha=0.1),
                                  lambda: CGRankRLSRanker(alpha=0.1)])
def test_qid_and_groups_fit_the_same_model(make):
    X, y, q = _data()
    a = make().fit(X, y, qid=q).predict(X)
    b = make().fit(X, y, groups=q).predict(X)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    assert not np.allclose(a, make().fit(X, y).predict(X))   # the queries matter
    with pytest.raises(ValueError, match="groups has length 47"):
        make().fit(X, y, groups=q[:-1])
    with pytest.raises(ValueError, match="not both"):
        make().fit(X, y, qid=q, groups=q)


def test_kernel_rls_cv_takes_qid_as_the_splitter_groups():
    X, y, q = _data()
    alphas = [0.1, 1.0, 10.0]
    a = KernelRLSCV(alphas=alphas, cv=LeaveOneGroupOut()).fit(X, y, groups=q)
    b = KernelRLSCV(alphas=alphas, cv=LeaveOneGroupOut()).fit(X, y, qid=q)
    np.testing.assert_allclose(a.cv_results_["cv_performances"],
                               b.cv_results_["cv_performances"], rtol=1e-12)


def test_gridsearchcv_leave_one_group_out_picks_the_leave_query_out_alpha():
    # GridSearchCV refits on every split (the brute force); LeaveQueryOutRankRLS uses
    # the exact leave-query-out shortcut. With the query ids routed to fit and score,
    # each split's score is the held-out query's c-index, so the mean test score is
    # the learner's cv_performance and both select the same alpha.
    X, y, q = _data(seed=3)
    grid = [2.0 ** k for k in range(-6, 7, 2)]
    with _no_edge():
        sel = LeaveQueryOutRankRLS(X, y, q, regparams=grid)
    with sklearn.config_context(enable_metadata_routing=True):
        # one array, three uses: the splitter's groups, the fit's and the score's
        est = RankRLS().set_fit_request(groups=True).set_score_request(groups=True)
        gs = GridSearchCV(est, {"alpha": grid}, cv=LeaveOneGroupOut())
        gs.fit(X, y, groups=q)
        # or by the name qid (the splitter still takes groups)
        est2 = RankRLS().set_fit_request(qid=True, groups=False) \
            .set_score_request(qid=True, groups=False)
        gs2 = GridSearchCV(est2, {"alpha": grid}, cv=LeaveOneGroupOut())
        gs2.fit(X, y, groups=q, qid=q)
    for g in (gs, gs2):
        np.testing.assert_allclose(g.cv_results_["mean_test_score"], sel.cv_performances,
                                   rtol=1e-8)
        assert g.best_params_["alpha"] == sel.regparam
        assert g.best_estimator_.model_.qids.size == len(y)      # refitted with queries
    assert grid[0] < sel.regparam < grid[-1]


def _tied_data():
    """Queries of 6 items, three of them with all labels tied (no pair, no c-index) and
    one of a single item; the best alpha of leave-query-out lies inside the grid."""
    X, y, q = _data(seed=3, m=60, nq=10)
    for g, value in ((1, 0.0), (4, 2.5), (8, -1.0)):
        y[q == g] = value
    q[0] = 99
    return X, y, q


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_gridsearchcv_skips_the_queries_without_a_score_as_the_learners_do(
        cindex_by_hand):
    X, y, q = _tied_data()
    grid = [2.0 ** k for k in range(-6, 7, 2)]
    # brute force: retrain without each query, score the held-out query by the pair
    # definition of the c-index; a query without a pair has none and is left out
    brute = []
    for alpha in grid:
        values = []
        for g in dict.fromkeys(q.tolist()):
            test = q == g
            p = RankRLS(alpha=alpha).fit(X[~test], y[~test], qid=q[~test]).predict(X[test])
            value = cindex_by_hand(y[test], p)
            if value is not None:
                values.append(value)
        brute.append(np.mean(values))
    best = grid[int(np.argmax(brute))]
    assert grid[0] < best < grid[-1]
    with _no_edge():
        sel = LeaveQueryOutRankRLS(X, y, q, regparams=grid)
    faces = [RankRLSCV(alphas=grid, cv=cv).fit(X, y, qid=q)
             for cv in ("lqo", LeaveOneGroupOut(), QuerySplitter(LeaveOneGroupOut()))]
    with sklearn.config_context(enable_metadata_routing=True):
        est = RankRLS().set_fit_request(groups=True).set_score_request(groups=True)
        search = GridSearchCV(est, {"alpha": grid}, cv=QuerySplitter(LeaveOneGroupOut()))
        search.fit(X, y, groups=q)
        # the plain splitter: the split of a query without a pair has no score; the
        # error says why and what to do, and scikit-learn's warning carries it
        with pytest.raises(UndefinedPerformance, match="QuerySplitter"):
            GridSearchCV(est, {"alpha": grid}, cv=LeaveOneGroupOut(),
                         error_score="raise").fit(X, y, groups=q)
        with pytest.warns(UserWarning, match="QuerySplitter"):
            plain = GridSearchCV(est, {"alpha": grid}, cv=LeaveOneGroupOut())
            plain.fit(X, y, groups=q)
    np.testing.assert_allclose(sel.cv_performances, brute, rtol=1e-8)
    for face in faces:
        np.testing.assert_allclose(face.cv_results_["cv_performances"], brute, rtol=1e-8)
        assert face.alpha_ == best
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], brute, rtol=1e-8)
    assert search.best_params_["alpha"] == sel.regparam == best
    assert search.n_splits_ == 7                     # the 11 queries but 4 without a pair
    assert np.isnan(plain.cv_results_["mean_test_score"]).all()


def test_query_splitter_splits():
    X, y, q = _tied_data()
    groups = q.tolist()
    scored = {g for g in set(groups) if len(set(y[q == g])) > 1}
    for cv in (LeaveOneGroupOut(), GroupKFold(3), 4):
        splitter = QuerySplitter(cv)
        splits = list(splitter.split(X, y, q))
        assert splitter.get_n_splits(X, y, q) == len(splits)
        inner = None if isinstance(cv, int) else cv
        tests = []
        for train, test in splits:
            assert set(q[test]) <= scored and not set(q[train]) & set(q[test])
            tests.append(set(q[test]))
            # the training set is the complement of the whole original test fold
            held = set(q[np.setdiff1d(np.arange(q.size), train)])
            assert set(q[test]) <= held
            assert held - set(q[test]) <= set(groups) - scored
        assert set().union(*tests) == scored
        if inner is not None:
            expected = [set(q[te]) & scored for _, te in inner.split(X, y, q)]
            assert tests == [t for t in expected if t]
    # an int: the library's folds of whole queries (QueryGroups.folds, seed 0)
    from rlscore.core.structure import QueryGroups
    folds = QueryGroups.from_qids(q).folds(4, seed=0)
    assert [set(q[te]) for _, te in QuerySplitter(4).split(X, y, q)] == \
        [set(q[f]) & scored for f in folds if set(q[f]) & scored]
    # another measure decides: MAP scores every query (AP 0 without relevant rows)
    assert QuerySplitter(LeaveOneGroupOut(), scoring="map").get_n_splits(X, y, q) == \
        len(set(groups))
    assert defined_queries(measure_by_name("map"), y, q).all()
    np.testing.assert_array_equal(
        defined_queries(cindex, y, q),
        [g in scored for g in dict.fromkeys(groups)])
    with pytest.raises(ValueError, match="groups"):
        list(QuerySplitter().split(X, y))
    with pytest.raises(ValueError, match="needs y"):
        list(QuerySplitter().split(X, None, q))
    with pytest.raises(ValueError, match="cv=20"):
        list(QuerySplitter(20).split(X, y, q))
    with pytest.raises(ValueError, match="no split"):
        list(QuerySplitter(LeaveOneGroupOut()).split(X, np.ones_like(y), q))


class _no_edge:
    """Context manager: the grid was chosen so that the optimum is interior."""

    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error", EdgeOfGridWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)
