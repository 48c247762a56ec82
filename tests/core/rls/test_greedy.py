"""Greedy forward selection (rlscore.core.rls) against brute force: at every step,
retrain RLS (QueryRankRLS) for every candidate and compute its leave-one-out
(leave-query-out) error by explicit retraining without each example (query). Same
selected features, same errors; dense and sparse, with and without bias, one and
several outputs. Also the Cython kernel directly (hypothesis) and the bad inputs."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from rlscore._ext import _greedy
from rlscore.core.rls import GreedyRLSState, check_subsetsize, greedy_forward_selection

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


# ---------------------------------------------------------------------------------------
# brute force


def _features(X, sel, bias):
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    Phi = X[:, sel]
    if bias > 0:
        Phi = np.hstack([Phi, np.full((X.shape[0], 1), np.sqrt(bias))])
    return Phi


def brute_loo_error(X, Y, sel, lam, bias):
    """Mean over examples and outputs of the squared error of the model retrained
    without each example."""
    Phi = _features(X, sel, bias)
    m = Phi.shape[0]
    err = 0.0
    for i in range(m):
        tr = np.delete(np.arange(m), i)
        A = Phi[tr]
        w = np.linalg.solve(A.T @ A + lam * np.eye(A.shape[1]), A.T @ Y[tr])
        err += np.sum((Y[i] - Phi[i] @ w) ** 2)
    return err / (m * Y.shape[1])


def _centering(codes):
    L = np.eye(len(codes))
    for g in np.unique(codes):
        idx = np.flatnonzero(codes == g)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


def brute_lqo_error(X, Y, codes, sel, lam):
    """Leave-query-out error of QueryRankRLS retrained without each query: the
    squared query-centred residuals, averaged over the rows of queries with >= 2
    items and the outputs."""
    Phi = _features(X, sel, 0.0)
    err, n = 0.0, 0
    for g in np.unique(codes):
        te = np.flatnonzero(codes == g)
        if te.size < 2:
            continue
        tr = np.flatnonzero(codes != g)
        L = _centering(codes[tr])
        A = Phi[tr]
        w = np.linalg.solve(A.T @ L @ A + lam * np.eye(len(sel)), A.T @ L @ Y[tr])
        r = Y[te] - Phi[te] @ w
        r = r - r.mean(axis=0)
        err += np.sum(r ** 2)
        n += te.size
    return err / (n * Y.shape[1])


def brute_greedy(error, d, k):
    selected, perfs, last = [], [], None
    for _ in range(k):
        scores = np.full(d, np.inf)
        for j in range(d):
            if j not in selected:
                scores[j] = error(selected + [j])
        j = int(np.argmin(scores))
        selected.append(j)
        perfs.append(scores[j])
        last = scores
    return selected, perfs, last


def _data(rng, m, d, l, sparse):
    X = rng.normal(size=(m, d))
    if sparse:
        X[rng.random((m, d)) < 0.4] = 0.0
        X = sp.csr_matrix(X)
    Y = rng.normal(size=(m, l))
    return X, Y


# ---------------------------------------------------------------------------------------
# leave-one-out


@pytest.mark.parametrize("regparam", [1e-3, 1.0, 1e3])
@pytest.mark.parametrize("bias", [0.0, 2.0])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("l", [1, 3])
def test_loo_selection_equals_brute_force(rng, regparam, bias, sparse, l):
    m, d, k = 14, 9, 4
    X, Y = _data(rng, m, d, l, sparse)
    state = greedy_forward_selection(X, Y, k, regparam, bias)
    sel, perfs, last = brute_greedy(lambda s: brute_loo_error(X, Y, s, regparam, bias), d, k)
    assert state.selected == sel
    np.testing.assert_allclose(state.performances, perfs, rtol=1e-9)
    np.testing.assert_allclose(state.scores, last, rtol=1e-9)      # every candidate
    # the final model is RLS on the selected columns
    W, b = state.weights()
    Phi = _features(X, sel, bias)
    Wa = np.linalg.solve(Phi.T @ Phi + regparam * np.eye(Phi.shape[1]), Phi.T @ Y)
    np.testing.assert_allclose(W[sel], Wa[:k], rtol=1e-9, atol=1e-13)
    assert np.all(np.delete(W, sel, axis=0) == 0)
    if bias:
        np.testing.assert_allclose(b, np.sqrt(bias) * Wa[k], rtol=1e-9, atol=1e-13)
    else:
        assert np.all(b == 0)


@pytest.mark.parametrize("regparam", [1e-6, 1e6])
def test_loo_extreme_regparams(rng, regparam):
    m, d, k = 16, 8, 3
    X, Y = _data(rng, m, d, 2, False)
    state = greedy_forward_selection(X, Y, k, regparam, 1.0)
    sel, perfs, _ = brute_greedy(lambda s: brute_loo_error(X, Y, s, regparam, 1.0), d, k)
    assert state.selected == sel
    np.testing.assert_allclose(state.performances, perfs, rtol=1e-6)


def test_loo_residuals_are_the_leave_one_out_residuals(rng):
    X, Y = _data(rng, 12, 6, 2, False)
    state = greedy_forward_selection(X, Y, 3, 0.7, 1.5)
    Phi = _features(X, state.selected, 1.5)
    R = np.empty_like(Y)
    for i in range(12):
        tr = np.delete(np.arange(12), i)
        w = np.linalg.solve(Phi[tr].T @ Phi[tr] + 0.7 * np.eye(Phi.shape[1]),
                            Phi[tr].T @ Y[tr])
        R[i] = Y[i] - Phi[i] @ w
    np.testing.assert_allclose(state.loo_residuals(), R, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_loo_long_selection_stays_accurate(rng, sparse):
    # many rank-one updates: select every feature, compare each step's error with a
    # direct leave-one-out computation
    m, d = 40, 25
    X, Y = _data(rng, m, d, 2, sparse)
    state = greedy_forward_selection(X, Y, d, 0.5, 1.0)
    for step in (0, 9, 19, d - 1):
        ref = brute_loo_error(X, Y, state.selected[: step + 1], 0.5, 1.0)
        np.testing.assert_allclose(state.performances[step], ref, rtol=1e-8)


# ---------------------------------------------------------------------------------------
# leave-query-out


@pytest.mark.parametrize("regparam", [1e-3, 1.0, 1e3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("l", [1, 2])
def test_lqo_selection_equals_brute_force(rng, regparam, sparse, l):
    m, d, k = 22, 8, 3
    X, Y = _data(rng, m, d, l, sparse)
    codes = rng.integers(0, 6, m)
    codes[5] = 17                     # a one-item query: no pairs, no part in the error
    qids = [f"query-{c}" for c in codes]
    state = greedy_forward_selection(X, Y, k, regparam, qids=qids)
    sel, perfs, last = brute_greedy(
        lambda s: brute_lqo_error(X, Y, codes, s, regparam), d, k)
    assert state.selected == sel
    np.testing.assert_allclose(state.performances, perfs, rtol=1e-9)
    np.testing.assert_allclose(state.scores, last, rtol=1e-9)
    W, b = state.weights()
    Xd = X.toarray() if sparse else X
    L = _centering(codes)
    A = Xd[:, sel]
    w = np.linalg.solve(A.T @ L @ A + regparam * np.eye(k), A.T @ L @ Y)
    np.testing.assert_allclose(W[sel], w, rtol=1e-9, atol=1e-13)
    assert np.all(b == 0)


def test_lqo_singleton_queries_only_raise(rng):
    X, Y = _data(rng, 6, 3, 1, False)
    with pytest.raises(ValueError, match="single item"):
        GreedyRLSState(X, Y, 1.0, qids=np.arange(6))


def test_lqo_skips_features_constant_within_queries(rng):
    X, Y = _data(rng, 12, 4, 1, False)
    q = np.repeat([0, 1, 2], 4)
    X[:, 2] = np.repeat([5.0, -1.0, 3.0], 4)       # constant inside every query
    with pytest.warns(UserWarning, match="constant within every query"):
        state = greedy_forward_selection(X, Y, 3, 1.0, qids=q)
    assert state.skipped.tolist() == [2] and 2 not in state.selected


# ---------------------------------------------------------------------------------------
# degenerate features, ties, bad input


def test_zero_and_constant_columns_are_skipped_and_reported(rng):
    X, Y = _data(rng, 15, 6, 1, False)
    X[:, 1] = 0.0
    X[:, 4] = 3.0
    with pytest.warns(UserWarning, match="skipped: \\[1, 4\\]"):
        state = greedy_forward_selection(X, Y, 4, 1.0, 1.0)
    assert state.n_candidates == 4 and sorted(state.selected) == [0, 2, 3, 5]
    assert np.isinf(state.scores[[1, 4]]).all()
    # without a bias a constant column is the intercept: only the zero one is skipped
    with pytest.warns(UserWarning, match="skipped: \\[1\\]"):
        state = greedy_forward_selection(X, Y, 5, 1.0, 0.0)
    assert 4 in state.selected
    with pytest.raises(ValueError, match="usable"):
        with pytest.warns(UserWarning):
            greedy_forward_selection(X, Y, 5, 1.0, 1.0)
    # sparse: an all-zero column made of explicit zeros is skipped too
    coo = sp.coo_matrix(X)
    Xs = sp.csr_matrix((np.append(coo.data, [0.0, 0.0]),
                        (np.append(coo.row, [3, 7]), np.append(coo.col, [1, 1]))),
                       shape=X.shape)
    assert Xs.nnz == coo.nnz + 2
    with pytest.warns(UserWarning, match="skipped: \\[1, 4\\]"):
        s2 = greedy_forward_selection(Xs, Y, 4, 1.0, 1.0)
    assert sorted(s2.selected) == [0, 2, 3, 5]


def test_ties_go_to_the_lowest_index(rng):
    X, Y = _data(rng, 12, 4, 1, False)
    X = np.hstack([X, X[:, [2]], X[:, [2]]])       # features 4 and 5 duplicate 2
    y = X[:, 2] + 0.01 * rng.normal(size=12)
    state = greedy_forward_selection(X, y, 1, 1e-3, 1.0)
    assert state.selected == [2]
    assert state.scores[2] == state.scores[4] == state.scores[5]


def test_sparse_input_forms_agree(rng):
    X, Y = _data(rng, 20, 7, 2, True)
    coo = X.tocoo()
    perm = rng.permutation(coo.nnz)
    shuffled = sp.coo_matrix((coo.data[perm], (coo.row[perm], coo.col[perm])),
                             shape=X.shape)
    ref = greedy_forward_selection(X.toarray(), Y, 4, 0.3, 1.0)
    for form in (X, X.tocsc(), shuffled, sp.csr_array(X)):
        state = greedy_forward_selection(form, Y, 4, 0.3, 1.0)
        assert state.selected == ref.selected
        np.testing.assert_allclose(state.performances, ref.performances, rtol=1e-12)


def test_input_is_not_modified_and_layout_does_not_matter(rng):
    X, Y = _data(rng, 20, 7, 2, False)
    for form in (X, np.asfortranarray(X), X.astype(np.float32)):
        keep = form.copy()
        state = greedy_forward_selection(form, Y, 4, 0.5, 1.0)
        np.testing.assert_array_equal(form, keep)
        sel, perfs, _ = brute_greedy(lambda s: brute_loo_error(X if form.dtype == np.float64
                                                               else keep.astype(float), Y,
                                                               s, 0.5, 1.0), 7, 4)
        assert state.selected == sel
        np.testing.assert_allclose(state.performances, perfs, rtol=1e-9)


def test_bad_input(rng):
    X, Y = _data(rng, 10, 5, 1, False)
    with pytest.raises(ValueError, match="larger than the number of features"):
        greedy_forward_selection(X, Y, 6, 1.0)
    with pytest.raises(ValueError, match=">= 0"):
        greedy_forward_selection(X, Y, -1, 1.0)
    with pytest.raises(TypeError):
        greedy_forward_selection(X, Y, 2.5, 1.0)
    with pytest.raises(ValueError, match="regparam > 0"):
        greedy_forward_selection(X, Y, 2, 0.0)
    with pytest.raises(ValueError):
        greedy_forward_selection(X, Y[:9], 2, 1.0)
    Xn = X.copy()
    Xn[2, 2] = np.inf
    with pytest.raises(ValueError):
        greedy_forward_selection(Xn, Y, 2, 1.0)
    assert check_subsetsize("3", 5) == 3 and check_subsetsize(np.int64(0), 5) == 0
    state = greedy_forward_selection(X, Y, 0, 1.0)
    assert state.selected == [] and np.all(state.weights()[0] == 0)


def test_memory_is_checked_before_allocating(rng, monkeypatch):
    import rlscore._validation as validation
    monkeypatch.setattr(validation, "available_memory", lambda: 1000)
    X, Y = _data(rng, 50, 20, 1, False)
    with pytest.raises(MemoryError, match="cache"):
        greedy_forward_selection(X, Y, 2, 1.0)


def test_callback_can_stop(rng):
    X, Y = _data(rng, 10, 6, 1, False)
    seen = []
    state = greedy_forward_selection(X, Y, 5, 1.0,
                                     callback=lambda s: seen.append(len(s.selected)) or
                                     len(s.selected) == 2)
    assert seen == [1, 2] and len(state.selected) == 2


# ---------------------------------------------------------------------------------------
# the compiled kernel


def _reference_loo_scores(CT, T, P, A, dg, cand):
    scores = np.full(CT.shape[0], np.inf)
    for j in np.flatnonzero(cand):
        c = 1.0 + P[j]
        u = CT[j]
        R = (A - np.outer(u, T[j]) / c) / (dg - u * u / c)[:, None]
        scores[j] = np.sum(R * R)
    return scores


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 9), d=st.integers(1, 7), l=st.integers(1, 3),
       seed=st.integers(0, 2 ** 31), update=st.booleans())
def test_loo_pass_matches_numpy(m, d, l, seed, update):
    rng = np.random.default_rng(seed)
    CT = rng.normal(size=(d, m))
    T = rng.normal(size=(d, l))
    P = rng.uniform(0.1, 2, d)
    A = rng.normal(size=(m, l))
    dg = rng.uniform(1, 2, m)
    vb, u = rng.normal(size=m), 0.1 * rng.normal(size=m)
    tb = rng.normal(size=l)
    cb = 2.0
    cand = (rng.random(d) < 0.7).astype(np.uint8)
    CT2, T2, P2 = CT.copy(), T.copy(), P.copy()
    if update:
        for j in np.flatnonzero(cand):
            s = CT2[j] @ vb
            CT2[j] -= s / cb * u
            P2[j] -= s * s / cb
            T2[j] -= s / cb * tb
    ref = _reference_loo_scores(CT2, T2, P2, A, dg, cand)
    scores = np.empty(d)
    _greedy.loo_pass(CT, vb, u, 1.0 / cb, update, T, tb, P, A, dg, cand, scores)
    np.testing.assert_allclose(scores, ref, rtol=1e-10)
    np.testing.assert_allclose(CT, CT2, rtol=1e-12, atol=1e-14)


def test_kernels_reject_inconsistent_shapes():
    CT = np.zeros((3, 4))
    T = np.zeros((3, 1))
    ok = dict(vb=np.zeros(4), u=np.zeros(4), tb=np.zeros(1), P=np.zeros(3),
              A=np.zeros((4, 1)), dg=np.ones(4), cand=np.ones(3, np.uint8), s=np.empty(3))
    for key, bad in [("vb", np.zeros(5)), ("A", np.zeros((4, 2))),
                     ("cand", np.ones(2, np.uint8)), ("s", np.empty(2)), ("dg", np.ones(3))]:
        a = dict(ok, **{key: bad})
        with pytest.raises(ValueError):
            _greedy.loo_pass(CT, a["vb"], a["u"], 1.0, True, T, a["tb"], a["P"], a["A"],
                             a["dg"], a["cand"], a["s"])
    with pytest.raises((ValueError, TypeError)):
        _greedy.loo_pass(CT.astype(np.float32), ok["vb"], ok["u"], 1.0, True, T, ok["tb"],
                         ok["P"], ok["A"], ok["dg"], ok["cand"], ok["s"])
    qptr = np.array([0, 2, 5], dtype=np.intp)     # ends past m = 4
    mptr = np.array([0, 4], dtype=np.intp)
    with pytest.raises(ValueError, match="blocks"):
        _greedy.lqo_pass(CT, ok["vb"], ok["u"], 1.0, True, T, ok["tb"], ok["P"], qptr,
                         np.zeros(13), mptr, np.zeros((4, 1)), ok["cand"], ok["s"])
    qptr = np.array([0, 2, 4], dtype=np.intp)
    with pytest.raises(ValueError, match="blocks"):     # M too short for the blocks
        _greedy.lqo_update(ok["u"], 1.0, ok["tb"], qptr, np.zeros(5), mptr,
                           np.zeros((4, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _greedy.lqo_update(ok["u"], 1.0, ok["tb"], qptr, np.zeros(8), mptr,
                           np.zeros((4, 1)))
