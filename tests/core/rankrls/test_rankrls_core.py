"""RankRLS core (global, query, preference pairs) against the brute force it replaces:
the explicit pairwise least-squares problem (ridge regression on the differences of the
pairs' feature vectors, every pair materialized) and retraining without the held-out
rows."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from rlscore._ext import _lpo
from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel
from rlscore.core.rankrls import PairCosts, PPRankRLSModel, preference_pairs
from rlscore.core.selection import lpo_cindex
from rlscore.datasets.synthetic import make_irrelevant_pairs_example
from rlscore.kernel import GaussianKernel

REGPARAMS = [1e-6, 1e-3, 1.0, 1e3, 1e6]
RTOL = 1e-7
GAMMA = 0.2


# ---------------------------------------------------------------------------------------
# brute force


def all_pairs(idx, codes=None):
    """Every unordered pair (i, j), i < j, of ``idx`` (within a query when codes are
    given), with the RLScore weight: 1 (global) or 1/n_q (query)."""
    idx = np.asarray(idx)
    if codes is None:
        i, j = np.triu_indices(idx.size, 1)
        return idx[i], idx[j], np.ones(i.size)
    S, E, W = [], [], []
    for q in np.unique(codes[idx]):
        mem = idx[codes[idx] == q]
        i, j = np.triu_indices(mem.size, 1)
        S.append(mem[i]), E.append(mem[j]), W.append(np.full(i.size, 1.0 / mem.size))
    return np.concatenate(S), np.concatenate(E), np.concatenate(W)


def pairwise_ridge(Phi, Y, s, e, w, z, lam):
    """argmin_W sum_k w_k ||z_k - (Phi_s - Phi_e) W||^2 + lam ||W||^2, by least squares
    on the stacked system (condition number = the square root of the normal
    equations')."""
    D = Phi[s] - Phi[e]
    sw = np.sqrt(w)[:, None]
    d = Phi.shape[1]
    Amat = np.vstack([sw * D, np.sqrt(lam) * np.eye(d)])
    rhs = np.vstack([sw * z, np.zeros((d, z.shape[1]))])
    return np.linalg.lstsq(Amat, rhs, rcond=None)[0]


def features(kind, X, basis=None):
    """An explicit feature map whose inner products are the model's kernel."""
    if kind == "linear":
        return X
    if kind == "gaussian":
        K = GaussianKernel(X, gamma=GAMMA).getKM(X)
        lam, V = la.eigh(K)
        return V * np.sqrt(np.clip(lam, 0, None))
    if kind == "reduced":
        K_r = GaussianKernel(X[basis], gamma=GAMMA).getKM(X)
        lam, E = la.eigh(K_r[basis])
        return K_r @ (E / np.sqrt(lam))
    raise AssertionError(kind)


def brute(kind, X, Y, lam, train, test, codes=None, basis=None, scale=None):
    """Predictions for ``test`` from the pairwise model trained on the rows ``train``.
    ``scale``: None for the global model (pairs unweighted), or the query codes."""
    Phi = features(kind, X, basis)
    s, e, w = all_pairs(train, codes)
    W = pairwise_ridge(Phi, Y, s, e, w, Y[s] - Y[e], lam)
    return Phi[test] @ W


def make(kind, X, Y, lam, model, codes=None, sparse=False, basis=None, path=False):
    Xin = sp.csr_matrix(X) if sparse else X
    kw = {"decompose_now": path}
    if kind == "linear":
        kw.update(kernel="LinearKernel", bias=0.0)
    elif kind == "gaussian":
        kw.update(kernel="GaussianKernel", gamma=GAMMA)
    else:
        kw.update(kernel="GaussianKernel", gamma=GAMMA, basis_vectors=X[basis])
    if model == "global":
        return GlobalRankRLSModel(Xin, Y, lam, **kw)
    return QueryRankRLSModel(Xin, Y, codes, lam, **kw)


def assert_close(a, b, rtol=RTOL):
    scale = np.abs(b).max()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 0.1 * scale)


