"""The pairwise (squared) hinge risk of partitioned data: its value, (sub)gradient and
Hessian-vector products, computed where the rows live.

Two schemes, chosen from the data (derivation and costs in docs/distributed.rst):

* **local** -- every partition holds whole queries (or there is one non-empty
  partition): pairs never cross partitions, so the risk, its gradient and the
  Hessian-vector products are sums of per-partition terms, each computed by the
  single-machine kernel on the partition. Per pass a partition receives w (or v) and
  returns one scalar and one d-vector: O(P d) numbers in all, nothing of size m.
* **global** -- one ranking over all rows (``qids=None``), or queries that span
  partitions: pairs cross partitions. The risk depends on X only through the
  predictions p = X w, so per pass the partitions send their predictions p_p = X_p w
  (m_p numbers) and receive the coefficients coef_p = (d R / d p)_p (m_p numbers); the
  counts of every row's margin-violating pairs against the *whole* set are computed by
  the compiled counting kernel of the single machine on the concatenated predictions,
  on the client, which holds the utilities (sent once). The partitions compute X_p w
  and X_p^T coef_p: the O(m d) work is split, the data never move, and each pass moves
  16 m bytes (8 m up, 8 m down) instead of the 8 m d bytes of X. The numbers equal the
  single machine's up to the order of the partition sums (the counts are identical:
  the same kernel on the same predictions).
"""

import numpy as np

from rlscore.core.ranksvm import PairwiseRankingLoss
from rlscore.core.structure import QueryGroups
from rlscore.core.ranksvm import NORMALIZATIONS, LOSSES, pair_structure, pair_weights
from rlscore._validation import check_utilities
from rlscore.distributed._data import _check_whole_queries, ordered_sum, split_queries

__all__ = ["DistributedRankingRisk", "DistributedNewtonObjective"]


class _PartitionState:
    """What a partition keeps between passes: its utilities, query ids and (local
    scheme) pair structure; no copy of X. The compiled pair structure is not pickled:
    when Dask moves the state to another worker it is rebuilt there
    (O(m_p log m_p))."""

    def __init__(self, y, q, m, d, n_threads, local):
        self.y, self.q, self.m, self.d = y, q, m, d
        self.n_threads = n_threads
        self.unique_qids = np.zeros(0) if q is None else np.unique(np.asarray(q).ravel())
        self._pairs = None
        self.has_pairs = False
        self.query_pairs = np.zeros(0, dtype=np.int64)
        if m and local:
            try:
                self._build()
                self.has_pairs = True
                self.query_pairs = np.asarray(self._pairs.query_pairs)
            except ValueError:    # the input is valid (checked before): no pairs here
                pass
        self.n_ranked = int(np.count_nonzero(self.query_pairs))

    def _build(self):
        self._pairs = pair_structure(self.y, self.q, self.m)[2]

    @property
    def pairs(self):
        if self._pairs is None:
            self._build()
        return self._pairs

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pairs"] = None
        return state


def _rank_state(part, n_threads, local):
    X, Y, q = part
    m, d = X.shape
    y = check_utilities(Y, m) if m else np.zeros(0)
    if q is not None and m:
        QueryGroups.from_qids(q, m)          # checks the ids (length, NaN, hashable)
    return _PartitionState(y, q, m, d, n_threads, local)


def _rank_summary(state):
    return dict(m=state.m, d=state.d, unique_qids=state.unique_qids,
                query_pairs=state.query_pairs, n_ranked=state.n_ranked)


def _labels(state):
    return state.y, (None if state.q is None else np.asarray(state.q).ravel())


# --- per-partition tasks of the local scheme --------------------------------------------

class _LocalEval:
    """A partition's evaluation at w: its loss, its gradient share and (squared hinge)
    its active set. Kept on the worker as a Dask future for the Hessian products; the
    compiled active set is not pickled: if Dask moves this object it is recomputed
    from w where it lands (one O(m_p log m_p + m_p d) evaluation)."""

    def __init__(self, w, args, loss, grad, active):
        self.w, self.args, self.loss, self.grad, self.active = w, args, loss, grad, active

    def __getstate__(self):
        state = self.__dict__.copy()
        state["active"] = None
        return state


def _local_eval(part, state, w, loss, normalize, n_pairs, n_ranked):
    """The partition's share of R(w), X_p^T coef_p and (squared hinge) the active
    set the Hessian products need, as a :class:`_LocalEval`."""
    X = part[0]
    args = (loss, normalize, n_pairs, n_ranked)
    if not state.has_pairs:
        return _LocalEval(w, args, 0.0, np.zeros(X.shape[1]), None)
    weights = pair_weights(state.query_pairs, normalize, n_pairs, n_ranked)
    p = X @ w
    coef = np.empty(X.shape[0])
    if loss == "hinge":
        value = state.pairs.hinge(p, weights, coef, state.n_threads)
        active = None
    else:
        value, active = state.pairs.squared_hinge(p, weights, coef, state.n_threads)
    return _LocalEval(w, args, float(value), X.T @ coef, active)


