"""Face matrix (issue 42, see ``__init__.py``): Global RankRLS (K-fold, LPO) and query
RankRLS (LQO, K-fold by query), with their Nystrom K-fold, through the learner,
estimator, CLI, GridSearchCV and Dask faces."""

import functools

import numpy as np
import pytest

from rlscore.utilities.cross_validation import random_folds

from ._common import (BASIS_SEED, EDGE_OK, GAMMA, GRID, K_FOLDS, N_BASIS, SEED, _check,
                      _choose, _cindex, _cli_run, _final, _formats, _kernel_options,
                      _kfold_estimates, _learner_result, _lpo_estimates, _memo,
                      _queries, _query_cindex, _query_folds, _rls_basis, _same_as_dense,
                      _slow_if, _tied_queries)

pytestmark = EDGE_OK


def _rank_data(data):
    """The query data of a row: None _queries(); "tied" _tied_queries()."""
    return _tied_queries() if data == "tied" else _queries()


@functools.lru_cache(maxsize=None)
def _rank_reference(family, kernel, cv, nystrom=None, data=None):
    """Nystrom (K-fold): "keep" the basis rows in every split, or "remove" the
    held-out ones."""
    X, y, q, Xt = _rank_data(data)
    m = len(y)
    basis = _rls_basis(m) if nystrom else None
    if family == "query":
        perfs = _kfold_estimates("query", kernel, X, y, q, _query_folds(q, cv),
                                 _query_cindex, basis, keep=nystrom == "keep")
    elif cv == "kfold":
        perfs = _kfold_estimates("global", kernel, X, y, None,
                                 random_folds(m, K_FOLDS, seed=SEED),
                                 lambda a, b, _: _cindex(a, b), basis,
                                 keep=nystrom == "keep")
    else:
        perfs = _lpo_estimates("global", kernel, X, y)
    lam = _choose(perfs, False)
    pred = _final(family, kernel, X, y, q, Xt, lam, basis)
    return perfs, lam, pred


def _rank_learner(family, kernel, cv, nystrom=None, fmt=None, data=None, **_):
    from rlscore.learner import (KfoldQueryRankRLS, KfoldRankRLS, LeavePairOutRankRLS,
                                 LeaveQueryOutRankRLS)
    from rlscore.measure import cindex
    X, y, q, Xt = _rank_data(data)
    X, Xt = _formats(X, Xt, fmt)
    kw = _kernel_options(kernel, "learner")
    if nystrom == "keep":
        kw["basis_vectors"] = X[_rls_basis(len(y))]
    elif nystrom == "remove":
        kw["basis_indices"] = _rls_basis(len(y))
    cls, args = {("query", "lqo"): (LeaveQueryOutRankRLS, (q,)),
                 ("query", "kfold"): (KfoldQueryRankRLS, (q, K_FOLDS)),
                 ("global", "kfold"): (KfoldRankRLS,
                                       (random_folds(len(y), K_FOLDS, seed=SEED),)),
                 ("global", "lpo"): (LeavePairOutRankRLS, ())}[family, cv]
    if cv != "lpo":
        kw["measure"] = cindex
    return _learner_result(cls(X, y, *args, regparams=GRID, **kw), Xt)


def _rank_estimator(family, kernel, cv, nystrom=None, fmt=None, data=None, **_):
    from rlscore.estimators import RankRLSCV
    X, y, q, Xt = _rank_data(data)
    X, Xt = _formats(X, Xt, fmt)
    m = len(y)
    kw = _kernel_options(kernel, "estimator", bias=False)
    if nystrom:
        kw.update(basis_indices=_rls_basis(m), keep_basis_in_cv=nystrom == "keep")
    if family == "query":
        est = RankRLSCV(alphas=GRID, cv="lqo" if cv == "lqo" else K_FOLDS,
                        scoring="cindex", **kw).fit(X, y, qid=q)
    elif cv == "kfold":
        splits = [(np.setdiff1d(np.arange(m), f), np.sort(f))
                  for f in random_folds(m, K_FOLDS, seed=SEED)]
        est = RankRLSCV(alphas=GRID, cv=splits, scoring="cindex", **kw).fit(X, y)
    else:
        est = RankRLSCV(alphas=GRID, cv="lpo", scoring="cindex", **kw).fit(X, y)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


