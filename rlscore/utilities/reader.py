"""Readers and a writer for the text formats used by RLScore.

* :func:`read_svmlight` / :func:`iter_svmlight` / :func:`write_svmlight` -- svmlight /
  LETOR files (``labels [qid:ID] idx:val ... [# comment]``, 1-based feature indices,
  several outputs separated by ``|``).
* :func:`read_csv_data` / :func:`iter_csv_data` / :class:`CsvSource` -- CSV / TSV files
  with a header naming the label, qid, id and feature columns (:class:`CsvLayout`).
* :func:`read_docids` -- the ``#docid = ...`` comments of a LETOR file, one per row.
* :func:`read_sparse` -- feature-only files with 0-based ``idx:val`` pairs.
* :func:`read_folds` -- one cross-validation fold (row indices) per line.
* :func:`read_qids` -- one query id per line.
* :func:`read_preferences` -- pairwise preferences, two indices per line.
* :func:`loadtxtint` -- ``numpy.loadtxt`` with integer dtype.

Every reader accepts a path (``str`` or path-like; names ending in ``.gz``, ``.bz2`` or
``.xz`` are decompressed on the fly) or an open file object (text or binary). Malformed
input raises :class:`ValueError` whose message names the file and the 1-based line
number. (Upstream RLScore raised bare ``Exception``; ``ValueError`` is a subclass, so
``except Exception`` handlers keep working.)

This module is the public home of the readers; each format is implemented in a
private module of one job: ``_svmlight_files`` (the svmlight / LETOR format, around the
compiled parser ``rlscore._ext._svmlight``), ``_csv_files`` (CSV / TSV), ``_sparse_files`` (``read_sparse``),
``_index_files`` (folds, query ids, preferences, integer tables) and ``_text_files``
(opening paths, compressed files and streams).
"""

from rlscore.utilities._csv_files import (CsvLayout, CsvSource, csv_kind, dense_to_csr,
                                          iter_csv_data, read_csv_data)
from rlscore.utilities._index_files import (loadtxtint, read_folds, read_preferences,
                                            read_qids)
from rlscore.utilities._sparse_files import read_sparse
from rlscore.utilities._svmlight_docids import read_docids
from rlscore.utilities._svmlight_files import (SvmlightSource, ZeroIndexError, iter_svmlight,
                                               read_svmlight, write_svmlight)

__all__ = [
    "read_svmlight", "iter_svmlight", "write_svmlight", "read_sparse", "read_folds", "read_qids",
    "read_preferences", "loadtxtint", "ZeroIndexError", "SvmlightSource", "read_docids",
    "CsvLayout", "CsvSource", "csv_kind", "read_csv_data", "iter_csv_data", "dense_to_csr",
]
