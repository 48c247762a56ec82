"""Tests for rlscore.utilities.reader (svmlight, sparse, folds, qids, preferences)."""

import gzip
import io
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from rlscore.utilities import reader
from rlscore.utilities.reader import (
    loadtxtint, read_folds, read_preferences, read_qids, read_sparse, read_svmlight,
    write_svmlight,
)

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


def _write(tmp_path, text, name="data.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- read_svmlight

def test_svmlight_basic(tmp_path):
    path = _write(tmp_path, "1 1:0.5 3:-2\n-1 2:1.5\n0.25 1:1 2:2 3:3\n")
    X, Y, qids = read_svmlight(path)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape == (3, 3)
    assert_array_equal(X.toarray(), [[0.5, 0, -2], [0, 1.5, 0], [1, 2, 3]])
    assert isinstance(Y, np.ndarray) and Y.dtype == np.float64
    assert Y.shape == (3, 1)
    assert_array_equal(Y[:, 0], [1, -1, 0.25])
    assert qids is None


def test_svmlight_str_path_and_file_objects(tmp_path):
    text = "1 1:2\n2 2:3\n"
    path = _write(tmp_path, text)
    X1, Y1, _ = read_svmlight(str(path))
    X2, Y2, _ = read_svmlight(io.StringIO(text))
    X3, Y3, _ = read_svmlight(io.BytesIO(text.encode()))
    with open(path) as fh:
        X4, Y4, _ = read_svmlight(fh)
        assert not fh.closed  # a stream passed in is left open
    for X, Y in ((X2, Y2), (X3, Y3), (X4, Y4)):
        assert_array_equal(X.toarray(), X1.toarray())
        assert_array_equal(Y, Y1)


def test_svmlight_gzip(tmp_path):
    path = tmp_path / "data.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("1 qid:a 1:2\n2 qid:a 2:3\n")
    X, Y, qids = read_svmlight(path)
    assert X.shape == (2, 2)
    assert qids == ["a", "a"]


def test_svmlight_qids_are_strings(tmp_path):
    path = _write(tmp_path, "2 qid:10 1:1\n1 qid:10 2:1\n0 qid:7 1:3\n1 qid:abc 1:1\n")
    X, Y, qids = read_svmlight(path)
    assert qids == ["10", "10", "7", "abc"]
    assert all(isinstance(q, str) for q in qids)
    assert_array_equal(Y[:, 0], [2, 1, 0, 1])


def test_svmlight_multi_output(tmp_path):
    path = _write(tmp_path, "1|2 1:1\n-1|0.5 2:1\n3|4\n")
    X, Y, qids = read_svmlight(path)
    assert Y.shape == (3, 2)
    assert_array_equal(Y, [[1, 2], [-1, 0.5], [3, 4]])
    assert X.shape == (3, 2)


def test_svmlight_comments_and_blank_lines(tmp_path):
    text = ("# a header comment\n"
            "\n"
            "1 qid:1 1:1 2:2 # docid = GX01 inc = 1\n"
            "   \n"
            "  # indented comment\n"
            "0 qid:1 2:5#no space before the comment 3:7\n"
            "1 qid:2 3:1\n")
    X, Y, qids = read_svmlight(io.StringIO(text))
    assert X.shape == (3, 3)
    assert_array_equal(X.toarray(), [[1, 2, 0], [0, 5, 0], [0, 0, 1]])
    assert_array_equal(Y[:, 0], [1, 0, 1])
    assert qids == ["1", "1", "2"]


def test_svmlight_zero_values_not_stored(tmp_path):
    X, _, _ = read_svmlight(io.StringIO("1 1:0 2:3 4:0.0\n"))
    assert X.shape == (1, 4)  # the largest index counts even with a zero value
    assert X.nnz == 1
    assert_array_equal(X.toarray(), [[0, 3, 0, 0]])


def test_svmlight_label_only_line_is_zero_row(tmp_path):
    # [REC] upstream raised IndexError here
    path = _write(tmp_path, "1 1:1 2:2\n-1\n0.5 2:4\n")
    X, Y, _ = read_svmlight(path)
    assert X.shape == (3, 2)
    assert_array_equal(X.toarray(), [[1, 2], [0, 0], [0, 4]])
    assert_array_equal(Y[:, 0], [1, -1, 0.5])
    # with qid and nothing else
    X, Y, qids = read_svmlight(io.StringIO("1 qid:3\n2 qid:3 1:1\n"))
    assert_array_equal(X.toarray(), [[0], [1]])
    assert qids == ["3", "3"]
    # every line label-only
    X, Y, _ = read_svmlight(io.StringIO("1\n2\n"))
    assert X.shape == (2, 0) and Y.shape == (2, 1)


def test_svmlight_fdim_keeps_index_fdim(tmp_path):
    # [REC, DEVIATION] index fdim itself (column fdim-1) is kept
    path = _write(tmp_path, "1 1:1 3:3 4:4 9:9\n2 2:2 3:5\n")
    X, _, _ = read_svmlight(path, fdim=3)
    assert X.shape == (2, 3)
    assert_array_equal(X.toarray(), [[1, 0, 3], [0, 2, 5]])
    X, _, _ = read_svmlight(path, fdim=4)
    assert_array_equal(X.toarray(), [[1, 0, 3, 4], [0, 2, 5, 0]])
    # fdim larger than the largest index pads with zero columns
    X, _, _ = read_svmlight(path, fdim=12)
    assert X.shape == (2, 12)
    assert X[0, 8] == 9 and X[0, 11] == 0


def test_svmlight_fdim_train_test_idiom(tmp_path):
    train = _write(tmp_path, "1 1:1 2:1 3:1\n", "train.txt")
    test = _write(tmp_path, "1 1:2 3:7 5:1\n", "test.txt")
    X_train, _, _ = read_svmlight(train)
    X_test, _, _ = read_svmlight(test, X_train.shape[1])
    assert X_test.shape == (1, 3)
    assert_array_equal(X_test.toarray(), [[2, 0, 7]])  # the last feature is not lost


@pytest.mark.parametrize("fdim, exc", [(0, ValueError), (-1, ValueError), (2.0, TypeError),
                                       (True, TypeError), ("3", TypeError)])
def test_svmlight_bad_fdim(fdim, exc):
    with pytest.raises(exc):
        read_svmlight(io.StringIO("1 1:1\n"), fdim=fdim)


@pytest.mark.parametrize("text, lineno, fragment", [
    ("1 1:1\nabc 1:1\n", 2, "label"),                     # non-numeric label
    ("1 1:1\n1|x 1:1\n", 2, "label"),                     # non-numeric second output
    ("1|2 1:1\n\n3 1:1\n", 3, "labels"),                  # differing label counts
    ("1 qid:1 1:1\n1 1:1\n", 2, "no qid"),                # qid missing
    ("1 1:1\n# c\n1 qid:1 1:1\n", 3, "has a qid"),         # qid appears later
    ("1 qid: 1:1\n", 1, "empty qid"),
    ("1 1:1 2\n", 1, "malformed"),                        # token without colon
    ("1 1:1 2:x\n", 1, "malformed"),                      # bad value
    ("1 1:1 a:2\n", 1, "malformed"),                      # bad index
    ("1 1:1 2:3:4\n", 1, "malformed"),                    # two colons
    ("1 1:1 2.5:1\n", 1, "malformed"),                    # non-integer index
    ("1 1:1 :1\n", 1, "malformed"),                       # missing index
    ("1 1:1\n2 3:1 2:1\n", 2, "increase"),                # decreasing
    ("1 2:1 2:1\n", 1, "increase"),                       # repeated
    ("1 -3:1\n", 1, "malformed"),                         # signed index
    ("qid:1 1:1\n", 1, "label"),                          # missing label
])
def test_svmlight_malformed(text, lineno, fragment):
    with pytest.raises(ValueError, match=f"line {lineno}") as info:
        read_svmlight(io.StringIO(text))
    assert fragment in str(info.value)


def test_svmlight_error_names_file(tmp_path):
    path = _write(tmp_path, "1 1:1\n1 1:x\n", "broken.svm")
    with pytest.raises(ValueError, match=r"broken\.svm, line 2"):
        read_svmlight(path)


def test_svmlight_empty_file_raises(tmp_path):
    with pytest.raises(ValueError, match="no examples"):
        read_svmlight(_write(tmp_path, "# only a comment\n\n"))


def test_svmlight_is_an_exception_subclass():
    # old code catching Exception keeps working
    with pytest.raises(Exception):
        read_svmlight(io.StringIO("x 1:1\n"))


def test_svmlight_speed_letor_like(tmp_path):
    # about 2 MB of LETOR-style lines (46 dense features, qid, trailing comment)
    rng = np.random.default_rng(0)
    n, d = 3000, 46
    vals = np.round(rng.random((n, d)), 6)
    vals[rng.random((n, d)) < 0.3] = 0.0
    lines = []
    for i in range(n):
        feats = " ".join(f"{j + 1}:{vals[i, j]:.6f}" for j in range(d))
        lines.append(f"{i % 3} qid:{10000 + i // 20} {feats} #docid = GX{i:06d} inc = 1 "
                     f"prob = 0.5\n")
    path = _write(tmp_path, "".join(lines), "letor.txt")
    assert path.stat().st_size > 1.5e6
    import time
    t0 = time.perf_counter()
    X, Y, qids = read_svmlight(path)
    elapsed = time.perf_counter() - t0
    assert X.shape == (n, d)
    assert_array_equal(X.toarray(), vals)
    assert len(set(qids)) == n // 20
    # generous bound: typically ~0.2 s; this only guards against accidental O(n^2) work
    assert elapsed < 5.0


# -------------------------------------------------------------------------- write_svmlight

def test_write_read_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 7))
    X[rng.random((20, 7)) < 0.5] = 0.0
    X[4] = 0.0  # an all-zero row (label-only line)
    X[:, -1] = 0.0  # a trailing all-zero column
    Y = np.column_stack([rng.standard_normal(20), rng.integers(0, 3, 20)])
    qids = [f"q{i // 5}" for i in range(20)]
    path = tmp_path / "out.svm"
    write_svmlight(path, X, Y, qids)
    X2, Y2, qids2 = read_svmlight(path, fdim=X.shape[1])
    assert_array_equal(X2.toarray(), X)  # exact: shortest round-trip float repr
    assert_array_equal(Y2, Y)
    assert qids2 == qids
    # without fdim the all-zero trailing column is not recoverable
    X3, _, _ = read_svmlight(path)
    assert X3.shape == (20, 6)


