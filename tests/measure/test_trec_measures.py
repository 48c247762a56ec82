"""MAP@k, MRR / RR@k and ERR@k against trec_eval (pytrec_eval), ir-measures
(gdeval's ERR) and brute-force loops over queries."""

import numpy as np
import pytest

from rlscore.measure import (
    average_precision_per_query, expected_reciprocal_rank,
    expected_reciprocal_rank_per_query, mean_average_precision, measure_by_name,
    reciprocal_rank, reciprocal_rank_per_query)


def _queries(y, p, qids):
    for q in dict.fromkeys(qids.tolist()):
        rows = [i for i in range(len(y)) if qids[i] == q]
        ranked = sorted(rows, key=lambda i: -p[i])           # stable: ties in order
        yield q, [float(y[i]) for i in ranked]


def brute_ap(y, p, qids, k=None):
    out = []
    for _, labels in _queries(y, p, qids):
        n_rel = sum(g > 0 for g in labels)
        hits, total = 0, 0.0
        for r, g in enumerate(labels[:k] if k else labels, start=1):
            if g > 0:
                hits += 1
                total += hits / r
        out.append(total / n_rel if n_rel else 0.0)
    return out


def brute_rr(y, p, qids, k=None):
    out = []
    for _, labels in _queries(y, p, qids):
        first = [r for r, g in enumerate(labels, start=1) if g > 0 and (not k or r <= k)]
        out.append(1.0 / first[0] if first else 0.0)
    return out


def brute_err(y, p, qids, k, gmax):
    out = []
    for _, labels in _queries(y, p, qids):
        err, reach = 0.0, 1.0
        for r, g in enumerate(labels[:k] if k else labels, start=1):
            stop = (2.0 ** g - 1) / 2.0 ** gmax
            err += reach * stop / r
            reach *= 1 - stop
        out.append(err)
    return out


def _data(seed, ties=False, max_label=4):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 20, 15)
    qids = np.repeat(np.arange(sizes.size) * 7 + 3, sizes)
    y = rng.integers(0, max_label + 1, qids.size).astype(float)
    y[rng.random(qids.size) < 0.4] = 0.0
    p = rng.normal(size=qids.size)
    if ties:
        p = np.round(p)
    return y, p, qids


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [False, True])
def test_brute_force(seed, ties):
    y, p, qids = _data(seed, ties)
    for k in (None, 1, 3, 10, 40):
        np.testing.assert_allclose(average_precision_per_query(y, p, qids, k=k),
                                   brute_ap(y, p, qids, k), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(reciprocal_rank_per_query(y, p, qids, k),
                                   brute_rr(y, p, qids, k), rtol=1e-12, atol=1e-15)
        for gmax in (None, 4, 6.5):
            ref = brute_err(y, p, qids, k, y.max() if gmax is None else gmax)
            np.testing.assert_allclose(
                expected_reciprocal_rank_per_query(y, p, qids, k, gmax), ref,
                rtol=1e-12, atol=1e-15)
        if k is not None:
            assert measure_by_name(f"map@{k}")(y, p, qids) == pytest.approx(
                np.mean(brute_ap(y, p, qids, k)), rel=1e-12, abs=1e-15)
            assert measure_by_name(f"rr@{k}")(y, p, qids) == pytest.approx(
                np.mean(brute_rr(y, p, qids, k)), rel=1e-12, abs=1e-15)
            assert measure_by_name(f"err@{k}")(y, p, qids) == pytest.approx(
                np.mean(brute_err(y, p, qids, k, y.max())), rel=1e-12, abs=1e-15)
    assert measure_by_name("mrr")(y, p, qids) == pytest.approx(
        np.mean(brute_rr(y, p, qids)), rel=1e-12)
    # the top grade first: ERR@1 = R(2) = (2**2 - 1) / 2**2
    assert expected_reciprocal_rank([2, 0, 1], [3, 2, 1], k=1) == 0.75


def test_bad_max_grade():
    with pytest.raises(ValueError, match="max_grade"):
        expected_reciprocal_rank([3, 0], [1, 0], max_grade=2)
    with pytest.raises(ValueError, match="max_grade"):
        expected_reciprocal_rank([1, 0], [1, 0], max_grade=-1)
    with pytest.raises(ValueError, match="k must"):
        reciprocal_rank([1, 0], [1, 0], k=0)


def _run_and_qrels(y, p, qids):
    qrels, run = {}, {}
    for i, (q, g, s) in enumerate(zip(qids.tolist(), y.tolist(), p.tolist())):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(g)
        run.setdefault(str(q), {})[f"d{i}"] = float(s)
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, p, qids = _data(seed)                 # distinct scores: trec_eval breaks ties
    qrels, run = _run_and_qrels(y, p, qids)  # by docid, rlscore by input order
    cuts = (1, 5, 10)
    names = {"map", "recip_rank"} | {f"map_cut.{k}" for k in cuts}
    res = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    keys = [str(q) for q in dict.fromkeys(qids.tolist())]
    np.testing.assert_allclose(average_precision_per_query(y, p, qids),
                               [res[q]["map"] for q in keys], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(reciprocal_rank_per_query(y, p, qids),
                               [res[q]["recip_rank"] for q in keys], rtol=1e-12,
                               atol=1e-15)
    for k in cuts:
        np.testing.assert_allclose(average_precision_per_query(y, p, qids, k=k),
                                   [res[q][f"map_cut_{k}"] for q in keys], rtol=1e-12,
                                   atol=1e-15)
    assert mean_average_precision(y, p, qids, k=5) == pytest.approx(
        np.mean([res[q]["map_cut_5"] for q in keys]), rel=1e-12)


@pytest.mark.parametrize("seed", range(2))
def test_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    y, p, qids = _data(seed)
    qrels, run = _run_and_qrels(y, p, qids)
    keys = [str(q) for q in dict.fromkeys(qids.tolist())]
    for k in (1, 3, 10):
        rr = {m.query_id: m.value for m in ir_measures.iter_calc(
            [ir_measures.RR @ k], qrels, run)}
        np.testing.assert_allclose(reciprocal_rank_per_query(y, p, qids, k),
                                   [rr.get(q, 0.0) for q in keys], rtol=1e-12,
                                   atol=1e-15)
    import shutil
    if shutil.which("perl") is None:
        pytest.skip("ir-measures' ERR@k runs gdeval.pl, which needs perl")
    for k in (1, 5, 20):
        err = {m.query_id: m.value for m in ir_measures.iter_calc(
            [ir_measures.ERR @ k], qrels, run)}
        mine = expected_reciprocal_rank_per_query(y, p, qids, k, max_grade=4)
        # gdeval.pl prints 5 decimals
        np.testing.assert_allclose(mine, [err[q] for q in keys], rtol=0, atol=6e-6)
