"""The chunk and block sizes of the chunked loops and of the svmlight parser derive from
the one working-memory budget (rlscore._blocks): at the default budget they are the
constants they replaced, and a tiny budget (many more chunks) changes no result."""

import numpy as np
import pytest

from rlscore._blocks import (DEFAULT_WORKING_MEMORY, block_elements, text_chunk_bytes,
                             working_memory)
from rlscore._groups import QueryGroups


def test_default_budget_gives_the_former_constants(monkeypatch):
    monkeypatch.delenv("RLSCORE_WORKING_MEMORY", raising=False)
    assert DEFAULT_WORKING_MEMORY == 64.0
    assert block_elements() == 1 << 22           # _groups, rankrls hold-outs
    assert block_elements(0.25) == 1 << 21       # greedy RLS set-up
    assert text_chunk_bytes(0.25) == 1 << 24     # whole-file svmlight reads
    assert text_chunk_bytes() == 1 << 20         # streamed reads (the command line)
    with working_memory(0.01):
        assert block_elements() == 655 and text_chunk_bytes() == 1 << 16


def _rotate(K, qids):
    g = QueryGroups.from_qids(qids)
    return g.rotate_kernel(K.copy()), g.reflect_rows(K[:, :7].copy())


@pytest.mark.parametrize("qids", [np.zeros(60, int), np.repeat(np.arange(12), 5)])
def test_query_algebra_does_not_depend_on_the_budget(qids):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((60, 60))
    K = A @ A.T
    ref = _rotate(K, qids)
    with working_memory(0.001):                  # a handful of rows per chunk
        got = _rotate(K, qids)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


def test_learners_do_not_depend_on_the_budget(tmp_path):
    from rlscore.learner import GreedyRLS, LeaveQueryOutRankRLS
    from rlscore.utilities.reader import read_svmlight, write_svmlight
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 6))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.standard_normal(80)
    q = np.repeat(np.arange(16), 5)
    path = str(tmp_path / "d.txt")
    write_svmlight(path, X, y)

    def run():
        lqo = LeaveQueryOutRankRLS(X, y, q, regparams=[0.1, 1.0], kernel="GaussianKernel",
                                   gamma=0.2)
        greedy = GreedyRLS(X, y, subsetsize=3, regparam=1.0)
        Xr, yr = read_svmlight(path)[:2]
        return (lqo.cv_performances, lqo.predict(X), greedy.selected,
                greedy.predict(X), Xr.toarray(), yr)
    ref = run()
    with working_memory(0.001):
        got = run()
    for a, b in zip(got, ref):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float),
                                   rtol=1e-12, atol=1e-14)
