"""A model trained on a repaired indefinite kernel (indefinite="shift" / "clip") applies
the repair to the test kernels it is given, in every face: predicting the training
pairs gives the fitted values of the explicit Kronecker system on the repaired kernels
(np.kron), and new objects get the documented rule (shift: rows unchanged; clip: rows
projected off the negative eigenvectors), computed here by hand. Non-symmetric kernel
matrices are refused by every face."""

import warnings

import numpy as np
import pytest

from rlscore.learner import CGKronRLS, KronRLS, TwoStepRLS

N1, N2, NEW = 6, 5, 2
LAM = 0.5


def _indefinite(rng, n):
    B = rng.normal(size=(n, n))
    K = (B + B.T) / 2
    np.fill_diagonal(K, 0.5)
    return K


@pytest.fixture
def data():
    """Similarity matrices over N + NEW objects of each domain (both indefinite on
    the training objects), and labels of every pair of the training objects."""
    rng = np.random.default_rng(7)
    S1 = _indefinite(rng, N1 + NEW)
    S2 = _indefinite(rng, N2 + NEW)
    Y = rng.normal(size=(N1, N2))
    assert np.linalg.eigvalsh(S1[:N1, :N1])[0] < -0.1
    assert np.linalg.eigvalsh(S2[:N2, :N2])[0] < -0.1
    return S1, S2, Y


def _repaired(K, how):
    """The repaired training kernel and the hand-made rule for test rows."""
    e, V = np.linalg.eigh(K)
    if how == "shift":
        return K - e[0] * np.eye(K.shape[0]), lambda k: k
    Nv = V[:, e < 0]
    return (V * np.maximum(e, 0)) @ V.T, lambda k: k - (k @ Nv) @ Nv.T


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*indefinite.*")
        return fn(*args, **kw)


@pytest.mark.parametrize("how", ["shift", "clip"])
def test_complete_data_faces_predict_their_fitted_values(data, how):
    S1, S2, Y = data
    K1, K2 = S1[:N1, :N1], S2[:N2, :N2]
    K1r, rule1 = _repaired(K1, how)
    K2r, rule2 = _repaired(K2, how)
    G = np.kron(K2r, K1r)
    a = np.linalg.solve(G + LAM * np.eye(N1 * N2), Y.ravel(order="F"))
    fitted = G @ a
    A = a.reshape((N1, N2), order="F")
    r, c = np.unravel_index(np.arange(N1 * N2), (N1, N2), order="F")

    kr = _quiet(KronRLS, K1=K1, K2=K2, Y=Y, regparam=LAM, indefinite=how)
    np.testing.assert_allclose(kr.predict(K1, K2), fitted, atol=1e-9)
    np.testing.assert_allclose(kr.predictor.predict(K1, K2), fitted, atol=1e-9)
    cg = _quiet(CGKronRLS, K1=K1, K2=K2, Y=Y.ravel(order="F"), label_row_inds=r,
                label_col_inds=c, regparam=LAM, indefinite=how, tol=1e-14)
    np.testing.assert_allclose(cg.predict(K1, K2, r, c), fitted, atol=1e-7)

    from rlscore.estimators import PairwiseRLS
    est = _quiet(PairwiseRLS(S1, S2, kernel="precomputed", alpha=LAM,
                             indefinite=how).fit, np.column_stack([r, c]),
                 Y.ravel(order="F"))
    np.testing.assert_allclose(est.predict(np.column_stack([r, c])), fitted, atol=1e-9)
    # new objects of both domains against the training ones: the rule by hand
    pairs = np.array([(N1, 0), (N1 + 1, 3), (2, N2), (N1, N2 + 1)])
    k1 = np.vstack([rule1(S1[i, :N1]) if i >= N1 else K1r[i] for i in pairs[:, 0]])
    k2 = np.vstack([rule2(S2[j, :N2]) if j >= N2 else K2r[j] for j in pairs[:, 1]])
    expect = np.einsum("ha,ab,hb->h", k1, A, k2)
    np.testing.assert_allclose(est.predict(pairs), expect, atol=1e-9)
    np.testing.assert_allclose(
        kr.predict(S1[pairs[:, 0], :N1], S2[pairs[:, 1], :N2], np.arange(4),
                   np.arange(4)), expect, atol=1e-9)

    # two-step RLS with the repaired factors: F = K1r (K1r + l I)^-1 Y (K2r + l I)^-1 K2r
    ts = _quiet(TwoStepRLS, K1=K1, K2=K2, Y=Y, regparam1=LAM, regparam2=2 * LAM,
                indefinite=how)
    A2 = np.linalg.solve(K1r + LAM * np.eye(N1), Y) @ np.linalg.inv(
        K2r + 2 * LAM * np.eye(N2))
    np.testing.assert_allclose(ts.predict(K1, K2), (K1r @ A2 @ K2r).ravel(order="F"),
                               atol=1e-9)


