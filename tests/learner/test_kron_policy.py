"""Indefinite factor kernels (one policy for KronRLS, TwoStepRLS, CGKronRLS and
PairwiseRLS), the CGKronRLS maxiter warning, warm starts and regparam paths, against
brute-force solves with np.kron."""

import re
import warnings

import numpy as np
import pytest

from rlscore.core.ranksvm import ConvergenceWarning
from rlscore.learner import CGKronRLS, KronRLS, TwoStepRLS

N1, N2 = 6, 5


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(N1, N1))
    K1 = A @ A.T + 0.1 * np.eye(N1)
    B = rng.normal(size=(N2, N2))
    K2 = (B + B.T) / 2
    np.fill_diagonal(K2, 1.0)
    assert np.linalg.eigvalsh(K2).min() < -0.1
    Y = rng.normal(size=(N1, N2))
    r, c = np.unravel_index(np.arange(N1 * N2), (N1, N2), order="F")
    return K1, K2, Y, r, c


def _eig_in(msg):
    return float(re.search(r"smallest eigenvalue (-?[0-9.e+-]+)\)", msg).group(1))


def _bound_in(msg):
    return float(re.search(r"only for regparam\w* > ([0-9.e+-]+)", msg).group(1))


def _cg(K1, K2, Y, r, c, **kw):
    return CGKronRLS(K1=K1, K2=K2, Y=Y.ravel(order="F"), label_row_inds=r,
                     label_col_inds=c, **kw)


def test_refusal_is_the_same_decision_everywhere(data):
    K1, K2, Y, r, c = data
    e1, e2 = np.linalg.eigvalsh(K1), np.linalg.eigvalsh(K2)
    mu = min(a * b for a in (e1[0], e1[-1]) for b in (e2[0], e2[-1]))
    lam = 0.9 * -mu
    with pytest.raises(ValueError) as kr:
        KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam)
    with pytest.raises(ValueError) as cg:
        _cg(K1, K2, Y, r, c, regparam=lam)
    with pytest.raises(ValueError) as ts:
        TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0, regparam2=0.9 * -e2[0])
    for exc in (kr, cg, ts):
        assert _eig_in(str(exc.value)) == pytest.approx(e2[0], rel=1e-5)
        assert "K2 is indefinite" in str(exc.value)
        assert "indefinite='clip'" in str(exc.value)
    assert _bound_in(str(kr.value)) == pytest.approx(-mu, rel=1e-5)
    assert _bound_in(str(cg.value)) == pytest.approx(-mu, rel=1e-5)
    assert _bound_in(str(ts.value)) == pytest.approx(-e2[0], rel=1e-5)
    # above the bound every learner accepts and they agree with the brute force
    lam = 1.1 * -mu
    a = np.linalg.solve(np.kron(K2, K1) + lam * np.eye(N1 * N2), Y.ravel(order="F"))
    kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam)
    cg = _cg(K1, K2, Y, r, c, regparam=lam, tol=1e-14)
    np.testing.assert_allclose(kr.A.ravel(order="F"), a, atol=1e-9)
    np.testing.assert_allclose(cg.A, a, atol=1e-7)


@pytest.mark.parametrize("how", ["shift", "clip"])
def test_repaired_models_agree_and_equal_brute_force(data, how):
    K1, K2, Y, r, c = data
    lam = 0.5
    e, V = np.linalg.eigh(K2)
    K2r = K2 - e[0] * np.eye(N2) if how == "shift" else (V * np.maximum(e, 0)) @ V.T
    a = np.linalg.solve(np.kron(K2r, K1) + lam * np.eye(N1 * N2), Y.ravel(order="F"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=lam, indefinite=how)
        cg = _cg(K1, K2, Y, r, c, regparam=lam, indefinite=how, tol=1e-14)
        ts = TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=lam, regparam2=lam, indefinite=how)
    msgs = [str(x.message) for x in w if "indefinite" in str(x.message)]
    assert len(msgs) == 3 and len(set(msgs)) == 1 and f"indefinite='{how}'" in msgs[0]
    assert _eig_in(msgs[0].replace(";", ")")) == pytest.approx(e[0], rel=1e-6)
    np.testing.assert_allclose(kr.A.ravel(order="F"), a, atol=1e-9)
    np.testing.assert_allclose(cg.A, a, atol=1e-8)
    # two-step with the repaired K2: (K1 + l I)^-1 Y (K2r + l I)^-1
    A2 = np.linalg.solve(K1 + lam * np.eye(N1), Y) @ np.linalg.inv(K2r + lam * np.eye(N2))
    np.testing.assert_allclose(ts.A, A2, atol=1e-9)
    # the positive semidefinite K1 is left alone: predictions with test kernels agree
    Kt1, Kt2 = K1[:2], K2[:3]
    np.testing.assert_allclose(kr.predict(Kt1, Kt2), cg.predict(Kt1, Kt2), atol=1e-8)


def _assert_ends_of_random_symmetric(extreme_eigenvalues, n, seed, rel):
    """extreme_eigenvalues of (B + B^T) / 2 for a random n x n B equal numpy's ends of
    its spectrum; returns B."""
    B = np.random.default_rng(seed).normal(size=(n, n))
    K = (B + B.T) / 2
    e = np.linalg.eigvalsh(K)
    lo, hi = extreme_eigenvalues(K)
    assert lo == pytest.approx(e[0], rel=rel) and hi == pytest.approx(e[-1], rel=rel)
    return B


