"""Generators for the synthetic settings used in the RLS / RankRLS papers and in tests.

Every generator takes ``random_state`` (None, an int seed, a
:class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator` or a legacy
:class:`numpy.random.RandomState`) and is deterministic for a fixed seed.
"""

import numpy as np

from rlscore._validation import check_positive_int, check_real

__all__ = [
    "make_regression", "make_classification", "make_ranking_queries",
    "make_irrelevant_pairs_example", "make_drug_target", "make_grouped_regression",
    "make_relevance_regression",
]


def _rng(random_state):
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.uint64))
    return np.random.default_rng(random_state)


#: The ``m`` and ``d`` entries of the generators' Parameters
_SIZES_DOC = """m : int, default 100
        Number of examples.
    d : int, default 10
        Number of features."""


def _shape(m, d):
    """The checked sizes (m, d) of a generated data set."""
    return check_positive_int(m, "m"), check_positive_int(d, "d")


def make_regression(m=100, d=10, noise=0.1, random_state=None, *, return_coef=False):
    """Linear regression data with Gaussian inputs and noise.

    ``X`` has i.i.d. standard normal entries, the true weights ``w`` are standard normal,
    and ``y = X w + noise·ε`` with ε standard normal.

    Parameters
    ----------
    {sizes}
    noise : float, default 0.1
        Standard deviation of the additive noise (>= 0).
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed or generator.
    return_coef : bool, default False
        Also return the true weights.

    Returns
    -------
    X : numpy.ndarray, shape (m, d)
    y : numpy.ndarray, shape (m,)
    w : numpy.ndarray, shape (d,)
        Only with ``return_coef=True``.

    Notes
    -----
    Complexity: O(m·d).
    """
    m, d = _shape(m, d)
    noise = check_real(noise, "noise", minimum=0)
    rng = _rng(random_state)
    X = rng.standard_normal((m, d))
    w = rng.standard_normal(d)
    y = X @ w + noise * rng.standard_normal(m)
    return (X, y, w) if return_coef else (X, y)


