"""Tests for rlscore.datasets: the shipped heart data, the LETOR loader and generators."""

import io
from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import rlscore.datasets as datasets
from rlscore.datasets import (
    load_heart, load_letor, make_classification, make_irrelevant_pairs_example,
    make_ranking_queries, make_regression,
)
from rlscore.utilities.reader import write_svmlight

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


# ------------------------------------------------------------------------------- heart

def test_heart_file_is_a_package_resource():
    res = resources.files("rlscore.datasets").joinpath("data", "heart_scale.txt")
    assert res.is_file()
    text = res.read_text(encoding="utf-8")
    assert text.startswith("+1 1:0.708333 2:1 3:1 4:-0.320755")
    assert len(text.splitlines()) == 270
    readme = resources.files("rlscore.datasets").joinpath("data", "README.md")
    assert "LIBLINEAR" in readme.read_text(encoding="utf-8")


def test_load_heart():
    X, y = load_heart()
    assert isinstance(X, np.ndarray) and X.dtype == np.float64 and X.shape == (270, 13)
    assert isinstance(y, np.ndarray) and y.shape == (270,)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert (y == 1).sum() == 120 and (y == -1).sum() == 150
    assert X.min() >= -1 and X.max() <= 1
    # first example of the file
    assert_allclose(X[0], [0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1,
                           -0.225806, 0, 1, -1])
    assert y[0] == 1
    # fresh arrays on each call
    X2, y2 = load_heart()
    X2[0, 0] = 99
    assert load_heart()[0][0, 0] != 99


# ------------------------------------------------------------------------------- GBSG2

def test_gbsg2_file_is_a_package_resource():
    res = resources.files("rlscore.datasets").joinpath("data", "gbsg2.csv")
    assert res.is_file()
    lines = res.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "horTh,age,menostat,tsize,tgrade,pnodes,progrec,estrec,time,cens"
    assert len(lines) == 687
    readme = resources.files("rlscore.datasets").joinpath("data", "README.md")
    text = readme.read_text(encoding="utf-8")
    assert "gbsg2.csv" in text and "Cameron Davidson-Pilon" in text


def test_load_gbsg2_against_an_independent_parse():
    columns, time, event = datasets.load_gbsg2()
    assert list(columns) == list(datasets.loaders.GBSG2_COLUMNS)
    res = resources.files("rlscore.datasets").joinpath("data", "gbsg2.csv")
    with res.open("r", encoding="utf-8") as fh:
        ref = np.genfromtxt(fh, delimiter=",", names=True, dtype=None, encoding="utf-8")
    for name, col in columns.items():
        assert col.shape == (686,)
        if name in ("horTh", "menostat", "tgrade"):
            assert_array_equal(col, ref[name].astype(str))
        else:
            assert col.dtype == np.float64
            assert_array_equal(col, ref[name].astype(float))
    assert time.dtype == np.float64 and event.dtype == bool
    assert_array_equal(time, ref["time"].astype(float))
    assert_array_equal(event, ref["cens"] == 1)
    assert event.sum() == 299            # the documented number of events
    assert set(columns["tgrade"]) == {"I", "II", "III"}


def test_load_gbsg2_is_lifelines_data():
    lifelines_datasets = pytest.importorskip("lifelines.datasets")
    df = lifelines_datasets.load_gbsg2()
    columns, time, event = datasets.load_gbsg2()
    assert_array_equal(time, df["time"].to_numpy(dtype=float))
    assert_array_equal(event, df["cens"].to_numpy() == 1)
    assert_array_equal(columns["age"], df["age"].to_numpy(dtype=float))
    assert_array_equal(columns["tgrade"], df["tgrade"].astype(str).to_numpy())


# ------------------------------------------------------------------------------- LETOR

def _letor_text():
    return ("2 qid:10002 1:0.5 2:0 3:1 #docid = GX008 inc = 1 prob = 0.08\n"
            "0 qid:10002 1:0.25 2:1 3:0 #docid = GX009 inc = 1 prob = 0.01\n"
            "1 qid:10032 1:0 2:0.5 3:0.75 #docid = GX010 inc = 0 prob = 0.2\n")