@pytest.mark.parametrize("how", ["shift", "clip"])
def test_sampled_pairs_predict_their_fitted_values(data, how):
    """Incomplete training pairs (CGKronRLS and the estimator's iterative solver): the
    fitted values of (K1r[r, r] * K2r[c, c] + l I) a = y."""
    S1, S2, Y = data
    K1, K2 = S1[:N1, :N1], S2[:N2, :N2]
    K1r, _ = _repaired(K1, how)
    K2r, _ = _repaired(K2, how)
    rng = np.random.default_rng(3)
    keep = np.sort(rng.choice(N1 * N2, size=20, replace=False))
    r, c = np.unravel_index(keep, (N1, N2), order="F")
    r[0], c[0] = 0, 0            # every object occurs (the estimator keeps those only)
    y = Y[r, c]
    G = K1r[np.ix_(r, r)] * K2r[np.ix_(c, c)]
    fitted = G @ np.linalg.solve(G + LAM * np.eye(r.size), y)
    assert np.unique(r).size == N1 and np.unique(c).size == N2
    cg = _quiet(CGKronRLS, K1=K1, K2=K2, Y=y, label_row_inds=r, label_col_inds=c,
                regparam=LAM, indefinite=how, tol=1e-14)
    np.testing.assert_allclose(cg.predict(K1, K2, r, c), fitted, atol=1e-7)

    from rlscore.estimators import PairwiseRLS
    est = _quiet(PairwiseRLS(S1[:N1, :N1], S2[:N2, :N2], kernel="precomputed",
                             alpha=LAM, indefinite=how, tol=1e-14).fit,
                 np.column_stack([r, c]), y)
    assert est.solver_ == "iterative"
    np.testing.assert_allclose(est.predict(np.column_stack([r, c])), fitted, atol=1e-7)


def test_symmetric_pairwise_kernel_repair(data):
    """One domain, symmetric pairwise kernel on sampled pairs: both terms repaired."""
    S1, _, _ = data
    K = S1[:N1, :N1]
    Kr, _ = _repaired(K, "shift")
    rng = np.random.default_rng(5)
    r, c = rng.integers(0, N1, size=15), rng.integers(0, N1, size=15)
    y = rng.normal(size=15)
    G = 0.5 * (Kr[np.ix_(r, r)] * Kr[np.ix_(c, c)] + Kr[np.ix_(r, c)] * Kr[np.ix_(c, r)])
    fitted = G @ np.linalg.solve(G + LAM * np.eye(15), y)
    cg = _quiet(CGKronRLS, K1=K, Y=y, label_row_inds=r, label_col_inds=c, regparam=LAM,
                indefinite="shift", pairwise_kernel="symmetric", tol=1e-14)
    np.testing.assert_allclose(cg.predict(K, K, r, c), fitted, atol=1e-7)


def test_repair_rule_on_rows():
    """KernelRepair by hand: shift adds s on a training object's own column only for a
    row equal to that object's row; clip projects every row."""
    from rlscore.core.kronecker import repair_kernel
    rng = np.random.default_rng(2)
    K = _indefinite(rng, 7)
    s = -np.linalg.eigvalsh(K)[0]
    assert s > 0.1
    _quiet_rk = lambda how: _quiet(repair_kernel, K, how, "K", rule=True)  # noqa: E731
    Kr, _, rule = _quiet_rk("shift")
    np.testing.assert_allclose(Kr, K + s * np.eye(7), atol=1e-12)
    new = rng.normal(size=(2, 7))
    T = np.vstack([K[4], new, K[1]])
    expect = T.copy()
    expect[0, 4] += s
    expect[3, 1] += s
    np.testing.assert_allclose(rule(T), expect, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(rule.training_objects(T), [4, -1, -1, 1])
    Kc, _, rule = _quiet_rk("clip")
    _, by_hand = _repaired(K, "clip")
    np.testing.assert_allclose(rule(T), by_hand(T), atol=1e-12)
    np.testing.assert_allclose(rule(K), Kc, atol=1e-12)
    assert repair_kernel(K @ K.T, "shift", rule=True)[2] is None
    assert len(repair_kernel(K @ K.T, "shift")) == 2


def test_non_symmetric_kernels_refused_in_every_face(data):
    from rlscore.estimators import PairwiseRLS
    S1, S2, Y = data
    rng = np.random.default_rng(4)
    M = S1 + 0.1 * rng.normal(size=S1.shape)             # not symmetric
    K1, K2 = M[:N1, :N1], S2[:N2, :N2] + 5 * np.eye(N2)
    r, c = np.unravel_index(np.arange(N1 * N2), (N1, N2), order="F")
    for make in (lambda: KronRLS(K1=K1, K2=K2, Y=Y, regparam=LAM),
                 lambda: TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=LAM, regparam2=LAM),
                 lambda: CGKronRLS(K1=K1, K2=K2, Y=Y.ravel(order="F"), label_row_inds=r,
                                   label_col_inds=c, regparam=LAM)):
        with pytest.raises(ValueError, match=r"K1 must be a symmetric kernel matrix.*"
                                             r"\(K1 \+ K1\.T\) / 2"):
            make()
    with pytest.raises(ValueError, match=r"X1 must be a symmetric kernel matrix"):
        PairwiseRLS(M, S2 + 5 * np.eye(N2 + NEW), kernel="precomputed",
                    alpha=LAM).fit(np.column_stack([r, c]), Y.ravel(order="F"))


