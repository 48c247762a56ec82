"""The command's learning-to-rank options: ``fit --query-norm`` (recorded in the model
file, applied by predict / evaluate with each file's own queries) and ``predict
--format trec`` (a TREC run with the LETOR files' docids), checked against the library
on normalized data and against run-file scoring by brute force and trec_eval."""

import gzip
import math

import numpy as np
import pytest

from rlscore._groups import QueryGroups
from rlscore.learner import RLS, QueryRankRLS
from rlscore.model_io import load_model
from rlscore.utilities.reader import read_docids, read_svmlight


def _letor_file(path, X, y, qids, docids=None):
    """A LETOR 4.0 style file: 'label qid:Q 1:v ... #docid = D inc = 1'."""
    with open(path, "w") as fh:
        for i in range(len(y)):
            feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(X[i]))
            tail = "" if docids is None else f" #docid = {docids[i]} inc = 1 prob = 0.5"
            fh.write(f"{int(y[i])} qid:{qids[i]} {feats}{tail}\n")


def _data(seed, n_queries, offset=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 12, n_queries)
    qids = np.repeat(np.arange(n_queries) + offset, sizes)
    X = rng.normal(size=(qids.size, 5)) * rng.uniform(0.5, 5, 5) + qids[:, None] * 0.7
    X[rng.random(X.shape) < 0.2] = 0.0
    y = rng.integers(0, 3, qids.size).astype(float)
    return X, y, qids


@pytest.fixture
def files(tmp_path):
    Xtr, ytr, qtr = _data(0, 8)
    Xte, yte, qte = _data(1, 5, offset=100)
    Xtr[:, 4] = np.where(np.arange(ytr.size) % 3 == 0, 2.5, 0.0)   # sparse column
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    _letor_file(train, Xtr, ytr, qtr, [f"GX{i:03d}-A" for i in range(ytr.size)])
    _letor_file(test, Xte, yte, qte, [f"GX{i:03d}-B" for i in range(yte.size)])
    return (Xtr, ytr, qtr, train), (Xte, yte, qte, test)


def _preds(text):
    return np.array([float(v) for v in text.split()])


@pytest.mark.parametrize("method", ["linear", "zscore", "sum"])
@pytest.mark.parametrize("learner", ["query-rankrls", "rls-gaussian"])
def test_query_norm_equals_learner_on_normalized_data(files, tmp_path, run_cli, method,
                                                      learner):
    (Xtr, ytr, qtr, train), (Xte, yte, qte, test) = files
    model = tmp_path / "m.npz"
    Ntr = QueryGroups.from_qids(qtr).normalize(Xtr, method)
    Nte = QueryGroups.from_qids(qte).normalize(Xte, method)
    if learner == "query-rankrls":
        argv = ["--learner", "query-rankrls"]
        ref = QueryRankRLS(Ntr, ytr, qtr, regparam=0.5).predict(Nte)
    else:
        argv = ["--kernel", "gaussian", "--gamma", "0.3"]
        ref = RLS(Ntr, ytr, regparam=0.5, kernel="GaussianKernel",
                  gamma=0.3).predict(Nte)
    code, _, err = run_cli(["fit", train, "-o", model, "--regparam", "0.5",
                            "--query-norm", method, *argv])
    assert code == 0, err
    assert load_model(model, return_metadata=True)[1]["info"]["query_norm"] == method
    code, out, _ = run_cli(["predict", model, test])
    assert code == 0
    np.testing.assert_allclose(_preds(out), ref, rtol=1e-12, atol=1e-12)
    # evaluate scores the same normalized predictions
    code, out, _ = run_cli(["evaluate", model, test, "--measure", "map,ndcg@5:lightgbm"])
    from rlscore.measure import mean_average_precision, ndcg
    values = dict(line.split() for line in out.splitlines())
    assert float(values["map"]) == pytest.approx(mean_average_precision(yte, ref, qte),
                                                 rel=1e-12)
    assert float(values["ndcg@5:lightgbm"]) == pytest.approx(
        ndcg(yte, ref, qte, 5, "lightgbm"), rel=1e-12)
    # and without the option the model differs (the test can fail)
    code, _, _ = run_cli(["fit", train, "-o", tmp_path / "raw.npz", "--regparam", "0.5",
                          *argv])
    code, out, _ = run_cli(["predict", tmp_path / "raw.npz", test])
    assert not np.allclose(_preds(out), ref)


