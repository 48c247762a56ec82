"""Linear RankSVM on a Dask cluster: the bundle method of :mod:`rlscore.core.bmrm` with a
risk oracle that evaluates the pairwise hinge loss and its subgradient per partition.

Pairs never cross queries, and every partition holds whole queries, so the risk and
its subgradient are exact sums of per-partition terms; each term is computed as in
:class:`rlscore.core.ranksvm.RankingRisk` on the partition (the same pair structure and
Cython counting kernel, ``RankingPairs.hinge``), with the pair weights of the whole data
set (N pairs, Q' ranked queries; :func:`rlscore.core.ranksvm.pair_weights`).
"""

import numpy as np

from rlscore._ext._ranksvm import RankingPairs
from rlscore.core.groups import QueryGroups
from rlscore.core.ranksvm import (NORMALIZATIONS, _pair_structure,
                                  check_utilities, pair_weights, solve_ranksvm)
from rlscore.distributed._data import (PartitionedData, check_whole_queries,
                                       ordered_sum)
from rlscore.learner.ranksvm import _SolutionAttributes
from rlscore.predictor import LinearPredictor, PredictorInterface

__all__ = ["DistributedRankingRisk", "LinearRankSVM", "as_partitioned"]


def as_partitioned(X, Y, qids, client, persist, need_labels=True):
    """A :class:`PartitionedData` from the learners' arguments."""
    if isinstance(X, PartitionedData):
        if Y is not None or qids is not None:
            raise ValueError("pass Y and qids inside the PartitionedData, not separately")
        data = X
    elif hasattr(X, "to_delayed") and hasattr(X, "columns"):
        raise TypeError("X is a dask dataframe: wrap it with "
                        "rlscore.distributed.PartitionedData.from_dataframe(df, label=..., "
                        "qid=...)")
    else:
        data = PartitionedData(X, Y, qids, client=client, persist=persist)
    if need_labels and not data.has_labels:
        raise ValueError("the data have no labels Y")
    return data


class _PartitionState:
    """What a partition keeps between passes: its utilities, query ids and pair
    structure (no copy of X). The compiled pair structure is not pickled: when Dask
    moves the state to another worker it is rebuilt there (O(m_p log m_p))."""

    def __init__(self, y, q, m, d, n_threads, engine):
        self.y, self.q, self.m, self.d = y, q, m, d
        self.n_threads, self.engine = n_threads, engine
        self.unique_qids = np.zeros(0) if q is None else np.unique(q.ids)
        self._pairs = None
        self.has_pairs = False
        if m:
            try:
                self._build()
                self.has_pairs = True
            except ValueError:    # the input is valid (checked before): no pairs here
                pass
        self.query_pairs = np.array(self._pairs.query_pairs) if self.has_pairs else \
            np.zeros(0, dtype=np.int64)
        self.n_ranked = int(np.count_nonzero(self.query_pairs))

    def _build(self):
        self._pairs = _pair_structure(self.y, self.q, self.m)[2]

    @property
    def pairs(self):
        if self._pairs is None:
            self._build()
        return self._pairs

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pairs"] = None
        return state


def _rank_state(part, n_threads, engine):
    X, Y, q = part
    m, d = X.shape
    y = check_utilities(Y, m) if m else np.zeros(0)
    q = QueryGroups.from_qids(q, m) if q is not None and m else None
    RankingPairs._engine(engine)
    return _PartitionState(y, q, m, d, n_threads, engine)


def _rank_summary(state):
    return dict(m=state.m, d=state.d, unique_qids=state.unique_qids,
                query_pairs=state.query_pairs, n_ranked=state.n_ranked)


def _rank_eval(part, state, w, normalize, n_pairs, n_ranked):
    X = part[0]
    if not state.has_pairs:
        return 0.0, np.zeros(X.shape[1])
    weights = pair_weights(state.query_pairs, normalize, n_pairs, n_ranked)
    p = X @ w
    coef = np.empty(X.shape[0])
    loss = state.pairs.hinge(p, weights, coef, state.n_threads, state.engine)
    return loss, X.T @ coef


