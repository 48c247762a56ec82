"""The compiled concordant-pair count (rlscore._ext._concordance.pair_counts) and the
c-index built on it, against a brute-force O(m^2) count of the pairs, with and without
ties of labels and predictions, with groups."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlscore._ext._concordance import pair_counts
from rlscore.measure import cindex
from rlscore.measure.query_measures import query_cindex


def brute(y, p, g, G):
    """(pairs, concordant, tied-in-p with different labels) and all p-tied pairs,
    from the explicit m x m comparison matrices."""
    i, j = np.triu_indices(len(y), 1)
    i, j = i[g[i] == g[j]], j[g[i] == g[j]]
    gi = g[i]
    pt = np.bincount(gi, p[i] == p[j], minlength=G).astype(np.int64)
    pair = y[i] != y[j]
    hi = np.where(y[i] > y[j], i, j)
    lo = np.where(y[i] > y[j], j, i)
    out = np.stack([np.bincount(gi, pair, minlength=G),
                    np.bincount(gi, pair & (p[hi] > p[lo]), minlength=G),
                    np.bincount(gi, pair & (p[hi] == p[lo]), minlength=G)], axis=1)
    return out.astype(np.int64), pt


def run(y, p, g, G):
    out = np.full((G, 3), -1, np.int64)
    pt = np.full(G, -1, np.int64)
    pair_counts(y, p, g if G > 1 else None, G, out, pt)
    return out, pt


TIED = st.integers(-2, 2).map(float)
REAL = st.floats(-5, 5, allow_nan=False, allow_subnormal=False)
VALUES = st.one_of(TIED, REAL, st.just(-0.0))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 70).flatmap(lambda n: st.tuples(
    st.lists(st.one_of(TIED, REAL), min_size=n, max_size=n),
    st.lists(VALUES, min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))), st.booleans())
def test_pair_counts_against_brute_force(data, grouped):
    y, p, g = (np.array(v, dtype=float) for v in data)
    g = g.astype(np.intp) if grouped else np.zeros(y.size, np.intp)
    G = 3 if grouped else 1
    out, pt = run(y, p, g, G)
    ref, ref_pt = brute(y, p, g, G)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(pt, ref_pt)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 90).flatmap(lambda n: st.tuples(
    st.lists(st.one_of(TIED, REAL), min_size=n, max_size=n),
    st.lists(VALUES, min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n))))
def test_pair_counts_contiguous_groups_against_brute_force(data):
    # nondecreasing codes take the per-group path (each block sorted on its own)
    y, p, g = (np.array(v, dtype=float) for v in data)
    g = np.sort(g).astype(np.intp)
    out, pt = run(y, p, g, 4)
    ref, ref_pt = brute(y, p, g, 4)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(pt, ref_pt)


@pytest.mark.parametrize("labels", ["graded", "continuous"])
def test_contiguous_path_equals_shuffled_codes_and_brute_force(labels, rng):
    # group sizes around the insertion/radix thresholds of the per-group sort (16 items
    # per varying key byte: 32 for small integer labels, up to 128 for continuous ones);
    # an empty code (3); a group whose labels are all equal (7); tied labels and
    # predictions
    sizes = {0: 1, 1: 2, 2: 63, 4: 64, 5: 65, 6: 200, 7: 80, 8: 31, 9: 32, 10: 33,
             11: 127, 12: 128, 13: 129, 14: 3}
    g = np.concatenate([np.full(s, c, np.intp) for c, s in sizes.items()])
    n, G = g.size, 15
    if labels == "graded":
        y = rng.integers(0, 4, n).astype(float)
    else:
        y = rng.standard_normal(n)
    y[g == 7] = 2.0
    p = np.where(rng.random(n) < 0.5, rng.integers(0, 6, n).astype(float),
                 rng.standard_normal(n))
    out, pt = run(y, p, g, G)
    ref, ref_pt = brute(y, p, g, G)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(pt, ref_pt)
    assert ref[7, 0] == 0 and ref[3].tolist() == [0, 0, 0] and ref[6, 2] > 0
    perm = rng.permutation(n)
    assert np.any(np.diff(g[perm]) < 0)          # the general (global sort) path
    out2, pt2 = run(y[perm], p[perm], g[perm], G)
    np.testing.assert_array_equal(out2, out)
    np.testing.assert_array_equal(pt2, pt)
    # the same per-query values, averaged in another query order
    assert query_cindex(y[perm], p[perm], g[perm]) == pytest.approx(
        query_cindex(y, p, g), rel=1e-14)


@pytest.mark.parametrize("case", ["continuous_y_integer_p", "tied_both", "no_ties"])
def test_large_runs_use_the_radix_path(case, rng):
    # label runs longer than 64 are sorted by the radix sort, shorter ones by insertion
    n = 900
    if case == "continuous_y_integer_p":
        y, p = rng.standard_normal(n), rng.integers(0, 7, n).astype(float)
    elif case == "tied_both":
        y, p = rng.integers(0, 3, n).astype(float), rng.integers(0, 5, n) * 0.5
    else:
        y, p = rng.standard_normal(n), rng.standard_normal(n)
    g = rng.integers(0, 2, n).astype(np.intp)
    for G, gg in ((1, np.zeros(n, np.intp)), (2, g)):
        out, pt = run(y, p, gg, G)
        ref, ref_pt = brute(y, p, gg, G)
        np.testing.assert_array_equal(out, ref)
        np.testing.assert_array_equal(pt, ref_pt)
    # the measures on top: c-index = (concordant + ties / 2) / pairs
    ref, _ = brute(y, p, np.zeros(n, np.intp), 1)
    assert cindex(y, p) == pytest.approx((ref[0, 1] + 0.5 * ref[0, 2]) / ref[0, 0],
                                         rel=1e-15)
    ref, _ = brute(y, p, g, 2)
    assert query_cindex(y, p, g) == pytest.approx(
        np.mean((ref[:, 1] + 0.5 * ref[:, 2]) / ref[:, 0]), rel=1e-15)


def test_pair_counts_bad_input():
    y = np.arange(4.0)
    out, pt = np.zeros((1, 3), np.int64), np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="length"):
        pair_counts(y, np.zeros(3), None, 1, out, pt)
    with pytest.raises(ValueError, match="finite"):
        pair_counts(y, np.array([0, np.nan, 1, 2.0]), None, 1, out, pt)
    with pytest.raises(ValueError, match="group codes"):
        pair_counts(y, y, np.array([0, 1, 2, 0]), 2, np.zeros((2, 3), np.int64),
                    np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="shape"):
        pair_counts(y, y, None, 1, np.zeros((2, 3), np.int64), pt)
    with pytest.raises(ValueError, match="n_groups"):
        pair_counts(y, y, None, 2, np.zeros((2, 3), np.int64), np.zeros(2, np.int64))
