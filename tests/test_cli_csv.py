"""CSV / TSV data files in the command line: the same numbers written as svmlight and
as CSV (plain, gzip, TSV; with and without a qid column) give bit-identical models,
cross-validation tables, measures and predictions, in memory and streamed; hostile
files give one line naming the line and column, exit 1, never a traceback."""

import csv
import gzip
import json
import subprocess
import sys

import numpy as np
import pytest

from rlscore.model_io import load_model
from rlscore.utilities.reader import write_svmlight


def _data(m=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    X[rng.random((m, d)) < 0.1] = 0.0          # some zeros: the sparse rows agree
    y = X @ np.arange(1.0, d + 1) + 0.3 * rng.standard_normal(m)
    q = np.repeat(np.arange(m // 10), 10)
    return X, y, q


def _write_table(path, X, y, q=None, delimiter=",", ids=True, order=None):
    """The numbers as a CSV/TSV file: label, [qid,] features f0..f{d-1}, [rid]; the
    columns in ``order`` when given."""
    cols = {"label": [repr(float(v)) for v in y]}
    if q is not None:
        cols["qid"] = [str(v) for v in q]
    for j in range(X.shape[1]):
        cols[f"f{j}"] = [repr(float(v)) for v in X[:, j]]
    if ids:
        cols["rid"] = [f"row{i}" for i in range(len(y))]
    names = order or list(cols)
    text = delimiter.join(names) + "\n" + "".join(
        delimiter.join(cols[n][i] for n in names) + "\n" for i in range(len(y)))
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt") as fh:
        fh.write(text)
    return path


def _arrays(path):
    pred = load_model(path)
    return {k: np.asarray(v) for k, v in vars(pred).items()
            if isinstance(v, np.ndarray) or np.isscalar(v)}


def _same_model(a, b):
    A, B = _arrays(a), _arrays(b)
    assert A.keys() == B.keys()
    for k in A:
        assert np.array_equal(A[k], B[k]), k


FORMATS = [("t.csv", ","), ("t.csv.gz", ","), ("t.tsv", "\t"), ("t.tsv.gz", "\t")]


@pytest.mark.parametrize("name, delimiter", FORMATS)
@pytest.mark.parametrize("with_qid", [True, False])
def test_csv_gives_the_svmlight_model(tmp_path, run_cli, name, delimiter, with_qid):
    X, y, q = _data()
    qq = q if with_qid else None
    svm = tmp_path / "t.txt"
    write_svmlight(svm, X, y, qq)
    tab = _write_table(tmp_path / name, X, y, qq, delimiter)
    learner = ["--learner", "query-rankrls"] if with_qid else ["--learner", "rls"]
    grid = ["--regparams", "2^-3..2^3", "--cv", "kfold", "--folds", "3"]
    outs = []
    for path, extra in ((svm, []), (tab, ["--id-column", "rid"])):
        model = tmp_path / f"{path.name}.npz"
        code, out, err = run_cli(["fit", path, "-o", model, *learner, *grid, *extra])
        assert code == 0, err
        code, cvout, err = run_cli(["cv", path, *learner, *grid, "--format", "json",
                                    *extra])
        assert code == 0, err
        code, pred, err = run_cli(["predict", model, path])
        assert code == 0, err
        code, ev, err = run_cli(["evaluate", model, path, "--measure", "cindex,sqerror",
                                 "--format", "json"])
        assert code == 0, err
        outs.append((model, out, json.loads(cvout), pred, json.loads(ev)))
    (m1, fit1, cv1, p1, e1), (m2, fit2, cv2, p2, e2) = outs
    _same_model(m1, m2)
    assert cv1 == cv2 and e1 == e2 and p1 == p2
    assert fit1 == fit2.replace(str(m2), str(m1))
    # the model file names the columns, and the format
    _, meta = load_model(m2, return_metadata=True)
    info = meta["info"]["input"]
    assert info["feature_names"] == ["f0", "f1", "f2", "f3"]
    assert info["qid_column"] == ("qid" if with_qid else None)
    assert info["format"] == name.split(".")[1]


def test_streamed_fit_and_chunked_predict_agree(tmp_path, run_cli, monkeypatch):
    """--memory-budget / --block-size stream the CSV in passes, as the svmlight file;
    predict reads chunks of a few lines (ids and line numbers across chunks)."""
    X, y, _ = _data(m=80, d=3)
    svm = tmp_path / "t.txt"
    write_svmlight(svm, X, y)
    tab = _write_table(tmp_path / "t.csv", X, y, ids=False)
    common = ["--kernel", "gaussian", "--gamma", "0.3", "--basis", "12",
              "--regparams", "2^-4..2^4:2", "--cv", "loo", "--block-size", "7", "-q"]
    for path in (svm, tab):
        code, _, err = run_cli(["fit", path, "-o", tmp_path / f"{path.name}.npz",
                                *common])
        assert code == 0, err
        code, _, err = run_cli(["fit", path, "-o", tmp_path / f"{path.name}.mb.npz",
                                *common[:-3], "--memory-budget", "4096", "-q"])
        assert code == 0, err
    _same_model(tmp_path / "t.txt.npz", tmp_path / "t.csv.npz")
    _same_model(tmp_path / "t.txt.mb.npz", tmp_path / "t.csv.mb.npz")
    _, meta = load_model(tmp_path / "t.csv.npz", return_metadata=True)
    assert meta["info"]["streamed"] and meta["info"]["input"]["feature_names"] == \
        ["f0", "f1", "f2"]
    import rlscore.cli._data as cli_data
    tab = _write_table(tmp_path / "t.csv", X, y)        # now with the id column
    code, whole, _ = run_cli(["predict", tmp_path / "t.csv.npz", tab,
                              "--id-column", "rid"])
    assert code == 0
    code, ref, _ = run_cli(["predict", tmp_path / "t.txt.npz", svm])
    monkeypatch.setattr(cli_data, "text_chunk_bytes", lambda *a: 300)
    code, chunked, _ = run_cli(["predict", tmp_path / "t.csv.npz", tab,
                                "--id-column", "rid"])
    assert code == 0
    for out in (whole, chunked):
        lines = out.splitlines()
        assert [ln.split("\t")[0] for ln in lines] == [f"row{i}" for i in range(80)]
    assert [ln.split("\t")[1] for ln in whole.splitlines()] == ref.splitlines()
    # kernel blocks of other shapes: the BLAS may round the last bit otherwise
    np.testing.assert_allclose([float(ln.split("\t")[1]) for ln in chunked.splitlines()],
                               np.array(ref.split(), dtype=float), rtol=1e-13)
    # an error in a later chunk names its line in the file
    text = tab.read_text().splitlines()
    text[70] = text[70].replace(text[70].split(",")[2], "oops", 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(text) + "\n")
    code, _, err = run_cli(["predict", tmp_path / "t.csv.npz", bad])
    assert code == 1 and "line 71, column 3 ('f1'): not a number: 'oops'" in err


def test_predict_maps_columns_by_name(tmp_path, run_cli):
    """Another order of the columns, extra columns and no label: the same predictions;
    a missing training column is named."""
    X, y, _ = _data()
    tab = _write_table(tmp_path / "t.csv", X, y)
    model = tmp_path / "m.npz"
    assert run_cli(["fit", tab, "-o", model, "--kernel", "gaussian", "--gamma", "0.2",
                    "--id-column", "rid", "-q"])[0] == 0
    code, ref, _ = run_cli(["predict", model, tab])
    shuffled = _write_table(tmp_path / "s.csv", X, y,
                            order=["f3", "rid", "f1", "f0", "f2"])
    code, out, err = run_cli(["predict", model, shuffled])
    assert code == 0, err
    assert out == ref
    missing = _write_table(tmp_path / "m.csv", X, y, order=["label", "f0", "f1", "f3"])
    code, out, err = run_cli(["predict", model, missing])
    assert code == 1 and "Traceback" not in err
    assert "no column named 'f2' (feature column)" in err
    # --feature-columns chooses and orders the features: the model of those columns
    code, _, err = run_cli(["fit", tab, "-o", tmp_path / "two.npz", "--feature-columns",
                            "f2,f0", "-q"])
    assert code == 0, err
    svm = tmp_path / "two.txt"
    write_svmlight(svm, X[:, [2, 0]], y)
    assert run_cli(["fit", svm, "-o", tmp_path / "two_svm.npz", "-q"])[0] == 0
    _same_model(tmp_path / "two.npz", tmp_path / "two_svm.npz")


def test_reader_matches_the_csv_module(tmp_path):
    """read_csv_data against Python's csv module and float(), with quoted ids (a comma
    inside a quoted field), CRLF line ends, a byte order mark and blank lines."""
    from rlscore.utilities.reader import CsvLayout, read_csv_data
    rng = np.random.default_rng(3)
    rows = [[repr(float(v)) for v in rng.standard_normal(4)] for _ in range(25)]
    lines = ["y,q,a,b,id"] + [f'{r[0]},{i % 3},{r[1]},{r[2]},"id {i}, x"'
                              for i, r in enumerate(rows)]
    lines.insert(5, "")
    path = tmp_path / "q.csv"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    names, got = read_csv_data(path, CsvLayout(label_columns=("y",), qid_column="q",
                                               id_column="id"))
    with open(path, newline="", encoding="utf-8-sig") as fh:
        table = [r for r in csv.reader(fh) if r][1:]
    assert names == ["a", "b"]
    assert np.array_equal(got["X"], [[float(r[2]), float(r[3])] for r in table])
    assert np.array_equal(got["Y"][:, 0], [float(r[0]) for r in table])
    assert got["qids"] == [r[1] for r in table]
    assert got["ids"] == [r[4] for r in table]
    assert got["lines"].tolist() == [i + 2 if i < 4 else i + 3 for i in range(25)]


HEADER = "label,a,b\n"

HOSTILE = [
    ("ragged.csv", HEADER + "1,2,3\n1,2\n", "line 3: 2 fields, the header has 3"),
    ("long.csv", HEADER + "1,2,3\n1,2,3,4\n", "line 3: 4 fields, the header has 3"),
    ("word.csv", HEADER + "1,2,x\n", "line 2, column 3 ('b'): not a number: 'x'"),
    ("nan.csv", HEADER + "1,2,3\n1,NaN,3\n", "line 3, column 2 ('a'): missing value "
                                             "'NaN'"),
    ("na.csv", HEADER + "1,NA,3\n", "line 2, column 2 ('a'): missing value 'NA'"),
    ("empty_field.csv", HEADER + "1,,3\n", "line 2, column 2 ('a'): empty field"),
    ("inf.csv", HEADER + "1,2,-inf\n", "line 2, column 3 ('b'): infinite value '-inf'"),
    ("huge.csv", HEADER + "1e400,2,3\n", "line 2, column 1 ('label'): '1e400' is beyond "
                                         "the float64 range"),
    ("under.csv", HEADER + "1,1_0,3\n", "line 2, column 2 ('a'): not a number: '1_0'"),
    ("nolabel.csv", "y,a,b\n1,2,3\n", "no column named 'label' (label column)"),
    ("dup.csv", "label,a,a\n1,2,3\n", "line 1: column name 'a' appears twice"),
    ("empty.csv", "", "the file is empty"),
    ("header_only.csv", HEADER, "the file contains no examples"),
    ("blank_name.csv", "label,,b\n1,2,3\n", "line 1, column 2: empty column name"),
    ("nul.csv", HEADER + "1,2\x003\n", "not a text file"),
    ("bigline.csv", HEADER + "1,2," + "9" * 20000 + "\n", "line 2, column 3 ('b'): "
                                                           "'99999"),
    ("bigid.csv", "label,a,id\n1,2,\"" + "x" * 20000 + "\"\n", "line 2, column 3 ('id'): not a number"),
    ("quote.csv", HEADER + '1,2,"3\n', "line 2"),
    ("onlyfeatures.csv", "label\n1\n", "no feature columns"),
]


@pytest.mark.parametrize("name, text, message", HOSTILE)
def test_hostile_files_name_line_and_column(tmp_path, run_cli, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "m.npz"])
    assert code == 1, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"rlscore: error: {path}") and message in last, last
    assert not (tmp_path / "m.npz").exists()


def test_hostile_gzip_and_options(tmp_path, run_cli):
    X, y, _ = _data()
    bad = tmp_path / "t.csv.gz"
    bad.write_bytes(gzip.compress(b"label,a\n1,2\n")[:-6])
    code, _, err = run_cli(["fit", bad, "-o", tmp_path / "m.npz"])
    assert code == 1 and "corrupt or truncated" in err
    svm = tmp_path / "t.txt"
    write_svmlight(svm, X, y)
    code, _, err = run_cli(["fit", svm, "-o", tmp_path / "m.npz", "--label-column", "y"])
    assert code == 2 and "--label-column applies to CSV/TSV files" in err
    tab = _write_table(tmp_path / "t.csv", X, y)
    code, _, err = run_cli(["fit", tab, "-o", tmp_path / "m.npz", "--time-column", "t"])
    assert code == 2 and "both --time-column and --event-column" in err
    code, _, err = run_cli(["cv", tab, "--feature-columns", "f0,,f1"])
    assert code == 2 and "--feature-columns" in err
    # a model of one format refuses data of the other
    assert run_cli(["fit", tab, "-o", tmp_path / "c.npz", "--id-column", "rid",
                    "-q"])[0] == 0
    code, _, err = run_cli(["predict", tmp_path / "c.npz", svm])
    assert code == 1 and "trained on a CSV file" in err
    # --input-format reads any name; --no-header names columns by position
    plain = tmp_path / "data.txt"
    plain.write_text("".join(f"{v!r},{a!r},{b!r}\n" for v, a, b in
                             zip(y.tolist(), X[:, 0].tolist(), X[:, 1].tolist())))
    code, _, err = run_cli(["fit", plain, "-o", tmp_path / "n.npz", "--input-format",
                            "csv", "--no-header", "-q"])
    assert code == 0, err
    svm2 = tmp_path / "two.txt"
    write_svmlight(svm2, X[:, :2], y)
    assert run_cli(["fit", svm2, "-o", tmp_path / "n2.npz", "-q"])[0] == 0
    _same_model(tmp_path / "n.npz", tmp_path / "n2.npz")


_CHILD = r"""
import io, json, sys, contextlib
from rlscore.cli import main
out = []
for path in sys.argv[1:]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(["cv", path, "--regparams", "1", "--cv", "kfold", "--folds",
                         "2", "--id-column", "rid"])
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            code = "escaped " + type(exc).__name__
    out.append([code, err.getvalue()])
print(json.dumps(out))
"""


@pytest.mark.parametrize("n_files", [30, pytest.param(400, marks=pytest.mark.slow)])
def test_fuzzed_csv_files_fail_cleanly(tmp_path, n_files):
    """Random byte edits of a valid CSV file, read by the command in a child process:
    every run exits 0 or 1 (a data error on one line), never a traceback or a crash."""
    X, y, q = _data(m=20, d=3)
    base = _write_table(tmp_path / "base.csv", X, y, q).read_bytes()
    rng = np.random.default_rng(7)
    alphabet = b',\n"\t.-+eE0123456789 naNiIf_\r\x00\xff#'
    paths = []
    for k in range(n_files):
        data = bytearray(base)
        for _ in range(rng.integers(1, 6)):
            op = rng.integers(3)
            pos = int(rng.integers(len(data)))
            if op == 0:
                data[pos] = alphabet[rng.integers(len(alphabet))]
            elif op == 1:
                del data[pos:pos + int(rng.integers(1, 30))]
            else:
                data[pos:pos] = bytes(rng.choice(list(alphabet), int(rng.integers(1, 8))))
        path = tmp_path / f"f{k}.csv"
        path.write_bytes(bytes(data))
        paths.append(str(path))
    proc = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout)
    assert len(results) == len(paths)
    for path, (code, err) in zip(paths, results):
        assert code in (0, 1, 2), (path, code, err)
        assert "Traceback" not in err, (path, err)
        if code != 0:
            last = err.strip().splitlines()[-1]
            assert last.startswith("rlscore: error: "), (path, err)
    assert sum(code == 1 for code, _ in results) > n_files // 4


