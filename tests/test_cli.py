"""The ``rlscore`` command: fit / cv / predict / demo, bad input, and the end-to-end
workflow of the README through the real console script."""

import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from rlscore.cli import LEARNERS, Progress, main
from rlscore.datasets import make_ranking_queries, make_regression
from rlscore.learner import (GlobalRankRLS, KfoldRLS, LeaveOneOutRLS,
                             LeaveQueryOutRankRLS, QueryRankRLS, RLS)
from rlscore.model_io import load_model
from rlscore.utilities.reader import write_svmlight


@pytest.fixture
def ranking_files(tmp_path):
    X, y, q = make_ranking_queries(25, 8, 6, random_state=3)
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    write_svmlight(train, X[:160], y[:160], [f"q{i}" for i in q[:160]])
    write_svmlight(test, X[160:], y[160:], [f"q{i}" for i in q[160:]])
    return X, y, q, train, test


def _preds(text):
    return np.array([float(v) for v in text.split()])


def test_demo_prints_what_it_learned_and_cv_performance(run_cli):
    code, out, _ = run_cli(["demo"])
    assert code == 0
    assert "270 patients, 13 features" in out
    auc = float(re.search(r"leave-pair-out AUC = ([0-9.]+)", out).group(1))
    assert 0.85 < auc < 0.95          # heart disease is predictable, not perfectly
    assert "largest weights" in out


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_help_shows_examples(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fit", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "rlscore predict model.npz" in out
    for name in LEARNERS:
        assert name in out


def test_fit_predict_equals_library(ranking_files, tmp_path, run_cli):
    X, y, q, train, test = ranking_files
    model = tmp_path / "m.npz"
    code, out, _ = run_cli(["fit", train, "-o", model, "--learner", "query-rankrls",
                           "--regparam", "2.5"])
    assert code == 0 and "saved" in out
    code, out, _ = run_cli(["predict", model, test])
    assert code == 0
    ref = QueryRankRLS(X[:160], y[:160], q[:160], regparam=2.5).predict(X[160:])
    np.testing.assert_allclose(_preds(out), ref, rtol=1e-9, atol=1e-12)
    assert len(out.splitlines()) == 40
    # -o writes the same lines to a file
    code, _, _ = run_cli(["predict", model, test, "-o", tmp_path / "p.txt"])
    assert code == 0
    np.testing.assert_allclose(_preds((tmp_path / "p.txt").read_text()), ref, rtol=1e-9)


def test_gaussian_selection_matches_learner(ranking_files, tmp_path, run_cli):
    X, y, q, train, test = ranking_files
    model = tmp_path / "g.npz"
    grid = [0.01, 0.1, 1.0, 10.0]
    code, out, _ = run_cli(["fit", train, "-o", model, "--kernel", "gaussian", "--gamma",
                           "0.1", "--regparams", ",".join(map(str, grid)), "--cv", "loo"])
    assert code == 0
    ref = LeaveOneOutRLS(X[:160], y[:160], kernel="GaussianKernel", gamma=0.1,
                         regparams=grid)
    assert f"regparam {ref.regparam:g}" in out
    code, out, _ = run_cli(["predict", model, test])
    np.testing.assert_allclose(_preds(out), ref.predict(X[160:]), rtol=1e-9, atol=1e-12)
    meta = load_model(model, return_metadata=True)[1]
    assert meta["info"]["cv"] == "loo"
    np.testing.assert_allclose(meta["info"]["cv_performances"], ref.cv_performances)


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_cv_table_matches_selection_classes(ranking_files, run_cli):
    X, y, q, train, _ = ranking_files
    grid = [0.1, 1.0, 100.0]
    code, out, _ = run_cli(["cv", train, "--learner", "query-rankrls", "--regparams",
                           "0.1,1,100", "--cv", "lqo"])
    assert code == 0
    table = [line.split() for line in out.splitlines()[2:]]
    ref = LeaveQueryOutRankRLS(X[:160], y[:160], q[:160], regparams=grid)
    np.testing.assert_allclose([float(r[0]) for r in table], grid)
    np.testing.assert_allclose([float(r[1]) for r in table], ref.cv_performances,
                               atol=1e-6)
    # K-fold over whole queries (QueryGroups.folds): the pooled hold-out predictions of
    # RLS retrained without each fold (the file has qids; sqerror ignores them)
    from rlscore._groups import QueryGroups
    from rlscore.measure import sqerror
    folds = QueryGroups.from_qids([f"q{i}" for i in q[:160]]).folds(4, 7)
    code, out, _ = run_cli(["cv", train, "--regparams", "0.1,1,100", "--cv", "kfold",
                           "--folds", "4", "--seed", "7"])
    vals = [float(line.split()[1]) for line in out.splitlines()[2:]]
    for lam, v in zip(grid, vals):
        P = np.empty(160)
        for fold in folds:
            rest = np.setdiff1d(np.arange(160), fold)
            P[fold] = RLS(X[rest], y[rest], regparam=lam).predict(X[fold])
        np.testing.assert_allclose(v, sqerror(y[:160], P), rtol=1e-5)
    for fold in folds:                          # no query is split between folds
        assert set(q[fold]).isdisjoint(set(np.delete(q[:160], fold)))


def test_qids_not_contiguous_are_grouped(ranking_files, tmp_path, run_cli):
    X, y, q, _, test = ranking_files
    perm = np.random.default_rng(0).permutation(160)
    shuffled = tmp_path / "shuffled.txt"
    write_svmlight(shuffled, X[perm], y[perm], [f"q{i}" for i in q[perm]])
    model = tmp_path / "s.npz"
    assert run_cli(["fit", shuffled, "-o", model, "--learner", "query-rankrls"])[0] == 0
    out = run_cli(["predict", model, test])[1]
    ref = QueryRankRLS(X[:160], y[:160], q[:160], regparam=1.0).predict(X[160:])
    np.testing.assert_allclose(_preds(out), ref, rtol=1e-8, atol=1e-10)


def test_gigantic_feature_indices_stay_sparse(tmp_path, run_cli):
    rng = np.random.default_rng(5)
    big = 2_000_000_000
    lines, rows = [], []
    for i in range(30):
        a, b = (float(v) for v in rng.standard_normal(2))
        rows.append((a, b))
        lines.append(f"{a + 2 * b!r} 7:{a!r} {big}:{b!r}\n")
    (tmp_path / "big.txt").write_text("".join(lines))
    model = tmp_path / "big.npz"
    assert run_cli(["fit", tmp_path / "big.txt", "-o", model, "--regparam", "0.5"])[0] == 0
    pred, meta = load_model(model, return_metadata=True)
    assert pred.W.shape == (2,) and meta["n_file_features"] == big
    np.testing.assert_array_equal(meta["feature_indices"], [6, big - 1])
    R = np.array(rows)
    ref = RLS(R, R[:, 0] + 2 * R[:, 1], regparam=0.5)
    # a test row with an unseen in-range feature (index 9): the linear model ignores it
    (tmp_path / "t.txt").write_text(f"0 7:1.5 9:4 {big}:-2\n")
    out = run_cli(["predict", model, tmp_path / "t.txt"])[1]
    np.testing.assert_allclose(_preds(out), ref.predict(np.array([[1.5, -2.0]])),
                               rtol=1e-9)


def test_feature_count_mismatch_policy(tmp_path, run_cli):
    X, y = make_regression(40, 4, random_state=1)
    write_svmlight(tmp_path / "tr.txt", X, y)
    for kernel in (["--kernel", "linear"], ["--kernel", "gaussian", "--gamma", "0.2"]):
        model = tmp_path / "m.npz"
        assert run_cli(["fit", tmp_path / "tr.txt", "-o", model, *kernel])[0] == 0
        extra = np.hstack([X[:5], np.full((5, 2), 0.7)])
        write_svmlight(tmp_path / "extra.txt", extra, y[:5])
        code, out, err = run_cli(["predict", model, tmp_path / "extra.txt"])
        assert code == 1 and "feature 6 is non-zero" in err and len(err.splitlines()) == 1
        # extra features that are all zero are fine; fewer features are zero-padded
        write_svmlight(tmp_path / "zero.txt", np.hstack([X[:5], np.zeros((5, 2))]), y[:5])
        write_svmlight(tmp_path / "few.txt", X[:5, :2], y[:5])
        ref = _preds(run_cli(["predict", model, tmp_path / "zero.txt"])[1])
        # with --ignore-extra-features the unseen features count as the full model would
        code, out, _ = run_cli(["predict", model, tmp_path / "extra.txt",
                               "--ignore-extra-features"])
        assert code == 0
        pred = load_model(model)
        if kernel[1] == "linear":
            np.testing.assert_allclose(_preds(out), ref, rtol=1e-12)
            full = pred.predict(X[:5])
        else:                 # exp(-g|x-b|^2) with the two extra coordinates included
            from rlscore.kernel import GaussianKernel
            Kx = GaussianKernel(np.hstack([pred.kernel.train_X.toarray(), np.zeros((40, 2))]),
                                gamma=0.2).getKM(extra)
            full = Kx @ pred.A
            np.testing.assert_allclose(_preds(out), full, rtol=1e-10)
            full = pred.predict(X[:5])
        np.testing.assert_allclose(ref, full, rtol=1e-12)
        few = _preds(run_cli(["predict", model, tmp_path / "few.txt"])[1])
        np.testing.assert_allclose(few, pred.predict(np.hstack([X[:5, :2],
                                                                np.zeros((5, 2))])))


@pytest.mark.parametrize("content,needle", [
    ("1 1:0.5\nyes 1:0.3 2:1\n", "label 'yes' is not a real number"),
    ("1 1:0.5 1:0.7\n", "must strictly increase"),
    ("a,b,c\n1,2,3\n", "not a real number"),
    ("1 1:0.5\n0 2:x\n", "malformed feature token"),
    ("", "contains no examples"),
    ("1 qid:1 1:0.5\n0 1:0.2\n", "has no qid"),
])
def test_bad_training_files_one_line_error(tmp_path, run_cli, content, needle):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "m.npz"])
    assert code == 1 and needle in err and len(err.strip().splitlines()) == 1


