"""NDCG under the gradient-boosting rankers' conventions (``ndcg@K:lightgbm``,
``ndcg@K:xgboost``, ``ndcg@K:xgboost-``) against LightGBM's and XGBoost's own
evaluation of the same predictions, and against a brute-force loop over queries."""

import importlib
import math

import numpy as np
import pytest

from rlscore.measure import measure_by_name, ndcg, ndcg_per_query


def _library(name):
    """The module, or skip (ImportError, or a missing OpenMP runtime: OSError)."""
    try:
        return importlib.import_module(name)
    except (ImportError, OSError) as exc:
        pytest.skip(f"{name} not usable: {exc}")


def brute_ndcg(y, p, qids, k, empty):
    """Per query: stable sort by decreasing prediction, gain 2**rel - 1, discount
    1/log2(1 + r) over the first min(k, n) ranks, ``empty`` when IDCG = 0."""
    values = []
    for q in dict.fromkeys(qids):
        rows = [i for i in range(len(y)) if qids[i] == q]
        ranked = sorted(rows, key=lambda i: -p[i])           # sorted() is stable
        ideal = sorted((y[i] for i in rows), reverse=True)
        n = len(rows) if k is None else min(k, len(rows))
        dcg = sum((2.0 ** y[ranked[r]] - 1) / math.log2(r + 2) for r in range(n))
        idcg = sum((2.0 ** ideal[r] - 1) / math.log2(r + 2) for r in range(n))
        values.append(dcg / idcg if idcg > 0 else empty)
    return values


def _data(seed, tie_step):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, 12)
    qids = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 5, qids.size).astype(float)
    y[qids == 2] = 0.0                                   # a query without relevant docs
    p = np.round(rng.normal(size=qids.size) / tie_step) * tie_step   # many ties
    X = rng.normal(size=(qids.size, 3))
    return X, y, p, qids, sizes


CASES = [(seed, k, step) for seed in range(3) for k in (1, 3, 10, 30)
         for step in (1e-9, 0.5)]


@pytest.mark.parametrize("seed,k,step", CASES)
def test_brute_force(seed, k, step):
    _, y, p, qids, _ = _data(seed, step)
    for conv, empty in (("lightgbm", 1.0), ("xgboost", 1.0), ("xgboost-", 0.0)):
        ref = brute_ndcg(y.tolist(), p.tolist(), qids.tolist(), k, empty)
        np.testing.assert_allclose(ndcg_per_query(y, p, qids, k, conv), ref,
                                   rtol=1e-12, atol=1e-15)
        assert measure_by_name(f"ndcg@{k}:{conv}")(y, p, qids) == pytest.approx(
            np.mean(ref), rel=1e-12, abs=1e-15)
    ref = brute_ndcg(y.tolist(), p.tolist(), qids.tolist(), None, 1.0)
    assert ndcg(y, p, qids, None, "xgboost") == pytest.approx(np.mean(ref), rel=1e-12)


@pytest.mark.parametrize("seed,k,step", CASES)
def test_lightgbm_own_evaluation(seed, k, step):
    lgb = _library("lightgbm")
    X, y, p, qids, sizes = _data(seed, step)
    train = lgb.Dataset(X, y, group=sizes, params={"verbose": -1})
    valid = lgb.Dataset(X, y, group=sizes, init_score=p, reference=train)
    booster = lgb.Booster({"objective": "lambdarank", "metric": "ndcg", "eval_at": [k],
                           "verbose": -1}, train)
    booster.add_valid(valid, "valid")
    # before any boosting round the validation scores are the init_score: p itself
    (result,) = booster.eval_valid()
    assert result[1] == f"ndcg@{k}"
    assert ndcg(y, p, qids, k, "lightgbm") == pytest.approx(result[2], rel=1e-12,
                                                            abs=1e-15)


@pytest.mark.parametrize("seed,k,step", CASES)
def test_xgboost_own_evaluation(seed, k, step):
    xgb = _library("xgboost")
    X, y, p, qids, sizes = _data(seed, step)
    dm = xgb.DMatrix(X, label=y, base_margin=p)
    dm.set_group(sizes)
    for suffix, conv in (("", "xgboost"), ("-", "xgboost-")):
        metric = f"ndcg@{k}{suffix}"
        booster = xgb.train({"objective": "rank:ndcg", "eval_metric": metric}, dm,
                            num_boost_round=0)          # predictions = base_margin = p
        text = booster.eval(dm, "v")                    # "[0]\tv-ndcg@k:value"
        name, value = text.split("\t")[1].split(":")
        assert name == f"v-{metric}"
        assert ndcg(y, p, qids, k, conv) == pytest.approx(float(value), rel=1e-12,
                                                          abs=1e-15)