# (kind, d, sparse): linear primal (dense and sparse), linear dual (d > m), Gaussian,
# reduced-set Gaussian
CASES = [("linear", 4, False), ("linear", 4, True), ("linear", 25, False),
         ("gaussian", 3, False), ("reduced", 3, False)]


def problem(rng, m, d, p):
    X = rng.standard_normal((m, d))
    Y = rng.standard_normal((m, p)) + X[:, :1]
    return X, Y


# ---------------------------------------------------------------------------------------
# global RankRLS


@pytest.mark.parametrize("kind,d,sparse", CASES)
@pytest.mark.parametrize("p", [1, 3])
def test_global_fit_is_the_pairwise_least_squares_solution(rng, kind, d, sparse, p):
    m = 14
    X, Y = problem(rng, m, d, p)
    basis = [0, 3, 5, 8, 11]
    everything = np.arange(m)
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "global", sparse=sparse, basis=basis)
        F = model.predictor.predict(sp.csr_matrix(X) if sparse else X).reshape(m, p)
        assert_close(F, brute(kind, X, Y, lam, everything, everything, basis=basis))
        assert_close(model.fitted(), F)
        if kind == "linear" and d < m:
            # the primal weights themselves (the problem is well conditioned)
            s, e, w = all_pairs(everything)
            W = pairwise_ridge(X, Y, s, e, w, Y[s] - Y[e], lam)
            assert_close(model.coef, W)


def test_global_dual_coefficients_closed_form(rng):
    """A = (LK + lambda I)^{-1} L Y with L = m I - 1 1^T (RLScore's closed form), on a
    full-rank kernel."""
    m = 12
    X, Y = problem(rng, m, 3, 2)
    K = GaussianKernel(X, gamma=GAMMA).getKM(X)
    L = m * np.eye(m) - np.ones((m, m))
    for lam in [1e-2, 1.0, 1e3]:
        model = make("gaussian", X, Y, lam, "global")
        assert_close(model.A, np.linalg.solve(L @ K + lam * np.eye(m), L @ Y), rtol=1e-6)


def test_global_path_equals_fresh_fits(rng):
    X, Y = problem(rng, 20, 3, 2)
    model = GlobalRankRLSModel(X, Y, 1.0, kernel="GaussianKernel", gamma=GAMMA)
    for lam in [1e-4, 1e2, 3.0]:
        model.solve(lam)                      # the eigendecomposition after the first
        fresh = GlobalRankRLSModel(X, Y, lam, kernel="GaussianKernel", gamma=GAMMA)
        assert_close(model.coef, fresh.coef, rtol=1e-6)
    assert model.solver.decomposed


@pytest.mark.parametrize("kind,d,sparse", CASES)
@pytest.mark.parametrize("p", [1, 2])
def test_global_holdout_equals_retraining(rng, kind, d, sparse, p):
    m = 13
    X, Y = problem(rng, m, d, p)
    basis = [0, 3, 5, 8, 11]
    holds = [[4], [0, 7], [2, 9, 12, 5], list(range(1, m))]
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "global", sparse=sparse, basis=basis)
        for H in holds:
            train = np.setdiff1d(np.arange(m), H)
            if len(train) < 2:
                # no pairs left: the zero model
                np.testing.assert_allclose(model.holdout(H), 0.0,
                                           atol=RTOL * np.abs(Y).max())
                continue
            assert_close(model.holdout(H), brute(kind, X, Y, lam, train, H, basis=basis))


@pytest.mark.parametrize("kind,d,sparse", CASES)
def test_global_leave_one_out_equals_retraining(rng, kind, d, sparse):
    m = 11
    X, Y = problem(rng, m, d, 2)
    basis = [0, 3, 5, 8]
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "global", sparse=sparse, basis=basis)
        loo = model.leave_one_out()
        ref = np.vstack([brute(kind, X, Y, lam, np.delete(np.arange(m), i), [i],
                               basis=basis) for i in range(m)])
        assert_close(loo, ref)


