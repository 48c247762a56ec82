"""Files of indices and ids, one record per line: cross-validation folds
(:func:`read_folds`), query ids (:func:`read_qids`), preference pairs
(:func:`read_preferences`) and integer tables (:func:`loadtxtint`). Public home:
:mod:`rlscore.utilities.reader`.
"""

import os

import numpy as np

from rlscore.utilities._text_files import open_text, source_name

__all__ = ["read_folds", "read_qids", "read_preferences", "loadtxtint"]


def read_folds(fname):
    """Read cross-validation folds, one fold of row indices per line.

    Example: the lines ``0 3 4 8``, ``1 5 9 10`` and ``2 6 7`` give
    ``[[0, 3, 4, 8], [1, 5, 9, 10], [2, 6, 7]]``.

    Parameters
    ----------
    fname : str, path-like or file object
        The file. Indices are whitespace-separated non-negative integers; text after
        ``#`` is ignored, and a line whose first non-blank character is ``#`` is a
        comment line and skipped. A blank line yields an **empty fold** (as upstream).

    Returns
    -------
    folds : list of list of int

    Raises
    ------
    ValueError
        With the line number, for a non-integer or negative index, or an index repeated
        within one line.

    Notes
    -----
    Upstream also turned comment-only lines into empty folds; here they are skipped.
    Complexity: O(file size).
    """
    src = source_name(fname)
    folds = []
    with open_text(fname) as fh:
        for lineno, line in enumerate(fh, 1):
            stripped = line.strip()
            if stripped.startswith("#"):
                continue
            cut = stripped.find("#")
            if cut >= 0:
                stripped = stripped[:cut]
            fold = []
            seen = set()
            for tok in stripped.split():
                try:
                    idx = int(tok)
                except ValueError:
                    raise ValueError(f"{src}, line {lineno}: malformed index {tok!r}") \
                        from None
                if idx < 0:
                    raise ValueError(f"{src}, line {lineno}: negative index {idx}")
                if idx in seen:
                    raise ValueError(f"{src}, line {lineno}: index {idx} is repeated")
                seen.add(idx)
                fold.append(idx)
            folds.append(fold)
    return folds


def read_qids(fname):
    """Read query ids, one per line.

    Parameters
    ----------
    fname : str, path-like or file object
        The file. Each line is stripped; trailing blank lines are ignored.

    Returns
    -------
    qids : list of str

    Raises
    ------
    ValueError
        If a blank line precedes a non-blank one (an empty id), or if every id is unique
        (all queries would be singletons, which carry no ranking information), including
        an empty file.

    Notes
    -----
    Complexity: O(file size).
    """
    src = source_name(fname)
    with open_text(fname) as fh:
        qids = [line.strip() for line in fh]
    while qids and not qids[-1]:
        qids.pop()
    for lineno, q in enumerate(qids, 1):
        if not q:
            raise ValueError(f"{src}, line {lineno}: empty query id")
    if len(qids) == len(set(qids)):
        raise ValueError(f"{src}: every query consists of a single example")
    return qids


def read_preferences(fname):
    """Read pairwise preferences: one pair ``i j`` per line, meaning i is preferred to j.

    Parameters
    ----------
    fname : str, path-like or file object
        Whitespace-separated numbers in two columns (``numpy.loadtxt`` format; ``#``
        starts a comment).

    Returns
    -------
    pairs : numpy.ndarray, float64, shape (n, 2)

    Raises
    ------
    ValueError
        If the file does not have exactly two columns.

    Notes
    -----
    Complexity: O(file size).
    """
    src = source_name(fname)
    if not isinstance(fname, (str, bytes, os.PathLike)):
        with open_text(fname) as fh:
            data = np.loadtxt(fh, dtype=np.float64, ndmin=2)
    else:
        data = np.loadtxt(os.fsdecode(fname), dtype=np.float64, ndmin=2)
    if data.ndim != 2 or data.shape[1] != 2 or data.shape[0] == 0:
        raise ValueError(f"{src}: a preferences file must have two columns (preferred "
                         f"index, other index), one pair per line; got shape {data.shape}")
    return data


def loadtxtint(fname):
    """``numpy.loadtxt(fname, dtype=int)``.

    Parameters
    ----------
    fname : str, path-like or file object

    Returns
    -------
    numpy.ndarray of int

    Notes
    -----
    Complexity: O(file size).
    """
    return np.loadtxt(fname, dtype=int)
