import io
import logging
import sys

import pytest

from rlscore._progress import Progress, progress, stage, verbosity


def test_silent_by_default_but_logged(caplog):
    stream = io.StringIO()
    with caplog.at_level(logging.DEBUG, logger="rlscore"):
        with progress("grid", total=3, stream=stream) as p:
            for lam in (0.1, 1.0, 10.0):
                p.step(regparam=lam)
    assert stream.getvalue() == ""
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == "grid: started (3 steps)"
    assert "grid: step 2/3 (regparam=1)" in messages
    assert messages[-1].startswith("grid: done in")


def test_verbose_writes_to_the_stream(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm":
            raise ImportError
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    stream = io.StringIO()
    with progress("MINRES", total=2, verbose=True, stream=stream) as p:
        p.step(residual=1e-3)
        p.step(residual=1e-6)
    text = stream.getvalue()
    assert "MINRES: started" in text
    assert "MINRES: 2/2 (residual=1e-06)" in text
    assert "MINRES: done in" in text


def test_verbose_with_tqdm_draws_a_bar():
    pytest.importorskip("tqdm")
    stream = io.StringIO()
    with progress("folds", total=4, verbose=True, stream=stream) as p:
        for _ in range(4):
            p.step()
    text = stream.getvalue()
    assert "folds:   0%|" in text          # the bar was drawn
    assert "folds: done in" in text


def test_exception_closes_without_done_message():
    stream = io.StringIO()
    with pytest.raises(RuntimeError):
        with progress("x", verbose=True, stream=stream) as p:
            p.step()
            raise RuntimeError
    assert "done" not in stream.getvalue()


def test_stage_lines_and_close_once(caplog):
    stream = io.StringIO()
    with caplog.at_level(logging.INFO, logger="rlscore"):
        with stage("eigendecomposition (3 x 3)", verbose=True, stream=stream) as s:
            s.close("rank 2", tol=1e-3)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "eigendecomposition (3 x 3): started"     # never a bar
    assert lines[1].startswith("eigendecomposition (3 x 3): done in")
    assert lines[1].endswith(" s, rank 2, tol=0.001") and len(lines) == 2
    done = [r for r in caplog.records if "done" in r.getMessage()]
    assert len(done) == 1


def test_enabled_none_follows_the_enclosing_verbosity():
    for outer, shown in ((True, True), (False, False)):
        stream = io.StringIO()
        with verbosity(outer):
            with progress("grid", 2, stream=stream) as p:
                p.step()
                with verbosity(None):              # keeps the enclosing setting
                    p.step()
            with progress("forced off", 1, verbose=False, stream=stream) as q:
                q.step()
        assert ("grid: done in" in stream.getvalue()) is shown
        assert "forced off" not in stream.getvalue()


def test_throttled_lines_show_the_last_step_and_interval_zero_every_step(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    stream = io.StringIO()
    with progress("CG", verbose=True, stream=stream) as p:     # no total
        for k in range(5):
            p.step(residual=10.0 ** -k)
    lines = stream.getvalue().splitlines()
    assert lines[1] == "CG: 1 (residual=1)" and lines[-2] == "CG: 5 (residual=0.0001)"
    assert len(lines) == 4                  # started, first, last (at close), done
    stream = io.StringIO()
    with Progress("objective", 3, True, stream, bar=False, interval=0) as p:
        for k in range(3):
            p.step(objective=float(k))
    assert stream.getvalue().count("(objective=") == 3