def test_binary_garbage_and_bad_model(tmp_path, run_cli):
    (tmp_path / "bin.txt").write_bytes(bytes(range(256)) * 4)
    code, _, err = run_cli(["fit", tmp_path / "bin.txt", "-o", tmp_path / "m.npz"])
    assert code == 1 and len(err.strip().splitlines()) == 1
    (tmp_path / "model.npz").write_text("not a model")
    (tmp_path / "d.txt").write_text("1 1:1\n")
    code, _, err = run_cli(["predict", tmp_path / "model.npz", tmp_path / "d.txt"])
    assert code == 1 and "not a readable rlscore model file" in err
    code, _, err = run_cli(["predict", tmp_path / "nope.npz", tmp_path / "d.txt"])
    assert code == 1 and "No such file" in err


def test_missing_qid_for_ranking(tmp_path, run_cli):
    X, y = make_regression(20, 3, random_state=0)
    write_svmlight(tmp_path / "noq.txt", X, y)
    code, _, err = run_cli(["fit", tmp_path / "noq.txt", "-o", tmp_path / "m.npz",
                           "--learner", "query-rankrls"])
    assert code == 1 and "needs qid:" in err
    code, _, err = run_cli(["cv", tmp_path / "noq.txt", "--learner", "query-rankrls",
                           "--regparams", "1", "--cv", "lqo"])
    assert code == 1 and "needs qid:" in err
    # global RankRLS needs no qids
    code, _, _ = run_cli(["fit", tmp_path / "noq.txt", "-o", tmp_path / "g.npz",
                          "--learner", "rankrls", "--regparam", "3"])
    assert code == 0
    np.testing.assert_allclose(load_model(tmp_path / "g.npz").predict(X),
                               GlobalRankRLS(X, y, regparam=3.0).predict(X), rtol=1e-9)