def _value_and_grad(ev):
    return ev.loss, ev.grad


def _local_hv(part, state, ev, v):
    """X_p^T (2 s Lap_p (X_p v)) with the active set of the partition's evaluation."""
    X = part[0]
    if not state.has_pairs:
        return np.zeros(X.shape[1])
    if ev.active is None:             # moved to another worker: evaluate again
        ev = _local_eval(part, state, ev.w, *ev.args)
    return X.T @ ev.active.hessian_coef(X @ v, None, state.n_threads)


# --- per-partition tasks of the global scheme -------------------------------------------

def _predict(part, _state, w):
    return part[0] @ w


def _back(part, _state, coef):
    return part[0].T @ coef


class DistributedRankingRisk:
    """The normalized pairwise hinge or squared hinge risk of partitioned data, as a
    bundle-method oracle (the distributed counterpart of
    :class:`rlscore.core.ranksvm.RankingRisk` / ``SquaredRankingRisk``).

    Parameters
    ----------
    data : PartitionedData with labels
    normalize : "pairs", "query" or "none"
    n_threads : threads of each counting pass
    loss : "hinge" or "squared_hinge"

    Attributes
    ----------
    scheme : "local" (pairs inside partitions) or "global" (pairs across partitions)
    n_pairs, n_ranked, m, dim, scale (R(0))

    Raises
    ------
    ValueError
        No pairs at all; partitions with different numbers of features.

    Notes
    -----
    Set-up: one pass (O(m_p log m_p) per partition); the global scheme also gathers the
    utilities (and query ids) once, 8 m bytes (16 m with ids), and sorts them on the
    client (O(m log m)).

    ``__call__(w)``, local scheme: one pass, O(m_p log m_p + m_p d) per partition, O(P d)
    numbers sent. Global scheme: two passes (X_p w, then X_p^T coef_p), O(m_p d) per
    partition, and the counting pass O(m log m) on the client; 16 m + O(P d) bytes
    sent (the predictions up, the coefficients down). Either way the result equals the
    single-machine risk on the concatenated rows, up to the order of the sums.
    """

    def __init__(self, data, normalize="pairs", n_threads=1, loss="hinge"):
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got "
                             f"{normalize!r}")
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        self.data, self.normalize, self.loss = data, normalize, loss
        self.n_threads = int(n_threads)
        client = data.client
        # which scheme: the query ids decide before any pair structure is built
        probe = data.map_persist(_rank_state, self.n_threads, False)
        summ = client.gather([client.submit(_rank_summary, s) for s in probe])
        nonempty = [k for k, s in enumerate(summ) if s["m"] > 0]
        if not nonempty:
            raise ValueError("the data have no rows")
        dims = {s["d"] for s in summ}
        if len(dims) > 1:
            raise ValueError(f"partitions have different numbers of features: "
                             f"{sorted(dims)}")
        self.dim = dims.pop()
        self.m = int(sum(s["m"] for s in summ))
        local = len(nonempty) == 1 or (
            data.has_qids and not split_queries([s["unique_qids"] for s in summ]))
        self.scheme = "local" if local else "global"
        self.bounds = np.concatenate([[0], np.cumsum([s["m"] for s in summ])])
        if local:
            if data.has_qids:
                _check_whole_queries([s["unique_qids"] for s in summ])
            self.states = data.map_persist(_rank_state, self.n_threads, True)
            summ = client.gather([client.submit(_rank_summary, s) for s in self.states])
            qp = np.concatenate([s["query_pairs"] for s in summ])
            self.n_pairs = int(qp.sum())
            if self.n_pairs == 0:
                raise ValueError("there are no pairs to rank: the utilities are equal "
                                 "within every query (or every query holds one example)")
            self.n_ranked = int(sum(s["n_ranked"] for s in summ))
            self.scale = float(pair_weights(qp, normalize, self.n_pairs, self.n_ranked)
                               @ qp.astype(np.float64))
            self.pair_loss = None
        else:
            self.states = probe
            lab = client.gather([client.submit(_labels, s) for s in probe])
            y = np.concatenate([a for a, _ in lab])
            q = None if not data.has_qids else np.concatenate(
                [b if b is not None else np.zeros(0) for _, b in lab])
            # the single machine's pair structure over all rows, in partition order
            self.pair_loss = PairwiseRankingLoss(y, q, normalize, loss, self.n_threads)
            self.n_pairs = self.pair_loss.n_pairs
            self.n_ranked = self.pair_loss.n_ranked
            self.scale = self.pair_loss.scale

    # --- the passes of the global scheme ------------------------------------------------

    def predictions(self, w):
        """X w over all rows (partition order): one pass, O(m_p d) per partition, 8 m
        bytes gathered."""
        out = self.data.map_gather(_predict, self.states, np.asarray(w, np.float64))
        return np.concatenate(out)

    def back_project(self, coef):
        """X^T coef for coef (m,) in partition order: each partition receives its m_p
        coefficients and returns a d-vector; summed in partition order."""
        b = self.bounds
        out = self.data.map_gather(_back, self.states, per_part=[
            (coef[b[k]:b[k + 1]],) for k in range(self.data.n_partitions)])
        return ordered_sum(out)

    def _local_pass(self, w):
        out = self.data.map_gather(_local_eval, self.states, np.asarray(w, np.float64),
                                   self.loss, self.normalize, self.n_pairs,
                                   self.n_ranked)
        return [(o.loss, o.grad) for o in out]

    def __call__(self, w):
        """(R(w), (sub)gradient)."""
        if self.scheme == "local":
            out = self._local_pass(w)
            return ordered_sum(o[0] for o in out), ordered_sum(o[1] for o in out)
        value, coef, _ = self.pair_loss.evaluate(self.predictions(w))
        return value, self.back_project(coef)

    def value(self, w):
        return self(w)[0]

    def newton_oracle(self, regparam):
        """The :func:`rlscore.core.optim.tron` oracle of J(w) = regparam / 2 ||w||^2 +
        R(w) (squared hinge)."""
        return DistributedNewtonObjective(self, regparam)


