"""random_folds draws exactly RLScore's folds for the same seed.

RLScore drew fold i with ``Random(seed).sample(remaining, size_i)`` where ``remaining``
was a set (``random.sample`` turned it into ``tuple(remaining)`` on Python <= 3.10) and
then set ``remaining = remaining.difference(fold)``. The reference below is that
algorithm written out with real sets (on CPython the tuple's order is the set table's
order, which ``random_folds`` reproduces without sets), plus folds printed by RLScore's
own function run on Python 3.8 (identical on 3.6 and 3.10), which hold on any
interpreter.
"""

import platform
import random

import pytest

from rlscore.utilities._set_order import IntSet
from rlscore.utilities.cross_validation import random_folds


# printed by RLScore 0.8's random_folds under Python 3.8.18 (and 3.6.15, 3.10.13)
PRINTED = {
    (0, 10, 3): [[6, 9, 0, 2], [7, 5, 8], [3, 4, 1]],
    (42, 25, 4): [[20, 3, 0, 8, 7, 24, 4], [6, 5, 18, 1, 19, 2], [12, 23, 17, 9, 22, 14],
                  [21, 16, 15, 10, 11, 13]],
    (1, 7, 1): [[1, 4, 0, 2, 5, 6, 3]],
    (7, 3, 3): [[1], [0], [2]],
    (1234, 101, 7): [
        [99, 56, 14, 0, 11, 74, 4, 85, 88, 10, 12, 98, 45, 30, 2],
        [6, 5, 53, 95, 92, 71, 91, 69, 26, 18, 31, 21, 3, 75, 72],
        [47, 19, 82, 97, 23, 90, 15, 50, 73, 51, 13, 59, 34, 46, 77],
        [42, 37, 35, 70, 29, 55, 61, 76, 7, 60, 16, 1, 41, 25],
        [79, 64, 36, 20, 22, 80, 94, 89, 40, 33, 9, 78, 38, 96],
        [27, 63, 28, 81, 48, 58, 17, 57, 44, 86, 32, 67, 87, 62],
        [54, 68, 93, 65, 39, 24, 84, 8, 52, 83, 100, 66, 43, 49]],
}


@pytest.mark.parametrize("key", sorted(PRINTED))
def test_folds_printed_by_rlscore(key):
    seed, ssize, k = key
    assert random_folds(ssize, k, seed=seed) == PRINTED[key]


cpython = pytest.mark.skipif(platform.python_implementation() != "CPython",
                             reason="the written-out reference relies on CPython's set order")


@cpython
@pytest.mark.parametrize("seed", [0, 1, 3, 2024, "tutorial"])
@pytest.mark.parametrize("ssize, k", [(1, 1), (5, 5), (13, 5), (20, 10), (28, 10), (79, 5),
                                      (100, 3), (111, 7), (257, 10), (506, 10), (1000, 4),
                                      (2049, 2)])
def test_folds_equal_rlscore_algorithm(seed, ssize, k, rlscore_reference_folds):
    assert random_folds(ssize, k, seed=seed) == rlscore_reference_folds(ssize, k, seed)


@cpython
def test_set_order_emulation_every_step():
    """The emulated set table iterates like the real set after every difference,
    including the steps where CPython rebuilds a table with many dummies."""
    for ssize in (3, 9, 20, 64, 300):
        rng = random.Random(ssize)
        real, emu = set(range(ssize)), IntSet.from_range(ssize)
        while real:
            assert list(real) == emu.order()
            drop = rng.sample(tuple(real), max(1, len(real) // rng.choice([2, 3, 5])))
            real, emu = real.difference(drop), emu.difference(drop)
        assert emu.order() == []


def test_global_random_without_seed():
    random.seed(5)
    a = random_folds(40, 6)
    assert a == random_folds(40, 6, seed=5)
