"""Test configuration: make sure the compiled package is the one under test."""

import os

import numpy as np
import pytest

# Child processes (``python -c ...`` in the CLI, fuzz and bounds tests) must import the
# installed package too: without this, a child started in the repository root puts the
# source folder (no compiled extensions) first on sys.path (PYTHONSAFEPATH, Python >= 3.11,
# which is why the package requires 3.11: 3.10 reached its end of life in October 2026).
os.environ.setdefault("PYTHONSAFEPATH", "1")


def pytest_report_header(config):
    import rlscore
    from rlscore._ext import _lpo  # fails loudly if the extensions were not built
    return f"rlscore {rlscore.__version__} from {rlscore.__file__} (ext: {_lpo.__file__})"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def _rlscore_reference_folds(ssize, k, seed):
    """RLScore 0.8's random_folds written out: each fold sampled with
    ``random.Random(seed)`` from the tuple of the *set* of remaining indices, which is
    then reduced by ``set.difference`` (the order of a CPython int set matters)."""
    import random
    rng = random.Random(seed)
    remaining = set(range(ssize))
    size, extra = divmod(ssize, k)
    folds = []
    for i in range(k):
        fold = rng.sample(tuple(remaining), size + (1 if i < extra else 0))
        remaining = remaining.difference(fold)
        folds.append(fold)
    return folds


def _cindex_by_hand(y, p):
    """The c-index by its pair definition, O(m^2): over the ordered pairs with
    y_i > y_j, the fraction that p orders the same way (a tie in p counts 1/2). None
    when no two labels differ (no pair: undefined; each test says what that means)."""
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                den += 1
                num += 1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0
    return num / den if den else None


@pytest.fixture(scope="session")
def cindex_by_hand():
    """The brute-force c-index every fast one is compared with (one copy for every
    test): ``cindex_by_hand(y, p)`` is a float, or None when there is no pair."""
    return _cindex_by_hand


@pytest.fixture
def rlscore_reference_folds():
    """The reference algorithm of RLScore's random_folds (one copy for every test)."""
    return _rlscore_reference_folds