@pytest.mark.parametrize("kind,d,sparse", CASES)
@pytest.mark.parametrize("path", [False, True])
def test_global_leave_pair_out_equals_retraining(rng, kind, d, sparse, path):
    """Both dual routes: Cholesky + inverse (no eigendecomposition) and the SYRK of the
    eigenvectors; the primal low-rank loop."""
    m = 12
    X, Y = problem(rng, m, d, 2)
    basis = [0, 3, 5, 8]
    starts = np.array([0, 3, 4, 11, 2, 7])
    ends = np.array([1, 9, 11, 10, 6, 5])
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "global", sparse=sparse, basis=basis, path=path)
        ps, pe = model.leave_pair_out(starts, ends)
        for k, (s, e) in enumerate(zip(starts, ends)):
            ref = brute(kind, X, Y, lam, np.setdiff1d(np.arange(m), [s, e]), [s, e],
                        basis=basis)
            # the dense dual form N = P - M loses a few digits at large lambda
            rtol = 1e-6 if (model.kind == "dual" and lam >= 1e3) else RTOL
            assert_close(np.vstack([ps[k], pe[k]]), ref, rtol=rtol)
        np.testing.assert_allclose(ps[2:3], model.holdout([4, 11])[:1], rtol=1e-6,
                                   atol=1e-12)


def test_global_leave_pair_out_many_pairs_and_outputs(rng):
    m, p = 30, 3
    X, Y = problem(rng, m, 5, p)
    model = GlobalRankRLSModel(X, Y, 0.5, kernel="GaussianKernel", gamma=GAMMA)
    s, e, _ = preference_pairs(Y[:, 0])
    ps, pe = model.leave_pair_out(s, e)
    assert ps.shape == (s.size, p)
    for k in rng.choice(s.size, 15, replace=False):
        H = model.holdout([s[k], e[k]])
        assert_close(np.vstack([ps[k], pe[k]]), H, rtol=1e-9)


def test_global_gaussian_holdout_regularization_path():
    """The upstream test: Gaussian kernel with gamma 0.01 on 30 points (smallest
    eigenvalue ~ 1e-3), solve() over 2^-15 ... 2^14 then holdout vs retraining."""
    rng = np.random.default_rng(100)
    X = rng.random((30, 400))
    Y = rng.random((30, 2))
    K = GaussianKernel(X, gamma=0.01).getKM(X)
    L = lambda n: n * np.eye(n) - np.ones((n, n))
    model = GlobalRankRLSModel(X, Y, 1.0, kernel="GaussianKernel", gamma=0.01)
    H = [3, 5, 8, 10, 17]
    rest = np.setdiff1d(np.arange(30), H)
    for x in range(-15, 15):
        lam = 2.0 ** x
        model.solve(lam)
        Kr = K[np.ix_(rest, rest)]
        A = np.linalg.solve(L(25) @ Kr + lam * np.eye(25), L(25) @ Y[rest])
        np.testing.assert_allclose(model.holdout(H), K[np.ix_(H, rest)] @ A, rtol=1e-6)


# ---------------------------------------------------------------------------------------
# query RankRLS


def query_codes():
    # non-contiguous queries in first-appearance order, one singleton
    return np.array([0, 0, 1, 0, 1, 2, 2, 2, 3, 1, 2, 0, 2])


