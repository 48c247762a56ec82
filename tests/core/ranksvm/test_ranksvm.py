"""Linear RankSVM core: the red-black order-statistic tree, the counting pass, the
pairwise hinge loss and subgradient, the bundle method and its QP, each checked against
a brute-force computation (O(m^2) pairs, an independent dual solver, KKT conditions)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, minimize

from rlscore._ext._ostree import OrderStatisticTree
from rlscore._ext._ranksvm import RankingPairs
from rlscore._ext._simplex import simplex_qp
from rlscore.core.optim import BMRMOptions, bmrm
from rlscore.core.optim._bmrm import simplex_qp_active_set
from rlscore.core.ranksvm import (ConvergenceWarning, PairRisk, RankingRisk, RankSVMOptions,
                                  SquaredRankingRisk, empirical_kernel_map,
                                  fit_kernel_ranksvm, fit_linear_ranksvm,
                                  fit_pairwise_ranksvm, kfold_ranksvm, solve_ranksvm,
                                  solve_ranksvm_newton)

ENGINES = ["fenwick", "rbtree", "rbtree_wide"]   # rbtree_wide: the 12-byte node layout
TREE_ENGINES = ["rbtree", "rbtree_wide"]
LAYOUTS = ["packed", "wide"]
PACKED_MAX = 2**21 - 1                  # the largest capacity of the packed layout


# ---------------------------------------------------------------------------------------
# brute force


def brute_pairs(y, q=None):
    """(upper, lower) index arrays of all pairs y_u > y_l in the same query."""
    y = np.asarray(y, dtype=float)
    same = np.ones((y.size, y.size), bool) if q is None else \
        (np.asarray(q)[:, None] == np.asarray(q)[None, :])
    u, l = np.nonzero((y[:, None] > y[None, :]) & same)
    return u, l


def brute_counts(y, p, q=None):
    u, l = brute_pairs(y, q)
    active = p[u] < p[l] + 1.0
    c = np.bincount(l[active], minlength=y.size)
    d = np.bincount(u[active], minlength=y.size)
    return c, d


def brute_risk(X, y, w, q=None, normalize="pairs"):
    """Loss and subgradient summed over the explicit pairs."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    u, l = brute_pairs(y, q)
    qq = np.zeros(y.size, int) if q is None else np.asarray(q)
    if normalize == "pairs":
        s = np.full(u.size, 1.0 / u.size)
    elif normalize == "none":
        s = np.ones(u.size)
    else:
        nq = np.bincount(qq[u])
        queries = np.count_nonzero(nq)
        s = 1.0 / (queries * nq[qq[u]])
    p = X @ w
    h = 1.0 - p[u] + p[l]
    active = h > 0
    loss = float(np.sum(s * np.maximum(h, 0)))
    g = ((s * active)[:, None] * (X[l] - X[u])).sum(axis=0)
    return loss, g


def independent_optimum(Z, s, regparam):
    """min regparam/2 ||w||^2 + sum_k s_k max(0, 1 - w.z_k) through its box-constrained
    dual in the variables gamma = beta / s in [0, 1], solved by scipy's trust-constr
    (interior point). Returns (primal objective at the dual's w, dual value)."""
    H = (Z * s[:, None]) @ (Z * s[:, None]).T

    def f(g):
        Hg = H @ g
        return 0.5 * g @ Hg / regparam - s @ g, Hg / regparam - s

    res = minimize(f, np.full(len(s), 0.5), jac=True, hess=lambda g: H / regparam,
                   method="trust-constr", bounds=Bounds(0, 1),
                   options=dict(gtol=1e-14, xtol=1e-15, maxiter=20000))
    beta = s * np.clip(res.x, 0, 1)
    v = Z.T @ beta
    w = v / regparam
    J = 0.5 * regparam * w @ w + np.sum(s * np.maximum(0, 1 - Z @ w))
    return J, beta.sum() - 0.5 * v @ v / regparam


def rb_invariants(tree):
    """Check the red-black, BST and order-statistic invariants of the tree's arrays
    (node x holds key x - 1, node 0 is NIL)."""
    a = tree._arrays()
    left, right, lsize, red, root = a["left"], a["right"], a["lsize"], a["red"], a["root"]
    assert red[0] == 0
    if len(tree) == 0:
        assert root == 0
        return
    assert red[root] == 0

    def walk(x, lo, hi):
        # (black height, size, nodes); keys of the subtree lie strictly in (lo, hi)
        if x == 0:
            return 1, 0
        assert lo is None or lo < x
        assert hi is None or x < hi
        if red[x]:
            assert red[left[x]] == 0 and red[right[x]] == 0
        bl, nl = walk(left[x], lo, x)
        br, nr = walk(right[x], x, hi)
        assert bl == br
        assert lsize[x] == nl
        return bl + (0 if red[x] else 1), nl + nr + 1

    _, total = walk(root, None, None)
    assert total == len(tree)


# ---------------------------------------------------------------------------------------
# the red-black order-statistic tree


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, n - 1), unique=True, max_size=n))))
def test_tree_against_sorted_list(data):
    capacity, keys = data
    for layout in LAYOUTS:
        tree = OrderStatisticTree(capacity, layout)
        assert tree.packed == (layout == "packed")
        stored = []
        for k in keys:
            tree.insert(k)
            stored.append(k)
            assert len(tree) == len(stored)
        rb_invariants(tree)
        stored = np.array(stored, dtype=int)
        for b in range(capacity + 1):
            assert tree.count_less(b) == np.count_nonzero(stored < b)
        tree.clear()
        assert len(tree) == 0 and tree.count_less(capacity) == 0
        rb_invariants(tree)
        for k in keys[::-1]:                  # reuse after clear
            tree.insert(k)
        rb_invariants(tree)
        assert tree.count_less(capacity) == len(keys)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tree_sequential_and_random_inserts_stay_balanced(layout, rng):
    n = 5000
    for keys in (np.arange(n), np.arange(n)[::-1], rng.permutation(n)):
        tree = OrderStatisticTree(n, layout)
        for k in keys:
            tree.insert(int(k))
        rb_invariants(tree)
        a = tree._arrays()

        def height(x):
            return 0 if x == 0 else 1 + max(height(a["left"][x]), height(a["right"][x]))
        assert height(a["root"]) <= 2 * np.log2(n + 1)
        assert tree.count_less(2500) == 2500


def test_tree_layout_follows_capacity():
    assert OrderStatisticTree(PACKED_MAX).packed
    assert not OrderStatisticTree(PACKED_MAX + 1).packed
    assert not OrderStatisticTree(10, "wide").packed