def make_grouped_regression(n_groups=50, per_group=20, d=5, noise=0.3,
                            random_state=None):
    """Regression data in groups of dependent examples (as the candidate parses of one
    sentence in Airola et al. 2011): each group has a random centre in input space and
    a random offset of its outputs.

    ``x = c_g + 0.3 ε``, ``y = sin(x_1) + 0.5 x_2 + s_g + noise·ε'`` with centres
    c_g ~ N(0, 4 I), offsets s_g ~ N(0, 1) and standard normal ε, ε'. Cross-validation
    on such data must hold out whole groups.

    Parameters
    ----------
    n_groups, per_group : int, default 50 and 20
    d : int, default 5 (>= 2)
    noise : float, default 0.3
    random_state : None, int, SeedSequence, Generator or RandomState

    Returns
    -------
    X : numpy.ndarray, shape (n_groups * per_group, d)
    y : numpy.ndarray, shape (n_groups * per_group,)
    groups : numpy.ndarray of int, the group of each row (rows of a group contiguous)

    Notes
    -----
    Complexity: O(m·d) for m = n_groups·per_group.
    """
    n_groups = check_positive_int(n_groups, "n_groups")
    per_group = check_positive_int(per_group, "per_group")
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be >= 2, got {d}")
    noise = check_real(noise, "noise", minimum=0)
    rng = _rng(random_state)
    centers = rng.normal(scale=2.0, size=(n_groups, d))
    shift = rng.normal(size=n_groups)
    groups = np.repeat(np.arange(n_groups), per_group)
    X = centers[groups] + 0.3 * rng.normal(size=(groups.size, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + shift[groups] + noise * rng.normal(size=groups.size)
    return X, y, groups


def make_classification(m=100, d=10, separation=2.0, positive_fraction=0.5, flip=0.0,
                        random_state=None):
    """Two Gaussian classes with labels ±1.

    Exactly ``round(positive_fraction·m)`` examples are positive (in random positions).
    Each class is a unit-covariance Gaussian; the class means are ``±(separation/2)·u``
    for a random unit vector ``u``, so the Bayes error rate is Φ(−separation/2)
    (about 0.16 for the default 2.0). After sampling ``X``, each label is flipped with
    probability ``flip`` (label noise). Use a small ``positive_fraction`` for the
    imbalanced AUC settings of the RankRLS experiments.

    Parameters
    ----------
    {sizes}
    separation : float, default 2.0
        Distance between the class means (>= 0; 0 gives no signal).
    positive_fraction : float, default 0.5
        Fraction of positive examples, in [0, 1].
    flip : float, default 0.0
        Probability of flipping each label, in [0, 1].
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed or generator.

    Returns
    -------
    X : numpy.ndarray, shape (m, d)
    y : numpy.ndarray, float64, shape (m,)
        +1 or −1.

    Notes
    -----
    Complexity: O(m·d).
    """
    m, d = _shape(m, d)
    separation = check_real(separation, "separation", minimum=0)
    positive_fraction = check_real(positive_fraction, "positive_fraction", minimum=0)
    flip = check_real(flip, "flip", minimum=0)
    if positive_fraction > 1:
        raise ValueError(f"positive_fraction must be in [0, 1], got {positive_fraction}")
    if flip > 1:
        raise ValueError(f"flip must be in [0, 1], got {flip}")
    rng = _rng(random_state)
    n_pos = int(round(positive_fraction * m))
    y = -np.ones(m)
    y[:n_pos] = 1.0
    y = rng.permutation(y)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((m, d)) + np.outer(y, (separation / 2.0) * u)
    if flip > 0:
        y = np.where(rng.random(m) < flip, -y, y)
    return X, y


def make_ranking_queries(n_queries=20, items_per_query=10, d=5, random_state=None, *,
                         noise=0.5, n_levels=3, query_spread=1.0):
    """Query-structured ranking data with graded relevance (a synthetic LETOR).

    Each query q has a centroid ``c_q ~ N(0, query_spread²·I)``; its items are
    ``x = c_q + N(0, I)``. A hidden unit vector ``w`` gives utilities
    ``u = w·x + noise·ε``. Because ``w·c_q`` shifts all items of a query together,
    regression must fit these between-query offsets, while within-query ranking
    (RankRLS with qids) ignores them. Relevance grades come from the utilities centred
    within each query, cut at the pooled quantiles k/n_levels (k = 1 … n_levels−1), so
    the grades 0 … n_levels−1 are about equally frequent and every query with at least
    n_levels items usually holds several grades.

    Parameters
    ----------
    n_queries : int, default 20
        Number of queries.
    items_per_query : int or sequence of int, default 10
        Items per query (the same for all, or one count per query).
    d : int, default 5
        Number of features.
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed or generator.
    noise : float, default 0.5
        Standard deviation of the utility noise.
    n_levels : int, default 3
        Number of relevance grades (2 gives bipartite 0/1 labels).
    query_spread : float, default 1.0
        Standard deviation of the query centroids.

    Returns
    -------
    X : numpy.ndarray, shape (n, d)
        n = total number of items; the rows of a query are contiguous.
    y : numpy.ndarray, float64, shape (n,)
        Relevance grades 0, 1, …, n_levels−1.
    qids : numpy.ndarray of int, shape (n,)
        Query index 0 … n_queries−1 of each row.

    Notes
    -----
    Complexity: O(n·d + n log n).
    """
    n_queries = check_positive_int(n_queries, "n_queries")
    d = check_positive_int(d, "d")
    n_levels = check_positive_int(n_levels, "n_levels")
    noise = check_real(noise, "noise", minimum=0)
    query_spread = check_real(query_spread, "query_spread", minimum=0)
    if np.ndim(items_per_query) == 0:
        sizes = np.full(n_queries, check_positive_int(items_per_query, "items_per_query"))
    else:
        sizes = np.array([check_positive_int(s, "items_per_query") for s in items_per_query],
                         dtype=np.intp)
        if sizes.shape[0] != n_queries:
            raise ValueError(f"items_per_query has {sizes.shape[0]} counts for "
                             f"{n_queries} queries")
    rng = _rng(random_state)
    qids = np.repeat(np.arange(n_queries), sizes)
    n = qids.shape[0]
    centroids = query_spread * rng.standard_normal((n_queries, d))
    X = centroids[qids] + rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    u = X @ w + noise * rng.standard_normal(n)
    means = np.bincount(qids, weights=u, minlength=n_queries) / sizes
    centred = u - means[qids]
    if n_levels == 1:
        y = np.zeros(n)
    else:
        cuts = np.quantile(centred, np.arange(1, n_levels) / n_levels)
        y = np.searchsorted(cuts, centred, side="right").astype(np.float64)
    return X, y, qids


def make_irrelevant_pairs_example():
    """The four-point "irrelevant pairs" toy example of the RankRLS paper.

    Pahikkala, Tsivtsivadze, Airola, Järvinen and Boberg (Machine Learning 75(1), 2009),
    §5.1 and Fig. 2: four one-dimensional inputs in two queries, {x1, x2} and
    {x3, x4}, with scores s = (2, 1, 4, 3). Within each query the preferred item lies
    to the *left* (x1 ≻ x2, x3 ≻ x4), while the second query's cluster lies to the right
    of the first and has the larger scores, so the four cross-query ("irrelevant") pairs
    point the other way. A linear RankRLS trained on the within-query pairs orders both
    relevant pairs correctly; trained on all six pairs it gets both wrong.

    The paper (as digested in our design notes) gives the scores and the layout but not
    the coordinates. The coordinates x = (0, 1, 10, 11) are our choice for
    reproduction; any layout with the same structure behaves the same. With them, the
    within-query least-squares pairwise fit has slope −1 (correct) and the all-pairs fit
    has slope 76/404 > 0 (both relevant pairs reversed).

    Returns
    -------
    X : numpy.ndarray, float64, shape (4, 1)
        ``[[0], [1], [10], [11]]``.
    y : numpy.ndarray, float64, shape (4,)
        ``[2, 1, 4, 3]``.
    qids : numpy.ndarray of int, shape (4,)
        ``[0, 0, 1, 1]``.

    Notes
    -----
    Complexity: O(1).
    """
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    y = np.array([2.0, 1.0, 4.0, 3.0])
    qids = np.array([0, 0, 1, 1])
    return X, y, qids


def make_drug_target(n_drugs=40, n_targets=30, d=5, noise=0.3, interaction=1.0,
                     side_noise=1.0, gamma=None, random_state=None):
    """Drug–target-like pairwise data: two kernels and a complete affinity matrix.

    Drugs and targets have latent features ``u_i, v_j ~ N(0, I_d)``. The affinity of a
    pair is a drug effect plus a target effect plus an interaction,
    ``Y[i, j] = a(u_i) + b(v_j) + interaction · c(u_i, v_j) + noise · ε``, where a, b are
    random smooth functions (random Fourier features) of one side and c is a product
    of such functions of both sides. The kernels are Gaussian kernels of noisy copies
    of the latent features, ``u_i + side_noise · N(0, I)`` (symmetric PSD, unit
    diagonal): side information that describes the objects only in part, as chemical
    and sequence similarities do. So ``K_D ⊗ K_T`` can express all three terms, the
    labels of known drugs and targets carry what the kernels miss, and the four Kronecker settings of Pahikkala et al. (Brief. Bioinform.
    2015) become progressively harder: A (new pairs of known objects) < B (new drugs)
    and C (new targets) < D (both new). A miniature stand-in for the Davis data.

    Parameters
    ----------
    n_drugs, n_targets : int, default 40, 30
    d : int, default 5
        Latent dimension.
    noise : float, default 0.3
        Standard deviation of the label noise.
    interaction : float, default 1.0
        Weight of the drug × target interaction term.
    side_noise : float, default 1.0
        Standard deviation of the noise of the features behind the kernels (0: the
        kernels see the latent features exactly).
    gamma : float, optional
        Width of the Gaussian kernels; default 1 / (2 d).
    random_state : None, int, SeedSequence, Generator or RandomState

    Returns
    -------
    KD : numpy.ndarray (n_drugs, n_drugs)
    KT : numpy.ndarray (n_targets, n_targets)
    Y : numpy.ndarray (n_drugs, n_targets)
        Rows are drugs, as in :func:`rlscore.datasets.load_davis`.

    Notes
    -----
    Complexity: O((n_drugs + n_targets)² d + n_drugs · n_targets).
    """
    n_drugs = check_positive_int(n_drugs, "n_drugs")
    n_targets = check_positive_int(n_targets, "n_targets")
    d = check_positive_int(d, "d")
    noise = check_real(noise, "noise", minimum=0)
    interaction = check_real(interaction, "interaction", minimum=0)
    side_noise = check_real(side_noise, "side_noise", minimum=0)
    gamma = 1.0 / (2 * d) if gamma is None else check_real(gamma, "gamma", minimum=0)
    rng = _rng(random_state)
    U = rng.standard_normal((n_drugs, d))
    V = rng.standard_normal((n_targets, d))

    def smooth(Z, k=20):
        # random Fourier features of the same Gaussian kernel: functions in its RKHS
        W = rng.standard_normal((Z.shape[1], k)) * np.sqrt(2 * gamma)
        phase = rng.uniform(0, 2 * np.pi, k)
        return np.cos(Z @ W + phase) @ rng.standard_normal(k) / np.sqrt(k)

    a, b = smooth(U), smooth(V)
    c = np.outer(smooth(U), smooth(V)) + np.outer(smooth(U), smooth(V))
    Y = a[:, None] + b[None, :] + interaction * c
    Y = Y + noise * rng.standard_normal(Y.shape)

    def gauss(Z):
        sq = np.einsum("ij,ij->i", Z, Z)
        D2 = np.maximum(sq[:, None] + sq[None, :] - 2 * Z @ Z.T, 0.0)
        return np.exp(-gamma * D2)

    U_seen = U + side_noise * rng.standard_normal(U.shape)
    V_seen = V + side_noise * rng.standard_normal(V.shape)
    return gauss(U_seen), gauss(V_seen), Y


def make_relevance_regression(m=500, n_relevant=2, n_irrelevant=8, noise=0.1,
                              random_state=None):
    """Nonlinear regression where only the first ``n_relevant`` features matter: the
    test bed of per-feature kernel widths (ARD), whose learned length-scales of the
    irrelevant features should go to the upper bound.

    ``X`` is standard normal (m, n_relevant + n_irrelevant); feature k < n_relevant
    enters through sin(2 x_k) (k even) or x_k^2 / 2 (k odd), and
    y = sum of those + noise·ε.

    Parameters
    ----------
    m : int, default 500
    n_relevant : int >= 1, default 2
    n_irrelevant : int >= 0, default 8
    noise : float >= 0, default 0.1
    random_state : None, int, SeedSequence, Generator or RandomState

    Returns
    -------
    X : numpy.ndarray, shape (m, n_relevant + n_irrelevant)
    y : numpy.ndarray, shape (m,)

    Notes
    -----
    Complexity: O(m·d).
    """
    m = check_positive_int(m, "m")
    n_relevant = check_positive_int(n_relevant, "n_relevant")
    n_irrelevant = check_positive_int(n_irrelevant, "n_irrelevant", minimum=0)
    noise = check_real(noise, "noise", minimum=0)
    rng = _rng(random_state)
    X = rng.standard_normal((m, n_relevant + n_irrelevant))
    R = X[:, :n_relevant]
    parts = np.where(np.arange(n_relevant) % 2 == 0, np.sin(2 * R), 0.5 * R ** 2)
    y = parts.sum(axis=1) + noise * rng.standard_normal(m)
    return X, y


for _f in (make_regression, make_classification):
    _f.__doc__ = _f.__doc__.replace("{sizes}", _SIZES_DOC)
del _f
