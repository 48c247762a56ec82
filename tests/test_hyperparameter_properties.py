"""Property tests: random malformed hyper-parameters on every learner and estimator.

Each draw either raises a clear ``ValueError``/``TypeError`` naming the parameter, or
trains a model whose predictions are finite. Never NaN predictions without an error,
never another exception (OverflowError, ZeroDivisionError, AttributeError...).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rlscore.estimators as E
import rlscore.learner as L

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 3))
Y = X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.standard_normal(16)
Q = np.repeat(np.arange(4), 4)
S, T = np.array([0, 2, 4, 6, 8]), np.array([1, 3, 5, 7, 9])
X1, X2 = rng.standard_normal((4, 2)), rng.standard_normal((5, 3))
YK = rng.standard_normal(20)
GRID = {"regparams": [0.5, 2.0]}   # a short grid unless the grid itself is perturbed
ROWS, COLS = np.repeat(np.arange(4), 5)[:14], np.tile(np.arange(5), 4)[:14]

BAD = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, -1e-300, 1e308, -1e308, 5e-324, 1e300, 10**400, 2**64, 500,
                     10**6, 0.5, 2.5, True, False, None, "1", "nan", [1.0], (), {},
                     np.float64("nan"), np.array(1.0), np.array([1.0, 2.0]), 1 + 2j]),
    st.integers(min_value=-10**30, max_value=10**30),
)

# name -> (factory(**params) returning a callable that predicts on training data,
#          the hyper-parameters to perturb)
LEARNERS = {
    "RLS": (lambda **k: L.RLS(X, Y, **k), ["regparam", "bias"]),
    "RLS-gauss": (lambda **k: L.RLS(X, Y, kernel="GaussianKernel", **k),
                  ["regparam", "gamma"]),
    "RLS-poly": (lambda **k: L.RLS(X, Y, kernel="PolynomialKernel", **k),
                 ["gamma", "coef0", "degree"]),
    "LeaveOneOutRLS": (lambda **k: L.LeaveOneOutRLS(X, Y, **{**GRID, **k}), ["bias", "regparams"]),
    "KfoldRLS": (lambda **k: L.KfoldRLS(X, Y, [list(range(8)), list(range(8, 16))],
                                            **{**GRID, **k}),
                 ["bias", "regparams"]),
    "LeavePairOutRLS": (lambda **k: L.LeavePairOutRLS(X, Y, **{**GRID, **k}), ["bias", "regparams"]),
    "GlobalRankRLS": (lambda **k: L.GlobalRankRLS(X, Y, **k), ["regparam", "bias"]),
    "KfoldRankRLS": (lambda **k: L.KfoldRankRLS(X, Y, [list(range(8)),
                                                       list(range(8, 16))],
                                                **{**GRID, **k}),
                     ["bias", "regparams"]),
    "LeavePairOutRankRLS": (lambda **k: L.LeavePairOutRankRLS(X, Y, **{**GRID, **k}),
                            ["bias", "regparams"]),
    "QueryRankRLS": (lambda **k: L.QueryRankRLS(X, Y, Q, **k), ["regparam", "bias"]),
    "LeaveQueryOutRankRLS": (lambda **k: L.LeaveQueryOutRankRLS(X, Y, Q, **{**GRID, **k}),
                             ["bias", "regparams"]),
    "PPRankRLS": (lambda **k: L.PPRankRLS(X, S, T, **k), ["regparam", "bias"]),
    "CGRLS": (lambda **k: L.CGRLS(X, Y, **k), ["regparam", "bias", "tol", "maxiter"]),
    "CGRankRLS": (lambda **k: L.CGRankRLS(X, Y, qids=Q, **k),
                  ["regparam", "tol", "maxiter"]),
    "PCGRankRLS": (lambda **k: L.PCGRankRLS(X, np.c_[S, T], **k),
                   ["regparam", "tol", "maxiter"]),
    "GreedyRLS": (lambda **k: L.GreedyRLS(X, Y, 2, **k), ["regparam", "bias"]),
    "GreedyRankRLS": (lambda **k: L.GreedyRankRLS(X, Y, Q, 2, **k), ["regparam"]),
    "LinearRankSVM": (lambda **k: L.LinearRankSVM(X, Y, **k),
                      ["regparam", "bias", "tol", "max_iter"]),
    "PPLinearRankSVM": (lambda **k: L.PPLinearRankSVM(X, S, T, **k),
                        ["regparam", "tol", "max_iter"]),
    "KernelRankSVM": (lambda **k: L.KernelRankSVM(X, Y, **k),
                      ["regparam", "gamma", "tol", "max_iter"]),
    "KfoldLinearRankSVM": (lambda **k: L.KfoldLinearRankSVM(X, Y, n_folds=2, **k),
                           ["regparams", "tol", "max_iter"]),
}

KRON = {
    "KronRLS": (lambda **k: L.KronRLS(X1=X1, X2=X2, Y=YK, **k), ["regparam"]),
    "KronRLS-gauss": (lambda **k: L.KronRLS(X1=X1, X2=X2, Y=YK, kernel="GaussianKernel",
                                            **k), ["regparam", "gamma"]),
    "TwoStepRLS": (lambda **k: L.TwoStepRLS(X1=X1, X2=X2, Y=YK, **k),
                   ["regparam1", "regparam2"]),
    "CGKronRLS": (lambda **k: L.CGKronRLS(X1=X1, X2=X2, Y=YK[:14], label_row_inds=ROWS,
                                          label_col_inds=COLS, **k),
                  ["regparam", "maxiter"]),
}

ESTIMATORS = {
    "KernelRLS": (E.KernelRLS, ["alpha", "bias", "gamma", "degree", "coef0"], "poly"),
    "KernelRLSCV": (E.KernelRLSCV, ["alphas", "bias"], "linear"),
    "RankRLS": (E.RankRLS, ["alpha", "gamma", "degree", "coef0"], "poly"),
    "RankRLSCV": (E.RankRLSCV, ["alphas", "gamma"], "rbf"),
    "CGRLSRegressor": (E.CGRLSRegressor, ["alpha", "bias", "tol", "max_iter"], None),
    "CGRankRLSRanker": (E.CGRankRLSRanker, ["alpha", "tol", "max_iter"], None),
    "GreedyRLSSelector": (E.GreedyRLSSelector, ["alpha", "bias", "n_features_to_select"],
                          None),
    "RankSVM": (E.RankSVM, ["alpha", "tol", "max_iter", "gamma"], "rbf"),
    "PairwiseRLS": (E.PairwiseRLS, ["alpha", "gamma", "tol", "max_iter"], "rbf"),
    "PairwiseRLSCV": (E.PairwiseRLSCV, ["alphas", "gamma", "n_folds", "cv"], "rbf"),
    "PairwiseSVM": (E.PairwiseSVM, ["alpha", "gamma", "tol", "max_iter"], "rbf"),
}

# FloatingPointError: a numerical breakdown reported with a message (e.g. greedy
# selection at a regparam of 1e-313); ZeroDivisionError/OverflowError are not clear
_CLEAR = (ValueError, TypeError, FloatingPointError)


def _value_for(name, v):
    if name in ("regparams", "alphas"):   # grids: one bad entry among good ones
        return [1.0, v]
    return v


def _outcome(train, predict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = train()
        except _CLEAR as exc:
            assert str(exc), "an error without a message"
            return "refused"
        try:
            # a learner may defer training (KronRLS(regparam=None) decomposes and
            # waits for solve()): predict must then refuse clearly
            P = np.asarray(predict(model), dtype=float)
        except _CLEAR as exc:
            assert str(exc), "an error without a message"
            return "refused at predict"
    assert np.all(np.isfinite(P)), "non-finite predictions without an error"
    return "trained"


_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", sorted(LEARNERS))
@_SETTINGS
@given(data=st.data())
def test_learners(name, data):
    factory, params = LEARNERS[name]
    p = data.draw(st.sampled_from(params), label="parameter")
    v = data.draw(BAD, label="value")
    _outcome(lambda: factory(**{p: _value_for(p, v)}), lambda m: m.predict(X))


@pytest.mark.parametrize("name", sorted(KRON))
@_SETTINGS
@given(data=st.data())
def test_kronecker_learners(name, data):
    factory, params = KRON[name]
    p = data.draw(st.sampled_from(params), label="parameter")
    v = data.draw(BAD, label="value")
    _outcome(lambda: factory(**{p: _value_for(p, v)}), lambda m: m.predict(X1, X2))


def _fit(cls, kernel, params):
    if cls is E.PairwiseRLS:
        pairs = np.c_[ROWS, COLS]
        est = cls(X1, X2, kernel=kernel, **params)
        return est.fit(pairs, YK[:14]), pairs
    if cls is E.PairwiseSVM:
        pairs = np.c_[ROWS, COLS]
        est = cls(X1, X2, kernel=kernel, **params)
        return est.fit(pairs, np.sign(YK[:14])), pairs
    if cls is E.PairwiseRLSCV:      # the complete grid of the 4 x 5 objects
        pairs = np.c_[np.repeat(np.arange(4), 5), np.tile(np.arange(5), 4)]
        est = cls(X1, X2, kernel=kernel, **params)
        return est.fit(pairs, YK), pairs
    kw = {"kernel": kernel} if kernel else {}
    est = cls(**kw, **params)
    if cls in (E.RankRLS, E.RankRLSCV, E.RankSVM, E.CGRankRLSRanker):
        return est.fit(X, Y, qid=Q) if cls is not E.RankRLSCV else est.fit(X, Y), X
    return est.fit(X, Y), X


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@_SETTINGS
@given(data=st.data())
def test_estimators(name, data):
    cls, params, kernel = ESTIMATORS[name]
    p = data.draw(st.sampled_from(params), label="parameter")
    v = data.draw(BAD, label="value")
    state = {}

    def train():
        est, Xp = _fit(cls, kernel, {p: _value_for(p, v)})
        state["X"] = Xp
        return est

    def predict(est):
        if cls is E.GreedyRLSSelector:
            return est.transform(X)
        return est.predict(state["X"])

    _outcome(train, predict)


def test_the_cases_of_the_issue_are_refused():
    """The silent NaN/garbage models listed in issue 18, one by one."""
    with pytest.raises(ValueError, match="bias"):
        L.RLS(X, Y, bias=np.nan)
    with pytest.raises(ValueError, match="bias"):
        L.RLS(X, Y, bias=-1)
    with pytest.raises(ValueError, match="bias"):
        L.RLS(X, Y, bias=np.inf)
    with pytest.raises(ValueError, match="coef0"):
        L.RLS(X, Y, kernel="PolynomialKernel", coef0=np.nan)
    with pytest.raises(ValueError, match="gamma"):
        L.RLS(X, Y, kernel="PolynomialKernel", gamma=np.nan)
    with pytest.raises(ValueError, match="degree"):
        L.RLS(X, Y, kernel="PolynomialKernel", degree=500)
    with pytest.raises(ValueError, match="scale the data"):
        L.RLS(X * 1e160, Y)
    with pytest.raises(ValueError, match="scale the data"):
        L.RLS(X * 1e200, Y, kernel="GaussianKernel")
    import scipy.sparse as sp
    Xs = sp.csr_matrix(X)
    Xs.data[3] = np.nan
    for learner in (L.RLS(X, Y), L.CGRLS(X, Y), L.LinearRankSVM(X, Y),
                    L.GreedyRLS(X, Y, 2), L.QueryRankRLS(X, Y, Q)):
        with pytest.raises(ValueError, match="NaN"):
            learner.predict(Xs)


def test_gaussian_kernel_never_nan_on_huge_but_accepted_values():
    from rlscore.kernel import GaussianKernel
    Z = X * 1e99
    K = GaussianKernel(Z, gamma=1.0).getKM(Z)
    assert np.all(np.isfinite(K))
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K - np.diag(np.diag(K)), 0.0)
    # a steep kernel on ordinary data: K = I exactly, RLS predicts y / (1 + lambda)
    P = L.RLS(X, Y, kernel="GaussianKernel", gamma=1e300, regparam=1.0).predict(X)
    np.testing.assert_allclose(P, Y / 2, rtol=1e-12)