def test_lanczos_path_for_large_factors(monkeypatch):
    """Factors above the exact-eigvalsh size use eigsh; the estimate matches."""
    from rlscore.core.kronecker import _indefinite as indefinite
    from rlscore.core.kronecker import extreme_eigenvalues
    monkeypatch.setattr(indefinite, "DENSE_LIMIT", 300)
    B = _assert_ends_of_random_symmetric(extreme_eigenvalues, 320, 3, rel=1e-8)
    lo, hi = extreme_eigenvalues(B @ B.T)
    assert lo >= 0


def test_estimator_uses_the_policy(data):
    from rlscore.estimators import PairwiseRLS
    K1, K2, Y, r, c = data
    pairs = np.column_stack([r, c])
    y = Y.ravel(order="F")
    with pytest.raises(ValueError, match="K2 is indefinite"):
        PairwiseRLS(K1, K2, kernel="precomputed", alpha=0.5).fit(pairs, y)
    with pytest.warns(UserWarning, match="indefinite='shift'"):
        est = PairwiseRLS(K1, K2, kernel="precomputed", alpha=0.5,
                          indefinite="shift").fit(pairs, y)
    kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=0.5, indefinite="shift")
    np.testing.assert_allclose(est.predict_matrix(), kr.predict(K1, K2).reshape(
        (N1, N2), order="F"), atol=1e-10)
    with pytest.raises(ValueError, match="indefinite must be one of"):
        KronRLS(K1=K1, K2=K2, Y=Y, indefinite="fix")


def test_solve_without_constructor_regparam(data):
    K1, K2, Y, r, c = data
    kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=None)
    ts = TwoStepRLS(K1=K1, K2=K2, Y=Y)
    with pytest.raises(ValueError, match="call solve"):
        kr.in_sample_loo()
    with pytest.raises(ValueError, match="call solve"):
        ts.in_sample_loo()
    for lam in (100.0, 200.0):
        kr.solve(lam)
        a = np.linalg.solve(np.kron(K2, K1) + lam * np.eye(N1 * N2), Y.ravel(order="F"))
        np.testing.assert_allclose(kr.A.ravel(order="F"), a, atol=1e-10)
    ts.solve(1.0, 1.0)
    with pytest.raises(TypeError, match="both regparam1 and regparam2"):
        TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0)


def test_cg_warns_at_maxiter_in_every_face(data):
    from rlscore.estimators import PairwiseRLS
    K1, K2, Y, r, c = data
    K2 = K2 @ K2.T
    with pytest.warns(ConvergenceWarning, match="maxiter=2"):
        m = _cg(K1, K2, Y, r, c, regparam=0.1, maxiter=2)
    assert m.convergence_info == 2
    rows = np.concatenate([r, r[:3]])
    cols = np.concatenate([c, c[:3]])
    y = np.concatenate([Y.ravel(order="F"), Y.ravel(order="F")[:3]])
    with pytest.warns(ConvergenceWarning):
        PairwiseRLS(K1, K2, kernel="precomputed", alpha=0.1, max_iter=2).fit(
            np.column_stack([rows, cols]), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _cg(K1, K2, Y, r, c, regparam=0.1)          # converges: no warning
        _cg(K1, K2, Y, r, c, regparam=0.0, maxiter=2)   # early stopping is the model


def test_cg_warm_start_and_path_equal_cold_starts(data):
    K1, K2, Y, r, c = data
    K2 = K2 @ K2.T
    keep = np.arange(N1 * N2) % 4 != 0
    r, c = r[keep], c[keep]
    y = Y.ravel(order="F")[keep]
    common = dict(K1=K1, K2=K2, Y=y, label_row_inds=r, label_col_inds=c, tol=1e-13)
    m = CGKronRLS(regparam=10.0, **common)
    preds = m.solve_path([10.0, 3.0, 1.0, 0.3])
    for lam, p in zip([10.0, 3.0, 1.0, 0.3], preds):
        cold = CGKronRLS(regparam=lam, **common)
        np.testing.assert_allclose(p.A, cold.A, atol=1e-8)
        Kq = np.kron(K2, K1)[np.ix_(r + N1 * c, r + N1 * c)]
        np.testing.assert_allclose(cold.A, np.linalg.solve(Kq + lam * np.eye(y.size), y),
                                   atol=1e-8)
    assert len(m.path_iterations) == 4 and m.regparam == 0.3
    warm = CGKronRLS(regparam=1.0, **common)
    it_cold = warm.iterations
    warm.solve(1.01)
    assert warm.iterations < it_cold                # started near the answer
    np.testing.assert_allclose(warm.A, CGKronRLS(regparam=1.01, **common).A, atol=1e-8)


def test_lanczos_without_convergence_falls_back_to_the_exact_ends(monkeypatch):
    """eigsh's ArpackNoConvergence (met on the Gaussian kernel of Metz's 1421 drugs)
    no longer escapes: the ends come from eigvalsh, equal to numpy's spectrum."""
    import scipy.sparse.linalg as spla
    from rlscore.core.kronecker import _indefinite as indefinite
    from rlscore.core.kronecker import extreme_eigenvalues
    monkeypatch.setattr(indefinite, "DENSE_LIMIT", 50)

    def no_convergence(*args, **kwargs):
        raise spla.ArpackNoConvergence("ARPACK error -1: No convergence", [], [])
    monkeypatch.setattr(indefinite.spla, "eigsh", no_convergence)
    _assert_ends_of_random_symmetric(extreme_eigenvalues, 60, 5, rel=1e-10)
