"""Array conversion helpers kept for old RLScore scripts.

Thin wrappers around :mod:`rlscore._validation`, which implements the package-wide
conventions for labels and index lists.
"""

import scipy.sparse as sp

from rlscore._validation import as_2d_labels, as_index_array

__all__ = ["as_2d_array", "as_index_list"]


def as_2d_array(A, name="A"):
    """Return ``A`` as a 2-D float64 ndarray; a 1-D input becomes one column.

    Accepts lists, ndarrays, ``numpy.matrix`` and scipy sparse matrices or arrays
    (densified).

    Parameters
    ----------
    A : array-like or sparse matrix, at most 2-D
    name : str
        Name used in error messages.

    Returns
    -------
    numpy.ndarray, float64, shape (m, p)

    Raises
    ------
    ValueError
        Non-numeric (bool included) data, NaN or infinity, or more than 2 dimensions.

    Notes
    -----
    Complexity: O(m·p).
    """
    if sp.issparse(A):
        A = A.toarray()
    return as_2d_labels(A, name=name)


def as_index_list(indices, maxind, name="indices", unique=False):
    """Validate a list of row indices against ``maxind`` rows.

    Parameters
    ----------
    indices : array-like of int, 1-D
    maxind : int
        Number of rows; valid indices are 0 … maxind−1.
    name : str
        Name used in error messages.
    unique : bool, default False
        Also reject repeated indices (as ``holdout`` does).

    Returns
    -------
    numpy.ndarray of intp

    Raises
    ------
    ValueError
        Not 1-D, empty, or non-integral values.
    IndexError
        An index < 0 or >= maxind, or (with ``unique``) a repeated index.

    Notes
    -----
    Complexity: O(k log k) for k indices.
    """
    return as_index_array(indices, maxind, name=name, unique=unique)
