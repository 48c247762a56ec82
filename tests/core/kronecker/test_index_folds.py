"""One checker of object-index folds (rlscore._validation.check_index_folds), used by
the K-fold shortcuts of KronRLS and TwoStepRLS: the same folds in every accepted form
give the same hold-out predictions, equal to refitting without the fold; every bad
form is refused with the same message by both."""

import numpy as np
import pytest

from rlscore._validation import IndexArrayError, check_index_folds
from rlscore.learner import KronRLS, TwoStepRLS

N1, N2 = 6, 5
ROWFOLDS = [[0, 3], [1, 4], [2, 5]]


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    X1, X2 = rng.normal(size=(N1, 3)), rng.normal(size=(N2, 4))
    return X1 @ X1.T + np.eye(N1), X2 @ X2.T + np.eye(N2), rng.normal(size=(N1, N2))


def _kron(K1, K2, Y):
    return KronRLS(K1=K1, K2=K2, Y=Y, regparam=0.5)


def _two_step(K1, K2, Y):
    return TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=0.5, regparam2=2.0)


FACES = [_kron, _two_step]

FORMS = {
    "list of lists": ROWFOLDS,
    "list of arrays": [np.array(f) for f in ROWFOLDS],
    "tuple of tuples": tuple(tuple(f) for f in ROWFOLDS),
    "2-D array": np.array(ROWFOLDS),
}


@pytest.mark.parametrize("make", FACES)
def test_every_form_equals_refitting_without_the_fold(data, make):
    K1, K2, Y = data
    model = make(K1, K2, Y)
    expected = np.zeros((N1, N2))
    for fold in ROWFOLDS:
        rest = np.setdiff1d(np.arange(N1), fold)
        refit = make(K1[np.ix_(rest, rest)], K2, Y[rest])
        expected[fold] = refit.predict(K1[np.ix_(fold, rest)], K2).reshape(
            (len(fold), N2), order="F")
    for form, folds in FORMS.items():
        got = np.asarray(model.x1_kfold_cv(folds)).reshape((N1, N2), order="F")
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10, err_msg=form)
    # the column folds go through the same checker
    cols = [np.asarray(model.x2_kfold_cv(f)) for f in
            ([[0, 3], [1, 4]], [np.array([0, 3]), np.array([1, 4])],
             np.array([[0, 3], [1, 4]]))]
    for c in cols[1:]:
        np.testing.assert_array_equal(c, cols[0])


BAD = [
    ([], ValueError, "folds must be a non-empty list of folds.*got no fold"),
    (np.zeros((0, 2), dtype=int), ValueError, "got no fold"),
    ([[0, 1], []], ValueError, r"folds\[1\] is empty"),
    ([[0, 1, 1]], IndexArrayError, r"folds\[0\] holds repeated indices"),
    ([[0, N1]], IndexArrayError, rf"folds\[0\] holds index {N1}, outside 0..{N1 - 1}"),
    ([[-1, 2]], IndexArrayError, r"folds\[0\] holds index -1"),
    (np.array([0, 1, 2]), ValueError, r"non-empty list of folds.*shape \(3,\)"),
    ("012", ValueError, "non-empty list of folds.*got str"),
    (3, ValueError, "non-empty list of folds.*got int"),
    (None, ValueError, "non-empty list of folds.*got NoneType"),
    ([[0.5, 1]], ValueError, r"folds\[0\] must hold integer indices"),
]


@pytest.mark.parametrize("make", FACES)
@pytest.mark.parametrize("folds, error, message", BAD)
def test_bad_folds_same_message_for_both(data, make, folds, error, message):
    model = make(*data)
    with pytest.raises(error, match=message):
        model.x1_kfold_cv(folds)


def test_out_of_sample_folds_name_their_argument(data):
    for model in (_kron(*data), _two_step(*data)):
        with pytest.raises(IndexArrayError, match=r"colfolds\[0\] holds index 9"):
            model.out_of_sample_kfold_cv([[0, 1]], [[9]])
        with pytest.raises(ValueError, match="rowfolds must be a non-empty list"):
            model.out_of_sample_kfold_cv([], [[0]])


def test_checker_returns_intp_arrays_and_refuses_overlap_unless_asked():
    with pytest.raises(ValueError, match=r"folds\[0\] and folds\[1\] both hold index 0"):
        check_index_folds(np.array([[2, 0], [0, 1]]), 3)
    out = check_index_folds(np.array([[2, 0], [0, 1]]), 3, disjoint=False)
    assert [f.tolist() for f in out] == [[2, 0], [0, 1]]
    assert all(f.dtype == np.intp for f in out)
    assert [f.tolist() for f in check_index_folds((f for f in [[1], [2.0]]), 3)] == [[1], [2]]
