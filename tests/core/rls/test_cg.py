"""Matrix-free CG solvers (rlscore.core.rls) against direct solves of the explicit
systems: RLS primal and dual with the bias feature, RankRLS with per-query and global
centering, RankRLS from preference pairs; dense and sparse, several outputs."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.core.structure import QueryGroups
from rlscore.core.optim import CGResult, conjugate_gradient
from rlscore.core.rls import CGRLSOptions, RLSOperator, cg_rls
from rlscore.core.rankrls import (RankRLSOperator, cg_preference_rankrls, cg_rankrls,
                                  preference_matrix)

LAMBDAS = [1e-6, 1e-2, 1.0, 1e2, 1e6]


def _augment(X, bias):
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    if bias:
        return np.hstack([X, np.full((X.shape[0], 1), np.sqrt(bias))])
    return X


def _centering(codes):
    m = len(codes)
    L = np.eye(m)
    for g in np.unique(codes):
        idx = np.flatnonzero(codes == g)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


def _sparse(rng, m, d, density=0.3):
    X = sp.random(m, d, density=density, random_state=np.random.RandomState(
        rng.integers(1 << 30)), format="csr")
    X.data = rng.normal(size=X.nnz)
    return X


# ---------------------------------------------------------------------------------------
# the block solver


def test_block_cg_matches_solve_and_single_runs(rng):
    n = 40
    Q = rng.normal(size=(n, n))
    S = Q @ Q.T + 0.5 * np.eye(n)
    B = rng.normal(size=(n, 3))
    B[:, 1] *= 1e4          # very different scales: per-column step sizes
    res = conjugate_gradient(lambda V: S @ V, B, rtol=1e-12)
    assert isinstance(res, CGResult) and res.info == 0
    np.testing.assert_allclose(res.x, np.linalg.solve(S, B), rtol=1e-9, atol=0)
    for j in range(3):
        single = conjugate_gradient(lambda V: S @ V, B[:, j], rtol=1e-12)
        np.testing.assert_allclose(res.x[:, j], single.x[:, 0], rtol=1e-9)
    assert np.all(res.residuals <= 1e-12)


def test_block_cg_zero_column_precond_and_start(rng):
    n = 30
    Q = rng.normal(size=(n, n))
    S = Q @ Q.T + np.diag(rng.uniform(1, 100, n))
    B = rng.normal(size=(n, 2))
    B[:, 0] = 0.0
    ref = np.linalg.solve(S, B)
    res = conjugate_gradient(lambda V: S @ V, B, rtol=1e-12, M=1.0 / np.diag(S))
    np.testing.assert_allclose(res.x, ref, rtol=1e-9, atol=1e-14)
    assert np.all(res.x[:, 0] == 0)
    res0 = conjugate_gradient(lambda V: S @ V, B, rtol=1e-12, x0=ref + 1e-3)
    np.testing.assert_allclose(res0.x, ref, rtol=1e-9, atol=1e-14)


def test_block_cg_maxiter_and_callback_stop(rng):
    n = 50
    Q = rng.normal(size=(n, n))
    S = Q @ Q.T + 1e-3 * np.eye(n)
    b = rng.normal(size=n)
    res = conjugate_gradient(lambda V: S @ V, b, rtol=1e-12, maxiter=3)
    assert res.iterations == 3 and not res.column_converged.all() and res.info == 3
    assert not res.converged and res.message == "max_iter reached"
    seen = []

    def cb(k, x, residuals):
        assert residuals.shape == (1,) and residuals[0] > 0
        seen.append((k, x.copy()))
        return k == 5

    res = conjugate_gradient(lambda V: S @ V, b, rtol=1e-12, callback=cb)
    assert res.stopped and res.iterations == 5 and [k for k, _ in seen] == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(seen[-1][1], res.x)


# ---------------------------------------------------------------------------------------
# RLS


@pytest.mark.parametrize("regparam", LAMBDAS)
@pytest.mark.parametrize("bias", [0.0, 2.0])
@pytest.mark.parametrize("form", ["primal", "dual"])
@pytest.mark.parametrize("sparse", [False, True])
def test_cg_rls_against_direct_solve(rng, regparam, bias, form, sparse):
    # primal well-posed at every lambda needs m > d; dual needs d > m
    m, d = (60, 12) if form == "primal" else (12, 60)
    X = _sparse(rng, m, d, 0.5) if sparse else rng.normal(size=(m, d))
    Y = rng.normal(size=(m, 3))
    W, b, res, op = cg_rls(X, Y, regparam, bias, rtol=1e-13, options=CGRLSOptions(form=form))
    assert op.form == form and res.info == 0
    Xa = _augment(X, bias)
    # the reference solves the smaller, well-posed system (the other one is singular up
    # to lambda, and its direct solve loses digits at small lambda)
    if form == "primal":
        Wa = np.linalg.solve(Xa.T @ Xa + regparam * np.eye(Xa.shape[1]), Xa.T @ Y)
    else:
        Wa = Xa.T @ np.linalg.solve(Xa @ Xa.T + regparam * np.eye(m), Y)
    scale = np.abs(Wa).max()
    np.testing.assert_allclose(W, Wa[:d], rtol=1e-7, atol=1e-9 * scale)
    if bias:
        np.testing.assert_allclose(b, np.sqrt(bias) * Wa[d], rtol=1e-7, atol=1e-9 * scale)
    else:
        assert np.all(b == 0)


def test_cg_rls_auto_form_and_one_output(rng):
    X = rng.normal(size=(20, 50))
    y = rng.normal(size=20)
    W, b, res, op = cg_rls(X, y, 1.0, 1.0, rtol=1e-12)
    assert op.form == "dual" and W.shape == (50, 1)
    W2, b2, res2, op2 = cg_rls(X, y, 1.0, 1.0, rtol=1e-12, options=CGRLSOptions(form="primal"))
    assert op2.form == "primal" and op2.n == 51
    np.testing.assert_allclose(W, W2, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(b, b2, rtol=1e-8)


def test_operators_equal_explicit_matrices(rng):
    X = _sparse(rng, 15, 9)
    Xd = X.toarray()
    V = rng.normal(size=(10, 2))
    op = RLSOperator(X, 0.3, 4.0, "primal")
    Xa = _augment(Xd, 4.0)
    np.testing.assert_allclose(op.matvec(V), (Xa.T @ Xa + 0.3 * np.eye(10)) @ V, rtol=1e-12)
    np.testing.assert_allclose(op.diagonal(), np.diag(Xa.T @ Xa) + 0.3, rtol=1e-12)
    op = RLSOperator(X, 0.3, 4.0, "dual")
    U = rng.normal(size=(15, 2))
    np.testing.assert_allclose(op.matvec(U), (Xa @ Xa.T + 0.3 * np.eye(15)) @ U, rtol=1e-12)
    np.testing.assert_allclose(op.diagonal(), np.diag(Xa @ Xa.T) + 0.3, rtol=1e-12)
    codes = np.array([0, 0, 1, 1, 1, 2, 0, 2, 3, 3, 3, 3, 1, 4, 2])
    L = _centering(codes)
    op = RankRLSOperator(X, 0.3, QueryGroups(codes))
    W = rng.normal(size=(9, 2))
    np.testing.assert_allclose(op.matvec(W), (Xd.T @ L @ Xd + 0.3 * np.eye(9)) @ W,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(op.diagonal(), np.diag(Xd.T @ L @ Xd) + 0.3, rtol=1e-10)


def test_cg_rls_sparse_explicit_zeros_and_unsorted_indices(rng):
    Xd = rng.normal(size=(30, 8))
    Xd[rng.random(Xd.shape) < 0.5] = 0.0
    X = sp.csr_matrix(Xd)
    # unsorted column indices inside each row, plus explicit zeros
    order = [np.arange(s, e)[::-1] for s, e in zip(X.indptr[:-1], X.indptr[1:])]
    X = sp.csr_matrix((X.data[np.concatenate(order)], X.indices[np.concatenate(order)],
                       X.indptr), shape=X.shape)
    X.data[::3] = 0.0
    Xd2 = X.toarray()
    assert not X.has_sorted_indices or X.nnz == 0
    y = rng.normal(size=30)
    W, b, _, _ = cg_rls(X, y, 0.5, 1.0, rtol=1e-13)
    Wd, bd, _, _ = cg_rls(Xd2, y, 0.5, 1.0, rtol=1e-13)
    np.testing.assert_allclose(W, Wd, rtol=1e-9, atol=1e-13)
    assert X.data[0] == 0.0       # the caller's matrix is left alone


def test_cg_rls_never_forms_the_gram_matrix(rng):
    # X^T X would be 10^6 x 10^6 (8 TB) and X X^T is fine: the dual must be chosen and
    # both products stay matrix-free
    m, d = 300, 1_000_000
    cols = rng.integers(0, d, size=(m, 20))
    X = sp.csr_matrix((rng.random(m * 20), cols.ravel(), np.arange(0, m * 20 + 1, 20)),
                      shape=(m, d))
    y = rng.normal(size=m)
    W, b, res, op = cg_rls(X, y, 1.0, 1.0, rtol=1e-10)
    assert res.info == 0 and W.shape == (d, 1)
    P = np.asarray(X @ W).ravel() + b
    A = (y - P) / 1.0          # dual coefficients: a = (y - f) / lambda
    np.testing.assert_allclose(np.asarray(X.T @ A).ravel(), W.ravel(), atol=1e-8)


def test_cg_rls_bad_input(rng):
    X = rng.normal(size=(10, 3))
    with pytest.raises(ValueError, match="rows"):
        cg_rls(X, np.ones(9))
    with pytest.raises(ValueError):
        cg_rls(X, np.ones(10), regparam=-1)
    with pytest.raises(ValueError):
        cg_rls(X, np.ones(10), maxiter=0)
    with pytest.raises(ValueError, match="form"):
        cg_rls(X, np.ones(10), options=CGRLSOptions(form="both"))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        cg_rls(Xn, np.ones(10))


# ---------------------------------------------------------------------------------------
# RankRLS


@pytest.mark.parametrize("regparam", LAMBDAS)
@pytest.mark.parametrize("sparse", [False, True])
def test_cg_rankrls_queries_against_closed_form(rng, regparam, sparse):
    m, d = 50, 10
    X = _sparse(rng, m, d, 0.6) if sparse else rng.normal(size=(m, d))
    Y = rng.normal(size=(m, 2))
    qids = [f"q{k}" for k in rng.integers(0, 8, m)]
    qids[3] = "single"                       # a one-item query contributes nothing
    W, res, op, codes = cg_rankrls(X, Y, regparam, qids=qids, rtol=1e-13)
    assert res.info == 0
    Xd = X.toarray() if sparse else X
    L = _centering(codes)
    Wd = np.linalg.solve(Xd.T @ L @ Xd + regparam * np.eye(d), Xd.T @ L @ Y)
    np.testing.assert_allclose(W, Wd, rtol=1e-7, atol=1e-9 * np.abs(Wd).max())
    # codes in first-appearance order
    first = list(dict.fromkeys(qids))
    assert [first[c] for c in codes] == qids


@pytest.mark.parametrize("regparam", [1e-3, 1.0, 1e3])
def test_cg_rankrls_global_is_globalrankrls_over_m(rng, regparam):
    m, d = 40, 12
    X = rng.normal(size=(m, d))
    y = rng.normal(size=m)
    W, res, op, codes = cg_rankrls(X, y, regparam, rtol=1e-13)
    assert codes is None
    Lg = m * np.eye(m) - np.ones((m, m))          # GlobalRankRLS's Laplacian
    Wd = np.linalg.solve(X.T @ Lg @ X + m * regparam * np.eye(d), X.T @ Lg @ y)
    np.testing.assert_allclose(W[:, 0], Wd, rtol=1e-8, atol=1e-10 * np.abs(Wd).max())


@pytest.mark.parametrize("regparam", [1e-4, 1.0, 1e4])
def test_cg_preference_rankrls_against_closed_form(rng, regparam):
    m, d = 30, 8
    X = _sparse(rng, m, d, 0.7)
    pairs = rng.integers(0, m, size=(120, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    W, res, op = cg_preference_rankrls(X, pairs, regparam, rtol=1e-13)
    C = np.zeros((len(pairs), m))
    C[np.arange(len(pairs)), pairs[:, 0]] += 1
    C[np.arange(len(pairs)), pairs[:, 1]] -= 1
    Xd = X.toarray()
    Wd = np.linalg.solve(Xd.T @ C.T @ C @ Xd + regparam * np.eye(d),
                         Xd.T @ C.T @ np.ones(len(pairs)))
    np.testing.assert_allclose(W[:, 0], Wd, rtol=1e-7, atol=1e-10 * np.abs(Wd).max())
    np.testing.assert_allclose(op.diagonal(), np.diag(Xd.T @ C.T @ C @ Xd) + regparam,
                               rtol=1e-10)


def test_preference_pairs_validation(rng):
    with pytest.raises(ValueError):
        preference_matrix(np.zeros((0, 2), dtype=int), 5)
    with pytest.raises(ValueError):
        preference_matrix([[0, 1, 2]], 5)
    with pytest.raises(IndexError):
        preference_matrix([[0, 5]], 5)
    with pytest.warns(UserWarning, match="self-pair"):
        C = preference_matrix([[0, 1], [2, 2]], 5)
    assert C.shape == (2, 5) and np.all(C[1].toarray() == 0)


def test_jacobi_preconditioner_same_solution_fewer_iterations(rng):
    m, d = 200, 40
    X = rng.normal(size=(m, d)) * np.logspace(-2, 2, d)[None, :]
    y = rng.normal(size=m)
    q = rng.integers(0, 20, m)
    W0, r0, _, _ = cg_rankrls(X, y, 1e-2, qids=q, rtol=1e-11)
    W1, r1, _, _ = cg_rankrls(X, y, 1e-2, qids=q, rtol=1e-11, precondition="jacobi")
    np.testing.assert_allclose(W0, W1, rtol=1e-6, atol=1e-9 * np.abs(W0).max())
    assert r1.iterations < r0.iterations
    with pytest.raises(ValueError):
        cg_rankrls(X, y, 1.0, precondition="ilu")