@pytest.mark.parametrize("argv", [
    ["cv", "T", "--regparams", "1", "--learner", "rankrls", "--cv", "loo"],  # no loo
    ["cv", "T", "--regparams", "2^x"],
    ["cv", "T", "--regparams", "2^3..2^1"],                         # decreasing range
    ["cv", "T", "--regparams", "1", "--measure", "ndcg@0"],
    ["cv", "T", "--regparams", "1", "--measure", "map,cindex"],     # one for selection
    ["cv", "T", "--regparams", "1", "--measure", "p@5:standard"],
    ["fit", "T", "-o", "M", "--regparam", "2^"],
    ["fit", "T", "-o", "M", "--basis", "5"],                        # linear kernel
    ["fit", "T", "-o", "M", "--kernel", "gaussian", "--basis", "500"],
    ["cv", "T", "--regparams", "1", "--cv", "loo", "--valid", "T"],
    ["cv", "T", "--regparams", "a,b"],
    ["cv", "T", "--regparams", "-1"],
    ["fit", "T", "-o", "M", "--regparam", "1", "--regparams", "1,2", "--cv", "loo"],
    ["fit", "T", "-o", "M", "--kernel", "linear", "--gamma", "1"],
    ["cv", "T", "--regparams", "1", "--cv", "lpo", "--measure", "sqerror"],
    ["cv", "T", "--regparams", "1", "--cv", "kfold", "--folds", "500"],
])
def test_usage_errors_exit_2(tmp_path, run_cli, argv):
    X, y = make_regression(20, 3, random_state=0)
    write_svmlight(tmp_path / "t.txt", X, y)
    argv = [str(tmp_path / "t.txt") if a == "T" else str(tmp_path / "m.npz") if a == "M"
            else a for a in argv]
    code, _, err = run_cli(argv)
    assert code == 2 and "rlscore: error:" in err


