import io
import logging

import pytest

from rlscore._progress import progress


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
