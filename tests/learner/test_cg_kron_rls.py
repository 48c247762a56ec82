"""CGKronRLS (incomplete pairwise data) against RLS on the explicitly sampled Kronecker
kernel: kernel and linear mode, callbacks, sums of kernels, a PairwiseKernelOperator,
a real stopping tolerance, conditional ranking, symmetric / reciprocal kernels."""

import warnings

import numpy as np
import numpy.linalg as nla
import pytest

from rlscore.learner.cg_kron_rls import CALLBACK_FUNCTION, CGKronRLS
from rlscore.learner.kron_rls import KronRLS
from rlscore.learner.rls import RLS
from rlscore.predictor import KernelPairwisePredictor, LinearPairwisePredictor
from rlscore.utilities import pairwise_kernel_operator
from rlscore.utilities.pairwise_kernel_operator import PairwiseKernelOperator


@pytest.fixture
def task(rng):
    n1, n2, d = 10, 13, 5
    X1 = rng.standard_normal((n1, d))
    X2 = rng.standard_normal((n2, d)) + 4
    X1t = rng.standard_normal((6, d))
    X2t = rng.standard_normal((7, d)) + 4
    Y = rng.choice([-1.0, 1.0], (n1, n2)).ravel(order="F")
    inc = rng.choice(n1 * n2, 40, replace=False)
    rows, cols = np.unravel_index(inc, (n1, n2), order="F")
    return dict(X1=X1, X2=X2, X1t=X1t, X2t=X2t, K1=X1 @ X1.T, K2=X2 @ X2.T,
                K1t=X1t @ X1.T, K2t=X2t @ X2.T, inc=inc, rows=rows, cols=cols, y=Y[inc])


def reference(t, lam):
    """RLS with the precomputed sampled kernel kron(K2, K1)[inc][:, inc]."""
    inc = t["inc"]
    rls = RLS(np.kron(t["K2"], t["K1"])[np.ix_(inc, inc)], t["y"], lam,
              kernel="PrecomputedKernel")
    return rls.predict(np.kron(t["K2t"], t["K1t"])[:, inc])


def test_kernel_and_linear_mode_equal_sampled_kernel_rls(task):
    t, lam = task, 1e-4
    ref = reference(t, lam)
    rounds = {"lin": 0, "ker": 0}

    class LinCB:
        def callback(self, learner):
            rounds["lin"] += 1
            P = LinearPairwisePredictor(learner.W).predict(t["X1t"], t["X2t"])
            assert P.shape == ref.shape

        def finished(self, learner):
            rounds["lin_finished"] = True

    class KerCB:
        def callback(self, learner):
            rounds["ker"] += 1
            P = KernelPairwisePredictor(learner.A, learner.input1_inds,
                                        learner.input2_inds).predict(t["K1t"], t["K2t"])
            np.testing.assert_allclose(P, learner.predict(t["K1t"], t["K2t"]))

        def finished(self, learner):
            rounds["ker_finished"] = True

    lin = CGKronRLS(X1=t["X1"], X2=t["X2"], Y=t["y"], label_row_inds=t["rows"],
                    label_col_inds=t["cols"], regparam=lam, callback=LinCB())
    ker = CGKronRLS(K1=t["K1"], K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                    label_col_inds=t["cols"], regparam=lam, callback=KerCB())
    np.testing.assert_allclose(lin.predict(t["X1t"], t["X2t"]), ref, atol=1e-5)
    np.testing.assert_allclose(ker.predict(t["K1t"], t["K2t"]), ref, atol=1e-4)
    assert rounds["lin"] == lin.iterations > 0 and rounds["ker"] == ker.iterations > 0
    assert rounds["lin_finished"] and rounds["ker_finished"]
    assert lin.convergence_info == 0 and ker.convergence_info == 0
    # index-pair predictions
    # (the dual coefficients are ~1e4 here: different summation orders agree to ~1e-9)
    P = ker.predict(t["K1t"], t["K2t"], [0, 0, 1], [0, 1, 0])
    np.testing.assert_allclose(P, ker.predict(t["K1t"], t["K2t"])[[0, 6, 1]], rtol=1e-7)
    P = lin.predict(t["X1t"], t["X2t"], [0, 0, 1], [0, 1, 0])
    np.testing.assert_allclose(P, lin.predict(t["X1t"], t["X2t"])[[0, 6, 1]], rtol=1e-9)
    assert ker.input1_inds.dtype == np.int32
    assert CALLBACK_FUNCTION == "callback"