def test_packed_tree_at_its_largest_capacity(rng):
    # node indices and keys at the top of the 21-bit fields: the extreme keys, then
    # random ones, against a sorted list; the invariants read the packed words back
    tree = OrderStatisticTree(PACKED_MAX, "packed")
    keys = [PACKED_MAX - 1, 0, PACKED_MAX - 2, 1, PACKED_MAX // 2]
    keys += [int(k) for k in rng.choice(np.arange(2, PACKED_MAX - 2), 300, replace=False)
             if k != PACKED_MAX // 2]
    for k in keys:
        tree.insert(k)
    rb_invariants(tree)
    stored = np.sort(keys)
    for b in [0, 1, 2, PACKED_MAX - 2, PACKED_MAX - 1, PACKED_MAX,
              *rng.integers(0, PACKED_MAX + 1, 50)]:
        assert tree.count_less(int(b)) == np.searchsorted(stored, b)


def test_tree_bad_input():
    tree = OrderStatisticTree(4)
    tree.insert(1)
    with pytest.raises(ValueError, match="already"):
        tree.insert(1)
    with pytest.raises(ValueError):
        tree.insert(4)
    with pytest.raises(ValueError):
        tree.insert(-1)
    with pytest.raises(TypeError):
        tree.insert(1.5)
    with pytest.raises(ValueError):
        tree.count_less(5)
    with pytest.raises(ValueError):
        OrderStatisticTree(0)
    with pytest.raises(ValueError, match="layout"):
        OrderStatisticTree(4, "dense")
    with pytest.raises(ValueError, match="packed"):
        OrderStatisticTree(PACKED_MAX + 1, "packed")


# ---------------------------------------------------------------------------------------
# the counting pass

TIED = st.integers(0, 3).map(float)
PRED = st.one_of(st.integers(-4, 4).map(lambda v: v * 0.5),
                 st.floats(-3, 3, allow_nan=False, allow_subnormal=False))


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 45).flatmap(lambda m: st.tuples(
    st.lists(TIED, min_size=m, max_size=m), st.lists(PRED, min_size=m, max_size=m),
    st.lists(st.integers(0, 3), min_size=m, max_size=m))), st.booleans())
def test_counts_against_brute_force(data, use_q):
    y, p, q = (np.array(v) for v in data)
    p = p.astype(float)
    q = q if use_q else None
    pairs = RankingPairs(y, None if q is None else q.astype(np.intp), 4 if use_q else None)
    cb, db = brute_counts(y, p, q)
    u, _ = brute_pairs(y, q)
    assert pairs.n_pairs == u.size
    for engine in ENGINES:
        for nt in (1, 2):
            c, d = pairs.counts(p, nt, engine)
            np.testing.assert_array_equal(c, cb)
            np.testing.assert_array_equal(d, db)
    # loss and coefficients with per-query weights
    nq = 4 if use_q else 1
    weights = np.arange(1, nq + 1) / 7.0
    coef = np.empty(y.size)
    loss = pairs.hinge(p, weights, coef, 1)
    qq = np.zeros(y.size, int) if q is None else q
    uu, ll = brute_pairs(y, q)
    h = np.maximum(1 - p[uu] + p[ll], 0) * (p[uu] < p[ll] + 1)
    assert loss == pytest.approx(np.sum(weights[qq[uu]] * h), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(coef, weights[qq] * (cb - db), rtol=0, atol=1e-15)


def test_counts_engines_agree_on_larger_data(rng):
    m = 20000
    y = np.round(rng.standard_normal(m), 1)           # many ties
    q = rng.integers(0, 30, m)
    pairs = RankingPairs(y, q, 30)
    for p in (y + rng.standard_normal(m), np.round(rng.standard_normal(m), 1),
              np.zeros(m)):
        ref = pairs.counts(p, 1, "rbtree")
        for nt in (1, 2):
            c, d = pairs.counts(p, nt, "fenwick")
            np.testing.assert_array_equal(c, ref[0])
            np.testing.assert_array_equal(d, ref[1])
        assert ref[0].sum() == ref[1].sum()


@pytest.mark.parametrize("engine", TREE_ENGINES)
@pytest.mark.parametrize("case", ["random", "tied", "margin_ties"])
def test_rbtree_engine_equals_fenwick_engine(case, engine, rng):
    # one query of distinct utilities (the single-example runs of the tree sweep) and
    # tied data (long runs, equal predictions); loss and coefficients included
    m = 30000
    if case == "random":
        y, p = rng.standard_normal(m), 3.0 * rng.standard_normal(m)
    elif case == "tied":
        y, p = rng.integers(0, 5, m).astype(float), rng.integers(-3, 4, m) * 0.5
    else:       # predictions on a grid of step 1/4: many pairs exactly at margin 1
        y, p = rng.standard_normal(m), rng.integers(-8, 8, m) * 0.25
    pairs = RankingPairs(y)
    c_f, d_f = pairs.counts(p, 1, "fenwick")
    c_r, d_r = pairs.counts(p, 1, engine)
    np.testing.assert_array_equal(c_r, c_f)
    np.testing.assert_array_equal(d_r, d_f)
    assert c_f.sum() == d_f.sum() > 0
    coef_f, coef_r = np.empty(m), np.empty(m)
    w = np.array([1.0 / pairs.n_pairs])
    loss_f = pairs.hinge(p, w, coef_f, 1, "fenwick")
    loss_r = pairs.hinge(p, w, coef_r, 1, engine)
    assert loss_r == pytest.approx(loss_f, rel=1e-12)
    np.testing.assert_array_equal(coef_r, coef_f)
    # brute force on a subsample (O(m^2) pairs)
    sub = rng.choice(m, 400, replace=False)
    cb, db = brute_counts(y[sub], p[sub])
    c_s, d_s = RankingPairs(y[sub]).counts(p[sub], 1, engine)
    np.testing.assert_array_equal(c_s, cb)
    np.testing.assert_array_equal(d_s, db)


@pytest.mark.parametrize("engine", TREE_ENGINES)
def test_tree_engine_on_single_example_and_constant_queries(engine, rng):
    # queries of one example (no pairs, an empty sweep), of two, one where every
    # prediction is equal (all ranks tied in p), one where every utility is equal (one
    # run, no pairs) and a large random one, against the brute force and Fenwick
    sizes = [1, 5, 1, 2, 40, 1, 30, 300]
    q = np.repeat(np.arange(len(sizes)), sizes)
    m = q.size
    y = rng.integers(0, 6, m).astype(float)
    p = np.round(rng.standard_normal(m), 1)
    p[q == 4] = 0.25                            # equal predictions
    y[q == 6] = 2.0                             # equal utilities
    perm = rng.permutation(m)                   # queries interleaved in the input
    q, y, p = q[perm], y[perm], p[perm]
    pairs = RankingPairs(y, q.astype(np.intp), len(sizes))
    cb, db = brute_counts(y, p, q)
    for nt in (1, 3):
        c, d = pairs.counts(p, nt, engine)
        np.testing.assert_array_equal(c, cb)
        np.testing.assert_array_equal(d, db)
    np.testing.assert_array_equal(pairs.counts(p, 1, "fenwick")[0], cb)
    single = np.flatnonzero(np.isin(q, [0, 2, 5]))
    assert np.all(c[single] == 0) and np.all(d[single] == 0)


@pytest.mark.slow
@pytest.mark.parametrize("m", [PACKED_MAX, PACKED_MAX + 1])
def test_tree_engine_at_the_packed_layout_limit(m):
    # the largest query of the packed layout (left-subtree sizes up to 2**21 - 2) and
    # the smallest one of the wide layout, against the Fenwick engine
    rng = np.random.default_rng(5)
    y = rng.standard_normal(m)
    pairs = RankingPairs(y)
    for p in (y + 0.1 * rng.standard_normal(m), np.sort(3.0 * rng.standard_normal(m))):
        c_f, d_f = pairs.counts(p, 1, "fenwick")
        c_r, d_r = pairs.counts(p, 1, "rbtree")
        np.testing.assert_array_equal(c_r, c_f)
        np.testing.assert_array_equal(d_r, d_f)


def test_counts_bad_input():
    pairs = RankingPairs(np.arange(5.0))
    with pytest.raises(ValueError, match="NaN"):
        pairs.counts(np.array([0, 1, np.nan, 2, 3.0]))
    with pytest.raises(ValueError, match="shape"):
        pairs.counts(np.zeros(4))
    with pytest.raises(ValueError, match="engine"):
        pairs.counts(np.zeros(5), engine="avl")
    with pytest.raises(ValueError, match="NaN"):
        RankingPairs(np.array([1.0, np.nan]))
    with pytest.raises(ValueError):
        RankingPairs(np.zeros(3), np.array([0, 1, 5]), 2)


def test_pair_counts_per_query():
    y = np.array([1.0, 2, 2, 3, 1, 1, 5])
    q = np.array([0, 0, 0, 0, 1, 1, 2])
    pairs = RankingPairs(y, q, 3)
    # query 0: runs 1,2 (x2),3 -> 5 pairs; query 1: tie -> 0; query 2: one item -> 0
    np.testing.assert_array_equal(pairs.query_pairs, [5, 0, 0])
    assert pairs.n_pairs == 5


# ---------------------------------------------------------------------------------------
# risks: loss and subgradient


def _data(rng, m=40, n=4, levels=None, nq=None):
    X = rng.standard_normal((m, n))
    y = X @ rng.standard_normal(n) + rng.standard_normal(m)
    if levels:
        cuts = np.quantile(y, np.linspace(0, 1, levels + 1)[1:-1])
        y = np.digitize(y, cuts).astype(float)
    q = None if nq is None else rng.integers(0, nq, m)
    return X, y, q


@pytest.mark.parametrize("normalize", ["pairs", "query", "none"])
@pytest.mark.parametrize("levels,nq", [(None, None), (3, None), (None, 5), (4, 6)])
def test_risk_against_brute_force(rng, normalize, levels, nq):
    X, y, q = _data(rng, levels=levels, nq=nq)
    risk = RankingRisk(X, y, q, normalize=normalize)
    for scale in (0.0, 0.3, 3.0):
        w = scale * rng.standard_normal(X.shape[1])
        loss, g = risk(w)
        bl, bg = brute_risk(X, y, w, q, normalize)
        assert loss == pytest.approx(bl, rel=1e-12, abs=1e-13)
        np.testing.assert_allclose(g, bg, rtol=1e-10, atol=1e-12)
        assert risk.value(w) == pytest.approx(bl, rel=1e-12, abs=1e-13)
    assert risk(np.zeros(X.shape[1]))[0] == pytest.approx(risk.scale)
    # it is a subgradient: R(v) >= R(w) + g (v - w)
    w = rng.standard_normal(X.shape[1])
    loss, g = risk(w)
    for _ in range(20):
        v = w + rng.standard_normal(X.shape[1])
        assert risk.value(v) >= loss + g @ (v - w) - 1e-12


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "csr_array"])
def test_risk_sparse_formats_equal_dense(rng, fmt):
    X, y, q = _data(rng, nq=3)
    X[rng.random(X.shape) < 0.5] = 0.0
    Xs = sp.csr_array(X) if fmt == "csr_array" else sp.csr_matrix(X).asformat(fmt)
    dense, sparse = RankingRisk(X, y, q), RankingRisk(Xs, y, q)
    assert sp.isspmatrix_csr(sparse.X) or sp.issparse(sparse.X)
    w = rng.standard_normal(X.shape[1])
    ld, gd = dense(w)
    ls, gs = sparse(w)
    assert ld == pytest.approx(ls, rel=1e-13)
    np.testing.assert_allclose(gd, gs, rtol=1e-12, atol=1e-14)


