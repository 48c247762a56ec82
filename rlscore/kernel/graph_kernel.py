"""All-paths graph kernel (Airola et al. 2008, Paper V of Airola 2011, with its erratum).

A graph with n vertices, c labels, weighted adjacency A (n x n, ``A[k, l]`` the weight
of the edge k -> l) and label allocation L (c x n, ``L[i, k]`` the weight of label i on
vertex k, 1 for the paper's binary labels) is represented by the label-pair matrix

* ``variant="sum"`` (the article): G = L W L^T, i.e.
  G_ij = sum_{k,l} L_ik W_kl L_jl, with W = (I - A)^{-1} - I = A + A^2 + ...
  (Neumann series, the summed weights of all walks of length >= 1; needs the spectral
  radius of A below 1);
* ``variant="max"`` (the erratum's definition (2), what the published experiments
  computed): G_ij = max_{1 <= k, l <= n} L_ik W_kl L_jl. The maximum runs over every
  vertex pair, so a pair with a zero product (no walk, or a vertex without the label)
  takes part: with nonnegative weights G_ij is the largest single vertex-pair weight,
  and it is never below 0 unless every vertex pair has a nonzero negative product.

The kernel is the Frobenius product k(G', G'') = sum_ij G'_ij G''_ij. Both variants are
explicit feature maps (vec G), so both are positive semi-definite kernels.

:class:`AllPathsGraphKernel` extracts G once per graph (cached on :class:`Graph`
objects), stores vec(G) of the basis graphs as rows of a CSR matrix over the label-pair
vocabulary of the basis graphs, and computes kernel matrices as sparse products.
Label pairs that no basis graph has (including pairs with a label unseen in the basis)
are dropped from other graphs' features; this is exact, since their product with every
basis graph is zero.

:func:`relation_graph` builds the paper's two-subgraph representation of a candidate
entity pair from a dependency parse.
"""

from collections import deque

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from rlscore.kernel._base import KernelBase, as_item_list, dot_dense

__all__ = ["Graph", "as_graphs", "AllPathsGraphKernel", "relation_graph"]

VARIANTS = ("sum", "max")