def test_load_letor(tmp_path):
    path = tmp_path / "S1.txt"
    path.write_text(_letor_text())
    X, y, qids = load_letor(path)
    assert isinstance(X, np.ndarray) and X.shape == (3, 3)
    assert_array_equal(X, [[0.5, 0, 1], [0.25, 1, 0], [0, 0.5, 0.75]])
    assert y.shape == (3,) and y.dtype == np.float64
    assert_array_equal(y, [2, 0, 1])
    assert isinstance(qids, np.ndarray) and qids.shape == (3,)
    assert qids.tolist() == ["10002", "10002", "10032"]


def test_load_letor_fdim_and_sparse(tmp_path):
    path = tmp_path / "fold.txt"
    path.write_text(_letor_text())
    X, y, qids = load_letor(str(path), fdim=5, dense=False)
    assert sp.issparse(X) and X.shape == (3, 5)


def test_load_letor_round_trip(tmp_path):
    X, y, qids = make_ranking_queries(5, 4, 6, random_state=0)
    path = tmp_path / "synthetic_letor.txt"
    write_svmlight(path, X, y, qids)
    X2, y2, q2 = load_letor(path, fdim=6)
    assert_array_equal(X2, X)
    assert_array_equal(y2, y)
    assert_array_equal(q2.astype(int), qids)


def test_load_letor_requires_qids_and_one_label():
    with pytest.raises(ValueError, match="qid"):
        load_letor(io.StringIO("1 1:1\n0 1:2\n"))
    with pytest.raises(ValueError, match="label"):
        load_letor(io.StringIO("1|2 qid:1 1:1\n0|1 qid:1 1:2\n"))


# ---------------------------------------------------------------------------- generators

def test_make_regression():
    X, y = make_regression(50, 4, noise=0.0, random_state=1)
    assert X.shape == (50, 4) and y.shape == (50,)
    X, y, w = make_regression(50, 4, noise=0.0, random_state=1, return_coef=True)
    assert_allclose(y, X @ w)
    X2, y2 = make_regression(50, 4, noise=0.0, random_state=1)
    assert_array_equal(X, X2)
    X3, y3 = make_regression(50, 4, noise=1.0, random_state=1)
    assert not np.allclose(y3, y)
    X4, _ = make_regression(50, 4, random_state=2)
    assert not np.allclose(X4, X)


def test_make_regression_accepts_generators():
    a = make_regression(10, 2, random_state=np.random.default_rng(5))
    b = make_regression(10, 2, random_state=np.random.default_rng(5))
    assert_array_equal(a[0], b[0])
    c = make_regression(10, 2, random_state=np.random.RandomState(5))
    d = make_regression(10, 2, random_state=np.random.RandomState(5))
    assert_array_equal(c[1], d[1])


@pytest.mark.parametrize("kwargs, exc", [
    (dict(m=0), ValueError), (dict(d=0), ValueError), (dict(noise=-1.0), ValueError),
    (dict(m=2.5), TypeError), (dict(noise=float("nan")), ValueError),
])
def test_make_regression_invalid(kwargs, exc):
    with pytest.raises(exc):
        make_regression(**kwargs)


def test_make_classification():
    X, y = make_classification(200, 5, random_state=0)
    assert X.shape == (200, 5) and y.shape == (200,)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert (y == 1).sum() == 100
    X2, y2 = make_classification(200, 5, random_state=0)
    assert_array_equal(X, X2)
    assert_array_equal(y, y2)
    # imbalanced: exact positive count
    _, y = make_classification(500, 10, positive_fraction=0.01, random_state=3)
    assert (y == 1).sum() == 5
    # a large separation is (nearly) linearly separable along the class-mean direction
    X, y = make_classification(400, 3, separation=8.0, random_state=4)
    mu = X[y == 1].mean(axis=0) - X[y == -1].mean(axis=0)
    s = (X - X.mean(axis=0)) @ mu
    assert np.mean(np.sign(s) == y) > 0.99


