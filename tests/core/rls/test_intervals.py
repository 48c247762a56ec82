"""Jackknife+, CV+ and variants from the exact hold-out models against brute force:
every hold-out model refitted without its example / fold, the intervals computed
from the paper's definitions (Barber et al., Ann. Statist. 2021) by sorting."""

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np
import pytest

from rlscore.core.rls import IntervalModel, conformal_ranks
from rlscore.core.nystrom import RLSModel
from rlscore.learner import RLS, KfoldRLS, LeaveOneOutRLS

RTOL = 1e-8

CASES = {
    "dual-gaussian": dict(kernel="GaussianKernel", gamma=0.3),
    "dual-linear": dict(kernel="LinearKernel", prefer="dual"),
    "primal-linear": dict(kernel="LinearKernel", bias=2.0),
    "nystrom-removal": dict(kernel="GaussianKernel", gamma=0.3,
                            basis_indices=[0, 3, 5, 8, 16, 19]),
    # with ties=True rows 10 and 13 duplicate rows 0 and 3: removing one copy of a
    # basis vector keeps its twin
    "nystrom-removal-twins": dict(kernel="GaussianKernel", gamma=0.3,
                                  basis_indices=[0, 3, 5, 8, 10, 13]),
    "nystrom-kept": dict(kernel="GaussianKernel", gamma=0.3, basis_indices=[0, 3, 5, 8],
                         keep_basis_in_cv=True),
    "nystrom-basis-vectors": dict(kernel="PolynomialKernel", gamma=0.5, degree=2,
                                  coef0=1.0, basis_vectors="first6"),
}


