"""Tests for rlscore.utilities.cross_validation."""

import random

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from rlscore.core.selection import EdgeOfGridWarning
from rlscore.utilities.cross_validation import grid_search, map_ids, qid_folds, random_folds


# ---------------------------------------------------------------------------- random_folds

@pytest.mark.parametrize("ssize, k", [(10, 3), (10, 10), (7, 1), (100, 7), (1, 1), (5, 5)])
def test_random_folds_partition(ssize, k):
    folds = random_folds(ssize, k, seed=42)
    assert isinstance(folds, list) and len(folds) == k
    assert all(isinstance(f, list) for f in folds)
    assert all(isinstance(i, int) for f in folds for i in f)
    flat = [i for f in folds for i in f]
    assert sorted(flat) == list(range(ssize))  # disjoint and covering
    sizes = [len(f) for f in folds]
    extra = ssize % k
    assert sizes == [ssize // k + 1] * extra + [ssize // k] * (k - extra)


def test_random_folds_seed_determinism():
    a = random_folds(50, 5, seed=7)
    b = random_folds(50, 5, seed=7)
    c = random_folds(50, 5, seed=8)
    assert a == b
    assert a != c


def test_random_folds_global_random_module():
    random.seed(123)
    a = random_folds(30, 4)
    random.seed(123)
    b = random_folds(30, 4)
    assert a == b


def test_random_folds_is_random():
    # not simply consecutive blocks
    folds = random_folds(100, 4, seed=0)
    assert folds[0] != list(range(25))


def test_random_folds_does_not_touch_global_state_with_seed():
    random.seed(5)
    expected = random.random()
    random.seed(5)
    random_folds(20, 3, seed=1)
    assert random.random() == expected


@pytest.mark.parametrize("ssize, k", [(10, 0), (10, 11), (0, 1), (5, -1)])
def test_random_folds_invalid_k(ssize, k):
    with pytest.raises(ValueError):
        random_folds(ssize, k)


def test_random_folds_non_integer():
    with pytest.raises(TypeError):
        random_folds(10.0, 2)
    with pytest.raises(TypeError):
        random_folds(10, 2.5)
    assert len(random_folds(np.int64(10), np.int32(2), seed=1)) == 2


# --------------------------------------------------------------------------------- map_ids

def test_map_ids_spec_example():
    assert map_ids([3, 3, 1, 1, 1, 3, 2]) == [[0, 1], [2, 3, 4], [5], [6]]


@pytest.mark.parametrize("ids, expected", [
    ([0], [[0]]),
    ([1, 1, 1], [[0, 1, 2]]),
    ([1, 2, 1, 2], [[0], [1], [2], [3]]),
    (["a", "a", "b", "b", "b"], [[0, 1], [2, 3, 4]]),
    (np.array([5, 5, 6]), [[0, 1], [2]]),
])
def test_map_ids_runs(ids, expected):
    assert map_ids(ids) == expected


def test_map_ids_empty_raises_indexerror():
    with pytest.raises(IndexError):
        map_ids([])


# ------------------------------------------------------------------------------- qid_folds

def test_qid_folds_groups_globally_in_first_appearance_order():
    assert qid_folds(["b", "a", "b", 3]) == [[0, 2], [1], [3]]
    assert qid_folds([3, 3, 1, 1, 1, 3, 2]) == [[0, 1, 5], [2, 3, 4], [6]]
    assert qid_folds(np.array([2, 1, 2])) == [[0, 2], [1]]
    assert qid_folds([]) == []


# ----------------------------------------------------------------------------- grid_search

def _measure(iserror):
    def measure(Y, P):
        raise AssertionError("not called by grid_search")
    measure.iserror = iserror
    return measure


class FakeLearner:
    def __init__(self):
        self.solved = []

    def solve(self, regparam):
        self.solved.append(regparam)


class FakeCV:
    def __init__(self, perfs, iserror):
        self.perfs = dict(perfs)
        self.rls = FakeLearner()
        self.measure = _measure(iserror)
        self.calls = []

    def cv(self, regparam):
        # solve must already have been called for this λ
        assert self.rls.solved[-1] == regparam
        self.calls.append(regparam)
        return self.perfs[regparam], f"pred@{regparam}"


def test_grid_search_argmin_for_error_measures():
    grid = [0.25, 1, 4, 16]
    cv = FakeCV({0.25: 3.0, 1: 1.0, 4: 2.0, 16: 5.0}, iserror=True)
    perfs, preds, best = grid_search(cv, grid)
    assert isinstance(perfs, np.ndarray)
    assert_array_equal(perfs, [3.0, 1.0, 2.0, 5.0])
    assert preds == ["pred@0.25", "pred@1", "pred@4", "pred@16"]
    assert best == 1 and type(best) is int
    assert cv.calls == grid
    # solve before each cv, then once more at the chosen λ
    assert cv.rls.solved == grid + [1]


def test_grid_search_argmax_for_score_measures():
    grid = [2.0**x for x in range(-2, 3)]
    cv = FakeCV({g: p for g, p in zip(grid, [0.5, 0.9, 0.7, 0.6, 0.1])}, iserror=False)
    perfs, preds, best = grid_search(cv, grid)
    assert best == 0.5
    assert cv.rls.solved[-1] == 0.5


def test_grid_search_first_on_ties():
    grid = [1, 2, 3, 4]
    cv = FakeCV({1: 0.3, 2: 0.8, 3: 0.8, 4: 0.1}, iserror=False)
    assert grid_search(cv, grid)[2] == 2
    cv = FakeCV({1: 0.3, 2: 0.1, 3: 0.1, 4: 0.1}, iserror=True)
    assert grid_search(cv, grid)[2] == 2


def test_grid_search_keeps_element_type_and_accepts_iterables():
    grid = [2**x for x in range(-15, 16)]  # default grid: floats then ints
    perf = {g: -abs(np.log2(g) - 4) for g in grid}
    cv = FakeCV(perf, iserror=False)
    perfs, preds, best = grid_search(cv, grid)
    assert best == 16 and type(best) is int
    assert perfs.shape == (31,)
    cv = FakeCV({x: -abs(x) for x in range(-15, 15)}, iserror=False)
    perfs, preds, best = grid_search(cv, range(-15, 15))
    assert best == 0 and perfs.shape == (30,)
    cv = FakeCV({x: float(x) for x in range(3)}, iserror=True)
    with pytest.warns(EdgeOfGridWarning, match="smallest value"):   # 0 is an end
        assert grid_search(cv, (x for x in range(3)))[2] == 0


def test_grid_search_ignores_nan():
    grid = [1, 2, 3]
    cv = FakeCV({1: np.nan, 2: 0.4, 3: 0.2}, iserror=True)
    with pytest.warns(RuntimeWarning), pytest.warns(EdgeOfGridWarning, match="largest"):
        perfs, preds, best = grid_search(cv, grid)
    assert best == 3
    assert np.isnan(perfs[0])
    cv = FakeCV({1: np.nan, 2: np.nan, 3: np.nan}, iserror=False)
    with pytest.raises(ValueError):
        grid_search(cv, grid)


def test_grid_search_empty_grid():
    with pytest.raises(ValueError):
        grid_search(FakeCV({}, iserror=True), [])
