"""Per-query feature normalization (QueryGroups.normalize, QueryNormalizer) against the
per-query formulas written out query by query, and inside a pipeline with query ids
routed to the transformer and the ranker."""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from rlscore.core.structure import QueryGroups  # noqa: E402
from rlscore.estimators import QueryNormalizer, RankRLS  # noqa: E402


def reference(X, qids, method):
    out = np.zeros_like(X, dtype=float)
    for q in np.unique(qids):
        rows = np.flatnonzero(qids == q)
        for j in range(X.shape[1]):
            x = X[rows, j].astype(float)
            if method == "linear":
                span = x.max() - x.min()
                out[rows, j] = 0 if span == 0 else (x - x.min()) / span
            elif method == "zscore":
                sd = x.std()
                out[rows, j] = 0 if np.allclose(x, x[0], rtol=1e-15, atol=0) else \
                    (x - x.mean()) / sd
            else:
                s = np.abs(x).sum()
                out[rows, j] = 0 if s == 0 else x / s
    return out


def data(seed=0, m=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 5)) * [1, 10, 1e-3, 1, 1] + [0, 5, 0, 0, 3]
    qids = rng.integers(0, 6, size=m)
    X[qids == 2, 3] = 7.5                   # a feature constant in a query
    X[:, 4] = np.round(X[:, 4])             # ties
    X[qids == 1, 0] = 0.0                   # all zero in a query ("sum": 0)
    return X, qids


@pytest.mark.parametrize("method", ["linear", "zscore", "sum"])
@pytest.mark.parametrize("sparse", [False, True])
def test_normalize_equals_the_per_query_formula(method, sparse):
    X, qids = data()
    g = QueryGroups.from_qids(qids)
    got = g.normalize(sp.csr_matrix(X) if sparse else X, method)
    np.testing.assert_allclose(got, reference(X, qids, method), rtol=1e-12, atol=1e-14)
    t = QueryNormalizer(method=method).fit(X)
    np.testing.assert_allclose(t.transform(X, qid=qids), got, rtol=0, atol=0)
    np.testing.assert_allclose(t.transform(X), reference(X, np.zeros(40), method),
                               rtol=1e-12, atol=1e-14)


def test_linear_is_idempotent_and_within_unit_range():
    X, qids = data(1)
    g = QueryGroups.from_qids(qids)
    Z = g.normalize(X)
    assert Z.min() >= 0 and Z.max() <= 1
    np.testing.assert_allclose(g.normalize(Z), Z, rtol=1e-12, atol=1e-15)


def test_bad_method_and_shape():
    X, qids = data()
    with pytest.raises(ValueError, match="method"):
        QueryGroups.from_qids(qids).normalize(X, "minmax")
    with pytest.raises(ValueError, match="method"):
        QueryNormalizer(method="l2").fit(X)
    with pytest.raises(ValueError, match="one row per"):
        QueryGroups.from_qids(qids).normalize(X[:-1])
    with pytest.raises(ValueError, match="qid has length"):
        QueryNormalizer().fit(X).transform(X, qid=qids[:-1])


def test_pipeline_routes_query_ids_to_the_normalizer_and_the_ranker():
    import sklearn
    from sklearn.pipeline import make_pipeline
    X, qids = data(2, m=60)
    y = X[:, 0] - X[:, 1] / 10 + np.random.default_rng(2).normal(size=60) * 0.1
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(QueryNormalizer().set_transform_request(qid=True),
                             RankRLS(alpha=0.5).set_fit_request(qid=True))
        pipe.fit(X, y, qid=qids)
        P = pipe.predict(X, qid=qids)
    Z = QueryGroups.from_qids(qids).normalize(X)
    ref = RankRLS(alpha=0.5).fit(Z, y, qid=qids).predict(Z)
    np.testing.assert_allclose(P, ref, rtol=1e-10, atol=1e-12)