def test_make_classification_flip():
    _, y0 = make_classification(1000, 2, random_state=9)
    _, y1 = make_classification(1000, 2, flip=0.2, random_state=9)
    frac = np.mean(y0 != y1)
    assert 0.15 < frac < 0.25
    with pytest.raises(ValueError):
        make_classification(10, 2, flip=1.5)
    with pytest.raises(ValueError):
        make_classification(10, 2, positive_fraction=1.2)


def test_make_ranking_queries():
    X, y, qids = make_ranking_queries(20, 10, 4, random_state=0)
    assert X.shape == (200, 4) and y.shape == (200,) and qids.shape == (200,)
    assert_array_equal(qids, np.repeat(np.arange(20), 10))
    assert set(np.unique(y)) == {0.0, 1.0, 2.0}
    counts = np.bincount(y.astype(int))
    assert counts.min() > 40  # roughly balanced grades
    # graded within queries: most queries hold more than one grade
    n_graded = sum(len(np.unique(y[qids == q])) > 1 for q in range(20))
    assert n_graded >= 18
    X2, y2, q2 = make_ranking_queries(20, 10, 4, random_state=0)
    assert_array_equal(X, X2)
    assert_array_equal(y, y2)
    X3, _, _ = make_ranking_queries(20, 10, 4, random_state=1)
    assert not np.allclose(X, X3)


def test_make_ranking_queries_variable_sizes_and_levels():
    X, y, qids = make_ranking_queries(3, [2, 5, 1], 2, random_state=0, n_levels=2)
    assert X.shape == (8, 2)
    assert_array_equal(qids, [0, 0, 1, 1, 1, 1, 1, 2])
    assert set(np.unique(y)) <= {0.0, 1.0}
    with pytest.raises(ValueError):
        make_ranking_queries(3, [2, 5], 2)
    with pytest.raises(ValueError):
        make_ranking_queries(3, 0, 2)


def test_make_ranking_queries_signal_is_within_query():
    # with no noise, the grades order items within each query like the hidden utility,
    # so a within-query least-squares fit of grade differences recovers a useful w
    X, y, qids = make_ranking_queries(50, 8, 3, random_state=2, noise=0.0)
    Xc = X - np.array([X[qids == q].mean(axis=0) for q in qids])
    yc = y - np.array([y[qids == q].mean() for q in qids])
    w = np.linalg.lstsq(Xc, yc, rcond=None)[0]
    p = X @ w
    agree = total = 0
    for q in range(50):
        idx = np.flatnonzero(qids == q)
        for i in idx:
            for j in idx:
                if y[i] > y[j]:
                    total += 1
                    agree += p[i] > p[j]
    assert agree / total > 0.9


def test_make_irrelevant_pairs_example():
    X, y, qids = make_irrelevant_pairs_example()
    assert X.shape == (4, 1) and y.shape == (4,) and qids.shape == (4,)
    assert_array_equal(y, [2, 1, 4, 3])
    assert_array_equal(qids, [0, 0, 1, 1])
    x = X[:, 0]

    def pairwise_slope(pairs):
        # least-squares linear fit of score differences on input differences
        dx = np.array([x[i] - x[j] for i, j in pairs])
        ds = np.array([y[i] - y[j] for i, j in pairs])
        return dx @ ds / (dx @ dx)

    relevant = [(0, 1), (2, 3)]
    all_pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    w_rel = pairwise_slope(relevant)
    w_all = pairwise_slope(all_pairs)
    assert w_rel < 0
    assert w_all > 0
    assert_allclose(w_all, 76 / 404)

    def relevant_correct(w):
        return sum((w * x[i] > w * x[j]) == (y[i] > y[j]) for i, j in relevant)

    assert relevant_correct(w_rel) == 2
    assert relevant_correct(w_all) == 0


