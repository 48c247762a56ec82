"""CSV / TSV data files: :func:`read_csv_data`, :func:`iter_csv_data` (chunk by chunk)
and :class:`CsvSource` (a data source of the streamed learners).

A header line names the columns (or ``header=False``: the columns are named by their
0-based position, ``"0"``, ``"1"``, ...); :class:`CsvLayout` says which columns hold
the labels, the query ids, row ids, and the features (by default every other column).
Every feature and label field is a finite decimal number: an empty field, ``NA``,
``NaN``, ``inf``, a number beyond the float64 range (``1e400``), a non-numeric field or
a line with another number of fields than the header raises ValueError naming the
file, the line and the column, as the svmlight reader does. Files ending in ``.gz``,
``.bz2`` or ``.xz`` are decompressed on the fly. Public home:
:mod:`rlscore.utilities.reader`.

The numeric fields of a chunk of whole lines are parsed by the compiled parser
:mod:`rlscore._ext._csv` (the svmlight parser's number grammar; no pandas); a chunk
holding a double quote is read by the :mod:`csv` module instead (quoted fields, e.g.
ids with commas), slower.
"""

import csv
import dataclasses
import os

import numpy as np

from rlscore._blocks import text_chunk_bytes
from rlscore._validation import as_2d_labels, check_positive_int
from rlscore.utilities._text_files import (check_same_rows, open_binary, source_name,
                                          whole_line_blocks)

__all__ = ["CsvLayout", "csv_kind", "read_csv_data", "iter_csv_data", "CsvSource"]

#: file name endings (after a compression suffix is removed) and their delimiters
DELIMITERS = {".csv": ",", ".tsv": "\t"}

_MISSING = {"", "na", "n/a", "nan", "null", "none", "?", "-nan", "+nan"}


def csv_kind(path):
    """"csv" or "tsv" by the file name's ending (``.csv``, ``.tsv``, also followed by
    ``.gz``, ``.bz2`` or ``.xz``), None for other names (svmlight). O(1)."""
    name = os.fsdecode(path).lower()
    for comp in (".gz", ".bz2", ".xz"):
        if name.endswith(comp):
            name = name[:-len(comp)]
            break
    ext = os.path.splitext(name)[1]
    return ext[1:] if ext in DELIMITERS else None


@dataclasses.dataclass(frozen=True)
class CsvLayout:
    """Which columns of a CSV/TSV file are what.

    Parameters
    ----------
    delimiter : str, "," (CSV) or "\\t" (TSV)
    header : bool, default True
        The first line names the columns; False: the columns are named "0", "1", ...
    label_columns : tuple of str, optional
        The label column(s) (several: a multi-output file); None: no labels (predict).
    qid_column, id_column : str, optional
        The query id column, and a row id column kept for output.
    feature_columns : tuple of str, optional
        The feature columns in this order; None: every column not named above.
    extra_columns : tuple of str
        Further named columns that are not features (e.g. survival times), read as
        numbers.
    auto_qid : bool, default False
        Without ``qid_column``: a column named ``qid`` is the query id column (as the
        ``qid:`` fields of an svmlight file).
    """
    delimiter: str = ","
    header: bool = True
    label_columns: tuple = None
    qid_column: str = None
    id_column: str = None
    feature_columns: tuple = None
    extra_columns: tuple = ()
    auto_qid: bool = False


@dataclasses.dataclass
class _Plan:
    """The header resolved: column positions of each role."""
    names: list
    features: np.ndarray
    labels: np.ndarray
    extra: np.ndarray
    qid: int
    id: int

    @property
    def feature_names(self):
        return [self.names[j] for j in self.features]


def _plan(src, names, layout):
    """Resolve the layout's column names against the header ``names``."""
    seen = {}
    for j, n in enumerate(names):
        if n in seen:
            raise ValueError(f"{src}, line 1: column name {n!r} appears twice (columns "
                             f"{seen[n] + 1} and {j + 1})")
        seen[n] = j

    def pos(name, what):
        if name not in seen:
            shown = ", ".join(repr(n) for n in names[:20])
            more = ", ..." if len(names) > 20 else ""
            raise ValueError(f"{src}: no column named {name!r} ({what}); the header has "
                             f"{shown}{more}")
        return seen[name]

    labels = [pos(n, "label column") for n in (layout.label_columns or ())]
    qid_name = layout.qid_column
    if qid_name is None and layout.auto_qid and "qid" in seen:
        qid_name = "qid"
    qid = -1 if qid_name is None else pos(qid_name, "qid column")
    rid = -1 if layout.id_column is None else pos(layout.id_column, "id column")
    extra = [pos(n, "column") for n in layout.extra_columns]
    taken = set(labels) | set(extra) | {qid, rid}
    if layout.feature_columns is None:
        feats = [j for j in range(len(names)) if j not in taken]
    else:
        feats = [pos(n, "feature column") for n in layout.feature_columns]
        for j in feats:
            if j in taken:
                raise ValueError(f"{src}: column {names[j]!r} is both a feature and a "
                                 f"label, qid or id column")
    if not feats:
        raise ValueError(f"{src}: no feature columns (the header has "
                         f"{', '.join(repr(n) for n in names)})")
    return _Plan(list(names), np.asarray(feats, dtype=np.intp),
                 np.asarray(labels, dtype=np.intp), np.asarray(extra, dtype=np.intp),
                 qid, rid)