def test_estimator_symmetrizes_rounding_level_asymmetry_everywhere(data):
    """A matrix symmetric within rounding: training and test kernels both come from
    (S + S^T) / 2, so the training pairs predict the brute-force fitted values."""
    from rlscore.estimators import PairwiseRLS
    S1, S2, Y = data
    S1 = S1 @ S1.T + np.eye(N1 + NEW)
    S2 = S2 @ S2.T + np.eye(N2 + NEW)
    rng = np.random.default_rng(6)
    S1n = S1 * (1 + 1e-12 * rng.normal(size=S1.shape))
    assert not np.array_equal(S1n, S1n.T)
    Sym = 0.5 * (S1n + S1n.T)
    r, c = np.unravel_index(np.arange(N1 * N2), (N1, N2), order="F")
    G = np.kron(S2[:N2, :N2], Sym[:N1, :N1])
    fitted = G @ np.linalg.solve(G + LAM * np.eye(N1 * N2), Y.ravel(order="F"))
    est = PairwiseRLS(S1n, S2, kernel="precomputed", alpha=LAM).fit(
        np.column_stack([r, c]), Y.ravel(order="F"))
    np.testing.assert_allclose(est.predict(np.column_stack([r, c])), fitted, rtol=1e-9,
                               atol=1e-9)


def test_repaired_predictor_is_not_saved(data, tmp_path):
    from rlscore.model_io import save_model
    S1, S2, Y = data
    kr = _quiet(KronRLS, K1=S1[:N1, :N1], K2=S2[:N2, :N2], Y=Y, regparam=LAM,
                indefinite="shift")
    with pytest.raises(ValueError, match="repaired indefinite kernel"):
        save_model(kr, tmp_path / "m.npz")


def test_shift_with_duplicate_objects(data):
    """Two training objects with identical similarity rows (e.g. one protein measured
    twice): the shift tells them apart, so the estimator passes the objects' identities
    and the learner's predict(K1, K2) matches rows by position first."""
    from rlscore.estimators import PairwiseRLS
    S1, S2, Y = data
    S2 = S2.copy()
    S2[1, :] = S2[0, :]
    S2[:, 1] = S2[:, 0]
    K1, K2 = S1[:N1, :N1], S2[:N2, :N2]
    assert np.linalg.eigvalsh(K2)[0] < -0.1
    K1r, _ = _repaired(K1, "shift")
    K2r, _ = _repaired(K2, "shift")
    G = np.kron(K2r, K1r)
    fitted = G @ np.linalg.solve(G + LAM * np.eye(N1 * N2), Y.ravel(order="F"))
    r, c = np.unravel_index(np.arange(N1 * N2), (N1, N2), order="F")
    kr = _quiet(KronRLS, K1=K1, K2=K2, Y=Y, regparam=LAM, indefinite="shift")
    np.testing.assert_allclose(kr.predict(K1, K2), fitted, atol=1e-9)
    est = _quiet(PairwiseRLS(S1, S2, kernel="precomputed", alpha=LAM,
                             indefinite="shift").fit, np.column_stack([r, c]),
                 Y.ravel(order="F"))
    np.testing.assert_allclose(est.predict(np.column_stack([r, c])), fitted, atol=1e-9)
    np.testing.assert_allclose(est.predict_matrix(np.arange(N1), np.arange(N2)),
                               fitted.reshape((N1, N2), order="F"), atol=1e-9)
