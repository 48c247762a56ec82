"""GreedyRLS: greedy forward feature selection for linear RLS by the exact
leave-one-out error, in O(k m d) time (Pahikkala, Airola and Salakoski 2010), with
RLScore's interface; and GreedyRankRLS, its leave-query-out variant for query data."""

import sys

import numpy as np

from rlscore.core.rls import greedy_forward_selection
from rlscore._validation import warn_unused_kwargs
from rlscore.predictor import LinearPredictor, PredictorInterface
from rlscore.learner._common import reports_progress

__all__ = ["GreedyRLS", "GreedyRankRLS", "DefaultCallback", "SELECTED_FEATURES",
           "GREEDYRLS_LOO_PERFORMANCES", "GREEDYRLS_TEST_PERFORMANCES"]

SELECTED_FEATURES = "selected_features"
GREEDYRLS_LOO_PERFORMANCES = "GreedyRLS_LOO_performances"
GREEDYRLS_TEST_PERFORMANCES = "GreedyRLS_test_performances"

_LEGACY_KEYWORDS = ("use_default_callback", "test_features", "test_labels", "test_measure")


class DefaultCallback:
    """Progress printer of RLScore's GreedyRLS (installed by ``use_default_callback=
    True``): after each step it prints the criterion and the selected features, and,
    when ``test_features`` and ``test_labels`` are given, the test performance by
    ``test_measure`` (a measure function or its name in :mod:`rlscore.measure`;
    default the mean squared error), which it also appends to
    ``learner.results[GREEDYRLS_TEST_PERFORMANCES]``. Printing is its only other
    effect."""

    def __init__(self, **kwargs):
        self.test_features = kwargs.get("test_features")
        self.test_labels = kwargs.get("test_labels")
        measure = kwargs.get("test_measure")
        if isinstance(measure, str):
            from rlscore import measure as measures
            measure = getattr(measures, measure)
        if measure is None:
            from rlscore.measure import sqerror as measure
        self.test_measure = measure

    def callback(self, learner):
        # RLScore's output, on stdout (the library's own progress is verbose=True)
        sys.stdout.write(f"LOO error {learner.bestlooperf:.6g}; selected "
                         f"{learner.selected}\n")
        if self.test_features is not None and self.test_labels is not None:
            perf = self.test_measure(self.test_labels, learner.predict(self.test_features))
            learner.results.setdefault(GREEDYRLS_TEST_PERFORMANCES, []).append(perf)
            sys.stdout.write(f"test performance {perf:.6g}\n")

    def finished(self, learner):
        pass


class _GreedyBase(PredictorInterface):
    """Runs the core selection and keeps RLScore's attributes up to date."""

    def _train(self, X, Y, subsetsize, regparam, bias, qids, callbackfun, kwargs):
        warn_unused_kwargs(kwargs, _LEGACY_KEYWORDS, type(self).__name__, stacklevel=4)
        if callbackfun is None and kwargs.get("use_default_callback"):
            callbackfun = DefaultCallback(**kwargs)
        self.callbackfun = callbackfun
        self.regparam = regparam
        self.bias = bias
        self.selected = []
        self.performances = []
        self.results = {SELECTED_FEATURES: self.selected,
                        GREEDYRLS_LOO_PERFORMANCES: self.performances}
        self.bestlooperf = None

        def cb(state):
            self._sync(state)
            if callbackfun is not None:
                callbackfun.callback(self)
            return False

        state = greedy_forward_selection(X, Y, subsetsize, regparam, bias, qids=qids,
                                         callback=cb)
        self._state = state
        if not state.selected:
            self._sync(state)
        self.skipped_features = state.skipped.tolist()
        if callbackfun is not None and hasattr(callbackfun, "finished"):
            callbackfun.finished(self)

    def _sync(self, state):
        self.selected[:] = state.selected
        self.performances[:] = state.performances
        d, l = state.d, state.l
        if state.scores is None:
            self.looperf = np.full((1, d), np.inf)
        else:
            looperf = np.array(state.scores)
            looperf[state.selected[:-1]] = np.inf
            self.looperf = looperf.reshape(1, d)
        self.bestlooperf = state.performances[-1] if state.performances else None
        W, b = state.weights()
        self.A = W
        self.b = b.reshape(1, l)
        self.predictor = LinearPredictor(W, b if state.bias > 0 else 0.0)