def test_query_structured_risk_is_the_sum_over_queries(rng):
    X, y, q = _data(rng, m=60, levels=4, nq=5)
    w = rng.standard_normal(X.shape[1])
    total, gtot = RankingRisk(X, y, q, normalize="none")(w)
    parts, gparts = 0.0, 0.0
    for k in np.unique(q):
        idx = q == k
        if len(np.unique(y[idx])) < 2:
            continue
        lk, gk = RankingRisk(X[idx], y[idx], normalize="none")(w)
        parts += lk
        gparts = gparts + gk
    assert total == pytest.approx(parts, rel=1e-12)
    np.testing.assert_allclose(gtot, gparts, rtol=1e-12)


def test_pair_risk_against_brute_force(rng):
    X, y, _ = _data(rng, m=30)
    s = rng.integers(0, 30, 80)
    e = (s + rng.integers(1, 30, 80)) % 30
    v = rng.random(80) + 0.1
    for normalize in (True, False):
        risk = PairRisk(X, s, e, weights=v, normalize=normalize)
        w = rng.standard_normal(X.shape[1])
        loss, g = risk(w)
        p = X @ w
        h = 1 - p[s] + p[e]
        sc = 1 / v.sum() if normalize else 1.0
        assert loss == pytest.approx(sc * np.sum(v * np.maximum(h, 0)), rel=1e-12)
        bg = sc * ((v * (h > 0))[:, None] * (X[e] - X[s])).sum(axis=0)
        np.testing.assert_allclose(g, bg, rtol=1e-12, atol=1e-14)


