"""K-fold cross-validation by whole queries for query RankRLS without refits, through
every face: the core cross-validators (NfoldCV, PooledQueryCV) on the exact multi-query
hold-out, KfoldQueryRankRLS, RankRLSCV(cv=int) with query ids, ``rlscore cv
--learner query-rankrls --cv kfold`` and GridSearchCV over QuerySplitter(k) agree with
each other and with refits on the same folds: one fold rule (QueryGroups.folds), one
estimate (the mean over the folds of each fold's per-query mean)."""

import json

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from sklearn.model_selection import GridSearchCV

from rlscore.cli import main
from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.nystrom import select_basis
from rlscore.core.selection import (NfoldCV, PooledQueryCV, RefitModel, TrainTestCV,
                                    grid_search, holdout_of)
from rlscore.core.structure import QueryGroups
from rlscore.estimators import QuerySplitter, RankRLS, RankRLSCV
from rlscore.estimators._cv import split_crossvalidator
from rlscore.learner import KfoldQueryRankRLS, QueryRankRLS
from rlscore.measure import cindex, measure_by_name
from rlscore.utilities.reader import write_svmlight

GRID = [1e-3, 0.1, 1.0, 10.0, 1e3]
GAMMA = 0.2
TOL = 1e-10


def _letor(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_queries)
    sizes[:2] = [1, 6]                                  # a query of one item
    q = np.repeat(np.arange(n_queries) * 5 + 2, sizes)
    X = rng.normal(size=(q.size, 5))
    s = X @ rng.normal(size=5) + 0.5 * rng.normal(size=q.size)
    y = np.digitize(s, np.quantile(s, [0.5, 0.8])).astype(float)
    return X, y, q


def _refit_model(X, y, q, kernel="LinearKernel", basis=None, remove=True, **params):
    """Retraining without each fold: the brute force of every shortcut below."""
    def train(rows, regparam):
        rows = np.arange(q.size) if rows is None else rows
        extra = dict(params)
        if basis is not None and remove:
            pos = np.full(q.size, -1)
            pos[rows] = np.arange(rows.size)
            kept = pos[basis]
            extra["basis_indices"] = kept[kept >= 0]
        elif basis is not None:
            extra["basis_vectors"] = X[basis]
        return QueryRankRLSModel(X[rows], y[rows], q[rows], regparam, kernel, **extra)
    return RefitModel(train, X, y)


def _count_models_and_holdouts(monkeypatch):
    """Count the QueryRankRLSModel constructions (trainings) and multi-query hold-outs."""
    from rlscore.core.rankrls import _models
    counts = {"models": 0, "holdouts": 0}
    init, holdout = _models.QueryRankRLSModel.__init__, _models.QueryRankRLSModel.holdout_rows

    def counting_init(self, *args, **kwargs):
        counts["models"] += 1
        init(self, *args, **kwargs)

    def counting_holdout(*args):
        counts["holdouts"] += 1
        return holdout(*args)
    monkeypatch.setattr(_models.QueryRankRLSModel, "__init__", counting_init)
    monkeypatch.setattr(_models.QueryRankRLSModel, "holdout_rows", counting_holdout)
    return counts


MODELS = [("LinearKernel", {}, None, True), ("GaussianKernel", {"gamma": GAMMA}, None,
                                              True),
          ("GaussianKernel", {"gamma": GAMMA}, 20, True),
          ("GaussianKernel", {"gamma": GAMMA}, 20, False)]


