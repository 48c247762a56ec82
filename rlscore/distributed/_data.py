"""Partitioned data on a Dask cluster: one task per partition and pass, results reduced
on the client in partition order."""

import dask
import dask.array as da
from dask.delayed import Delayed
import numpy as np
from distributed import get_client

from rlscore._validation import as_2d_labels, as_data_matrix

__all__ = ["PartitionedData", "query_chunks", "check_whole_queries", "ordered_sum"]


def _pack(X, Y, q):
    return X, Y, q


def _dataframe_part(pdf, features, label, qid):
    X = pdf[list(features)].to_numpy()
    Y = None if label is None else pdf[label].to_numpy()
    q = None if qid is None else pdf[qid].to_numpy()
    return X, Y, q


def _aligned_float64(X):
    """X as C-ordered float64 in an aligned buffer. Arrays deserialized from the
    network can be unaligned, and BLAS then takes a slow path: X @ w and X^T c were 5
    and 15 times slower on such a partition (m = 5e5, d = 50). O(m d) only when a copy
    is needed."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return X if X.flags.aligned else X.copy()


def _checked_part(part):
    """The partition with X as float64 (C order) and Y as 2-D float64, both checked for
    NaN/inf; a partition of no rows is kept (it contributes nothing)."""
    X, Y, q = part
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got a partition of shape {X.shape}")
    if X.shape[0]:
        X = as_data_matrix(X, name="X")
    X = _aligned_float64(X)
    if Y is not None:
        if np.asarray(Y).shape[0] != X.shape[0]:
            raise ValueError(f"a partition has {X.shape[0]} rows of X but "
                             f"{np.asarray(Y).shape[0]} of Y")
        Y = as_2d_labels(Y) if X.shape[0] else np.zeros((0,) + np.asarray(Y).shape[1:2])
    return X, Y, q


def float_part(part):
    """The partition with X as float64 (no checks: a later pass over data already
    checked by :func:`_checked_part`). O(m d) when X is not float64 already."""
    X, Y, q = part
    X = _aligned_float64(X)
    if Y is not None:
        Y = np.asarray(Y, dtype=np.float64)
        Y = Y.reshape(Y.shape[0], -1)
    return X, Y, q


def query_chunks(qids, n_partitions):
    """Row chunk sizes for ``n_partitions`` partitions of about equal size that never
    split a query (for ``dask.array.from_array(X, chunks=(query_chunks(...), -1))``).

    The rows of a query must be contiguous (sort by query first); ValueError
    otherwise. O(m).
    """
    q = np.asarray(qids).ravel()
    m = q.shape[0]
    if m == 0:
        raise ValueError("qids is empty")
    n_partitions = int(n_partitions)
    if n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    starts = np.concatenate([[0], np.flatnonzero(q[1:] != q[:-1]) + 1])
    if np.unique(q[starts]).shape[0] != starts.shape[0]:
        raise ValueError("the rows of each query must be contiguous: sort the data by "
                         "query id before partitioning")
    targets = np.arange(1, n_partitions) * m / n_partitions
    cut = np.unique(starts[np.clip(np.searchsorted(starts, targets), 0,
                                   starts.shape[0] - 1)])
    bounds = np.concatenate([[0], cut[cut > 0], [m]])
    return tuple(int(c) for c in np.diff(np.unique(bounds)))


def check_whole_queries(unique_qids):
    """ValueError when a query id occurs in more than one partition.

    ``unique_qids``: per partition the array of its distinct query ids.
    O(n log n) for n ids in all.
    """
    lens = [len(u) for u in unique_qids]
    if sum(lens) == 0:
        return
    allq = np.concatenate([np.asarray(u) for u in unique_qids if len(u)])
    owner = np.repeat(np.arange(len(unique_qids)), lens)
    uniq, inverse, counts = np.unique(allq, return_inverse=True, return_counts=True)
    if np.all(counts == 1):
        return
    bad = int(np.flatnonzero(counts > 1)[0])
    where = owner[np.asarray(inverse).ravel() == bad]
    qid = uniq[bad].item() if isinstance(uniq[bad], np.generic) else uniq[bad]
    raise ValueError(
        f"query {qid!r} is split over partitions {sorted(set(where.tolist()))}: every "
        f"partition must hold whole queries (sort the rows by query and chunk them with "
        f"rlscore.distributed.query_chunks, or repartition the dataframe by query)")


def ordered_sum(values):
    """Sum of a sequence of numbers / arrays in the given order (deterministic)."""
    it = iter(values)
    total = next(it)
    total = total.copy() if isinstance(total, np.ndarray) else total
    for v in it:
        total = total + v
    return total


def _rechunk_rows(A, row_chunks, name):
    if A is None:
        return None
    if not isinstance(A, da.Array):
        A = np.asarray(A)
    if A.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got {A.ndim} dimensions")
    if A.shape[0] != sum(row_chunks):
        raise ValueError(f"X has {sum(row_chunks)} rows but {name} has {A.shape[0]}: "
                         f"lengths must match")
    if not isinstance(A, da.Array):
        A = da.from_array(A, chunks=(row_chunks,) + tuple((s,) for s in A.shape[1:]))
    chunks = (row_chunks,) + ((-1,) if A.ndim == 2 else ())
    return A.rechunk(chunks)


class PartitionedData:
    """X, labels Y and query ids as partitions on a Dask cluster.

    Parameters
    ----------
    X : dask.array.Array (m, d); its row chunks are the partitions (column chunks are
        merged). A float32 array is accepted; every task computes in float64.
    Y : dask array or array-like (m,) or (m, p), or None; rechunked to X's rows.
    qids : dask array or array-like (m,) of query ids, or None; rechunked to X's rows.
        Each partition must hold whole queries (checked by the ranking learners).
    client : distributed.Client, default the current client (``get_client()``).
    persist : bool, default False
        False: each pass computes every partition from its source (data out of core:
        memory holds one partition per worker thread). True: the checked float64
        partitions are kept in the workers' memory after the first pass.

    Notes
    -----
    A pass costs one task per partition; the results come back to the client, which
    sums them in partition order.
    """

    def __init__(self, X, Y=None, qids=None, client=None, persist=False, _parts=None):
        self.client = get_client() if client is None else client
        self.persist = bool(persist)
        if _parts is not None:
            parts = _parts
        else:
            if not isinstance(X, da.Array):
                raise TypeError(f"X must be a dask.array.Array (rows chunked into "
                                f"partitions), got {type(X).__name__}; use "
                                f"PartitionedData.from_dataframe for a dask dataframe")
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got shape {X.shape}")
            if any(np.isnan(c) for c in X.chunks[0]):
                X = X.compute_chunk_sizes()
            X = X.rechunk({1: -1})
            rows = X.chunks[0]
            Yd = _rechunk_rows(Y, rows, "Y")
            qd = _rechunk_rows(qids, rows, "qids")
            xb = X.to_delayed().reshape(-1)
            yb = [None] * len(xb) if Yd is None else Yd.to_delayed().reshape(-1)
            qb = [None] * len(xb) if qd is None else qd.to_delayed().reshape(-1)
            parts = [dask.delayed(_pack, pure=True)(x, y, q) for x, y, q in zip(xb, yb, qb)]
        if not parts:
            raise ValueError("the data have no partitions")
        self.has_labels = Y is not None
        self.has_qids = qids is not None
        if self.persist:
            checked = [dask.delayed(_checked_part, pure=True)(p) for p in parts]
            self._parts = self.client.compute(checked)
            self._checked = True
        else:
            self._parts = parts
            self._checked = False

    @classmethod
    def from_dataframe(cls, df, label=None, qid=None, features=None, client=None,
                       persist=False):
        """Partitions of a dask dataframe: ``features`` (default every column but
        ``label`` and ``qid``) form X, column ``label`` Y, column ``qid`` the query ids.
        Each dataframe partition must hold whole queries."""
        cols = list(df.columns)
        for name, what in ((label, "label"), (qid, "qid")):
            if name is not None and name not in cols:
                raise ValueError(f"{what} column {name!r} is not in the dataframe")
        if features is None:
            features = [c for c in cols if c not in (label, qid)]
        missing = [c for c in features if c not in cols]
        if missing:
            raise ValueError(f"feature columns {missing} are not in the dataframe")
        if not features:
            raise ValueError("no feature columns")
        parts = [dask.delayed(_dataframe_part, pure=True)(p, tuple(features), label, qid)
                 for p in df.to_delayed()]
        return cls(None, None if label is None else True, None if qid is None else True,
                   client=client,
                   persist=persist, _parts=parts)

    @property
    def n_partitions(self):
        return len(self._parts)

    def _submit_all(self, func, parts, *per_part_and_args):
        """Submit ``func(part, *args)`` for every part at once (one graph for delayed
        parts, whose optimization dominates the client's cost of a pass)."""
        if parts and isinstance(parts[0], Delayed):
            tasks = [dask.delayed(func, pure=True)(p, *a)
                     for p, a in zip(parts, per_part_and_args[0])]
            return self.client.compute(tasks)
        return [self.client.submit(func, p, *a, pure=True)
                for p, a in zip(parts, per_part_and_args[0])]

    def map_persist(self, func, *args):
        """Futures of ``func(part, *args)`` per partition, kept on the workers (e.g. a
        partition's pair structure). ``part`` is checked (NaN/inf, shapes) on this
        first pass."""
        if self._checked:
            return self._submit_all(func, self._parts, [args] * self.n_partitions)
        return self._submit_all(_checked_then, self._parts,
                                [(func,) + args] * self.n_partitions)

    def map_gather(self, func, states=None, *args, partitions=None):
        """``[func(part, state_p, *args) for each partition]`` computed on the cluster
        and gathered in partition order (``part`` with X as float64). ``states``: a
        list of futures from :meth:`map_persist` (or None); ``partitions``: a subset of
        partition numbers."""
        idx = list(range(self.n_partitions)) if partitions is None else list(partitions)
        futs = self._submit_all(
            _float_then, [self._parts[p] for p in idx],
            [(func, None if states is None else states[p]) + args for p in idx])
        out = self.client.gather(futs)
        del futs
        return out


def _checked_then(part, func, *args):
    return func(_checked_part(part), *args)


def _float_then(part, func, state, *args):
    return func(float_part(part), state, *args)
