"""Pairs across partitions on a LocalCluster: the global-ranking risk, its
(sub)gradient and Hessian-vector products, the squared-hinge RankSVM with TRON, query
regrouping of dataframes and the distributed measures, each against the single machine
on the gathered data."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import rlscore.distributed as rd  # noqa: E402
import rlscore.distributed.measure as dm  # noqa: E402
from rlscore import measure  # noqa: E402
from rlscore.core.ranksvm import RankingRisk, SquaredRankingRisk  # noqa: F401
from rlscore.learner import LinearRankSVM  # noqa: E402

CHUNKS = {1: lambda m: (m,),
          2: lambda m: (m // 3, m - m // 3),
          5: lambda m: (7, 0, m // 2, 0, m - 7 - m // 2)}      # uneven, two empty


def _tied_data(seed, m=120, d=4):
    """Small-integer features and weights: the predictions are integers, so they tie
    and many pairs sit exactly at margin 1; the utilities have few levels (ties)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (m, d)).astype(np.float64)
    y = rng.integers(0, 4, m).astype(np.float64)
    return X, y, rng


def _rel(a, b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


@pytest.mark.parametrize("n_parts", [1, 2, 5])
@pytest.mark.parametrize("with_qids", [False, True])
def test_global_risk_gradient_hessian_equal_single_machine(client, n_parts, with_qids):
    X, y, rng = _tied_data(n_parts)
    m = len(y)
    q = rng.integers(0, 6, m) if with_qids else None      # queries over all partitions
    Xd = da.from_array(X, chunks=(CHUNKS[n_parts](m), -1))
    data = rd.PartitionedData(Xd, y, q, client=client, persist=True, regroup=False)
    w = rng.integers(-1, 2, X.shape[1]).astype(np.float64)
    v = rng.standard_normal(X.shape[1])
    for normalize in ("pairs", "query", "none"):
        hinge = rd.DistributedRankingRisk(data, normalize, loss="hinge")
        assert hinge.scheme == ("local" if n_parts == 1 else "global")
        single = RankingRisk(X, y, q, normalize=normalize)
        assert hinge.n_pairs == single.n_pairs and hinge.scale == single.scale
        (r, g), (rs, gs) = hinge(w), single(w)
        assert _rel(r, rs) <= 1e-10 and _rel(g, gs) <= 1e-10
        sq = rd.DistributedRankingRisk(data, normalize, loss="squared_hinge")
        ssq = SquaredRankingRisk(X, y, q, normalize=normalize)
        (r, g), (rs, gs) = sq(w), ssq(w)
        assert _rel(r, rs) <= 1e-10 and _rel(g, gs) <= 1e-10
        do, so = sq.newton_oracle(0.3), ssq.newton_oracle(0.3)
        (f, pt), (fs, pts) = do.evaluate(w), so.evaluate(w)
        assert _rel(f, fs) <= 1e-10
        assert _rel(do.gradient(pt), so.gradient(pts)) <= 1e-10
        assert _rel(do.hessian_vector(pt, v)[0], so.hessian_vector(pts, v)[0]) <= 1e-10


def test_local_newton_oracle_equals_single_machine(client):
    """Whole queries per partition: the per-partition oracle (active sets kept on the
    workers) gives the single machine's gradient and Hessian-vector products."""
    X, y, rng = _tied_data(7, m=150)
    q = np.repeat(np.arange(10), 15)
    Xd = da.from_array(X, chunks=(rd.query_chunks(q, 3), -1))
    data = rd.PartitionedData(Xd, y, q, client=client, persist=True)
    risk = rd.DistributedRankingRisk(data, "query", loss="squared_hinge")
    assert risk.scheme == "local"
    single = SquaredRankingRisk(X, y, q, normalize="query")
    w, v = rng.standard_normal(4) * 0.3, rng.standard_normal(4)
    do, so = risk.newton_oracle(0.1), single.newton_oracle(0.1)
    (f, pt), (fs, pts) = do.evaluate(w), so.evaluate(w)
    assert _rel(f, fs) <= 1e-10
    assert _rel(do.gradient(pt), so.gradient(pts)) <= 1e-10
    for _ in range(2):                      # the active sets stay usable on the workers
        assert _rel(do.hessian_vector(pt, v)[0], so.hessian_vector(pts, v)[0]) <= 1e-10


def _scored(seed, m=400, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = np.round(X @ rng.standard_normal(d) + rng.standard_normal(m))
    return X, y


@pytest.mark.parametrize("n_parts", [2, 5])
def test_global_models_equal_single_machine(client, n_parts):
    X, y = _scored(n_parts)
    Xd = da.from_array(X, chunks=(CHUNKS[n_parts](len(y)), -1))
    data = rd.PartitionedData(Xd, y, client=client, persist=True)
    for loss in ("hinge", "squared_hinge"):
        dist = rd.LinearRankSVM(data, regparam=0.05, tol=1e-8, loss=loss)
        single = LinearRankSVM(X, y, regparam=0.05, tol=1e-8, loss=loss)
        assert dist.scheme == "global" and dist.converged
        assert dist.iterations == single.iterations
        # the same iterates: objective per iteration and the final weights
        np.testing.assert_allclose([h["objective"] for h in dist.history],
                                   [h["objective"] for h in single.solution.history],
                                   rtol=1e-10)
        np.testing.assert_allclose(dist.predictor.W, single.predictor.W, rtol=1e-8,
                                   atol=1e-11)


def test_query_newton_model_equals_single_machine(client):
    X, y = _scored(11, m=360)
    q = np.repeat(np.arange(30), 12)
    Xd = da.from_array(X, chunks=(rd.query_chunks(q, 4), -1))
    dist = rd.LinearRankSVM(Xd, y, q, regparam=0.01, tol=1e-8, loss="squared_hinge",
                            normalize="query", client=client, persist=True)
    single = LinearRankSVM(X, y, qids=q, regparam=0.01, tol=1e-8, normalize="query",
                           loss="squared_hinge")
    assert dist.scheme == "local" and dist.solution.solver == "newton"
    assert dist.iterations == single.iterations
    assert dist.solution.cg_iterations == single.solution.cg_iterations
    np.testing.assert_allclose(dist.predictor.W, single.predictor.W, rtol=1e-9,
                               atol=1e-12)


def test_dataframe_spread_queries_regrouped(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _scored(12, m=300)
    q = np.repeat(np.arange(25) * 3 + 1, 12)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["y"], frame["qid"] = y, q
    perm = np.random.default_rng(0).permutation(len(y))
    spread = dd.from_pandas(frame.iloc[perm].reset_index(drop=True), npartitions=4)
    ordered = dd.from_pandas(frame, npartitions=1)
    kw = dict(regparam=0.02, tol=1e-9, loss="squared_hinge")
    ref = rd.LinearRankSVM(rd.PartitionedData.from_dataframe(
        ordered, label="y", qid="qid", client=client, persist=True), **kw)
    with pytest.warns(rd.RegroupWarning, match="query .* is split over partitions"):
        data = rd.PartitionedData.from_dataframe(spread, label="y", qid="qid",
                                                 client=client, persist=True)
    assert data.n_partitions == 4
    got = rd.LinearRankSVM(data, **kw)
    assert got.scheme == "local"
    np.testing.assert_allclose(got.predictor.W, ref.predictor.W, rtol=1e-9, atol=1e-12)
    single = LinearRankSVM(X, y, qids=q, **kw)
    np.testing.assert_allclose(got.predictor.W, single.predictor.W, rtol=1e-9,
                               atol=1e-12)


# ---------------------------------------------------------------------------------------
# measures


@pytest.mark.parametrize("n_parts", [1, 2, 5])
def test_cindex_auc_equal_gathered(client, n_parts):
    rng = np.random.default_rng(20 + n_parts)
    m = 700
    chunks = (CHUNKS[n_parts](m),)
    cases = [(rng.integers(0, 4, m).astype(float), rng.integers(0, 9, m).astype(float)),
             (rng.standard_normal(m), rng.integers(0, 5, m).astype(float)),
             (rng.standard_normal(m).round(1), rng.standard_normal(m))]
    for y, p in cases:                       # label ties, prediction ties, both, none
        got = dm.cindex(da.from_array(y, chunks=chunks), da.from_array(p, chunks=chunks),
                        client=client)
        assert got == pytest.approx(measure.cindex(y, p), rel=1e-14, abs=0)
        yb = np.where(y > np.median(y), 1.0, -1.0)
        got = dm.auc(da.from_array(yb, chunks=chunks), p, client=client)
        assert got == pytest.approx(measure.auc(yb, p), rel=1e-14, abs=0)
    with pytest.raises(measure.UndefinedPerformance, match="no pairs"):
        dm.cindex(da.from_array(np.ones(m), chunks=chunks), np.arange(m.__float__()),
                  client=client)
    with pytest.raises(measure.UndefinedPerformance, match="-1 and \\+1"):
        dm.auc(da.from_array(np.arange(m) % 2, chunks=chunks), np.zeros(m), client=client)


def test_query_measures_equal_gathered(client):
    rng = np.random.default_rng(30)
    m = 600
    q = np.sort(rng.integers(0, 40, m))
    y = rng.integers(0, 3, m).astype(float)
    p = rng.integers(0, 6, m).astype(float)
    ch = (rd.query_chunks(q, 3),)
    Y, P, Q = (da.from_array(a, chunks=ch) for a in (y, p, q))
    assert dm.query_cindex(Y, P, Q, client=client) == pytest.approx(
        measure.query_cindex(y, p, q), rel=1e-13)
    assert dm.query_ndcg(Y, P, Q, k=3, client=client) == pytest.approx(
        measure.query_ndcg(y, p, q, k=3), rel=1e-13)
    assert dm.query_mean_average_precision(Y, P, Q, client=client) == pytest.approx(
        measure.query_mean_average_precision(y, p, q), rel=1e-13)
    perm = rng.permutation(m)                # queries spread over the partitions
    with pytest.warns(rd.RegroupWarning):
        got = dm.query_cindex(da.from_array(y[perm], chunks=(200,)), p[perm], q[perm],
                              client=client)
    assert got == pytest.approx(measure.query_cindex(y, p, q), rel=1e-13)


def test_bad_input_of_the_new_arguments(client):
    X, y = _scored(40, m=60)
    Xd = da.from_array(X, chunks=(30, -1))
    with pytest.raises(ValueError, match="loss must be one of"):
        rd.LinearRankSVM(Xd, y, loss="log", client=client)
    with pytest.raises(ValueError, match="no Hessian"):
        rd.LinearRankSVM(Xd, y, solver="newton", client=client)
    with pytest.raises(ValueError, match="no pairs"):
        rd.LinearRankSVM(Xd, np.ones(60), loss="squared_hinge", client=client)
    Y = da.from_array(y, chunks=(30,))
    with pytest.raises(measure.UndefinedPerformance, match="different lengths"):
        dm.cindex(Y, np.zeros(59), client=client)
    bad = np.zeros(60)
    bad[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dm.cindex(Y, bad, client=client)
    with pytest.raises(ValueError, match="qids is required"):
        dm.query_ndcg(Y, np.zeros(60), None, client=client)
