"""One-vs-all encoding of multiclass labels."""

import numpy as np
import scipy.sparse as sp

__all__ = ["to_one_vs_all", "from_one_vs_all"]


def to_one_vs_all(Y, startzero=True):
    """Encode class labels as an n×C matrix of −1 with +1 in the label's column.

    Parameters
    ----------
    Y : array-like of int, shape (n,) or (n, 1)
        Class labels in 0 … C−1 (``startzero=True``) or 1 … C (``startzero=False``).
        Floats are accepted when they are integral.
    startzero : bool, default True
        Whether the first class is 0 (else 1).

    Returns
    -------
    Y_ova : numpy.ndarray, float64, shape (n, C)
        C = the largest (shifted) label + 1, so classes that never occur still get a
        column when a larger label is present.

    Raises
    ------
    ValueError
        Empty, non-1-D, non-numeric or non-integral labels, or a label below the first
        class.

    Notes
    -----
    Complexity: O(n·C).
    """
    arr = np.asarray(Y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"Y must be a 1-D vector of class labels, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("Y is empty")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) \
            or np.iscomplexobj(arr):
        raise ValueError(f"class labels must be integers, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError("class labels must be integral")
    labels = arr.astype(np.intp)
    if not startzero:
        labels = labels - 1
    if labels.min() < 0:
        first = 0 if startzero else 1
        raise ValueError(f"class labels must be >= {first} (startzero={startzero}), "
                         f"got {labels.min() + (0 if startzero else 1)}")
    Y_ova = -np.ones((labels.shape[0], int(labels.max()) + 1), dtype=np.float64)
    Y_ova[np.arange(labels.shape[0]), labels] = 1.0
    return Y_ova


def from_one_vs_all(Y, startzero=True):
    """Decode a one-vs-all matrix (labels or predictions) into class labels.

    Parameters
    ----------
    Y : array-like, shape (n, C)
        One column per class; the row-wise maximum wins (the first on ties).
    startzero : bool, default True
        Return labels 0 … C−1 (True) or 1 … C (False).

    Returns
    -------
    labels : numpy.ndarray of int, shape (n,)

    Raises
    ------
    ValueError
        If ``Y`` is not 2-D (upstream raised numpy's AxisError for 1-D input).

    Notes
    -----
    Complexity: O(n·C).
    """
    if sp.issparse(Y):
        Y = Y.toarray()
    arr = np.asarray(Y)
    if arr.ndim != 2:
        raise ValueError(f"Y must be a 2-D (n, classes) array, got shape {arr.shape}")
    labels = np.argmax(arr, axis=1)
    return labels if startzero else labels + 1
