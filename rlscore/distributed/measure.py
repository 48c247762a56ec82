"""Ranking measures over partitioned labels and predictions, computed where the rows
live and equal to :mod:`rlscore.measure` on the gathered data.

* :func:`cindex`, :func:`auc` -- exact, over all pairs of rows across partitions,
  without bringing the rows to one place. The rows are bucketed twice by value (the
  predictions into B ranges, the labels into B ranges; boundaries from the pooled
  quantile samples of the partitions, equal values never cut), and every pair with
  different labels falls in exactly one of three classes:

  1. both rows in the same prediction range: counted (concordant, tied) by the
     compiled Fenwick-tree kernel of :mod:`rlscore.measure` on that range's rows;
  2. different prediction ranges, same label range: the order of the two predictions
     is the order of their ranges, so the kernel run on the label range's rows with
     the range *index* as the prediction counts them;
  3. different ranges of both: decided by the two range indices alone, counted from
     the B x B table of range counts with 2-D prefix sums, O(B^2).

  Every row is sent once to its prediction range and once to its label range (at most
  32 bytes per row in all; the label step is skipped when every label range holds a
  single label value, e.g. the two classes of the AUC or a few relevance grades); the
  work is O(m log m) in total, O(m_r log m_r) per range task. A range holding many
  equal predictions (or labels) cannot be cut and is counted in one task.

* :func:`query_cindex`, :func:`query_ndcg`, :func:`query_mean_average_precision` --
  query-averaged measures of query-grouped data: each partition scores its queries
  with the single-machine code and returns (sum of the query scores, number of scored
  queries); O(P) numbers come back. Queries spanning partitions are regrouped first
  (see :class:`rlscore.distributed.PartitionedData`).

Inputs are dask arrays (or array-likes, taken as one partition) Y and P of m rows; P
(and qids) are rechunked to Y's row chunks. One label column.
"""

import warnings

import dask
import dask.array as da
import numpy as np
from distributed import get_client, wait

from rlscore._validation import as_2d_labels
from rlscore.measure import UndefinedPerformance
from rlscore.measure import pair_counts as local_pair_counts
from rlscore.distributed._data import (RegroupWarning, _first_split, _regroup_arrays,
                                       _regroup_message, _rechunk_rows, _unique)

__all__ = ["cindex", "auc", "query_cindex", "query_ndcg",
           "query_mean_average_precision", "pair_counts", "parts_cindex",
           "parts_query_measure"]

_SAMPLE = 512          # order statistics per partition for the range boundaries
_FEW_LABELS = 64       # at most this many label values: one label range per value


# --- per-partition tasks ------------------------------------------------------------

def _column(a, name):
    a = np.asarray(a)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != 1:
        raise ValueError(f"{name} must hold one column (shape (m,) or (m, 1)), got "
                         f"a partition of shape {a.shape}")
    if a.shape[0] == 0:
        return np.zeros(0)
    return as_2d_labels(a, name=name)[:, 0]


def _pack(y, p, q=None):
    y, p = _column(y, "Y"), _column(p, "P")
    if y.shape[0] != p.shape[0]:
        raise UndefinedPerformance(f"Y and P have different lengths in a partition "
                                   f"({y.shape[0]} and {p.shape[0]})")
    return y, p, (None if q is None else np.asarray(q).ravel())


def _samples(v):
    if v.shape[0] == 0:
        return v
    s = np.sort(v)
    return s[np.unique(np.linspace(0, s.shape[0] - 1, min(_SAMPLE, s.shape[0]))
                       .round().astype(np.intp))]


def _summary(part):
    y, p, _ = part
    uy = np.unique(y)
    return dict(m=y.shape[0], ys=_samples(y), ps=_samples(p),
                uy=uy if uy.shape[0] <= _FEW_LABELS else None,
                binary=bool(np.all((y == 1.0) | (y == -1.0))))


