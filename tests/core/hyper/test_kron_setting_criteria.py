"""Settings B-D criteria of KronRLS kernel learning: the values against refits on
np.kron systems without the held-out objects, the gradients against central
differences."""

import numpy as np
import pytest

from rlscore.core.hyper import (KronHoldoutCriterion, KronSettingObjective,
                                kron_fold_error_gradient, kron_leave_row_out_gradient,
                                learn_kron_kernel)
from rlscore.core.selection import SearchOptions
from rlscore.kernel import GaussianFamily


def _data(n1=6, n2=5, seed=0):
    rng = np.random.default_rng(seed)
    X1, X2 = rng.normal(size=(n1, 3)), rng.normal(size=(n2, 2))
    Y = np.sin(X1[:, :1]) @ np.cos(X2[:, :1]).T + 0.3 * rng.normal(size=(n1, n2))
    return X1, X2, Y


def _gauss(X, g):
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-g * d)


def _refit_error(K1, K2, Y, lam, rowfolds, colfolds):
    """Mean squared error of each block predicted by the np.kron refit without its
    rows and columns (brute force)."""
    n1, n2 = Y.shape
    rf = [None] if rowfolds is None else rowfolds
    cf = [None] if colfolds is None else colfolds
    sq, N = 0.0, 0
    for R in rf:
        T1 = np.arange(n1) if R is None else np.setdiff1d(np.arange(n1), R)
        P1 = np.arange(n1) if R is None else np.asarray(R)
        for C in cf:
            T2 = np.arange(n2) if C is None else np.setdiff1d(np.arange(n2), C)
            P2 = np.arange(n2) if C is None else np.asarray(C)
            K = np.kron(K2[np.ix_(T2, T2)], K1[np.ix_(T1, T1)])
            a = np.linalg.solve(K + lam * np.eye(K.shape[0]),
                                Y[np.ix_(T1, T2)].ravel(order="F"))
            Kt = np.kron(K2[np.ix_(P2, T2)], K1[np.ix_(P1, T1)])
            p = Kt @ a
            sq += np.sum((p - Y[np.ix_(P1, P2)].ravel(order="F")) ** 2)
            N += p.size
    return sq / N