def test_risk_bad_input(rng):
    X, y, q = _data(rng, nq=3)
    with pytest.raises(ValueError, match="no pairs"):
        RankingRisk(X, np.ones(40))
    with pytest.raises(ValueError, match="no pairs"):
        RankingRisk(X, y, np.arange(40))             # every query holds one example
    with pytest.raises(ValueError, match="qids"):
        RankingRisk(X, y, q[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RankingRisk(Xn, y)
    yn = y.copy()
    yn[0] = np.inf
    with pytest.raises(ValueError, match="NaN"):
        RankingRisk(X, yn)
    with pytest.raises(ValueError, match="lengths"):
        RankingRisk(X, y[:-1])
    with pytest.raises(ValueError, match="one utility"):
        RankingRisk(X, np.c_[y, y])
    with pytest.raises(ValueError, match="normalize"):
        RankingRisk(X, y, normalize="mean")
    with pytest.raises(ValueError, match="itself"):
        PairRisk(X, [0, 1], [0, 2])
    with pytest.raises(IndexError):
        PairRisk(X, [0, 1], [2, 40])
    with pytest.raises(ValueError, match="lengths"):
        PairRisk(X, [0, 1], [2])
    with pytest.raises(ValueError):
        fit_linear_ranksvm(X, y, regparam=0.0)
    with pytest.raises(ValueError):
        fit_linear_ranksvm(X, y, regparam=-1.0)
    with pytest.raises(ValueError, match="non-integral"):
        RankingRisk(X[:2], y[:2], np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="NaN"):
        RankingRisk(X[:2], y[:2], np.array([0.0, np.nan]))
    # a query of one item is allowed: it contributes no pairs
    q1 = q.copy()
    q1[0] = 99
    risk = RankingRisk(X, y, q1)
    assert risk.query_pairs[risk.qcodes[0]] == 0


# ---------------------------------------------------------------------------------------
# the simplex QP


def _random_qp(rng, t, rank=None):
    A = rng.standard_normal((rank or t, t))
    Q = A.T @ A + (0 if rank else 1e-3) * np.eye(t)
    b = rng.standard_normal(t)
    return np.ascontiguousarray(Q), b


def _kkt_gap(Q, b, a):
    g = Q @ a - b
    return g[a > 0].max() - g.min()


@pytest.mark.parametrize("t,rank", [(1, None), (2, None), (5, None), (12, None),
                                    (12, 3), (30, 5)])
def test_simplex_qp_solvers_reach_the_kkt_point(rng, t, rank):
    for _ in range(5):
        Q, b = _random_qp(rng, t, rank)
        scale = np.abs(Q).max() + np.abs(b).max()
        a = np.full(t, 1.0 / t)
        its, viol = simplex_qp(Q, b, a, 1e-12 * scale, 10 ** 6)
        assert a.min() >= 0 and a.sum() == pytest.approx(1)
        assert _kkt_gap(Q, b, a) <= 1e-10 * scale
        a2 = simplex_qp_active_set(Q + 1e-12 * np.eye(t), b, np.eye(t)[0])
        assert a2 is not None and a2.min() >= 0 and a2.sum() == pytest.approx(1)
        assert _kkt_gap(Q, b, a2) <= 1e-8 * scale
        f = lambda x: 0.5 * x @ Q @ x - b @ x  # noqa: E731
        # no vertex or random feasible point is better
        for v in list(np.eye(t)) + list(rng.dirichlet(np.ones(t), 50)):
            assert f(a2) <= f(v) + 1e-9 * scale


# ---------------------------------------------------------------------------------------
# training: the bundle method against an independent solver


def _pair_problem(X, y, q, normalize):
    u, l = brute_pairs(y, q)
    Z = X[u] - X[l]
    if normalize == "pairs":
        s = np.full(u.size, 1.0 / u.size)
    elif normalize == "none":
        s = np.ones(u.size)
    else:
        qq = np.asarray(q)
        nq = np.bincount(qq[u])
        s = 1.0 / (np.count_nonzero(nq) * nq[qq[u]])
    return Z, s


@pytest.mark.parametrize("regparam", [1e-3, 1e-1, 10.0])
@pytest.mark.parametrize("normalize,levels,nq", [("pairs", None, None),
                                                 ("pairs", 3, 4),
                                                 ("query", None, 4),
                                                 ("none", 4, None)])
def test_trained_objective_matches_independent_optimum(rng, regparam, normalize, levels,
                                                       nq):
    X, y, q = _data(rng, m=30, n=3, levels=levels, nq=nq)
    sol, risk = fit_linear_ranksvm(X, y, q, regparam,
                                   options=RankSVMOptions(rtol=1e-7, maxiter=5000,
                                                          normalize=normalize))
    assert sol.converged
    Z, s = _pair_problem(X, y, q, normalize)
    J_ref, D_ref = independent_optimum(Z, s, regparam)
    assert J_ref - D_ref <= 1e-5 * J_ref          # the reference is accurate
    assert abs(sol.objective - J_ref) <= 1e-4 * J_ref
    # the reported objective and gap are consistent with the independent optimum
    assert sol.objective >= D_ref - 1e-12
    assert sol.objective - sol.duality_gap <= J_ref + 1e-9
    p = X @ sol.w
    assert sol.objective == pytest.approx(
        0.5 * regparam * sol.w @ sol.w + np.sum(s * np.maximum(0, 1 - Z @ sol.w)),
        rel=1e-12)
    assert p.shape == (30,)


def test_pairwise_variant_matches_independent_optimum(rng):
    X, y, _ = _data(rng, m=25, n=3)
    s = rng.integers(0, 25, 60)
    e = (s + rng.integers(1, 25, 60)) % 25
    for regparam in (1e-2, 1.0):
        sol, _ = fit_pairwise_ranksvm(X, s, e, regparam,
                                      options=RankSVMOptions(rtol=1e-7, maxiter=5000))
        J_ref, D_ref = independent_optimum(X[s] - X[e], np.full(60, 1 / 60), regparam)
        assert abs(sol.objective - J_ref) <= 1e-4 * J_ref


def test_scored_and_pairwise_variants_agree(rng):
    X, y, q = _data(rng, m=35, levels=5, nq=3)
    u, l = brute_pairs(y, q)
    a, _ = fit_linear_ranksvm(X, y, q, 0.05,
                              options=RankSVMOptions(rtol=1e-8, maxiter=5000))
    b, _ = fit_pairwise_ranksvm(X, u, l, 0.05,
                                options=RankSVMOptions(rtol=1e-8, maxiter=5000))
    assert a.objective == pytest.approx(b.objective, rel=1e-6)
    np.testing.assert_allclose(a.w, b.w, atol=1e-3)


def test_bmrm_variants_bounded_bundle_and_warm_start(rng):
    X, y, q = _data(rng, m=60, n=6, nq=4)
    risk = RankingRisk(X, y, q)
    ref = bmrm(risk, 6, 1e-3, atol=1e-8, maxiter=5000)
    assert ref.converged and ref.gap <= 1e-8
    variants = ((dict(mu=1.0, adaptive=False), 1e-8), (dict(mu=0.1, adaptive=False), 1e-8),
                (dict(max_planes=4), 1e-5), (dict(max_planes=2, inactive_limit=1), 1e-4))
    for kw, tol in variants:
        # a small bundle is aggregated all the time: slower, but it converges
        r = bmrm(risk, 6, 1e-3, atol=tol, maxiter=20000, options=BMRMOptions(**kw))
        assert r.converged, kw
        assert ref.lower_bound - 1e-12 <= r.objective <= ref.objective + tol
        assert r.bundle.t <= kw.get("max_planes", 100)
    # the planes of another regparam are a valid warm start
    other = bmrm(risk, 6, 1e-1, atol=1e-6)
    warm = bmrm(risk, 6, 1e-3, atol=1e-8, x0=other.w,
                options=BMRMOptions(bundle=other.bundle))
    assert ref.lower_bound - 1e-12 <= warm.objective <= ref.objective + 1e-8
    assert warm.lower_bound <= ref.objective + 1e-12


def test_callback_and_convergence_warning(rng):
    X, y, _ = _data(rng, m=50)
    risk = RankingRisk(X, y)
    seen = []

    class CB:
        def callback(self, info):
            seen.append(info)
            return info["iteration"] >= 3

        def finished(self, info):
            seen.append(("finished", info["converged"]))

    r = bmrm(risk, X.shape[1], 1e-4, atol=1e-12, callback=CB())
    assert r.iterations == 3 and not r.converged
    assert seen[-1] == ("finished", False)
    assert {"iteration", "objective", "gap", "lower_bound", "w"} <= set(seen[0])
    with pytest.warns(ConvergenceWarning):
        sol = solve_ranksvm(risk, 1e-4, options=RankSVMOptions(rtol=1e-12, maxiter=2))
    assert sol.iterations == 2 and not sol.converged
    with pytest.raises(ValueError):
        solve_ranksvm(risk, 1.0, options=RankSVMOptions(rtol=0))
    with pytest.raises(TypeError):
        solve_ranksvm(risk, 1.0, options=RankSVMOptions(maxiter=2.5))


def test_history_is_monotone(rng):
    X, y, _ = _data(rng, m=80)
    sol, _ = fit_linear_ranksvm(X, y, regparam=1e-3, options=RankSVMOptions(rtol=1e-6))
    best = [h["best_objective"] for h in sol.history]
    low = [h["lower_bound"] for h in sol.history]
    assert np.all(np.diff(best) <= 0) and np.all(np.diff(low) >= 0)
    assert sol.history[-1]["gap"] == pytest.approx(sol.duality_gap)


# ---------------------------------------------------------------------------------------
# kernels through the empirical kernel map


def test_empirical_kernel_map(rng):
    from rlscore.kernel import GaussianKernel
    X = rng.standard_normal((30, 3))
    K = GaussianKernel(X, gamma=0.3).getKM(X)
    Phi, back = empirical_kernel_map(X, "GaussianKernel", gamma=0.3)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12)
    w = rng.standard_normal(Phi.shape[1])
    np.testing.assert_allclose(back(w).predict(X), Phi @ w, atol=1e-9)
    # singular kernel (repeated rows): eigendecomposition route
    Xr = np.vstack([X, X[:5]])
    Kr = GaussianKernel(Xr, gamma=0.3).getKM(Xr)
    Phi, back = empirical_kernel_map(Xr, "GaussianKernel", gamma=0.3)
    np.testing.assert_allclose(Phi @ Phi.T, Kr, atol=1e-10)
    w = rng.standard_normal(Phi.shape[1])
    np.testing.assert_allclose(back(w).predict(Xr), Phi @ w, atol=1e-8)
    # precomputed kernel
    Phi, back = empirical_kernel_map(K, "PrecomputedKernel")
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12)
    np.testing.assert_allclose(back(w[:30]).predict(K), Phi @ w[:30], atol=1e-9)