def _bucketize(part, pcuts, ycuts, with_y):
    """The partition's rows split by prediction range (y, p) and by label range
    (y, range index of p), and its table of range counts."""
    y, p, _ = part
    rp = np.searchsorted(pcuts, p, side="right")
    ry = np.searchsorted(ycuts, y, side="right")
    bp, by = pcuts.shape[0] + 1, ycuts.shape[0] + 1
    table = np.bincount(rp * by + ry, minlength=bp * by).reshape(bp, by)
    order = np.argsort(rp, kind="stable")
    cut = np.searchsorted(rp[order], np.arange(bp + 1))
    by_p = [(y[order[a:b]], p[order[a:b]]) for a, b in zip(cut[:-1], cut[1:])]
    by_y = None
    if with_y:
        order = np.argsort(ry, kind="stable")
        cut = np.searchsorted(ry[order], np.arange(by + 1))
        by_y = [(y[order[a:b]], rp[order[a:b]].astype(np.float64))
                for a, b in zip(cut[:-1], cut[1:])]
    return table, by_p, by_y


def _table(b):
    return b[0]


def _piece(b, which, r):
    return b[which][r]


def _range_counts(*pieces):
    """(pairs, concordant, tied) over the pairs of rows of the pieces, by the compiled
    counting kernel of :func:`rlscore.measure.pair_counts`. O(n log n)."""
    return local_pair_counts(np.concatenate([a for a, _ in pieces]),
                             np.concatenate([b for _, b in pieces]))


#: The query-averaged measures of :func:`parts_query_measure` (keys of
#: :data:`rlscore.measure.PER_QUERY`); those with a cutoff ``k``.
_QUERY_MEASURES = ("cindex", "ndcg", "map")
_CUTOFF = ("ndcg",)


def _query_cells(part, measure, k):
    """(sum of the per-query scores, number of scored queries) of the partition."""
    from rlscore.core.structure import QueryGroups
    from rlscore.measure import PER_QUERY
    y, p, q = part
    if y.shape[0] == 0:
        return 0.0, 0
    g = QueryGroups.from_qids(q, y.shape[0])
    values = PER_QUERY[measure](y, p, g, **({"k": k} if measure in _CUTOFF else {}))
    valid = ~np.isnan(values)
    return float(values[valid].sum()), int(valid.sum())


# --- client side ----------------------------------------------------------------------

def _cuts(samples, weights, n_ranges):
    """Boundaries of ``n_ranges`` ranges of about equal weight from weighted samples
    (values equal to a boundary go to the range above it)."""
    if n_ranges <= 1 or not samples:
        return np.zeros(0)
    v = np.concatenate(samples)
    w = np.concatenate([np.full(s.shape[0], wt) for s, wt in zip(samples, weights)])
    order = np.argsort(v, kind="stable")
    v, cw = v[order], np.cumsum(w[order])
    targets = cw[-1] * np.arange(1, n_ranges) / n_ranges
    cuts = np.unique(v[np.minimum(np.searchsorted(cw, targets), v.shape[0] - 1)])
    return cuts[cuts > v[0]]


def _as_parts(Y, P, qids, client):
    """Futures of the checked (y, p, q) partitions, kept on the workers."""
    if not isinstance(Y, da.Array):
        Y = np.asarray(Y)
        Y = da.from_array(Y, chunks=(max(Y.shape[0], 1),) + Y.shape[1:])
    rows = Y.chunks[0]
    if any(np.isnan(c) for c in rows):
        Y = Y.compute_chunk_sizes()
        rows = Y.chunks[0]
    Y = Y.rechunk({k: -1 for k in range(1, Y.ndim)})
    if (P.shape[0] if hasattr(P, "shape") else len(P)) != Y.shape[0]:
        raise UndefinedPerformance(f"Y and P have different lengths ({Y.shape[0]} and "
                                   f"{P.shape[0] if hasattr(P, 'shape') else len(P)})")
    Pd = _rechunk_rows(P, rows, "P")
    qd = _rechunk_rows(qids, rows, "qids") if qids is not None else None
    if qd is not None and len(rows) > 1:
        uq = client.gather(client.compute(
            [dask.delayed(_unique, pure=True)(b) for b in qd.to_delayed()]))
        split = _first_split(uq)
        if split is not None:
            YP = da.stack([Y.reshape(-1), Pd.reshape(-1)], axis=1)
            YP, _, qd, rows = _regroup_arrays(client, YP, None, qd, len(rows))
            warnings.warn(_regroup_message(split, len(rows), rows), RegroupWarning,
                          stacklevel=3)
            Y, Pd = YP[:, 0], YP[:, 1]
    yb, pb = Y.to_delayed().ravel(), Pd.to_delayed().ravel()
    qb = [None] * len(yb) if qd is None else qd.to_delayed().ravel()
    parts = client.compute([dask.delayed(_pack, pure=True)(y, p, q)
                            for y, p, q in zip(yb, pb, qb)])
    wait(parts)           # before a regrouped (persisted) source is released
    return parts