@pytest.mark.parametrize("lam", [1e-2, 1.0, 100.0])
def test_dual_solution_solves_the_sampled_system(task, lam):
    t = task
    ker = CGKronRLS(K1=t["K1"] + np.eye(10), K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                    label_col_inds=t["cols"], regparam=lam, tol=1e-13)
    inc = t["inc"]
    Kq = np.kron(t["K2"], t["K1"] + np.eye(10))[np.ix_(inc, inc)]
    a = nla.solve(Kq + lam * np.eye(40), t["y"])
    np.testing.assert_allclose(ker.A, a, rtol=1e-7, atol=1e-9 * np.abs(a).max())


def test_repeated_pairs(rng):
    K1 = np.eye(4) + 0.5
    K2 = np.eye(3) + 0.2
    rows = np.array([0, 0, 1, 3, 0])
    cols = np.array([1, 1, 2, 0, 1])
    y = np.array([1.0, 2.0, -1.0, 0.5, 1.5])
    m = CGKronRLS(K1=K1, K2=K2, Y=y, label_row_inds=rows, label_col_inds=cols, regparam=0.5,
                  tol=1e-14)
    Kq = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
    np.testing.assert_allclose(m.A, nla.solve(Kq + 0.5 * np.eye(5), y), rtol=1e-8)


def test_sum_of_kernels_and_weights(task):
    t, lam = task, 1e-4
    ref = reference(t, lam)
    mk = CGKronRLS(K1=[t["K1"], t["K1"]], K2=[t["K2"], t["K2"]], weights=[1 / 3, 2 / 3],
                   Y=t["y"], label_row_inds=[t["rows"], t["rows"]],
                   label_col_inds=[t["cols"], t["cols"]], regparam=lam)
    P = mk.predict([t["K1t"], t["K1t"]], [t["K2t"], t["K2t"]])
    np.testing.assert_allclose(P, ref, atol=1e-3)
    assert mk.input1_inds.shape == (2, 40)
    P2 = KernelPairwisePredictor(mk.A, mk.input1_inds, mk.input2_inds,
                                 [1 / 3, 2 / 3]).predict([t["K1t"], t["K1t"]],
                                                         [t["K2t"], t["K2t"]])
    np.testing.assert_allclose(P2, P, rtol=1e-12)
    # linear list mode: the terms share one weight matrix
    ml = CGKronRLS(X1=[t["X1"], t["X1"]], X2=[t["X2"], t["X2"]], weights=[0.5, 0.5],
                   Y=t["y"], label_row_inds=t["rows"], label_col_inds=t["cols"], regparam=lam)
    np.testing.assert_allclose(ml.predict([t["X1t"], t["X1t"]], [t["X2t"], t["X2t"]]), ref,
                               atol=1e-4)