@pytest.mark.parametrize("setting", ["rows", "cols"])
def test_leave_one_object_out_equals_refits(setting):
    X1, X2, Y = _data()
    K1, K2, lam = _gauss(X1, 0.4), _gauss(X2, 0.7), 0.3
    singles1 = [np.array([i]) for i in range(Y.shape[0])]
    singles2 = [np.array([j]) for j in range(Y.shape[1])]
    if setting == "rows":
        res = kron_leave_row_out_gradient(K1, K2, Y, lam)
        brute = _refit_error(K1, K2, Y, lam, singles1, None)
    else:
        obj = KronSettingObjective(GaussianFamily(X1), GaussianFamily(X2), Y,
                                   KronHoldoutCriterion("targets"))
        res = obj._criterion(K1, K2, Y, lam)
        brute = _refit_error(K1, K2, Y, lam, None, singles2)
    assert res.value == pytest.approx(brute, rel=1e-10)
    # the shortcut's adjoints are those of the refits (the fold path, singleton folds)
    ref = kron_fold_error_gradient(K1, K2, Y, lam,
                                   singles1 if setting == "rows" else None,
                                   None if setting == "rows" else singles2)
    assert ref.value == pytest.approx(brute, rel=1e-10)
    np.testing.assert_allclose(res.S1, ref.S1, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(res.S2, ref.S2, rtol=1e-8, atol=1e-12)
    assert res.d_log_regparam == pytest.approx(ref.d_log_regparam, rel=1e-8)


@pytest.mark.parametrize("rowfolds,colfolds", [
    ([[0, 3], [1, 4], [2, 5]], None),
    (None, [[0, 2], [1, 3, 4]]),
    ([[0, 3], [1, 4], [2, 5]], [[0, 2], [1, 3, 4]]),
    ([[i] for i in range(6)], [[j] for j in range(5)]),        # leave-one-out of D
])
def test_folds_equal_refits(rowfolds, colfolds):
    X1, X2, Y = _data()
    K1, K2, lam = _gauss(X1, 0.4), _gauss(X2, 0.7), 0.2
    rf = None if rowfolds is None else [np.array(f) for f in rowfolds]
    cf = None if colfolds is None else [np.array(f) for f in colfolds]
    res = kron_fold_error_gradient(K1, K2, Y, lam, rf, cf)
    assert res.value == pytest.approx(_refit_error(K1, K2, Y, lam, rf, cf), rel=1e-10)


def _fd_check(obj, z, h=1e-5):
    v, g = obj(z)
    fd = np.empty_like(g)
    for k in range(z.size):
        e = np.zeros_like(z)
        e[k] = h
        fd[k] = (obj.value(z + e) - obj.value(z - e)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-9)
    return v


@pytest.mark.parametrize("criterion", [
    KronHoldoutCriterion("drugs"), KronHoldoutCriterion("targets"),
    KronHoldoutCriterion("rows", n_folds=3), KronHoldoutCriterion("both", n_folds=2),
    KronHoldoutCriterion("both")])
def test_gradients_equal_finite_differences(criterion):
    X1, X2, Y = _data(5, 4, seed=1)
    f1, f2 = GaussianFamily(X1, ard=True), GaussianFamily(X2)
    obj = KronSettingObjective(f1, f2, Y, criterion)
    z = np.concatenate([[np.log(0.15)], f1.start() + 0.3, f2.start() - 0.2])
    v = _fd_check(obj, z)
    # the value is the refits' error at the kernels of z
    lam, t1, t2 = obj.split(z)
    K1, K2 = f1.evaluate(t1)[0], f2.evaluate(t2)[0]
    assert v == pytest.approx(_refit_error(K1, K2, Y, np.exp(lam), obj.rowfolds,
                                           obj.colfolds), rel=1e-9)


def test_learn_kron_kernel_by_new_drugs_reaches_a_refit_minimum():
    """criterion='drugs': the learned point's criterion is the refits' leave-drug-out
    error there, and no point of a coarse grid around it is better."""
    X1, X2, Y = _data(7, 5, seed=2)
    res = learn_kron_kernel(X1, X2, Y, criterion="drugs", search=SearchOptions(restarts=1))
    K1, K2 = res.kernel_matrices()
    singles = [np.array([i]) for i in range(7)]
    at = _refit_error(K1, K2, Y, res.regparam, singles, None)
    assert res.criterion == pytest.approx(at, rel=1e-8)
    g1, g2 = res.kernel_params1["gamma"], res.kernel_params2["gamma"]
    for a in (0.5, 2.0):
        for b in (0.5, 2.0):
            for c in (0.5, 2.0):
                v = _refit_error(_gauss(X1, g1 * a), _gauss(X2, g2 * b), Y,
                                 res.regparam * c, singles, None)
                assert v >= at - 1e-9
    # a different criterion gives a different (setting-A) point
    loo = learn_kron_kernel(X1, X2, Y, criterion="loo", search=SearchOptions(restarts=1))
    assert loo.criterion != pytest.approx(res.criterion)


def test_bad_criterion_names_the_argument():
    X1, X2, Y = _data()
    with pytest.raises(ValueError, match="criterion"):
        learn_kron_kernel(X1, X2, Y, criterion="drug")
    with pytest.raises(ValueError, match="n_folds"):
        KronHoldoutCriterion("both", n_folds=1)
    with pytest.raises(ValueError, match="n_folds=9"):
        learn_kron_kernel(X1, X2, Y, criterion=KronHoldoutCriterion("rows", n_folds=9))


def test_faces_learn_by_new_drugs():
    """KronRLS(gamma='learn', criterion='drugs') and PairwiseRLS(gamma='learn',
    criterion='drugs') reach the core's point; its criterion is the refits'
    leave-drug-out error of the face's model."""
    from rlscore.estimators import PairwiseRLS
    from rlscore.learner import KronRLS
    X1, X2, Y = _data(6, 5, seed=4)
    core = learn_kron_kernel(X1, X2, Y, criterion="drugs")
    lrn = KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", criterion="drugs")
    assert lrn.regparam == pytest.approx(core.regparam, rel=1e-8)
    pairs = np.array([(i, j) for j in range(5) for i in range(6)])
    est = PairwiseRLS(X1, X2, kernel="rbf", gamma="learn", criterion="drugs").fit(
        pairs, Y[pairs[:, 0], pairs[:, 1]])
    assert est.alpha_ == pytest.approx(core.regparam, rel=1e-8)
    assert est.gamma1_ == pytest.approx(core.kernel_params1["gamma"], rel=1e-8)
    singles = [np.array([i]) for i in range(6)]
    K1, K2 = _gauss(X1, lrn.gamma1), _gauss(X2, lrn.gamma2)
    assert core.criterion == pytest.approx(
        _refit_error(K1, K2, Y, lrn.regparam, singles, None), rel=1e-8)
    with pytest.raises(ValueError, match="criterion"):
        PairwiseRLS(X1, X2, kernel="rbf", gamma="learn", criterion="drug").fit(
            pairs, Y[pairs[:, 0], pairs[:, 1]])
