# cython: language_level=3
"""Strict svmlight / LETOR parser for one chunk of whole lines (bytes).

The grammar is the one :func:`rlscore.utilities.reader.read_svmlight` documents:

    line    := labels [qid] feature* [# comment]        (blank lines are skipped)
    labels  := number ('|' number)*
    qid     := 'qid:' printable ASCII other than '#', at least one character
    feature := index ':' number
    number  := [+-]? (digits ['.' digits*] | '.' digits) ([eE] [+-]? digits)?
    index   := digits                                   (ASCII, no sign, no '_')

Tokens are separated by spaces, tabs, carriage returns, vertical tabs or form feeds;
lines by '\\n'. Indices must strictly increase along a line. Zero values are not stored.

:func:`parse_chunk` is the only entry point; it writes into arrays the caller allocated
with capacities from byte counts (rows <= newlines + 1, labels <= rows + '|' count,
features <= ':' count), and it checks those capacities before writing, so a wrong
capacity is an error, never an overrun. Errors come back as (line, column, message).
O(chunk length) time; no allocation except one Python str per qid.
"""

from libc.math cimport isinf
from libc.stdlib cimport strtod
from libc.stdint cimport int64_t
from cpython.unicode cimport PyUnicode_DecodeASCII

import numpy as np

cdef int64_t _INDEX_MAX = (<int64_t> 1) << 62


cdef inline bint _is_ws(unsigned char c) noexcept nogil:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


cdef inline bint _is_digit(unsigned char c) noexcept nogil:
    return 48 <= c <= 57