class GreedyRLS(_GreedyBase):
    """Greedy forward feature selection for linear RLS by the exact leave-one-out
    error; trains in the constructor.

    Each step adds the not yet selected feature whose addition gives the smallest
    leave-one-out mean squared error (over all samples and outputs: the outputs are
    selected for jointly) of RLS with the given ``regparam`` and the constant feature
    ``sqrt(bias)`` (always in the model). Ties go to the lowest feature index. The
    final model equals ``RLS(X[:, selected], Y, regparam, bias=bias)``.

    Parameters
    ----------
    X : array-like or sparse (m, d)
        Sparse X is not densified as a whole (only the d x m cache G X is dense).
    Y : array-like (m,) or (m, l)
    subsetsize : int, 0 <= subsetsize <= d
        Number of features to select (0 gives the bias-only model).
    regparam : float > 0, default 1.0
    bias : float >= 0, default 1.0
    callbackfun : object with ``callback(learner)`` and optionally ``finished(learner)``
        ``callback`` runs after each selection, when ``selected``, ``performances``,
        ``looperf``, ``bestlooperf``, ``A``, ``b`` and ``predictor`` are up to date
        (``learner.predict`` works); ``finished`` once at the end.
    verbose : bool, default False
        Show the selected feature and its criterion after each step on stderr (the
        steps are logged either way, logger ``"rlscore"``; see :mod:`rlscore._progress`).
    **kwargs
        ``use_default_callback=True`` installs :class:`DefaultCallback` (with
        ``test_features``, ``test_labels``, ``test_measure``); other keywords are
        ignored with a UserWarning (a ``callback=`` keyword is *not* the callback).

    Attributes
    ----------
    selected : list of int
        The selected features, in selection order.
    performances : list of float
        The winning leave-one-out MSE after each step.
    predictor : LinearPredictor
        ``W`` (d,) or (d, l) with zeros for the unselected features; ``b``.
    A : ndarray (d, l)
        The weights (2-D even for one output).
    b : ndarray (1, l)
        The intercept.
    looperf : ndarray (1, d)
        The last step's leave-one-out MSE of adding each feature (+inf for features
        selected earlier, and for skipped features).
    bestlooperf : float
        The last winning MSE.
    results : dict
        ``{SELECTED_FEATURES: selected, GREEDYRLS_LOO_PERFORMANCES: performances}``.
    skipped_features : list of int
        All-zero columns and, when bias > 0, constant columns (they duplicate the bias
        feature): never selected; a UserWarning names them.
    regparam, bias

    Raises
    ------
    ValueError
        subsetsize negative or larger than the number of usable features; regparam
        <= 0; mismatched X and Y; NaN or infinite data.

    Notes
    -----
    O(k m d l) time and O(m d) memory for k = subsetsize (Pahikkala, Airola and
    Salakoski 2010): the leave-one-out error of every candidate is computed from
    rank-one updates of (X_S X_S^T + regparam I)^{-1} in O(m l), in one parallel pass
    over the cache per step (``rlscore._ext._greedy``). No ``solve`` method.
    """

    @reports_progress
    def __init__(self, X, Y, subsetsize, regparam=1.0, bias=1.0, callbackfun=None,
                 verbose=False, **kwargs):
        self._train(X, Y, subsetsize, regparam, bias, None, callbackfun, kwargs)


class GreedyRankRLS(_GreedyBase):
    """Greedy forward feature selection for query-structured RankRLS by the exact
    leave-query-out error (Greedy RankRLS); trains in the constructor.

    The model of a feature set S is :class:`rlscore.learner.QueryRankRLS` on the
    columns S (linear, per-query centering, no intercept). Each step adds the feature
    minimizing the leave-query-out error: every query is predicted by the model
    trained without it, and the error is the mean over the rows of the squared
    query-centred residuals, ``sum_q (1 / n_q) sum_{i<j in q} ((y_i - y_j) -
    (f_i - f_j))^2 / (n l)`` (n rows in queries of two or more items, l outputs).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    Y : array-like (m,) or (m, l)
    qids : sequence of length m
        Query ids (grouped by equal value). Single-item queries carry no pairs and
        do not take part.
    subsetsize : int, 0 <= subsetsize <= d
    regparam : float > 0, default 1.0
    callbackfun, verbose : as for :class:`GreedyRLS`
    **kwargs
        Ignored with a UserWarning.

    Attributes
    ----------
    As :class:`GreedyRLS`, with ``performances``, ``looperf`` and ``bestlooperf`` the
    leave-query-out errors and ``b`` zeros. ``skipped_features`` lists the columns that
    are constant within every query.

    Notes
    -----
    O(k d (sum_q n_q^2 + m l)) time and O(m d + sum_q n_q^2) memory.
    """

    @reports_progress
    def __init__(self, X, Y, qids, subsetsize, regparam=1.0, callbackfun=None,
                 verbose=False, **kwargs):
        if qids is None:
            raise ValueError("GreedyRankRLS needs qids (use GreedyRLS without queries)")
        self._train(X, Y, subsetsize, regparam, 0.0, qids, callbackfun, kwargs)
