"""Every RLS shortcut against the brute force it replaces: explicit solves and
retraining without the held-out rows."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.core.nystrom import RLSModel
from rlscore.kernel import GaussianKernel

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)

REGPARAMS = [1e-6, 1e-3, 1.0, 1e3, 1e6]
RTOL = 1e-7


def gaussian_K(X, gamma=0.2):
    return GaussianKernel(X, gamma=gamma).getKM(X)


def augment(X, bias):
    return np.hstack([X, np.full((X.shape[0], 1), np.sqrt(bias))])


def ridge_dual(K, Y, lam):
    return np.linalg.solve(K + lam * np.eye(K.shape[0]), Y)


def ridge_primal(Xa, Y, lam):
    return np.linalg.solve(Xa.T @ Xa + lam * np.eye(Xa.shape[1]), Xa.T @ Y)


def make_problem(rng, m, d, p):
    X = rng.standard_normal((m, d))
    Y = rng.standard_normal((m, p)) + X[:, :1]
    return X, Y


def retrain_predict(kind, X, Y, lam, train, test, bias=1.0, basis=None):
    """Brute-force predictions for ``test`` from a model trained on ``train``."""
    if kind == "linear":
        # the well-conditioned form: primal when the training rows outnumber the features
        Xa = augment(X, bias)
        if len(train) >= Xa.shape[1]:
            return Xa[test] @ ridge_primal(Xa[train], Y[train], lam)
        K = Xa @ Xa.T
        return K[np.ix_(test, train)] @ ridge_dual(K[np.ix_(train, train)], Y[train], lam)
    if kind == "gaussian":
        K = gaussian_K(X)
        return K[np.ix_(test, train)] @ ridge_dual(K[np.ix_(train, train)], Y[train], lam)
    if kind == "reduced":
        K_r = GaussianKernel(X[basis], gamma=0.2).getKM(X)
        K_rr = K_r[basis]
        Kt = K_r[train]
        A = np.linalg.solve(Kt.T @ Kt + lam * K_rr, Kt.T @ Y[train])
        return K_r[test] @ A
    raise AssertionError(kind)


def fit(kind, X, Y, lam, prefer="auto", sparse=False, basis=None):
    Xin = sp.csr_matrix(X) if sparse else X
    if kind == "linear":
        return RLSModel(Xin, Y, lam, "LinearKernel", prefer=prefer, bias=1.0)
    if kind == "gaussian":
        return RLSModel(Xin, Y, lam, "GaussianKernel", gamma=0.2)
    if kind == "reduced":
        return RLSModel(Xin, Y, lam, "GaussianKernel", basis_vectors=X[basis], gamma=0.2)
    raise AssertionError(kind)


# (kind, prefer, d): the linear kernel in primal form (d < m) and in dual form (d > m,
# full-rank K), the Gaussian kernel, and a reduced-set Gaussian model
CASES = [("linear", "auto", 4), ("linear", "auto", 30), ("gaussian", "auto", 4),
         ("reduced", "auto", 4)]


def assert_close(a, b, rtol=RTOL):
    scale = np.abs(b).max()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-3 * scale)


@pytest.mark.parametrize("kind,prefer,d", CASES)
@pytest.mark.parametrize("p", [1, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_fit_holdout_loo_lpo_against_retraining(rng, kind, prefer, d, p, sparse):
    m = 24
    X, Y = make_problem(rng, m, d, p)
    basis = np.array([0, 3, 5, 8, 11, 13, 17, 20])
    everything = np.arange(m)
    model = fit(kind, X, Y, REGPARAMS[0], prefer, sparse, basis)
    for lam in REGPARAMS:
        model.solve(lam)
        # fit itself
        P = np.atleast_2d(model.predictor.predict(X).reshape(m, -1))
        assert_close(P, retrain_predict(kind, X, Y, lam, everything, everything, basis=basis))
        # arbitrary hold-out set
        H = np.array([2, 7, 19])
        train = np.setdiff1d(everything, H)
        assert_close(model.holdout(H), retrain_predict(kind, X, Y, lam, train, H, basis=basis))
        # leave-one-out
        loo = model.leave_one_out()
        ref = np.vstack([retrain_predict(kind, X, Y, lam, np.delete(everything, i), [i],
                                         basis=basis) for i in range(m)])
        assert_close(loo, ref)
        # leave-pair-out
        s = np.array([0, 1, 4, 9, 23])
        e = np.array([5, 2, 3, 22, 0])
        ps, pe = model.leave_pair_out(s, e)
        for k in range(s.size):
            U = np.array([s[k], e[k]])
            ref = retrain_predict(kind, X, Y, lam, np.setdiff1d(everything, U), U, basis=basis)
            assert_close(np.vstack([ps[k], pe[k]]), ref)


@pytest.mark.parametrize("kind,prefer,d", CASES)
def test_lambda_path_equals_fresh_training(rng, kind, prefer, d):
    X, Y = make_problem(rng, 30, d, 2)
    basis = np.arange(0, 30, 3)
    path = fit(kind, X, Y, 1.0, prefer, basis=basis)
    for lam in [1e-6, 1e-2, 10.0, 1e6]:
        path.solve(lam)
        fresh = fit(kind, X, Y, lam, prefer, basis=basis)
        assert_close(path.predictor.predict(X), fresh.predictor.predict(X))
    assert path.solver.decomposed


def test_primal_and_dual_agree_for_linear_kernel(rng):
    X, Y = make_problem(rng, 20, 6, 2)
    for lam in REGPARAMS:
        primal = RLSModel(X, Y, lam, prefer="primal")
        dual = RLSModel(X, Y, lam, prefer="dual")
        assert primal.representation.kind == "primal" and dual.representation.kind == "dual"
        assert_close(primal.predictor.W, dual.predictor.W)
        assert_close(primal.predictor.b, dual.predictor.b)
        if lam >= 1e-3:
            assert_close(primal.A, dual.A)
            # K = X X^T is rank-deficient here (7 < 20): the dual shortcuts lose
            # ~eps ||K|| / lambda (see test_rank_deficient_linear_kernel_in_dual_form)
            assert_close(primal.leave_one_out(), dual.leave_one_out())
        else:
            # the same loss in the dual coefficients, relative to the largest (measured
            # 2e-9 at 1e-6; with numpy 2.5 / scipy 1.18 one small entry was 1.3e-7 off
            # elementwise): compared normwise
            np.testing.assert_allclose(primal.A, dual.A, rtol=0,
                                       atol=RTOL * np.abs(dual.A).max())


def test_dual_used_when_features_outnumber_examples(rng):
    X = rng.standard_normal((10, 40))
    y = rng.standard_normal(10)
    model = RLSModel(X, y, 0.5)
    assert model.representation.kind == "dual"
    Xa = augment(X, 1.0)
    W = Xa.T @ ridge_dual(Xa @ Xa.T, y[:, None], 0.5)
    assert_close(model.predictor.W, W[:-1, 0])
    assert_close(model.predictor.b, W[-1, 0])


def test_holdout_from_cholesky_and_from_eigen_agree(rng):
    X, Y = make_problem(rng, 25, 3, 1)
    chol = RLSModel(X, Y, 0.3, "GaussianKernel", gamma=0.5)
    eig = RLSModel(X, Y, 0.3, "GaussianKernel", gamma=0.5, path=True)
    assert not chol.solver.decomposed and eig.solver.decomposed
    H = [1, 4, 9, 16]
    assert_close(chol.holdout(H), eig.holdout(H))
    s, e = [0, 3, 7], [1, 2, 24]
    for a, b in zip(chol.leave_pair_out(s, e), eig.leave_pair_out(s, e)):
        assert_close(a, b)


def test_rank_deficient_linear_kernel_in_dual_form(rng):
    # 3 features, 20 examples, forced dual: K has rank 4 (bias column) -> null space.
    # The eigenvectors of a rank-deficient K carry O(eps ||K||) noise that the null
    # space amplifies by 1/lambda, so the dual route is exact only to ~eps ||K|| / lambda
    # here; the primal route (chosen automatically when d < m) has no such loss.
    X = rng.standard_normal((20, 3))
    y = rng.standard_normal((20, 1))
    for lam in [1e-4, 1e-2, 1.0]:
        dual = RLSModel(X, y, lam, prefer="dual", path=True)
        primal = RLSModel(X, y, lam, prefer="primal")
        assert_close(dual.leave_one_out(), primal.leave_one_out(), rtol=1e-6)


def test_regparam_zero_full_rank_ok_and_singular_refused(rng):
    X, Y = make_problem(rng, 15, 3, 1)
    model = RLSModel(X, Y, 0.0)          # primal, full column rank: least squares
    Xa = augment(X, 1.0)
    assert_close(model.predictor.predict(X)[:, None], Xa @ np.linalg.lstsq(Xa, Y, rcond=None)[0])
    with pytest.raises(ValueError, match="regparam"):
        RLSModel(X, Y, 0.0, prefer="dual", path=True)


@pytest.mark.parametrize("kind,prefer,d", CASES)
def test_trained_models_pickle(rng, kind, prefer, d):
    import pickle
    # BLAS may round differently on differently aligned copies: compare to 1e-12
    X, Y = make_problem(rng, 20, d, 2)
    model = fit(kind, X, Y, 0.5, prefer, basis=np.arange(0, 20, 4))
    model.leave_one_out()
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(clone.predictor.predict(X), model.predictor.predict(X),
                               rtol=1e-12)
    clone.solve(2.0)
    model.solve(2.0)
    np.testing.assert_allclose(clone.holdout([1, 2]), model.holdout([1, 2]), rtol=1e-12)


@pytest.mark.parametrize("kind,prefer,d", CASES)
@pytest.mark.parametrize("p", [1, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_batched_loo_path_equals_loo_per_lambda(rng, kind, prefer, d, p, sparse):
    X, Y = make_problem(rng, 24, d, p)
    basis = np.array([0, 3, 5, 8, 11, 13, 17, 20])
    model = fit(kind, X, Y, 1.0, prefer, sparse, basis)
    grid = REGPARAMS + [1e-9, 1e9]
    path = model.leave_one_out_path(grid)
    assert len(path) == len(grid)
    for lam, P in zip(grid, path):
        model.solve(lam)
        assert_close(P, model.leave_one_out(), rtol=1e-10)
    # tiny batches give the same predictions as one batch
    if hasattr(model.solver, "leave_one_out_path"):
        small = model.solver.leave_one_out_path(grid, max_bytes=1)
        for P, Q in zip(path, small):
            np.testing.assert_array_equal(P, Q)
