"""PairwiseRankingLoss (the RankSVM losses as functions of the predictions) against the
explicit pairs."""

import numpy as np
import pytest

from rlscore.core.ranksvm import PairwiseRankingLoss


def _explicit(y, p, q, normalize, squared):
    m = len(y)
    q = np.zeros(m, dtype=int) if q is None else np.asarray(q)
    pairs = [(u, l) for u in range(m) for l in range(m) if q[u] == q[l] and y[u] > y[l]]
    per_q = {g: sum(1 for u, _ in pairs if q[u] == g) for g in np.unique(q)}
    ranked = sum(1 for n in per_q.values() if n)
    loss, coef, lap = 0.0, np.zeros(m), np.zeros((m, m))
    for u, l in pairs:
        s = {"pairs": 1.0 / len(pairs), "none": 1.0,
             "query": 1.0 / (ranked * per_q[q[u]])}[normalize]
        r = 1.0 - p[u] + p[l]
        if r <= 0:
            continue
        if squared:
            loss += s * r * r
            coef[u] -= 2 * s * r
            coef[l] += 2 * s * r
            for a, b, v in ((u, u, 1), (l, l, 1), (u, l, -1), (l, u, -1)):
                lap[a, b] += 2 * s * v
        else:
            loss += s * r
            coef[u] -= s
            coef[l] += s
    return loss, coef, lap


@pytest.mark.parametrize("normalize", ["pairs", "query", "none"])
@pytest.mark.parametrize("with_qids", [False, True])
def test_equals_explicit_pairs(normalize, with_qids):
    rng = np.random.default_rng(3)
    m = 40
    y = rng.integers(0, 4, m).astype(float)                   # utility ties
    p = rng.integers(-2, 3, m).astype(float) * 0.5            # ties, margins exactly 1
    q = rng.integers(0, 4, m) if with_qids else None
    z = rng.standard_normal(m)
    for squared in (False, True):
        L = PairwiseRankingLoss(y, q, normalize, "squared_hinge" if squared else "hinge")
        loss, coef, active = L.evaluate(p)
        ref_loss, ref_coef, lap = _explicit(y, p, q, normalize, squared)
        assert loss == pytest.approx(ref_loss, rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(coef, ref_coef, rtol=1e-12, atol=1e-14)
        if squared:
            np.testing.assert_allclose(L.hessian_coef(active, z), lap @ z, rtol=1e-12,
                                       atol=1e-13)
        else:
            assert active is None


def test_bad_input():
    with pytest.raises(ValueError, match="loss must be one of"):
        PairwiseRankingLoss([1.0, 2.0], loss="log")
    with pytest.raises(ValueError, match="normalize must be one of"):
        PairwiseRankingLoss([1.0, 2.0], normalize="mean")
    with pytest.raises(ValueError, match="no pairs"):
        PairwiseRankingLoss([1.0, 1.0])
    L = PairwiseRankingLoss([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="p must have 3 entries"):
        L.evaluate(np.zeros(2))
