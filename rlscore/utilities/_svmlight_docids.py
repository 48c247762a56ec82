"""The document ids of an svmlight / LETOR file: the ``docid = ...`` of each example's
comment (``... 46:0.0 #docid = GX008-86-4444840 inc = 1 prob = 0.086622``), which
:func:`read_svmlight` skips.

One job: read them for the rows :func:`read_svmlight` returns, in the same order (a row
is a line with something before its ``#``; blank and comment-only lines are not rows).
"""

import re

from rlscore.utilities._text_files import open_binary, source_name

__all__ = ["read_docids", "MAX_DOCID_LENGTH"]

#: the longest docid accepted (bytes); LETOR's are about 20
MAX_DOCID_LENGTH = 256

_WS = b" \t\r\x0b\x0c\n"
# "docid" as a whole word, "=", then the id: everything up to the next blank or '#'
_DOCID = re.compile(rb"(?<![A-Za-z0-9_])docid\s*=\s*([^\s#]*)")


def read_docids(fname):
    """The docid of every example of an svmlight / LETOR file, or None when no line
    names one.

    Parameters
    ----------
    fname : path (``.gz``, ``.bz2``, ``.xz`` decompressed) or file object

    Returns
    -------
    list of str (one per example, the row order of :func:`read_svmlight`) or None

    Raises
    ------
    ValueError
        Naming the file and line: some examples have a docid and others not, a docid
        is empty, longer than :data:`MAX_DOCID_LENGTH` bytes or holds characters other
        than printable ASCII (a TREC run file separates its fields by blanks).

    Notes
    -----
    O(file size) time (one pass, line by line); memory O(longest line + the docids).
    """
    src = source_name(fname)
    out, missing, named = [], None, None        # first line without / with a docid
    with open_binary(fname) as fh:
        for lineno, line in enumerate(fh, start=1):
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):    # UTF-8 byte order mark
                line = line[3:]
            data, hash_, comment = line.partition(b"#")
            if not data.strip(_WS):
                continue                          # blank or comment-only: not a row
            m = _DOCID.search(comment) if hash_ else None
            if m is None:
                missing = lineno if missing is None else missing
                out.append(None)
                continue
            named = lineno if named is None else named
            doc = m.group(1)
            if not doc or len(doc) > MAX_DOCID_LENGTH or not all(33 <= c <= 126
                                                                 for c in doc):
                shown = doc[:40].decode("ascii", "replace")
                raise ValueError(f"{src}, line {lineno}: docid {shown!r}"
                                 f"{'...' if len(doc) > 40 else ''} is not 1 to "
                                 f"{MAX_DOCID_LENGTH} printable ASCII characters")
            out.append(doc.decode("ascii"))
    if named is None:
        return None
    if missing is not None:
        raise ValueError(f"{src}, line {missing}: this example has no '#docid = ...' "
                         f"comment, but line {named} has one (all or none)")
    return out