def test_write_read_round_trip_sparse_1d_labels(tmp_path):
    X = sp.random(15, 30, density=0.2, format="csc", random_state=1)
    y = np.arange(15) - 7.5
    buf = io.StringIO()
    write_svmlight(buf, X, y)
    X2, Y2, qids = read_svmlight(io.StringIO(buf.getvalue()), fdim=30)
    assert_array_equal(X2.toarray(), X.toarray())
    assert_array_equal(Y2[:, 0], y)
    assert qids is None
    assert "qid" not in buf.getvalue()


def test_write_format(tmp_path):
    buf = io.StringIO()
    write_svmlight(buf, np.array([[0.0, 2.0, 0.5], [0, 0, 0]]), np.array([[1, 2], [3, 4]]),
                   qids=[7, 7])
    assert buf.getvalue() == "1|2 qid:7 2:2 3:0.5\n3|4 qid:7\n"


def test_write_gzip_round_trip(tmp_path):
    path = tmp_path / "out.svm.gz"
    write_svmlight(path, np.eye(3), [1, 2, 3])
    X, Y, _ = read_svmlight(path)
    assert_array_equal(X.toarray(), np.eye(3))


@pytest.mark.parametrize("kwargs", [
    dict(X=np.ones((3, 2)), Y=np.ones(2)),                      # length mismatch
    dict(X=np.ones((2, 2)), Y=np.ones(2), qids=[1]),            # qids length
    dict(X=np.ones((2, 2)), Y=np.ones(2), qids=["a b", "c"]),   # whitespace in qid
    dict(X=np.ones((2, 2)), Y=np.ones(2), qids=["a#", "c"]),    # '#' in qid
    dict(X=np.ones((2, 2)), Y=np.ones(2), qids=["", "c"]),      # empty qid
    dict(X=np.array([[np.nan, 1]]), Y=np.ones(1)),              # NaN in X
    dict(X=np.ones((1, 2)), Y=np.array([np.inf])),              # inf in Y
])
def test_write_invalid(kwargs):
    with pytest.raises(ValueError):
        write_svmlight(io.StringIO(), **kwargs)