class DistributedRankingRisk:
    """The normalized pairwise hinge risk of partitioned data, as a bundle-method oracle
    (the distributed counterpart of :class:`rlscore.core.ranksvm.RankingRisk`).

    Parameters
    ----------
    data : PartitionedData with labels (and query ids unless there is one partition)
    normalize : "pairs", "query" or "none"
    n_threads, engine : of the per-partition counting pass (see RankingRisk)

    Raises
    ------
    ValueError
        A global ranking (no qids) over several partitions: its pairs cross
        partitions; a query split over partitions; no pairs at all; partitions with
        different numbers of features.

    Notes
    -----
    Set-up: one pass (O(m_p log m_p) per partition: the sort of RankingRisk).
    ``__call__``: one pass, O(m_p log m_p + m_p d) per partition, then O(P d) on the
    client for P partitions, summed in partition order.
    """

    def __init__(self, data, normalize="pairs", n_threads=1, engine="fenwick"):
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got "
                             f"{normalize!r}")
        self.data = data
        self.normalize = normalize
        client = data.client
        self.states = data.map_persist(_rank_state, n_threads, engine)
        summ = client.gather([client.submit(_rank_summary, s) for s in self.states])
        nonempty = [k for k, s in enumerate(summ) if s["m"] > 0]
        if not nonempty:
            raise ValueError("the data have no rows")
        if not data.has_qids and len(nonempty) > 1:
            raise ValueError(
                f"a global ranking (qids=None) over {len(nonempty)} non-empty partitions: "
                f"its pairs cross partitions, which the per-partition loss cannot count; "
                f"pass qids (partitions of whole queries), or put the data in one "
                f"partition")
        dims = {s["d"] for s in summ}
        if len(dims) > 1:
            raise ValueError(f"partitions have different numbers of features: "
                             f"{sorted(dims)}")
        if data.has_qids:
            check_whole_queries([s["unique_qids"] for s in summ])
        qp = np.concatenate([s["query_pairs"] for s in summ])
        self.n_pairs = int(qp.sum())
        if self.n_pairs == 0:
            raise ValueError("there are no pairs to rank: the utilities are equal within "
                             "every query (or every query holds one example)")
        self.n_ranked = int(sum(s["n_ranked"] for s in summ))
        self.m = int(sum(s["m"] for s in summ))
        self.dim = dims.pop()
        self.scale = float(pair_weights(qp, normalize, self.n_pairs, self.n_ranked)
                           @ qp.astype(np.float64))

    def __call__(self, w):
        """(R(w), subgradient): one pass over the partitions."""
        out = self.data.map_gather(_rank_eval, self.states, np.asarray(w, np.float64),
                                   self.normalize, self.n_pairs, self.n_ranked)
        return ordered_sum(o[0] for o in out), ordered_sum(o[1] for o in out)


class LinearRankSVM(PredictorInterface, _SolutionAttributes):
    """Linear RankSVM trained on a Dask cluster; trains in the constructor.

    The objective, its normalizations and the bundle method are those of
    :class:`rlscore.learner.LinearRankSVM`; the loss and subgradient of each bundle
    iteration are computed per partition and summed on the client, which solves the
    bundle QP. The result equals the single-machine learner's to the duality-gap
    tolerance (no subsample warm start is used here).

    Parameters
    ----------
    X : dask.array.Array (m, d) (row chunks = partitions of whole queries), or a
        :class:`PartitionedData`.
    Y : utilities (m,) (dask array or array-like); None when X is PartitionedData.
    qids : query ids (m,); required when there is more than one partition.
    regparam : float > 0, default 1.0
    tol : float > 0, default 1e-3 (duality gap relative to R(0))
    max_iter : int, default 1000
    normalize : "pairs" (default), "query" or "none"
    client : distributed.Client, default the current one
    persist : bool, default False (read every partition from its source on each pass)
    callback : called after every iteration with a dict (iteration, objective,
        best_objective, lower_bound, gap, n_planes, time, w); returning True stops.
    verbose : bool, print one line per iteration
    n_threads : threads of each partition's counting pass

    Attributes
    ----------
    predictor : LinearPredictor; solution, regparam, iterations, duality_gap,
    objective, converged; n_pairs, history (per-iteration dicts)

    Notes
    -----
    Per iteration O(m_p log m_p + m_p d) work per partition, O(P d) transfer and
    O(d t) on the client (t cutting planes).
    """

    def __init__(self, X, Y=None, qids=None, regparam=1.0, tol=1e-3, max_iter=1000,
                 normalize="pairs", client=None, persist=False, callback=None,
                 verbose=False, n_threads=1):
        data = as_partitioned(X, Y, qids, client, persist)
        risk = DistributedRankingRisk(data, normalize, n_threads=n_threads)
        sol = solve_ranksvm(risk, regparam, tol, max_iter, callback, verbose,
                            warm_start=None)
        self._store(sol)
        self.n_pairs = risk.n_pairs
        self.history = sol.history
        self.predictor = LinearPredictor(sol.w, 0.0)