def test_argparse_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fit", "x.txt", "--learner", "no-such-learner", "-o", "m"])
    assert exc.value.code == 2


def test_progress_only_on_a_terminal():
    import io

    class TTY(io.StringIO):
        def isatty(self):
            return True

    quiet, tty = io.StringIO(), TTY()
    for stream in (quiet, tty):
        with Progress("working", total=4, stream=stream) as p:
            for _ in range(4):
                p.step()
    assert quiet.getvalue() == ""
    assert "4/4" in tty.getvalue() and "working" in tty.getvalue()


def _console():
    exe = shutil.which("rlscore")
    return [exe] if exe else [sys.executable, "-m", "rlscore"]


def test_module_entry_point():
    # outside the checkout, so that the installed package (not the source folder) runs
    res = subprocess.run([sys.executable, "-m", "rlscore", "--help"], capture_output=True,
                         text=True, timeout=300, cwd=tempfile.gettempdir())
    assert res.returncode == 0 and "demo" in res.stdout and "examples:" in res.stdout


def test_readme_workflow_end_to_end(tmp_path):
    """demo -> fit on an svmlight file with qids -> cv over regparam -> save -> predict,
    through the real console script, in a pipe (no progress output)."""
    X, y, q = make_ranking_queries(20, 10, 5, random_state=11)
    write_svmlight(tmp_path / "train.txt", X[:150], y[:150], q[:150])
    write_svmlight(tmp_path / "test.txt", X[150:], y[150:], q[150:])
    cwd = tempfile.gettempdir()

    def run(*args):
        res = subprocess.run(_console() + [str(a) for a in args], capture_output=True,
                             text=True, timeout=300, cwd=cwd)
        return res

    res = run("demo")
    assert res.returncode == 0 and "leave-pair-out AUC" in res.stdout
    res = run("cv", tmp_path / "train.txt", "--learner", "query-rankrls", "--regparams",
              "0.01,1,100,1e4,1e6", "--cv", "lqo")
    assert res.returncode == 0 and res.stderr == "" and "<- best" in res.stdout
    res = run("fit", tmp_path / "train.txt", "-o", tmp_path / "model.npz", "--learner",
              "query-rankrls", "--regparams", "0.01,1,100,1e4,1e6", "--cv", "lqo")
    assert res.returncode == 0 and res.stderr == ""
    sel = LeaveQueryOutRankRLS(X[:150], y[:150], q[:150],
                               regparams=[0.01, 1, 100, 1e4, 1e6])
    res = run("predict", tmp_path / "model.npz", tmp_path / "test.txt", "-o",
              tmp_path / "pred.txt")
    assert res.returncode == 0
    np.testing.assert_allclose(_preds((tmp_path / "pred.txt").read_text()),
                               sel.predict(X[150:]), rtol=1e-9, atol=1e-12)
    res = run("predict", tmp_path / "model.npz", tmp_path / "missing.txt")
    assert res.returncode == 1 and res.stderr.count("\n") == 1
    res = run("fit", tmp_path / "train.txt")
    assert res.returncode == 2