def _rank_gridsearch(family, kernel, cv, fmt=None, data=None, **_):
    """scikit-learn's GridSearchCV(RankRLS(), cv=QuerySplitter(...)) with the query ids
    routed to the splitter, fit and score."""
    import sklearn
    from sklearn.model_selection import GridSearchCV, LeaveOneGroupOut
    from rlscore.estimators import QuerySplitter, RankRLS
    X, y, q, Xt = _rank_data(data)
    X, Xt = _formats(X, Xt, fmt)
    splitter = QuerySplitter(LeaveOneGroupOut() if cv == "lqo" else K_FOLDS,
                             random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = RankRLS(**_kernel_options(kernel, "estimator", bias=False))
        ranker = ranker.set_fit_request(groups=True).set_score_request(groups=True)
        search = GridSearchCV(ranker, {"alpha": GRID}, cv=splitter).fit(X, y, groups=q)
        pred = search.predict(Xt)
    return search.best_params_["alpha"], search.cv_results_["mean_test_score"], pred


def _rank_cli(family, kernel, cv, run_cli, tmp_path, nystrom=None, data=None, **_):
    X, y, q, Xt = _rank_data(data)
    opts = ["--learner", "query-rankrls" if family == "query" else "rankrls",
            "--regparams", ",".join(map(str, GRID)), "--cv", cv, "--measure", "cindex"]
    opts += _kernel_options(kernel, "cli")
    if cv == "kfold":
        opts += ["--folds", K_FOLDS, "--seed", 0 if family == "query" else SEED]
    if nystrom:
        opts += ["--basis", N_BASIS, "--basis-seed", BASIS_SEED]
        opts += ["--keep-basis-in-cv"] if nystrom == "keep" else []
    return _cli_run(run_cli, tmp_path, X, y, q if family == "query" else None, Xt, opts)


RANK_FACES = {"learner": _memo(_rank_learner), "estimator": _memo(_rank_estimator),
              "cli": _rank_cli, "gridsearch": _memo(_rank_gridsearch)}
RANK_ROWS = [(fam, k, cv, face)
             for k in ("linear", "gaussian")
             for fam, cvs, faces in (("global", ("kfold", "lpo"),
                                      ("learner", "estimator", "cli")),
                                     ("query", ("lqo", "kfold"),
                                      ("learner", "estimator", "cli", "gridsearch")))
             for cv in cvs for face in faces]


@pytest.mark.parametrize("family,kernel,cv,face", RANK_ROWS)
def test_rankrls(family, kernel, cv, face, run_cli, tmp_path):
    perfs, lam, pred = _rank_reference(family, kernel, cv)
    got = RANK_FACES[face](family, kernel, cv, run_cli=run_cli, tmp_path=tmp_path)
    _check(got, perfs, lam, pred)


def _rank_dask(family, kernel, cv, nystrom, client, **_):
    """rlscore.distributed.QueryRankRLS / GlobalRankRLS with the basis vectors given
    (kept in every fold), one partition per fold (of whole queries / of rows)."""
    da = pytest.importorskip("dask.array")
    import rlscore.distributed as rd
    from rlscore.measure import cindex
    X, y, q, Xt = _queries()
    folds = _query_folds(q, cv) if family == "query" else \
        [np.sort(f) for f in random_folds(len(y), K_FOLDS, seed=SEED)]
    order = np.concatenate(folds)
    chunks = tuple(len(f) for f in folds)
    Xd = da.from_array(X[order], chunks=(chunks, -1))
    yd = da.from_array(y[order], chunks=(chunks,))
    kw = dict(kernel="GaussianKernel", gamma=GAMMA, client=client,
              basis_vectors=X[_rls_basis(len(y))])
    model = rd.QueryRankRLS(Xd, yd, da.from_array(q[order], chunks=(chunks,)), **kw) \
        if family == "query" else rd.GlobalRankRLS(Xd, yd, **kw)
    out = model.kfold(GRID, folds=[[k] for k in range(len(folds))], measure=cindex)
    return out["best_regparam"], out["cv_performances"], model.predict(Xt)


@pytest.mark.parametrize("family", ["query", "global"])
@pytest.mark.parametrize("nystrom,face", [
    ("keep", "learner"), ("keep", "estimator"), ("keep", "cli"), ("keep", "dask"),
    ("remove", "learner"), ("remove", "estimator"), ("remove", "cli")])
def test_rankrls_nystrom_kfold(family, nystrom, face, run_cli, tmp_path, request):
    perfs, lam, pred = _rank_reference(family, "gaussian", "kfold", nystrom)
    extra = {"client": request.getfixturevalue("client")} if face == "dask" else {}
    got = {**RANK_FACES, "dask": _rank_dask}[face](
        family, "gaussian", "kfold", nystrom=nystrom, run_cli=run_cli,
        tmp_path=tmp_path, **extra)
    _check(got, perfs, lam, pred)



# ------------------------------------------------------------- the sparse column

#: every RankRLS row of a face that takes scipy.sparse input (the command line's rows
#: above read svmlight files, always sparse)
RANK_SPARSE_ROWS = [row for row in RANK_ROWS if row[3] != "cli"]


#: global leave-pair-out is the slow kind: its Gaussian CSR rows run with -m slow,
#: the linear ones are their twins
@pytest.mark.parametrize("family,kernel,cv,face", _slow_if(
    RANK_SPARSE_ROWS, lambda row: row[2] == "lpo" and row[1] == "gaussian"))
def test_rankrls_csr(family, kernel, cv, face):
    perfs, lam, pred = _rank_reference(family, kernel, cv)
    got = RANK_FACES[face](family, kernel, cv, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, RANK_FACES[face](family, kernel, cv))


@pytest.mark.parametrize("family", ["query", "global"])
@pytest.mark.parametrize("nystrom", ["keep", "remove"])
@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_rankrls_nystrom_kfold_csr(family, nystrom, face):
    perfs, lam, pred = _rank_reference(family, "gaussian", "kfold", nystrom)
    got = RANK_FACES[face](family, "gaussian", "kfold", nystrom=nystrom, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, RANK_FACES[face](family, "gaussian", "kfold", nystrom=nystrom))


@pytest.mark.parametrize("face,fmt", [("learner", "csc"), ("estimator", "coo"),
                                      ("gridsearch", "matrix"), ("estimator", "csr_array")])
def test_rankrls_predict_formats(face, fmt):
    """Query RankRLS LQO trained on dense input, the test rows as CSC, COO, np.matrix or
    a sparse array (one face each)."""
    perfs, lam, pred = _rank_reference("query", "linear", "lqo")
    got = RANK_FACES[face]("query", "linear", "lqo", fmt=fmt)
    _check(got, perfs, lam, pred)
    _same_as_dense(got, RANK_FACES[face]("query", "linear", "lqo"))


# ---------------------------------------- outside findings (issue 44 item 1)

@pytest.mark.parametrize("face", ["learner", "estimator", "cli", "gridsearch"])
def test_rankrls_lqo_all_tied_queries(face, run_cli, tmp_path):
    """Queries whose labels are all tied have no defined c-index: every face leaves
    them out of the leave-query-out estimate -- GridSearchCV through QuerySplitter
    picks LeaveQueryOutRankRLS's alpha with its estimates -- as the refits do."""
    perfs, lam, pred = _rank_reference("query", "linear", "lqo", data="tied")
    got = RANK_FACES[face]("query", "linear", "lqo", run_cli=run_cli, tmp_path=tmp_path,
                           data="tied")
    _check(got, perfs, lam, pred)
