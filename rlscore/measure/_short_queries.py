"""The note on queries shorter than the NDCG cutoff under the LETOR rules: its one
wording, the warning, and the context manager that gathers the notes of a search into
one warning per cutoff."""

import contextvars
import warnings

import numpy as np

from rlscore._validation import user_stacklevel


class ShortQueryWarning(UserWarning):
    """NDCG@k under the LETOR rules (3.0 or 4.0) scored queries shorter than k as 0:
    such a 0 says nothing about the model (and a model selection on it sees only
    ties)."""


def short_query_message(sizes, k, convention="letor"):
    """The note on queries shorter than the cutoff ``k`` of NDCG@k under the LETOR
    rules (``convention`` "letor" / "letor4" or "letor3": the message names LETOR 4.0 or
    3.0, whose scripts both score such a query 0), or None when every query has at
    least k documents. ``sizes``: the query sizes (one query: ``[m]``). The one wording
    of the rule for every face.

    The advice names a cutoff that scores the short queries of two or more documents;
    a one-document query is named apart: its NDCG does not depend on the predictions
    at any cutoff (a cutoff of 1 would only score its label), so no cutoff is advised
    for it."""
    sizes = np.asarray(sizes)
    short = sizes < k
    n_short = int(np.count_nonzero(short))
    if n_short == 0:
        return None
    rules = "LETOR 3.0" if convention == "letor3" else "LETOR 4.0"
    what = ("the input (one query) has" if sizes.size == 1 else
            f"{n_short} of {sizes.size} queries have")
    them = "it" if n_short == 1 else "them"
    msg = (f"{what} fewer than {k} documents: NDCG@{k} under the {rules} rules scores "
           f"{them} 0, whatever the predictions")
    n_single = int(np.count_nonzero(sizes == 1))
    ranked = sizes[short & (sizes >= 2)]
    if ranked.size:
        c = int(ranked.min())
        msg += (f"; to score {them}, use a cutoff of at most {c} ('ndcg@{c}', k={c}), no "
                f"cutoff (k=None) or scikit-learn's convention ('ndcg@{k}:standard', "
                f"convention='standard')")
    if n_single:
        one = ("it has" if sizes.size == 1 else
               f"{n_single} of {'it' if n_short == 1 else 'them'} "
               f"{'has' if n_single == 1 else 'have'}")
        msg += (f"; {one} a single document, whose NDCG does not depend on the "
                f"predictions at any cutoff (drop one-document queries to leave them "
                f"out of the mean)")
    return msg


# While a collector is set (short_query_warnings_once), the notes are gathered there
# instead of being warned one by one.
_COLLECTOR = contextvars.ContextVar("rlscore_short_query_notes", default=None)


def _warn_short_queries(sizes, k, convention="letor"):
    """Warn (or collect) :func:`short_query_message` for NDCG@k, LETOR rules."""
    msg = short_query_message(sizes, k, convention)
    if msg is None:
        return
    notes = _COLLECTOR.get()
    if notes is not None:
        short = int(np.count_nonzero(np.asarray(sizes) < k))
        # keep, per cutoff, the note of the call with the most short queries
        if k not in notes or short > notes[k][0]:
            notes[k] = (short, msg)
        return
    warnings.warn(msg, ShortQueryWarning, stacklevel=user_stacklevel())


class short_query_warnings_once:
    """Context manager: within the block, the :class:`ShortQueryWarning` of every NDCG
    call is gathered and one warning per cutoff is issued at its end (the call that
    found the most short queries), so a grid search scoring many folds and regparams
    warns once, pointing at the user's call. Nested blocks gather into the
    outermost."""

    def __enter__(self):
        self._token = None
        if _COLLECTOR.get() is None:
            self._notes = {}
            self._token = _COLLECTOR.set(self._notes)
        return self

    def __exit__(self, *exc):
        if self._token is None:
            return False
        _COLLECTOR.reset(self._token)
        for k in sorted(self._notes):
            warnings.warn(self._notes[k][1], ShortQueryWarning,
                          stacklevel=user_stacklevel())
        return False
