"""Leave-query-out with a single query is undefined (holding it out leaves no training
data): every leave-query-out path says so in one message. It used to fail deep inside
with "qids is empty" (the hold-out path) or to return the optimizer's start as a learned
kernel (the gradient criterion is constant there)."""

import numpy as np
import pytest

from rlscore.estimators import RankRLSCV
from rlscore.learner import LeaveQueryOutRankRLS


def _data(m=30):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 3))
    return X, X[:, 0] + 0.1 * rng.standard_normal(m), np.zeros(m)


@pytest.mark.parametrize("kwargs", [
    {},
    {"kernel": "GaussianKernel", "gamma": 0.5},
    {"kernel": "GaussianKernel", "gamma": 0.5, "basis_vectors": "first5"},
    {"kernel": "GaussianKernel", "gamma": "learn"},
    {"kernel": "GaussianKernel", "gamma": "learn", "basis_vectors": "first5"},
])
def test_leave_query_out_needs_two_queries(kwargs):
    X, y, q = _data()
    if kwargs.get("basis_vectors") == "first5":
        kwargs = dict(kwargs, basis_vectors=X[:5])
    with pytest.raises(ValueError, match="needs at least 2 queries, got 1"):
        LeaveQueryOutRankRLS(X=X, Y=y, qids=q, **kwargs)


def test_estimator_learning_needs_two_queries():
    X, y, q = _data()
    with pytest.raises(ValueError, match="needs at least 2 queries, got 1"):
        RankRLSCV(kernel="rbf", gamma="learn").fit(X, y, qid=q)


def test_two_queries_are_enough():
    X, y, q = _data()
    q[15:] = 1
    learner = LeaveQueryOutRankRLS(X=X, Y=y, qids=q, regparams=[0.1, 1.0])
    assert len(learner.cv_predictions[0]) == 2