def test_valid_file_and_outside_predictions(tmp_path, run_cli):
    """fit --valid reads a CSV validation file by the training columns' names, and
    evaluate DATA --predictions reads a CSV file's labels and qids: the svmlight
    results."""
    X, y, q = _data()
    Xv, yv, qv = _data(seed=1)
    svm, svm_v = tmp_path / "t.txt", tmp_path / "v.txt"
    write_svmlight(svm, X, y, q)
    write_svmlight(svm_v, Xv, yv, qv)
    tab = _write_table(tmp_path / "t.csv", X, y, q)
    tab_v = _write_table(tmp_path / "v.csv", Xv, yv, qv,
                         order=["rid", "f2", "qid", "f0", "label", "f3", "f1"])
    grid = ["--learner", "query-rankrls", "--regparams", "2^-3..2^3", "--measure",
            "map"]
    code, out1, err = run_cli(["fit", svm, "-o", tmp_path / "s.npz", "--valid", svm_v,
                               *grid])
    assert code == 0, err
    code, out2, err = run_cli(["fit", tab, "-o", tmp_path / "c.npz", "--valid", tab_v,
                               "--id-column", "rid", *grid])
    assert code == 0, err
    _same_model(tmp_path / "s.npz", tmp_path / "c.npz")
    assert out1.splitlines()[:-1] == out2.splitlines()[:-1]
    scores = tmp_path / "scores.txt"
    scores.write_text("".join(f"{v!r}\n" for v in np.sin(yv).tolist()))
    results = []
    for path, extra in ((svm_v, []), (tab_v, ["--id-column", "rid"])):
        code, out, err = run_cli(["evaluate", path, "--predictions", scores,
                                  "--measure", "map,cindex", "--format", "json", *extra])
        assert code == 0, err
        results.append(json.loads(out))
    assert results[0] == results[1]


