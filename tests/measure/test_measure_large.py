"""Large, heavily tied inputs (m = 200 000) against independent O(m log m) or
contingency-table computations (never the O(m^2) definitions)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import rlscore.measure as M

M_LARGE = 200_000


@pytest.fixture(scope="module")
def tied_data():
    rng = np.random.RandomState(2024)
    y = np.round(rng.randn(M_LARGE) * 1.5)                 # ~ 13 distinct labels
    p = np.round(0.5 * y + rng.randn(M_LARGE))              # ~ 12 distinct predictions
    return y, p


def contingency_counts(y, p):
    """Exact pair counts from the (label level x prediction level) table, by 2-D
    cumulative sums: pairs with different labels, concordant pairs, and pairs with
    different labels but equal predictions. O(m + a b) for a, b distinct values."""
    _, yi = np.unique(y, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    N = np.zeros((yi.max() + 1, pi.max() + 1), dtype=np.int64)
    np.add.at(N, (yi, pi), 1)
    # S[i, j] = number of items with label level < i and prediction level < j
    S = np.zeros((N.shape[0] + 1, N.shape[1] + 1), dtype=np.int64)
    S[1:, 1:] = N.cumsum(0).cumsum(1)
    below_lower = S[:-1, :-1]                                # label < i, pred < j
    col_below = np.vstack([np.zeros((1, N.shape[1]), np.int64), N.cumsum(0)[:-1]])
    row_tot = N.sum(1)
    pairs = int(np.sum(row_tot * (np.cumsum(row_tot) - row_tot)))
    concordant = int(np.sum(N * below_lower))
    pred_ties = int(np.sum(N * col_below))                   # label < i, same pred
    return pairs, concordant, pred_ties


def test_large_tied_cindex_matches_contingency_table(tied_data):
    y, p = tied_data
    assert np.unique(p).size < 30 and np.unique(y).size < 30
    pairs, conc, ties = contingency_counts(y, p)
    assert_allclose(M.cindex(y, p), (conc + 0.5 * ties) / pairs, rtol=1e-13)
    # two columns, and the query form with 50 queries of 4000
    Y, P = np.c_[y, -y], np.c_[p, p]
    pairs2, conc2, ties2 = contingency_counts(-y, p)
    assert_allclose(M.cindex(Y, P),
                    ((conc + 0.5 * ties) / pairs + (conc2 + 0.5 * ties2) / pairs2) / 2,
                    rtol=1e-13)
    qids = np.repeat(np.arange(50), M_LARGE // 50)
    per_query = []
    for q in range(50):
        rows = slice(q * 4000, (q + 1) * 4000)
        a, b, c = contingency_counts(y[rows], p[rows])
        per_query.append((b + 0.5 * c) / a)
    assert_allclose(M.query_cindex(y, p, qids), np.mean(per_query), rtol=1e-13)


def test_large_tied_kendall_matches_scipy(tied_data):
    y, p = tied_data
    ref = stats.kendalltau(y, p, variant="b").statistic
    assert_allclose(M.kendall_tau_b(y, p), ref, rtol=1e-12)
    # and the counts behind it, from the contingency table
    pairs, conc, ties = contingency_counts(y, p)
    m = y.size
    n0 = m * (m - 1) // 2
    _, pc = np.unique(p, return_counts=True)
    n1 = int(np.sum(pc * (pc - 1) // 2))
    tau = (conc - (pairs - conc - ties)) / np.sqrt(float(n0 - n1) * float(pairs))
    assert_allclose(M.kendall_tau_b(y, p), tau, rtol=1e-13)


def test_large_tied_auc_matches_rank_formula(tied_data):
    y, p = tied_data
    yb = np.where(y > 0, 1.0, -1.0)
    # Mann-Whitney U from mid-ranks (independent O(m log m) computation)
    r = stats.rankdata(p)
    pos = yb > 0
    n_pos, n_neg = pos.sum(), (~pos).sum()
    u = r[pos].sum() - n_pos * (n_pos + 1) / 2.0
    assert_allclose(M.auc(yb, p), u / (n_pos * n_neg), rtol=1e-12)
    pytest.importorskip("sklearn")
    from sklearn.metrics import roc_auc_score
    assert_allclose(M.auc(yb, p), roc_auc_score(yb, p), rtol=1e-12)


def test_large_constant_predictions():
    y = np.round(np.random.RandomState(3).randn(M_LARGE))
    assert M.cindex(y, np.zeros(M_LARGE)) == 0.5
    assert M.auc(np.where(y > 0, 1.0, -1.0), np.ones(M_LARGE)) == 0.5


def test_large_ndcg_map_query_forms_match_loop(tied_data):
    """Vectorised query forms vs the per-query loop of the single-query measures."""
    y, p = tied_data
    rel = np.clip(y, 0, 4)
    qids = np.random.RandomState(5).randint(0, 300, size=M_LARGE)
    for fast, single, kw in ((M.query_ndcg, M.ndcg, {"k": 10}),
                             (M.query_mean_average_precision, M.mean_average_precision, {}),
                             (M.query_kendall_tau_b, M.kendall_tau_b, {}),
                             (M.query_cindex, M.cindex, {})):
        assert_allclose(fast(rel, p, qids, **kw),
                        M.query_average(single, rel, p, qids, **kw), rtol=1e-12)
