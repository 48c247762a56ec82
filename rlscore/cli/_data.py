"""Data files of the command: reading (svmlight/LETOR, ``--zero-based``), the compact
training columns, and the projection of another file onto a model's columns."""

import contextlib
import dataclasses

import numpy as np

from rlscore._blocks import text_chunk_bytes
from rlscore.cli._base import DataError, UsageError

ZERO_BASED_CHOICES = {"auto": "auto", "yes": True, "no": False}


@dataclasses.dataclass
class TrainingData:
    X: object          # CSR, only the used columns
    y: np.ndarray      # (n,) or (n, L)
    qids: object       # list of str or None
    feature_indices: np.ndarray   # column (in the file's indexing) of each kept column
    n_file_features: int
    zero_based: bool   # how the file's indices were read
    groups: object = None         # QueryGroups of qids, or None
    table: object = None          # TableInput of a CSV/TSV file, None for svmlight


def _check_finite(path, X, Y):
    from rlscore._validation import check_no_overflow
    if not np.all(np.isfinite(X.data)) or not np.all(np.isfinite(Y)):
        raise DataError(f"{path}: the file contains NaN or infinite values")
    check_no_overflow(X, name=str(path))


@contextlib.contextmanager
def _file_errors(path, for_model=False):
    """The failures of a damaged file as one-line DataErrors naming it: not text, a
    corrupt or truncated .gz/.bz2/.xz file, or a 0-based file read with
    ``--zero-based no`` (the message names the option, not the Python keyword)."""
    import lzma
    import zlib
    from rlscore.utilities.reader import ZeroIndexError
    try:
        yield
    except ZeroIndexError as exc:
        if for_model:
            raise DataError(f"{exc.location}: feature index 0, but the training file "
                            f"was read 1-based and the model reads its data files the "
                            f"same way; use files of one index base (fit --zero-based "
                            f"yes or auto for 0-based files)") from None
        raise DataError(f"{exc.location}: feature index 0 in a file read as 1-based "
                        f"(--zero-based no); the file is 0-based: use --zero-based yes "
                        f"or auto") from None
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a text file in svmlight format") from None
    except (EOFError, zlib.error, lzma.LZMAError) as exc:
        raise DataError(f"{path}: corrupt or truncated compressed file ({exc})") from None
    except OSError as exc:
        if exc.filename is not None or isinstance(exc, (FileNotFoundError,
                                                        PermissionError)):
            raise
        # gzip.BadGzipFile, bz2 "Invalid data stream": damaged content, not a path
        raise DataError(f"{path}: corrupt or truncated compressed file ({exc})") from None


@dataclasses.dataclass
class TableInput:
    """How a CSV/TSV data file of the command is read (``--input-format``, the column
    options), and, once a file is read, its feature columns. Stored in a model file
    (:meth:`to_info`) so that ``predict`` and ``evaluate`` map their file's columns by
    name."""
    layout: object                 # rlscore.utilities.reader.CsvLayout
    kind: str                      # "csv" or "tsv"
    feature_names: list = None
    qid_column: str = None         # the qid column found in the file, if any

    def for_model_file(self, labelled=True, id_column=None):
        """The input of another file read the way this (training) file was: its
        feature columns by name, the same label and qid columns. O(1)."""
        lay = dataclasses.replace(
            self.layout, feature_columns=tuple(self.feature_names), auto_qid=False,
            qid_column=self.qid_column if labelled else None, id_column=id_column,
            label_columns=self.layout.label_columns if labelled else None)
        return TableInput(lay, self.kind, list(self.feature_names), lay.qid_column)

    def to_info(self):
        lay = self.layout
        return {"format": self.kind, "header": bool(lay.header),
                "label_columns": list(lay.label_columns or ()),
                "qid_column": self.qid_column, "feature_names": list(self.feature_names)}


