# cython: language_level=3
"""The number grammar of the svmlight parser, shared with the CSV parser (``_csv.pyx``)."""

cdef Py_ssize_t _number_end(const unsigned char* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil
