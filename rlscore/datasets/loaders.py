"""Loaders for the data shipped with the package and for user-provided LETOR files."""

from importlib import resources

import numpy as np

from rlscore.utilities.reader import read_svmlight

__all__ = ["load_heart", "load_letor", "data_file"]


def data_file(name):
    """Return a :class:`importlib.resources.abc.Traversable` for a shipped data file.

    Works from the source tree, an editable install and an installed wheel.

    Parameters
    ----------
    name : str
        File name inside ``rlscore/datasets/data`` (e.g. ``"heart_scale.txt"``).

    Returns
    -------
    importlib.resources.abc.Traversable
        Open it with ``.open("r", encoding="utf-8")`` or read it with ``.read_text()``.
    """
    return resources.files("rlscore.datasets").joinpath("data", name)


def load_heart():
    """Load the Statlog (Heart) data set, LIBSVM-scaled (shipped with the package).

    270 patients, 13 features linearly scaled to [−1, 1], label +1 (heart disease
    present, 120 examples) or −1 (150 examples). Small enough for exhaustive
    leave-pair-out cross-validation (120·150 = 18 000 positive–negative pairs).

    Source: the ``heart_scale`` file of LIBSVM/LIBLINEAR (C.-C. Chang and C.-J. Lin),
    from the UCI Machine Learning Repository's Statlog (Heart) data; redistributed under
    the LIBLINEAR BSD-style notice, see ``rlscore/datasets/data/README.md``.

    Returns
    -------
    X : numpy.ndarray, float64, shape (270, 13)
    y : numpy.ndarray, float64, shape (270,)
        +1 or −1.

    Notes
    -----
    Complexity: parses a 27 kB file, O(270·13).
    """
    with data_file("heart_scale.txt").open("r", encoding="utf-8") as fh:
        X, Y, _ = read_svmlight(fh, fdim=13)
    return X.toarray(), Y[:, 0].copy()


def load_letor(path, fdim=None, dense=True):
    """Load one LETOR fold file (svmlight format with ``qid:``) from a local path.

    Nothing is downloaded: obtain the LETOR files yourself (their licence requires
    accepting Microsoft's agreement) and pass the path of e.g. ``Fold1/train.txt`` or
    ``S1.txt``. Comments after ``#`` (docid, inc, prob) are ignored.

    Parameters
    ----------
    path : str, path-like or file object
        The fold file (``.gz``/``.bz2``/``.xz`` names are decompressed).
    fdim : int, optional
        Number of features (46 for LETOR 4.0 MQ2007/MQ2008). Pass it so that files in
        which the last feature is always zero still get every column, and so that
        train and test matrices align.
    dense : bool, default True
        Return ``X`` as a dense ndarray (LETOR features are dense); else a CSR matrix.

    Returns
    -------
    X : numpy.ndarray or scipy.sparse.csr_matrix, float64, shape (n, d)
    y : numpy.ndarray, float64, shape (n,)
        Graded relevance labels.
    qids : numpy.ndarray of str, shape (n,)
        The query id of each row, as in the file.

    Raises
    ------
    ValueError
        If the file has no ``qid:`` fields, more than one label per line, or is
        malformed (see :func:`rlscore.utilities.reader.read_svmlight`).

    Notes
    -----
    Complexity: O(file size); a 2 MB MQ2008 fold parses in a fraction of a second.
    """
    X, Y, qids = read_svmlight(path, fdim=fdim)
    if qids is None:
        raise ValueError(f"{path}: not a LETOR file (the examples have no qid: field)")
    if Y.shape[1] != 1:
        raise ValueError(f"{path}: expected one relevance label per line, got "
                         f"{Y.shape[1]}")
    if dense:
        X = X.toarray()
    return X, Y[:, 0].copy(), np.asarray(qids, dtype=str)