cdef Py_ssize_t _number_end(const unsigned char* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """End of the number starting at a (within [a, b)); -1 when no number starts there."""
    cdef Py_ssize_t p = a
    cdef Py_ssize_t before = 0, after = 0, expo = 0
    if p < b and (s[p] == 43 or s[p] == 45):          # + -
        p += 1
    while p < b and _is_digit(s[p]):
        p += 1
        before += 1
    if p < b and s[p] == 46:                          # .
        p += 1
        while p < b and _is_digit(s[p]):
            p += 1
            after += 1
    if before == 0 and after == 0:
        return -1
    if p < b and (s[p] == 101 or s[p] == 69):         # e E
        p += 1
        if p < b and (s[p] == 43 or s[p] == 45):
            p += 1
        while p < b and _is_digit(s[p]):
            p += 1
            expo += 1
        if expo == 0:
            return -1
    return p


def _overflow(what, buf, a, b, of=""):
    """The message of a number beyond the float64 range (strtod gives infinity)."""
    return (f"{what} {bytes(buf[a:b]).decode('ascii', 'replace')!r}{of} overflows "
            f"float64 (the largest finite value is about 1.8e308)")


#: The error of a feature index 0 in a file read as 1-based (the reader turns it into a
#: ZeroIndexError whose hint names the caller's own option).
_ZERO_INDEX = "feature index 0 < 1 (indices are 1-based)"


def parse_chunk(const unsigned char[::1] buf, Py_ssize_t first_line, int zero_based,
                Py_ssize_t n_labels, int has_qid,
                double[::1] labels, int64_t[::1] indptr, int64_t[::1] indices,
                double[::1] values, list qids):
    """Parse the whole lines of ``buf`` (which must end with b'\\n').

    Parameters
    ----------
    buf : bytes-like, ending with a newline
    first_line : line number of the first line of ``buf`` (1-based)
    zero_based : 0 (1-based indices: index 0 is an error), 1 (0-based) or 2 (either)
    n_labels : labels per line fixed by earlier chunks, or 0 (the first line decides)
    has_qid : 1 / 0 fixed by earlier chunks, or -1 (the first line decides)
    labels, indptr, indices, values : output arrays (see the module docstring);
        ``indptr[0]`` must be 0
    qids : list the qid strings are appended to

    Returns
    -------
    (n_rows, n_labels, has_qid, nnz, min_first_index, max_index, error)
        ``error`` is None or (line, column, message); on an error the counts describe
        the lines before it. ``min_first_index`` is the smallest first index of a
        line (-1 when no line has a feature), ``max_index`` the largest index (-1).
    """
    cdef const unsigned char* s = &buf[0]
    cdef Py_ssize_t n = buf.shape[0]
    cdef Py_ssize_t pos = 0, line_start, line_end, p, q, tok, e, cut
    cdef Py_ssize_t lineno = first_line - 1
    cdef Py_ssize_t rows = 0, nnz = 0, nlab = 0, count
    cdef Py_ssize_t cap_rows = indptr.shape[0] - 1, cap_lab = labels.shape[0]
    cdef Py_ssize_t cap_nnz = indices.shape[0]
    cdef int64_t idx, prev, min_first = -1, max_index = -1
    cdef double v
    cdef bint line_qid
    if n == 0 or s[n - 1] != 10:
        raise ValueError("the chunk must end with a newline")
    if values.shape[0] != cap_nnz:
        raise ValueError("indices and values must have the same capacity")
    while pos < n:
        line_start = pos
        while s[pos] != 10:
            pos += 1
        line_end = pos
        pos += 1
        lineno += 1
        cut = line_start
        while cut < line_end and s[cut] != 35:            # '#'
            cut += 1
        p = line_start
        while p < cut and _is_ws(s[p]):
            p += 1
        if p == cut:
            continue
        if rows >= cap_rows:
            raise ValueError("row capacity exceeded")
        # labels
        tok = p
        count = 0
        while True:
            e = _number_end(s, p, cut)
            if e < 0 or not (e == cut or _is_ws(s[e]) or s[e] == 124):
                while p < cut and not _is_ws(s[p]):
                    p += 1
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1,
                         f"label {bytes(buf[tok:p]).decode('ascii', 'replace')!r} is not a "
                         f"real number in decimal notation (several outputs are separated "
                         f"by '|')"))
            if nlab + count >= cap_lab:
                raise ValueError("label capacity exceeded")
            v = strtod(<const char*> (s + p), NULL)
            if isinf(v):
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, p - line_start + 1, _overflow("label", buf, p, e)))
            labels[nlab + count] = v
            count += 1
            p = e
            if p < cut and s[p] == 124:                    # '|'
                p += 1
                continue
            break
        if n_labels == 0:
            n_labels = count
        elif count != n_labels:
            return (rows, n_labels, has_qid, nnz, min_first, max_index,
                    (lineno, tok - line_start + 1,
                     f"{count} labels, but the first example has {n_labels}"))
        while p < cut and _is_ws(s[p]):
            p += 1
        # qid
        line_qid = (cut - p >= 4 and s[p] == 113 and s[p + 1] == 105 and s[p + 2] == 100
                    and s[p + 3] == 58)
        if has_qid == -1:
            has_qid = 1 if line_qid else 0
        elif line_qid != (has_qid == 1):
            return (rows, n_labels, has_qid, nnz, min_first, max_index,
                    (lineno, p - line_start + 1,
                     "the example has a qid, but the previous examples do not" if line_qid
                     else "the example has no qid, but the previous examples do"))
        if line_qid:
            tok = p
            q = p + 4
            while q < cut and not _is_ws(s[q]):
                if s[q] < 33 or s[q] > 126:
                    while q < cut and not _is_ws(s[q]):
                        q += 1
                    return (rows, n_labels, has_qid, nnz, min_first, max_index,
                            (lineno, tok - line_start + 1,
                             f"qid {bytes(buf[tok:q]).decode('ascii', 'replace')!r} is not "
                             f"'qid:' followed by printable ASCII characters"))
                q += 1
            if q == p + 4:
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1, "empty qid"))
            qids.append(PyUnicode_DecodeASCII(<const char*> (s + p + 4), q - p - 4, NULL))
            p = q
        # features
        prev = -1
        while True:
            while p < cut and _is_ws(s[p]):
                p += 1
            if p >= cut:
                break
            tok = p
            idx = 0
            while p < cut and _is_digit(s[p]):
                if idx > _INDEX_MAX:
                    break
                idx = idx * 10 + (s[p] - 48)
                p += 1
            e = -1
            if p > tok and p < cut and s[p] == 58 and idx <= _INDEX_MAX:   # ':'
                e = _number_end(s, p + 1, cut)
            if e < 0 or not (e == cut or _is_ws(s[e])):
                while p < cut and not _is_ws(s[p]):
                    p += 1
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1,
                         f"malformed feature token "
                         f"{bytes(buf[tok:p]).decode('ascii', 'replace')!r} (expected "
                         f"index:value, an unsigned decimal integer index and a decimal "
                         f"number)"))
            if idx <= prev:
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1,
                         f"feature indices must strictly increase ({idx} follows {prev})"))
            if idx == 0 and zero_based == 0:
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1,
                         _ZERO_INDEX))
            if prev < 0 and (min_first < 0 or idx < min_first):
                min_first = idx
            prev = idx
            v = strtod(<const char*> (s + p + 1), NULL)
            if isinf(v):
                return (rows, n_labels, has_qid, nnz, min_first, max_index,
                        (lineno, tok - line_start + 1,
                         _overflow("value", buf, p + 1, e, f" of feature {idx}")))
            p = e
            if v != 0.0:
                if nnz >= cap_nnz:
                    raise ValueError("feature capacity exceeded")
                indices[nnz] = idx
                values[nnz] = v
                nnz += 1
        if prev > max_index:
            max_index = prev
        nlab += count
        rows += 1
        indptr[rows] = nnz
    return (rows, n_labels, has_qid, nnz, min_first, max_index, None)
