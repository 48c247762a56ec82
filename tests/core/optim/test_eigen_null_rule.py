"""The null-space rule of ``psd_eigh``: the eigendecomposition path (leave-one-out, a
second regparam) is never less accurate than the eigendecomposition itself allows.

Reference: Cholesky refits (the model retrained without each example; a fresh
Cholesky solve at the second regparam), each refined with residuals in extended
precision until it solves the stored system to far below the eigen paths' error, so
the comparison measures the eigen paths and not the reference's own rounding. For every kernel -- full rank, rank deficient,
badly scaled (an unscaled polynomial kernel on features of magnitude 1e3, largest
eigenvalue ~1e14) -- the eigen path's distance to the reference is at most twice the
distance of an eigen path that keeps every computed eigenvalue (clamping only negative
round-off to 0), for RLS (dual and primal), global RankRLS, KronRLS and two-step RLS.
"""

import numpy as np
import pytest
import scipy.linalg as la

import rlscore.core.kronecker._factor as kron_mod
import rlscore.core.rankrls._solver as rank_mod
import rlscore.core.rls._solvers as rls_mod
from rlscore.core.rls import KernelSolver, LinearSolver
from rlscore.core.optim import psd_eigh
from rlscore.learner import GlobalRankRLS, KronRLS, TwoStepRLS

EPS = np.finfo(np.float64).eps
_RULE = psd_eigh


def keep_every(M):
    """eigh keeping every computed eigenvalue; only negative round-off becomes 0."""
    mu, V = la.eigh(M, driver="evd")
    band = M.shape[0] * EPS * np.abs(mu).max()
    return np.where((mu < 0) & (mu > -band), 0.0, mu), np.ascontiguousarray(V)


def m_eps_rule(M):
    """The former rule: |mu| < m eps max|mu| set to 0."""
    mu, V = la.eigh(M, driver="evd")
    tol = M.shape[0] * EPS * np.abs(mu).max()
    return np.where(np.abs(mu) < tol, 0.0, mu), np.ascontiguousarray(V)


def use(monkeypatch, fn):
    for mod in (rls_mod, rank_mod, kron_mod):
        monkeypatch.setattr(mod, "psd_eigh", fn)


def _chol_solve(K, y, lam, sweeps=40):
    """(K + lam I)^-1 y: Cholesky plus iterative refinement with the residual in long
    double (converges while cond(K + lam I) eps < 1)."""
    S = K + lam * np.eye(K.shape[0])
    c = la.cho_factor(S)
    x = la.cho_solve(c, y)
    Sl = K.astype(np.longdouble) + np.longdouble(lam) * np.eye(K.shape[0], dtype=np.longdouble)
    xl = x.astype(np.longdouble)
    yl = np.asarray(y, dtype=np.longdouble)
    last = np.inf
    for _ in range(sweeps):
        d = la.cho_solve(c, (yl - Sl @ xl).astype(np.float64))
        xl = xl + d.astype(np.longdouble)
        size = np.abs(d).max()
        if size <= 1e-17 * np.abs(x).max() or size > 0.5 * last:
            break                                   # converged or stagnating
        last = size
    return xl.astype(np.float64)


def kernels():
    rng = np.random.default_rng(7)
    m = 60
    Xg = rng.normal(size=(m, 3))
    D = ((Xg[:, None, :] - Xg[None, :, :]) ** 2).sum(-1)
    Xl = rng.normal(size=(m, 6))
    Xb = rng.uniform(0, 1e3, size=(m, 4))
    return {
        "full_rank_gaussian": (np.exp(-0.5 * D), [1e-4, 1e-1, 10.0]),
        "rank_deficient_linear": (Xl @ Xl.T, [1e-6, 1e-2, 1.0]),
        "badly_scaled_polynomial": ((Xb @ Xb.T + 1.0) ** 2, [1.0, 100.0, 1e4]),
    }


def _labels(m, seed=3):
    return np.random.default_rng(seed).normal(size=m) * 5 + 20


def _dist(a, b):
    """Distance: the 2-norm of the difference."""
    return np.linalg.norm(np.ravel(a) - np.ravel(b))


def _floor(ref):
    return 16 * EPS * np.linalg.norm(ref)


def _kernel_paths(K, y, lam, lam0):
    s = KernelSolver(K, y[:, None])
    s.decompose()
    loo = s.leave_one_out(lam)[:, 0]
    s.solve(lam0)
    return loo, s.solve(lam)[:, 0]


