"""A learner shared between threads: a stateful call (solve, hold-out) while another
thread runs one on the same learner is refused with RuntimeError, never a silent mix
of regparams; predict is safe to share; separate learners run in parallel."""

import pickle
import threading

import numpy as np
import pytest

from rlscore.learner import RLS

rng = np.random.default_rng(0)
X = rng.standard_normal((300, 5))
y = rng.standard_normal(300)


def test_concurrent_solve_on_one_learner_is_refused():
    learner = RLS(X, y, kernel="GaussianKernel", gamma=0.1)
    inside, release = threading.Event(), threading.Event()
    model = learner._model
    real = model.solve

    def slow_solve(regparam):
        inside.set()
        release.wait(10)
        return real(regparam)
    model.solve = slow_solve
    t = threading.Thread(target=learner.solve, args=(2.0,))
    t.start()
    assert inside.wait(10)
    with pytest.raises(RuntimeError, match="another thread"):
        learner.solve(3.0)
    with pytest.raises(RuntimeError, match="another thread"):
        learner.leave_one_out()
    release.set()
    t.join()
    model.solve = real
    assert learner.regparam == 2.0
    # after the call the learner is free again, and re-entrant calls in one thread work
    np.testing.assert_allclose(learner.leave_one_out(),
                               RLS(X, y, kernel="GaussianKernel", gamma=0.1,
                                   regparam=2.0).leave_one_out(), rtol=1e-10)


def test_predict_shared_and_separate_learners_in_parallel():
    learner = RLS(X, y)
    ref = learner.predict(X)
    out, errors = [], []

    def work(lam):
        try:
            out.append(np.array_equal(learner.predict(X), ref))
            own = RLS(X, y, regparam=lam)
            own.solve(lam * 2)
            errors.append(None if own.regparam == lam * 2 else "wrong regparam")
        except Exception as exc:   # noqa: BLE001
            errors.append(repr(exc))
    threads = [threading.Thread(target=work, args=(0.5 + k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out) and len(out) == 8 and errors == [None] * 8


def test_learners_stay_picklable():
    learner = RLS(X, y)
    learner.solve(3.0)
    clone = pickle.loads(pickle.dumps(learner))
    np.testing.assert_array_equal(clone.predict(X), learner.predict(X))
