"""The command line: ``rlscore demo`` runs the main job on the bundled data."""

import re
import subprocess
import tempfile
import sys

from rlscore.cli import main


def test_demo_prints_what_it_learned_and_cv_performance(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "270 patients, 13 features" in out
    auc = float(re.search(r"leave-pair-out AUC = ([0-9.]+)", out).group(1))
    assert 0.85 < auc < 0.95          # heart disease is predictable, not perfectly
    assert "largest weights" in out


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_module_entry_point():
    # outside the checkout, so that the installed package (not the source folder) runs
    res = subprocess.run([sys.executable, "-m", "rlscore", "--help"], capture_output=True,
                         text=True, timeout=300, cwd=tempfile.gettempdir())
    assert res.returncode == 0 and "demo" in res.stdout


def test_ranksvm_command(tmp_path, capsys):
    import numpy as np

    from rlscore.learner.ranksvm import LinearRankSVM
    from rlscore.measure import query_cindex
    from rlscore.utilities.reader import write_svmlight

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 4))
    y = np.round(X @ [1.0, -1.0, 0.5, 0.0] + 0.3 * rng.standard_normal(120))
    q = np.repeat(np.arange(6), 20)
    write_svmlight(tmp_path / "train.txt", X[:80], y[:80], q[:80])
    write_svmlight(tmp_path / "test.txt", X[80:], y[80:], q[80:])
    out_w = tmp_path / "w.txt"
    assert main(["ranksvm", str(tmp_path / "train.txt"), "--test",
                 str(tmp_path / "test.txt"), "--loss", "squared_hinge", "--regparam",
                 "0.01", "--tol", "1e-8", "--save-weights", str(out_w)]) == 0
    out = capsys.readouterr().out
    ref = LinearRankSVM(X[:80], y[:80], qids=q[:80], regparam=0.01, tol=1e-8,
                        loss="squared_hinge")
    np.testing.assert_allclose(np.loadtxt(out_w), ref.predictor.W, rtol=1e-6)
    assert "solver newton" in out and "4 queries" in out
    c = float(re.search(r"c-index \(mean over queries\) ([0-9.]+)", out).group(1))
    assert c == round(query_cindex(y[80:], X[80:] @ ref.predictor.W, q[80:]), 4)
    assert main(["ranksvm", str(tmp_path / "train.txt"), "--solver", "newton"]) == 1
    assert "no Hessian" in capsys.readouterr().err