@pytest.mark.parametrize("kernel,params,n_basis,remove", MODELS)
def test_core_crossvalidators_equal_refits(kernel, params, n_basis, remove):
    X, y, q = _letor()
    groups = QueryGroups.from_qids(q)
    folds = groups.folds(4, seed=1)
    extra = dict(params)
    basis = None
    if n_basis:
        basis = select_basis(q.size, None, n_basis, 0)
        extra.update(basis_indices=basis, keep_basis_in_cv=not remove)
    model = QueryRankRLSModel(X, y, q, GRID[0], kernel, decompose_now=True, **extra)
    refit = _refit_model(X, y, q, kernel, basis, remove, **params)
    assert holdout_of(model) == model.holdout_rows and holdout_of(refit) == refit.holdout
    for make in (lambda rls: PooledQueryCV(rls, cindex, groups, folds),
                 lambda rls: NfoldCV(rls, cindex, folds, groups)):
        perfs, preds, best = grid_search(make(model), GRID)
        ref_perfs, ref_preds, ref_best = grid_search(make(refit), GRID)
        assert_allclose(perfs, ref_perfs, rtol=0, atol=TOL)
        assert best == ref_best
        for P, R in zip(preds, ref_preds):
            for a, b in zip(P if isinstance(P, list) else [P],
                            R if isinstance(R, list) else [R]):
                assert_allclose(np.ravel(a), np.ravel(b), rtol=0, atol=TOL)


@pytest.mark.parametrize("n_basis", [None, 20])
def test_learner_and_estimator_agree_with_refits(monkeypatch, n_basis):
    X, y, q = _letor(seed=2)
    groups = QueryGroups.from_qids(q)
    tests = groups.folds(3, seed=0)      # RankRLSCV(cv=3)'s folds, the learner's
    kw = {"kernel": "GaussianKernel", "gamma": GAMMA}
    est_kw = {"kernel": "rbf", "gamma": GAMMA}
    basis = None
    if n_basis:
        kw.update(n_basis=n_basis, random_state=0)
        est_kw.update(n_basis=n_basis, random_state=0)
        basis = select_basis(q.size, None, n_basis, 0)
    counts = _count_models_and_holdouts(monkeypatch)
    learner = KfoldQueryRankRLS(X, y, q, 3, regparams=GRID, **kw)
    est = RankRLSCV(alphas=GRID, cv=3, scoring="cindex", **est_kw).fit(X, y, qid=q)
    # one training per face, no refits
    assert counts == {"models": 2, "holdouts": 2 * 3 * len(GRID)}
    monkeypatch.undo()
    refit = _refit_model(X, y, q, "GaussianKernel", basis, gamma=GAMMA)
    ref_perfs, ref_preds, _ = grid_search(NfoldCV(refit, cindex, tests, groups), GRID)
    assert_allclose(learner.cv_performances, ref_perfs, rtol=0, atol=TOL)
    assert_allclose(est.cv_results_["cv_performances"], ref_perfs, rtol=0, atol=TOL)
    for got, ref in zip(learner.cv_predictions, ref_preds):
        for a, b in zip(got, ref):
            assert_allclose(np.ravel(a), np.ravel(b), rtol=0, atol=TOL)
    assert learner.regparam == est.alpha_
    final = QueryRankRLS(X, y, q, regparam=learner.regparam, **kw)
    assert_allclose(learner.predict(X), final.predict(X), rtol=0, atol=TOL)
    assert_allclose(est.predict(X), final.predict(X), rtol=0, atol=TOL)


def test_learner_folds_argument():
    X, y, q = _letor()
    a = KfoldQueryRankRLS(X, y, q, 3, regparams=GRID, seed=4)
    folds = QueryGroups.from_qids(q).folds(3, seed=4)
    b = KfoldQueryRankRLS(X, y, q, folds, regparams=GRID)
    assert_allclose(a.cv_performances, b.cv_performances, rtol=0, atol=0)
    assert all(np.array_equal(f, g) for f, g in zip(a.folds, folds))
    with pytest.raises(TypeError, match="folds"):
        KfoldQueryRankRLS(X, y, q, 2.5, regparams=GRID)
    with pytest.raises(IndexError, match=r"folds\[1\]"):
        KfoldQueryRankRLS(X, y, q, [[0, 1], [2, q.size]], regparams=GRID)
    with pytest.raises(ValueError, match="folds"):
        KfoldQueryRankRLS(X, y, q, q.size, regparams=GRID)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("basis, keep", [(None, False), (15, False), (15, True)])