def test_pko_polynomial_kernel(task):
    """(k1 + k2)^2 on concatenated features as a three-term operator, as in upstream's
    test, against RLS with the explicit polynomial kernel."""
    t, lam = task, 1e-4
    r, c = t["rows"], t["cols"]
    K1, K2 = t["K1"], t["K2"]
    # domain-2 objects paired with domain-2 objects: kernels between the X2 sets
    pko = pairwise_kernel_operator.PairwiseKernelOperator(
        [K1, K1, K2], [K1, K2, K2], [r, r, c], [r, c, c], [r, r, c], [r, c, c],
        [1.0, 2.0, 1.0])
    learner = CGKronRLS(pko=pko, Y=t["y"], regparam=lam, tol=1e-13)
    tr, tc = np.unravel_index(np.arange(6 * 7), (6, 7), order="F")
    P = learner.predict([t["K1t"], t["K1t"], t["K2t"]], [t["K1t"], t["K2t"], t["K2t"]],
                        [tr, tr, tc], [tr, tc, tc])
    Xc = np.hstack([t["X1"][r], t["X2"][c]])
    Xct = np.hstack([t["X1t"][tr], t["X2t"][tc]])
    a = nla.solve((Xc @ Xc.T) ** 2 + lam * np.eye(40), t["y"])
    ref = ((Xct @ Xc.T) ** 2) @ a
    np.testing.assert_allclose(P, ref, rtol=1e-5, atol=1e-6 * np.abs(ref).max())
    test_pko = PairwiseKernelOperator([t["K1t"], t["K1t"], t["K2t"]],
                                      [t["K1t"], t["K2t"], t["K2t"]],
                                      [tr, tr, tc], [tr, tc, tc], [r, r, c], [r, c, c],
                                      [1.0, 2.0, 1.0])
    np.testing.assert_allclose(learner.predict(pko=test_pko), P, rtol=1e-12)
    assert learner.pko is pko


def test_tolerance_is_real_and_maxiter(task):
    t = task
    common = dict(K1=t["K1"] + np.eye(10), K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                  label_col_inds=t["cols"], regparam=1.0)
    inc = t["inc"]
    Kq = np.kron(t["K2"], t["K1"] + np.eye(10))[np.ix_(inc, inc)] + np.eye(40)
    iters = []
    for tol in (1e-2, 1e-6, 1e-12):
        m = CGKronRLS(tol=tol, **common)
        res = nla.norm(Kq @ m.A - t["y"]) / nla.norm(t["y"])
        assert m.convergence_info == 0
        assert res <= 10 * tol
        iters.append(m.iterations)
    assert iters[0] < iters[1] < iters[2] < 200
    m = CGKronRLS(maxiter=3, **common)
    assert m.iterations == 3 and m.convergence_info > 0


def test_regparam_zero_warns_and_negative_raises(task):
    t = task
    common = dict(K1=t["K1"], K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                  label_col_inds=t["cols"])
    with pytest.warns(UserWarning, match="singular"):
        CGKronRLS(maxiter=None, **common)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CGKronRLS(maxiter=5, **common)           # early stopping: no warning
    with pytest.raises(ValueError):
        CGKronRLS(regparam=-1.0, **common)
    with pytest.raises(ValueError):
        CGKronRLS(regparam=float("nan"), **common)


def test_compute_risk_keeps_best_iterate(task, capsys):
    t = task
    m = CGKronRLS(K1=t["K1"], K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                  label_col_inds=t["cols"], regparam=1.0, maxiter=4, compute_risk=True)
    # one line per iteration on stderr (rlscore._progress), whatever verbose
    err = capsys.readouterr().err
    assert err.count("(objective=") == 4
    assert m.A.shape == (40,)


