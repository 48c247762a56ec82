"""Long tables of pairs -- one row (drug_id, target_id, value) per measured pair, the
format DeepPurpose, TDC and most affinity databases hand out -- to the index pairs and
object lists that rlscore's pairwise faces take, and back."""

import dataclasses

import numpy as np

from rlscore.core.structure import pairs_to_flat

__all__ = ["PairTable", "pair_table"]


def _ids(values, name):
    a = np.asarray(values)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one id per row (1-D), got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinity (a missing id)")
    if a.dtype.kind == "O" and any(v is None for v in a):
        raise ValueError(f"{name} contains None (a missing id)")
    return a


def _positions(ids, objects, name, objects_name):
    """Position of each id in ``objects`` (ValueError naming the first unknown id).
    O((n + len(ids)) log n)."""
    order = np.argsort(objects, kind="stable")
    srt = objects[order]
    pos = np.searchsorted(srt, ids)
    pos = np.minimum(pos, srt.size - 1)
    bad = srt[pos] != ids
    if np.any(bad):
        raise ValueError(f"{name} holds the id {ids[np.argmax(bad)]!r}, which is not "
                         f"among {objects_name}")
    return order[pos].astype(np.int64)


def _objects(ids, given, name, sort):
    if given is None:
        if sort:
            return np.unique(ids)
        _, first = np.unique(ids, return_index=True)
        return ids[np.sort(first)]
    objs = _ids(given, name)
    if np.unique(objs).size != objs.size:
        raise ValueError(f"{name} lists an id twice")
    return objs


@dataclasses.dataclass(frozen=True)
class PairTable:
    """Labelled pairs indexed into two object lists.

    Attributes
    ----------
    objects1, objects2 : ndarray
        The ids of the domain-1 (e.g. drugs) and domain-2 (e.g. targets) objects; row
        ``i`` of your domain-1 feature or kernel matrix must describe ``objects1[i]``.
    rows, cols : ndarray of int64
        Pair k is (objects1[rows[k]], objects2[cols[k]]).
    values : ndarray of float64 or None
        The label of each pair.
    """

    objects1: np.ndarray
    objects2: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    values: object = None

    @property
    def shape(self):
        """(n1, n2), the size of the full label matrix."""
        return (self.objects1.size, self.objects2.size)

    @property
    def pairs(self):
        """(n_pairs, 2) index array: the ``X`` of :class:`rlscore.estimators.PairwiseRLS`
        (objects given as ``X1``/``X2`` in the order of ``objects1``/``objects2``)."""
        return np.column_stack([self.rows, self.cols])

    def learner_args(self):
        """The keywords of :class:`rlscore.learner.CGKronRLS` / ``KronSVM`` for these
        pairs: ``Y``, ``label_row_inds`` and ``label_col_inds``."""
        return {"Y": self._values(None), "label_row_inds": self.rows,
                "label_col_inds": self.cols}

    def _values(self, values):
        v = self.values if values is None else np.asarray(values, dtype=np.float64)
        if v is None:
            raise ValueError("this table has no values; pass values")
        if v.shape != self.rows.shape:
            raise ValueError(f"values must hold one value per pair ({self.rows.size}), "
                             f"got shape {v.shape}")
        return v

    def matrix(self, values=None, fill=np.nan):
        """The n1 x n2 label matrix (``fill`` where no pair is measured), as
        :class:`rlscore.learner.KronRLS` takes complete data (``Y.ravel(order="F")``)
        and the NaN-marked form of incomplete data. ValueError if a pair occurs twice
        (average repeated measurements first). O(n1 n2)."""
        v = self._values(values)
        flat = pairs_to_flat(self.rows, self.cols, self.shape, order="C")
        if np.unique(flat).size != flat.size:
            k = flat.size - np.unique(flat).size
            raise ValueError(f"{k} pairs occur more than once; a matrix holds one value "
                             f"per pair (average the repeats first)")
        M = np.full(self.shape, fill, dtype=np.float64)
        M.ravel()[flat] = v
        return M

    def table(self, values=None):
        """Back to the long form: (ids1, ids2, values) of every pair, e.g. the
        predictions of a model for these pairs. O(n_pairs)."""
        return self.objects1[self.rows], self.objects2[self.cols], self._values(values)

    def index(self, ids1, ids2):
        """(n, 2) index pairs of new pairs of known objects (test pairs), for
        ``predict``. ValueError naming an id not among the objects."""
        a, b = _ids(ids1, "ids1"), _ids(ids2, "ids2")
        if a.size != b.size:
            raise ValueError(f"ids1 and ids2 differ in length ({a.size} vs {b.size})")
        return np.column_stack([_positions(a, self.objects1, "ids1", "objects1"),
                                _positions(b, self.objects2, "ids2", "objects2")])


def pair_table(ids1, ids2, values=None, *, objects1=None, objects2=None, sort=True):
    """Index a long table of pairs: one row per measured pair (id of the domain-1
    object, id of the domain-2 object, value).

    Parameters
    ----------
    ids1, ids2 : array-like (n_pairs,)
        The ids of each pair's objects (strings or integers), e.g. a data frame's
        ``Drug_ID`` and ``Target_ID`` columns.
    values : array-like (n_pairs,) or None
        The label of each pair (finite numbers).
    objects1, objects2 : array-like or None
        The object lists, in the order of your feature or kernel matrices (every id of
        ``ids1`` / ``ids2`` must be among them; objects without a labelled pair are
        allowed, e.g. the test drugs). Default: the ids that occur.
    sort : bool, default True
        Order of the default object lists: sorted ids, or the order of first
        appearance (False).

    Returns
    -------
    PairTable
        ``.pairs`` for the estimators, ``.learner_args()`` for the learners,
        ``.matrix()`` for complete or NaN-marked data, ``.table(predictions)`` back to
        the long form, ``.index(ids1, ids2)`` for test pairs.

    Notes
    -----
    O(n_pairs log n) time. Repeated pairs are kept (the iterative pairwise learners
    accept them); :meth:`PairTable.matrix` refuses them.

    Examples
    --------
    >>> t = pair_table(["d2", "d1", "d2"], ["P1", "P1", "Q9"], [5.0, 7.2, 6.1])
    >>> t.objects1.tolist(), t.objects2.tolist()
    (['d1', 'd2'], ['P1', 'Q9'])
    >>> t.pairs.tolist()
    [[1, 0], [0, 0], [1, 1]]
    >>> t.matrix()
    array([[7.2, nan],
           [5. , 6.1]])
    """
    a, b = _ids(ids1, "ids1"), _ids(ids2, "ids2")
    if a.size != b.size:
        raise ValueError(f"ids1 and ids2 differ in length ({a.size} vs {b.size})")
    o1 = _objects(a, objects1, "objects1", sort)
    o2 = _objects(b, objects2, "objects2", sort)
    v = None
    if values is not None:
        v = np.asarray(values, dtype=np.float64)
        if v.shape != a.shape:
            raise ValueError(f"values must hold one value per pair ({a.size}), got "
                             f"shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"values holds NaN or infinity at row "
                             f"{int(np.argmax(~np.isfinite(v)))}")
    return PairTable(o1, o2, _positions(a, o1, "ids1", "objects1"),
                     _positions(b, o2, "ids2", "objects2"), v)
