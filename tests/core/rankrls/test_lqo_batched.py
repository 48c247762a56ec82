"""Leave-query-out of query RankRLS batched over queries (issue #44, item 13): the
predictions of every query equal a refit without that query, computed here from the
Laplacian closed form on the remaining rows (independent numpy), for queries of mixed
small sizes with tied labels, linear (primal, with queries smaller and larger than d)
and Gaussian kernels, with and without Nystrom basis vectors (kept, or removed with the
held-out query); and a primal model batches its queries of n <= d rows instead of
refitting them one by one."""

import numpy as np
import pytest

from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.selection import LQOCV, query_score
from rlscore.core.structure import QueryGroups
from rlscore.kernel import GaussianKernel
from rlscore.measure import cindex

GAMMA = 0.3
REGPARAMS = [1e-3, 0.5, 20.0]
SIZES = [2, 2, 3, 5, 2, 3, 4]
BASIS = np.array([0, 3, 6, 9, 13, 16])


def data(rng, d, p=2):
    codes = np.repeat(np.arange(len(SIZES)), SIZES)
    rng.shuffle(codes)                            # queries interleaved
    m = codes.size
    X = rng.standard_normal((m, d))
    # graded labels: ties within queries, one query tied throughout
    Y = np.round(rng.standard_normal((m, p)) + X[:, :1])
    Y[codes == 1] = 1.0
    return X, Y, codes


def laplacian(codes):
    """I - E diag(1 / n_q) E^T, E the query indicator matrix."""
    E = (codes[:, None] == np.unique(codes)[None, :]).astype(np.float64)
    return np.eye(codes.size) - (E / E.sum(axis=0)) @ E.T


def nystrom_features(X, basis):
    """Phi = K(X, B) K(B, B)^{-1/2}: the reduced-set model is ridge in Phi."""
    KB = GaussianKernel(X[basis], gamma=GAMMA).getKM(X)
    s, E = np.linalg.eigh(KB[basis])
    return KB @ (E / np.sqrt(s)) @ E.T


def refit_predictions(kind, X, Y, codes, lam, rows):
    """Predictions for ``rows`` of the model trained on the other rows."""
    train = np.setdiff1d(np.arange(codes.size), rows)
    L = laplacian(codes[train])
    if kind == "gaussian":
        K = GaussianKernel(X, gamma=GAMMA).getKM(X)
        A = np.linalg.solve(L @ K[np.ix_(train, train)] + lam * np.eye(train.size),
                            L @ Y[train])
        return K[np.ix_(rows, train)] @ A
    if kind == "linear":
        Phi = X
    elif kind == "nystrom":
        Phi = nystrom_features(X, BASIS)
    else:                                         # basis vectors of the query removed
        Phi = nystrom_features(X, np.setdiff1d(BASIS, rows))
    Pt = Phi[train]
    W = np.linalg.solve(Pt.T @ L @ Pt + lam * np.eye(Phi.shape[1]), Pt.T @ L @ Y[train])
    return Phi[rows] @ W


def model(kind, X, Y, codes, lam):
    if kind == "linear":
        return QueryRankRLSModel(X, Y, codes, lam, bias=0.0, decompose_now=True)
    kw = {"kernel": "GaussianKernel", "gamma": GAMMA, "decompose_now": True}
    if kind == "nystrom":
        kw["basis_vectors"] = X[BASIS]
    elif kind == "nystrom_removed":
        kw["basis_indices"] = BASIS
    return QueryRankRLSModel(X, Y, codes, lam, **kw)


# (kind, d): linear primal with d = 3 (the 4- and 5-row queries refit in the primal, the
# others batched) and d = 6 (all batched), Gaussian dual, Nystrom kept and removed
CASES = [("linear", 3), ("linear", 6), ("gaussian", 3), ("nystrom", 3),
         ("nystrom_removed", 3)]


@pytest.mark.parametrize("kind,d", CASES)
def test_leave_query_out_rows_equal_refits(rng, kind, d):
    X, Y, codes = data(rng, d)
    mod = model(kind, X, Y, codes, REGPARAMS[0])
    if kind == "linear":
        assert mod.kind == "primal"
    for lam in REGPARAMS:
        mod.solve(lam)
        P = mod.leave_query_out_rows()
        assert P.shape == Y.shape
        lists = mod.leave_query_out()
        for q in range(len(SIZES)):
            rows = np.flatnonzero(codes == q)
            ref = refit_predictions(kind, X, Y, codes, lam, rows)
            np.testing.assert_allclose(P[rows], ref, rtol=1e-8, atol=1e-10)
        # the list: one array per query in first-appearance order
        for g, rows in enumerate(mod.groups.split()):
            np.testing.assert_array_equal(lists[g], P[rows])


def test_primal_batches_queries_no_larger_than_d(rng, monkeypatch):
    """Many two-row queries, d = 4: the primal model holds them out in stacked blocks,
    no refit per query (the cause of the 10^5-query slowness), and the result is the
    refit's."""
    g = 40
    codes = np.repeat(np.arange(g), 2)
    X = rng.standard_normal((2 * g, 4))
    Y = np.round(X[:, :1] + rng.standard_normal((2 * g, 1)))
    mod = QueryRankRLSModel(X, Y, codes, 0.7, bias=0.0, decompose_now=True)
    assert mod.kind == "primal"

    def no_refit(*args, **kwargs):
        raise AssertionError("a query of n <= d rows was refitted one by one")
    monkeypatch.setattr(mod, "_primal_holdout", no_refit)
    P = mod.leave_query_out_rows()
    monkeypatch.undo()
    for q in (0, 17, 39):
        rows = np.flatnonzero(codes == q)
        np.testing.assert_allclose(P[rows],
                                   refit_predictions("linear", X, Y, codes, 0.7, rows),
                                   rtol=1e-8, atol=1e-10)


def test_lqocv_scores_the_refits(rng):
    """LQOCV through the rows at once: the score of the refits' predictions, and the
    per-query predictions in query order."""
    X, Y, codes = data(rng, 3, p=1)
    mod = model("linear", X, Y, codes, 0.5)
    perf, preds = LQOCV(mod, cindex).cv(0.5)
    ref = np.empty_like(Y)
    for g, rows in enumerate(mod.groups.split()):
        ref[rows] = refit_predictions("linear", X, Y, codes, 0.5, rows)
        np.testing.assert_allclose(preds[g], ref[rows], rtol=1e-8, atol=1e-10)
    assert perf == pytest.approx(query_score(cindex, Y, ref, codes), rel=1e-12)


def test_query_groups_per_query_and_member_lists():
    qids = np.array(["b", "a", "b", "c", "a", "b"])
    gr = QueryGroups.from_qids(qids)
    V = np.arange(12.0).reshape(6, 2)
    parts = gr.per_query(V)
    assert [p.tolist() for p in parts] == [V[rows].tolist() for rows in gr.split()]
    assert gr.member_lists() == [rows.tolist() for rows in gr.split()]
    with pytest.raises(ValueError, match="values must have 6 rows"):
        gr.per_query(V[:5])