def test_query_norm_selection_on_valid_file(files, tmp_path, run_cli):
    (Xtr, ytr, qtr, train), (Xte, yte, qte, test) = files
    grid = [0.01, 1.0, 100.0]
    code, out, err = run_cli(["cv", train, "--learner", "query-rankrls", "--query-norm",
                              "zscore", "--valid", test, "--regparams", "0.01,1,100",
                              "--measure", "map", "--format", "json"])
    assert code == 0, err
    import json
    res = json.loads(out)
    from rlscore.measure import mean_average_precision
    Ntr = QueryGroups.from_qids(qtr).normalize(Xtr, "zscore")
    Nte = QueryGroups.from_qids(qte).normalize(Xte, "zscore")
    ref = [mean_average_precision(yte, QueryRankRLS(Ntr, ytr, qtr, regparam=r).predict(Nte),
                                  qte) for r in grid]
    np.testing.assert_allclose(res["cv_performances"], ref, rtol=1e-12)


def test_query_norm_refusals(files, tmp_path, run_cli):
    (_, _, _, train), _ = files
    code, _, err = run_cli(["fit", train, "-o", tmp_path / "m.npz", "--query-norm",
                            "linear", "--stream", "--basis", "5"])
    assert code == 2 and "--query-norm" in err and "--stream" in err
    plain = tmp_path / "noqid.txt"
    plain.write_text("1 1:0.5 2:1\n0 1:0.25 2:3\n")
    code, _, err = run_cli(["fit", plain, "-o", tmp_path / "m.npz", "--query-norm",
                            "linear"])
    assert code != 0 and "qid" in err and "Traceback" not in err


def _parse_run(text):
    run = []
    for line in text.splitlines():
        q, q0, doc, rank, score, tag = line.split()
        assert q0 == "Q0"
        run.append((q, doc, int(rank), float(score), tag))
    return run


def _brute_from_run(run, qrels, k):
    """MAP and NDCG@k (gain 2**rel - 1, 1/log2(1 + r), IDCG = 0 scores 1) of a run,
    in the run's rank order."""
    aps, ndcgs = [], []
    for q in dict.fromkeys(r[0] for r in run):
        docs = sorted((r for r in run if r[0] == q), key=lambda r: r[2])
        labels = [qrels[q][r[1]] for r in docs]
        n_rel = sum(g > 0 for g in labels)
        hits, ap = 0, 0.0
        for r, g in enumerate(labels, start=1):
            if g > 0:
                hits += 1
                ap += hits / r
        aps.append(ap / n_rel if n_rel else 0.0)
        ideal = sorted(labels, reverse=True)
        dcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(labels[:k]))
        idcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
        ndcgs.append(dcg / idcg if idcg > 0 else 1.0)
    return np.mean(aps), np.mean(ndcgs)


def test_trec_run_round_trip(files, tmp_path, run_cli):
    (Xtr, ytr, qtr, train), (Xte, yte, qte, test) = files
    model = tmp_path / "m.npz"
    assert run_cli(["fit", train, "-o", model, "--learner", "query-rankrls",
                    "--regparam", "1"])[0] == 0
    code, out, _ = run_cli(["predict", model, test, "--format", "trec", "--run-tag",
                            "myrun"])
    assert code == 0
    run = _parse_run(out)
    assert len(run) == yte.size and {r[4] for r in run} == {"myrun"}
    docids = [f"GX{i:03d}-B" for i in range(yte.size)]
    assert sorted(r[1] for r in run) == sorted(docids)
    # the scores are predict's, ranks 1.. by decreasing score within each query
    scores = _preds(run_cli(["predict", model, test])[1])
    by_doc = dict(zip(docids, scores))
    for q in set(r[0] for r in run):
        rows = [r for r in run if r[0] == q]
        assert [r[2] for r in rows] == list(range(1, len(rows) + 1))
        assert all(a[3] >= b[3] for a, b in zip(rows, rows[1:]))
        assert all(by_doc[r[1]] == r[3] for r in rows)
    qrels = {}
    for d, q, g in zip(docids, qte, yte):
        qrels.setdefault(str(q), {})[d] = int(g)
    ap, nd = _brute_from_run(run, qrels, 5)
    code, out, _ = run_cli(["evaluate", model, test, "--measure", "map,ndcg@5:lightgbm"])
    values = dict(line.split() for line in out.splitlines())
    assert float(values["map"]) == pytest.approx(ap, rel=1e-12)
    assert float(values["ndcg@5:lightgbm"]) == pytest.approx(nd, rel=1e-12)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    trec_run = {}
    for q, d, _, s, _ in run:
        trec_run.setdefault(q, {})[d] = s
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(trec_run)
    assert np.mean([v["map"] for v in res.values()]) == pytest.approx(ap, rel=1e-12)


