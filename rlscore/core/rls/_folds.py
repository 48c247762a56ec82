"""The lambda-independent parts of a hold-out set, kept between the calls of a
regparam grid: the primal refit without the rows H (:func:`primal_fold_parts`,
:func:`primal_fold_predictions`, chosen by :func:`prefer_primal_fold`), the cache of
those parts per hold-out set (:class:`FoldCache`) and of validated index arrays
(:class:`CheckedRows`)."""

import numpy as np

from rlscore.core.optim import SingularRegparamError, psd_eigh

__all__ = ["prefer_primal_fold", "primal_fold_parts", "primal_fold_predictions",
           "FoldCache", "CheckedRows"]


def prefer_primal_fold(h, d):
    """True when the hold-out of h rows is cheaper as a refit in the d primal
    coordinates than through the h x h block of the hold-out formula.

    Cost model (flops): the refit's set-up, a downdated d x d Gram matrix and its
    eigendecomposition, ~6 d^3 + 2 h d^2 once per hold-out set, then O(h d p) per
    lambda; the block formula ~2 h^2 d + h^3 / 3 per lambda plus a fixed cost of about
    1e6 flops (the dozen array operations of a call, ~0.1 ms). The refit is chosen when
    h > d, or when its set-up costs no more than one call of the block formula (small
    d: the whole regparam grid then costs less)."""
    return h > d or 6 * d ** 3 + 2 * h * d * d <= 2 * h * h * d + h ** 3 / 3 + 1e6


def primal_fold_parts(C, b, Phi_H, N=None):
    """The lambda-independent parts of a primal refit without the rows H: with the
    Gram matrix C = Phi_{-H}^T L Phi_{-H} (d, d) and right-hand side
    b = Phi_{-H}^T L Y_{-H} (d, p) of the remaining rows (L = I for RLS, the centring
    for RankRLS), the held-out features Phi_H (h, d) and optionally the constraint
    directions N (d, k) of basis removal: (s2, V^T b, Phi_H V or None, V^T N or None,
    (Phi_H, V) or None) with C = V diag(s2) V^T.

    The product Phi_H V (O(h d^2)) is formed only for small hold-out sets: when
    h >= d and h > 16 p, Phi_H and V are kept instead (no more memory: d^2 <= h d) and
    each lambda applies them in turn (O((d + h) d p)), cheaper than the product up to
    h / p lambdas -- a K-fold grid with large folds saves an h x d x d product per
    fold. O(d^3 + d^2 k), plus O(h d^2) for small sets."""
    s2, V = psd_eigh(0.5 * (C + C.T))
    VtN = None if N is None or N.shape[1] == 0 else V.T @ N
    h, d = Phi_H.shape
    if h >= d and h > 16 * b.shape[1]:
        return s2, V.T @ b, None, VtN, (Phi_H, V)
    return s2, V.T @ b, np.asarray(Phi_H @ V), VtN, None


def primal_fold_predictions(parts, mu):
    """Predictions (h, p) of the refit at regularization mu from
    :func:`primal_fold_parts`: Phi_H V diag(1/(s2 + mu)) V^T b, or with constraint
    directions the refit under N^T w = 0 (basis removal): with M^{-1} the diagonal
    solve in the eigenvector coordinates, u - M^{-1} N (N^T M^{-1} N)^{-1} N^T u for
    u = M^{-1} b. O(h d p) (O((h + d) d p) when the parts keep Phi_H and V apart),
    plus O(d k (p + k) + k^3) with k constraints."""
    s2, Vtb, PhiV, VtN, apart = parts
    denom = s2 + mu
    if denom[0] <= 0:                     # s2 ascending (psd_eigh)
        raise SingularRegparamError("the hold-out problem is singular (regparam=0 with "
                                    "too few remaining examples)")
    g = (1.0 / denom)[:, None]
    u = g * Vtb
    if VtN is not None:
        v = g * VtN
        u = u - v @ np.linalg.solve(VtN.T @ v, VtN.T @ u)
    if apart is not None:
        Phi_H, V = apart
        return np.asarray(Phi_H @ (V @ u))
    return PhiV @ u


def _nbytes(item):
    """Bytes of the arrays in ``item`` (nested tuples included)."""
    if isinstance(item, tuple):
        return sum(_nbytes(a) for a in item)
    return getattr(item, "nbytes", 0)


class FoldCache:
    """Lambda-independent parts per hold-out set (keyed by its rows and a tag), kept
    between the calls of a regparam grid: at most ``max_bytes`` (oldest entries dropped
    first).

    :meth:`use_primal` decides the form of a hold-out: the primal refit when
    :func:`prefer_primal_fold`, or when the set was asked for before (a regparam grid
    revisits every fold), d <= 2.8 h and its parts fit in the cache: from the second
    lambda on the cached refit costs O(h d p) per lambda against O(h^2 d + h^3) for
    the h x h block.
    """

    def __init__(self, max_bytes=1 << 27, max_seen=1 << 16):
        self.max_bytes = max_bytes
        self.max_seen = max_seen
        self._items = {}
        self._bytes = 0
        self._seen = {}

    @staticmethod
    def _key(H, tag):
        return tag + np.asarray(H, dtype=np.intp).tobytes()

    def use_primal(self, H, d):
        """True when the hold-out of the rows H is computed in the d primal
        coordinates (see the class docstring); records H as seen."""
        if prefer_primal_fold(len(H), d):
            return True
        key = self._key(H, b"")
        if key in self._items:
            return True
        if key in self._seen:
            # a revisit: the refit's set-up (O(d^3 + h d^2)) is worth its O(h d p) per
            # lambda when d <= 2.8 h, where it costs a few calls of the block formula
            # (O(h^2 d + h^3) each) at most
            return (d * d <= 8 * len(H) ** 2
                    and self._bytes + 8 * (d * d + len(H) * d) <= self.max_bytes // 2)
        if len(self._seen) >= self.max_seen:
            self._seen.pop(next(iter(self._seen)))
        self._seen[key] = None
        return False

    def cached(self, indices, tag=b""):
        """The parts of ``indices`` when they are a 1-D intp array whose set is cached
        (validated when it was first computed), else None: a grid's later calls skip
        the checks. O(h)."""
        if (isinstance(indices, np.ndarray) and indices.dtype == np.intp
                and indices.ndim == 1 and self._items):
            return self._items.get(tag + indices.tobytes())
        return None

    def get(self, H, build, tag=b""):
        key = self._key(H, tag)
        item = self._items.get(key)
        if item is None:
            item = build()
            size = _nbytes(item)
            while self._items and self._bytes + size > self.max_bytes:
                old = self._items.pop(next(iter(self._items)))
                self._bytes -= _nbytes(old)
            self._items[key] = item
            self._bytes += size
        return item


class CheckedRows:
    """``check(indices)`` remembered for intp index arrays: a fold asked for again at
    the next lambda of a grid is not checked again (O(h) for the key instead of the
    checks' dozen array passes). Other inputs are checked every time."""

    def __init__(self, check, max_items=4096):
        self.check = check
        self.max_items = max_items
        self._seen = {}

    def __call__(self, indices):
        if not (isinstance(indices, np.ndarray) and indices.dtype == np.intp
                and indices.ndim == 1):
            return self.check(indices)
        key = indices.tobytes()
        out = self._seen.get(key)
        if out is None:
            out = self.check(indices)
            if len(self._seen) < self.max_items:
                self._seen[key] = out
        return out