def _cell_problem(text):
    """Why the field ``text`` (str) is not a finite float64, or None."""
    t = text.strip()
    if t.lower() in _MISSING:
        return "empty field (missing value)" if not t else f"missing value {t!r}"
    try:
        if "_" in t:
            raise ValueError
        v = float(t)
    except ValueError:
        return f"not a number: {t[:40]!r}"
    if np.isnan(v):
        return f"missing value {t!r}"
    if np.isinf(v):
        if "inf" in t.lower():
            return f"infinite value {t!r}"
        return f"{t[:40]!r} is beyond the float64 range"
    return None


class _Chunk:
    """The fields of one chunk of whole lines: ``rows`` (n, ncols) of bytes cells as a
    flat list, and the file line of each row."""

    def __init__(self, cells, ncols, lines, underscores=False):
        self.cells, self.ncols, self.lines = cells, ncols, lines
        self.underscores = underscores

    def column(self, j):
        return self.cells[j::self.ncols]


def _split_quoted(src, data, delim, ncols, first_line):
    """Fields of a chunk with quotes, by the csv module (slower)."""
    cells, lines = [], []
    text = data.decode("utf-8", errors="replace")
    for k, raw in enumerate(text.split("\n")[:-1]):
        if not raw.strip("\r"):
            continue
        try:
            row = next(csv.reader([raw], delimiter=delim, strict=True))
        except csv.Error as exc:
            raise ValueError(f"{src}, line {first_line + k}: {exc}") from None
        if len(row) != ncols:
            raise ValueError(f"{src}, line {first_line + k}: {len(row)} fields, the "
                             f"header has {ncols}")
        cells.extend(c.encode() for c in row)
        lines.append(first_line + k)
    return _Chunk(cells, ncols, np.asarray(lines, dtype=np.int64), b"_" in data)


def _numbers(src, chunk, cols, names):
    """The float64 matrix (rows, len(cols)) of the columns ``cols``; the first bad
    field (in reading order) raises ValueError naming its line and column."""
    n = chunk.lines.size
    out = np.empty((n, len(cols)))
    if not n:
        return out
    first_bad = None
    for k, j in enumerate(cols):
        col = chunk.column(j)
        try:
            out[:, k] = np.fromiter(map(float, col), dtype=np.float64, count=n)
            ok = np.isfinite(out[:, k])
            if chunk.underscores:       # Python's float reads 1_0 as 10
                ok &= np.fromiter((b"_" not in c for c in col), dtype=bool, count=n)
            if ok.all():
                continue
            i = int(np.flatnonzero(~ok)[0])
        except ValueError:
            i = next(i for i, c in enumerate(col)
                     if _cell_problem(c.decode("utf-8", "replace")) is not None)
        if first_bad is None or (i, j) < first_bad[:2]:
            first_bad = (i, j)
    if first_bad is not None:
        i, j = first_bad
        text = chunk.column(j)[i].decode("utf-8", "replace")
        why = _cell_problem(text) or f"not a number: {text[:40]!r}"
        raise ValueError(f"{src}, line {chunk.lines[i]}, column {j + 1} "
                         f"({names[j]!r}): {why}")
    return out


def _strings(chunk, j):
    return [c.decode("utf-8", "replace").strip() for c in chunk.column(j)]


