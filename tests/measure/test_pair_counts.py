"""rlscore.measure.pair_counts: the public counts behind the c-index (the distributed
measures add them over partitions), against the pair definition."""

import numpy as np
import pytest

from rlscore.measure import cindex, pair_counts


def _counts_by_hand(y, p):
    pairs = conc = ties = 0
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            if y[i] != y[j]:
                pairs += 1
                ties += p[i] == p[j]
                conc += (p[i] - p[j]) * (y[i] - y[j]) > 0
    return pairs, conc, ties


@pytest.mark.parametrize("seed", range(5))
def test_pair_counts_equal_the_pair_definition(seed, cindex_by_hand):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 60))
    y = rng.integers(0, 4, m).astype(float)
    p = rng.integers(0, 6, m) * 0.5
    counts = pair_counts(y, p)
    assert counts == _counts_by_hand(y, p) and all(type(c) is int for c in counts)
    if counts[0]:
        assert (counts[1] + counts[2] / 2) / counts[0] == pytest.approx(
            cindex_by_hand(y, p), rel=1e-12)
        assert (counts[1] + counts[2] / 2) / counts[0] == pytest.approx(cindex(y, p))


def test_pair_counts_of_few_rows_and_bad_input():
    assert pair_counts([], []) == (0, 0, 0) and pair_counts([1.0], [2.0]) == (0, 0, 0)
    for y, p, match in (([1, 2], [1], "differ in length"), ([[1, 2]], [[1, 2]], "1-D"),
                        ([1, np.nan], [1, 2], "NaN"), ([True, False], [1, 2], "y must"),
                        ([1, 2], ["a", "b"], "p must")):
        with pytest.raises(ValueError, match=match):
            pair_counts(y, p)