def _data(m=24, d=3, n=9, p=1, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    Y = X @ rng.normal(size=(d, p)) + 0.5 * rng.normal(size=(m, p))
    if ties:     # duplicated examples: equal leave-one-out residuals
        X[m // 2:] = X[:m - m // 2]
        Y[m // 2:] = Y[:m - m // 2]
    Xt = rng.normal(size=(n, d))
    return X, (Y[:, 0] if p == 1 else Y), Xt


def _kwargs(case, X, keep=None):
    kw = dict(CASES[case])
    if kw.get("basis_vectors") == "first6":
        kw["basis_vectors"] = X[:6]
    if keep is not None and "basis_indices" in kw:
        bi = [j for j in kw["basis_indices"] if j in set(keep.tolist())]
        if kw.get("keep_basis_in_cv"):
            bi = kw["basis_indices"]       # kept: held-out rows stay basis vectors
            kw = dict(kw, basis_indices=None, keep_basis_in_cv=None)
            kw["basis_vectors"] = X[bi]
            kw = {k: v for k, v in kw.items() if v is not None}
        else:
            kw["basis_indices"] = np.searchsorted(keep, bi)
    return kw


def _refit(case, X, Y, lam, keep, Xt):
    kw = _kwargs(case, X, keep)
    kw.pop("prefer", None)
    kw.pop("keep_basis_in_cv", None)
    model = RLS(X[keep], Y[keep], regparam=lam, **kw)
    return np.reshape(model.predict(Xt), (Xt.shape[0], -1)), \
        np.reshape(model.predict(X), (X.shape[0], -1))


def _brute_holdout(case, X, Y, lam, Xt, folds):
    """(mu (n, m, p), residuals (m, p)): the model without the fold of each row."""
    m = X.shape[0]
    Y2 = np.reshape(Y, (m, -1))
    mu = np.empty((Xt.shape[0], m, Y2.shape[1]))
    res = np.empty_like(Y2)
    for f in folds:
        keep = np.setdiff1d(np.arange(m), f)
        Pt, Ptr = _refit(case, X, Y, lam, keep, Xt)
        mu[:, f, :] = Pt[:, None, :]
        res[f] = Y2[f] - Ptr[f]
    return mu, res


def _ranks(m, alpha):
    """The paper's ranks, by decimal arithmetic (independent of the library's)."""
    a = Decimal(repr(alpha))
    lo = int((a * (m + 1)).to_integral_value(rounding=ROUND_FLOOR))
    hi = int(((1 - a) * (m + 1)).to_integral_value(rounding=ROUND_CEILING))
    return lo, hi


def _reference(mu, res, f, alpha, method):
    """Intervals of Barber et al. from sorted values (mu (n, m), res (m,), f (n,))."""
    m = res.size
    lo_k, hi_k = _ranks(m, alpha)
    R = np.abs(res)

    def qplus(v):
        return np.inf if hi_k > m else np.sort(v)[hi_k - 1]

    def qminus(v):
        return -np.inf if lo_k < 1 else np.sort(v)[lo_k - 1]

    if method in ("jackknife", "cv"):
        return f - qplus(R), f + qplus(R)
    if method.endswith("minmax"):
        return mu.min(axis=1) - qplus(R), mu.max(axis=1) + qplus(R)
    return (np.array([qminus(mu[t] - R) for t in range(mu.shape[0])]),
            np.array([qplus(mu[t] + R) for t in range(mu.shape[0])]))


def _assert_close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert np.array_equal(np.isinf(a), np.isinf(b))
    fin = np.isfinite(b)
    np.testing.assert_allclose(a[fin], b[fin], rtol=RTOL,
                               atol=RTOL * np.abs(b[fin]).max(initial=0.0))


# -- the quantile rule ---------------------------------------------------------------

@pytest.mark.parametrize("m, alpha, expected", [
    (9, 0.1, (1, 9)),       # (1 - 0.1) * 10 = 9 exactly
    (10, 0.1, (1, 10)),     # 9.9 -> 10; 1.1 -> 1
    (19, 0.1, (2, 18)),     # 18 exactly
    (5, 0.1, (0, 6)),       # 5.4 -> 6 > m: infinite bounds
    (9, 0.3, (3, 7)),       # 7 exactly, although (1 - 0.3) * 10 = 7.000000000000001
    (9, 0.7, (7, 3)),       # (1 - 0.7) * 10 = 3.0000000000000004 in floating point
    (12, 0.25, (3, 10)),    # 9.75 -> 10; 3.25 -> 3
    (7, 0.2, (1, 7)),       # 6.4 -> 7; 1.6 -> 1
    (100, 0.05, (5, 96)),   # 95.95 -> 96; 5.05 -> 5
    (2000, 0.1, (200, 1801)),
])
def test_conformal_ranks_hand_computed(m, alpha, expected):
    assert conformal_ranks(m, alpha) == expected
    assert sum(conformal_ranks(m, alpha)) == m + 1


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_alpha_out_of_range(alpha):
    X, y, Xt = _data()
    with pytest.raises(ValueError, match="alpha"):
        RLS(X, y, regparam=1.0).predict_interval(Xt, alpha=alpha)


@pytest.mark.parametrize("alpha", ["0.1", None, True])
def test_alpha_wrong_type(alpha):
    X, y, Xt = _data()
    with pytest.raises(TypeError, match="alpha"):
        RLS(X, y, regparam=1.0).predict_interval(Xt, alpha=alpha)


# -- the hold-out models at new points ----------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("lam", [1e-3, 1.0, 1e3])
def test_loo_predictions_at_new_points_equal_refits(case, lam):
    X, Y, Xt = _data(p=2, seed=1)
    m = X.shape[0]
    model = RLSModel(X, Y, lam, **_kwargs(case, X))
    im = model.interval_model("jackknife+")
    mu, res = _brute_holdout(case, X, Y, lam, Xt, [[i] for i in range(m)])
    for j in range(2):
        _assert_close(im.holdout_predictions(Xt, output=j), mu[:, :, j])
    _assert_close(im.residuals, res)


@pytest.mark.parametrize("case", sorted(CASES))
def test_fold_models_at_new_points_equal_refits(case):
    X, Y, Xt = _data(p=2, seed=2)
    folds = [np.arange(0, 24, 3), np.arange(1, 24, 3), np.arange(2, 24, 3)]
    model = RLSModel(X, Y, 0.7, **_kwargs(case, X))
    im = model.interval_model("cv+", folds=folds)
    mu, res = _brute_holdout(case, X, Y, 0.7, Xt, folds)
    for j in range(2):
        _assert_close(im.holdout_predictions(Xt, output=j), mu[:, :, j])
    _assert_close(im.residuals, res)


# -- the intervals -------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("ties", [False, True])
def test_jackknife_intervals_equal_brute_force(case, ties):
    X, y, Xt = _data(m=21, seed=3, ties=ties)
    m = X.shape[0]
    lam = 0.5
    kw = _kwargs(case, X)
    learner = RLS(X, y, regparam=lam, **{k: v for k, v in kw.items() if k != "prefer"})
    mu, res = _brute_holdout(case, X, y, lam, Xt, [[i] for i in range(m)])
    f = learner.predict(Xt)
    if ties:
        assert np.unique(np.round(np.abs(res[:, 0]), 10)).size < m   # residuals tie
    for alpha in (0.1, 0.25, 0.3, 0.04):
        for method in ("jackknife", "jackknife+", "jackknife-minmax"):
            pred, lo, hi = learner.predict_interval(Xt, alpha=alpha, method=method)
            rlo, rhi = _reference(mu[:, :, 0], res[:, 0], f, alpha, method)
            np.testing.assert_allclose(pred, f, rtol=1e-12)
            _assert_close(lo, rlo)
            _assert_close(hi, rhi)


@pytest.mark.parametrize("case", ["dual-gaussian", "primal-linear", "nystrom-removal"])
def test_cv_plus_equal_brute_force(case):
    X, y, Xt = _data(m=22, seed=4)
    m = X.shape[0]
    rng = np.random.default_rng(5)
    perm = rng.permutation(m)
    folds = [np.sort(perm[k::4]) for k in range(4)]
    learner = RLS(X, y, regparam=0.3, **_kwargs(case, X))
    mu, res = _brute_holdout(case, X, y, 0.3, Xt, folds)
    f = learner.predict(Xt)
    for alpha in (0.1, 0.2, 0.35):
        for method in ("cv", "cv+", "cv-minmax"):
            _, lo, hi = learner.predict_interval(Xt, alpha, method, folds=folds)
            rlo, rhi = _reference(mu[:, :, 0], res[:, 0], f, alpha, method)
            _assert_close(lo, rlo)
            _assert_close(hi, rhi)


def test_cv_plus_with_groups_holds_out_whole_groups():
    X, y, Xt = _data(m=20, seed=6)
    groups = np.repeat(["a", "b", "c", "d", "e"], 4)[np.random.default_rng(1).permutation(20)]
    folds = [np.flatnonzero(groups == g) for g in "abcde"]
    learner = RLS(X, y, regparam=0.2, kernel="GaussianKernel", gamma=0.3)
    mu, res = _brute_holdout("dual-gaussian", X, y, 0.2, Xt, folds)
    _, lo, hi = learner.predict_interval(Xt, 0.2, "cv+", groups=groups)
    rlo, rhi = _reference(mu[:, :, 0], res[:, 0], learner.predict(Xt), 0.2, "cv+")
    _assert_close(lo, rlo)
    _assert_close(hi, rhi)
    # n_folds folds of whole groups: no group is split between folds
    im = learner._model.interval_model("cv+", groups=groups, n_folds=2, seed=3)
    for g in "abcde":
        assert np.unique(im.fold_of[groups == g]).size == 1


def test_multi_output_and_chunks_agree_with_single_outputs():
    X, Y, Xt = _data(p=3, seed=7, n=40)
    model = RLSModel(X, Y, 0.4, kernel="GaussianKernel", gamma=0.2)
    im = model.interval_model()
    full = im.predict_interval(Xt, 0.2)
    chunked = im.predict_interval(Xt, 0.2, max_bytes=1)       # one test point per chunk
    for a, b in zip(full, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for j in range(3):
        single = RLSModel(X, Y[:, j], 0.4, kernel="GaussianKernel", gamma=0.2)
        for a, b in zip(full, single.interval_model().predict_interval(Xt, 0.2)):
            np.testing.assert_allclose(a[:, j], b[:, 0], rtol=1e-10)


def test_infinite_bounds_when_alpha_below_one_over_m_plus_one():
    X, y, Xt = _data(m=8)
    learner = RLS(X, y, regparam=1.0)
    _, lo, hi = learner.predict_interval(Xt, alpha=0.1)       # 0.9 * 9 = 8.1 -> 9 > 8
    assert np.all(np.isneginf(lo)) and np.all(np.isposinf(hi))
    _, lo, hi = learner.predict_interval(Xt, alpha=0.12)      # 0.88 * 9 = 7.92 -> 8
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))


def test_jackknife_plus_contains_jackknife_minmax_relation():
    """minmax contains jackknife+ (the paper, Sect. 3)."""
    X, y, Xt = _data(m=30, seed=8, n=20)
    learner = RLS(X, y, regparam=0.1, kernel="GaussianKernel", gamma=0.4)
    _, lo, hi = learner.predict_interval(Xt, 0.2, "jackknife+")
    _, lo2, hi2 = learner.predict_interval(Xt, 0.2, "jackknife-minmax")
    assert np.all(lo2 <= lo + 1e-12) and np.all(hi <= hi2 + 1e-12)


# -- faces and bad input -------------------------------------------------------------

def test_selection_wrappers_use_the_selected_model_and_folds():
    X, y, Xt = _data(m=24, seed=9)
    grid = [0.01, 0.1, 1.0, 10.0]
    loo = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=0.3, regparams=grid)
    direct = RLS(X, y, regparam=loo.regparam, kernel="GaussianKernel", gamma=0.3)
    for a, b in zip(loo.predict_interval(Xt), direct.predict_interval(Xt)):
        np.testing.assert_allclose(a, b, rtol=1e-9)
    folds = [np.arange(k, 24, 4) for k in range(4)]
    kf = KfoldRLS(X, y, folds, kernel="GaussianKernel", gamma=0.3, regparams=grid)
    direct = RLS(X, y, regparam=kf.regparam, kernel="GaussianKernel", gamma=0.3)
    for a, b in zip(kf.predict_interval(Xt, method="cv+"),
                    direct.predict_interval(Xt, method="cv+", folds=folds)):
        np.testing.assert_allclose(a, b, rtol=1e-9)


def test_bad_methods_and_folds():
    X, y, Xt = _data(m=12)
    learner = RLS(X, y, regparam=1.0)
    with pytest.raises(ValueError, match="method"):
        learner.predict_interval(Xt, method="split")
    with pytest.raises(ValueError, match="needs folds"):
        learner.predict_interval(Xt, method="cv+")
    with pytest.raises(ValueError, match="cover every"):
        learner.predict_interval(Xt, method="cv+", folds=[[0, 1, 2], [3, 4]])
    with pytest.raises(ValueError, match="disjoint"):
        learner.predict_interval(Xt, method="cv+", folds=[np.arange(7), np.arange(6, 12)])
    with pytest.raises(ValueError, match="at least 2"):
        learner.predict_interval(Xt, method="cv+", folds=[np.arange(12)])
    with pytest.raises(ValueError, match="one row at a time"):
        learner.predict_interval(Xt, method="jackknife+", folds=[[0], [1]])
    im = learner._model.interval_model("cv+", n_folds=3)
    with pytest.raises(ValueError, match="leave-one-out"):
        im.predict_interval(Xt, 0.1, "jackknife+")
    with pytest.raises(ValueError, match="groups"):
        learner.predict_interval(Xt, method="cv+", groups=np.zeros(12))


def test_interval_model_round_trips_through_arrays():
    X, y, Xt = _data(m=15)
    for kw in (dict(kernel="GaussianKernel", gamma=0.3), dict(kernel="LinearKernel")):
        learner = RLS(X, y, regparam=0.5, **kw)
        for method, extra in (("jackknife+", {}), ("cv+", {"n_folds": 3})):
            im = learner._model.interval_model(method, **extra)
            info, arrays = im.to_arrays()
            back = IntervalModel.from_arrays(learner.predictor, info, arrays)
            for a, b in zip(im.predict_interval(Xt, 0.2, method),
                            back.predict_interval(Xt, 0.2, method)):
                np.testing.assert_allclose(a, b, rtol=1e-12)


def test_memory_is_estimated_before_the_m_by_m_work(monkeypatch):
    import rlscore._validation as validation
    X, y, Xt = _data(m=30)
    learner = RLS(X, y, regparam=1.0, kernel="GaussianKernel", gamma=0.3)
    monkeypatch.setattr(validation, "available_memory", lambda: 10_000)
    with pytest.raises(MemoryError, match="leave-one-out models"):
        learner.predict_interval(Xt)
    with pytest.raises(MemoryError, match="inverse"):
        learner.predict_interval(Xt, method="cv+", n_folds=3)