def read_table(path, table, chunked=False):
    """(X CSR without zeros, y, qids, ids, feature names) of a CSV/TSV file, whole or
    (``chunked``) as an iterator of such tuples, one per chunk of lines; DataError
    naming the line and column for bad fields. O(file size); memory O(chunk) per
    chunk."""
    from rlscore.utilities.reader import iter_csv_data, dense_to_csr

    def chunks():
        with _file_errors(path):
            it = iter_csv_data(path, table.layout,
                               text_chunk_bytes() if chunked else None)
            while True:
                try:
                    names, c = next(it)
                except StopIteration:
                    return
                except ValueError as exc:
                    raise DataError(str(exc)) from None
                Y = c["Y"]
                y = Y[:, 0].copy() if Y.shape[1] == 1 else Y
                X = dense_to_csr(c["X"])
                from rlscore._validation import check_no_overflow
                check_no_overflow(X, name=str(path))
                yield X, y, c["qids"], c["ids"], names
    if chunked:
        return chunks()
    import scipy.sparse as sp
    from rlscore.cli._base import Progress
    with Progress(f"reading {path}"):
        parts = list(chunks())
    X = sp.vstack([p[0] for p in parts], format="csr") if len(parts) > 1 else parts[0][0]
    y = np.concatenate([p[1] for p in parts])
    qids = None if parts[0][2] is None else [q for p in parts for q in p[2]]
    ids = None if parts[0][3] is None else [q for p in parts for q in p[3]]
    return X, y, qids, ids, parts[0][4]


def iter_file(path, zero_based, table=None):
    """(X, y) chunks of an svmlight/LETOR file (:func:`rlscore._blocks.text_chunk_bytes`
    each), read with a
    fixed index base; DataError for bad files. Peak memory O(chunk), whatever the
    file's length."""
    if table is not None:
        for X, y, _, ids, _ in read_table(path, table, chunked=True):
            yield X, y, ids
        return
    from rlscore.cli._base import Progress
    from rlscore.utilities.reader import iter_svmlight
    with _file_errors(path, for_model=True), \
            Progress(f"reading {path} in chunks") as report:
        for X, Y, _ in iter_svmlight(path, None, zero_based, text_chunk_bytes()):
            report.step(rows=X.shape[0])
            _check_finite(path, X, Y)
            X.sum_duplicates()
            X.eliminate_zeros()
            yield X, (Y[:, 0].copy() if Y.shape[1] == 1 else Y), None


def read_file(path, zero_based="auto", for_model=False, table=None):
    """(X, y, qids, zero_based) of an svmlight/LETOR file (or, with ``table``, a
    CSV/TSV file: :func:`read_table`, zero_based False); DataError for bad files.

    ``zero_based``: "auto", True or False (see :func:`rlscore.utilities.reader.
    read_svmlight`); the resolved choice is returned. O(file size).
    """
    if table is not None:
        X, y, qids, _, names = read_table(path, table)
        table.feature_names = names
        table.qid_column = None if qids is None else (table.layout.qid_column or "qid")
        return X, y, qids, False
    from rlscore.utilities.reader import read_svmlight
    from rlscore.cli._base import Progress
    with _file_errors(path, for_model), Progress(f"reading {path}"):
        X, Y, qids, zb = read_svmlight(path, zero_based=zero_based, return_zero_based=True)
    _check_finite(path, X, Y)
    X.sum_duplicates()
    X.eliminate_zeros()
    y = Y[:, 0].copy() if Y.shape[1] == 1 else Y
    return X, y, qids, zb


def _compact_columns(X):
    """(the columns of CSR X holding a non-zero, X on those columns only). O(nnz log
    nnz)."""
    import scipy.sparse as sp
    used = np.unique(X.indices).astype(np.int64)
    remap = np.searchsorted(used, X.indices)
    return used, sp.csr_matrix((X.data, remap, X.indptr), shape=(X.shape[0], used.size))


def normalize_queries(X, groups, method, path):
    """``--query-norm METHOD``: every feature of CSR X normalized within each query of
    ``groups`` (:meth:`rlscore._groups.QueryGroups.normalize`: LETOR's QueryLevelNorm,
    RankLib's ``-norm``), as CSR with the same columns. A column without a non-zero
    stays zero under every method, so only the columns that hold one are normalized.
    ``method`` None returns X. DataError when the file has no qid: fields.

    O(m c) time and memory, c the number of columns of X holding a non-zero."""
    import scipy.sparse as sp
    if method is None:
        return X
    if groups is None:
        raise DataError(f"{path}: --query-norm {method} normalizes each feature within "
                        f"each query, but the file has no qid: fields")
    used, Xc = _compact_columns(X)
    N = sp.csr_matrix(groups.normalize(Xc, method))
    return sp.csr_matrix((N.data, used[N.indices], N.indptr), shape=X.shape)


