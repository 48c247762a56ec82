"""A table of bad ``rlscore`` invocations: every one ends with the documented exit
status (1 bad data or model file, 2 usage), a one-line message on stderr, no traceback
and no signal.

The default run executes the whole table in child processes, several invocations per
child (a crash of any kills the child and fails the test); the slow run starts one
process per invocation through the real console entry point.
"""

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.datasets import make_ranking_queries, make_regression
from rlscore.learner import RLS
from rlscore.model_io import _digest, save_model
from rlscore.predictor import KernelPairwisePredictor
from rlscore.utilities.reader import write_svmlight


def _crafted(path, base, edit):
    with np.load(base) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(arrays.pop("__metadata__").tobytes())
    edit(meta, arrays)
    meta["sha256"] = {k: _digest(v) for k, v in arrays.items()}
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez_compressed(path, **arrays)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    f = {"dir": d / "adir", "missing": d / "missing.txt", "nodir": d / "no" / "out.txt"}
    f["dir"].mkdir()
    X, y = make_regression(30, 4, random_state=0)
    write_svmlight(d / "train.txt", X, y)
    f["train"] = d / "train.txt"
    Xq, yq, q = make_ranking_queries(6, 5, 3, random_state=0)
    write_svmlight(d / "rank.txt", Xq, yq, [f"q{i}" for i in q])
    f["rank"] = d / "rank.txt"
    good = (d / "train.txt").read_bytes()
    bad_text = {
        "empty": b"", "garbage": bytes(range(256)) * 8,
        "nan_feature": b"1 1:nan 2:1\n0 1:1\n", "inf_label": b"inf 1:1\n0 1:2\n",
        "bad_token": b"1 1:abc\n", "no_colon": b"1 1 2 3\n", "zero_index": b"1 0:1 0:2\n",
        "neg_index": b"1 -3:1\n", "label_word": b"yes 1:1\n", "qid_empty": b"1 qid: 1:1\n",
        "decreasing": b"1 2:1 1:1\n", "all_zero": b"1 1:0\n0 2:0\n",
        "huge_values": b"1 1:1e200 2:1\n0 1:2e200\n", "csv": b"a,b\n1,2\n",
        "utf16": "1 1:0.5\n".encode("utf-16"), "huge_index": b"1 99999999999999999999:1\n",
        "tab_only": b"\t\t\n",
    }
    for name, content in bad_text.items():
        (d / f"{name}.txt").write_bytes(content)
        f[name] = d / f"{name}.txt"
    gz = gzip.compress(good)
    comp = {"gz_truncated": ("gz", gz[:len(gz) // 2]),
            "gz_corrupt": ("gz", gz[:10] + bytes(50) + gz[60:]),
            "gz_not_gzip": ("gz", good),
            "xz_truncated": ("xz", lzma.compress(good)[:40]),
            "xz_corrupt": ("xz", b"\xfd7zXZ\x00" + bytes(100)),
            "bz2_truncated": ("bz2", bz2.compress(good)[:30]),
            "bz2_corrupt": ("bz2", b"BZh9" + bytes(100)),
            "gz_garbage_inside": ("gz", gzip.compress(bytes(range(256)) * 8))}
    for name, (ext, content) in comp.items():
        (d / f"{name}.txt.{ext}").write_bytes(content)
        f[name] = d / f"{name}.txt.{ext}"
    model = d / "model.npz"
    save_model(RLS(X, y, kernel="GaussianKernel", gamma=0.1), model)
    f["model"] = model
    lin = d / "lin.npz"
    save_model(RLS(X, y), lin, feature_indices=np.arange(4), n_file_features=4)
    f["lin"] = lin
    sparse_model = d / "sparse.npz"
    save_model(RLS(sp.csr_matrix(X), y, kernel="PolynomialKernel", degree=2),
               sparse_model)

    def bad_index(meta, arrays):
        arrays["basis.indices"] = arrays["basis.indices"].copy()
        arrays["basis.indices"][0] = 10**6   # the SIGSEGV of the issue
    models = {
        "m_csr_index": (sparse_model, bad_index),
        "m_nan": (lin, lambda m, a: a.__setitem__("W", np.full(4, np.nan))),
        "m_3d": (lin, lambda m, a: a.__setitem__("W", np.ones((4, 1, 1)))),
        "m_empty": (lin, lambda m, a: a.__setitem__("W", np.ones(0))),
        "m_gamma_nan": (model, lambda m, a: m["kernel"]["params"].__setitem__("gamma", -1)),
        "m_degree": (sparse_model,
                     lambda m, a: m["kernel"]["params"].__setitem__("degree", 10**6)),
        "m_bias_inf": (lin, lambda m, a: a.__setitem__("b", np.array(np.inf))),
        "m_fi_range": (lin, lambda m, a: a.__setitem__("feature_indices",
                                                      np.array([0, 1, 2, 10**6]))),
        "m_no_gamma": (model, lambda m, a: m["kernel"]["params"].pop("gamma")),
        "m_kernel_list": (model, lambda m, a: m.__setitem__("kernel", [1])),
        "m_layout": (model, lambda m, a: m.__setitem__("layout", "x")),
        "m_version": (model, lambda m, a: m.__setitem__("format_version", 99)),
    }
    for name, (base, edit) in models.items():
        _crafted(d / f"{name}.npz", base, edit)
        f[name] = d / f"{name}.npz"
    pair = d / "pair.npz"
    save_model(KernelPairwisePredictor(np.ones(6)), pair)
    f["m_pairwise"] = pair
    raw = model.read_bytes()
    (d / "m_trunc.npz").write_bytes(raw[:len(raw) // 2])
    f["m_trunc"] = d / "m_trunc.npz"
    (d / "m_text.npz").write_text("not a model\n")
    f["m_text"] = d / "m_text.npz"
    (d / "m_empty_file.npz").write_bytes(b"")
    f["m_empty_file"] = d / "m_empty_file.npz"
    wide = d / "wide.txt"
    wide.write_text("1 1:1 9:1\n")
    f["wide"] = wide
    return f


BAD_DATA = ["missing", "dir", "empty", "garbage", "nan_feature", "inf_label", "bad_token",
            "no_colon", "zero_index", "neg_index", "label_word", "qid_empty",
            "decreasing", "all_zero", "huge_values", "csv", "utf16", "huge_index",
            "tab_only", "gz_truncated", "gz_corrupt", "gz_not_gzip", "xz_truncated",
            "xz_corrupt", "bz2_truncated", "bz2_corrupt", "gz_garbage_inside"]
BAD_MODELS = ["m_csr_index", "m_nan", "m_3d", "m_empty", "m_gamma_nan", "m_degree",
              "m_bias_inf", "m_fi_range", "m_kernel_list", "m_layout",
              "m_version", "m_pairwise", "m_trunc", "m_text", "m_empty_file", "missing",
              "dir"]


def _table():
    """(argv with placeholders {name}, expected exit status)."""
    rows = []
    for name in BAD_DATA:
        rows.append((["fit", f"{{{name}}}", "-o", "{out}"], 1))
        rows.append((["cv", f"{{{name}}}", "--regparams", "1,10"], 1))
        if name not in ("inf_label", "all_zero"):   # predict ignores labels; zeros are data
            rows.append((["predict", "{lin}", f"{{{name}}}"], 1))
    for name in BAD_MODELS:
        rows.append((["predict", f"{{{name}}}", "{train}"], 1))
    rows += [
        (["predict", "{lin}", "{wide}"], 1),                       # extra features
        (["predict", "{lin}", "{train}", "-o", "{nodir}"], 1),     # no such folder
        (["predict", "{lin}", "{train}", "-o", "{dir}"], 1),       # output is a folder
        (["fit", "{train}", "-o", "{nodir}"], 1),
        (["fit", "{train}", "-o", "{dir}"], 1),
        (["fit", "{train}", "-o", "{out}", "--learner", "query-rankrls"], 1),  # no qids
        (["cv", "{train}", "--learner", "query-rankrls", "--regparams", "1",
          "--cv", "lqo"], 1),
    ]
    usage = [
        [], ["frobnicate"], ["fit"], ["fit", "{train}"], ["predict", "{lin}"],
        ["fit", "{train}", "-o", "{out}", "--learner", "nope"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "nope"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "abc"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "-1"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "nan"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "inf"],
        ["fit", "{train}", "-o", "{out}", "--bias", "-1"],
        ["fit", "{train}", "-o", "{out}", "--bias", "nan"],
        ["fit", "{train}", "-o", "{out}", "--bias", "inf"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--gamma", "0"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--gamma", "-2"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--gamma", "nan"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--gamma", "1e999"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "polynomial", "--degree", "0"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "polynomial", "--degree", "500"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "polynomial", "--degree", "2.5"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "polynomial", "--coef0", "nan"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "polynomial", "--gamma", "nan"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "linear", "--gamma", "1"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--degree", "2"],
        ["fit", "{train}", "-o", "{out}", "--kernel", "gaussian", "--bias", "1"],
        ["fit", "{train}", "-o", "{out}", "--cv", "loo", "--regparams", "2^x"],
        ["fit", "{train}", "-o", "{out}", "--cv", "nope", "--regparams", "1"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "1", "--regparams", "1,2",
         "--cv", "loo"],
        ["cv", "{train}", "--regparams", "2^-3..2^3:0"],
        ["cv", "{train}", "--regparams", "a,b"],
        ["cv", "{train}", "--regparams", "2^2000"],           # overflowed to a traceback
        ["cv", "{train}", "--regparams", "2^1..2^2000"],
        ["fit", "{train}", "-o", "{out}", "--regparam", "10^400"],
        ["cv", "{train}", "--regparams", ""],
        ["cv", "{train}", "--regparams", "-1"],
        ["cv", "{train}", "--regparams", "1,1"],
        ["cv", "{train}", "--regparams", "-1,1"],
        ["cv", "{train}", "--regparams", "nan"],
        ["cv", "{train}", "--regparams", "1", "--cv", "lqo"],
        ["cv", "{train}", "--regparams", "1", "--cv", "lpo", "--measure", "sqerror"],
        ["cv", "{train}", "--regparams", "1", "--cv", "kfold", "--folds", "500"],
        ["cv", "{train}", "--regparams", "1", "--cv", "kfold", "--folds", "0"],
        ["cv", "{train}", "--regparams", "1", "--cv", "kfold", "--folds", "1"],
        ["cv", "{train}", "--regparams", "1", "--cv", "kfold", "--folds", "-3"],
        ["cv", "{train}", "--regparams", "1", "--cv", "kfold", "--folds", "x"],
        ["cv", "{train}", "--regparams", "1", "--seed", "x"],
        ["cv", "{train}", "--regparams", "1", "--measure", "nope"],
        ["cv", "{rank}", "--learner", "query-rankrls", "--regparams", "1", "--cv", "loo"],
        ["predict"], ["predict", "{lin}", "{train}", "--bogus"], ["demo", "--seed", "x"],
        ["--bogus"],
    ]
    rows += [(argv, 2) for argv in usage]
    return rows


def _fill(argv, files, out):
    paths = {k: str(v) for k, v in files.items()}
    paths["out"] = str(out)
    return [a.format(**paths) if "{" in a else a for a in argv]


def _check(rows, results):
    bad = []
    for (argv, want), res in zip(rows, results):
        err = res["stderr"]
        lines = [ln for ln in err.strip().splitlines() if not ln.startswith(("usage:", " "))]
        ok = (res["code"] == want and "Traceback" not in err
              and len(lines) == 1 and lines[0].startswith(("rlscore: error:",
                                                           "rlscore fit: error:",
                                                           "rlscore cv: error:",
                                                           "rlscore predict: error:",
                                                           "rlscore demo: error:")))
        if argv == []:   # no command: the help on stdout, status 2
            ok = res["code"] == 2 and "Traceback" not in err
        if not ok:
            bad.append((argv, want, res["code"], err[-400:]))
    return bad


def test_table_has_at_least_100_invocations():
    assert len(_table()) >= 100


def test_bad_invocations(files, tmp_path, cli_in_child):
    rows = _table()
    argvs = [_fill(argv, files, tmp_path / "out.npz") for argv, _ in rows]
    results = []
    for i in range(0, len(argvs), 60):
        results += cli_in_child(argvs[i:i + 60])
    bad = _check(rows, results)
    assert not bad, "\n".join(map(str, bad))
    assert not (tmp_path / "out.npz").exists()    # nothing half-written


@pytest.mark.slow
def test_bad_invocations_one_process_each(files, tmp_path):
    """The same table through ``python -m rlscore``, one process per invocation: the
    status of the process itself (a signal would be negative)."""
    rows = _table()
    results = []
    for argv, _ in rows:
        argv = _fill(argv, files, tmp_path / "out.npz")
        proc = subprocess.run([sys.executable, "-m", "rlscore", *argv],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
        results.append({"code": proc.returncode, "stderr": proc.stderr})
    bad = _check(rows, results)
    assert not bad, "\n".join(map(str, bad))


def test_a_few_through_the_real_entry_point(files, tmp_path):
    """Four invocations as separate processes (the SIGSEGV model of the issue among
    them): the process status is the documented one."""
    for argv, want in [(["predict", "{m_csr_index}", "{train}"], 1),
                       (["fit", "{gz_truncated}", "-o", "{out}"], 1),
                       (["fit", "{train}", "-o", "{out}", "--bias", "-1"], 2),
                       (["predict", "{m_nan}", "{train}"], 1)]:
        argv = _fill(argv, files, tmp_path / "o.npz")
        proc = subprocess.run([sys.executable, "-m", "rlscore", *argv],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == want, (argv, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) <= 3   # usage lines + one error


def test_help_documents_the_exit_status(capsys):
    from rlscore.cli import main
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "exit status" in out and "1  bad data or model file" in out
    assert "2  usage error" in out