@pytest.mark.parametrize("kind,d,sparse", CASES)
@pytest.mark.parametrize("p", [1, 2])
def test_query_fit_and_holdout_equal_pairwise_retraining(rng, kind, d, sparse, p):
    codes = query_codes()
    m = codes.size
    X, Y = problem(rng, m, d, p)
    basis = [0, 3, 5, 8, 11]
    everything = np.arange(m)
    holds = [[0, 1, 3, 11],        # a whole query
             [8],                  # the singleton query
             [2, 9],               # part of a query (the rest: a query of one)
             [5, 12],              # part of a query
             [6]]
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "query", codes=codes, sparse=sparse, basis=basis)
        F = model.predictor.predict(sp.csr_matrix(X) if sparse else X).reshape(m, p)
        assert_close(F, brute(kind, X, Y, lam, everything, everything, codes, basis))
        for H in holds:
            train = np.setdiff1d(everything, H)
            assert_close(model.holdout(H), brute(kind, X, Y, lam, train, H, codes, basis))


@pytest.mark.parametrize("kind,d,sparse", CASES)
def test_leave_query_out_equals_retraining(rng, kind, d, sparse):
    codes = query_codes()
    m = codes.size
    X, Y = problem(rng, m, d, 2)
    basis = [0, 3, 5, 8, 11]
    for lam in REGPARAMS:
        model = make(kind, X, Y, lam, "query", codes=codes, sparse=sparse, basis=basis,
                     path=True)
        lqo = model.leave_query_out()
        assert len(lqo) == 4
        for q, rows in enumerate(model.qidlist):
            train = np.setdiff1d(np.arange(m), rows)
            assert_close(lqo[q], brute(kind, X, Y, lam, train, rows, codes, basis))


def test_leave_query_out_many_queries_batched(rng):
    """Queries of several sizes, in chunks: leave_query_out == holdout per query."""
    sizes = rng.integers(1, 9, 60)
    codes = np.repeat(np.arange(60), sizes)
    rng.shuffle(codes)
    m = codes.size
    X, Y = problem(rng, m, 6, 2)
    for kernel, kw in [("LinearKernel", {}), ("GaussianKernel", {"gamma": 0.1})]:
        model = QueryRankRLSModel(X, Y, codes, 0.3, kernel=kernel, **kw)
        lqo = model.leave_query_out()
        for q in rng.choice(60, 12, replace=False):
            assert_close(lqo[q], model.holdout(model.qidlist[q]), rtol=1e-9)


def test_query_closed_form_rlscore_laplacian(rng):
    """L = I - sum_q 1_q 1_q^T / n_q, A = (LK + lambda I)^{-1} L Y, W = (X^T L X +
    lambda I)^{-1} X^T L Y."""
    codes = query_codes()
    m = codes.size
    X, Y = problem(rng, m, 3, 2)
    L = np.eye(m)
    for q in np.unique(codes):
        idx = np.flatnonzero(codes == q)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    lin = QueryRankRLSModel(X, Y, codes, 2.0, bias=0.0)
    assert_close(lin.coef, np.linalg.solve(X.T @ L @ X + 2 * np.eye(3), X.T @ L @ Y))
    K = GaussianKernel(X, gamma=GAMMA).getKM(X)
    gau = QueryRankRLSModel(X, Y, codes, 2.0, kernel="GaussianKernel", gamma=GAMMA)
    assert_close(gau.coef, np.linalg.solve(L @ K + 2 * np.eye(m), L @ Y))


def test_global_is_query_with_one_query_up_to_the_lambda_scale(rng):
    X, Y = problem(rng, 15, 3, 1)
    g = GlobalRankRLSModel(X, Y, 15 * 0.7, bias=0.0)
    q = QueryRankRLSModel(X, Y, np.zeros(15, dtype=int), 0.7, bias=0.0)
    assert_close(g.coef, q.coef, rtol=1e-10)


def test_all_singleton_queries_give_the_zero_model(rng):
    X, Y = problem(rng, 6, 2, 1)
    with pytest.warns(UserWarning, match="single example"):
        model = QueryRankRLSModel(X, Y, np.arange(6), 1.0, bias=0.0)
    assert np.all(model.coef == 0)