def test_intervals_with_ids(tmp_path, run_cli):
    """predict --interval on a CSV file: the svmlight model's lines, each after its id."""
    X, y, _ = _data(m=30, d=3)
    svm = tmp_path / "t.txt"
    write_svmlight(svm, X, y)
    tab = _write_table(tmp_path / "t.csv", X, y)
    outs = []
    for path, extra in ((svm, []), (tab, ["--id-column", "rid"])):
        model = tmp_path / f"{path.name}.npz"
        assert run_cli(["fit", path, "-o", model, "--intervals", "jackknife", "-q",
                        *extra])[0] == 0
        code, out, err = run_cli(["predict", model, path, "--interval", "0.8", *extra])
        assert code == 0, err
        outs.append(out.splitlines())
    assert [ln.split("\t", 1) for ln in outs[1]] == \
        [[f"row{i}", ln] for i, ln in enumerate(outs[0])]


def test_query_norm_and_trec(tmp_path, run_cli):
    """--query-norm on a CSV file gives the svmlight model and predictions; predict
    --format trec and --id-column with a --query-norm model are refused with a usage
    error (not yet supported), not silently wrong."""
    X, y, q = _data()
    svm = tmp_path / "t.txt"
    write_svmlight(svm, X, y, q)
    tab = _write_table(tmp_path / "t.csv", X, y, q)
    preds = []
    for path, extra in ((svm, []), (tab, ["--id-column", "rid"])):
        model = tmp_path / f"{path.name}.npz"
        code, _, err = run_cli(["fit", path, "-o", model, "--learner", "query-rankrls",
                                "--query-norm", "zscore", "-q", *extra])
        assert code == 0, err
        code, out, err = run_cli(["predict", model, path])
        assert code == 0, err
        preds.append(out)
    _same_model(tmp_path / "t.txt.npz", tmp_path / "t.csv.npz")
    assert preds[0] == preds[1]
    code, _, err = run_cli(["predict", tmp_path / "t.csv.npz", tab, "--id-column", "rid"])
    assert code == 2 and "--id-column with a --query-norm model" in err
    code, _, err = run_cli(["predict", tmp_path / "t.csv.npz", tab, "--format", "trec"])
    assert code == 2 and "--format trec" in err and "CSV/TSV" in err
