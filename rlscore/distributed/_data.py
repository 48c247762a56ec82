"""Partitioned data on a Dask cluster: one task per partition and pass, results reduced
on the client in partition order."""

import warnings

import dask
import dask.array as da
from dask.delayed import Delayed
import numpy as np
from distributed import get_client

from rlscore._validation import as_2d_labels, as_data_matrix
from rlscore.core.structure import QueryGroups

__all__ = ["PartitionedData", "query_chunks", "split_queries",
           "ordered_sum", "RegroupWarning"]


class RegroupWarning(UserWarning):
    """Queries spanning partitions were regrouped (the rows moved once) so that every
    partition holds whole queries."""


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
    """The partition with X as float64, unchecked: only for a pass over data that an
    earlier pass of the same :class:`PartitionedData` checked with
    :func:`_checked_part` (:meth:`PartitionedData.map_submit` sees to that). O(m d)
    when X is not float64 already."""
    X, Y, q = part
    X = _aligned_float64(X)
    if Y is not None:
        Y = np.asarray(Y, dtype=np.float64)
        Y = Y.reshape(Y.shape[0], Y.shape[1] if Y.ndim == 2 else 1)
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


def split_queries(unique_qids):
    """Whether some query id occurs in more than one partition (``unique_qids``: per
    partition its distinct ids). O(n log n) for n ids in all."""
    try:
        _check_whole_queries(unique_qids)
    except ValueError:
        return True
    return False


def _check_whole_queries(unique_qids):
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


def _unique(q):
    return np.unique(np.asarray(q).ravel())


def _first_split(unique_qids):
    """The message of :func:`_check_whole_queries`, or None when no query is split."""
    try:
        _check_whole_queries(unique_qids)
    except ValueError as exc:
        return str(exc).split(":")[0]
    return None


def _regroup_message(what, n, sizes):
    return (f"{what}: the rows were regrouped by query id (rows of a query moved "
            f"together, the data moved once) into {n} partitions of whole queries "
            f"({min(sizes)} to {max(sizes)} rows) kept in the workers' memory")


def _regroup_arrays(client, X, Y, q, n_parts):
    """X, Y, q sorted by query (stable: a query's rows keep their order), chunked into
    ``n_parts`` balanced partitions of whole queries, persisted. The query ids come to
    the client (8 m bytes); O(m log m) there, the rows move once."""
    qv = np.asarray(q.compute()).ravel()
    groups = QueryGroups.from_qids(qv, name="qids")
    order = groups.order
    chunks = query_chunks(groups.codes[order], n_parts)

    def take(A):
        if A is None:
            return None
        A = A[order]
        return A.rechunk((chunks,) + ((-1,) if A.ndim == 2 else ()))
    X, Y, q = take(X), take(Y), take(q)
    X, Y, q = _persist_all(client, X, Y, q)
    return X, Y, q, chunks