def test_irrelevant_pairs_example():
    """Pahikkala et al. (2009), Sect. 5.1 / Fig. 2: trained on the relevant
    (within-query) pairs, RankRLS orders both relevant pairs correctly; trained on all
    pairs, the irrelevant cross-query pairs reverse both."""
    X, y, qids = make_irrelevant_pairs_example()
    for lam in [1e-6, 1e-2, 1.0]:
        rel = QueryRankRLSModel(X, y, qids, lam, bias=0.0)
        p = rel.predictor.predict(X)
        assert p[0] > p[1] and p[2] > p[3]
        assert rel.coef[0, 0] < 0
        allp = GlobalRankRLSModel(X, y, lam, bias=0.0)
        p = allp.predictor.predict(X)
        assert p[0] < p[1] and p[2] < p[3]
        assert allp.coef[0, 0] > 0
        # the same with explicit preference pairs (magnitude-preserving cost)
        s, e, mag = preference_pairs(y, qids)
        pp = PPRankRLSModel(X, s, e, lam, costs=PairCosts(magnitudes=mag),
                            bias=0.0).predictor.predict(X)
        assert pp[0] > pp[1] and pp[2] > pp[3]
        s, e, mag = preference_pairs(y)
        pp = PPRankRLSModel(X, s, e, lam, costs=PairCosts(magnitudes=mag),
                            bias=0.0).predictor.predict(X)
        assert pp[0] < pp[1] and pp[2] < pp[3]
    # the digest's exact slopes at lambda -> 0: -1 (relevant) and 76/404 (all pairs)
    assert QueryRankRLSModel(X, y, qids, 1e-10, bias=0.0).coef[0, 0] == pytest.approx(-1.0)
    assert GlobalRankRLSModel(X, y, 1e-10, bias=0.0).coef[0, 0] == \
        pytest.approx(76 / 404)


# ---------------------------------------------------------------------------------------
# preference pairs


PAIRS_S = np.array([0, 1, 2, 3, 3, 5, 7, 0, 0, 9])
PAIRS_E = np.array([1, 2, 3, 4, 4, 6, 8, 9, 1, 2])
WEIGHTS = np.array([1, 2, 1, 1, .5, 1, 3, 1, 1, 2.])
MAGS = np.array([1, 2, .5, 1, 1, 0, 2, 1, 3, 1.5])


@pytest.mark.parametrize("kind,d,sparse", CASES)
@pytest.mark.parametrize("cost", ["magnitude", "unit", "inverse"])
def test_pp_matches_explicit_pairwise_problem(rng, kind, d, sparse, cost):
    m = 12
    X, _ = problem(rng, m, d, 1)
    basis = [0, 3, 5, 8, 11]
    Phi = features(kind, X, basis)
    if cost == "magnitude":
        w, z = WEIGHTS, MAGS
    elif cost == "unit":
        w, z = WEIGHTS * (MAGS > 0), np.ones(MAGS.size)
    else:
        w, z = np.where(MAGS > 0, WEIGHTS / np.where(MAGS > 0, MAGS, 1) ** 2, 0.0), MAGS
    Xin = sp.csr_matrix(X) if sparse else X
    kw = {"kernel": "LinearKernel"} if kind == "linear" else \
        {"kernel": "GaussianKernel", "gamma": GAMMA}
    if kind == "reduced":
        kw["basis_vectors"] = X[basis]
    for lam in REGPARAMS:
        model = PPRankRLSModel(Xin, PAIRS_S, PAIRS_E, lam,
                               costs=PairCosts(WEIGHTS, MAGS, cost), **kw)
        W = pairwise_ridge(Phi, None, PAIRS_S, PAIRS_E, w, z[:, None], lam)
        P = model.predictor.predict(Xin).reshape(m, 1)
        # the linear kernel's default bias 1 adds a constant feature, invisible to pairs
        assert_close(P - P.mean(), Phi @ W - (Phi @ W).mean())
        if kind == "linear" and model.kind == "primal":
            assert model.predictor.b == 0.0