def test_kernel_ranksvm_objective_in_dual_form(rng):
    from rlscore.kernel import GaussianKernel
    X, y, q = _data(rng, m=30, n=3, nq=3)
    regparam = 1e-2
    sol, pred = fit_kernel_ranksvm(X, y, q, regparam, "GaussianKernel", gamma=0.5,
                                   options=RankSVMOptions(rtol=1e-7, maxiter=5000))
    K = GaussianKernel(X, gamma=0.5).getKM(X)
    A = pred.A
    f = K @ A
    np.testing.assert_allclose(pred.predict(X), f, atol=1e-8)
    u, l = brute_pairs(y, q)
    J = 0.5 * regparam * A @ K @ A + np.mean(np.maximum(0, 1 - f[u] + f[l]))
    assert J == pytest.approx(sol.objective, rel=1e-8)
    # independent optimum over the kernel features
    L = np.linalg.cholesky(K)
    J_ref, _ = independent_optimum(L[u] - L[l], np.full(u.size, 1 / u.size), regparam)
    assert abs(sol.objective - J_ref) <= 1e-4 * J_ref


def test_kernel_ranksvm_checks_labels_before_the_kernel(rng):
    X = rng.standard_normal((20, 2))
    with pytest.raises(ValueError, match="no pairs"):
        fit_kernel_ranksvm(X, np.ones(20), gamma=1.0)


# ---------------------------------------------------------------------------------------
# K-fold model selection over queries


def test_kfold_over_queries(rng):
    from rlscore.measure import query_cindex
    X, y, q = _data(rng, m=120, n=4, levels=3, nq=12)
    out = kfold_ranksvm(X, y, q, folds=3, regparams=[1e-3, 1e-1, 10.0],
                        options=RankSVMOptions(rtol=1e-6))
    for f in out["folds"]:
        inside = set(np.unique(q[f]))
        outside = set(np.unique(q[np.setdiff1d(np.arange(120), f)]))
        assert not inside & outside                  # no query is split
    assert out["best_regparam"] == out["regparams"][np.nanargmax(out["cv_performances"])]
    # one fold, one regparam, recomputed by hand
    f = out["folds"][0]
    train = np.setdiff1d(np.arange(120), f)
    sol, _ = fit_linear_ranksvm(X[train], y[train], q[train], 10.0,
                                options=RankSVMOptions(rtol=1e-10))
    ref = query_cindex(y[f], X[f] @ sol.w, q[f])
    assert out["fold_performances"][2, 0] == pytest.approx(ref, abs=1e-9)
    with pytest.raises(ValueError, match="splits a query"):
        kfold_ranksvm(X, y, q, folds=[np.arange(60), np.arange(60, 120)], regparams=[1.0])


# ---------------------------------------------------------------------------------------
# subsample warm start, threads and engines end to end


def test_subsample_warm_start_reaches_the_same_optimum(rng, monkeypatch):
    import rlscore.core.ranksvm._ranksvm as core
    monkeypatch.setattr(core, "WARM_START_MIN", 1000)
    for nq in (None, 40):
        X, y, q = _data(rng, m=3000, n=5, nq=nq, levels=None if nq is None else 4)
        risk = RankingRisk(X, y, q)
        cold = solve_ranksvm(risk, 1e-3, options=RankSVMOptions(rtol=1e-6, warm_start=None))
        warm = solve_ranksvm(risk, 1e-3, options=RankSVMOptions(rtol=1e-6))
        assert warm.warm_start_iterations > 0 and cold.warm_start_iterations == 0
        assert warm.converged and cold.converged
        assert abs(warm.objective - cold.objective) <= 1e-6 * risk.scale
        sub, factor = risk.subsample(0.1)
        assert factor == 1.0 and sub.m < risk.m
        if nq is not None:           # whole queries are kept
            assert sub.n_pairs > 0
    risk = RankingRisk(X, y, q, normalize="none")
    sub, factor = risk.subsample(0.1)
    assert factor == pytest.approx(sub.n_pairs / risk.n_pairs)
    with pytest.raises(ValueError, match="warm_start"):
        solve_ranksvm(risk, 1.0, options=RankSVMOptions(warm_start="yes"))


