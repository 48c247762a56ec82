import numpy as np
import pytest

from rlscore.core.structure import QueryGroups, as_query_groups


def _brute_codes(qids):
    table = {}
    return np.array([table.setdefault(q, len(table)) for q in qids]), table


@pytest.mark.parametrize("qids", [
    [3, 1, 3, 2, 1, 1], ["b", "a", "b", "c"], np.array([5.0, 5.0, -1.0, 7.0]),
    np.array([[2], [2], [9]]),
    # contiguous runs in increasing order (the one-pass path), and near misses of it
    np.array([1, 1, 2, 2, 2, 7]), np.array([4]), np.array([4, 4, 4]),
    np.array([1.0, 1.0, 3.0]), np.array([1, 1, 2, 1]), np.array([2, 2, 1, 1]),
    np.array([0, 0, 5, 5, 3]),
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


def test_codes_of_mixed_and_column_ids():
    assert QueryGroups.from_qids(["b", "a", "b", 3]).codes.tolist() == [0, 1, 0, 2]
    g = QueryGroups.from_qids(np.array([7, 7, 2, 9, 2]))
    assert g.codes.tolist() == [0, 0, 1, 2, 1] and g.n_groups == 3
    assert QueryGroups.from_qids(np.array([[1], [1], [0]])).codes.tolist() == [0, 0, 1]
    assert QueryGroups.from_qids([1.0, 2.0, 1.0]).codes.tolist() == [0, 1, 0]
    with pytest.raises(TypeError):
        QueryGroups.from_qids(5)


@pytest.mark.parametrize("qids", [[0] * 7, [2, 1, 2, 2, 0, 1, 0]])
def test_householder_basis_spans_the_centring_projection(qids):
    g = QueryGroups.from_qids(qids)
    m = g.m
    P = np.eye(m)
    for rows in g.split():
        P[np.ix_(rows, rows)] -= 1.0 / rows.size
    B = g.basis(np.eye(m - g.n_groups))
    np.testing.assert_allclose(B.T @ B, np.eye(m - g.n_groups), atol=1e-12)
    np.testing.assert_allclose(B @ B.T, P, atol=1e-12)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(m, m))
    K = A @ A.T
    R = g.rotate_kernel(K.copy())
    np.testing.assert_allclose(R[np.ix_(g.rest, g.rest)], B.T @ K @ B, atol=1e-10)
    G = rng.normal(size=(m - g.n_groups,) * 2)
    G = G + G.T
    M = np.zeros((m, m))
    M[np.ix_(g.rest, g.rest)] = G
    np.testing.assert_allclose(g.unrotate_symmetric(M), B @ G @ B.T, atol=1e-10)
    v = rng.normal(size=(m, 2))
    np.testing.assert_allclose(g.center(v), P @ v, atol=1e-12)
    np.testing.assert_allclose(g.expand(g.mean(v)) + g.center(v), v, atol=1e-12)


def test_sparse_sum_whole_and_pickle():
    import pickle
    import scipy.sparse as sp
    g = QueryGroups.from_qids([3, 1, 3, 2])
    X = sp.random(4, 5, density=0.5, random_state=0, format="csr")
    np.testing.assert_allclose(g.sum(X).toarray(), g.sum(X.toarray()))
    assert g.whole([0, 2]) and not g.whole([0, 1])
    h = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(h.codes, g.codes)
    assert [r.tolist() for r in h.split()] == [[0, 2], [1], [3]]


def test_contiguous_sorted_ids_equal_the_general_encoding():
    """The one-pass encoding of sorted contiguous query ids gives what first-appearance
    codes by hand give, on random layouts (sorted, shuffled, runs out of order)."""
    rng = np.random.default_rng(3)
    for t in range(300):
        n = int(rng.integers(1, 40))
        ids = rng.integers(-3, 8, n)
        qids = [np.sort(ids), ids, np.repeat(rng.permutation(6), 3)][t % 3]
        codes, table = _brute_codes(qids.tolist())
        g = QueryGroups.from_qids(qids)
        np.testing.assert_array_equal(g.codes, codes)
        assert list(g.ids) == list(table) and g.ids.dtype == qids.dtype


@pytest.mark.parametrize("method", ["subset", "whole"])
def test_subset_and_whole_check_their_rows(method):
    """Rows outside 0..m-1, repeated, fractional, boolean-but-not-a-mask or 2-D are
    refused naming ``rows`` (they used to wrap around, count twice or be truncated)."""
    g = QueryGroups.from_qids([3, 1, 3, 2])
    f = getattr(g, method)
    for bad, err in (([0, 4], IndexError), ([-1], IndexError), ([0, 0, 2], IndexError),
                     ([0.5], ValueError), ([[0, 2]], ValueError),
                     ([True, False], ValueError), (["a"], ValueError)):
        with pytest.raises(err, match="rows"):
            f(bad)
    mask = np.array([True, False, True, False])
    if method == "whole":
        assert g.whole(mask) and g.whole([]) and not g.whole([0, 1])
    else:
        assert g.subset(mask).codes.tolist() == [0, 0]
        assert g.subset([3, 1]).codes.tolist() == [0, 1]
        with pytest.raises(ValueError, match="rows"):
            g.subset([])