def test_pp_defaults_are_rlscore_closed_form(rng):
    """A = (LK + lambda I)^{-1} C^T 1 with L = C^T C; duplicates count twice."""
    m = 9
    X = rng.standard_normal((m, 3))
    s = [0, 1, 2, 3, 3, 5, 7]
    e = [1, 2, 3, 4, 4, 6, 8]
    K = GaussianKernel(X).getKM(X)
    C = np.zeros((len(s), m))
    C[np.arange(len(s)), s] = 1
    C[np.arange(len(s)), e] = -1
    for lam in [1e-2, 1.0, 1e2]:
        model = PPRankRLSModel(X, s, e, lam, kernel="GaussianKernel")
        A = np.linalg.solve(C.T @ C @ K + lam * np.eye(m), C.T @ np.ones(len(s)))
        assert_close(model.predictor.predict(X), K @ A, rtol=1e-6)
    # weights 2 on a single pair == the pair given twice
    a = PPRankRLSModel(X, [0, 3, 3], [1, 4, 4], 1.0).predictor.predict(X)
    b = PPRankRLSModel(X, [0, 3], [1, 4], 1.0,
                       costs=PairCosts(weights=[1, 2])).predictor.predict(X)
    assert_close(a, b, rtol=1e-12)


def test_pp_self_pairs_are_ignored_with_a_warning(rng):
    # RLScore's own test draws random pairs and so includes self-pairs: they add a zero
    # row to the pair matrix and must not change the model
    X = rng.standard_normal((10, 3))
    s, e = [0, 3, 5, 2, 7], [1, 3, 6, 2, 8]
    with pytest.warns(UserWarning, match="2 self-pair"):
        a = PPRankRLSModel(X, s, e, 1.0, kernel="GaussianKernel").predictor.predict(X)
    b = PPRankRLSModel(X, [0, 5, 7], [1, 6, 8], 1.0,
                       kernel="GaussianKernel").predictor.predict(X)
    assert_close(a, b, rtol=1e-12)


def test_pp_solve_path(rng):
    X = rng.standard_normal((10, 3))
    model = PPRankRLSModel(X, PAIRS_S, PAIRS_E, 1.0, kernel="GaussianKernel")
    for lam in [1e-3, 10.0]:
        model.solve(lam)
        fresh = PPRankRLSModel(X, PAIRS_S, PAIRS_E, lam, kernel="GaussianKernel")
        assert_close(model.predictor.predict(X), fresh.predictor.predict(X), rtol=1e-6)


@pytest.mark.parametrize("s,e,kw,exc,match", [
    ([], [], {}, ValueError, "empty"),
    ([0, 1], [1], {}, ValueError, "differ in length"),
    ([1, 2], [1, 2], {}, ValueError, "self-pair"),
    ([0, 10], [1, 2], {}, IndexError, "outside"),
    ([0, -1], [1, 2], {}, IndexError, "outside"),
    ([0, 1], [1, 2], {"weights": [1, -1]}, ValueError, ">= 0"),
    ([0, 1], [1, 2], {"weights": [1]}, ValueError, "one value per pair"),
    ([0, 1], [1, 2], {"magnitudes": [1, np.nan]}, ValueError, "NaN"),
    ([0, 1], [1, 2], {"magnitudes": [1, -2]}, ValueError, ">= 0"),
    ([0, 1], [1, 2], {"cost": "hinge"}, ValueError, "cost must be"),
    ([0, 1], [1, 2], {"magnitudes": [0, 0], "cost": "inverse"}, ValueError, "no preferences"),
    ([0, 1], [1, 2], {"weights": [0, 0]}, ValueError, "no preferences"),
    ([0.5, 1], [1, 2], {}, ValueError, "integer"),
])
@pytest.mark.filterwarnings("ignore:the preferences hold:UserWarning")
def test_pp_bad_input(rng, s, e, kw, exc, match):
    X = rng.standard_normal((10, 2))
    with pytest.raises(exc, match=match):
        PPRankRLSModel(X, s, e, 1.0, costs=PairCosts(**kw))


