"""Harrell's comparability graph of right-censored outcomes as an O(m) operator.

Risk scores are "higher risk = earlier event". The graph has an edge (i, j), i the
preferred (higher-risk) end, for every comparable pair of Harrell's C: i an observed
event and t_i < t_j, or t_i == t_j and j censored (the pairs scored by
:func:`rlscore.measure.concordance_index_censored`). It is a simple graph (never both
(i, j) and (j, i)) with up to m^2 / 2 edges, so it is never listed: in the time order,
every neighbourhood is a union of a prefix, a suffix and part of a block of tied times.

For a row k in the group of tied times [g_s, g_e) of the time order:

* out-neighbours (k an event): every row after the group, and the censored rows of
  its group;
* in-neighbours: every event before the group, and (k censored) the events of its
  group.

So the degrees, L v = D v - A v and the pair targets b come from prefix and suffix sums
over the groups: O(m k) for an (m, k) v after one O(m log m) sort.
"""

import numpy as np

from rlscore._validation import check_survival

__all__ = ["ComparabilityGraph"]


def _exclusive_cumsum(a):
    out = np.zeros_like(a)
    np.cumsum(a[:-1], axis=0, out=out[1:])
    return out


class ComparabilityGraph:
    """The comparability graph of right-censored outcomes (higher risk = earlier event).

    Parameters
    ----------
    event : (m,) bool or 0/1, True for an observed event.
    time : (m,) float >= 0.

    Attributes
    ----------
    m : int
    n_edges : int, the number of comparable pairs.
    order : (m,) intp, the rows sorted by time (stable).
    degree, out_degree, in_degree : (m,) int64 per row (input order).

    Notes
    -----
    Construction O(m log m) (one stable sort), O(m) memory; :meth:`apply` O(m k).
    """

    def __init__(self, event, time):
        event, time = check_survival(event, time)
        m = time.size
        if m == 0:
            raise ValueError("event and time are empty: give at least one row")
        self.m = m
        self.event = event
        self.time = time
        order = np.argsort(time, kind="stable")
        ts, es = time[order], event[order]
        new = np.ones(m, dtype=bool)
        new[1:] = ts[1:] != ts[:-1]
        self.order = order
        self._es = es
        self._starts = np.flatnonzero(new)
        self._gid = np.cumsum(new) - 1
        ends = np.r_[self._starts[1:], m]
        ne = np.add.reduceat(es.astype(np.int64), self._starts)
        nc = (ends - self._starts) - ne
        gid = self._gid
        ev_before = _exclusive_cumsum(ne)                    # events before each group
        out_deg = np.where(es, (m - ends)[gid] + nc[gid], 0)
        in_deg = ev_before[gid] + np.where(es, 0, ne[gid])
        self.out_degree = np.empty(m, dtype=np.int64)
        self.in_degree = np.empty(m, dtype=np.int64)
        self.out_degree[order] = out_deg
        self.in_degree[order] = in_deg
        self.degree = self.out_degree + self.in_degree
        self.n_edges = int(out_deg.sum())

    def _group_sums(self, Vs):
        """Per group: sums over its events and its censored rows; exclusive prefix of
        the event sums; exclusive suffix of all sums. Vs (m, k) in time order."""
        es = self._es[:, None]
        ev = np.add.reduceat(Vs * es, self._starts, axis=0)
        ce = np.add.reduceat(Vs * ~es, self._starts, axis=0)
        allg = ev + ce
        suffix = _exclusive_cumsum(allg[::-1])[::-1]
        return ev, ce, _exclusive_cumsum(ev), suffix

    def neighbour_sums(self, V):
        """(out, in): the sums of the rows of V over every row's out- and
        in-neighbours, each (m, k) (or (m,) for a 1-D V). O(m k)."""
        V = np.asarray(V, dtype=np.float64)
        flat = V.ndim == 1
        Vs = V.reshape(self.m, -1)[self.order]
        out = np.zeros_like(Vs)
        inn = np.zeros_like(Vs)
        ev, ce, ev_pre, suffix = self._group_sums(Vs)
        gid, es = self._gid, self._es[:, None]
        out[self.order] = np.where(es, suffix[gid] + ce[gid], 0.0)
        inn[self.order] = ev_pre[gid] + np.where(es, 0.0, ev[gid])
        if flat:
            return out[:, 0], inn[:, 0]
        return out, inn

    def apply(self, V):
        """L V for the graph Laplacian L = D - A, V (m,) or (m, k). O(m k) (no pair
        list)."""
        V = np.asarray(V, dtype=np.float64)
        out, inn = self.neighbour_sums(V)
        deg = self.degree.reshape((-1,) + (1,) * (V.ndim - 1))
        return deg * V - out - inn

    def targets(self, magnitudes=False):
        """b = sum over edges (i, j) of z_ij (e_i - e_j), (m,): with unit magnitudes
        (z = 1) the out-degree minus the in-degree, with ``magnitudes=True`` (z = t_j -
        t_i >= 0, the time by which i's event precedes j's time) b = -L t. O(m)."""
        if magnitudes:
            return -self.apply(self.time)
        return (self.out_degree - self.in_degree).astype(np.float64)

    def subgraph(self, rows):
        """The comparability graph of the given rows (their outcomes alone): the
        training graph of a fold whose other rows are held out with their edges."""
        return ComparabilityGraph(self.event[rows], self.time[rows])