def test_threads_and_engines_give_the_same_training(rng):
    X, y, q = _data(rng, m=400, nq=6, levels=5)
    ref, _ = fit_linear_ranksvm(X, y, q, 1e-2, options=RankSVMOptions(rtol=1e-8))
    for kw in (dict(n_threads=2), dict(engine="rbtree"),
               dict(n_threads=2, engine="rbtree")):
        risk = RankingRisk(X, y, q, **kw)
        sol = solve_ranksvm(risk, 1e-2, options=RankSVMOptions(rtol=1e-8))
        np.testing.assert_allclose(sol.w, ref.w, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="engine"):
        RankingRisk(X, y, engine="avl")
    with pytest.raises(ValueError):
        RankingRisk(X, y, n_threads=0)


# ---------------------------------------------------------------------------------------
# squared pairwise hinge and the trust-region Newton method


def brute_squared(X, y, w, v=None, q=None, normalize="pairs"):
    """J's loss part, its gradient and (with v) the generalized Hessian-vector product
    of the squared pairwise hinge, from the explicit pairs. A pair is active when
    p_u < fl(p_l + 1) (the generalized Hessian takes that side at r = 0)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    u, l = brute_pairs(y, q)
    Z, s = _pair_problem(X, y, q, normalize) if u.size else (np.empty((0, X.shape[1])),
                                                             np.empty(0))
    p = X @ w
    r = 1.0 - p[u] + p[l]
    act = p[u] < p[l] + 1.0                 # the library's predicate, exact at r = 0
    loss = float(np.sum(s * np.where(act, r, 0.0) ** 2))
    g = -2.0 * Z.T @ (s * np.where(act, r, 0.0))
    Hv = None if v is None else 2.0 * Z.T @ (s * act * (Z @ v))
    return loss, g, Hv


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 40).flatmap(lambda m: st.tuples(
    st.lists(TIED, min_size=m, max_size=m), st.lists(PRED, min_size=m, max_size=m),
    st.lists(st.integers(0, 3), min_size=m, max_size=m),
    st.lists(st.floats(-2, 2), min_size=m, max_size=m))), st.booleans(),
    st.sampled_from(["pairs", "query", "none"]))
def test_squared_hinge_against_brute_force(data, use_q, normalize):
    """Loss, gradient and Hessian-vector products of the squared pairwise hinge with ties
    in y and in p (p on the grid of halves hits margins exactly) and queries."""
    y, p, q, z = (np.array(v, dtype=float) for v in data)
    m = y.size
    q = q.astype(np.intp) if use_q else None
    if normalize == "query" and q is None:
        normalize = "pairs"
    u, _ = brute_pairs(y, q)
    if u.size == 0:
        with pytest.raises(ValueError, match="no pairs"):
            SquaredRankingRisk(np.eye(m), y, q)
        return
    # X = I: w = p, so the gradient with respect to w is the one with respect to p
    X = np.eye(m)
    for nt in (1, 2):
        risk = SquaredRankingRisk(X, y, q, normalize=normalize, n_threads=nt)
        loss_b, g_b, Hv_b = brute_squared(X, y, p, z, q, normalize)
        loss, g = risk(p)
        assert loss == pytest.approx(loss_b, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(g, g_b, rtol=0, atol=1e-12 * max(1, np.abs(g_b).max()))
        _, coef, active = risk.evaluate_predictions(p)
        np.testing.assert_allclose(coef, g_b, rtol=0, atol=1e-12 * max(1,
                                                                       np.abs(g_b).max()))
        Hz = active.hessian_coef(z, n_threads=nt)
        np.testing.assert_allclose(Hz, Hv_b, rtol=0,
                                   atol=1e-12 * max(1, np.abs(Hv_b).max()))
        # the active set: pairs with p_u < fl(p_l + 1), counted per example
        uu, ll = brute_pairs(y, q)
        act = p[uu] < p[ll] + 1.0
        np.testing.assert_array_equal(active.degrees(),
                                      np.bincount(uu[act], minlength=m)
                                      + np.bincount(ll[act], minlength=m))
        assert active.n_active == np.count_nonzero(act)
        # the closed-form gradient at w = 0
        np.testing.assert_allclose(risk.zero_gradient(),
                                   brute_squared(X, y, np.zeros(m), None, q, normalize)[1],
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_squared_risk_and_hessian_on_features(rng, fmt):
    X, y, q = _data(rng, m=60, n=5, levels=4, nq=5)
    Xs = X if fmt == "dense" else getattr(sp, fmt + "_matrix")(X)
    risk = SquaredRankingRisk(Xs, y, q)
    w = rng.standard_normal(5)
    v = rng.standard_normal(5)
    loss_b, g_b, Hv_b = brute_squared(X, y, w, v, q)
    loss, g = risk(w)
    assert loss == pytest.approx(loss_b, rel=1e-12)
    assert risk.value(w) == pytest.approx(loss_b, rel=1e-12)
    np.testing.assert_allclose(g, g_b, rtol=1e-11, atol=1e-14)
    oracle = risk.newton_oracle(0.1)
    f, point = oracle.evaluate(w)
    assert f == pytest.approx(0.05 * w @ w + loss_b, rel=1e-12)
    np.testing.assert_allclose(oracle.gradient(point), 0.1 * w + g_b, rtol=1e-11,
                               atol=1e-14)
    Hv, z = oracle.hessian_vector(point, v)
    np.testing.assert_allclose(Hv, 0.1 * v + Hv_b, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(z, X @ v, rtol=1e-12, atol=1e-14)
    # loss_from_predictions is the same computation
    lp, coef = risk.loss_from_predictions(X @ w)
    assert lp == pytest.approx(loss_b, rel=1e-12)
    np.testing.assert_allclose(X.T @ coef, g_b, rtol=1e-11, atol=1e-14)


def test_squared_threads_on_large_queries(rng):
    """n_threads > 1 is used from 50000 examples on: same numbers as one thread, and the
    brute force over the pairs of 250 queries."""
    m, nq = 60000, 250
    y = rng.integers(0, 5, m).astype(float)
    q = rng.integers(0, nq, m)
    p = y * 0.3 + rng.standard_normal(m)
    z = rng.standard_normal(m)
    pairs = RankingPairs(y, q.astype(np.intp), nq)
    weights = rng.random(nq) + 0.5
    out = []
    for nt in (1, 2):
        coef = np.empty(m)
        loss, active = pairs.squared_hinge(p, weights, coef, nt)
        out.append((loss, coef, active.hessian_coef(z, None, nt)))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])
    np.testing.assert_array_equal(out[0][2], out[1][2])
    order = np.argsort(q, kind="stable")
    loss_b = 0.0
    g_b = np.zeros(m)
    Hz_b = np.zeros(m)
    bounds = np.searchsorted(q[order], np.arange(nq + 1))
    for k in range(nq):
        idx = order[bounds[k]:bounds[k + 1]]
        u, l = brute_pairs(y[idx])
        u, l = idx[u], idx[l]
        r = 1.0 - p[u] + p[l]
        act = p[u] < p[l] + 1.0
        r = np.where(act, r, 0.0)
        loss_b += weights[k] * np.sum(r * r)
        np.add.at(g_b, u, -2 * weights[k] * r)
        np.add.at(g_b, l, 2 * weights[k] * r)
        dz = 2 * weights[k] * act * (z[u] - z[l])
        np.add.at(Hz_b, u, dz)
        np.add.at(Hz_b, l, -dz)
    assert out[0][0] == pytest.approx(loss_b, rel=1e-11)
    np.testing.assert_allclose(out[0][1], g_b, rtol=0, atol=1e-9)
    np.testing.assert_allclose(out[0][2], Hz_b, rtol=0, atol=1e-9)


def _direct_squared_optimum(X, y, q, regparam, normalize):
    """Minimize J by scipy's L-BFGS with the brute-force gradient (an independent
    minimizer, O(pairs) per evaluation)."""
    def fun(w):
        loss, g, _ = brute_squared(X, y, w, None, q, normalize)
        return 0.5 * regparam * w @ w + loss, regparam * w + g

    res = minimize(fun, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options=dict(gtol=1e-13, ftol=1e-16, maxiter=20000, maxcor=30))
    return res.x, res.fun


@pytest.mark.parametrize("regparam", [1e-3, 1e-1, 10.0])
@pytest.mark.parametrize("normalize,levels,nq", [("pairs", None, None), ("pairs", 3, 4),
                                                 ("query", None, 4), ("none", 4, None)])
def test_newton_matches_direct_minimization(rng, regparam, normalize, levels, nq):
    X, y, q = _data(rng, m=40, n=4, levels=levels, nq=nq)
    w_ref, J_ref = _direct_squared_optimum(X, y, q, regparam, normalize)
    sol, risk = fit_linear_ranksvm(X, y, q, regparam,
                                   options=RankSVMOptions(rtol=1e-10, normalize=normalize,
                                                          loss="squared_hinge"))
    assert sol.solver == "newton" and sol.loss == "squared_hinge"
    assert sol.converged and sol.grad_norm <= 1e-10 * sol.grad_norm0
    assert np.isnan(sol.duality_gap)
    # grad_norm0 is ||grad J(0)||, by brute force
    assert sol.grad_norm0 == pytest.approx(
        np.linalg.norm(brute_squared(X, y, np.zeros(4), None, q, normalize)[1]), rel=1e-12)
    assert sol.objective <= J_ref + 1e-12 * abs(J_ref)
    assert sol.objective == pytest.approx(J_ref, rel=1e-9)
    np.testing.assert_allclose(sol.w, w_ref, rtol=1e-5, atol=1e-7 * np.abs(w_ref).max())
    loss_b = brute_squared(X, y, sol.w, None, q, normalize)[0]
    assert sol.objective == pytest.approx(0.5 * regparam * sol.w @ sol.w + loss_b,
                                          rel=1e-12)
    assert sol.risk == pytest.approx(loss_b, rel=1e-12)
    # the bundle method on the same (squared) risk reaches the same optimum
    bsol, _ = fit_linear_ranksvm(X, y, q, regparam,
                                 options=RankSVMOptions(rtol=1e-9, maxiter=5000,
                                                        normalize=normalize, loss="squared_hinge", optimizer="bundle"))
    assert bsol.converged and bsol.loss == "squared_hinge"
    assert bsol.objective == pytest.approx(J_ref, rel=1e-6)


@pytest.mark.parametrize("regparam", [1e-3, 1e-1])
def test_newton_matches_liblinear_on_pair_differences(rng, regparam):
    """J = regparam J2 with C = 1 / (regparam N): the same w as LIBLINEAR's L2-loss SVM
    (scikit-learn's LinearSVC) on the pair differences, each pair entered in both
    orientations (which doubles the loss, hence C / 2); primal LIBLINEAR is itself a
    trust-region Newton method, on the O(m^2) explicit pairs."""
    from sklearn.svm import LinearSVC
    X, y, q = _data(rng, m=50, n=4, levels=5, nq=3)
    u, l = brute_pairs(y, q)
    N = u.size
    C = 1.0 / (regparam * N)
    Z = X[u] - X[l]
    svc = LinearSVC(loss="squared_hinge", C=C / 2, fit_intercept=False, dual=False,
                    tol=1e-12, max_iter=200000).fit(np.vstack([Z, -Z]),
                                                    np.r_[np.ones(N), -np.ones(N)])
    sol, _ = fit_linear_ranksvm(X, y, q, regparam,
                                options=RankSVMOptions(rtol=1e-10, loss="squared_hinge"))
    np.testing.assert_allclose(sol.w, svc.coef_.ravel(), rtol=1e-5,
                               atol=1e-6 * np.abs(sol.w).max())
    J2 = 0.5 * sol.w @ sol.w + C * np.sum(np.maximum(0, 1 - Z @ sol.w) ** 2)
    assert sol.objective == pytest.approx(regparam * J2, rel=1e-12)


def test_hinge_bundle_and_squared_newton_against_references(rng):
    """The two losses on one data set: each matches its own independent reference, and
    the two models differ (different losses)."""
    X, y, q = _data(rng, m=30, n=3, levels=4, nq=3)
    Z, s = _pair_problem(X, y, q, "pairs")
    hinge, _ = fit_linear_ranksvm(X, y, q, 1e-2,
                                  options=RankSVMOptions(rtol=1e-8, maxiter=5000))
    J_ref, _ = independent_optimum(Z, s, 1e-2)
    assert hinge.objective == pytest.approx(J_ref, rel=1e-5)
    sq, _ = fit_linear_ranksvm(X, y, q, 1e-2,
                               options=RankSVMOptions(rtol=1e-10, loss="squared_hinge"))
    w_ref, J2_ref = _direct_squared_optimum(X, y, q, 1e-2, "pairs")
    assert sq.objective == pytest.approx(J2_ref, rel=1e-9)
    assert np.linalg.norm(sq.w - hinge.w) > 1e-3 * np.linalg.norm(hinge.w)


def test_newton_warm_starts(rng, monkeypatch):
    import rlscore.core.ranksvm._ranksvm as core
    monkeypatch.setattr(core, "NEWTON_WARM_START_MIN", 1000)
    X, y, q = _data(rng, m=3000, n=5, nq=30, levels=4)
    risk = SquaredRankingRisk(X, y, q)
    cold = solve_ranksvm_newton(risk, 1e-3,
                                options=RankSVMOptions(loss="squared_hinge", rtol=1e-8,
                                                       warm_start=None))
    warm = solve_ranksvm_newton(risk, 1e-3,
                                options=RankSVMOptions(loss="squared_hinge", rtol=1e-8))
    assert warm.warm_start_iterations > 0 and cold.warm_start_iterations == 0
    assert warm.converged and cold.converged
    assert warm.objective == pytest.approx(cold.objective, rel=1e-12)
    # along a regparam path: start from the neighbour's solution
    path = solve_ranksvm_newton(risk, 3e-3, x0=cold.w,
                                options=RankSVMOptions(loss="squared_hinge", rtol=1e-8))
    fresh = solve_ranksvm_newton(risk, 3e-3,
                                 options=RankSVMOptions(loss="squared_hinge", rtol=1e-8,
                                                        warm_start=None))
    assert path.objective == pytest.approx(fresh.objective, rel=1e-12)
    assert path.iterations <= fresh.iterations
    # k-fold over the path equals independent trainings per regparam
    out = kfold_ranksvm(X[:600], y[:600], q[:600], folds=3, regparams=[1e-2, 1e-1],
                        options=RankSVMOptions(rtol=1e-9, loss="squared_hinge"))
    assert out["solution"].solver == "newton"
    from rlscore.measure import query_cindex
    for gi, reg in enumerate([1e-2, 1e-1]):
        for k, test in enumerate(out["folds"]):
            train = np.setdiff1d(np.arange(600), test)
            sol, _ = fit_linear_ranksvm(X[train], y[train], q[train], reg,
                                        options=RankSVMOptions(rtol=1e-9,
                                                               loss="squared_hinge"))
            assert out["fold_performances"][gi, k] == pytest.approx(
                query_cindex(y[test], X[test] @ sol.w, q[test]), abs=1e-6)


def test_squared_and_newton_bad_input(rng):
    X, y, q = _data(rng, m=30, n=3)
    with pytest.raises(ValueError, match="no Hessian"):
        fit_linear_ranksvm(X, y, options=RankSVMOptions(loss="hinge", optimizer="newton"))
    with pytest.raises(ValueError, match="loss must be one of"):
        fit_linear_ranksvm(X, y, options=RankSVMOptions(loss="squared"))
    with pytest.raises(ValueError, match="solver must be one of"):
        fit_linear_ranksvm(X, y,
                           options=RankSVMOptions(loss="squared_hinge", optimizer="lbfgs"))
    with pytest.raises(ValueError, match="no Hessian"):
        kfold_ranksvm(X, y, folds=2,
                      options=RankSVMOptions(loss="hinge", optimizer="newton"))
    with pytest.raises(TypeError, match="SquaredRankingRisk"):
        solve_ranksvm_newton(RankingRisk(X, y), 1.0)
    risk = SquaredRankingRisk(X, y)
    with pytest.raises(ValueError, match="w0"):
        solve_ranksvm_newton(risk, 1.0, x0=np.ones(4))
    with pytest.raises(ValueError, match="w0"):
        solve_ranksvm_newton(risk, 1.0, x0=np.array([np.nan, 0, 0]))
    with pytest.raises(ValueError, match="regparam"):
        solve_ranksvm_newton(risk, 0.0)
    with pytest.raises(ValueError, match="warm_start"):
        solve_ranksvm_newton(risk, 1.0,
                             options=RankSVMOptions(loss="squared_hinge", warm_start="yes"))
    with pytest.raises(ValueError, match="NaN"):
        risk(np.array([np.nan, 0, 0]))
    with pytest.raises(ValueError, match="no pairs"):
        SquaredRankingRisk(X, np.ones(30))
    with pytest.warns(ConvergenceWarning, match="Newton"):
        sol = solve_ranksvm_newton(risk, 1e-4,
                                   options=RankSVMOptions(loss="squared_hinge", rtol=1e-12,
                                                          maxiter=1, warm_start=None))
    assert not sol.converged and sol.iterations == 1
    _, active = risk.pairs.squared_hinge(X @ np.ones(3), risk.weights, np.empty(30))
    with pytest.raises(ValueError, match="shape"):
        active.hessian_coef(np.ones(29))
    with pytest.raises(ValueError, match="shape"):
        active.hessian_coef(np.ones(30), np.empty(3))
    from rlscore._ext._sqhinge import SquaredHingeActiveSet
    with pytest.raises(ValueError, match="empty active set"):
        SquaredHingeActiveSet().hessian_coef(np.ones(0))
    assert SquaredHingeActiveSet().degrees().shape == (0,)
    with pytest.raises(ValueError, match="shape"):
        risk.pairs.squared_hinge(np.ones(30), np.ones(2), np.empty(30))
    with pytest.raises(ValueError, match="shape"):
        risk.pairs.squared_hinge(np.ones(29), np.ones(1), np.empty(30))


def test_hinge_regparam_too_small_for_float64_is_refused_not_a_zero_model():
    """At regparam ~1e-20 the bundle method's dual bound cancels to noise and rose above
    the objective, which passed as convergence and returned w = 0 silently; the
    solver now refuses, naming regparam. A regparam the dual can carry still trains."""
    from rlscore.estimators import RankSVM
    from rlscore.learner import LinearRankSVM as LearnerRankSVM
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + 0.3 * rng.normal(size=60)
    q = np.repeat(np.arange(6), 10)
    with pytest.raises(ValueError, match=r"regparam=1e-20 is too small"):
        RankSVM(alpha=1e-20).fit(X, y, qid=q)
    with pytest.raises(ValueError, match=r"regparam=1e-20 is too small"):
        LearnerRankSVM(X, y, qids=q, regparam=1e-20)
    ok = RankSVM(alpha=1e-8).fit(X, y, qid=q)
    assert ok.converged_ and np.linalg.norm(ok.coef_) > 1.0


def test_counting_buffers_kept_between_calls_stay_exact(rng):
    """RankingPairs keeps its counting buffers between evaluations (no allocation and
    page faults per call): whatever engine, layout and thread count the calls before
    used, every call counts exactly (brute-force pairs)."""
    X, y, q = _data(rng, m=300, n=3, levels=4, nq=7)
    risk = RankingRisk(X, y, q)
    for engine, threads in [("fenwick", 1), ("rbtree", 1), ("fenwick", 3),
                            ("rbtree_wide", 2), ("rbtree", 3), ("fenwick", 1),
                            ("rbtree_wide", 1), ("rbtree", 1)]:
        p = rng.standard_normal(300) * rng.choice([0.3, 3.0])
        c, d = risk.pairs.counts(p, threads, engine)
        c_ref, d_ref = brute_counts(y, p, q)
        np.testing.assert_array_equal(c, c_ref)
        np.testing.assert_array_equal(d, d_ref)
        coef = np.empty(300)
        loss = risk.pairs.hinge(p, risk.weights, coef, threads, engine)
        u, l = brute_pairs(y, q)
        np.testing.assert_allclose(loss, np.maximum(0, 1 - p[u] + p[l]).sum() *
                                   risk.weights[0], rtol=1e-12)
        np.testing.assert_allclose(coef, risk.weights[0] * (c_ref - d_ref), rtol=1e-15)


def test_counting_from_several_threads_at_once(rng):
    """Two Python threads evaluating the same risk at once (the counting releases the
    GIL): the one that finds the kept buffers in use gets its own, and both count
    exactly."""
    import threading
    X, y, q = _data(rng, m=4000, n=3, levels=5, nq=4)
    risk = RankingRisk(X, y, q)
    ps = [rng.standard_normal(4000) for _ in range(8)]
    refs = [brute_counts(y, p, q) for p in ps]
    out = [None] * len(ps)

    def work(k, engine):
        for _ in range(3):
            out[k] = risk.pairs.counts(ps[k], 1, engine)

    threads = [threading.Thread(target=work, args=(k, ("fenwick", "rbtree")[k % 2]))
               for k in range(len(ps))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (c, d), (c_ref, d_ref) in zip(out, refs):
        np.testing.assert_array_equal(c, c_ref)
        np.testing.assert_array_equal(d, d_ref)
