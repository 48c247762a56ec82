import numpy as np
import pytest

from rlscore.core.groups import QueryGroups, as_query_groups


def _brute_codes(qids):
    table = {}
    return np.array([table.setdefault(q, len(table)) for q in qids]), table


@pytest.mark.parametrize("qids", [
    [3, 1, 3, 2, 1, 1], ["b", "a", "b", "c"], np.array([5.0, 5.0, -1.0, 7.0]),
    np.array([[2], [2], [9]]),
])
def test_codes_sizes_members_match_first_appearance(qids):
    flat = np.asarray(qids).ravel().tolist()
    codes, table = _brute_codes(flat)
    g = QueryGroups.from_qids(qids)
    np.testing.assert_array_equal(g.codes, codes)
    assert g.n_groups == len(table)
    assert list(g.ids) == list(table)
    for q in range(g.n_groups):
        np.testing.assert_array_equal(g.members(q), np.flatnonzero(codes == q))
        assert g.sizes[q] == np.sum(codes == q)
    assert [list(s) for s in g.split()] == [list(np.flatnonzero(codes == q))
                                            for q in range(g.n_groups)]


def test_folds_hold_whole_queries_and_cover_every_row():
    rng = np.random.default_rng(0)
    qids = rng.integers(0, 23, size=200)
    g = QueryGroups.from_qids(qids)
    folds = g.folds(5, seed=3)
    rows = np.sort(np.concatenate(folds))
    np.testing.assert_array_equal(rows, np.arange(200))
    seen = [set(qids[f]) for f in folds]
    for a in range(5):
        for b in range(a + 1, 5):
            assert not seen[a] & seen[b]
    counts = [len(s) for s in seen]
    assert max(counts) - min(counts) <= 1
    again = g.folds(5, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(folds, again))


def test_sum_mean_center_equal_loops():
    rng = np.random.default_rng(1)
    qids = rng.integers(0, 6, size=40)
    v = rng.normal(size=(40, 3))
    g = QueryGroups.from_qids(qids)
    for j in range(3):
        for q in range(g.n_groups):
            rows = g.members(q)
            assert np.isclose(g.sum(v[:, j])[q], v[rows, j].sum())
            assert np.isclose(g.mean(v)[q, j], v[rows, j].mean())
        c = g.center(v[:, j])
        for q in range(g.n_groups):
            assert abs(c[g.members(q)].sum()) < 1e-12


@pytest.mark.parametrize("bad, exc", [
    ([], ValueError), ([1.5, 2.0], ValueError), ([np.nan, 1.0], ValueError),
    (np.zeros((2, 2)), ValueError), ("abc", TypeError), ([[1], [2, 3]], (TypeError, ValueError)),
])
def test_bad_ids_are_refused(bad, exc):
    with pytest.raises(exc):
        QueryGroups.from_qids(bad)


def test_wrong_length_and_passthrough():
    with pytest.raises(ValueError, match="length 3"):
        QueryGroups.from_qids([1, 2, 3], m=4)
    g = QueryGroups.from_qids([1, 1, 2])
    assert as_query_groups(g, 3) is g
    assert as_query_groups(None) is None
    with pytest.raises(ValueError):
        as_query_groups(g, 5)
    with pytest.raises(ValueError, match="folds"):
        g.folds(3)
