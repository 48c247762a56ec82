"""Tests for rlscore.utilities.multiclass and rlscore.utilities.array_tools."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from rlscore.utilities.array_tools import as_2d_array, as_index_list
from rlscore.utilities.multiclass import from_one_vs_all, to_one_vs_all


def test_to_one_vs_all_startzero():
    Y = to_one_vs_all([0, 2, 1, 2])
    assert Y.dtype == np.float64 and Y.shape == (4, 3)
    assert_array_equal(Y, [[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [-1, -1, 1]])


def test_to_one_vs_all_startone():
    Y = to_one_vs_all(np.array([1, 3, 3]), startzero=False)
    assert_array_equal(Y, [[1, -1, -1], [-1, -1, 1], [-1, -1, 1]])


def test_to_one_vs_all_missing_class_gets_column():
    Y = to_one_vs_all([0, 3])
    assert Y.shape == (2, 4)
    assert_array_equal(Y[:, 1], [-1, -1])


def test_to_one_vs_all_accepts_integral_floats_and_columns():
    assert_array_equal(to_one_vs_all([0.0, 1.0]), to_one_vs_all([0, 1]))
    assert_array_equal(to_one_vs_all(np.array([[0], [1]])), to_one_vs_all([0, 1]))


@pytest.mark.parametrize("Y, startzero", [
    ([0.5, 1], True), ([-1, 0], True), ([0, 1], False), ([], True),
    (np.zeros((2, 2)), True), (["a", "b"], True), ([True, False], True),
])
def test_to_one_vs_all_invalid(Y, startzero):
    with pytest.raises(ValueError):
        to_one_vs_all(Y, startzero=startzero)


@pytest.mark.parametrize("startzero", [True, False])
def test_one_vs_all_round_trip(startzero):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 40) + (0 if startzero else 1)
    back = from_one_vs_all(to_one_vs_all(labels, startzero), startzero)
    assert_array_equal(back, labels)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_from_one_vs_all_predictions_first_max_wins():
    P = np.array([[0.1, 0.7, -0.2], [0.5, 0.5, 0.1], [-3, -2, -1]])
    assert_array_equal(from_one_vs_all(P), [1, 0, 2])
    assert_array_equal(from_one_vs_all(P, startzero=False), [2, 1, 3])
    assert_array_equal(from_one_vs_all(np.asmatrix(P)), [1, 0, 2])


def test_from_one_vs_all_1d_raises_valueerror():
    with pytest.raises(ValueError):
        from_one_vs_all(np.array([0.1, 0.2]))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_as_2d_array():
    A = as_2d_array([1, 2, 3])
    assert A.shape == (3, 1) and A.dtype == np.float64
    assert type(as_2d_array(np.asmatrix(np.ones((2, 3))))) is np.ndarray
    assert_array_equal(as_2d_array(sp.csr_matrix(np.eye(2))), np.eye(2))
    for bad in (np.array([np.nan]), np.array([True]), np.ones((2, 2, 2)), ["a"]):
        with pytest.raises(ValueError):
            as_2d_array(bad)


def test_as_index_list():
    idx = as_index_list([0, 3, 2], 5)
    assert isinstance(idx, np.ndarray) and np.issubdtype(idx.dtype, np.integer)
    assert_array_equal(idx, [0, 3, 2])
    assert_array_equal(as_index_list([1, 1], 5), [1, 1])  # repeats allowed by default
    with pytest.raises(IndexError):
        as_index_list([1, 1], 5, unique=True)
    for bad in ([0, 3, 100], [-1, 0, 2]):
        with pytest.raises(IndexError):
            as_index_list(bad, 5)
    for bad in ([], [[0, 1]], [0.5]):
        with pytest.raises(ValueError):
            as_index_list(bad, 5)