def _loo_refit(K, y, lam):
    m = len(y)
    out = np.empty(m)
    for i in range(m):
        idx = np.r_[0:i, i + 1:m]
        out[i] = K[i, idx] @ _chol_solve(K[np.ix_(idx, idx)], y[idx], lam)
    return out


@pytest.mark.parametrize("name", list(kernels()))
def test_kernel_solver_within_twice_keep_every(monkeypatch, name):
    K, lams = kernels()[name]
    y = _labels(K.shape[0])
    assert name != "badly_scaled_polynomial" or 1e13 < la.eigvalsh(K).max() < 1e15
    for lam in lams:
        loo_ref = _loo_refit(K, y, lam)
        a_ref = _chol_solve(K, y, lam)
        use(monkeypatch, keep_every)
        loo_keep, a_keep = _kernel_paths(K, y, lam, lam * 3.0)
        use(monkeypatch, _RULE)
        loo, a = _kernel_paths(K, y, lam, lam * 3.0)
        assert _dist(loo, loo_ref) <= 2 * _dist(loo_keep, loo_ref) + _floor(loo_ref), (name, lam)
        assert _dist(a, a_ref) <= 2 * _dist(a_keep, a_ref) + _floor(a_ref), (name, lam)


def test_former_m_eps_rule_fails_the_bound(monkeypatch):
    """The check has teeth: the former m eps threshold breaks it on a badly scaled
    kernel (it zeroes real eigenvalues up to m eps max|mu| ~ 10 of the ~45 above it)."""
    Xb = np.random.default_rng(7).uniform(0, 1e3, size=(150, 6))
    K = (Xb @ Xb.T + 1.0) ** 2
    y = _labels(K.shape[0])
    lam = 100.0
    a_ref = _chol_solve(K, y, lam)
    use(monkeypatch, keep_every)
    _, a_keep = _kernel_paths(K, y, lam, 3 * lam)
    use(monkeypatch, m_eps_rule)
    _, a_old = _kernel_paths(K, y, lam, 3 * lam)
    use(monkeypatch, _RULE)
    _, a_new = _kernel_paths(K, y, lam, 3 * lam)
    assert _dist(a_old, a_ref) > 3 * _dist(a_keep, a_ref)
    assert _dist(a_new, a_ref) <= 2 * _dist(a_keep, a_ref)


