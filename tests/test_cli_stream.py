"""rlscore fit --stream: the file read in passes gives the in-memory model."""

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.utilities.reader import write_svmlight


def _file(tmp_path, m=80):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m)
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    return path, X


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
    capsys.readouterr()
    preds = []
    for name in ("mem.npz", "st.npz"):
        assert main(["predict", str(tmp_path / name), str(path)]) == 0
        preds.append(np.array(capsys.readouterr().out.split(), dtype=float))
    np.testing.assert_allclose(preds[1], preds[0], rtol=1e-9, atol=1e-12)


def test_stream_refuses_without_basis(tmp_path, capsys):
    path, _ = _file(tmp_path)
    rc = main(["fit", str(path), "--kernel", "gaussian", "--stream", "-o",
               str(tmp_path / "m.npz")])
    assert rc != 0
    assert "--basis" in capsys.readouterr().err