# ---------------------------------------------------------------------------- read_sparse

def test_read_sparse_basic(tmp_path):
    path = _write(tmp_path, "0:1.5 3:4.2\n1:2 # comment 5:9\n0:0 2:7\n")
    X = read_sparse(path)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape == (3, 4)
    assert_array_equal(X.toarray(), [[1.5, 0, 0, 4.2], [0, 2, 0, 0], [0, 0, 7, 0]])


def test_read_sparse_blank_and_comment_lines_are_empty_rows(tmp_path):
    path = _write(tmp_path, "0:1\n\n# comment\n2:3\n")
    with pytest.warns(UserWarning, match="2 line"):
        X = read_sparse(path)
    assert X.shape == (4, 3)
    assert_array_equal(X.toarray(), [[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 3]])


def test_read_sparse_no_warning_without_empty_lines(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_sparse(io.StringIO("0:1\n1:1\n"))


def test_read_sparse_shape_from_stored_entries(tmp_path):
    # trailing rows without entries are not represented (upstream behaviour)
    path = _write(tmp_path, "1:1\n0:2\n3:0\n")
    X = read_sparse(path)
    assert X.shape == (2, 2)
    assert_array_equal(X.toarray(), [[0, 1], [2, 0]])


def test_read_sparse_fdim(tmp_path):
    path = _write(tmp_path, "0:1 4:5\n1:2 2:3\n5:9\n")
    X = read_sparse(path, fdim=3)
    # index >= fdim dropped; rows run to the last row that kept an entry
    assert X.shape == (2, 3)
    assert_array_equal(X.toarray(), [[1, 0, 0], [0, 2, 3]])
    X = read_sparse(path, fdim=10)
    assert X.shape == (3, 10)
    assert X[2, 5] == 9


@pytest.mark.parametrize("text, lineno", [
    ("0:1\n2:1 1:1\n", 2),        # decreasing
    ("0:1 0:2\n", 1),             # repeated
    ("0:1 -1:2\n", 1),            # negative
    ("0:1 x\n", 1),               # malformed
    ("0:1\n1:y\n", 2),            # malformed value
])
def test_read_sparse_malformed(text, lineno):
    with pytest.raises(ValueError, match=f"line {lineno}"):
        read_sparse(io.StringIO(text))


# ----------------------------------------------------------------------------- read_folds

def test_read_folds(tmp_path):
    path = _write(tmp_path, "0 3 4 8\n1 5 9 10\n2 6 7\n")
    assert read_folds(path) == [[0, 3, 4, 8], [1, 5, 9, 10], [2, 6, 7]]


def test_read_folds_comments_and_blank_lines(tmp_path):
    path = _write(tmp_path, "# folds for the test\n0 1 # first\n\n2 3\n  # another\n")
    # a blank line is an empty fold; whole-line comments are skipped
    assert read_folds(path) == [[0, 1], [], [2, 3]]


@pytest.mark.parametrize("text, lineno", [
    ("0 1\n2 x\n", 2),
    ("0 1.5\n", 1),
    ("0 -1\n", 1),
    ("0 1\n2 3 2\n", 2),
])
def test_read_folds_malformed(text, lineno):
    with pytest.raises(ValueError, match=f"line {lineno}"):
        read_folds(io.StringIO(text))


def test_read_folds_index_repeated_across_lines_is_allowed():
    assert read_folds(io.StringIO("0 1\n1 2\n")) == [[0, 1], [1, 2]]


# ------------------------------------------------------------------------------ read_qids

def test_read_qids(tmp_path):
    path = _write(tmp_path, "q1\n q1 \nq2\nq2\n3\n\n")
    assert read_qids(path) == ["q1", "q1", "q2", "q2", "3"]


def test_read_qids_all_unique_raises(tmp_path):
    with pytest.raises(ValueError, match="single example"):
        read_qids(_write(tmp_path, "1\n2\n3\n"))
    with pytest.raises(ValueError):
        read_qids(io.StringIO(""))


def test_read_qids_interior_blank_line_raises():
    with pytest.raises(ValueError, match="line 2"):
        read_qids(io.StringIO("a\n\na\n"))


# ----------------------------------------------------------------------- read_preferences

def test_read_preferences(tmp_path):
    path = _write(tmp_path, "0 1\n2 3\n# comment\n4 0\n")
    P = read_preferences(path)
    assert P.dtype == np.float64 and P.shape == (3, 2)
    assert_array_equal(P, [[0, 1], [2, 3], [4, 0]])


def test_read_preferences_single_pair_is_2d(tmp_path):
    P = read_preferences(_write(tmp_path, "5 2\n"))
    assert P.shape == (1, 2)
    P = read_preferences(io.StringIO("5 2\n1 0\n"))
    assert P.shape == (2, 2)


def test_read_preferences_wrong_columns(tmp_path):
    with pytest.raises(ValueError, match="two columns"):
        read_preferences(_write(tmp_path, "0 1 2\n3 4 5\n"))
    with pytest.raises(ValueError, match="two columns"):
        read_preferences(_write(tmp_path, "0\n1\n", "one.txt"))


# ---------------------------------------------------------------------------- loadtxtint

def test_loadtxtint(tmp_path):
    A = loadtxtint(_write(tmp_path, "1 2\n3 4\n"))
    assert np.issubdtype(A.dtype, np.integer)
    assert_array_equal(A, [[1, 2], [3, 4]])


def test_module_exports():
    for name in ("read_svmlight", "read_sparse", "read_folds", "read_qids",
                 "read_preferences", "loadtxtint", "write_svmlight"):
        assert callable(getattr(reader, name))


def test_svmlight_utf8_bom_and_crlf(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeff1 qid:1 1:2\r\n-1 qid:1 2:3\r\n".encode("utf-8"))
    X, Y, qids = read_svmlight(path)
    assert_array_equal(X.toarray(), [[2, 0], [0, 3]])
    assert_array_equal(Y[:, 0], [1, -1])
    assert qids == ["1", "1"]


# --------------------------------------------------------------------------- strict grammar, 0-based


@pytest.mark.parametrize("text, col, fragment", [
    ("1 1_0:5\n", 3, "malformed"),                          # digit separator in index
    ("1 +1:5\n", 3, "malformed"),                           # signed index
    ("1 \u0661:5\n", 3, "malformed"),                       # Arabic-Indic digit one
    ("1 1:\u0665\n", 3, "malformed"),                       # non-ASCII digit value
    ("1 1:1_0\n", 3, "malformed"),                          # separator in value
    ("1 1:nan\n", 3, "malformed"),
    ("1 1:inf\n", 3, "malformed"),
    ("1 2:1 1:1\n", 7, "increase"),
    ("1_0 1:1\n", 1, "label"),
    ("nan 1:1\n", 1, "label"),
    ("\u0661 1:1\n", 1, "label"),
    ("1 qid:\u00e9 1:1\n", 3, "qid"),
    ("  1 1:1 2:x\n", 9, "malformed"),
    # issue 44.18: a number beyond the float64 range became inf (the command then
    # refused "X contains NaN or infinity", the one bad token without its line)
    ("1 1:2 2:1e400\n", 7, "value '1e400' of feature 2 overflows float64"),
    ("1 2:-1e400\n", 3, "value '-1e400' of feature 2 overflows float64"),
    ("1e400 2:1\n", 1, "label '1e400' overflows float64"),
    ("1|-2e999 2:1\n", 3, "label '-2e999' overflows float64"),
])
def test_svmlight_strict_grammar_names_line_and_column(text, col, fragment):
    with pytest.raises(ValueError, match=f"line 1, column {col}:") as info:
        read_svmlight(io.StringIO(text))
    assert fragment in str(info.value)


def test_svmlight_underflowing_value_is_a_number():
    # a value below the smallest subnormal reads as 0, as in strtod (an overflowing
    # one is refused with its line: test_svmlight_strict_grammar_names_line_and_column)
    X, _, _ = read_svmlight(io.StringIO("1 1:1e-400 2:1\n"))
    assert X[0, 0] == 0.0 and X[0, 1] == 1.0


def test_svmlight_index_zero():
    text = "1 0:2 3:1\n-1 1:5\n"
    # auto (default): an index 0 makes the file 0-based
    X, _, _, zb = read_svmlight(io.StringIO(text), return_zero_based=True)
    assert zb is True
    assert_array_equal(X.toarray(), [[2, 0, 0, 1], [0, 5, 0, 0]])
    X1, _, _ = read_svmlight(io.StringIO(text), zero_based=True)
    assert_array_equal(X1.toarray(), X.toarray())
    with pytest.raises(ValueError, match="line 1, column 3: feature index 0"):
        read_svmlight(io.StringIO(text), zero_based=False)
    # no index 0: auto reads 1-based, True reads it 0-based
    X2, _, _, zb2 = read_svmlight(io.StringIO("1 1:2 3:1\n"), return_zero_based=True)
    assert zb2 is False
    assert_array_equal(X2.toarray(), [[2, 0, 1]])
    X3, _, _ = read_svmlight(io.StringIO("1 1:2 3:1\n"), zero_based=True)
    assert_array_equal(X3.toarray(), [[0, 2, 0, 1]])
    X4, _, _ = read_svmlight(io.StringIO("1 1:2 3:1\n"), zero_based=True, fdim=3)
    assert_array_equal(X4.toarray(), [[0, 2, 0]])
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="zero_based"):
            read_svmlight(io.StringIO("1 1:2\n"), zero_based=bad)


@pytest.mark.parametrize("zero_based", [True, False])
def test_sklearn_dump_svmlight_file_round_trips(tmp_path, zero_based):
    datasets = pytest.importorskip("sklearn.datasets")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 7)) * (rng.random((30, 7)) < 0.5)
    X[:, 0] = rng.normal(size=30)                    # column 0 used: index 0 when 0-based
    X[3] = 0.0                                       # an all-zero row
    X = np.round(X, 6) + 0.0                         # dump writes %.16g
    y = rng.integers(0, 3, 30).astype(float)
    q = np.repeat(np.arange(6), 5)
    path = tmp_path / "dump.txt"
    datasets.dump_svmlight_file(X, y, str(path), zero_based=zero_based, query_id=q)
    Xr, Yr, qr, zb = read_svmlight(path, return_zero_based=True)   # auto
    assert zb is zero_based
    assert_array_equal(Xr.toarray(), X)
    assert_array_equal(Yr[:, 0], y)
    assert qr == [str(v) for v in q]