def load_training_data(path, zero_based="auto", query_norm=None, table=None):
    """Read a training file (svmlight, or CSV/TSV with ``table``: a
    :class:`TableInput`) and keep the feature columns that occur in it; with
    ``query_norm`` ("linear", "zscore" or "sum") normalize them within each query
    (:func:`normalize_queries`).

    O(file size) time; memory O(nnz + number of used features), whatever the largest
    feature index (O(m x used features) with ``query_norm``).
    """
    from rlscore._groups import QueryGroups
    X, y, qids, zb = read_file(path, zero_based, table=table)
    used, Xc = _compact_columns(X)
    if used.size == 0:
        raise DataError(f"{path}: every feature value is zero")
    groups = None if qids is None else QueryGroups.from_qids(qids, name="qid")
    Xc = normalize_queries(Xc, groups, query_norm, path)
    return TrainingData(Xc, y, qids, used, int(X.shape[1]), zb, groups, table)


def project_features(X, feature_indices, n_model_features, path, ignore_extra,
                     zero_based=False):
    """Columns of X (CSR, the file's indexing) in the model's compact order, and the
    squared norm of each row over the features the model never saw.

    O(nnz log(number of model features)).
    """
    import scipy.sparse as sp
    cols = X.indices.astype(np.int64)
    if not ignore_extra and cols.size and cols.max() >= n_model_features:
        off = 0 if zero_based else 1
        bad = int(cols.max()) + off
        raise DataError(
            f"{path}: feature {bad} is non-zero, but the model was trained on features "
            f"{off}..{n_model_features - 1 + off} (use --ignore-extra-features to "
            f"predict anyway)")
    pos = np.searchsorted(feature_indices, cols)
    pos_c = np.minimum(pos, feature_indices.size - 1)
    known = feature_indices[pos_c] == cols
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    Xc = sp.csr_matrix((X.data[known], (rows[known], pos_c[known])),
                       shape=(X.shape[0], feature_indices.size))
    unseen = np.bincount(rows[~known], weights=X.data[~known] ** 2, minlength=X.shape[0])
    return Xc, unseen


def unseen_factor(unseen, kernel_name, gamma):
    """The factor exp(-gamma ||x_unseen||^2) of each row's Gaussian-kernel prediction
    for the features the model never saw (:func:`project_features`), or None when
    there is nothing to correct. O(n)."""
    if kernel_name == "GaussianKernel" and np.any(unseen > 0):
        # exp(-g||x - b||^2) = exp(-g||x_used - b||^2) exp(-g||x_unseen||^2)
        return np.exp(-float(gamma) * unseen)
    return None


def predict_projected(predictor, Xc, unseen, kernel_name, gamma, n_outputs=1):
    """Predictions for rows projected by :func:`project_features`: the model's
    prediction, times :func:`unseen_factor`. O(predict)."""
    P = np.asarray(predictor.predict(Xc), dtype=np.float64)
    if P.ndim == 0:
        P = P.reshape(1)
    if P.ndim == 1 and Xc.shape[0] == 1 and n_outputs > 1:
        P = P.reshape(1, -1)
    factor = unseen_factor(unseen, kernel_name, gamma)
    if factor is not None:
        P = P * (factor if P.ndim == 1 else factor[:, None])
    return P


@dataclasses.dataclass
class ModelRows:
    """A labelled file read the way a model was trained: projected rows, labels, qids."""
    X: object
    unseen: np.ndarray
    y: np.ndarray
    qids: object
    groups: object


def read_for_model(path, feature_indices, n_model_features, zero_based, ignore_extra,
                   query_norm=None, table=None):
    """Read ``path`` with the model's ``zero_based``, normalize its features within its
    own queries when the model was trained so (``query_norm``, the model's
    ``--query-norm``; :func:`normalize_queries`) and project it onto the model's
    columns. O(file size + nnz log d) (O(m x features of the file) with
    ``query_norm``); a CSV/TSV file is read by ``table``, whose feature columns are the
    model's, by name."""
    from rlscore._groups import QueryGroups
    X, y, qids, _ = read_file(path, zero_based, for_model=True, table=table)
    groups = None if qids is None else QueryGroups.from_qids(qids, name="qid")
    X = normalize_queries(X, groups, query_norm, path)
    Xc, unseen = project_features(X, feature_indices, n_model_features, path,
                                  ignore_extra, zero_based)
    return ModelRows(Xc, unseen, y, qids, groups)