def test_trec_ties_in_file_order_and_row_numbers(tmp_path, run_cli):
    # rows 0 and 2 (and 1, 3) of query 7 are equal: tied scores, kept in file order
    X = np.array([[1.0, 2.0], [0.5, 0.1], [1.0, 2.0], [0.5, 0.1], [3.0, 1.0]])
    y = np.array([1.0, 0.0, 2.0, 1.0, 0.0])
    q = [7, 7, 7, 7, 9]
    train, nodoc = tmp_path / "t.txt", tmp_path / "n.txt"
    _letor_file(train, X, y, q, ["a", "b", "c", "d", "e"])
    _letor_file(nodoc, X, y, q)
    model = tmp_path / "m.npz"
    assert run_cli(["fit", train, "-o", model, "--regparam", "1"])[0] == 0
    P = _preds(run_cli(["predict", model, train])[1])
    assert P[0] == P[2] and P[1] == P[3] and P[0] != P[1]
    expected = ["a", "c", "b", "d"] if P[0] > P[1] else ["b", "d", "a", "c"]
    run = _parse_run(run_cli(["predict", model, train, "--format", "trec"])[1])
    assert [r[1] for r in run[:4]] == expected
    assert [r[2] for r in run] == [1, 2, 3, 4, 1]
    code, out, err = run_cli(["predict", model, nodoc, "--format", "trec"])
    assert code == 0 and "row number" in err
    assert sorted(r[1] for r in _parse_run(out)) == ["1", "2", "3", "4", "5"]


def test_read_docids(tmp_path):
    p = tmp_path / "d.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("\ufeff# a header comment, not a row\n\n"
                 "2 qid:1 1:0.5 #docid = GX-1 inc = 1\n"
                 "   # docid = not-a-row\n"
                 "0 qid:1 1:0.25 #docid=GX-2\n")
    assert read_docids(p) == ["GX-1", "GX-2"]
    assert read_svmlight(p)[0].shape[0] == 2
    q = tmp_path / "none.txt"
    q.write_text("1 qid:1 1:1\n0 qid:1 1:2 # a comment\n")
    assert read_docids(q) is None
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("1 qid:1 1:1 #docid = A\n0 qid:1 1:2\n")
    with pytest.raises(ValueError, match="line 2"):
        read_docids(mixed)
    long = tmp_path / "long.txt"
    long.write_text("1 qid:1 1:1 #docid = " + "x" * 300 + "\n")
    with pytest.raises(ValueError, match="printable ASCII"):
        read_docids(long)
    odd = tmp_path / "odd.txt"
    odd.write_bytes("1 qid:1 1:1 #docid = caf\u00e9\n".encode())
    with pytest.raises(ValueError, match="line 1"):
        read_docids(odd)


def test_trec_bad_docids_is_a_clean_error(tmp_path, run_cli):
    X = np.array([[1.0], [2.0]])
    train = tmp_path / "t.txt"
    _letor_file(train, X, [1, 0], [1, 1], ["a", "b"])
    model = tmp_path / "m.npz"
    assert run_cli(["fit", train, "-o", model])[0] == 0
    bad = tmp_path / "b.txt"
    bad.write_text("1 qid:1 1:1 #docid = a\n0 qid:1 1:2\n")
    code, _, err = run_cli(["predict", model, bad, "--format", "trec"])
    assert code != 0 and "line 2" in err and "Traceback" not in err
