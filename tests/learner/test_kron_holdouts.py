"""KronRLS hold-outs (settings A-D) against refits without each fold, and pair index
orders (rlscore.utilities.pairs; order="C" fold lists)."""

import numpy as np
import pytest

from rlscore.learner import KronRLS, TwoStepRLS
from rlscore.utilities.pairs import (as_pairs, convert_flat, flat_to_pairs,
                                     pairs_to_flat, unvec, vec)

N1, N2, LAM = 7, 5, 0.3


def _rbf(X):
    d = ((X[:, None] - X[None]) ** 2).sum(-1)
    return np.exp(-d / X.shape[1])


@pytest.fixture(params=["kernel", "linear"])
def setup(request):
    rng = np.random.default_rng(4)
    X1, X2 = rng.normal(size=(N1, 3)), rng.normal(size=(N2, 2))
    Y = rng.normal(size=(N1, N2))
    if request.param == "kernel":
        K1, K2 = _rbf(X1), _rbf(X2)
        m = KronRLS(K1=K1, K2=K2, Y=Y, regparam=LAM)
    else:
        K1, K2 = X1 @ X1.T, X2 @ X2.T            # linear mode, thin factors (d < n)
        m = KronRLS(X1=X1, X2=X2, Y=Y, regparam=LAM)
    return m, K1, K2, Y, rng


def _refit(K1, K2, Y, train):
    """Predictions for every pair of the brute-force RLS with K2 kron K1 trained on
    the pairs where ``train`` (n1 x n2 bool) holds."""
    K = np.kron(K2, K1)
    tr = train.ravel(order="F")
    a = np.linalg.solve(K[np.ix_(tr, tr)] + LAM * np.eye(tr.sum()), Y.ravel(order="F")[tr])
    return K[:, tr] @ a


def _reference(K1, K2, Y, heldout_sets):
    out = np.zeros(N1 * N2)
    for held in heldout_sets:                       # n1 x n2 bool: pairs of the fold
        train, predict = held
        idx = predict.ravel(order="F")
        out[idx] = _refit(K1, K2, Y, train)[idx]
    return out


def _rows(folds, axis):
    sets = []
    for f in folds:
        m = np.zeros((N1, N2), bool)
        if axis == 0:
            m[f] = True
        else:
            m[:, f] = True
        sets.append((~m, m))
    return sets


def test_leave_row_and_column_out(setup):
    m, K1, K2, Y, _ = setup
    np.testing.assert_allclose(m.leave_x1_out(),
                               _reference(K1, K2, Y, _rows([[i] for i in range(N1)], 0)),
                               atol=1e-10)
    np.testing.assert_allclose(m.leave_x2_out(),
                               _reference(K1, K2, Y, _rows([[j] for j in range(N2)], 1)),
                               atol=1e-10)


def test_row_and_column_kfold(setup):
    m, K1, K2, Y, _ = setup
    rf, cf = [[0, 3], [1, 2, 6], [4, 5]], [[0, 4], [1, 2, 3]]
    np.testing.assert_allclose(m.x1_kfold_cv(rf), _reference(K1, K2, Y, _rows(rf, 0)),
                               atol=1e-10)
    np.testing.assert_allclose(m.x2_kfold_cv(cf), _reference(K1, K2, Y, _rows(cf, 1)),
                               atol=1e-10)


def test_both_out_kfold(setup):
    m, K1, K2, Y, _ = setup
    rf, cf = [[0, 3], [1, 2, 6]], [[0, 4], [1, 2]]
    sets = []
    for f in rf:
        for g in cf:
            train = np.ones((N1, N2), bool)
            train[f] = False
            train[:, g] = False
            pred = np.zeros((N1, N2), bool)
            pred[np.ix_(f, g)] = True
            sets.append((train, pred))
    np.testing.assert_allclose(m.out_of_sample_kfold_cv(rf, cf),
                               _reference(K1, K2, Y, sets), atol=1e-10)


