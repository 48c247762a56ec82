"""The single homes that replaced copies: the real-dtype check of the bottom layer, the
RankSVM solution attributes of core, the per-query measure mapping of rlscore.measure
and the CG learner driver."""

import numpy as np
import pytest

import rlscore.measure as M
from rlscore._validation import check_real_dtype
from rlscore.core.ranksvm import SOLUTION_ATTRIBUTES, solution_attributes
from rlscore.learner import CGRankRLS, CGRLS, KronRLS, LinearRankSVM


@pytest.mark.parametrize("value, message", [
    (np.array([True, False]), "must be numeric, got dtype bool"),
    (np.array(["a"]), "must be numeric, got dtype <U1"),
    (np.array([1, None], dtype=object), "must be numeric, got dtype object"),
    (np.array([1 + 2j]), "must be real-valued"),
])
def test_real_dtype_refusals(value, message):
    with pytest.raises(ValueError, match="A " + message):
        check_real_dtype(value, "A")


def test_real_dtype_accepts_ints_and_floats():
    for a in (np.arange(3), np.ones(2, dtype=np.float32), np.zeros((2, 2), dtype=np.uint8)):
        assert check_real_dtype(a, "A") is a


def test_pairwise_prediction_refuses_complex_kernels():
    """A complex kernel used to be cast to float64, silently dropping its imaginary
    part; it is refused like a complex label matrix."""
    rng = np.random.default_rng(0)
    K1, K2 = np.eye(3), np.eye(2)
    model = KronRLS(K1=K1, K2=K2, Y=rng.normal(size=(3, 2)), regparam=1.0)
    with pytest.raises(ValueError, match="K1pred must be real-valued"):
        model.predictor.predict(K1 + 0j, K2)
    with pytest.raises(ValueError, match="Y must be real-valued"):
        KronRLS(K1=K1, K2=K2, Y=np.ones((3, 2)) + 1j, regparam=1.0)


def test_ranksvm_faces_show_the_solution():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=40)
    learner = LinearRankSVM(X, y, regparam=0.1)
    attrs = solution_attributes(learner.solution)
    assert set(attrs) == {"solution", *SOLUTION_ATTRIBUTES}
    for name, value in attrs.items():
        assert getattr(learner, name) is value
    assert learner.iterations == learner.solution.iterations > 0
    assert learner.regparam == 0.1


@pytest.mark.parametrize("name, whole, kw", [
    ("cindex", M.cindex, {}), ("ndcg", M.ndcg, {"k": 4}), ("p", M.precision_at_k, {"k": 3}),
    ("map", M.mean_average_precision, {}), ("meanndcg", M.mean_ndcg, {}),
])
def test_per_query_mapping_equals_the_loop_over_queries(name, whole, kw):
    """Each vectorised per-query function equals the measure applied to every query on
    its own (:func:`rlscore.measure.query_values`, a Python loop)."""
    rng = np.random.default_rng(2)
    qids = np.repeat([5, 1, 9, 3, 7], [6, 1, 8, 4, 6])
    y = rng.integers(0, 3, qids.size).astype(float)
    y[7:15] = 1.0                                   # a query with all labels tied
    p = rng.normal(size=qids.size)
    got = M.PER_QUERY[name](y, p, qids, **kw)
    np.testing.assert_allclose(got, M.query_values(whole, y, p, qids, **kw),
                               rtol=1e-12, equal_nan=True)


class _Record:
    def __init__(self):
        self.seen = []

    def callback(self, learner):
        W = np.asarray(learner.predictor.W).reshape(-1, 1)
        self.seen.append((np.array(learner.A, copy=True), W, np.array(learner.b)))


def test_cg_driver_callback_sees_each_iterate_and_its_model():
    """CGRLS (dual iterate, primal model with bias) and CGRankRLS (primal iterate, no
    bias) share the driver: each callback's predictor is the model of that iterate, and
    after the last iteration A, b and the predictor are the final model."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4))
    y = X @ rng.normal(size=4) + 0.1 * rng.normal(size=30)
    Xa = np.hstack([X, np.ones((30, 1))])               # bias = 1
    rec = _Record()
    rls = CGRLS(X, y, regparam=0.5, callbackfun=rec)
    assert len(rec.seen) == rls.n_iter
    for A, W, b in rec.seen:                            # [W; b] = Xa^T a
        Wb = Xa.T @ A.reshape(30, 1)
        np.testing.assert_allclose(W, Wb[:-1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(b.ravel(), Wb[-1], rtol=1e-10, atol=1e-12)
    exact = np.linalg.solve(Xa.T @ Xa + 0.5 * np.eye(5), Xa.T @ y)
    np.testing.assert_allclose(rls.A.ravel(), exact[:-1], rtol=1e-6)
    np.testing.assert_allclose(rls.b.ravel(), exact[-1:], rtol=1e-6, atol=1e-9)
    assert rls.b.shape == (1, 1)

    rec = _Record()
    rank = CGRankRLS(X, y, regparam=0.5, callbackfun=rec)
    assert len(rec.seen) == rank.n_iter
    for A, W, b in rec.seen:
        np.testing.assert_array_equal(W, A.reshape(4, 1))
        np.testing.assert_array_equal(b, np.zeros((1, 1)))
    L = np.eye(30) - np.ones((30, 30)) / 30
    exact = np.linalg.solve(X.T @ L @ X + 0.5 * np.eye(4), X.T @ L @ y)
    np.testing.assert_allclose(rank.A.ravel(), exact, rtol=1e-6)
    assert rank.b.shape == (1, 1) and rank.predictor.b == 0.0
