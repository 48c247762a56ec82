"""Core Kronecker algebra (rlscore.core.kronecker, rlscore.core.kronecker): domain
factors (kernel, thin and wide linear), the per-domain hold-out solver against
rlscore.core.rls, the label layouts, and the MINRES stopping rules."""

import numpy as np
import numpy.linalg as nla
import pytest

from rlscore.core.kronecker import (DomainFactor, DomainRLS, KronRLSSolver, TwoStepSolver,
                                    check_pairwise_labels, vec_f)
from rlscore.core.kronecker import GroupCentering, KronMinres
from rlscore.core.optim import minres
from rlscore.core.rls import KernelSolver


@pytest.mark.parametrize("shape", [(8, 3), (5, 9)])
def test_feature_factor_reproduces_kernel(rng, shape):
    X = rng.standard_normal(shape)
    f = DomainFactor.from_features(X)
    np.testing.assert_allclose((f.V * f.e) @ f.V.T, X @ X.T, atol=1e-12)
    np.testing.assert_allclose(f.XtV @ f.V.T, X.T, atol=1e-12)      # X^T V V^T = X^T
    h, m = f.hat_diag(0.7)
    H = X @ X.T @ nla.inv(X @ X.T + 0.7 * np.eye(shape[0]))
    np.testing.assert_allclose(h, np.diag(H), atol=1e-12)
    np.testing.assert_allclose(m, 1 - np.diag(H), atol=1e-12)
    np.testing.assert_allclose(f.complement(0.7), np.eye(shape[0]) - H, atol=1e-12)


@pytest.mark.parametrize("lam", [1e-6, 1e-2, 1.0, 1e4])
@pytest.mark.parametrize("thin", [False, True])
def test_domain_rls_matches_kernel_solver(rng, lam, thin):
    X = rng.standard_normal((12, 4 if thin else 20))
    Z = rng.standard_normal((12, 3))
    f = DomainFactor.from_features(X)
    assert f.full != thin
    ours = DomainRLS(f, Z)
    ref = KernelSolver(X @ X.T + (0.0 if thin else 0.0), Z)
    ref.decompose()
    np.testing.assert_allclose(ours.leave_one_out(lam), ref.leave_one_out(lam),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.holdout(lam, [1, 5, 7]), ref.holdout(lam, [1, 5, 7]),
                               rtol=1e-6, atol=1e-9)


def test_label_layouts_and_errors():
    Y = np.arange(6.0).reshape(2, 3)
    for Yv in (Y, Y.ravel(order="F"), Y.reshape(-1, 1, order="F"),
               Y.reshape(1, -1, order="F")):
        np.testing.assert_array_equal(check_pairwise_labels(Yv, 2, 3), Y)
    with pytest.raises(ValueError, match="transposed"):
        check_pairwise_labels(Y.T, 2, 3)
    with pytest.raises(ValueError, match="6 pairs"):
        check_pairwise_labels(np.ones(5), 2, 3)
    with pytest.raises(ValueError):
        check_pairwise_labels(np.ones((2, 3), dtype=bool), 2, 3)
    with pytest.raises(ValueError):
        check_pairwise_labels(np.ones((1, 2, 3)), 2, 3)
    np.testing.assert_array_equal(vec_f(Y), [0, 3, 1, 4, 2, 5])


def test_zero_regparam_on_nonsingular_kernels(rng):
    X1 = rng.standard_normal((5, 8))
    X2 = rng.standard_normal((4, 8))
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    Y = rng.standard_normal((5, 4))
    f1, f2 = DomainFactor.from_kernel(K1), DomainFactor.from_kernel(K2)
    A = KronRLSSolver(f1, f2, Y).dual(0.0)
    np.testing.assert_allclose(K1 @ A @ K2, Y, atol=1e-8)
    t = TwoStepSolver(f1, f2, Y)
    np.testing.assert_allclose(t.fitted(0.0, 0.0), Y, atol=1e-8)


def test_group_centering():
    c = GroupCentering([3, 1, 3, 3, 1, 7])
    v = np.array([1.0, 2.0, 3.0, 5.0, 4.0, 9.0])
    np.testing.assert_allclose(c(v), [-2.0, -1.0, 0.0, 2.0, 1.0, 0.0])


def test_minres_stops_at_the_relative_residual(rng):
    B = rng.standard_normal((60, 60))
    A = B @ B.T + 0.1 * np.eye(60)
    b = rng.standard_normal(60)
    for tol in (1e-3, 1e-8, 1e-12):
        x, info = minres(lambda v: A @ v, b, rtol=tol)
        assert info == 0
        assert nla.norm(A @ x - b) <= 10 * tol * nla.norm(b)
    x, info = minres(lambda v: A @ v, b, rtol=1e-14, maxiter=4)
    assert info == 4
    seen = []
    minres(lambda v: A @ v, b, rtol=1e-6, callback=lambda x: seen.append(x.copy()))
    assert len(seen) > 1


def test_minres_singular_inconsistent_system_stops(rng):
    U = nla.qr(rng.standard_normal((30, 30)))[0]
    d = np.r_[np.linspace(1, 10, 20), np.zeros(10)]
    A = (U * d) @ U.T
    b = rng.standard_normal(30)           # not in the range of A
    # the residual cannot reach tol; the least-squares test ||A r|| / (||A|| ||r||)
    # stops it (MINRES without QLP can drift afterwards, so the test matters)
    x, info = minres(lambda v: A @ v, b, rtol=1e-6, maxiter=500, lstsq=True)
    assert info == 0
    x_ls = nla.lstsq(A, b, rcond=1e-10)[0]
    np.testing.assert_allclose(A @ x, A @ x_ls, atol=1e-5)


def test_kron_minres_objective_and_zero_rhs(rng):
    from scipy.sparse.linalg import aslinearoperator
    K = np.eye(4) * 2.0
    s = KronMinres("dual", aslinearoperator(K), np.zeros(4), 1.0)
    res = s.solve()
    assert res.info == 0 and res.converged and np.all(res.solution == 0)
    y = rng.standard_normal(4)
    s = KronMinres("dual", aslinearoperator(K), y, 1.0)
    x = s.solve(tol=1e-14).solution
    np.testing.assert_allclose(x, y / 3.0)
    a = y / 3.0
    assert np.isclose(s.objective(x), np.sum((y - 2 * a) ** 2) + 2 * a @ a)
