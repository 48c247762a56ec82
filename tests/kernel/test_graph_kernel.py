"""All-paths graph kernel against dense brute force, PSD, bad input, learners."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.kernel import AllPathsGraphKernel, Graph, relation_graph
from rlscore.kernel.graph_kernel import as_graphs


def random_graph(rng, n, n_labels=6, density=0.3, rho=0.8, symmetric=False):
    """Random weighted digraph (cycles allowed) scaled to spectral radius ``rho``."""
    A = (rng.random((n, n)) < density) * rng.random((n, n))
    if symmetric:
        A = np.triu(A, 1)
        A = A + A.T
    r = np.abs(np.linalg.eigvals(A)).max() if n else 0.0
    if r > 1e-8:
        A *= rho / r
    else:
        A *= 0.5
    labels = [list(rng.choice(n_labels, size=rng.integers(1, 3), replace=False))
              for _ in range(n)]
    return Graph(A, labels), A, labels


def dense_G(A, labels, index, variant):
    """The paper's G over the global label ``index`` by dense formulas: W by an
    explicit inverse, G_sum = L W L^T, G_max[i, j] = max over all (k, l)."""
    n = A.shape[0]
    L = np.zeros((len(index), n))
    for k, labs in enumerate(labels):
        for lab in labs:
            L[index[lab], k] = 1.0
    W = np.linalg.inv(np.eye(n) - A) - np.eye(n)
    if variant == "sum":
        return L @ W @ L.T
    return (L[:, None, :, None] * W[None, None, :, :] * L[None, :, None, :]).max(axis=(2, 3))


def brute_kernel(set1, set2, variant):
    index = {}
    for _, _, labels in set1 + set2:
        for labs in labels:
            for lab in labs:
                index.setdefault(lab, len(index))
    G1 = [dense_G(A, lab, index, variant) for _, A, lab in set1]
    G2 = [dense_G(A, lab, index, variant) for _, A, lab in set2]
    return np.array([[np.sum(g1 * g2) for g2 in G2] for g1 in G1])


@pytest.mark.parametrize("variant", ["sum", "max"])
@pytest.mark.parametrize("seed", range(4))
def test_kernel_matches_dense_brute_force(variant, seed):
    rng = np.random.default_rng(seed)
    basis = [random_graph(rng, rng.integers(1, 8), symmetric=seed % 2 == 1)
             for _ in range(12)]
    # test graphs use labels 0..8: labels 6, 7, 8 never occur in the basis
    test = [random_graph(rng, rng.integers(1, 8), n_labels=9) for _ in range(7)]
    k = AllPathsGraphKernel([g for g, _, _ in basis], variant=variant)
    K = k.getKM([g for g, _, _ in basis])
    Kt = k.getKM([g for g, _, _ in test])
    np.testing.assert_allclose(K, brute_kernel(basis, basis, variant), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(Kt, brute_kernel(test, basis, variant), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("variant", ["sum", "max"])
def test_weighted_label_matrix_and_tuple_input(variant):
    rng = np.random.default_rng(7)
    sets = []
    for _ in range(6):
        n = int(rng.integers(2, 7))
        A = (rng.random((n, n)) < 0.4) * rng.random((n, n)) * 0.3
        Lt = (rng.random((n, 4)) < 0.5) * rng.random((n, 4))
        sets.append((A, Lt))
    k = AllPathsGraphKernel([(sp.csr_matrix(A), sp.csr_matrix(Lt)) for A, Lt in sets],
                            variant=variant)
    K = k.getKM([(A, Lt) for A, Lt in sets])
    Gs = []
    for A, Lt in sets:
        W = np.linalg.inv(np.eye(A.shape[0]) - A) - np.eye(A.shape[0])
        L = Lt.T
        Gs.append(L @ W @ L.T if variant == "sum" else
                  (L[:, None, :, None] * W * L[None, :, None, :]).max(axis=(2, 3)))
    np.testing.assert_allclose(K, [[np.sum(a * b) for b in Gs] for a in Gs], rtol=1e-10,
                               atol=1e-13)


def test_max_variant_with_negative_weights():
    # a single vertex with a negative self-loop: every (k, l) product is negative
    g = Graph(np.array([[-0.5]]), [["a"]])
    G = g.label_pair_matrix("max").toarray()
    np.testing.assert_allclose(G, [[-0.5 / 1.5]])
    # two vertices: pairs without a walk contribute 0 to the max
    A = np.array([[-0.5, 0.0], [0.0, 0.0]])
    G = Graph(A, [["a"], ["a"]]).label_pair_matrix("max").toarray()
    np.testing.assert_allclose(G, [[0.0]])


@pytest.mark.parametrize("variant", ["sum", "max"])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_matrix_psd(variant, seed):
    rng = np.random.default_rng(100 + seed)
    graphs = [random_graph(rng, rng.integers(1, 15), n_labels=4)[0] for _ in range(40)]
    K = AllPathsGraphKernel(graphs, variant=variant).getKM(graphs)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    ev = np.linalg.eigvalsh(K)
    assert ev.min() >= -1e-10 * ev.max()


def test_features_cached_once_per_graph():
    rng = np.random.default_rng(3)
    graphs = [random_graph(rng, 5)[0] for _ in range(4)]
    AllPathsGraphKernel(graphs)
    G0 = graphs[0].label_pair_matrix("sum")
    AllPathsGraphKernel(graphs)
    assert graphs[0].label_pair_matrix("sum") is G0


def test_spectral_radius_error_names_graph():
    good = Graph(np.array([[0, 0.5], [0, 0]]), [["a"], ["b"]])
    bad = Graph(np.array([[0, 1.0], [1.0, 0]]), [["a"], ["b"]])
    with pytest.raises(ValueError, match=r"graph 2: the spectral radius .* is 1 >= 1"):
        AllPathsGraphKernel([good, good, bad])
    k = AllPathsGraphKernel([good])
    with pytest.raises(ValueError, match="graph 1: the spectral radius"):
        k.getKM([good, bad])


def test_empty_and_malformed_graphs():
    with pytest.raises(ValueError, match="empty"):
        Graph(np.zeros((0, 0)), [])
    with pytest.raises(ValueError, match=r"X\[1\]: the graph is empty"):
        as_graphs([(np.zeros((1, 1)), [["a"]]), (np.zeros((0, 0)), [])])
    with pytest.raises(ValueError, match="holds no graphs"):
        AllPathsGraphKernel([])
    with pytest.raises(ValueError, match="labels describe 1 vertices"):
        Graph(np.zeros((2, 2)), [["a"]])
    with pytest.raises(ValueError, match="square"):
        Graph(np.zeros((2, 3)), [["a"], ["b"]])
    with pytest.raises(ValueError, match="variant"):
        AllPathsGraphKernel([Graph(np.zeros((1, 1)), [["a"]])], variant="mean")
    # an edgeless graph is valid and has the zero feature vector
    g = Graph(np.zeros((3, 3)), [["a"], ["b"], ["a"]])
    h = Graph(np.array([[0, 0.5], [0, 0]]), [["a"], ["b"]])
    K = AllPathsGraphKernel([g, h]).getKM([g, h])
    np.testing.assert_allclose(K, [[0, 0], [0, 0.25]])


def test_unseen_labels_ignored():
    basis = [Graph(np.array([[0, 0.5], [0, 0]]), [["a"], ["b"]])]
    new = Graph(np.array([[0, 0.5, 0], [0, 0, 0.5], [0, 0, 0]]), [["a"], ["b"], ["zzz"]])
    # pairs (a,b)=0.5, (b,zzz)=0.5, (a,zzz)=0.25; only (a,b) meets the basis
    np.testing.assert_allclose(AllPathsGraphKernel(basis).getKM([new]), [[0.25]])


# ----------------------------------------------------------------- relation_graph


def test_relation_graph_structure():
    tokens = "PROT1 strongly binds to PROT2 and PROTX".split()
    pos = "NN RB VBZ TO NN CC NN".split()
    deps = [(2, 0, "nsubj"), (2, 1, "advmod"), (2, 4, "prep_to"), (4, 6, "conj_and")]
    g = relation_graph(tokens, pos, deps, 0, 4, other_entities=[6])
    n, d = 7, 4
    assert g.n_vertices == 2 * n + d
    A = g.adjacency.toarray()
    # governor -> dependency vertex -> dependent, 0.9 on the shortest path
    assert A[2, n + 0] == 0.9 and A[n + 0, 0] == 0.9            # nsubj on the path
    assert A[2, n + 2] == 0.9 and A[n + 2, 4] == 0.9            # prep_to on the path
    assert A[2, n + 1] == 0.3 and A[n + 1, 1] == 0.3            # advmod off the path
    assert A[4, n + 3] == 0.3 and A[n + 3, 6] == 0.3
    # linear order chain with weight 0.9
    for k in range(n - 1):
        assert A[n + d + k, n + d + k + 1] == 0.9
    assert np.count_nonzero(A) == 2 * d + n - 1
    labels = g.label_matrix.toarray().astype(bool)
    names = np.array(g.label_names, dtype=object)

    def labs(v):
        return set(names[labels[v]])

    assert labs(0) == {"txt:PROT1_IP", "pos:NN_IP"}
    assert labs(2) == {"txt:binds_IP", "pos:VBZ_IP"}
    assert labs(1) == {"txt:strongly", "pos:RB"}
    assert labs(6) == {"txt:PROT", "pos:NN"}
    assert labs(n + 2) == {"dep:prep_to_IP"}
    assert labs(n + d + 0) == {"M:txt:PROT1", "M:pos:NN"}
    assert labs(n + d + 2) == {"M:txt:binds", "M:pos:VBZ"}
    assert labs(n + d + 6) == {"A:txt:PROT", "A:pos:NN"}
    # acyclic: the kernel works and the walk matrix is the finite series
    W = g.walk_matrix().toarray()
    np.testing.assert_allclose(W, sum(np.linalg.matrix_power(A, p) for p in range(1, 30)),
                               atol=1e-14)


def test_relation_graph_bad_input():
    with pytest.raises(ValueError, match="different"):
        relation_graph(["a", "b"], ["X", "Y"], [], 0, 0)
    with pytest.raises(ValueError, match="entity positions"):
        relation_graph(["a", "b"], ["X", "Y"], [], 0, 5)
    with pytest.raises(ValueError, match="same length"):
        relation_graph(["a", "b"], ["X"], [], 0, 1)
    with pytest.raises(ValueError, match="no tokens"):
        relation_graph([], [], [], 0, 1)


# ----------------------------------------------------------------- learners


def _data(seed=0, m=30):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, rng.integers(2, 9), n_labels=5)[0] for _ in range(m)]
    y = rng.standard_normal(m)
    test = [random_graph(rng, rng.integers(2, 9), n_labels=7)[0] for _ in range(8)]
    return graphs, y, test


@pytest.mark.parametrize("variant", ["sum", "max"])
def test_rls_equals_precomputed(variant):
    from rlscore.learner import RLS
    graphs, y, test = _data()
    k = AllPathsGraphKernel(graphs, variant=variant)
    ref = RLS(k.getKM(graphs), y, regparam=0.7, kernel="PrecomputedKernel")
    got = RLS(graphs, y, regparam=0.7, kernel="AllPathsGraphKernel", variant=variant)
    np.testing.assert_allclose(got.predictor.predict(test),
                               ref.predictor.predict(k.getKM(test)), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(got.leave_one_out(), ref.leave_one_out(), rtol=1e-9,
                               atol=1e-10)


@pytest.mark.parametrize("variant", ["sum", "max"])
def test_reduced_set_rls_equals_precomputed(variant):
    from rlscore.learner import RLS
    graphs, y, test = _data(1, m=40)
    basis = graphs[:15]
    kb = AllPathsGraphKernel(basis, variant=variant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # possibly rank-deficient basis
        ref = RLS(kb.getKM(graphs), y, regparam=0.3, kernel="PrecomputedKernel",
                  basis_vectors=kb.getKM(basis))
        got = RLS(graphs, y, regparam=0.3, kernel="AllPathsGraphKernel",
                  basis_vectors=basis, variant=variant)
    np.testing.assert_allclose(got.predictor.predict(test),
                               ref.predictor.predict(kb.getKM(test)), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(got.holdout([0, 5, 7]), ref.holdout([0, 5, 7]), rtol=1e-8,
                               atol=1e-9)


def test_indexed_graph_basis_removes_held_out_basis_graphs_in_cv():
    from rlscore.learner import RLS
    graphs, y, test = _data(1, m=40)
    idx = [0, 3, 5, 8, 12, 20, 31]
    k = AllPathsGraphKernel(graphs)
    K = k.getKM(graphs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # possibly rank-deficient basis
        got = RLS(graphs, y, regparam=0.3, kernel="AllPathsGraphKernel", basis_indices=idx)
        same = RLS(graphs, y, regparam=0.3, kernel="AllPathsGraphKernel",
                   basis_vectors=[graphs[i] for i in idx])
        ho = got.holdout([0, 5, 7])
        # brute force: retrain without the held-out rows and their basis graphs
        keep = np.setdiff1d(np.arange(len(graphs)), [0, 5, 7])
        kept_basis = [i for i in idx if i not in (0, 5, 7)]
        brute = RLS(K[np.ix_(keep, kept_basis)], y[keep], regparam=0.3,
                    kernel="PrecomputedKernel",
                    basis_vectors=K[np.ix_(kept_basis, kept_basis)])
    np.testing.assert_allclose(got.predictor.predict(test), same.predictor.predict(test),
                               rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ho, brute.predictor.predict(K[np.ix_([0, 5, 7], kept_basis)]),
                               rtol=1e-8, atol=1e-9)


def test_rankrls_with_graphs_equals_precomputed():
    from rlscore.learner import GlobalRankRLS, QueryRankRLS
    graphs, y, test = _data(2)
    k = AllPathsGraphKernel(graphs)
    K, Kt = k.getKM(graphs), k.getKM(test)
    ref = GlobalRankRLS(K, y, regparam=2.0, kernel="PrecomputedKernel")
    got = GlobalRankRLS(graphs, y, regparam=2.0, kernel="AllPathsGraphKernel")
    np.testing.assert_allclose(got.predictor.predict(test), ref.predictor.predict(Kt),
                               rtol=1e-9, atol=1e-10)
    qids = np.repeat(np.arange(6), 5)
    ref = QueryRankRLS(K, y, qids, regparam=2.0, kernel="PrecomputedKernel")
    got = QueryRankRLS(graphs, y, qids, regparam=2.0, kernel="AllPathsGraphKernel")
    np.testing.assert_allclose(got.predictor.predict(test), ref.predictor.predict(Kt),
                               rtol=1e-9, atol=1e-10)
