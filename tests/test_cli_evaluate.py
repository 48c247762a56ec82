"""``rlscore evaluate``, the --measure / grid parsers, selection by query (K-fold, lqo,
--valid) checked against refits by hand, 0-based files, --basis and lambda_max."""

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore._groups import QueryGroups
from rlscore.cli import main
from rlscore.cli._options import OptionError, parse_grid, parse_measures, parse_regparam
from rlscore.learner import RLS, GlobalRankRLS, LinearRankSVM, QueryRankRLS
from rlscore.model_io import load_model
from rlscore.utilities.reader import write_svmlight


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ reference (LETOR 4.0)

# the reference of the LETOR 4.0 rules is the ``letor_by_hand`` fixture (tests/conftest.py)


@pytest.fixture
def identity_model(tmp_path, capsys):
    """A linear model predicting w * x1 with w > 0: a test file's feature 1 is its
    ranking score (equal features give exactly equal predictions: ties)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 1))
    write_svmlight(tmp_path / "train.txt", x, x[:, 0])
    model = tmp_path / "m.npz"
    assert _run(["fit", tmp_path / "train.txt", "-o", model, "--regparam", "1e-6"],
                capsys)[0] == 0
    assert load_model(model).W.ravel()[0] > 0
    return model


# query 1: ties between a relevant and an irrelevant document; query 2: 3 documents
# (shorter than k = 5); query 3: no relevant document; query 4: graded, 7 documents
LABELS = [1, 0, 2, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0, 2, 0, 1, 0, 2]
SCORES = [0.5, 0.5, 0.5, 0.1, 0.9, 0.3, 0.2, 0.4, 0.6, 0.1, 0.2, 0.7, 0.3, 0.3, 0.9,
          0.1, 0.5, 0.5]
QIDS = [1] * 4 + [2] * 3 + [3] * 4 + [4] * 7


@pytest.fixture
def letor_file(tmp_path):
    path = tmp_path / "test.txt"
    write_svmlight(path, np.array(SCORES)[:, None], np.array(LABELS, float), QIDS)
    return path


def test_evaluate_equals_letor_reference(identity_model, letor_file, capsys,
                                         letor_by_hand):
    for k in (1, 3, 5, 10):
        code, out, err = _run(["evaluate", identity_model, letor_file, "--measure",
                               f"ndcg@{k},p@{k},map"], capsys)
        assert code == 0, err
        lines = dict(line.split() for line in out.splitlines())
        assert list(lines) == [f"ndcg@{k}", f"p@{k}", "map"]
        nd, pk, ap, _ = letor_by_hand(LABELS, SCORES, QIDS, k)
        assert_allclose(float(lines[f"ndcg@{k}"]), nd, rtol=1e-12, atol=1e-15)
        assert_allclose(float(lines[f"p@{k}"]), pk, rtol=1e-12)
        assert_allclose(float(lines["map"]), ap, rtol=1e-12)


def test_evaluate_hand_computed_values(identity_model, letor_file, capsys):
    code, out, _ = _run(["evaluate", identity_model, letor_file, "--measure",
                         "ndcg@2,map", "--format", "json"], capsys)
    res = json.loads(out)
    # query 1 ranked (stable, three tied): labels 1, 0, 2, 0 -> NDCG@2 = (1 + 0) /
    # (3 + 1), AP = (1/1 + 2/3) / 2; query 2 ranked 0, 1, 2 -> NDCG@2 = (0 + 1) / (3 + 1),
    # AP = (1/2 + 2/3) / 2; query 3: 0 and 0; query 4 ranked 0, 1, 0, 2, 0, 2, 1 (ties
    # in file order) -> NDCG@2 = (0 + 1) / (3 + 3), AP = (1/2 + 2/4 + 3/6 + 4/7) / 4
    ndcg2 = (1 / 4 + 1 / 4 + 0 + 1 / 6) / 4
    ap4 = (1 / 2 + 2 / 4 + 3 / 6 + 4 / 7) / 4
    assert_allclose(res["ndcg@2"], ndcg2, rtol=1e-12)
    assert_allclose(res["map"], ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2 + 0 + ap4) / 4,
                    rtol=1e-12)


def test_evaluate_per_query_and_json(identity_model, letor_file, capsys):
    code, out, _ = _run(["evaluate", identity_model, letor_file, "--measure",
                         "ndcg@3,cindex,ndcg@3:standard", "--per-query", "--format",
                         "json"], capsys)
    assert code == 0
    res = json.loads(out)
    rows = res["per_query"]
    assert [r["qid"] for r in rows] == ["1", "2", "3", "4"]
    assert_allclose(np.mean([r["ndcg@3"] for r in rows]), res["ndcg@3"], rtol=1e-12)
    assert rows[2]["cindex"] is None                    # query 3: no pair
    assert rows[2]["ndcg@3"] == 0.0                     # no relevant document: 0, counted
    from sklearn.metrics import ndcg_score
    y4, s4 = np.array(LABELS[11:], float), np.array(SCORES[11:])
    assert_allclose(rows[3]["ndcg@3:standard"], ndcg_score([y4], [s4], k=3), rtol=1e-12)
    code, out, _ = _run(["evaluate", identity_model, letor_file, "--measure", "map",
                         "--per-query"], capsys)
    lines = out.splitlines()
    assert lines[0] == "qid\tmap" and len(lines) == 1 + 4 + 1 + 1
    assert lines[-1].startswith("map ")


def test_evaluate_errors(identity_model, letor_file, tmp_path, capsys):
    code, _, err = _run(["evaluate", identity_model, letor_file, "--measure", "ndcg@x"],
                        capsys)
    assert code == 2 and "unknown measure" in err
    (tmp_path / "one.txt").write_text("1 1:0.5\n1 1:0.7\n")
    code, _, err = _run(["evaluate", identity_model, tmp_path / "one.txt", "--measure",
                         "auc"], capsys)
    assert code == 1 and "auc is undefined" in err and len(err.splitlines()) == 1


def test_evaluate_letor3_convention_equals_reference(identity_model, letor_file, capsys,
                                                    letor_by_hand):
    """--convention letor3: Eval-Score-3.0.pl's rules (query 2 has 3 documents: its P@5
    and P@10 are 0 there, not 2/5 and 2/10 as in 4.0)."""
    for k in (1, 3, 5, 10):
        code, out, err = _run(["evaluate", identity_model, letor_file, "--measure",
                               f"ndcg@{k},p@{k},map,cindex", "--convention", "letor3",
                               "--format", "json"], capsys)
        assert code == 0, err
        res = json.loads(out)
        nd, pk, ap, _ = letor_by_hand(LABELS, SCORES, QIDS, k, convention="letor3")
        assert_allclose(res[f"ndcg@{k}"], nd, rtol=1e-12, atol=1e-15)
        assert_allclose(res[f"p@{k}"], pk, rtol=1e-12, atol=1e-15)
        assert_allclose(res["map"], ap, rtol=1e-12)
        if k > 3:                                   # query 2 is short
            assert res[f"p@{k}"] < letor_by_hand(LABELS, SCORES, QIDS, k)[1]
    code, out, err = _run(["evaluate", identity_model, letor_file, "--measure",
                           "p@5", "--convention", "letor3", "--per-query", "--format",
                           "json"], capsys)
    assert json.loads(out)["per_query"][1]["p@5"] == 0.0
    code, _, err = _run(["evaluate", identity_model, letor_file, "--measure", "meanndcg",
                         "--convention", "letor3"], capsys)
    assert code == 2 and "LETOR 4.0 measure" in err


def test_evaluate_prediction_file_equals_model(identity_model, letor_file, tmp_path,
                                               capsys):
    """``evaluate DATA --predictions FILE`` scores another program's predictions: the
    same numbers as the model whose predictions they are."""
    measures = "ndcg@1,ndcg@3,ndcg@10,p@1,p@3,p@10,map,cindex"
    code, out, _ = _run(["predict", identity_model, letor_file, "-o", tmp_path / "p.txt"],
                        capsys)
    assert code == 0
    _, by_model, _ = _run(["evaluate", identity_model, letor_file, "--measure", measures,
                           "--format", "json"], capsys)
    code, by_file, err = _run(["evaluate", letor_file, "--predictions", tmp_path / "p.txt",
                               "--measure", measures, "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(by_file) == json.loads(by_model)
    np.savetxt(tmp_path / "raw.txt", SCORES)          # the scores themselves
    _, raw, _ = _run(["evaluate", letor_file, "--predictions", tmp_path / "raw.txt",
                      "--measure", "map", "--format", "json"], capsys)
    assert_allclose(json.loads(raw)["map"], json.loads(by_model)["map"], rtol=1e-12)
    np.savetxt(tmp_path / "short.txt", SCORES[:-1])
    code, _, err = _run(["evaluate", letor_file, "--predictions", tmp_path / "short.txt"],
                        capsys)
    assert code == 1 and "17 rows" in err and "18 rows" in err
    (tmp_path / "bad.txt").write_text("0.5\nx\n" * 9)
    code, _, err = _run(["evaluate", letor_file, "--predictions", tmp_path / "bad.txt"],
                        capsys)
    assert code == 1 and "not a file of numbers" in err
    code, _, err = _run(["evaluate", identity_model, letor_file, "--predictions",
                         tmp_path / "raw.txt"], capsys)
    assert code == 2 and "not both" in err
    code, _, err = _run(["evaluate", identity_model], capsys)
    assert code == 2 and "DATA_FILE" in err


# ------------------------------------------------------------------ parsers

def test_parse_measures():
    names = [s.name for s in parse_measures("ndcg@10,ndcg, NDCG@5:standard,p@5,map,"
                                            "meanndcg,cindex,auc,sqerror")]
    assert names == ["ndcg@10", "ndcg@5:standard", "p@5", "map", "meanndcg", "cindex",
                     "auc", "sqerror"]
    for bad in ("", "ndcg@", "ndcg@0", "p@5:standard", "ndcg@3:trec", "mrr@5",
                "err@3:lightgbm", "p@-1"):
        with pytest.raises(OptionError):
            parse_measures(bad)


def test_parse_grid():
    assert parse_grid("2^-2..2^2") == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert parse_grid("2^-10..2^10:2") == [2.0 ** e for e in range(-10, 11, 2)]
    assert parse_grid("0.2, 2^3,1e-3,10^-1..10^1") == [0.2, 8.0, 1e-3, 0.1, 1.0, 10.0]
    assert parse_regparam("2^-10") == 2.0 ** -10
    assert parse_regparam("0.5") == 0.5
    # 0 is a regparam of every face (docs/robustness.rst: [0, 1e150])
    assert parse_regparam("0") == 0.0 and parse_grid("0,1") == [0.0, 1.0]
    for bad in ("", "a", "2^", "-1", "2^3..2^1", "2^1..3^2", "2^0..2^3:0", "1^0..1^3",
                "2^-1e9..2^1e9", "inf", "nan", "1_0", "\u0661", "1e151",
                "1,1", "0.1,10^-1..10^1", "2^0,1"):
        with pytest.raises(OptionError):
            parse_grid(bad)


def test_regparam_power_accepted(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 3)), rng.normal(size=30)
    write_svmlight(tmp_path / "t.txt", X, y)
    assert _run(["fit", tmp_path / "t.txt", "-o", tmp_path / "m.npz", "--regparam",
                 "2^-3"], capsys)[0] == 0
    assert_allclose(load_model(tmp_path / "m.npz").W.ravel(),
                    RLS(X, y, regparam=0.125).predictor.W.ravel(), rtol=1e-10)


# ------------------------------------------------------------------ selection by query

@pytest.fixture
def query_data(tmp_path):
    rng = np.random.default_rng(4)
    nq, per = 16, 7
    X = rng.normal(size=(nq * per, 4))
    q = np.repeat(np.arange(nq), per)
    y = np.clip(np.round(X @ [0.8, -0.5, 0.3, 0.0] + 0.7 * rng.normal(size=nq * per)),
                0, 2)
    write_svmlight(tmp_path / "q.txt", X, y, q)
    return X, y, q, tmp_path / "q.txt"


def _table(out):
    return np.array([[float(v) for v in line.split()[:2]]
                     for line in out.splitlines()[2:]])


def _by_hand(train_fn, X, y, q, folds, grid, measure):
    """Per regparam: the pooled hold-out predictions of refits without each fold, the
    measure per query over all queries."""
    vals = []
    for lam in grid:
        P = np.empty(len(y))
        for fold in folds:
            rest = np.setdiff1d(np.arange(len(y)), fold)
            P[fold] = train_fn(X[rest], y[rest], q[rest], lam).predict(X[fold])
        vals.append(measure(y, P, q))
    return np.array(vals)


LEARNER_FNS = {
    "query-rankrls": lambda X, y, q, lam: QueryRankRLS(X, y, q, regparam=lam),
    "rankrls": lambda X, y, q, lam: GlobalRankRLS(X, y, regparam=lam),
    "ranksvm": lambda X, y, q, lam: LinearRankSVM(X, y, q, regparam=lam),
}


@pytest.mark.parametrize("learner", list(LEARNER_FNS))
@pytest.mark.parametrize("measure", ["ndcg@5", "map"])
def test_kfold_by_query_equals_refits_by_hand(query_data, capsys, learner, measure):
    from rlscore import measure as M
    X, y, q, path = query_data
    grid = [0.01, 1.0, 100.0]
    code, out, err = _run(["cv", path, "--learner", learner, "--cv", "kfold", "--folds",
                           "4", "--seed", "3", "--regparams", "0.01,1,100", "--measure",
                           measure], capsys)
    assert code == 0, err
    assert "per query" in out
    folds = QueryGroups.from_qids(q).folds(4, 3)
    f = ((lambda y, p, q: M.ndcg(y, p, q, k=5)) if measure == "ndcg@5"
         else M.mean_average_precision)
    expected = _by_hand(LEARNER_FNS[learner], X, y, q, folds, grid, f)
    assert_allclose(_table(out)[:, 1], expected, atol=6e-7)     # printed with %.6f
    # not the measure pooled over queries, which the command reported before
    assert not np.allclose(expected, [M.ndcg(y, y * 0 + np.arange(len(y)), k=5)] * 3)


@pytest.mark.parametrize("learner", ["rankrls", "ranksvm", "query-rankrls"])
def test_lqo_for_every_ranking_learner(query_data, capsys, learner):
    from rlscore import measure as M
    X, y, q, path = query_data
    code, out, err = _run(["cv", path, "--learner", learner, "--cv", "lqo",
                           "--regparams", "0.1,10", "--measure", "ndcg@3"], capsys)
    assert code == 0, err
    folds = QueryGroups.from_qids(q).split()
    expected = _by_hand(LEARNER_FNS[learner], X, y, q, folds, [0.1, 10.0],
                        lambda y, p, q: M.ndcg(y, p, q, k=3))
    assert_allclose(_table(out)[:, 1], expected, atol=6e-7)


def test_valid_file_selects_on_its_per_query_measure(query_data, tmp_path, capsys):
    from rlscore import measure as M
    X, y, q, _ = query_data
    tr, va = q < 10, q >= 10
    write_svmlight(tmp_path / "tr.txt", X[tr], y[tr], q[tr])
    write_svmlight(tmp_path / "va.txt", X[va], y[va], q[va])
    grid = [2.0 ** e for e in range(-4, 5, 2)]
    code, out, err = _run(["fit", tmp_path / "tr.txt", "-o", tmp_path / "m.npz",
                           "--learner", "query-rankrls", "--valid", tmp_path / "va.txt",
                           "--regparams", "2^-4..2^4:2", "--measure", "map"], capsys)
    assert code == 0, err
    vals = [M.mean_average_precision(y[va], QueryRankRLS(X[tr], y[tr], q[tr], regparam=lam)
                                     .predict(X[va]), q[va]) for lam in grid]
    table = np.array([[float(v) for v in line.split()[:2]]
                      for line in out.splitlines()[1:-1]])
    assert_allclose(table[:, 0], grid)
    assert_allclose(table[:, 1], vals, atol=6e-7)
    assert_allclose(load_model(tmp_path / "m.npz", return_metadata=True)[1]["info"]
                    ["cv_performances"], vals, rtol=1e-12)
    best = grid[int(np.argmax(vals))]
    pred, meta = load_model(tmp_path / "m.npz", return_metadata=True)
    assert meta["info"]["regparam"] == best and meta["info"]["cv"] == "valid"
    assert_allclose(pred.predict(X[va]), QueryRankRLS(X[tr], y[tr], q[tr], regparam=best)
                    .predict(X[va]), rtol=1e-9)


@pytest.mark.parametrize("how", [["--cv", "kfold", "--folds", "3"], ["--valid", "T"]])
def test_selection_with_the_measure_undefined_everywhere_says_why(tmp_path, capsys, how):
    # every query has all labels tied: the per-query c-index is undefined at each regparam
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(8), 5)
    write_svmlight(tmp_path / "t.txt", rng.normal(size=(40, 3)), (q % 2).astype(float), q)
    how = [str(tmp_path / "t.txt") if a == "T" else a for a in how]
    code, out, err = _run(["fit", tmp_path / "t.txt", "-o", tmp_path / "m.npz",
                           "--learner", "rankrls", "--regparams", "1,10", "--measure",
                           "cindex", *how], capsys)
    assert code == 1
    assert err.strip() == ("rlscore: error: the measure is undefined at every regparam "
                           "(e.g. no query has two different labels)")
    assert not (tmp_path / "m.npz").exists()


def test_default_cv_is_named_on_stderr(query_data, capsys):
    _, _, _, path = query_data
    code, out, err = _run(["cv", path, "--learner", "query-rankrls", "--regparams",
                           "1,10"], capsys)
    assert code == 0 and "--cv not given: leave-query-out (lqo)" in err


# ------------------------------------------------------------------ lambda_max

def test_zero_model_warns_with_lambda_max(query_data, tmp_path, capsys):
    from rlscore.core.ranksvm import ranksvm_lambda_max
    X, y, q, path = query_data
    lmax = ranksvm_lambda_max(X, y, q)
    code, _, err = _run(["fit", path, "-o", tmp_path / "m.npz", "--learner", "ranksvm",
                         "--regparam", "1e6"], capsys)
    assert code == 0
    assert np.all(load_model(tmp_path / "m.npz").W == 0)
    assert "identically zero" in err and f"lambda_max = {lmax:.6g}" in err
    code, _, err = _run(["fit", path, "-o", tmp_path / "m.npz", "--learner", "ranksvm",
                         "--regparam", "1e-3"], capsys)
    assert code == 0 and err == ""
    # far below lambda_max float64 runs out: never a silent zero model
    code, _, err = _run(["fit", path, "-o", tmp_path / "m.npz", "--learner", "ranksvm",
                         "--regparam", "1e-20"], capsys)
    if code == 0:
        if np.all(load_model(tmp_path / "m.npz").W == 0):
            assert "identically zero" in err and "float64 precision" in err
    else:
        assert code == 1 and "too small" in err and "Traceback" not in err
    # without --regparams the grid goes down from lambda_max
    code, out, err = _run(["cv", path, "--learner", "ranksvm", "--cv", "kfold"], capsys)
    assert code == 0 and f"lambda_max = {lmax:.6g}" in err
    assert_allclose(_table(out)[:, 0], lmax * 2.0 ** -np.arange(21), rtol=1e-5)


def test_lambda_max_is_the_gradient_norm_at_zero():
    from rlscore.core.ranksvm import ranksvm_lambda_max
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(12, 3)), rng.integers(0, 3, 12).astype(float)
    # the mean pairwise hinge at w = 0 has gradient -(1/N) sum_{y_u > y_l} (x_u - x_l)
    pairs = [(u, v) for u in range(12) for v in range(12) if y[u] > y[v]]
    g = -sum(X[u] - X[v] for u, v in pairs) / len(pairs)
    assert_allclose(ranksvm_lambda_max(X, y), np.linalg.norm(g), rtol=1e-12)


# ------------------------------------------------------------------ 0-based files, --basis

def test_zero_based_files_round_trip(tmp_path, capsys):
    datasets = pytest.importorskip("sklearn.datasets")
    rng = np.random.default_rng(6)
    X = np.round(rng.normal(size=(40, 5)), 6)
    y = np.round(X @ [1.0, 0.5, 0.0, -1.0, 2.0], 6)
    datasets.dump_svmlight_file(X[:30], y[:30], str(tmp_path / "tr.txt"))  # 0-based
    Xt = X[30:].copy()
    Xt[:, 0] = 0.0                       # the test file has no index 0: auto would say 1
    datasets.dump_svmlight_file(Xt, y[30:], str(tmp_path / "te.txt"))
    code, _, err = _run(["fit", tmp_path / "tr.txt", "-o", tmp_path / "m.npz",
                         "--regparam", "0.5"], capsys)
    assert code == 0, err
    pred, meta = load_model(tmp_path / "m.npz", return_metadata=True)
    assert meta["info"]["zero_based"] is True
    code, out, _ = _run(["predict", tmp_path / "m.npz", tmp_path / "te.txt"], capsys)
    assert_allclose([float(v) for v in out.split()],
                    RLS(X[:30], y[:30], regparam=0.5).predict(Xt), rtol=1e-9)
    # --zero-based no refuses the 0-based training file, naming line and column
    code, _, err = _run(["fit", tmp_path / "tr.txt", "-o", tmp_path / "m2.npz",
                         "--zero-based", "no"], capsys)
    assert code == 1 and "line 1, column" in err and "feature index 0" in err


def test_basis_trains_nystrom_model(tmp_path, capsys):
    rng = np.random.default_rng(8)
    X, y = rng.normal(size=(60, 3)), rng.normal(size=60)
    write_svmlight(tmp_path / "t.txt", X, y)
    code, _, err = _run(["fit", tmp_path / "t.txt", "-o", tmp_path / "m.npz", "--kernel",
                         "gaussian", "--gamma", "0.3", "--basis", "12", "--basis-seed",
                         "5", "--regparam", "0.1"], capsys)
    assert code == 0, err
    idx = np.sort(np.random.default_rng(5).choice(60, 12, replace=False))
    ref = RLS(X, y, regparam=0.1, kernel="GaussianKernel", gamma=0.3,
              basis_vectors=X[idx])
    assert_allclose(load_model(tmp_path / "m.npz").predict(X), ref.predict(X), rtol=1e-8,
                    atol=1e-10)