def test_pp_ties_follow_the_paper(rng):
    X = rng.standard_normal((6, 2))
    s, e = [0, 1, 2], [1, 2, 3]
    mags = [1.0, 0.0, 2.0]
    # eq. (21): a tie is a pair with target 0
    tie = PPRankRLSModel(X, s, e, 1.0, costs=PairCosts(magnitudes=mags, cost="magnitude"))
    ref = PPRankRLSModel(X, s, e, 1.0,
                         costs=PairCosts(magnitudes=[1.0, 1e-300, 2.0], cost="magnitude"))
    assert_close(tie.predictor.predict(X), ref.predictor.predict(X), rtol=1e-12)
    # eqs. (20) and (22): ties are not preferences
    for cost in ["unit", "inverse"]:
        a = PPRankRLSModel(X, s, e, 1.0, costs=PairCosts(magnitudes=mags, cost=cost))
        b = PPRankRLSModel(X, [0, 2], [1, 3], 1.0,
                           costs=PairCosts(magnitudes=[1.0, 2.0], cost=cost))
        assert_close(a.predictor.predict(X), b.predictor.predict(X), rtol=1e-12)


# ---------------------------------------------------------------------------------------
# bad input of the centred models


def test_global_bad_input(rng):
    X, Y = problem(rng, 8, 2, 1)
    model = GlobalRankRLSModel(X, Y, 1.0)
    for bad, exc in [([0, 3, 100], IndexError), ([-1, 0, 2], IndexError),
                     ([1, 1, 2], IndexError), ([], ValueError), (list(range(8)), ValueError),
                     ([[0, 1]], ValueError), ([0.5, 1], ValueError)]:
        with pytest.raises(exc):
            model.holdout(bad)
    with pytest.raises(ValueError, match="same example|self"):
        model.leave_pair_out([0, 1], [0, 2])
    with pytest.raises(ValueError, match="length"):
        model.leave_pair_out([0, 1], [2])
    with pytest.raises(IndexError):
        model.leave_pair_out([0, 8], [1, 2])
    with pytest.raises(ValueError, match="tied"):
        GlobalRankRLSModel(X, np.ones(8), 1.0)
    with pytest.raises(ValueError, match="lengths must match"):
        GlobalRankRLSModel(X, Y[:5], 1.0)
    with pytest.raises(ValueError):
        GlobalRankRLSModel(X, Y, -1.0)


def test_query_bad_input(rng):
    X, Y = problem(rng, 9, 2, 1)
    codes = np.repeat([0, 1, 2], 3)
    model = QueryRankRLSModel(X, Y, codes, 1.0)
    with pytest.raises(IndexError, match="same query"):
        model.holdout([0, 4, 8])
    with pytest.raises(ValueError, match="length"):
        QueryRankRLSModel(X, Y, codes[:5], 1.0)
    with pytest.raises(ValueError, match="non-integral"):
        QueryRankRLSModel(X, Y, np.linspace(0, 1, 9), 1.0)
    with pytest.raises(ValueError, match="NaN"):
        QueryRankRLSModel(X, Y, [0, 0, 0, 1, 1, 1, 2, 2, np.nan], 1.0)
    with pytest.raises(TypeError, match="hashable"):
        QueryRankRLSModel(X, Y, [[0]] * 9, 1.0)
    with pytest.raises(ValueError, match="tied"):
        QueryRankRLSModel(X, np.repeat([1.0, 2.0, 3.0], 3), codes, 1.0)
    # one query covering everything cannot be held out
    one = QueryRankRLSModel(X, Y, np.zeros(9, dtype=int), 1.0)
    with pytest.raises(ValueError, match="every example"):
        one.holdout(list(range(9)))


