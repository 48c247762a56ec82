"""rlscore.distributed on a LocalCluster (2 worker processes, 1 thread each, loopback):
every learner equals its single-machine counterpart on the same data."""

import os

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import rlscore.distributed as rd  # noqa: E402
from rlscore.learner import (CGRankRLS, CGRLS, GlobalRankRLS, LinearRankSVM,  # noqa: E402
                             QueryRankRLS, RLS)


def _ranking_data(seed=0, n_queries=24, d=6, float32=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 12, n_queries)
    qids = np.repeat(np.arange(n_queries) * 7 + 3, sizes)       # arbitrary ids
    m = qids.size
    X = rng.standard_normal((m, d))
    w = rng.standard_normal(d)
    y = np.round(X @ w + 0.5 * rng.standard_normal(m), 1)
    if float32:
        X = X.astype(np.float32)
    return X, y, qids


def _dask(X, y, qids, n_parts):
    chunks = rd.query_chunks(qids, n_parts)
    return (da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,)),
            da.from_array(qids, chunks=(chunks,)))


# ---------------------------------------------------------------------------------------
# RankSVM


@pytest.mark.parametrize("normalize", ["pairs", "query", "none"])
def test_ranksvm_equals_single_machine(client, normalize):
    X, y, q = _ranking_data(1)
    Xd, yd, qd = _dask(X, y, q, 4)
    lam, tol = 0.1, 1e-7
    single = LinearRankSVM(X, y, qids=q, regparam=lam, tol=tol, normalize=normalize)
    seen = []
    dist = rd.LinearRankSVM(Xd, yd, qd, regparam=lam, tol=tol, normalize=normalize,
                            client=client, callback=lambda info: seen.append(info["gap"]))
    assert dist.converged and single.converged
    assert dist.n_pairs == single.n_pairs
    scale = 1.0 if normalize != "none" else single.n_pairs
    # both objectives are within tol * R(0) of the minimum
    assert abs(dist.objective - single.objective) <= tol * scale
    # strong convexity: ||w - w*||^2 <= 2 gap / regparam for either
    wd, ws = dist.predictor.W.ravel(), single.predictor.W.ravel()
    assert np.linalg.norm(wd - ws) <= 2 * np.sqrt(2 * tol * scale / lam)
    assert len(seen) == dist.iterations - 1        # per-iteration progress
    # the objective of the distributed w, evaluated on one machine, is what it reports
    from rlscore.core.ranksvm import RankingRisk
    R = RankingRisk(X, y, q, normalize=normalize)
    assert np.isclose(0.5 * lam * wd @ wd + R.value(wd), dist.objective, rtol=1e-12)


def test_ranksvm_iterates_match_and_reproducible(client):
    """Same bundle iterates as the single machine (the sums differ only by rounding),
    and the same result from persisted and re-read partitions."""
    X, y, q = _ranking_data(2)
    Xd, yd, qd = _dask(X, y, q, 3)
    single = LinearRankSVM(X, y, qids=q, regparam=0.1, tol=1e-6)
    a = rd.LinearRankSVM(Xd, yd, qd, regparam=0.1, tol=1e-6, client=client)
    b = rd.LinearRankSVM(Xd, yd, qd, regparam=0.1, tol=1e-6, client=client, persist=True)
    assert a.iterations == b.iterations == single.iterations
    np.testing.assert_allclose(a.predictor.W, b.predictor.W, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.predictor.W, single.predictor.W, rtol=1e-8, atol=1e-10)


def test_ranksvm_float32_and_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd
    X, y, q = _ranking_data(3, float32=True)
    single = LinearRankSVM(X.astype(np.float64), y, qids=q, regparam=0.05, tol=1e-8)
    Xd, yd, qd = _dask(X, y, q, 3)
    dist = rd.LinearRankSVM(Xd, yd, qd, regparam=0.05, tol=1e-8, client=client)
    chunks = np.cumsum((0,) + rd.query_chunks(q, 3))
    frames = []
    for a, b in zip(chunks[:-1], chunks[1:]):
        f = pd.DataFrame(X[a:b].astype(np.float64), columns=[f"f{j}" for j in range(6)])
        f["y"], f["qid"] = y[a:b], q[a:b]
        frames.append(f)
    ddf = dd.from_map(lambda f: f, frames)
    data = rd.PartitionedData.from_dataframe(ddf, label="y", qid="qid", client=client)
    dist_df = rd.LinearRankSVM(data, regparam=0.05, tol=1e-8)
    for model in (dist, dist_df):
        assert abs(model.objective - single.objective) <= 1e-8
        assert np.linalg.norm(model.predictor.W.ravel() - single.predictor.W.ravel()) \
            <= 2 * np.sqrt(2e-8 / 0.05)