def _raw_chunks(fname, layout, chunk_bytes=None):
    """(plan, dict of the chunk's arrays) per chunk of whole lines: ``X`` (rows, d)
    dense features, ``Y`` (rows, n_labels), ``extra`` (rows, n_extra), ``qids`` and
    ``ids`` (lists or None). O(file size); memory O(chunk)."""
    src = source_name(fname)
    delim = layout.delimiter
    if delim not in (",", "\t", ";", "|", " "):
        raise ValueError(f"delimiter must be ',', tab, ';', '|' or space, got {delim!r}")
    chunk_bytes = text_chunk_bytes(0.25) if chunk_bytes is None else int(chunk_bytes)
    plan = None
    line = 1
    with open_binary(fname) as fh:
        for data in whole_line_blocks(fh, chunk_bytes):
            if b"\r" in data:
                data = data.replace(b"\r\n", b"\n")
            if b"\0" in data:
                raise ValueError(f"{src}: not a text file (a NUL byte)")
            lines = data.count(b"\n")
            if plan is None:
                head, _, data = data.partition(b"\n")
                text = head.decode("utf-8", errors="replace")
                if not text.strip():
                    raise ValueError(f"{src}, line {line}: the first line is empty "
                                     f"(expected the header)")
                try:
                    row = next(csv.reader([text], delimiter=delim, strict=True))
                except csv.Error as exc:
                    raise ValueError(f"{src}, line {line}: {exc}") from None
                if layout.header:
                    names = [c.strip() for c in row]
                    for j, n in enumerate(names):
                        if not n:
                            raise ValueError(f"{src}, line 1, column {j + 1}: empty "
                                             f"column name in the header")
                    plan = _plan(src, names, layout)
                    line += 1
                    lines -= 1
                else:
                    plan = _plan(src, [str(j) for j in range(len(row))], layout)
                    data = head + b"\n" + data
            ncols = len(plan.names)
            if lines:
                if b'"' in data:
                    chunk = _split_quoted(src, data, delim, ncols, line)
                    out = _decode(src, chunk, plan) if chunk.lines.size else None
                else:
                    out = _parse_compiled(src, data, delim, plan, line, lines)
                line += lines
                if out is not None:
                    yield plan, out
    if plan is None:
        raise ValueError(f"{src}: the file is empty (expected a header line)")


def _parse_compiled(src, data, delim, plan, first_line, n_lines):
    """The chunk's arrays (as :func:`_decode`) by the compiled parser
    (:mod:`rlscore._ext._csv`), or None for a chunk of blank lines; errors name the
    line and the column."""
    from rlscore._ext import _csv
    ncols = len(plan.names)
    kind = np.zeros(ncols, dtype=np.int8)
    numeric = np.concatenate((plan.features, plan.labels, plan.extra))
    kind[numeric] = 1
    strings = sorted(j for j in (plan.qid, plan.id) if j >= 0)   # spans in file order
    kind[strings] = 2
    out = np.empty((n_lines, int(np.count_nonzero(kind == 1))))
    rows_line = np.empty(n_lines, dtype=np.int64)
    spans = np.empty((n_lines, 2 * len(strings)), dtype=np.int64)
    rows, err = _csv.parse_fields(data, first_line, ord(delim), kind, out, rows_line,
                                  spans)
    if err is not None:
        lineno, j, what, fields = err
        if what == _csv.RAGGED:
            raise ValueError(f"{src}, line {lineno}: {fields} fields, the header has "
                             f"{ncols}")
        text = data.split(b"\n")[lineno - first_line].rstrip(b"\r").split(
            delim.encode())[j].decode("utf-8", "replace")
        why = _cell_problem(text) or f"not a number: {text.strip()[:40]!r}"
        raise ValueError(f"{src}, line {lineno}, column {j + 1} ({plan.names[j]!r}): "
                         f"{why}")
    if not rows:
        return None
    # the columns of ``out`` are the numeric columns in file order
    col = np.empty(ncols, dtype=np.intp)
    col[np.sort(numeric)] = np.arange(numeric.size)
    out = out[:rows]

    def texts(j):
        t = 2 * strings.index(j)
        return [data[a:b].decode("utf-8", "replace").strip()
                for a, b in spans[:rows, t:t + 2].tolist()]
    return {"X": np.ascontiguousarray(out[:, col[plan.features]]),
            "Y": out[:, col[plan.labels]], "extra": out[:, col[plan.extra]],
            "qids": None if plan.qid < 0 else texts(plan.qid),
            "ids": None if plan.id < 0 else texts(plan.id),
            "lines": rows_line[:rows]}


def _decode(src, chunk, plan):
    names = plan.names
    return {"X": _numbers(src, chunk, plan.features, names),
            "Y": _numbers(src, chunk, plan.labels, names),
            "extra": _numbers(src, chunk, plan.extra, names),
            "qids": None if plan.qid < 0 else _strings(chunk, plan.qid),
            "ids": None if plan.id < 0 else _strings(chunk, plan.id),
            "lines": chunk.lines}


