"""rlscore fit --stream: the file read in passes gives the in-memory model."""

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.utilities.reader import write_svmlight

# budgets placed between estimates of the arrays: the process's own memory is
# taken as 0 here (the whole-process budget: tests/test_memory_rss.py)
pytestmark = pytest.mark.usefixtures("arrays_only_budget")


def _file(tmp_path, m=80):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m)
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    return path, X


def _assert_same_predictions(tmp_path, capsys, path):
    """``rlscore predict`` of mem.npz and st.npz on ``path`` agree (1e-9)."""
    capsys.readouterr()
    preds = []
    for name in ("mem.npz", "st.npz"):
        assert main(["predict", str(tmp_path / name), str(path)]) == 0
        preds.append(np.array(capsys.readouterr().out.split(), dtype=float))
    np.testing.assert_allclose(preds[1], preds[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cv", [["--cv", "loo"], ["--cv", "kfold", "--folds", "4"], []])
def test_stream_equals_in_memory(tmp_path, capsys, cv):
    path, X = _file(tmp_path)
    common = ["fit", str(path), "--kernel", "gaussian", "--gamma", "0.3", "--basis", "12",
              "--regparams", "2^-4..2^4:2", "-q"] + cv
    if not cv:
        common = [a for a in common if a not in ("--regparams", "2^-4..2^4:2")]
    assert main(common + ["-o", str(tmp_path / "mem.npz")]) == 0
    assert main(common + ["--stream", "--block-size", "7",
                          "-o", str(tmp_path / "st.npz")]) == 0
    _assert_same_predictions(tmp_path, capsys, path)


def test_stream_refuses_without_basis(tmp_path, capsys):
    path, _ = _file(tmp_path)
    rc = main(["fit", str(path), "--kernel", "gaussian", "--stream", "-o",
               str(tmp_path / "m.npz")])
    assert rc != 0
    assert "--basis" in capsys.readouterr().err


def _zero_based_file(tmp_path, m=60):
    """A 0-based file (the first feature is index 0), as scikit-learn writes them."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, 3))
    y = X[:, 0] + 0.1 * rng.standard_normal(m)
    path = tmp_path / "zero.txt"
    with open(path, "w") as fh:
        for xi, yi in zip(X, y):
            feats = " ".join(f"{j}:{float(v)!r}" for j, v in enumerate(xi))
            fh.write(f"{float(yi)!r} {feats}\n")
    return path


@pytest.mark.parametrize("zero_based", [[], ["--zero-based", "auto"],
                                        ["--zero-based", "yes"]])
def test_stream_reads_zero_based_files_as_in_memory(tmp_path, capsys, zero_based):
    """--stream follows --zero-based (default auto) as the in-memory command does; it
    used to read every file 1-based and refuse 0-based ones."""
    path = _zero_based_file(tmp_path)
    common = ["fit", str(path), "--kernel", "gaussian", "--gamma", "0.3", "--basis", "9",
              "-q"] + zero_based
    assert main(common + ["-o", str(tmp_path / "mem.npz")]) == 0
    assert main(common + ["--stream", "--block-size", "7",
                          "-o", str(tmp_path / "st.npz")]) == 0
    _assert_same_predictions(tmp_path, capsys, path)


def test_stream_zero_based_no_names_the_option(tmp_path, capsys):
    path = _zero_based_file(tmp_path)
    rc = main(["fit", str(path), "--kernel", "gaussian", "--basis", "9", "--stream",
               "--zero-based", "no", "-o", str(tmp_path / "m.npz")])
    assert rc == 1
    err = capsys.readouterr().err
    assert "--zero-based" in err and "zero_based=" not in err
    assert not (tmp_path / "m.npz").exists()


def test_svmlight_source_auto_index_base(tmp_path):
    from rlscore.utilities.reader import SvmlightSource, read_svmlight
    zero = _zero_based_file(tmp_path)
    one, _ = _file(tmp_path)
    for path, base in ((zero, True), (one, False)):
        src = SvmlightSource(path, chunk_bytes=64)
        X, _, _ = read_svmlight(path)
        assert src.zero_based is base and src.d == X.shape[1]
        got = np.vstack([Xb.toarray() for _, Xb in src.blocks(5)])
        np.testing.assert_array_equal(got, X.toarray())


def _ranking_file(tmp_path, m=90):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(m)
    q = np.repeat(np.arange(15), 6)
    path = tmp_path / "rank.txt"
    write_svmlight(path, X, y, qids=q)
    return path


@pytest.mark.parametrize("learner", ["query-rankrls", "rankrls"])
@pytest.mark.parametrize("solver", [["--stream"], ["--solver", "pcg"]])
def test_stream_ranking_equals_in_memory(tmp_path, capsys, learner, solver):
    path = _ranking_file(tmp_path)
    common = ["fit", str(path), "--learner", learner, "--kernel", "gaussian",
              "--gamma", "0.3", "--basis", "20", "--regparam", "0.5", "-q"]
    assert main(common + ["-o", str(tmp_path / "mem.npz")]) == 0
    assert main(common + solver + ["--block-size", "7",
                                   "-o", str(tmp_path / "st.npz")]) == 0
    capsys.readouterr()
    preds = []
    for name in ("mem.npz", "st.npz"):
        assert main(["predict", str(tmp_path / name), str(path)]) == 0
        preds.append(np.array(capsys.readouterr().out.split(), dtype=float))
    tol = 1e-9 if solver == ["--stream"] else 1e-5
    scale = np.abs(preds[0]).max()
    assert np.abs(preds[1] - preds[0]).max() <= tol * scale


def test_stream_ranking_refuses_a_grid(tmp_path, capsys):
    path = _ranking_file(tmp_path)
    rc = main(["fit", str(path), "--learner", "query-rankrls", "--kernel", "gaussian",
               "--basis", "10", "--solver", "pcg", "--regparams", "0.1,1",
               "-o", str(tmp_path / "m.npz")])
    assert rc != 0
    assert "one --regparam" in capsys.readouterr().err


def test_stream_states_its_estimate_before_the_run(tmp_path, capsys):
    path, _ = _file(tmp_path)
    assert main(["fit", str(path), "--kernel", "gaussian", "--basis", "12", "--stream",
                 "--block-size", "7", "--regparams", "0.1,1", "--cv", "loo", "-o",
                 str(tmp_path / "m.npz")]) == 0
    err = capsys.readouterr().err
    assert "streaming 80 rows in blocks of 7; estimated peak" in err


def test_stream_refuses_a_run_that_cannot_fit(tmp_path, capsys, monkeypatch):
    """Too little free memory even for streaming: exit code 2 before training, the
    estimate and the command's own ways out in the message, no model file."""
    import rlscore.core.nystrom._memory_plan as plan
    monkeypatch.setattr(plan, "available_memory", lambda: 2**16)
    path, _ = _file(tmp_path)
    out = tmp_path / "m.npz"
    rc = main(["fit", str(path), "--kernel", "gaussian", "--basis", "12", "--stream",
               "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert "--memory-budget=0.03125 MiB is too small" in err
    ways = err.split("Ways out:")[1]
    for way_out in ("--basis", "a larger --memory-budget"):
        assert way_out in ways
    # blocks of one row, and PCG, exceed this budget: neither is offered as a way out
    for no_way in ("--block-size", "--solver pcg"):
        assert no_way not in ways


@pytest.mark.parametrize("option", [["--block-size", "7"], ["--memory-budget", "64"]])
def test_streaming_options_imply_stream(tmp_path, capsys, option):
    """--block-size and --memory-budget were silently ignored without --stream; they
    now ask for the streamed fit (the same model)."""
    path, _ = _file(tmp_path)
    common = ["fit", str(path), "--kernel", "gaussian", "--gamma", "0.3", "--basis", "12"]
    assert main(common + ["-o", str(tmp_path / "mem.npz"), "-q"]) == 0
    assert main(common + option + ["-o", str(tmp_path / "st.npz")]) == 0
    assert "streaming" in capsys.readouterr().err
    _assert_same_predictions(tmp_path, capsys, path)


@pytest.mark.parametrize("option", [["--block-size", "7"], ["--memory-budget", "1"],
                                    ["--solver", "pcg"]])
def test_streaming_options_without_basis_are_refused(tmp_path, capsys, option):
    path, _ = _file(tmp_path)
    rc = main(["fit", str(path), "--kernel", "gaussian", "-o", str(tmp_path / "m.npz")]
              + option)
    assert rc == 2
    err = capsys.readouterr().err
    assert option[0] in err and "--basis" in err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("learner", ["rls", "query-rankrls"])
def test_float32_pcg_near_float64_and_refused_without_pcg(tmp_path, capsys, learner):
    """``--solver pcg --float32``: single-precision kernel blocks give the float64
    PCG model's predictions to 1e-4 relative (and not bit for bit: the option is
    used); --float32 with the direct solver is a usage error naming the way out."""
    path = _ranking_file(tmp_path)
    common = ["fit", str(path), "--learner", learner, "--kernel", "gaussian",
              "--gamma", "0.3", "--basis", "20", "--regparam", "0.5", "-q",
              "--solver", "pcg"]
    assert main(common + ["-o", str(tmp_path / "f64.npz")]) == 0
    assert main(common + ["--float32", "-o", str(tmp_path / "f32.npz")]) == 0
    capsys.readouterr()
    preds = []
    for name in ("f64.npz", "f32.npz"):
        assert main(["predict", str(tmp_path / name), str(path)]) == 0
        preds.append(np.array(capsys.readouterr().out.split(), dtype=float))
    scale = np.abs(preds[0]).max()
    assert np.abs(preds[1] - preds[0]).max() <= 1e-4 * scale
    assert np.any(preds[1] != preds[0])
    rc = main(common[:-2] + ["--stream", "--float32", "-o", str(tmp_path / "x.npz")])
    assert rc == 2
    assert "--float32 applies to the PCG solver" in capsys.readouterr().err
