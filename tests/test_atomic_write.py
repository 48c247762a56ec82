"""Atomic writes: a save that fails half-way (file-size limit, failing rename, an
interrupt in the middle of the data) leaves the previous model intact and loadable, and
no temporary file behind."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rlscore._io import atomic_write
from rlscore.model_io import load_model, save_model
from rlscore.predictor import LinearPredictor


def _models(rng):
    old = LinearPredictor(rng.standard_normal(5), 0.5)
    new = LinearPredictor(rng.standard_normal(400_000), 1.5)   # ~3 MB, incompressible
    return old, new


def _leftovers(folder):
    return [p for p in os.listdir(folder) if p.endswith(".tmp")]


def test_failing_rename_keeps_previous_model(tmp_path, rng, monkeypatch):
    old, new = _models(rng)
    path = tmp_path / "m.npz"
    save_model(old, path)

    def boom(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="No space"):
        save_model(new, path)
    monkeypatch.undo()
    X = rng.standard_normal((3, 5))
    np.testing.assert_array_equal(load_model(path).predict(X), old.predict(X))
    assert _leftovers(tmp_path) == []


def test_interrupt_in_the_middle_of_the_data(tmp_path, rng, monkeypatch):
    old, new = _models(rng)
    path = tmp_path / "m.npz"
    save_model(old, path)
    real = np.savez_compressed

    def half_then_interrupt(fh, **arrays):
        real(fh, **arrays)
        fh.truncate(fh.tell() // 2)
        raise KeyboardInterrupt
    monkeypatch.setattr(np, "savez_compressed", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_model(new, path)
    monkeypatch.undo()
    assert load_model(path).W.shape == (5,)
    assert _leftovers(tmp_path) == []


def test_file_size_limit_in_a_child(tmp_path, rng):
    """RLIMIT_FSIZE below the new model's size: the write fails with EFBIG (SIGXFSZ
    ignored, as a careful process would), the old model still loads."""
    old, _ = _models(rng)
    path = tmp_path / "m.npz"
    save_model(old, path)
    code = textwrap.dedent("""
        import resource, signal, sys
        import numpy as np
        from rlscore.model_io import save_model
        from rlscore.predictor import LinearPredictor
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        W = np.random.default_rng(0).standard_normal(400_000)
        try:
            save_model(LinearPredictor(W), sys.argv[1])
        except OSError as exc:
            print("failed", exc.errno)
    """)
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("failed"), out.stdout
    assert load_model(path).W.shape == (5,)
    assert _leftovers(tmp_path) == []


def test_successful_write_replaces_and_text_mode(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("old\n")
    with atomic_write(path, "w") as fh:
        fh.write("new\n")
        assert path.read_text() == "old\n"      # not visible before the rename
    assert path.read_text() == "new\n"
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(path, "a"):
            pass
    with pytest.raises(FileNotFoundError):
        with atomic_write(tmp_path / "nope" / "x", "w"):
            pass
    with pytest.raises(IsADirectoryError):
        with atomic_write(tmp_path, "w"):
            pass


def test_cli_predict_output_is_atomic(tmp_path, rng, monkeypatch, capsys):
    from rlscore.cli import main
    from rlscore.utilities.reader import write_svmlight
    X = rng.standard_normal((6, 3))
    write_svmlight(tmp_path / "d.txt", X, np.zeros(6))
    save_model(LinearPredictor(np.ones(3)), tmp_path / "m.npz",
               feature_indices=[0, 1, 2], n_file_features=3)
    out = tmp_path / "pred.txt"
    out.write_text("previous predictions\n")

    def boom(src, dst):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(os, "replace", boom)
    code = main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "d.txt"), "-o",
                 str(out)])
    monkeypatch.undo()
    assert code == 1 and "Input/output error" in capsys.readouterr().err
    assert out.read_text() == "previous predictions\n"
    assert _leftovers(tmp_path) == []
    assert main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "d.txt"), "-o",
                 str(out)]) == 0
    np.testing.assert_allclose(np.loadtxt(out), X.sum(axis=1), rtol=1e-12)