def _persist_all(client, *arrays):
    present = [a for a in arrays if a is not None]
    done = iter(client.persist(present))
    return tuple(None if a is None else next(done) for a in arrays)


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
        Queries spanning partitions are regrouped (see ``regroup``).
    client : distributed.Client, default the current client (``get_client()``).
    persist : bool, default False
        False: each pass computes every partition from its source (data out of core:
        memory holds one partition per worker thread). True: the checked float64
        partitions are kept in the workers' memory after the first pass.
    regroup : bool, default True
        When a query's rows lie in several partitions: sort the rows by query id (a
        stable sort, done once: the ids come to the client, 8 m bytes, and the rows
        move once), cut them into as many balanced partitions of whole queries
        (:func:`query_chunks`), keep them in the workers' memory and emit a
        :class:`RegroupWarning` saying so. False keeps the partitions as they are: the
        ranking learners then count the pairs across partitions (the global scheme
        of :class:`rlscore.distributed.LinearRankSVM`) and the learners that need
        whole queries raise.

    Notes
    -----
    A pass costs one task per partition; the results come back to the client, which
    sums them in partition order.
    """

    def __init__(self, X, Y=None, qids=None, client=None, persist=False, regroup=True,
                 _parts=None, _keep=None):
        self.client = get_client() if client is None else client
        self._keep = _keep        # persisted (regrouped) collections the parts read
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
            if qd is not None and regroup and len(rows) > 1:
                uq = self.client.gather(self.client.compute(
                    [dask.delayed(_unique, pure=True)(b) for b in qd.to_delayed()]))
                split = _first_split(uq)
                if split is not None:
                    X, Yd, qd, rows = _regroup_arrays(self.client, X, Yd, qd, len(rows))
                    self._keep = (X, Yd, qd)
                    warnings.warn(_regroup_message(split, len(rows), rows),
                                  RegroupWarning, stacklevel=2)
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
        # whether a pass has checked every partition (NaN/inf, shapes) already: the
        # first pass over unpersisted data checks, whichever method makes it
        self._verified = self._checked

    @classmethod
    def from_dataframe(cls, df, label=None, qid=None, features=None, client=None,
                       persist=False, regroup=True):
        """Partitions of a dask dataframe: ``features`` (default every column but
        ``label`` and ``qid``) form X, column ``label`` Y, column ``qid`` the query ids.

        A query spread over several partitions (a dataframe read from Parquet is
        rarely partitioned by query) is regrouped when ``regroup`` (default): the frame
        is sorted by ``qid`` with Dask's distributed sort (``sort_values``: quantile
        divisions of the ids, so the partitions stay balanced and a query is never
        cut), kept in the workers' memory, and a :class:`RegroupWarning` says so.
        Checking costs one pass over the ``qid`` column."""
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
        client = get_client() if client is None else client
        if qid is not None and regroup and df.npartitions > 1:
            uq = client.gather(client.compute(
                [dask.delayed(_unique, pure=True)(p) for p in df[qid].to_delayed()]))
            split = _first_split(uq)
            if split is not None:
                n = df.npartitions
                df = client.persist(df.sort_values(qid, npartitions=n))
                sizes = client.gather(client.compute(
                    [dask.delayed(len)(p) for p in df.to_delayed()]))
                uq = client.gather(client.compute(
                    [dask.delayed(_unique, pure=True)(p) for p in df[qid].to_delayed()]))
                _check_whole_queries(uq)
                warnings.warn(_regroup_message(split, df.npartitions, sizes),
                              RegroupWarning, stacklevel=2)
        parts = [dask.delayed(_dataframe_part, pure=True)(p, tuple(features), label, qid)
                 for p in df.to_delayed()]
        return cls(None, None if label is None else True, None if qid is None else True,
                   client=client, persist=persist, _parts=parts, _keep=df)

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
        self._verified = True
        return self._submit_all(_checked_then, self._parts,
                                [(func,) + args] * self.n_partitions)

    def map_submit(self, func, states=None, *args, per_part=None, partitions=None):
        """Futures of ``func(part, state_p, *args, *per_part[k])`` per partition, left
        on the workers (``part`` with X as float64). ``states``: a list of futures from
        :meth:`map_persist` (or None); ``per_part``: per partition a tuple of extra
        arguments (e.g. its slice of a vector); ``partitions``: a subset of partition
        numbers (``per_part`` then follows it).

        The first pass over unpersisted data (every partition, before any
        :meth:`map_persist`) checks the partitions like :meth:`map_persist` does: data
        holding NaN or infinity (X or Y) raise ValueError when its results are
        gathered. Later passes convert only."""
        idx = list(range(self.n_partitions)) if partitions is None else list(partitions)
        wrap = _float_then
        if not self._verified:
            wrap = _checked_float_then
            if partitions is None:
                self._verified = True
        extra = [()] * len(idx) if per_part is None else [tuple(a) for a in per_part]
        if len(extra) != len(idx):
            raise ValueError(f"per_part has {len(extra)} entries for {len(idx)} "
                             f"partitions")
        return self._submit_all(
            wrap, [self._parts[p] for p in idx],
            [(func, None if states is None else states[p]) + args + extra[k]
             for k, p in enumerate(idx)])

    def map_gather(self, func, states=None, *args, per_part=None, partitions=None):
        """``[func(part, state_p, *args, *per_part[k]) for each partition]`` computed
        on the cluster and gathered in partition order (see :meth:`map_submit`)."""
        futs = self.map_submit(func, states, *args, per_part=per_part,
                               partitions=partitions)
        out = self.client.gather(futs)
        del futs
        return out


def _checked_then(part, func, *args):
    return func(_checked_part(part), *args)


def _float_then(part, func, state, *args):
    return func(float_part(part), state, *args)


def _checked_float_then(part, func, state, *args):
    return func(_checked_part(part), state, *args)