def test_conditional_ranking_complete_data_equals_closed_form(rng):
    X1 = rng.standard_normal((6, 3))
    X2 = rng.standard_normal((5, 4))
    Y = rng.standard_normal((6, 5))
    K1, K2 = X1 @ X1.T + np.eye(6), X2 @ X2.T + np.eye(5)
    rows, cols = np.unravel_index(np.arange(30), (6, 5), order="F")
    closed = KronRLS(K1=K1, K2=K2, Y=Y)
    closed.solve_conditional_ranking(0.3)
    cg = CGKronRLS(K1=K1, K2=K2, Y=Y.ravel(order="F"), label_row_inds=rows,
                   label_col_inds=cols, regparam=0.3, conditional_ranking=True, tol=1e-13)
    X1t = rng.standard_normal((4, 3))
    X2t = rng.standard_normal((3, 4))
    K1t, K2t = X1t @ X1.T, X2t @ X2.T
    np.testing.assert_allclose(cg.predict(K1t, K2t), closed.predict(K1t, K2t), rtol=1e-7,
                               atol=1e-9)
    lin = CGKronRLS(X1=X1, X2=X2, Y=Y.ravel(order="F"), label_row_inds=rows,
                    label_col_inds=cols, regparam=0.3, conditional_ranking=True, tol=1e-13)
    closed_lin = KronRLS(X1=X1, X2=X2, Y=Y)
    closed_lin.solve_linear_conditional_ranking(0.3)
    np.testing.assert_allclose(lin.W, closed_lin.W.ravel(order="F"), rtol=1e-7, atol=1e-10)


def test_conditional_ranking_incomplete_equals_explicit(task):
    """(L Kq + l I) a = L y with L centring each group of pairs sharing a row."""
    t, lam = task, 0.5
    r = t["rows"]
    L = (r[:, None] == r[None, :]) / np.bincount(r, minlength=10)[r][None, :]
    L = np.eye(40) - L
    inc = t["inc"]
    K1 = t["K1"] + np.eye(10)
    Kq = np.kron(t["K2"], K1)[np.ix_(inc, inc)]
    a = nla.solve(L @ Kq + lam * np.eye(40), L @ t["y"])
    m = CGKronRLS(K1=K1, K2=t["K2"], Y=t["y"], label_row_inds=r, label_col_inds=t["cols"],
                  regparam=lam, conditional_ranking=True, tol=1e-13)
    np.testing.assert_allclose(m.A, a, rtol=1e-6, atol=1e-9 * np.abs(a).max())


def symmetric_pairwise(K, ra, rb, ca, cb, sign):
    return 0.5 * (K[np.ix_(ra, ca)] * K[np.ix_(rb, cb)] + sign * K[np.ix_(ra, cb)] * K[np.ix_(rb, ca)])