def test_query_model_takes_prebuilt_groups():
    from rlscore.core.structure import QueryGroups
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=30)
    q = rng.integers(0, 6, size=30)
    a = QueryRankRLSModel(X, Y, q, 0.5)
    b = QueryRankRLSModel(X, Y, QueryGroups.from_qids(q), 0.5)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-12)
    assert a.qidlist == b.qidlist


# ---------------------------------------------------------------------------------------
# pair helpers and the Cython kernels


def test_preference_pairs():
    y = np.array([1.0, 3.0, 3.0, 0.0])
    s, e, mag = preference_pairs(y)
    got = sorted(zip(s.tolist(), e.tolist(), mag.tolist()))
    assert got == [(0, 3, 1.0), (1, 0, 2.0), (1, 3, 3.0), (2, 0, 2.0), (2, 3, 3.0)]
    s, e, _ = preference_pairs(np.array([1, -1, 1, -1]), kind="bipartite")
    assert sorted(zip(s.tolist(), e.tolist())) == [(0, 1), (0, 3), (2, 1), (2, 3)]
    s, e, _ = preference_pairs(y, qids=[0, 0, 1, 1])
    assert sorted(zip(s.tolist(), e.tolist())) == [(1, 0), (2, 3)]
    with pytest.raises(ValueError, match="tied"):
        preference_pairs(np.ones(4))
    with pytest.raises(ValueError, match="-1 and \\+1"):
        preference_pairs(y, kind="bipartite")


def test_lpo_cindex_against_numpy(rng):
    y = rng.integers(0, 3, 40).astype(float)
    s, e, _ = preference_pairs(y)
    ps = rng.integers(0, 4, s.size).astype(float)
    pe = rng.integers(0, 4, s.size).astype(float)
    dy, dp = np.sign(y[s] - y[e]), np.sign(ps - pe)
    ref = np.mean(np.where(dp == 0, 0.5, (dy == dp).astype(float)))
    assert lpo_cindex(y, s, e, ps, pe) == pytest.approx(ref, rel=1e-12)
    with pytest.raises(ValueError):
        lpo_cindex(np.ones(3), [0], [1], [0.0], [1.0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3),
                          st.integers(-3, 3)), min_size=0, max_size=30))
def test_pair_concordance_property(rows):
    a = np.array(rows, dtype=float).reshape(-1, 4)
    total, count = _lpo.pair_concordance(*(np.ascontiguousarray(a[:, j]) for j in range(4)))
    dy, dp = a[:, 0] - a[:, 1], a[:, 2] - a[:, 3]
    keep = dy != 0
    assert count == keep.sum()
    ref = np.where(dp == 0, 0.5, (np.sign(dp) == np.sign(dy)).astype(float))[keep].sum()
    assert total == ref


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 9), st.integers(0, 2 ** 31), st.floats(1e-3, 1e3))
def test_lpo_dense_and_lowrank_kernels_agree(m, seed, lam):
    """The two Cython pair loops (dense M, rank-r factor) against the hold-out formula
    on random problems."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 2))
    Y = rng.standard_normal((m, 2))
    Y[0, :] += 1.0                                  # never all tied
    s, e = np.triu_indices(m, 1)
    primal = GlobalRankRLSModel(X, Y, lam, bias=0.0)
    dual = GlobalRankRLSModel(X, Y, lam, bias=0.0, prefer="dual")
    assert primal.kind == "primal" and dual.kind == "dual"
    ps1, pe1 = primal.leave_pair_out(s, e)
    ps2, pe2 = dual.leave_pair_out(s, e)
    scale = np.abs(Y).max()
    np.testing.assert_allclose(ps1, ps2, atol=1e-8 * scale)
    np.testing.assert_allclose(pe1, pe2, atol=1e-8 * scale)
    k = len(s) // 2
    np.testing.assert_allclose(np.vstack([ps1[k], pe1[k]]), primal.holdout([s[k], e[k]]),
                               atol=1e-9 * scale)