def test_null_directions_stay_null_real_spectrum_kept():
    """An exactly rank-deficient kernel (rank 7 of 120): the null cluster becomes 0
    (all but at most its positive extreme, within eps max|mu|), and the real spectrum
    is kept -- including an eigenvalue of ~1.7e-6 between eps max|mu| (2.6e-8) and
    the former threshold m eps max|mu| (3.1e-6), which the former rule discarded."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 7)) * np.array([1e3, 1, 1, 1.2e-4, 1, 1, 10])
    K = X @ X.T
    s = np.sort(np.linalg.svd(X, compute_uv=False) ** 2)
    assert EPS * s[-1] < s[0] < 120 * EPS * s[-1]
    mu, V = psd_eigh(K)
    assert np.all(np.abs(mu[:113]) <= EPS * s[-1] * 2)
    assert np.count_nonzero(mu[:113]) <= 3
    np.testing.assert_allclose(mu[113:], s, rtol=0, atol=8 * EPS * s[-1])
    assert m_eps_rule(K)[0][113] == 0.0          # what the former rule did
    # a genuinely indefinite matrix keeps its negative eigenvalue
    mu, _ = psd_eigh(np.diag([1.0, -0.5, 0.0]))
    assert mu.min() == -0.5


def _features(kind):
    rng = np.random.default_rng(11)
    m = 80
    if kind == "badly_scaled_poly_features":
        Z = rng.uniform(0, 1e3, size=(m, 3))
        cols = [np.ones(m)] + [Z[:, i] for i in range(3)] + \
            [Z[:, i] * Z[:, j] for i in range(3) for j in range(i, 3)]
        return np.column_stack(cols), [1.0, 1e3]
    Phi = rng.normal(size=(m, 5))
    return np.column_stack([Phi, Phi[:, :3] @ rng.normal(size=(3, 4))]), [1e-4, 1.0]


@pytest.mark.parametrize("kind", ["badly_scaled_poly_features", "rank_deficient_features"])
def test_linear_solver_within_twice_keep_every(monkeypatch, kind):
    Phi, lams = _features(kind)
    y = _labels(Phi.shape[0])
    C = Phi.T @ Phi
    for lam in lams:
        m = len(y)
        loo_ref = np.empty(m)
        for i in range(m):
            keep = np.r_[0:i, i + 1:m]
            P = Phi[keep]
            loo_ref[i] = Phi[i] @ _chol_solve(P.T @ P, P.T @ y[keep], lam)
        w_ref = _chol_solve(C, Phi.T @ y, lam)
        out = {}
        for tag, fn in (("keep", keep_every), ("rule", _RULE)):
            use(monkeypatch, fn)
            s = LinearSolver(Phi, y[:, None])
            s.decompose()
            loo = s.leave_one_out(lam)[:, 0]
            s.solve(lam * 3)
            out[tag] = loo, s.solve(lam)[:, 0]
        assert _dist(out["rule"][0], loo_ref) <= 2 * _dist(out["keep"][0], loo_ref) + _floor(loo_ref)
        assert _dist(out["rule"][1], w_ref) <= 2 * _dist(out["keep"][1], w_ref) + _floor(w_ref)


def test_global_rankrls_loo_within_twice_keep_every(monkeypatch):
    K, _ = kernels()["badly_scaled_polynomial"]
    K = K[:50, :50]
    m = K.shape[0]
    y = _labels(m)
    lam = 1e3
    ref = np.empty(m)
    for i in range(m):
        idx = np.r_[0:i, i + 1:m]
        L = GlobalRankRLS(X=K[np.ix_(idx, idx)], Y=y[idx], regparam=lam, kernel="PrecomputedKernel")
        ref[i] = K[i, idx] @ np.ravel(L.A)
    out = {}
    for tag, fn in (("keep", keep_every), ("rule", _RULE)):
        use(monkeypatch, fn)
        L = GlobalRankRLS(X=K, Y=y, regparam=lam * 2, kernel="PrecomputedKernel")
        L.solve(lam)
        out[tag] = np.ravel(L.leave_one_out())
    # predictions of RankRLS are defined up to a constant; compare centred
    c = lambda v: v - v.mean()  # noqa: E731
    assert _dist(c(out["rule"]), c(ref)) <= 2 * _dist(c(out["keep"]), c(ref)) + _floor(ref)


def test_kronecker_and_two_step_within_twice_keep_every(monkeypatch):
    rng = np.random.default_rng(5)
    X1 = rng.uniform(0, 1e3, size=(12, 3))
    X2 = rng.normal(size=(9, 4))
    K1 = (X1 @ X1.T + 1.0) ** 2          # badly scaled, rank <= 10
    K2 = X2 @ X2.T                        # rank deficient
    Y = rng.normal(size=(12, 9))
    lam = 10.0
    G = np.kron(K2, K1)                   # F-order pair kernel
    y = Y.ravel(order="F")
    # KronRLS: dual coefficients by Cholesky on the explicit pair kernel; LOO by the
    # explicit hat-matrix identity y - a_i / [(G + l I)^-1]_ii
    Ginv = _chol_solve(G, np.eye(G.shape[0]), lam)
    a_ref = Ginv @ y
    loo_ref = y - a_ref / np.diag(Ginv)
    # two-step: A = (K1 + l1 I)^-1 Y (K2 + l2 I)^-1; LOO from the explicit hat H2 kron H1
    l1, l2 = 10.0, 0.1
    G1 = _chol_solve(K1, np.eye(12), l1)
    G2 = _chol_solve(K2, np.eye(9), l2)
    ts_ref = G1 @ Y @ G2
    Hd = np.outer(np.diag(K1 @ G1), np.diag(K2 @ G2))
    F = K1 @ ts_ref @ K2
    ts_loo_ref = (F - Hd * Y) / (1 - Hd)
    out = {}
    for tag, fn in (("keep", keep_every), ("rule", _RULE)):
        use(monkeypatch, fn)
        kr = KronRLS(K1=K1, K2=K2, Y=y, regparam=lam * 5)
        kr.solve(lam)
        ts = TwoStepRLS(K1=K1, K2=K2, Y=y, regparam1=l1 * 2, regparam2=l2 * 2)
        ts.solve(l1, l2)
        out[tag] = (np.ravel(kr.A), np.ravel(kr.in_sample_loo()),
                    np.ravel(ts.A), np.ravel(ts.in_sample_loo()))
    refs = (a_ref, loo_ref, ts_ref.ravel(order="F"), ts_loo_ref.ravel(order="F"))
    for k, ref in enumerate(refs):
        assert _dist(out["rule"][k], ref) <= 2 * _dist(out["keep"][k], ref) + _floor(ref), k
