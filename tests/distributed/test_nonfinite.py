"""NaN and infinity are refused by every distributed learner, persisted or not: a
ValueError naming the problem, no model (issue #35, item 4: CGRLS and CGRankRLS without
qids used to train on them at persist=False)."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import rlscore.distributed as rd  # noqa: E402

M, D, CHUNK = 60, 4, 20          # three partitions


def _data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((M, D))
    y = np.round(X @ rng.standard_normal(D) + 0.3 * rng.standard_normal(M), 1)
    qids = np.repeat(np.arange(M // 5), 5)          # whole queries per partition
    return X, y, qids


_RSET = dict(n_basis=8, kernel="GaussianKernel", gamma=0.3)

LEARNERS = {
    "CGRLS": lambda X, y, q, **kw: rd.CGRLS(X, y, **kw),
    "CGRankRLS(qids)": lambda X, y, q, **kw: rd.CGRankRLS(X, y, qids=q, **kw),
    "CGRankRLS(global)": lambda X, y, q, **kw: rd.CGRankRLS(X, y, **kw),
    "LinearRankSVM(qids)": lambda X, y, q, **kw: rd.LinearRankSVM(X, y, q, **kw),
    "LinearRankSVM(global)": lambda X, y, q, **kw: rd.LinearRankSVM(X, y, **kw),
    "RLS": lambda X, y, q, **kw: rd.RLS(X, y, **_RSET, **kw),
    "QueryRankRLS": lambda X, y, q, **kw: rd.QueryRankRLS(X, y, qids=q, **_RSET, **kw),
    "GlobalRankRLS": lambda X, y, q, **kw: rd.GlobalRankRLS(X, y, **_RSET, **kw),
}


def _bad(kind, value):
    X, y, q = _data()
    if kind == "X":
        X[M - 3, 1] = value                         # a feature in the last partition
    else:
        y[M - 3] = value
    return da.from_array(X, chunks=(CHUNK, -1)), da.from_array(y, chunks=(CHUNK,)), \
        da.from_array(q, chunks=(CHUNK,))


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("persist", [False, True])
@pytest.mark.parametrize("where,value", [("X", np.nan), ("X", np.inf), ("Y", np.nan),
                                         ("Y", -np.inf)])
def test_nonfinite_refused(client, name, persist, where, value):
    X, y, q = _bad(where, value)
    with pytest.raises(ValueError, match="NaN|inf"):
        LEARNERS[name](X, y, q, client=client, persist=persist)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_clean_data_trains(client, name):
    """The same data without the bad value train (the refusals above are not a
    failure of another kind)."""
    X, y, q = _data()
    model = LEARNERS[name](da.from_array(X, chunks=(CHUNK, -1)),
                           da.from_array(y, chunks=(CHUNK,)),
                           da.from_array(q, chunks=(CHUNK,)), client=client)
    assert np.all(np.isfinite(model.predict(X)))