def iter_csv_data(fname, layout, chunk_bytes=None):
    """Read a CSV/TSV file in chunks of whole lines.

    Parameters
    ----------
    fname : str, path-like or file object (``.gz``, ``.bz2``, ``.xz`` decompressed)
    layout : CsvLayout
    chunk_bytes : int, default a quarter of the working-memory budget
        (:func:`rlscore._blocks.text_chunk_bytes`)

    Yields
    ------
    (feature_names, chunk) with chunk a dict: ``X`` (rows, d) float64 dense, ``Y``
    (rows, n_labels), ``extra`` (rows, n_extra), ``qids`` and ``ids`` (lists of str
    or None).

    Raises
    ------
    ValueError
        Naming the file, line and column: a missing or non-numeric field, NaN, an
        infinite or out-of-range number, a line with another number of fields than
        the header, a duplicate or unknown column name, an empty file.

    Notes
    -----
    O(file size) time; peak memory O(chunk_bytes) whatever the file's length.
    """
    empty = True
    for plan, chunk in _raw_chunks(fname, layout, chunk_bytes):
        empty = False
        yield plan.feature_names, chunk
    if empty:
        raise ValueError(f"{source_name(fname)}: the file contains no examples")


def read_csv_data(fname, layout):
    """The whole CSV/TSV file: (feature_names, dict) as one chunk of
    :func:`iter_csv_data`. O(file size) time; memory O(rows x columns)."""
    names, parts = None, []
    for names, chunk in iter_csv_data(fname, layout):
        parts.append(chunk)
    out = {k: np.vstack([p[k] for p in parts]) for k in ("X", "Y", "extra")}
    for k in ("qids", "ids"):
        out[k] = None if parts[0][k] is None else [q for p in parts for q in p[k]]
    out["lines"] = np.concatenate([p["lines"] for p in parts])
    return names, out


def dense_to_csr(X):
    """CSR of a dense chunk without its zeros (the rows an svmlight file of the same
    numbers gives). O(rows x columns)."""
    import scipy.sparse as sp
    M = sp.csr_matrix(X)
    M.eliminate_zeros()
    M.has_sorted_indices = True
    return M


class CsvSource:
    """A CSV/TSV file as a data source of the streamed learners (the protocol of
    :mod:`rlscore.core.structure`; see :class:`rlscore.utilities.reader.
    SvmlightSource`): every pass re-reads the file in chunks, so the rows are never
    all in memory.

    Parameters
    ----------
    fname : path of the file (plain or .gz/.bz2/.xz)
    layout : CsvLayout (with the label column(s))
    chunk_bytes : int, bytes of text per chunk, default 1/64 of the working-memory
        budget (:mod:`rlscore._blocks`)

    Attributes
    ----------
    m, d, Y (m, p) labels, qids (m,) or None, feature_names -- from the first pass;
    ``zero_based`` is False (no index base in a CSV file).

    Notes
    -----
    Construction is one pass over the file (O(file size) time, O(m p) memory); every
    ``blocks`` call another. A file that changes between passes raises ValueError.
    """

    zero_based = False

    def __init__(self, fname, layout, chunk_bytes=None):
        self.fname, self.layout = fname, layout
        self.chunk_bytes = int(chunk_bytes) if chunk_bytes is not None else \
            text_chunk_bytes()
        labels, qids, m = [], [], 0
        names = None
        for names, chunk in iter_csv_data(fname, layout, self.chunk_bytes):
            labels.append(chunk["Y"])
            if chunk["qids"] is not None:
                qids.extend(chunk["qids"])
            m += chunk["X"].shape[0]
        self.m, self.d, self.feature_names = m, len(names), names
        self.Y = as_2d_labels(np.vstack(labels), name="labels")
        self.qids = np.asarray(qids) if qids else None

    def _chunks(self):
        for _, chunk in iter_csv_data(self.fname, self.layout, self.chunk_bytes):
            yield dense_to_csr(chunk["X"])

    def blocks(self, size):
        """(start, X_b CSR) blocks of ``size`` rows: one pass over the file.
        O(file size)."""
        size = check_positive_int(size, "size")
        start = 0
        for X in self._chunks():
            for lo in range(0, X.shape[0], size):
                Xb = X[lo:lo + size]
                yield start, Xb
                start += Xb.shape[0]
        check_same_rows(self.fname, start, self.m)

    def rows(self, indices):
        """The rows ``indices`` (sorted, unique) as one CSR matrix: one pass.
        O(file size)."""
        import scipy.sparse as sp
        idx = np.asarray(indices, dtype=np.int64)
        parts, start = [], 0
        for X in self._chunks():
            lo, hi = np.searchsorted(idx, [start, start + X.shape[0]])
            if hi > lo:
                parts.append(X[idx[lo:hi] - start])
            start += X.shape[0]
        if sum(p.shape[0] for p in parts) != idx.size:
            raise ValueError(f"{source_name(self.fname)} has fewer rows than the "
                             f"requested indices (changed or truncated?)")
        return sp.vstack(parts, format="csr")