def test_cli_kfold_by_query_equals_refits(tmp_path, capsys, monkeypatch, basis, keep):
    X, y, q = _letor(seed=3)
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y, q)
    argv = ["cv", path, "--learner", "query-rankrls", "--kernel", "gaussian", "--gamma",
            GAMMA, "--regparams", ",".join(map(str, GRID)), "--cv", "kfold", "--folds", 4,
            "--seed", 3, "--format", "json"]
    rows = None
    if basis:
        argv += ["--basis", basis, "--basis-seed", 7]
        argv += ["--keep-basis-in-cv"] if keep else []
        rows = np.sort(np.random.default_rng(7).choice(q.size, basis, replace=False))
    counts = _count_models_and_holdouts(monkeypatch)
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    perfs = np.array(json.loads(out.out)["cv_performances"])
    # one training, then every fold at every regparam from the hold-out shortcut
    assert counts == {"models": 1, "holdouts": 4 * len(GRID)}
    monkeypatch.undo()
    # the command's K-fold by query against refits on the same folds: a fold's model
    # loses the basis rows the fold holds out (the rule of every face), unless
    # --keep-basis-in-cv keeps the same vectors in every fold
    groups = QueryGroups.from_qids(q)
    refit = _refit_model(X, y, q, "GaussianKernel", rows, remove=not keep, gamma=GAMMA)
    ref, _, _ = grid_search(NfoldCV(refit, cindex, groups.folds(4, 3), groups), GRID)
    assert_allclose(perfs, ref, rtol=0, atol=TOL)


def test_estimator_splits_that_are_not_complements_equal_refits():
    # training sets that leave rows out (a query dropped, part of a query dropped):
    # TrainTestCV holds out every non-training row at once and scores the test rows
    # per query
    X, y, q = _letor(seed=4)
    m = q.size
    rng = np.random.default_rng(0)
    codes = QueryGroups.from_qids(q).codes
    splits = []
    for test_queries, dropped in (([0, 3], [5]), ([2, 7], [1]), ([4, 8, 9], [])):
        test = np.flatnonzero(np.isin(codes, test_queries))
        out = np.flatnonzero(np.isin(codes, dropped))
        part = rng.choice(np.flatnonzero(codes == 6), 2, replace=False)
        train = np.setdiff1d(np.arange(m), np.concatenate([test, out, part]))
        splits.append((train, test))
    est = RankRLSCV(alphas=GRID, cv=splits, kernel="rbf", gamma=GAMMA,
                    scoring="cindex").fit(X, y, qid=q)
    groups = QueryGroups.from_qids(q)
    refit = _refit_model(X, y, q, "GaussianKernel", gamma=GAMMA)
    ref = []
    for lam in GRID:
        perfs = []
        for train, test in splits:
            model = refit.train(train, lam)
            P = model.predictor.predict(X[test])
            perfs.append(cindex(y[test], P, q[test]))
        ref.append(np.mean(perfs))
    assert_allclose(est.cv_results_["cv_performances"], ref, rtol=0, atol=TOL)
    model = QueryRankRLSModel(X, y, q, 1.0, "GaussianKernel", decompose_now=True, gamma=GAMMA)
    assert isinstance(split_crossvalidator(model, cindex, splits, groups), TrainTestCV)


def _folds_by_hand(q, k, seed):
    """The library's rule for k folds of whole queries, written out: the queries in
    order of first appearance, permuted by ``numpy.random.default_rng(seed)`` and dealt
    to the folds in turn."""
    queries = list(dict.fromkeys(q.tolist()))
    fold_of = {}
    for position, index in enumerate(np.random.default_rng(seed).permutation(len(queries))):
        fold_of[queries[index]] = position % k
    return [np.array([i for i, v in enumerate(q.tolist()) if fold_of[v] == f])
            for f in range(k)]