#: the options that only a CSV/TSV file takes, and their argparse names
_TABLE_OPTIONS = (("--label-column", "label_column"), ("--qid-column", "qid_column"),
                  ("--id-column", "id_column"), ("--feature-columns", "feature_columns"),
                  ("--no-header", "no_header"), ("--time-column", "time_column"),
                  ("--event-column", "event_column"))


def _names(text, option):
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise UsageError(f"{option} {text!r}: expected column names separated by commas")
    if len(set(items)) != len(items):
        raise UsageError(f"{option} {text!r}: a column is named twice")
    return tuple(items)


def survival_columns(args):
    """``(time column, event column)`` of ``--time-column`` / ``--event-column`` (the
    label columns of censored data, :mod:`rlscore.cli._survival`), or None when neither
    is given; UsageError for one without the other, with ``--label-column``, or one
    column named twice."""
    t, e = getattr(args, "time_column", None), getattr(args, "event_column", None)
    if t is None and e is None:
        return None
    if t is None or e is None:
        raise UsageError("censored data need both --time-column and --event-column")
    if getattr(args, "label_column", None):
        raise UsageError("--label-column with --time-column / --event-column: the "
                         "survival outcome is the time and event columns, there is no "
                         "label column")
    if t.strip() == e.strip() or not t.strip() or not e.strip():
        raise UsageError(f"--time-column {t!r} and --event-column {e!r} must name two "
                         f"different columns")
    return (t.strip(), e.strip())


def input_table(args, path, model_input=None, labelled=True, need_qids=False):
    """The :class:`TableInput` of the data file ``path`` (None: svmlight), from
    ``--input-format`` or the file name's ending (``.csv``, ``.tsv``, also ``.gz`` /
    ``.bz2`` / ``.xz``; every other name is svmlight) and the column options; the
    defaults of ``predict`` / ``evaluate`` are the model's (``model_input``, the
    ``info["input"]`` of its file: its feature columns by name, its label and qid
    columns). ``labelled`` False: the labels (and, unless ``need_qids``, the qids)
    are not read (predict). UsageError for
    column options on an svmlight file, DataError for a model of the other format."""
    from rlscore.utilities.reader import CsvLayout, csv_kind
    kind = getattr(args, "input_format", None) or csv_kind(path) or "svmlight"
    given = [opt for opt, attr in _TABLE_OPTIONS if getattr(args, attr, None)]
    if kind == "svmlight":
        if given:
            raise UsageError(f"{' / '.join(given)} applies to CSV/TSV files, and "
                             f"{path} is read as svmlight (name it .csv or .tsv, or "
                             f"give --input-format csv)")
        if model_input:
            raise DataError(f"{path}: the model was trained on a "
                            f"{model_input['format'].upper()} file (its features are "
                            f"named columns); give a CSV/TSV file (--input-format)")
        return None
    if model_input is False:
        raise DataError(f"{path}: the model was trained on an svmlight file (numbered "
                        f"features); give it svmlight data, or train on this format")
    header = not getattr(args, "no_header", False)
    model = model_input or {}
    label = getattr(args, "label_column", None)
    censored = survival_columns(args)    # (time, event): the label columns, or None
    labels = (censored if censored else _names(label, "--label-column") if label else
              tuple(model.get("label_columns") or ()) or (("label",) if header else
                                                          ("0",)))
    qid = getattr(args, "qid_column", None) or (model.get("qid_column")
                                                if labelled or need_qids else None)
    feats = getattr(args, "feature_columns", None)
    if feats and model_input:
        raise UsageError("--feature-columns is an option of fit and cv; predict and "
                         "evaluate read the model's feature columns by name")
    feats = _names(feats, "--feature-columns") if feats else \
        (tuple(model["feature_names"]) if model_input else None)
    layout = CsvLayout(delimiter="\t" if kind == "tsv" else ",", header=header,
                       label_columns=labels if labelled else None, qid_column=qid,
                       id_column=getattr(args, "id_column", None),
                       feature_columns=feats,
                       auto_qid=header and not model_input and labelled)
    return TableInput(layout, kind)