def _random_svmlight(rng, n, d, qid=True):
    lines = []
    for i in range(n):
        cols = np.sort(rng.choice(d, size=rng.integers(0, d + 1), replace=False)) + 1
        vals = rng.normal(size=cols.size).round(rng.integers(0, 8))
        feats = " ".join(f"{c}:{float(v)!r}" for c, v in zip(cols, vals))
        q = f" qid:{i // 7}" if qid else ""
        sep = "\t" if i % 3 == 0 else " "
        lines.append(f"{rng.integers(0, 5)}{q}{sep}{feats}" + (" # c" if i % 5 == 0 else ""))
        if i % 11 == 0:
            lines.append("")                   # blank lines are skipped
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_chunked_parse_equals_scikit_learn_loader(tmp_path, chunk):
    """Chunks of every size (down to one byte per read) give the file scikit-learn's
    loader reads, and iter_svmlight's chunks stack to read_svmlight's result."""
    from sklearn.datasets import load_svmlight_file
    from rlscore.utilities import _svmlight_files, reader
    rng = np.random.default_rng(chunk)
    path = tmp_path / "f.txt"
    path.write_text(_random_svmlight(rng, 60, 9))
    Xs, ys, qs = load_svmlight_file(str(path), n_features=9, query_id=True,
                                    zero_based=False)
    chunks = list(_svmlight_files._raw_chunks(str(path), False, chunk_bytes=chunk))
    parts = list(reader.iter_svmlight(str(path), 9, False, chunk_bytes=chunk))
    X = sp.vstack([p[0] for p in parts]).toarray()
    np.testing.assert_array_equal(X, Xs.toarray())
    np.testing.assert_array_equal(np.vstack([p[1] for p in parts])[:, 0], ys)
    assert [int(q) for p in parts for q in p[2]] == list(qs)
    assert len(chunks) == len(parts)
    Xw, Yw, qw = read_svmlight(str(path), 9)
    np.testing.assert_array_equal(Xw.toarray(), X)


def test_iter_svmlight_needs_a_fixed_index_base(tmp_path):
    from rlscore.utilities.reader import iter_svmlight
    path = tmp_path / "f.txt"
    path.write_text("1 1:2\n1 5:1\n")
    X, _, _ = next(iter_svmlight(str(path), None, False))
    assert X.shape == (2, 5)
    with pytest.raises(ValueError, match="zero_based"):
        next(iter_svmlight(str(path), 3, "auto"))
    path.write_text("# only a comment\n")
    with pytest.raises(ValueError, match="no examples"):
        next(iter_svmlight(str(path), 3, False))


def test_error_position_is_the_file_line_across_chunks(tmp_path):
    from rlscore.utilities import _svmlight_files
    path = tmp_path / "f.txt"
    path.write_text("1 1:2\n" * 50 + "1 1:x\n")
    with pytest.raises(ValueError, match="line 51, column 3"):
        list(_svmlight_files._raw_chunks(str(path), False, chunk_bytes=16))