@pytest.mark.parametrize("kind,sign", [("symmetric", 1.0), ("reciprocal", -1.0)])
def test_symmetric_and_reciprocal_kernels_incomplete(rng, kind, sign):
    n = 8
    X = rng.standard_normal((n, 3))
    Xt = rng.standard_normal((5, 3))
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    Kt = np.exp(-0.5 * ((Xt[:, None] - X[None]) ** 2).sum(-1))
    a_, b_ = rng.integers(0, n, 30), rng.integers(0, n, 30)
    y = rng.standard_normal(30)
    m = CGKronRLS(K1=K, Y=y, label_row_inds=a_, label_col_inds=b_, regparam=0.1,
                  pairwise_kernel=kind, tol=1e-13)
    G = symmetric_pairwise(K, a_, b_, a_, b_, sign)
    alpha = nla.solve(G + 0.1 * np.eye(30), y)
    np.testing.assert_allclose(m.A, alpha, rtol=1e-6, atol=1e-9)
    u, v = rng.integers(0, 5, 12), rng.integers(0, 5, 12)
    ref = symmetric_pairwise(np.vstack([Kt]), u, v, a_, b_, sign) @ alpha
    np.testing.assert_allclose(m.predict(Kt, Kt, u, v), ref, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(m.predict(Kt, None, u, v), ref, rtol=1e-7, atol=1e-10)
    grid = m.predict(Kt).reshape(5, 5, order="F")
    np.testing.assert_allclose(grid, sign * grid.T, atol=1e-10)
    with pytest.raises(ValueError):
        CGKronRLS(X1=X, X2=X, Y=y, label_row_inds=a_, label_col_inds=b_, regparam=0.1,
                  pairwise_kernel=kind)


def test_reciprocal_game_outcomes_not_transposed(rng):
    """Player a beats b with margin s(a) - s(b): the predictions must follow the margin
    (not its negative), and swapping the label index vectors must give the model of the
    transposed relation exactly (catches a row/column mix-up in the sampled products)."""
    n = 30
    X = rng.uniform(-2, 2, (n, 1))
    skill = lambda Z: Z[:, 0] ** 3 - Z[:, 0]
    K = np.exp(-((X - X.T) ** 2))
    a_, b_ = rng.integers(0, n, 300), rng.integers(0, n, 300)
    y = skill(X)[a_] - skill(X)[b_]
    m = CGKronRLS(K1=K, K2=K, Y=y, label_row_inds=a_, label_col_inds=b_, regparam=1e-3,
                  tol=1e-10)
    swapped = CGKronRLS(K1=K, K2=K, Y=y, label_row_inds=b_, label_col_inds=a_,
                        regparam=1e-3, tol=1e-10)
    Xt = rng.uniform(-2, 2, (10, 1))
    Kt = np.exp(-((Xt - X.T) ** 2))
    u, v = rng.integers(0, 10, 40), rng.integers(0, 10, 40)
    truth = skill(Xt)[u] - skill(Xt)[v]
    P = m.predict(Kt, Kt, u, v)
    assert np.corrcoef(P, truth)[0, 1] > 0.95
    np.testing.assert_allclose(swapped.predict(Kt, Kt, u, v), m.predict(Kt, Kt, v, u),
                               rtol=1e-6, atol=1e-8)
    assert np.corrcoef(swapped.predict(Kt, Kt, u, v), -truth)[0, 1] > 0.95
    recip = CGKronRLS(K1=K, Y=y, label_row_inds=a_, label_col_inds=b_, regparam=1e-3,
                      pairwise_kernel="reciprocal", tol=1e-10)
    Pr = recip.predict(Kt, Kt, u, v)
    assert np.corrcoef(Pr, truth)[0, 1] > 0.95
    np.testing.assert_allclose(recip.predict(Kt, Kt, v, u), -Pr, rtol=1e-8, atol=1e-10)


def test_bad_input(task):
    t = task
    base = dict(K1=t["K1"], K2=t["K2"], Y=t["y"], label_row_inds=t["rows"],
                label_col_inds=t["cols"], regparam=1.0)
    with pytest.raises(IndexError):
        CGKronRLS(**{**base, "label_row_inds": t["rows"] + 10})
    with pytest.raises(ValueError, match="same length"):
        CGKronRLS(**{**base, "label_col_inds": t["cols"][:-1]})
    with pytest.raises(TypeError):
        CGKronRLS(**{k: v for k, v in base.items() if k != "label_col_inds"})
    with pytest.raises(ValueError, match="square"):
        CGKronRLS(**{**base, "K1": t["K1"][:, :4]})
    with pytest.raises(ValueError, match="NaN"):
        CGKronRLS(**{**base, "Y": np.where(t["y"] > 0, np.nan, 0.0)})
    with pytest.raises(ValueError):
        CGKronRLS(**{**base, "maxiter": 0})
    with pytest.raises(ValueError):
        CGKronRLS(**{**base, "tol": -1.0})
    with pytest.raises(ValueError, match="q x q"):
        CGKronRLS(pko=PairwiseKernelOperator(t["K1"], t["K2"]), Y=t["y"], regparam=1.0)
    with pytest.raises(TypeError):
        CGKronRLS(t["K1"], t["K2"])
    with pytest.warns(UserWarning, match="xmatrix1"):
        CGKronRLS(xmatrix1=1, **base)
    # callbackfun alias
    seen = []

    class CB:
        def callback(self, learner):
            seen.append(1)

    CGKronRLS(callbackfun=CB(), maxiter=2, **{k: v for k, v in base.items()})
    assert len(seen) == 2