def test_public_names():
    assert set(datasets.__all__) == {
        "load_heart", "load_gbsg2", "load_letor", "make_regression", "make_classification",
        "make_ranking_queries", "make_irrelevant_pairs_example", "make_relation_extraction",
        "load_davis", "load_metz", "load_yamanishi", "make_drug_target",
        "make_grouped_regression", "make_relevance_regression", "load_beijing_air_quality"}


def test_make_relevance_regression():
    from rlscore.datasets import make_relevance_regression
    X, y = make_relevance_regression(50, n_relevant=3, n_irrelevant=2, noise=0.0,
                                     random_state=1)
    assert X.shape == (50, 5) and y.shape == (50,)
    expected = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + np.sin(2 * X[:, 2])
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    X2, y2 = make_relevance_regression(50, n_relevant=3, n_irrelevant=2, noise=0.0,
                                       random_state=1)
    np.testing.assert_array_equal(X, X2)
    with pytest.raises(ValueError):
        make_relevance_regression(0)


def test_load_beijing_air_quality_from_a_tiny_folder(tmp_path):
    pytest.importorskip("pandas")
    from rlscore.datasets import load_beijing_air_quality
    cols = ["No", "year", "month", "day", "hour", "PM2.5", "PM10", "SO2", "NO2", "CO",
            "O3", "TEMP", "PRES", "DEWP", "RAIN", "wd", "WSPM", "station"]
    rows = [[1, 2013, 3, 1, 0, 4, 4, 4, 7, 300, 77, -0.7, 1023, -18.8, 0, "NNW", 4.4, "S"],
            [2, 2013, 3, 1, 1, "NA", 8, 4, 7, 300, 77, -1.1, 1023, -18.2, 0, "N", 4.7, "S"],
            [3, 2013, 3, 1, 2, 7, 7, 5, 10, 300, 73, -1.1, 1024, -18.2, 0, "NNW", 5.6, "S"]]
    text = ",".join(cols) + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"
    (tmp_path / "PRSA_Data_Test_20130301-20170228.csv").write_text(text)
    X, y = load_beijing_air_quality(tmp_path, station="Test")
    assert X.shape == (2, 12)                       # the row with a missing PM2.5 dropped
    np.testing.assert_allclose(y, np.log1p([4.0, 7.0]))
    np.testing.assert_allclose(X[:, -2:], [[0, 3], [2, 3]])      # hour, month
    with pytest.raises(FileNotFoundError):
        load_beijing_air_quality(tmp_path, station="Nowhere")


def test_load_beijing_air_quality_without_pandas_names_the_extra(tmp_path, monkeypatch):
    # issue 44.12: a bare ModuleNotFoundError before; now the extra that installs pandas
    # (which a user-facing extra of pyproject.toml must hold)
    import sys
    import tomllib
    from pathlib import Path
    from rlscore.datasets import load_beijing_air_quality
    monkeypatch.setitem(sys.modules, "pandas", None)         # import pandas fails
    with pytest.raises(ImportError, match=r'pip install "rlscore\[datasets\]"'):
        load_beijing_air_quality(tmp_path)
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert any(r.startswith("pandas") for r in extras["datasets"])


def test_make_grouped_regression():
    from rlscore.datasets import make_grouped_regression
    X, y, g = make_grouped_regression(7, 4, d=3, random_state=2)
    assert X.shape == (28, 3) and y.shape == (28,) and g.shape == (28,)
    np.testing.assert_array_equal(g, np.repeat(np.arange(7), 4))
    X2, y2, _ = make_grouped_regression(7, 4, d=3, random_state=2)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    # rows of a group lie around a common centre: within-group spread << between
    within = np.mean([X[g == k].std(axis=0).mean() for k in range(7)])
    assert within < 0.5 * X.std(axis=0).mean()
    with pytest.raises(ValueError, match="d must be >= 2"):
        make_grouped_regression(3, 3, d=1)
    with pytest.raises(ValueError):
        make_grouped_regression(0, 3)