def test_squared_hinge_ranksvm_learner(tmp_path, capsys):
    from rlscore.learner.ranksvm import LinearRankSVM
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 4))
    y = np.round(X @ [1.0, -1.0, 0.5, 0.0] + 0.3 * rng.standard_normal(120))
    q = np.repeat(np.arange(6), 20)
    write_svmlight(tmp_path / "train.txt", X[:80], y[:80], q[:80])
    write_svmlight(tmp_path / "test.txt", X[80:], y[80:], q[80:])
    assert main(["fit", str(tmp_path / "train.txt"), "-o", str(tmp_path / "m.npz"),
                 "--learner", "ranksvm-squared", "--regparam", "0.01", "-q"]) == 0
    assert main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "test.txt"), "-o",
                 str(tmp_path / "p.txt")]) == 0
    ref = LinearRankSVM(X[:80], y[:80], qids=q[:80], regparam=0.01, loss="squared_hinge")
    assert ref.solver == "newton"
    np.testing.assert_allclose(_preds((tmp_path / "p.txt").read_text()), ref.predict(X[80:]),
                               rtol=1e-6, atol=1e-9)
    assert main(["cv", str(tmp_path / "train.txt"), "--learner", "ranksvm-squared",
                 "--regparams", "0.01,1", "--cv", "kfold", "--folds", "3"]) == 0
    assert "<- best" in capsys.readouterr().out


def test_predict_streams_chunks_with_the_whole_file_result(tmp_path, small_text_chunks,
                                                            capsys):
    """predict reads the data file in chunks (here 64 bytes, dozens of chunks); the
    lines equal the predictions of the whole file read at once."""
    from rlscore.learner import RLS
    from rlscore.utilities import reader
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    y = X @ rng.normal(size=5)
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    reader.write_svmlight(str(train), X, y)
    Xt = rng.normal(size=(200, 5))
    reader.write_svmlight(str(test), Xt, np.zeros(200))
    model = tmp_path / "m.npz"
    assert main(["fit", str(train), "-o", str(model), "--regparam", "0.5", "-q"]) == 0
    del small_text_chunks[:]
    assert main(["predict", str(model), str(test)]) == 0
    assert len(small_text_chunks) > 12 and sum(small_text_chunks) == 200
    got = np.array([float(v) for v in capsys.readouterr().out.split()])
    ref = RLS(X, y, regparam=0.5).predict(Xt)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert got.size == 200


def test_progress_forced_on_reports_stages_and_changes_no_result(tmp_path, capsys):
    """--progress writes one line per stage and per grid step on stderr (here a file,
    not a terminal); the model is the same with --no-progress."""
    from rlscore.model_io import load_model
    from rlscore.utilities.reader import write_svmlight
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = X @ rng.normal(size=4) + 0.1 * rng.normal(size=40)
    train = tmp_path / "t.txt"
    write_svmlight(str(train), X, y)
    out = {}
    for flag in ("--progress", "--no-progress"):
        path = tmp_path / f"m{flag}.npz"
        assert main(["fit", str(train), "-o", str(path), "--regparams", "0.01,0.1,1,10",
                     "--cv", "loo", "-q", flag]) == 0
        out[flag] = capsys.readouterr().err
        assert path.exists()
    err = out["--progress"]
    assert f"rlscore: reading {train}: started" in err
    assert "rlscore: regparam grid: step 4/4 (regparam=10" in err
    assert re.search(r"rlscore: selecting among 4 regparams \(loo\): done in", err)
    assert "step" not in out["--no-progress"]
    a = load_model(tmp_path / "m--progress.npz")
    b = load_model(tmp_path / "m--no-progress.npz")
    np.testing.assert_array_equal(a.W, b.W)


def test_cv_plot_curve_equals_the_printed_table(tmp_path, capsys):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rlscore.utilities.reader import write_svmlight
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    y = X @ rng.normal(size=3) + 0.5 * rng.normal(size=50)
    train = tmp_path / "t.txt"
    write_svmlight(str(train), X, y)
    png = tmp_path / "cv.png"
    captured = {}
    real_savefig = plt.Figure.savefig

    def spy(fig, *a, **k):
        captured["xy"] = (fig.axes[0].lines[0].get_xdata(), fig.axes[0].lines[0].get_ydata())
        return real_savefig(fig, *a, **k)

    plt.Figure.savefig = spy
    try:
        assert main(["cv", str(train), "--regparams", "0.01,0.1,1,10,100", "--cv", "loo",
                     "--plot", str(png)]) == 0
    finally:
        plt.Figure.savefig = real_savefig
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines()[2:]]
    table = np.array([[float(r[0]), float(r[1])] for r in rows])
    np.testing.assert_allclose(captured["xy"][0], table[:, 0])
    np.testing.assert_allclose(captured["xy"][1], table[:, 1], atol=5e-7)   # 6 decimals