def _noisy_letor(seed=0, n_queries=13, d=8):
    """Graded labels with noise (the best regparam lies inside the grid), a query of
    one item and two queries whose labels are all tied."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 9, size=n_queries)
    sizes[0] = 1
    q = np.repeat(np.arange(n_queries) * 5 + 2, sizes)
    X = rng.normal(size=(q.size, d))
    s = X @ rng.normal(size=d) + 2.0 * rng.normal(size=q.size)
    y = np.digitize(s, np.quantile(s, [0.5, 0.8])).astype(float)
    y[q == q[-1]] = 1.0
    y[q == 17] = 0.0
    return X, y, q


@pytest.mark.parametrize("name,best", [("map", 10.0), ("cindex", 100.0)])
def test_kfold_by_query_is_one_number_in_every_face(tmp_path, run_cli, letor_by_hand,
                                                    cindex_by_hand, name, best):
    # 13 queries in 4 folds (4, 3, 3, 3 queries): the mean of the per-fold means and
    # the mean over all queries differ; the queries without a pair (one item, all
    # labels tied) have no c-index and are skipped
    X, y, q = _noisy_letor()
    grid = [1e-2, 1.0, 10.0, 100.0, 1e4]
    k = 4
    folds = _folds_by_hand(q, k, 0)

    def fold_score(yf, pf, qf):
        if name == "map":
            return letor_by_hand(yf, pf, qf, 1)[2]        # AP 0 without relevant rows
        values = [cindex_by_hand(yf[qf == g], pf[qf == g]) for g in dict.fromkeys(qf)]
        values = [v for v in values if v is not None]
        return np.mean(values) if values else None

    brute = []
    for lam in grid:
        per_fold = []
        for fold in folds:
            train = np.setdiff1d(np.arange(q.size), fold)
            p = np.ravel(QueryRankRLS(X[train], y[train], q[train],
                                      regparam=lam).predict(X[fold]))
            score = fold_score(y[fold], p, q[fold])
            if score is not None:
                per_fold.append(score)
        brute.append(np.mean(per_fold))
    assert grid[int(np.argmax(brute))] == best          # inside the grid
    final = np.ravel(QueryRankRLS(X, y, q, regparam=best).predict(X))

    path = tmp_path / "train.txt"
    write_svmlight(path, X, y, q)
    opts = ["--learner", "query-rankrls", "--regparams", ",".join(map(str, grid)),
            "--cv", "kfold", "--folds", k, "--measure", name]
    code, out, err = run_cli(["cv", path, *opts, "--format", "json"])
    assert code == 0, err
    cli = json.loads(out)
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "m.npz", *opts])
    assert code == 0, err
    code, _, err = run_cli(["predict", tmp_path / "m.npz", path, "-o", tmp_path / "p"])
    assert code == 0, err
    learner = KfoldQueryRankRLS(X, y, q, k, regparams=grid, measure=measure_by_name(name))
    est = RankRLSCV(alphas=grid, cv=k, scoring=name).fit(X, y, qid=q)

    assert all(np.array_equal(a, b) for a, b in zip(learner.folds, folds))
    assert_allclose(cli["cv_performances"], brute, rtol=0, atol=TOL)
    assert_allclose(learner.cv_performances, brute, rtol=0, atol=TOL)
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=0, atol=TOL)
    assert cli["regparam"] == learner.regparam == est.alpha_ == best
    for predictions in (np.loadtxt(tmp_path / "p"), learner.predict(X), est.predict(X)):
        assert_allclose(np.ravel(predictions), final, rtol=0, atol=1e-8)
    if name == "cindex":
        # scikit-learn's own search over the same folds (the estimator's score is the
        # per-query c-index): the same means, the same choice
        with sklearn.config_context(enable_metadata_routing=True):
            ranker = RankRLS().set_fit_request(groups=True).set_score_request(groups=True)
            search = GridSearchCV(ranker, {"alpha": grid}, cv=QuerySplitter(k))
            search.fit(X, y, groups=q)
        assert_allclose(search.cv_results_["mean_test_score"], brute, rtol=0, atol=1e-8)
        assert search.best_params_["alpha"] == best
        assert_allclose(search.predict(X), final, rtol=0, atol=1e-8)
