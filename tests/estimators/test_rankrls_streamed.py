"""RankRLS (estimator) streamed: a memory budget below the in-memory features streams
the same model (direct), and solver="pcg" trains it by preconditioned CG; queries
scattered over the rows are grouped first (same model, same basis)."""

import numpy as np
import pytest
from sklearn.base import clone

from rlscore.estimators import RankRLS

# budgets placed between estimates of the arrays: the process's own memory is
# taken as 0 here (the whole-process budget: tests/test_memory_rss.py)
pytestmark = pytest.mark.usefixtures("arrays_only_budget")


def _data(m=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(m)
    q = rng.integers(0, 20, m)                      # scattered queries
    return X, y, q


@pytest.mark.parametrize("with_qid", [True, False])
@pytest.mark.parametrize("basis", [dict(basis_indices=np.arange(0, 200, 5)),
                                   dict(n_basis=30, random_state=3)])
def test_streamed_and_pcg_equal_in_memory(with_qid, basis, monkeypatch):
    # a budget between the streamed estimate (blocks of one row) and the in-memory one;
    # the fixed few MiB of a streamed run would hide the switch on a problem this small
    import rlscore._memory
    monkeypatch.setattr(rlscore._memory, "STREAM_OVERHEAD", 0)
    X, y, q = _data()
    qid = q if with_qid else None
    ref = RankRLS(alpha=0.5, kernel="rbf", gamma=0.3, **basis).fit(X, y, qid=qid)
    streamed = RankRLS(alpha=0.5, kernel="rbf", gamma=0.3, memory_budget=0.1,
                       block_size=1, **basis).fit(X, y, qid=qid)
    assert streamed.model_.plan.path == "streamed"
    pcg = clone(RankRLS(alpha=0.5, kernel="rbf", gamma=0.3, solver="pcg",
                        **basis)).fit(X, y, qid=qid)
    assert hasattr(streamed.model_, "streamed") and hasattr(pcg.model_, "streamed")
    Xt = _data(30, seed=1)[0]
    P = ref.predict(Xt)
    np.testing.assert_allclose(streamed.predict(Xt), P, rtol=1e-8, atol=1e-10)
    # PCG's default tolerance is 1e-6 on the relative residual
    assert np.abs(pcg.predict(Xt) - P).max() <= 1e-4 * np.abs(P).max()
    assert pcg.score(X, y, qid=qid) == pytest.approx(ref.score(X, y, qid=qid), abs=1e-3)


def test_pcg_needs_a_basis():
    X, y, q = _data(40)
    with pytest.raises(ValueError, match="n_basis or basis_indices"):
        RankRLS(kernel="rbf", solver="pcg").fit(X, y, qid=q)
    with pytest.raises(ValueError, match="solver"):
        RankRLS(kernel="rbf", n_basis=5, solver="cg").fit(X, y, qid=q)
