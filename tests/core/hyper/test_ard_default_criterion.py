"""Issue #44 items 6 and 10: the default criterion of ARD kernel learning is the
evidence (the leave-one-out error over-fits many widths: on a generated Friedman #1
problem its test error is twice a Gaussian process's), the evidence gradient against
scikit-learn's GaussianProcessRegressor, the searches' BLAS threads, and the learned
optimum marked in the history (not its last step)."""

import os

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel, learning_options
from rlscore.core.hyper import EvidenceObjective, LOOObjective, learn_kernel
from rlscore.core.selection import SearchOptions, minimize_criterion
from rlscore.kernel import GaussianFamily, GaussianKernel


def friedman(m, seed, n_test=500):
    """Friedman #1 with 10 features (5 irrelevant), standardized on the training rows."""
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.make_friedman1(n_samples=m + n_test, n_features=10, noise=1.0,
                                   random_state=seed)
    Xtr, ytr, Xte, yte = X[:m], y[:m], X[m:], y[m:]
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    ym, ys = ytr.mean(), ytr.std()
    return (Xtr - mu) / sd, (ytr - ym) / ys, (Xte - mu) / sd, (yte - ym) / ys


def gpr_ard(X, y):
    """scikit-learn's GP with ConstantKernel * RBF(ARD) + WhiteKernel, one start."""
    import warnings
    gp = pytest.importorskip("sklearn.gaussian_process")
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    d = X.shape[1]
    kern = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3))
            + WhiteKernel(0.1, (1e-6, 1e1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gp.GaussianProcessRegressor(kern, random_state=0).fit(X, y)


def rls_test_mse(X, y, Xte, yte, gamma, regparam):
    """Test MSE of kernel ridge regression at (gamma, regparam), by a dense solve."""
    K = GaussianKernel(X, gamma=gamma).getKM(X)
    a = np.linalg.solve(K + regparam * np.eye(len(y)), y)
    return float(np.mean((GaussianKernel(X, gamma=gamma).getKM(Xte) @ a - yte) ** 2))


def test_default_ard_criterion_is_close_to_a_gaussian_process():
    """80 rows of Friedman #1, 10 widths: the default search's test error is within
    25 % of the GP's (same kernel family); the LOO search's is far above it (the
    over-fitting the default avoids)."""
    from rlscore.estimators import KernelRLSCV
    Xtr, ytr, Xte, yte = friedman(80, seed=2)
    gp = gpr_ard(Xtr, ytr)
    gp_mse = float(np.mean((gp.predict(Xte) - yte) ** 2))
    est = KernelRLSCV(kernel="rbf", gamma="learn", ard=True).fit(Xtr, ytr)
    default_mse = float(np.mean((est.predict(Xte) - yte) ** 2))
    assert default_mse <= 1.25 * gp_mse
    assert default_mse == pytest.approx(
        rls_test_mse(Xtr, ytr, Xte, yte, est.gamma_, est.alpha_), rel=1e-6)
    loo = learn_kernel(Xtr, ytr, LearnableKernel(ard=True), criterion="loo")
    loo_mse = rls_test_mse(Xtr, ytr, Xte, yte, loo.kernel_params["gamma"], loo.regparam)
    assert loo_mse >= 1.5 * gp_mse          # the failure mode, for contrast


def test_auto_criterion_resolution():
    """criterion="auto" (the default): the evidence with ard=True where it applies
    (no objective, no basis, no penalty), the LOO error otherwise; the result names
    it and equals the explicit choice."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=30)
    for kw, name in ((dict(ard=True), "evidence"), (dict(ard=False), "loo"),
                     (dict(ard=True, penalty="bayes"), "loo"),
                     (dict(ard=True, penalty=1e-3), "loo"),
                     (dict(ard=True, basis_vectors=X[:8]), "loo")):
        res = learn_kernel(X, y, **learning_options(restarts=0, **kw))
        assert res.criterion_name == name
        same = learn_kernel(X, y, **learning_options(restarts=0, criterion=name, **kw))
        np.testing.assert_allclose(res.search.x, same.search.x, rtol=1e-12)
    for bad in ("aic", None, 3):
        with pytest.raises(ValueError, match="criterion"):
            learn_kernel(X, y, criterion=bad)


def test_evidence_gradient_equals_sklearn_gpr_gradient():
    """dE/dlog lambda and dE/dlog gamma_k against the GP's own log marginal
    likelihood L gradient (amplitude s*, noise s* lambda, length-scales l_k): the
    profiled direction (log s and log noise together) has dL = 0 at s*, so
    dE/dlog lambda = -(1/m) dL/dlog noise and, with log gamma_k = -log(2 l_k^2),
    dE/dlog gamma_k = (1/(2m)) dL/dlog l_k."""
    gp = pytest.importorskip("sklearn.gaussian_process")
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 4))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 / 3 + 0.1 * rng.normal(size=40)
    ls, lam = np.array([0.8, 1.7, 3.0, 5.0]), 0.03
    theta = -np.log(2 * ls ** 2)
    obj = EvidenceObjective(GaussianFamily(X, ard=True), y)
    z = np.concatenate([[np.log(lam)], theta])
    value, grad = obj(z)
    K, _ = obj.family.evaluate(theta)
    s = float(y @ np.linalg.solve(K + lam * np.eye(40), y) / 40)
    kern = ConstantKernel(s) * RBF(ls) + WhiteKernel(s * lam)
    model = gp.GaussianProcessRegressor(kern, optimizer=None).fit(X, y)
    lml, dlml = model.log_marginal_likelihood(model.kernel_.theta, eval_gradient=True)
    m = len(y)
    assert value == pytest.approx(-lml / m, rel=1e-7)
    # sklearn's theta: [log s, log l_1..l_d, log noise]
    assert abs(dlml[0] + dlml[-1]) < 1e-7 * m            # s is the profiled optimum
    np.testing.assert_allclose(grad[0], -dlml[-1] / m, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(grad[1:], dlml[1:-1] / (2 * m), rtol=1e-7, atol=1e-12)


def blas_threads_now():
    from threadpoolctl import threadpool_info
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_searches_run_with_one_blas_thread_on_small_problems():
    """A search of many short factorizations: learn_kernel runs its evaluations with
    one BLAS thread for m <= SERIAL_N (several threads on busy cores made the ARD
    evidence search 25x slower); minimize_criterion's blas_threads sets it, None
    leaves the BLAS alone."""
    from threadpoolctl import threadpool_limits
    from rlscore._lapack_threads import SERIAL_N, loop_threads
    assert loop_threads(SERIAL_N) == 1 and loop_threads(SERIAL_N + 1) is None
    seen = []

    class Recording(LOOObjective):
        def __call__(self, z):
            seen.append(blas_threads_now())
            return super().__call__(z)

    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=25)
    with threadpool_limits(2, user_api="blas"):
        outside = blas_threads_now()
        learn_kernel(X, y, search=SearchOptions(restarts=0, maxiter=3), objective=Recording)
        assert blas_threads_now() == outside           # restored afterwards
        fam = GaussianFamily(X)
        obj = Recording(fam, y)
        z0 = np.concatenate([[np.log(1e-2)], fam.start()])
        n = len(seen)
        minimize_criterion(obj, z0, [(-10, 5), (-10, 5)],
                           options=SearchOptions(maxiter=2))
    assert seen and all(t == [1] * len(t) for t in seen[:n])
    assert all(t == outside for t in seen[n:])
    with pytest.raises(ValueError, match="blas_threads"):
        minimize_criterion(obj, z0, [(-10, 5), (-10, 5)],
                           options=SearchOptions(blas_threads=0))


def loo_by_refits(X, y, gamma, regparam):
    """The LOO mean squared error by m refits without the held-out row."""
    K = GaussianKernel(X, gamma=gamma).getKM(X)
    m = len(y)
    err = []
    for i in range(m):
        keep = np.arange(m) != i
        a = np.linalg.solve(K[np.ix_(keep, keep)] + regparam * np.eye(m - 1), y[keep])
        err.append((K[i, keep] @ a - y[i]) ** 2)
    return float(np.mean(err))


@pytest.mark.parametrize("criterion", ["loo", "evidence"])
def test_history_marks_the_learned_optimum(criterion):
    """One history entry is flagged best: the learned point, whose criterion is the
    result's and equals the criterion recomputed independently there (LOO by refits;
    the evidence by scikit-learn's GP); the entry is not simply the last step."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=40)
    res = learn_kernel(X, y, LearnableKernel(ard=True), search=SearchOptions(restarts=2),
                       criterion=criterion)
    best = [h for h in res.history if h["best"]]
    assert len(best) == 1
    best = best[0]
    assert best["criterion"] == res.criterion
    assert best["regparam"] == res.regparam
    np.testing.assert_array_equal(best["kernel_params"]["gamma"], res.kernel_params["gamma"])
    assert res.criterion == min(r["fun"] for r in res.search.restarts)
    gamma = res.kernel_params["gamma"]
    if criterion == "loo":
        assert res.criterion == pytest.approx(loo_by_refits(X, y, gamma, res.regparam),
                                              rel=1e-6)
    else:
        gp = pytest.importorskip("sklearn.gaussian_process")
        from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
        K = GaussianKernel(X, gamma=gamma).getKM(X)
        s = float(y @ np.linalg.solve(K + res.regparam * np.eye(40), y) / 40)
        ls = 1 / np.sqrt(2 * gamma)
        model = gp.GaussianProcessRegressor(
            ConstantKernel(s) * RBF(ls) + WhiteKernel(s * res.regparam),
            optimizer=None).fit(X, y)
        assert res.criterion == pytest.approx(
            -model.log_marginal_likelihood_value_ / 40, rel=1e-8)


def test_marked_optimum_when_a_later_start_is_worse():
    """minimize_criterion: with starts whose last one ends worse, history[-1] is not
    the optimum; the flagged entry is (also when the winning start took no step)."""
    def fun(x):                      # two basins: 0 at x = -2, 1 at x = +2
        v = min((x[0] + 2) ** 2, (x[0] - 2) ** 2 + 1.0)
        g = 2 * (x[0] + 2) if (x[0] + 2) ** 2 <= (x[0] - 2) ** 2 + 1.0 else 2 * (x[0] - 2)
        return v, np.array([g])
    out = minimize_criterion(fun, [[-1.0], [3.0]], [(-5, 5)])
    assert out.history[-1]["criterion"] > out.fun + 0.5
    best = [h for h in out.history if h["best"]]
    assert len(best) == 1 and best[0]["criterion"] == out.fun
    np.testing.assert_array_equal(best[0]["x"], out.x)
    out = minimize_criterion(fun, [[-2.0], [3.0]], [(-5, 5)])    # optimum at the start
    best = [h for h in out.history if h["best"]]
    assert len(best) == 1 and best[0]["restart"] == 0 and best[0]["criterion"] == 0.0
    assert out.history.index(best[0]) < len(out.history) - 1


def test_faces_expose_the_learned_criterion():
    """KernelRLSCV.criterion_ and LeaveOneOutRLS.kernel_learning.criterion are the
    minimized criterion at the learned point (the best entry of the history)."""
    from rlscore.estimators import KernelRLSCV
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=40)
    core = learn_kernel(X, y, LearnableKernel(ard=True))
    est = KernelRLSCV(kernel="rbf", gamma="learn", ard=True).fit(X, y)
    assert est.criterion_ == core.criterion
    assert [h["criterion"] for h in est.learning_history_ if h["best"]] == [core.criterion]
    lrn = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", ard=True)
    assert lrn.kernel_learning.criterion == core.criterion
    assert [h["criterion"] for h in lrn.cv_history if h["best"]] == [core.criterion]


def test_kernel_learning_page_prints_the_learned_criterion():
    """docs/tutorials/kernel_learning.rst shows the optimum's criterion, not the last
    step of the last start (cv_history[-1])."""
    page = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "tutorials",
                        "kernel_learning.rst")
    if not os.path.exists(page):
        pytest.skip("the docs are not beside the tests")
    text = open(page, encoding="utf-8").read()
    assert 'cv_history[-1]["criterion"]' not in text
    assert "kernel_learning.criterion" in text


def test_kron_history_marks_the_learned_optimum():
    """KronRLS(gamma="learn") (docs/tutorials/kernel_learning.rst prints its
    ``kernel_learning.criterion``): one history entry flagged best, at the result's
    criterion and regparam."""
    from rlscore.learner import KronRLS
    rng = np.random.default_rng(0)
    XD, XT = rng.normal(size=(8, 2)), rng.normal(size=(7, 2))
    Y = np.sin(XD[:, :1]) @ np.cos(XT[:, 1:2]).T + 0.1 * rng.normal(size=(8, 7))
    kron = KronRLS(X1=XD, X2=XT, Y=Y, gamma="learn")
    best = [h for h in kron.cv_history if h["best"]]
    assert len(best) == 1
    assert best[0]["criterion"] == kron.kernel_learning.criterion
    assert best[0]["regparam"] == kron.kernel_learning.regparam