def test_pair_kfold_dense_and_iterative_and_orders(setup):
    m, K1, K2, Y, rng = setup
    perm = rng.permutation(N1 * N2)
    folds = [perm[:12], perm[12:24], perm[24:]]
    sets = []
    for f in folds:
        pred = np.zeros(N1 * N2, bool)
        pred[f] = True
        pred = pred.reshape((N1, N2), order="F")
        sets.append((~pred, pred))
    ref = _reference(K1, K2, Y, sets)
    np.testing.assert_allclose(m.in_sample_kfoldcv(folds), ref, atol=1e-10)
    # the same folds as row-major flat indices and as (rows, cols) pairs
    folds_c = [convert_flat(f, (N1, N2), "F", "C") for f in folds]
    np.testing.assert_array_equal(m.in_sample_kfoldcv(folds_c, order="C"),
                                  m.in_sample_kfoldcv(folds))
    pairs = [flat_to_pairs(f, (N1, N2)) for f in folds]
    np.testing.assert_array_equal(m.in_sample_kfoldcv(pairs), m.in_sample_kfoldcv(folds))
    from rlscore.core.kronecker import kron_pairs_holdout
    it = kron_pairs_holdout(m._f1, m._f2, m.Y, pairs, LAM, dense_limit=0)
    np.testing.assert_allclose(it.ravel(order="F"), ref, atol=1e-9)
    # conjugate gradients stopped short: a warning naming the fold (was a NameError)
    with pytest.warns(UserWarning, match="fold 0"):
        kron_pairs_holdout(m._f1, m._f2, m.Y, pairs, LAM, dense_limit=0, maxiter=1)


def test_two_step_accepts_row_major_folds():
    rng = np.random.default_rng(5)
    K1, K2 = _rbf(rng.normal(size=(N1, 2))), _rbf(rng.normal(size=(N2, 2)))
    Y = rng.normal(size=(N1, N2))
    ts = TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=0.5, regparam2=0.2)
    perm = rng.permutation(N1 * N2)
    folds = [perm[:17], perm[17:]]
    by_pairs = ts.in_sample_kfoldcv([flat_to_pairs(f, (N1, N2)) for f in folds])
    np.testing.assert_array_equal(ts.in_sample_kfoldcv(folds), by_pairs)
    np.testing.assert_array_equal(ts.in_sample_kfoldcv(
        [convert_flat(f, (N1, N2), "F", "C") for f in folds], order="C"), by_pairs)


def test_index_conversions_round_trip():
    rng = np.random.default_rng(6)
    shape = (4, 7)
    Y = rng.normal(size=shape)
    r, c = rng.integers(0, 4, 30), rng.integers(0, 7, 30)
    for order in "FC":
        k = pairs_to_flat(r, c, shape, order)
        assert np.all(vec(Y, order)[k] == Y[r, c])
        r2, c2 = flat_to_pairs(k, shape, order)
        np.testing.assert_array_equal(r2, r)
        np.testing.assert_array_equal(c2, c)
        np.testing.assert_array_equal(unvec(vec(Y, order), shape, order), Y)
        other = "C" if order == "F" else "F"
        np.testing.assert_array_equal(
            convert_flat(convert_flat(k, shape, order, other), shape, other, order), k)
    assert pairs_to_flat([1], [2], shape, "F")[0] == 1 + 2 * 4
    assert pairs_to_flat([1], [2], shape, "C")[0] == 1 * 7 + 2
    r3, c3 = as_pairs((r, c), shape)
    np.testing.assert_array_equal(r3, r)


def test_bad_orders_and_indices():
    with pytest.raises(ValueError, match="order must be 'F'"):
        pairs_to_flat([0], [0], (2, 2), order="row")
    with pytest.raises(IndexError, match="inds holds index 4"):
        flat_to_pairs([4], (2, 2))
    with pytest.raises(ValueError, match="differ in length"):
        pairs_to_flat([0, 1], [0], (2, 2))
    with pytest.raises(ValueError, match="length n1 \\* n2 = 4"):
        unvec(np.zeros(5), (2, 2))
    rng = np.random.default_rng(0)
    m = KronRLS(K1=np.eye(3), K2=np.eye(2), Y=rng.normal(size=(3, 2)), regparam=1.0)
    with pytest.raises(ValueError, match="order must be"):
        m.in_sample_kfoldcv([[0, 1]], order="X")
    with pytest.raises(ValueError, match="holds out every pair"):
        m.in_sample_kfoldcv([np.arange(6)])
    with pytest.raises(ValueError, match="every object"):
        m.x1_kfold_cv([[0, 1, 2]])
    with pytest.raises(IndexError, match="folds\\[0\\]"):
        m.x2_kfold_cv([[5]])
