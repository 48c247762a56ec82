# cython: language_level=3
"""Strict parser of the numeric fields of a CSV / TSV chunk of whole lines (bytes).

Fields are separated by one delimiter byte, lines by '\\n' (a '\\r' before it is
dropped); blank lines are skipped. A numeric field is the svmlight parser's number
(``rlscore._ext._svmlight``: ``[+-]? (digits ['.' digits*] | '.' digits) ([eE] [+-]?
digits)?``, ASCII only) with optional spaces around it; no quotes (the caller reads
chunks with quotes by the csv module). String fields (ids) come back as byte spans.

:func:`parse_fields` writes into arrays the caller allocated (rows <= newlines) and
checks their capacities before writing, so a wrong capacity is an error, never an
overrun. Errors come back as (line, field, kind). O(chunk length) time, no allocation.
"""

from libc.math cimport isinf
from libc.stdlib cimport strtod
from libc.stdint cimport int64_t

from rlscore._ext._svmlight cimport _number_end

#: error kinds: a line with another number of fields, a field that is not a number,
#: a number beyond the float64 range
RAGGED, NOT_A_NUMBER, OVERFLOW = 1, 2, 3


def parse_fields(const unsigned char[::1] buf, Py_ssize_t first_line,
                 unsigned char delim, const signed char[::1] kind,
                 double[:, ::1] out, int64_t[::1] lines, int64_t[:, ::1] spans):
    """Parse the whole lines of ``buf`` (ending with b'\\n').

    Parameters
    ----------
    buf : bytes-like ending with a newline
    first_line : the file's line number of the first line of ``buf`` (1-based)
    delim : the delimiter byte
    kind : (ncols,) per column 0 (skipped), 1 (number: the next column of ``out``)
        or 2 (string: the next pair of columns of ``spans``, start and end offsets)
    out : (capacity, n_numbers) float64; lines : (capacity,) the line of each row;
    spans : (capacity, 2 * n_strings)

    Returns
    -------
    (n_rows, error): error None or (line, field (0-based), kind, fields on the line)
    """
    cdef const unsigned char* s = &buf[0]
    cdef Py_ssize_t n = buf.shape[0], ncols = kind.shape[0]
    cdef Py_ssize_t pos = 0, start, end, a, b, e, line_end, j, k, t
    cdef Py_ssize_t rows = 0, lineno = first_line - 1, fields
    cdef Py_ssize_t cap = out.shape[0]
    cdef double v
    cdef signed char kj
    if n == 0 or s[n - 1] != 10:
        raise ValueError("the chunk must end with a newline")
    if lines.shape[0] < cap or spans.shape[0] < cap:
        raise ValueError("out, lines and spans need the same capacity")
    while pos < n:
        lineno += 1
        line_end = pos
        while s[line_end] != 10:
            line_end += 1
        e = line_end
        if e > pos and s[e - 1] == 13:
            e -= 1
        if e == pos:                    # blank line
            pos = line_end + 1
            continue
        # count the fields first: a ragged line is named before its numbers
        fields = 1
        for t in range(pos, e):
            if s[t] == delim:
                fields += 1
        if fields != ncols:
            return rows, (lineno, -1, RAGGED, fields)
        if rows >= cap:
            raise ValueError("more rows than the capacity of the output arrays")
        start = pos
        k = 0
        t = 0
        for j in range(ncols):
            end = start
            while end < e and s[end] != delim:
                end += 1
            kj = kind[j]
            if kj == 1:
                a, b = start, end
                while a < b and s[a] == 32:
                    a += 1
                while b > a and s[b - 1] == 32:
                    b -= 1
                if _number_end(s, a, b) != b or a == b:
                    return rows, (lineno, j, NOT_A_NUMBER, fields)
                v = strtod(<const char*> (s + a), NULL)
                if isinf(v):
                    return rows, (lineno, j, OVERFLOW, fields)
                out[rows, k] = v
                k += 1
            elif kj == 2:
                spans[rows, 2 * t] = start
                spans[rows, 2 * t + 1] = end
                t += 1
            start = end + 1
        lines[rows] = lineno
        rows += 1
        pos = line_end + 1
    return rows, None