def pair_counts(parts, client=None, n_ranges=None):
    """(pairs, concordant, tied) over all pairs of rows with different labels, for
    partitions given as futures of (y, p, q) tuples (q ignored): the merge-based
    counting of the module docstring. Python ints (exact).

    Notes
    -----
    Two passes over the partitions (quantile samples, then the split by range); B =
    ``n_ranges`` (default the number of partitions) range tasks of O(m_r log m_r); 2-D
    prefix sums over the B x B table on the client. At most 32 bytes per row sent.
    """
    client = get_client() if client is None else client
    summ = client.gather([client.submit(_summary, f) for f in parts])
    weights = [s["m"] / max(s["ps"].shape[0], 1) for s in summ]
    B = len(parts) if n_ranges is None else int(n_ranges)
    pcuts = _cuts([s["ps"] for s in summ if s["m"]],
                  [w for w, s in zip(weights, summ) if s["m"]], B)
    if all(s["uy"] is not None for s in summ):
        levels = np.unique(np.concatenate([s["uy"] for s in summ]))
        ycuts, with_y = levels[1:], False        # one label value per range
    else:
        ycuts = _cuts([s["ys"] for s in summ if s["m"]],
                      [w for w, s in zip(weights, summ) if s["m"]], B)
        with_y = True
    bp, by = pcuts.shape[0] + 1, ycuts.shape[0] + 1
    split = [client.submit(_bucketize, f, pcuts, ycuts, with_y) for f in parts]
    table = sum(client.gather([client.submit(_table, b) for b in split])
                ).astype(object)
    tasks = [client.submit(_range_counts, *[client.submit(_piece, b, 1, r) for b in split])
             for r in range(bp)]
    if with_y:
        tasks += [client.submit(_range_counts,
                                *[client.submit(_piece, b, 2, s) for b in split])
                  for s in range(by)]
    res = client.gather(tasks)
    pairs = sum(r[0] for r in res[:bp])
    conc = sum(r[1] for r in res[:bp])
    ties = sum(r[2] for r in res[:bp])
    for n, c, t in res[bp:]:          # same label range, different prediction ranges
        pairs += n - t
        conc += c
    # different ranges of both: D[r, s] = rows with range < r and label range < s
    D = np.zeros((bp + 1, by + 1), dtype=object)
    D[1:, 1:] = table.cumsum(axis=0).cumsum(axis=1)
    conc += int((table * D[:-1, :-1]).sum())
    below = np.zeros((bp, by), dtype=object)               # same r, label range < s
    below[:, 1:] = table.cumsum(axis=1)[:, :-1]
    n_s = table.sum(axis=0)
    under = np.concatenate([[0], np.cumsum(n_s)[:-1]]).astype(object)
    pairs += int((n_s * under).sum()) - int((table * below).sum())
    return int(pairs), int(conc), int(ties)


def parts_cindex(parts, client=None):
    """The c-index of partitions given as futures of (y, p, q) tuples (1-D float64 y,
    p; q ignored), e.g. held-out predictions left on the workers by a cross-validation.
    UndefinedPerformance without pairs. Costs of :func:`pair_counts`."""
    client = get_client() if client is None else client
    pairs, conc, ties = pair_counts(parts, client)
    if pairs == 0:
        raise UndefinedPerformance("cindex is undefined: no pairs with different labels")
    return np.float64((conc + 0.5 * ties) / pairs)


