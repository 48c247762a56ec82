"""pair_table: a long table of (drug_id, target_id, value) rows to the index pairs and
object lists of the pairwise faces, and back; checked against the rows written out by
hand and against models trained on the explicit matrix."""

import numpy as np
import pytest

from rlscore.learner import CGKronRLS, KronRLS
from rlscore.utilities.pairs import pair_table


def long_table(n1=5, n2=4, seed=0, complete=True):
    rng = np.random.default_rng(seed)
    drugs = np.array([f"D{i:03d}" for i in rng.permutation(n1)])
    targets = np.array([f"T{j}" for j in rng.permutation(n2)])
    Y = rng.normal(size=(n1, n2))
    cells = [(i, j) for i in range(n1) for j in range(n2)]
    if not complete:
        cells = cells[::2]
    order = rng.permutation(len(cells))
    rows = [cells[k] for k in order]
    ids1 = np.array([drugs[i] for i, _ in rows])
    ids2 = np.array([targets[j] for _, j in rows])
    vals = np.array([Y[i, j] for i, j in rows])
    return ids1, ids2, vals, drugs, targets, Y


def test_every_row_is_indexed_to_its_objects():
    ids1, ids2, vals, drugs, targets, _ = long_table(complete=False)
    t = pair_table(ids1, ids2, vals)
    assert t.objects1.tolist() == sorted(set(ids1))
    for k in range(ids1.size):
        assert t.objects1[t.pairs[k, 0]] == ids1[k]
        assert t.objects2[t.pairs[k, 1]] == ids2[k]
    a, b, v = t.table()
    assert a.tolist() == ids1.tolist() and b.tolist() == ids2.tolist()
    np.testing.assert_array_equal(v, vals)
    M = t.matrix()
    for k in range(ids1.size):
        assert M[t.rows[k], t.cols[k]] == vals[k]
    assert np.isnan(M).sum() == M.size - ids1.size


def test_given_object_order_and_first_appearance():
    ids1, ids2, vals, drugs, targets, _ = long_table()
    t = pair_table(ids1, ids2, vals, objects1=drugs, objects2=targets)
    assert t.objects1 is not None and t.objects1.tolist() == drugs.tolist()
    np.testing.assert_array_equal(drugs[t.rows], ids1)
    f = pair_table(ids1, ids2, vals, sort=False)
    assert f.objects1[0] == ids1[0] and f.objects2[0] == ids2[0]
    extra = np.append(drugs, "D999")               # an object with no labelled pair
    assert pair_table(ids1, ids2, vals, objects1=extra).shape == (drugs.size + 1, 4)


def test_complete_table_trains_the_model_of_the_matrix():
    ids1, ids2, vals, drugs, targets, Y = long_table(n1=6, n2=5, seed=1)
    rng = np.random.default_rng(1)
    F1 = {d: rng.normal(size=3) for d in drugs}
    F2 = {g: rng.normal(size=2) for g in targets}
    t = pair_table(ids1, ids2, vals)
    X1 = np.array([F1[d] for d in t.objects1])
    X2 = np.array([F2[g] for g in t.objects2])
    model = KronRLS(X1=X1, X2=X2, Y=t.matrix().ravel(order="F"), regparam=0.5)
    # the same model trained from the matrix in the generator's own object order
    i1 = [list(t.objects1).index(d) for d in drugs]
    i2 = [list(t.objects2).index(g) for g in targets]
    ref = KronRLS(X1=X1[i1], X2=X2[i2], Y=Y.ravel(order="F"), regparam=0.5)
    P = model.predict(X1, X2).reshape(t.shape, order="F")
    Pref = ref.predict(X1[i1], X2[i2]).reshape(Y.shape, order="F")
    np.testing.assert_allclose(P[np.ix_(i1, i2)], Pref, rtol=1e-10, atol=1e-12)
    # incomplete data through the learner keywords, predictions back to the long form
    sub = pair_table(ids1[::3], ids2[::3], vals[::3], objects1=t.objects1,
                     objects2=t.objects2)
    cg = CGKronRLS(X1=X1, X2=X2, regparam=0.5, **sub.learner_args())
    a, b, p = sub.table(cg.predict(X1, X2, sub.rows, sub.cols))
    assert a.tolist() == ids1[::3].tolist()
    test = sub.index(ids1[1::3], ids2[1::3])
    np.testing.assert_allclose(cg.predict(X1, X2, test[:, 0], test[:, 1]),
                               cg.predict(X1, X2)[test[:, 0] + test[:, 1] * t.shape[0]])


@pytest.mark.parametrize("args, kw, match", [
    ((["a", "b"], ["x"], [1.0, 2.0]), {}, "differ in length"),
    ((["a", "b"], ["x", "y"], [1.0]), {}, "one value per pair"),
    ((["a", "b"], ["x", "y"], [1.0, np.nan]), {}, "NaN"),
    ((["a", "b"], ["x", "y"], [1.0, 2.0]), {"objects1": ["a"]}, "'b'"),
    ((["a", "b"], ["x", "y"], [1.0, 2.0]), {"objects1": ["a", "a", "b"]}, "twice"),
    (([], [], []), {}, "empty"),
])
def test_bad_tables_are_named(args, kw, match):
    with pytest.raises(ValueError, match=match):
        pair_table(*args, **kw)


def test_repeated_pairs_are_kept_but_no_matrix():
    t = pair_table(["a", "a", "b"], ["x", "x", "y"], [1.0, 3.0, 2.0])
    assert t.pairs.tolist() == [[0, 0], [0, 0], [1, 1]]
    with pytest.raises(ValueError, match="more than once"):
        t.matrix()
    with pytest.raises(ValueError, match="not among"):
        t.index(["a"], ["z"])