class _Point:
    __slots__ = ("w", "p", "loss", "coef", "active", "grad", "futures")

    def __init__(self, w, p=None, loss=None, coef=None, active=None, grad=None,
                 futures=None):
        self.w, self.p, self.loss, self.coef = w, p, loss, coef
        self.active, self.grad, self.futures = active, grad, futures


class DistributedNewtonObjective:
    """TRON oracle of J(w) = regparam / 2 ||w||^2 + R(w) for the squared hinge on
    partitioned data (the distributed counterpart of the single machine's
    ``SquaredRankingRisk.newton_oracle``), same iterates to round-off.

    Local scheme: ``evaluate`` is one pass in which every partition computes its loss,
    its gradient and its active set, which stays on the worker (a Dask future);
    ``hessian_vector`` is one pass computing X_p^T (2 s Lap_p (X_p v)) there. O(P d)
    numbers sent per pass.

    Global scheme (the single machine's algebra with X split by rows): ``evaluate``
    runs the counting kernel on the predictions (X w, passed by TRON from the CG
    directions, so no pass is needed for it); ``gradient`` is one pass X_p^T coef_p;
    ``hessian_vector`` two passes, z_p = X_p v gathered (8 m bytes), u = 2 s Lap z on
    the client (O(m log m), the recorded windows replayed), X_p^T u_p (8 m bytes
    scattered). Per CG iteration 16 m + O(P d) bytes, O(m_p d) work per partition.
    """

    def __init__(self, risk, regparam):
        if risk.loss != "squared_hinge":
            raise ValueError("the Newton method needs loss='squared_hinge'")
        self.risk = risk
        self.regparam = float(regparam)

    def evaluate(self, w, p=None):
        w = np.asarray(w, np.float64)
        reg = 0.5 * self.regparam * float(w @ w)
        r = self.risk
        if r.scheme == "local":
            futs = r.data.map_submit(_local_eval, r.states, w, r.loss, r.normalize,
                                     r.n_pairs, r.n_ranked)
            client = r.data.client
            out = client.gather([client.submit(_value_and_grad, f, pure=False)
                                 for f in futs])
            loss = ordered_sum(o[0] for o in out)
            grad = ordered_sum(o[1] for o in out)
            return reg + loss, _Point(w, loss=loss, grad=grad, futures=futs)
        if p is None:
            p = r.predictions(w)
        loss, coef, active = r.pair_loss.evaluate(p)
        return reg + loss, _Point(w, p, loss, coef, active)

    def gradient(self, point):
        if point.grad is None:
            point.grad = self.risk.back_project(point.coef)
        return self.regparam * point.w + point.grad

    def hessian_vector(self, point, v):
        r = self.risk
        v = np.asarray(v, np.float64)
        if r.scheme == "local":
            out = r.data.map_gather(_local_hv, r.states, per_part=[
                (f, v) for f in point.futures])
            return self.regparam * v + ordered_sum(out), None
        z = r.predictions(v)
        u = r.pair_loss.hessian_coef(point.active, z)
        return self.regparam * v + r.back_project(u), z

    def advance(self, point, zs):
        if zs is None or point.p is None:
            return None
        return point.p + zs