def parts_query_measure(parts, measure="cindex", k=10, client=None):
    """A query-averaged measure ("cindex", "ndcg" or "map") of partitions given as
    futures of (y, p, q) tuples holding whole queries. UndefinedPerformance when no
    query can be scored. O(m_p log m_p) per partition, two numbers sent back each."""
    if measure not in _QUERY_MEASURES:
        raise ValueError(f"measure must be one of {list(_QUERY_MEASURES)}, got {measure!r}")
    return _mean_over_queries(parts, measure, k, get_client() if client is None else client,
                              f"the query-averaged {measure} is undefined: no query can "
                              f"be scored")


def _mean_over_queries(parts, measure, k, client, undefined):
    """The mean of the per-query values over every query of the partitions (each
    partition sends its sum and count); UndefinedPerformance(``undefined``) when no
    query can be scored."""
    out = client.gather([client.submit(_query_cells, f, measure, k) for f in parts])
    total, n = sum(o[0] for o in out), sum(o[1] for o in out)
    if n == 0:
        raise UndefinedPerformance(undefined)
    return np.float64(total / n)


def cindex(Y, P, client=None):
    """Concordance index over all rows of partitioned labels Y and predictions P, equal
    to :func:`rlscore.measure.cindex` on the gathered data (label ties are not pairs,
    prediction ties count 1/2).

    Parameters
    ----------
    Y, P : dask arrays (m,) or (m, 1) (or array-likes); P is rechunked to Y's rows.
    client : distributed.Client, default the current one

    Raises
    ------
    UndefinedPerformance
        No pair (all labels equal), or lengths differ.
    ValueError
        NaN/inf or non-numeric values, more than one column.

    Notes
    -----
    O(m log m) work in total, none of it on one worker for all rows (unless the
    predictions are nearly all equal); 32 bytes per row sent, O(B^2) on the client
    (B = number of partitions). See :func:`pair_counts`.
    """
    client = get_client() if client is None else client
    return parts_cindex(_as_parts(Y, P, None, client), client)


def auc(Y, P, client=None):
    """Area under the ROC curve of labels -1/+1, over all rows of the partitions;
    equal to :func:`rlscore.measure.auc` on the gathered data. Costs as
    :func:`cindex`, without the label step (two label values).

    Raises
    ------
    UndefinedPerformance
        A label other than -1/+1, a single class, or lengths differ.
    """
    client = get_client() if client is None else client
    parts = _as_parts(Y, P, None, client)
    summ = client.gather([client.submit(_summary, f) for f in parts])
    if not all(s["binary"] for s in summ):
        raise UndefinedPerformance("auc accepts only labels -1 and +1")
    if sum(s["m"] for s in summ) == 0:
        raise UndefinedPerformance("auc is undefined for empty input")
    pairs, conc, ties = pair_counts(parts, client)
    if pairs == 0:
        raise UndefinedPerformance("auc is undefined: a column has only one class")
    return np.float64((conc + 0.5 * ties) / pairs)


def _query_measure(Y, P, qids, measure, k, client, what):
    client = get_client() if client is None else client
    if qids is None:
        raise ValueError("qids is required for a query-averaged measure")
    return _mean_over_queries(_as_parts(Y, P, qids, client), measure, k, client, what)


def query_cindex(Y, P, qids, client=None):
    """C-index averaged over queries (:func:`rlscore.measure.query_cindex` on the
    gathered data). Each partition scores its whole queries (O(m_p log m_p)) and sends
    two numbers; queries spanning partitions are regrouped first (a RegroupWarning)."""
    return _query_measure(Y, P, qids, "cindex", None, client,
                          "query_cindex is undefined: no query has a pair")


def query_ndcg(Y, P, qids, k=10, client=None):
    """NDCG@k averaged over queries (:func:`rlscore.measure.query_ndcg` on the gathered
    data); costs as :func:`query_cindex`."""
    return _query_measure(Y, P, qids, "ndcg", k, client,
                          "query_ndcg is undefined: no query has a relevant item")


def query_mean_average_precision(Y, P, qids, client=None):
    """MAP over queries (:func:`rlscore.measure.query_mean_average_precision` on the
    gathered data); costs as :func:`query_cindex`."""
    return _query_measure(Y, P, qids, "map", None, client,
                          "query_mean_average_precision is undefined: no query has a "
                          "relevant item")