def test_split_query_regrouped(client):
    """A dask array whose chunks cut queries is regrouped (with a RegroupWarning) into
    partitions of whole queries and trains to the model of the sorted data; without
    regrouping RankSVM counts the pairs across partitions (same model) and the learners
    that need whole queries raise."""
    X, y, q = _ranking_data(4)
    rng = np.random.default_rng(4)
    perm = rng.permutation(len(y))                 # queries spread over every chunk
    Xs, ys, qs = X[perm], y[perm], q[perm]
    Xd = da.from_array(Xs, chunks=(len(y) // 3 + 1, -1))
    kw = dict(regparam=0.1, tol=1e-9, loss="squared_hinge", client=client, persist=True)
    ref = rd.LinearRankSVM(*_dask(X, y, q, 3), **kw)
    with pytest.warns(rd.RegroupWarning, match="regrouped by query id"):
        got = rd.LinearRankSVM(Xd, ys, qs, **kw)
    assert got.scheme == "local"
    np.testing.assert_allclose(got.predictor.W, ref.predictor.W, rtol=1e-9, atol=1e-12)
    data = rd.PartitionedData(Xd, ys, qs, client=client, regroup=False, persist=True)
    kw.pop("persist")
    glob = rd.LinearRankSVM(data, **kw)
    assert glob.scheme == "global"
    np.testing.assert_allclose(glob.predictor.W, ref.predictor.W, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="is split over partitions"):
        rd.CGRankRLS(rd.PartitionedData(Xd, ys, qs, client=client, regroup=False),
                     client=client)
    with pytest.warns(rd.RegroupWarning):
        rd.QueryRankRLS(Xd, ys, qids=qs, n_basis=5, client=client)


def test_bad_input(client):
    X, y, q = _ranking_data(6)
    Xd, yd, qd = _dask(X, y, q, 2)
    Xbad = X.copy()
    Xbad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        rd.LinearRankSVM(da.from_array(Xbad, chunks=(Xd.chunks[0], -1)), y, q,
                         client=client)
    with pytest.raises(TypeError, match="dask.array"):
        rd.LinearRankSVM(X, y, q, client=client)
    with pytest.raises(ValueError, match="lengths must match"):
        rd.CGRLS(Xd, y[:-1], client=client)
    with pytest.raises(ValueError, match="no pairs"):
        rd.LinearRankSVM(Xd, np.ones_like(y), qd, client=client)
    with pytest.raises(ValueError, match="contiguous"):
        rd.query_chunks([1, 1, 2, 1], 2)


# ---------------------------------------------------------------------------------------
# CG


def test_cgrls_equals_single_machine(client):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((300, 8)).astype(np.float32)
    Y = rng.standard_normal((300, 2))
    Xd = da.from_array(X, chunks=(70, 4))                     # column chunks merged
    progress = []
    dist = rd.CGRLS(Xd, Y, regparam=3.0, bias=2.0, tol=1e-13, client=client,
                    callback=lambda info: progress.append(info["iteration"]))
    single = CGRLS(X.astype(np.float64), Y, regparam=3.0, bias=2.0, tol=1e-13)
    exact = RLS(X.astype(np.float64), Y, regparam=3.0, bias=2.0)
    assert dist.converged and progress == list(range(1, dist.n_iter + 1))
    Xt = rng.standard_normal((20, 8))
    for ref in (single, exact):
        np.testing.assert_allclose(dist.predict(Xt), ref.predict(Xt), rtol=1e-8,
                                   atol=1e-10)
    # preconditioned: same solution
    pre = rd.CGRLS(Xd, Y, regparam=3.0, bias=2.0, tol=1e-13, precondition="jacobi",
                   client=client)
    np.testing.assert_allclose(pre.predict(Xt), exact.predict(Xt), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("with_qids", [True, False])
def test_cgrankrls_equals_single_machine(client, with_qids):
    X, y, q = _ranking_data(8)
    X = X + 5.0                                          # nonzero means: centering matters
    Xd, yd, qd = _dask(X, y, q, 4)
    qs = q if with_qids else None
    dist = rd.CGRankRLS(Xd, yd, regparam=2.0, qids=qd if with_qids else None, tol=1e-13,
                        client=client)
    single = CGRankRLS(X, y, regparam=2.0, qids=qs, tol=1e-13)
    closed = QueryRankRLS(X, y, q, regparam=2.0, bias=0.0) if with_qids else \
        GlobalRankRLS(X, y, regparam=2.0 * len(y), bias=0.0)
    Xt = np.random.default_rng(1).standard_normal((15, X.shape[1]))
    for ref in (single, closed):
        pr = ref.predict(Xt)
        pd_ = dist.predict(Xt).reshape(pr.shape)
        # a ranking model is defined up to a constant (no bias): compare centred
        np.testing.assert_allclose(pd_ - pd_.mean(), pr - pr.mean(), rtol=1e-8, atol=1e-9)


# ---------------------------------------------------------------------------------------
# reduced set


def _basis(X, k, seed=0):
    return X[np.sort(np.random.default_rng(seed).choice(len(X), k, replace=False))]


def test_reduced_set_rls_path_and_sampling(client):
    rng = np.random.default_rng(9)
    X = rng.standard_normal((260, 5))
    Y = np.sin(X[:, :2]) + 0.1 * rng.standard_normal((260, 2))
    Xd = da.from_array(X, chunks=(60, -1))
    B = _basis(X, 30)
    dist = rd.RLS(Xd, Y, regparam=0.1, kernel="GaussianKernel", gamma=0.3,
                  basis_vectors=B, path=True, client=client)
    Xt = rng.standard_normal((25, 5))
    for lam in (1e-4, 0.1, 10.0):
        dist.solve(lam)
        single = RLS(X, Y, regparam=lam, kernel="GaussianKernel", gamma=0.3,
                     basis_vectors=B)
        np.testing.assert_allclose(dist.predict(Xt), single.predict(Xt), rtol=1e-8,
                                   atol=1e-10)
    # basis sampled from the data: rows of X, and the same model as with those rows
    samp = rd.RLS(Xd, Y, regparam=1.0, kernel="LinearKernel", n_basis=4, random_state=3,
                  client=client)
    hits = (samp.basis_vectors[:, None, :] == X[None]).all(axis=2)
    assert hits.sum() == 4 and np.all(hits.sum(axis=1) == 1)
    single = RLS(X, Y, regparam=1.0, basis_vectors=samp.basis_vectors)
    np.testing.assert_allclose(samp.predict(Xt), single.predict(Xt), rtol=1e-8,
                               atol=1e-10)


def test_reduced_set_basis_draw_is_the_learners(client):
    """One name and one draw for the Nystrom basis (issue 35 item 11): rd.RLS with
    n_basis and random_state takes the rows learner.RLS(n_basis, random_state) takes,
    so both give the same model; the former keyword ``seed`` is refused by name."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((90, 4))
    y = X[:, 0] + 0.1 * rng.standard_normal(90)
    Xd = da.from_array(X, chunks=(30, -1))
    Xt = rng.standard_normal((9, 4))
    for state in (3, 7):
        dist = rd.RLS(Xd, y, regparam=0.5, kernel="GaussianKernel", gamma=0.2, n_basis=12,
                      random_state=state, client=client)
        single = RLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.2, n_basis=12,
                     random_state=state)
        np.testing.assert_allclose(dist.predict(Xt), single.predict(Xt), rtol=1e-8,
                                   atol=1e-10)
    with pytest.raises(TypeError, match="random_state"):
        rd.RLS(Xd, y, n_basis=5, seed=0, client=client)


@pytest.mark.parametrize("kind", ["query", "global"])
def test_reduced_set_rankrls_equals_single_machine(client, kind):
    X, y, q = _ranking_data(10, n_queries=30)
    X = X + 3.0
    Xd, yd, qd = _dask(X, y, q, 5)
    B = _basis(X, 25)
    Xt = np.random.default_rng(2).standard_normal((20, X.shape[1]))
    kw = dict(kernel="GaussianKernel", gamma=0.1, basis_vectors=B)
    if kind == "query":
        dist = rd.QueryRankRLS(Xd, yd, qd, regparam=0.5, client=client, **kw)
    else:
        dist = rd.GlobalRankRLS(Xd, yd, regparam=0.5, client=client, **kw)
    for lam in (1e-3, 0.5, 50.0):
        dist.solve(lam)
        single = QueryRankRLS(X, y, q, regparam=lam, **kw) if kind == "query" else \
            GlobalRankRLS(X, y, regparam=lam, **kw)
        np.testing.assert_allclose(dist.predict(Xt), single.predict(Xt), rtol=1e-8,
                                   atol=1e-10)


def _refit(kind, X, y, q, train, lam, kw):
    """The single-machine learner of ``kind`` retrained on the rows ``train``."""
    if kind == "rls":
        return RLS(X[train], y[train], regparam=lam, **kw)
    if kind == "query":
        return QueryRankRLS(X[train], y[train], q[train], regparam=lam, **kw)
    return GlobalRankRLS(X[train], y[train], regparam=lam, **kw)


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_kfold_over_partitions_equals_retraining(client, kind):
    from rlscore.measure import cindex, query_cindex, sqerror
    X, y, q = _ranking_data(11, n_queries=30)
    Xd, yd, qd = _dask(X, y, q, 6)
    bounds = np.cumsum((0,) + Xd.chunks[0])
    B = _basis(X, 20)
    kw = dict(kernel="GaussianKernel", gamma=0.2, basis_vectors=B)
    if kind == "rls":
        model = rd.RLS(Xd, yd, client=client, **kw)
    elif kind == "query":
        model = rd.QueryRankRLS(Xd, yd, qd, client=client, **kw)
    else:
        model = rd.GlobalRankRLS(Xd, yd, client=client, **kw)
    grid = [1e-3, 0.1, 10.0]
    folds = [[0, 3], [1, 5], [2, 4]]
    out = model.kfold(grid, folds=folds)
    measure = {"rls": sqerror, "global": cindex, "query": query_cindex}[kind]
    for k, f in enumerate(folds):
        test = np.concatenate([np.arange(bounds[p], bounds[p + 1]) for p in f])
        train = np.setdiff1d(np.arange(len(y)), test)
        for i, lam in enumerate(grid):
            P = _refit(kind, X, y, q, train, lam, kw).predict(X[test])
            np.testing.assert_allclose(out["predictions"][k][:, i, 0], P, rtol=1e-8,
                                       atol=1e-10)
            perf = measure(y[test], P, q[test]) if kind == "query" else \
                measure(y[test], P)
            assert np.isclose(out["fold_performances"][i, k], perf, rtol=1e-12)
    best = out["best_regparam"]
    assert model.regparam == best
    with pytest.raises(ValueError, match="each exactly once"):
        model.kfold(grid, folds=[[0, 1], [1, 2, 3, 4, 5]])


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("kind", ["rls", "query", "global"])
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_kfold_basis_rule_is_the_learners(client, kind, keep):
    """One K-fold rule in every face (issue 44 item 16): with a basis drawn from the
    data, the Dask K-fold removes the held-out partitions' basis rows from each fold's
    model (keep_basis_in_cv=True keeps them), equal to refitting on the training rows
    with the basis restricted to the training rows' centres, and (RLS) to KfoldRLS on
    the same folds; cv_predictions has KfoldRLS's layout (per regparam, per fold)."""
    from rlscore.learner import KfoldRLS
    X, y, q = _ranking_data(12, n_queries=30)
    Xd, yd, qd = _dask(X, y, q, 6)
    bounds = np.cumsum((0,) + Xd.chunks[0])
    nb, state = 24, 5
    kw = dict(kernel="GaussianKernel", gamma=0.2)
    cls = {"rls": rd.RLS, "query": rd.QueryRankRLS, "global": rd.GlobalRankRLS}[kind]
    args = (Xd, yd, qd) if kind == "query" else (Xd, yd)
    model = cls(*args, n_basis=nb, random_state=state, keep_basis_in_cv=keep,
                client=client, **kw)
    basis = np.sort(np.random.default_rng(state).choice(len(y), nb, replace=False))
    np.testing.assert_array_equal(model.basis_vectors, X[basis])
    grid = [1e-3, 0.1, 10.0]
    folds = [[0, 3], [1, 5], [2, 4]]
    out = model.kfold(grid, folds=folds)
    row_folds = [np.concatenate([np.arange(bounds[p], bounds[p + 1]) for p in f])
                 for f in folds]
    held = 0
    for k, test in enumerate(row_folds):
        train = np.setdiff1d(np.arange(len(y)), test)
        kept = basis if keep else np.intersect1d(basis, train)
        held += np.intersect1d(basis, test).size
        for i, lam in enumerate(grid):
            P = _refit(kind, X, y, q, train, lam,
                       dict(kw, basis_vectors=X[kept])).predict(X[test])
            np.testing.assert_allclose(out["cv_predictions"][i][k], P, rtol=1e-7,
                                       atol=1e-9)
            np.testing.assert_allclose(out["predictions"][k][:, i, 0], P, rtol=1e-7,
                                       atol=1e-9)
    assert held > 0                         # the folds hold basis rows
    if kind == "rls":
        single = KfoldRLS(X, y, [f.tolist() for f in row_folds], regparams=grid,
                          n_basis=nb, random_state=state, keep_basis_in_cv=keep, **kw)
        for i in range(len(grid)):
            for k in range(len(folds)):
                np.testing.assert_allclose(out["cv_predictions"][i][k],
                                           single.cv_predictions[i][k], rtol=1e-7,
                                           atol=1e-9)
        np.testing.assert_allclose(out["cv_performances"], single.cv_performances,
                                   rtol=1e-7)
        assert out["best_regparam"] == single.regparam


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
def test_reduced_set_basis_is_never_implicit(client, kind):
    """rd.RLS(Xd, y, kernel="GaussianKernel") used to train a 100-row Nystrom model
    drawn anew at each call where learner.RLS with the same words trains the full
    kernel (issue 44 item 17): without n_basis or basis_vectors it is refused, naming
    both; both at once too."""
    X, y, q = _ranking_data(13, n_queries=10)
    Xd, yd, qd = _dask(X, y, q, 2)
    cls = {"rls": rd.RLS, "query": rd.QueryRankRLS, "global": rd.GlobalRankRLS}[kind]
    args = (Xd, yd, qd) if kind == "query" else (Xd, yd)
    for kernel in ("GaussianKernel", "LinearKernel"):
        with pytest.raises(ValueError, match="n_basis.*basis_vectors"):
            cls(*args, kernel=kernel, client=client)
    with pytest.raises(ValueError, match="basis_vectors or n_basis, not both"):
        cls(*args, basis_vectors=X[:3], n_basis=3, client=client)


# ---------------------------------------------------------------------------------------
# fault tolerance


async def _die():
    os._exit(1)          # the worker process dies at once; its nanny starts a new one


def test_lost_worker_does_not_change_the_result(client):
    X, y, q = _ranking_data(12, n_queries=40)
    Xd, yd, qd = _dask(X, y, q, 4)
    ref = rd.LinearRankSVM(Xd, yd, qd, regparam=0.05, tol=1e-6, client=client)
    killed = []
    import sys

    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # _die for the worker

    def kill_after_two(info):
        if info["iteration"] == 2 and not killed:
            victim = sorted(client.scheduler_info()["workers"])[0]
            client.run(_die, workers=[victim], wait=False)
            killed.append(victim)

    got = rd.LinearRankSVM(Xd, yd, qd, regparam=0.05, tol=1e-6, client=client,
                           callback=kill_after_two)
    assert killed
    assert got.iterations == ref.iterations
    np.testing.assert_allclose(got.predictor.W, ref.predictor.W, rtol=1e-12, atol=1e-14)
    assert got.objective == pytest.approx(ref.objective, rel=1e-13)
    client.wait_for_workers(2, timeout=60)          # the nanny restarted it
    assert killed[0] not in client.scheduler_info()["workers"]


# ---------------------------------------------------------------------------------------
# progress (rlscore._progress): verbose shows the passes and iterations on stderr,
# the records are logged either way, the model does not change


def test_verbose_reports_and_changes_nothing(client, capsys, caplog, monkeypatch):
    import logging
    import sys
    monkeypatch.setitem(sys.modules, "tqdm", None)          # text lines, not a bar
    rng = np.random.default_rng(11)
    X = rng.standard_normal((120, 4))
    Y = X @ rng.standard_normal(4)
    Xd = da.from_array(X, chunks=(30, -1))
    B = _basis(X, 10)
    out = {}
    for verbose in (True, False):
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="rlscore"):
            cg = rd.CGRLS(Xd, Y, regparam=1.0, client=client, verbose=verbose)
            rs = rd.RLS(Xd, Y, regparam=1.0, kernel="GaussianKernel", gamma=0.5,
                        basis_vectors=B, client=client, verbose=verbose)
        captured = capsys.readouterr()
        out[verbose] = (cg, rs, captured, [r.getMessage() for r in caplog.records])
    err = out[True][2].err
    assert "CGRLS (distributed CG): 1 (residual=" in err
    assert "RLS: statistics: 1/4 (partition=1)" in err
    assert "RLS: statistics: 4/4 (partition=4)" in err
    assert out[False][2] == ("", "")
    log = out[False][3]
    assert sum(m.startswith("CGRLS (distributed CG): step") for m in log) == \
        out[False][0].n_iter
    assert sum(m.startswith("RLS: statistics: step") for m in log) == 4
    Xt = rng.standard_normal((10, 4))
    for k in (0, 1):
        np.testing.assert_array_equal(out[True][k].predict(Xt), out[False][k].predict(Xt))


def test_parts_query_measure_uses_the_per_query_functions(client):
    """Partitions of whole queries give the single-machine query-averaged measures; an
    unknown measure name is refused (it used to fall through to MAP)."""
    from rlscore import measure as M
    X, y, q = _ranking_data(9)
    p = X @ np.arange(1.0, X.shape[1] + 1)
    cut = int(np.flatnonzero(np.diff(q))[10]) + 1              # a query boundary
    parts = client.scatter([(y[:cut], p[:cut], q[:cut]), (y[cut:], p[cut:], q[cut:])])
    expected = {"cindex": M.query_cindex(y, p, q),
                "ndcg": M.query_ndcg(y - y.min(), p, q, k=5),
                "map": M.query_mean_average_precision((y > np.median(y)).astype(float),
                                                      p, q)}
    from rlscore.distributed.measure import parts_query_measure
    got = {"cindex": parts_query_measure(parts, "cindex", client=client)}
    y_rel = y - y.min()
    parts_rel = client.scatter([(y_rel[:cut], p[:cut], q[:cut]),
                                (y_rel[cut:], p[cut:], q[cut:])])
    got["ndcg"] = parts_query_measure(parts_rel, "ndcg", k=5, client=client)
    y_bin = (y > np.median(y)).astype(float)
    parts_bin = client.scatter([(y_bin[:cut], p[:cut], q[:cut]),
                                (y_bin[cut:], p[cut:], q[cut:])])
    got["map"] = parts_query_measure(parts_bin, "map", client=client)
    for name in expected:
        assert np.isclose(got[name], expected[name], rtol=1e-12), name
    with pytest.raises(ValueError, match="measure must be one of"):
        parts_query_measure(parts, "mrr", client=client)


def test_ranksvm_squared_hinge_defaults_equal_the_single_machine_as_documented(client):
    """With default settings (tol=1e-3, Newton) on 6000 rows: the distributed model is
    the single machine's with warm_start=None to round-off; the single machine's
    default (a subsample warm start) stops elsewhere within the same stopping test,
    inside the strong-convexity bound that docs/distributed.rst states."""
    rng = np.random.default_rng(7)
    m, d, lam = 6000, 8, 1e-2
    X = rng.standard_normal((m, d))
    y = np.round(X @ rng.standard_normal(d) + rng.standard_normal(m))
    Xd, yd = da.from_array(X, chunks=(1500, -1)), da.from_array(y, chunks=(1500,))
    dist = rd.LinearRankSVM(Xd, yd, regparam=lam, loss="squared_hinge", client=client)
    cold = LinearRankSVM(X, y, regparam=lam, loss="squared_hinge", warm_start=None)
    warm = LinearRankSVM(X, y, regparam=lam, loss="squared_hinge")
    wd, wc, ww = (s.predictor.W.ravel() for s in (dist, cold, warm))
    assert dist.converged and cold.converged and warm.converged
    assert warm.solution.warm_start_iterations > 0 == cold.solution.warm_start_iterations
    np.testing.assert_allclose(wd, wc, rtol=1e-9, atol=1e-12)
    assert dist.iterations == cold.iterations
    g0 = dist.solution.grad_norm0
    assert np.linalg.norm(wd - ww) <= 2 * 1e-3 * g0 / lam