def _expand(indptr, rows):
    """Positions of the stored entries of CSR rows ``rows`` (each row's entries in
    turn) and, for each position, the index into ``rows`` it came from."""
    counts = indptr[rows + 1] - indptr[rows]
    owner = np.repeat(np.arange(rows.size), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return indptr[rows][owner] + offsets, owner


class Graph:
    """A directed graph with weighted edges and labelled vertices.

    Parameters
    ----------
    adjacency : array-like or sparse matrix, (n, n)
        ``adjacency[k, l]`` is the weight of the edge k -> l (0: no edge). An undirected
        edge is two directed ones.
    labels : sequence of n label collections, or array-like / sparse (n, c)
        Either, per vertex, an iterable of hashable labels (a single ``str`` is one
        label), every label with weight 1; or a vertex x label matrix (the transposed
        label allocation L^T) whose column j is label ``label_names[j]``.
    label_names : sequence of c hashable labels, optional
        Column names of a label matrix (default 0 ... c-1).

    Notes
    -----
    Construction is O(nnz(A) + total labels). :meth:`label_pair_matrix` caches its
    result, so build each graph once and reuse the object.
    """

    def __init__(self, adjacency, labels, label_names=None):
        A = sp.csr_matrix(adjacency, dtype=np.float64)
        n = A.shape[0]
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"adjacency must be square, got shape {A.shape}")
        if n == 0:
            raise ValueError("the graph is empty (no vertices)")
        if not np.all(np.isfinite(A.data)):
            raise ValueError("adjacency has non-finite edge weights")
        A.eliminate_zeros()
        A.sum_duplicates()
        self.adjacency = A
        if sp.issparse(labels) or (isinstance(labels, np.ndarray) and labels.ndim == 2):
            Lt = sp.csr_matrix(labels, dtype=np.float64)
            if label_names is None:
                label_names = list(range(Lt.shape[1]))
            label_names = list(label_names)
            if len(label_names) != Lt.shape[1]:
                raise ValueError(f"label_names has {len(label_names)} names but the label "
                                 f"matrix has {Lt.shape[1]} columns")
            if len(set(label_names)) != len(label_names):
                raise ValueError("label_names has duplicates")
        else:
            if label_names is not None:
                raise ValueError("label_names is only used with a label matrix")
            labels = list(labels)
            index, rows, cols = {}, [], []
            for k, labs in enumerate(labels):
                if isinstance(labs, (str, bytes)):
                    labs = (labs,)
                for lab in set(labs):
                    cols.append(index.setdefault(lab, len(index)))
                    rows.append(k)
            Lt = sp.csr_matrix((np.ones(len(rows)), (rows, cols)),
                               shape=(len(labels), len(index)))
            label_names = list(index)
        if Lt.shape[0] != n:
            raise ValueError(f"labels describe {Lt.shape[0]} vertices but the adjacency "
                             f"matrix has {n}")
        if not np.all(np.isfinite(Lt.data)):
            raise ValueError("the label matrix has non-finite values")
        Lt.eliminate_zeros()
        Lt.sum_duplicates()
        Lt.sort_indices()
        self.label_matrix = Lt            # L^T, (n, c)
        self.label_names = label_names
        self._cache = {}

    @property
    def n_vertices(self):
        return self.adjacency.shape[0]

    def walk_matrix(self):
        """W = (I - A)^{-1} - I as a CSR matrix, computed per weakly connected component.

        Entries below 64 eps max|W| of their component (rounding noise where no walk
        exists) are dropped.

        Raises ValueError when the spectral radius of A is >= 1 (the series diverges).
        O(sum_c n_c^3) over the components' sizes n_c.
        """
        A = self.adjacency
        n = A.shape[0]
        ncomp, comp = connected_components(A, directed=True, connection="weak")
        order = np.argsort(comp, kind="stable")
        bounds = np.searchsorted(comp[order], np.arange(ncomp + 1))
        rows, cols, vals = [], [], []
        rho = 0.0
        dense = A.toarray() if n <= 2000 else None
        for c in range(ncomp):
            idx = order[bounds[c]:bounds[c + 1]]
            Ac = dense[np.ix_(idx, idx)] if dense is not None else A[idx][:, idx].toarray()
            if not Ac.any():
                continue
            rho = max(rho, float(np.abs(la.eigvals(Ac, check_finite=False)).max()))
            if rho >= 1.0:
                raise ValueError(
                    f"the spectral radius of the adjacency matrix is {rho:.6g} >= 1, so "
                    f"the walk series (I - A)^-1 diverges; scale the edge weights down")
            # (I - A)^{-1} - I = (I - A)^{-1} A, without the cancellation of "- I"
            Wc = la.solve(np.eye(idx.size) - Ac, Ac, check_finite=False)
            # vertex pairs without a walk come out as rounding noise (~eps max|W|) of
            # either sign; dropping it keeps G as sparse as the walk structure
            r, s = np.nonzero(np.abs(Wc) > 64 * np.finfo(float).eps * np.abs(Wc).max())
            rows.append(idx[r])
            cols.append(idx[s])
            vals.append(Wc[r, s])
        if not rows:
            return sp.csr_matrix((n, n))
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                     np.concatenate(cols))), shape=(n, n))

    def label_pair_matrix(self, variant="sum"):
        """The instance matrix G (c x c, over ``label_names``) as a COO matrix; cached.

        ``"sum"``: L W L^T by sparse products. ``"max"``: every nonzero W_kl is paired
        with the labels of k and of l and the largest product kept per label pair.
        Costs O(n^3) for W plus O(sum over nonzero W_kl of nl(k) nl(l)), nl(k) the number of labels of vertex k.
        """
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        if variant in self._cache:
            return self._cache[variant]
        W = self.walk_matrix().tocoo()
        Lt = self.label_matrix
        c = Lt.shape[1]
        if variant == "sum":
            G = (Lt.T @ sp.csr_matrix(W) @ Lt).tocoo()
        else:
            pk, ek = _expand(Lt.indptr, W.row)
            pl, el = _expand(Lt.indptr, W.col[ek])
            ent = ek[el]
            gi, gj = Lt.indices[pk[el]], Lt.indices[pl]
            prod = W.data[ent] * Lt.data[pk[el]] * Lt.data[pl]
            key = gi.astype(np.int64) * c + gj
            srt = np.argsort(key, kind="stable")
            key, prod = key[srt], prod[srt]
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else key
            if key.size:
                gmax = np.maximum.reduceat(prod, starts)
                counts = np.diff(np.r_[starts, key.size])
                # vertex pairs outside the nonzero products contribute a 0 to the max
                gmax = np.where(counts < self.n_vertices ** 2, np.maximum(gmax, 0.0), gmax)
                ukey = key[starts]
            else:
                gmax, ukey = np.zeros(0), key
            G = sp.coo_matrix((gmax, (ukey // c, ukey % c)), shape=(c, c))
        G.sum_duplicates()
        G.eliminate_zeros()
        self._cache[variant] = G
        return G


def as_graphs(X, name="X"):
    """A list of :class:`Graph` from Graph objects or (adjacency, labels[, label_names])
    tuples. Raises ValueError for an empty list or a bad graph (naming its index)."""
    if isinstance(X, Graph):
        X = [X]
    X = as_item_list(X, name, "graphs")
    out = []
    for i, g in enumerate(X):
        if isinstance(g, Graph):
            out.append(g)
            continue
        if not isinstance(g, (tuple, list)) or len(g) not in (2, 3):
            raise ValueError(f"{name}[{i}] is not a Graph or an (adjacency, labels) tuple")
        try:
            out.append(Graph(*g))
        except ValueError as e:
            raise ValueError(f"{name}[{i}]: {e}") from None
    return out


class AllPathsGraphKernel(KernelBase):
    """All-paths graph kernel k(G', G'') = <G', G''>_F (Airola et al. 2008).

    Parameters
    ----------
    X : list of :class:`Graph` or of (adjacency, labels) tuples
        The basis graphs. Their label-pair vocabulary defines the feature space.
    variant : "sum" (default) or "max"
        G = L W L^T (the article) or the erratum's G_ij = max_kl L_ik W_kl L_jl; see
        :mod:`rlscore.kernel.graph_kernel`.

    Attributes
    ----------
    train_X : CSR matrix (n_basis, n_pairs)
        vec(G) of the basis graphs over the label-pair vocabulary.
    basis : list of Graph

    Notes
    -----
    Feature extraction costs O(n^3) per graph of n vertices (one dense solve per
    connected component) and is done once per :class:`Graph` object. ``getKM(X)`` is
    then a sparse product, O(sum over label pairs of nnz per column products). Labels
    or label pairs absent from the basis graphs are ignored (exactly: they meet only
    zeros). A graph with a spectral radius >= 1 raises ValueError naming its index;
    an edgeless graph has the zero feature vector.
    """

    structured_input = True

    def __init__(self, X, variant="sum"):
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.variant = variant
        self._basis_input = X
        self.basis = as_graphs(X)
        feats = self._features(self.basis)
        labels = {}
        for g in self.basis:
            for lab in g.label_names:
                labels.setdefault(lab, len(labels))
        self._labels = labels
        keys = [self._pair_keys(g, G)[0] for g, G in zip(self.basis, feats)]
        self._vocab = np.unique(np.concatenate(keys))
        self.train_X = self._vectorize(self.basis, feats)

    def _features(self, graphs):
        feats = []
        for i, g in enumerate(graphs):
            try:
                feats.append(g.label_pair_matrix(self.variant))
            except ValueError as e:
                raise ValueError(f"graph {i}: {e}") from None
        return feats

    def _pair_keys(self, g, G):
        """Global label-pair keys of G's entries (entries with unknown labels dropped)."""
        gid = np.array([self._labels.get(lab, -1) for lab in g.label_names], dtype=np.int64)
        gi, gj = gid[G.row], gid[G.col]
        ok = (gi >= 0) & (gj >= 0)
        return gi[ok] * len(self._labels) + gj[ok], G.data[ok]

    def _vectorize(self, graphs, feats):
        indices, data, counts = [], [], []
        nv = self._vocab.size
        for g, G in zip(graphs, feats):
            key, val = self._pair_keys(g, G)
            pos = np.minimum(np.searchsorted(self._vocab, key), max(nv - 1, 0))
            ok = self._vocab[pos] == key if nv else np.zeros(key.size, bool)
            indices.append(pos[ok])
            data.append(val[ok])
            counts.append(int(ok.sum()))
        indptr = np.r_[0, np.cumsum(counts)]
        F = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr),
                          shape=(len(graphs), nv))
        F.sort_indices()
        return F

    def transform(self, X):
        """vec(G) of the graphs X over the basis vocabulary, CSR (n, n_pairs)."""
        if X is self._basis_input:
            return self.train_X
        graphs = as_graphs(X)
        return self._vectorize(graphs, self._features(graphs))

    def getKM(self, X):
        """Kernel matrix k(X, basis), dense (n, n_basis)."""
        return dot_dense(self.transform(X), self.train_X)

    def get_params(self):
        return {"variant": self.variant}


# ---------------------------------------------------------------------------------------
# The paper's graph representation of a candidate pair


def _bfs(adj, src):
    dist = np.full(len(adj), -1)
    dist[src] = 0
    queue = deque([src])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def relation_graph(tokens, pos_tags, dependencies, entity1, entity2, other_entities=(),
                   ne_tags=None, path_weight=0.9, other_weight=0.3, linear_weight=0.9):
    """The two-subgraph graph of a candidate pair (Airola et al. 2008, "Graph
    representation").

    Parameters
    ----------
    tokens, pos_tags : sequences of n str
    dependencies : iterable of (governor, dependent, type) with token indices
    entity1, entity2 : int
        Token indices of the candidate pair (blinded as ``PROT1``, ``PROT2``).
    other_entities : iterable of int
        Other entity mentions (blinded as ``PROT``).
    ne_tags : sequence of n str or None, optional
        Named-entity tags added to the linear-order labels.
    path_weight, other_weight, linear_weight : float
        Edge weights: 0.9 on the shortest paths, 0.3 elsewhere, 0.9 in linear order.

    Returns
    -------
    Graph
        Vertices 0..n-1: tokens of the dependency subgraph, labelled ``txt:<text>`` and
        ``pos:<POS>``; then one vertex per dependency labelled ``dep:<type>``, with the
        edges governor -> dependency -> dependent. Every vertex on a shortest undirected
        path between the pair gets its labels suffixed ``_IP`` and the edges on those
        paths weight ``path_weight``; the other edges ``other_weight``. Then n vertices
        of the linear-order subgraph with labels prefixed ``B:``, ``M:`` or ``A:`` (token
        before the first entity, from the first to the second entity, after it) and the
        edges i -> i+1 of weight ``linear_weight``. Both subgraphs are acyclic, so the
        spectral radius is 0.

    Notes
    -----
    O(n + d) for n tokens and d dependencies. Entities are single tokens.
    """
    tokens, pos_tags = list(tokens), list(pos_tags)
    n = len(tokens)
    if n == 0:
        raise ValueError("the sentence has no tokens")
    if len(pos_tags) != n or (ne_tags is not None and len(ne_tags) != n):
        raise ValueError("tokens, pos_tags (and ne_tags) must have the same length")
    ents = [int(entity1), int(entity2)] + [int(e) for e in other_entities]
    if any(not 0 <= e < n for e in ents):
        raise ValueError(f"entity positions must lie in [0, {n})")
    if ents[0] == ents[1]:
        raise ValueError("entity1 and entity2 must be different tokens")
    deps = [(int(g), int(d), str(t)) for g, d, t in dependencies]
    if any(not (0 <= g < n and 0 <= d < n) for g, d, _ in deps):
        raise ValueError(f"dependency token indices must lie in [0, {n})")
    text = [f"txt:{t}" for t in tokens]
    for e in ents[2:]:
        text[e] = "txt:PROT"
    text[ents[0]], text[ents[1]] = "txt:PROT1", "txt:PROT2"

    nd = n + len(deps)
    edges = []
    for j, (g, d, _) in enumerate(deps):
        edges += [(g, n + j), (n + j, d)]
    adj = [[] for _ in range(nd)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    d1, d2 = _bfs(adj, ents[0]), _bfs(adj, ents[1])
    D = d1[ents[1]]
    if D >= 0:
        on_path = (d1 >= 0) & (d2 >= 0) & (d1 + d2 == D)
        path_edge = [on_path[u] and on_path[v] and abs(d1[u] - d1[v]) == 1
                     for u, v in edges]
    else:
        on_path = np.zeros(nd, bool)
        path_edge = [False] * len(edges)
    dep_labels = [[text[k], f"pos:{pos_tags[k]}"] for k in range(n)]
    dep_labels += [[f"dep:{t}"] for _, _, t in deps]
    dep_labels = [[lab + "_IP" for lab in labs] if on_path[k] else labs
                  for k, labs in enumerate(dep_labels)]

    lo, hi = sorted(ents[:2])
    lin_labels = []
    for k in range(n):
        tag = "B" if k < lo else ("A" if k > hi else "M")
        labs = [text[k], f"pos:{pos_tags[k]}"]
        if ne_tags is not None:
            labs.append(f"ne:{ne_tags[k]}")
        lin_labels.append([f"{tag}:{lab}" for lab in labs])

    rows = [u for u, _ in edges] + list(range(nd, nd + n - 1))
    cols = [v for _, v in edges] + list(range(nd + 1, nd + n))
    w = [path_weight if p else other_weight for p in path_edge] + [linear_weight] * (n - 1)
    A = sp.csr_matrix((w, (rows, cols)), shape=(nd + n, nd + n))
    return Graph(A, dep_labels + lin_labels)
