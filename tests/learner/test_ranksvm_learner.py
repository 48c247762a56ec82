"""RLScore-style RankSVM learners: LinearRankSVM, PPLinearRankSVM, KernelRankSVM and
KfoldLinearRankSVM (constructor trains, squeezed outputs, kwargs warnings, bad input)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner.ranksvm import (KernelRankSVM, KfoldLinearRankSVM, LinearRankSVM,
                                     PPLinearRankSVM)
from rlscore.predictor import KernelPredictor, LinearPredictor

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


def _data(rng, m=80, n=4, nq=None, levels=None):
    X = rng.standard_normal((m, n))
    y = X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m)
    if levels:
        cuts = np.quantile(y, np.linspace(0, 1, levels + 1)[1:-1])
        y = np.digitize(y, cuts).astype(float)
    q = None if nq is None else rng.integers(0, nq, m)
    return X, y, q


def test_linear_ranksvm_attributes_and_shapes(rng):
    X, y, q = _data(rng, nq=5, levels=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lrn = LinearRankSVM(X, y, qids=q, regparam=0.01, tol=1e-6)
    assert isinstance(lrn.predictor, LinearPredictor)
    assert lrn.predictor.W.shape == (4,) and float(lrn.predictor.b) == 0.0
    assert lrn.converged and lrn.duality_gap <= 1e-6 and lrn.iterations >= 1
    assert lrn.n_pairs > 0 and lrn.regparam == 0.01
    assert lrn.predict(X).shape == (80,)
    assert lrn.predict(X[0]).shape == ()
    np.testing.assert_allclose(lrn.predict(X), X @ lrn.predictor.W)
    # objective as documented: (regparam/2)||w||^2 + mean hinge over same-query pairs
    u, l = np.nonzero((y[:, None] > y[None, :]) & (q[:, None] == q[None, :]))
    w = lrn.predictor.W
    J = 0.005 * w @ w + np.mean(np.maximum(0, 1 - X[u] @ w + X[l] @ w))
    assert J == pytest.approx(lrn.objective, rel=1e-12)


def test_linear_ranksvm_input_types_and_bias(rng):
    X, y, _ = _data(rng)
    ref = LinearRankSVM(X, y, regparam=0.1, tol=1e-8).predictor.W
    for Xa, Ya in ((np.asmatrix(X), y), (sp.csr_matrix(X), y.reshape(-1, 1)),
                   (sp.coo_matrix(X), np.asmatrix(y).T), (X.tolist(), list(y))):
        W = LinearRankSVM(Xa, Ya, regparam=0.1, tol=1e-8).predictor.W
        np.testing.assert_allclose(W, ref, atol=1e-6)
    # a constant feature cancels in every pair: bias has no effect
    W = LinearRankSVM(X, y, regparam=0.1, bias=4.0, tol=1e-8).predictor.W
    np.testing.assert_allclose(W, ref, atol=1e-12)


def test_unknown_kwargs_warn(rng):
    X, y, _ = _data(rng)
    with pytest.warns(UserWarning, match="kenerl"):
        LinearRankSVM(X, y, kenerl="GaussianKernel")
    with pytest.warns(UserWarning, match="foo"):
        KernelRankSVM(X, y, gamma=0.5, foo=1)


def test_learner_bad_input(rng):
    X, y, q = _data(rng, nq=4)
    with pytest.raises(ValueError):
        LinearRankSVM(X, y, regparam=0)
    with pytest.raises(ValueError):
        LinearRankSVM(X, y, regparam=-1)
    with pytest.raises(ValueError, match="no pairs"):
        LinearRankSVM(X, np.zeros(80))
    with pytest.raises(ValueError, match="qids"):
        LinearRankSVM(X, y, qids=q[:10])
    with pytest.raises(ValueError, match="one utility"):
        LinearRankSVM(X, np.c_[y, y])
    with pytest.raises(ValueError, match="bias"):
        LinearRankSVM(X, y, bias=-1)
    Xn = X.copy()
    Xn[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN"):
        LinearRankSVM(Xn, y)
    with pytest.raises(ValueError, match="lengths"):
        LinearRankSVM(X[:-1], y)


def test_pairwise_learner_equals_scored_learner(rng):
    X, y, q = _data(rng, m=40, nq=3, levels=5)
    u, l = np.nonzero((y[:, None] > y[None, :]) & (q[:, None] == q[None, :]))
    a = LinearRankSVM(X, y, qids=q, regparam=0.05, tol=1e-9, max_iter=5000)
    b = PPLinearRankSVM(X, u, l, regparam=0.05, tol=1e-9, max_iter=5000, bias=1.0)
    assert a.objective == pytest.approx(b.objective, rel=1e-7)
    np.testing.assert_allclose(a.predictor.W, b.predictor.W, atol=1e-3)
    assert b.n_pairs == len(u)
    with pytest.raises(ValueError):
        PPLinearRankSVM(X, [0, 1], [1])
    with pytest.raises(IndexError):
        PPLinearRankSVM(X, [0, 1], [1, 400])


def test_kernel_ranksvm(rng):
    from rlscore.kernel import GaussianKernel
    X, y, q = _data(rng, m=50, nq=3)
    lrn = KernelRankSVM(X, y, qids=q, regparam=0.01, gamma=0.3, tol=1e-6)
    assert isinstance(lrn.predictor, KernelPredictor)
    assert lrn.A.shape == (50,)
    K = GaussianKernel(X, gamma=0.3).getKM(X)
    np.testing.assert_allclose(lrn.predict(X), K @ lrn.A, atol=1e-9)
    # the linear kernel through the same class equals LinearRankSVM
    lin = KernelRankSVM(X, y, qids=q, regparam=0.01, kernel="LinearKernel", tol=1e-8)
    ref = LinearRankSVM(X, y, qids=q, regparam=0.01, tol=1e-8)
    np.testing.assert_allclose(lin.predict(X), ref.predict(X), atol=1e-5)
    # precomputed kernel gives the same model as the Gaussian kernel
    pre = KernelRankSVM(K, y, qids=q, regparam=0.01, kernel="PrecomputedKernel", tol=1e-6)
    np.testing.assert_allclose(pre.predict(K), lrn.predict(X), atol=1e-5)


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_kfold_learner(rng):
    X, y, q = _data(rng, m=120, nq=10, levels=3)
    lrn = KfoldLinearRankSVM(X, y, qids=q, n_folds=3, regparams=[1e-3, 1.0, 100.0],
                             tol=1e-6)
    assert lrn.regparam in (1e-3, 1.0, 100.0)
    assert lrn.cv_performances.shape == (3,) and lrn.fold_performances.shape == (3, 3)
    assert lrn.regparam == lrn.regparams[np.nanargmax(lrn.cv_performances)]
    ref = LinearRankSVM(X, y, qids=q, regparam=lrn.regparam, tol=1e-6)
    np.testing.assert_allclose(lrn.predict(X), ref.predict(X), atol=1e-6)
    # without qids: folds of examples, c-index per fold
    glob = KfoldLinearRankSVM(X, y, folds=[range(0, 60), range(60, 120)],
                              regparams=[0.1, 1.0])
    assert glob.cv_performances.shape == (2,)


def test_callback_object(rng):
    X, y, _ = _data(rng)
    log = []

    class CB:
        def callback(self, info):
            log.append(info["gap"])

        def finished(self, info):
            log.append("done")

    LinearRankSVM(X, y, regparam=1e-2, callback=CB())
    assert log[-1] == "done" and len(log) >= 2


def test_squared_hinge_learners(rng):
    """loss="squared_hinge": Newton by default, the documented J2 objective, the same
    model from the bundle method, the kernel learner with the linear kernel and the
    K-fold learner; invalid loss / solver combinations raise."""
    X, y, q = _data(rng, nq=5, levels=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lrn = LinearRankSVM(X, y, qids=q, regparam=0.01, tol=1e-10, loss="squared_hinge")
    assert lrn.solver == "newton" and lrn.loss == "squared_hinge"
    assert lrn.converged and np.isnan(lrn.duality_gap)
    assert lrn.solution.grad_norm <= 1e-10 * lrn.solution.grad_norm0
    u, l = np.nonzero((y[:, None] > y[None, :]) & (q[:, None] == q[None, :]))
    w = lrn.predictor.W
    J = 0.005 * w @ w + np.mean(np.maximum(0, 1 - X[u] @ w + X[l] @ w) ** 2)
    assert lrn.objective == pytest.approx(J, rel=1e-12)
    # the gradient of the documented objective vanishes at the solution
    r = np.maximum(0, 1 - X[u] @ w + X[l] @ w)
    g = 0.01 * w - 2 * (X[u] - X[l]).T @ r / u.size
    assert np.linalg.norm(g) <= 1e-9
    bun = LinearRankSVM(X, y, qids=q, regparam=0.01, tol=1e-9, max_iter=5000,
                        loss="squared_hinge", solver="bundle")
    assert bun.solver == "bundle" and bun.converged
    np.testing.assert_allclose(bun.predictor.W, w, rtol=1e-3, atol=1e-4)
    sparse = LinearRankSVM(sp.csr_matrix(X), y, qids=q, regparam=0.01, tol=1e-10,
                           loss="squared_hinge", n_threads=2)
    np.testing.assert_allclose(sparse.predictor.W, w, rtol=1e-10, atol=1e-12)
    ker = KernelRankSVM(X, y, qids=q, regparam=0.01, kernel="LinearKernel", tol=1e-10,
                        loss="squared_hinge")
    np.testing.assert_allclose(ker.predict(X), lrn.predict(X), rtol=1e-8, atol=1e-8)
    kf = KfoldLinearRankSVM(X, y, qids=q, regparams=[1e-3, 1e-1], n_folds=3,
                            loss="squared_hinge", tol=1e-8)
    assert kf.solution.solver == "newton" and kf.regparam in (1e-3, 1e-1)
    ref = LinearRankSVM(X, y, qids=q, regparam=kf.regparam, tol=1e-8,
                        loss="squared_hinge")
    np.testing.assert_allclose(kf.predictor.W, ref.predictor.W, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="no Hessian"):
        LinearRankSVM(X, y, solver="newton")
    with pytest.raises(ValueError, match="loss must be"):
        LinearRankSVM(X, y, loss="logistic")
    with pytest.raises(ValueError, match="solver must be"):
        KfoldLinearRankSVM(X, y, loss="squared_hinge", solver="sgd")
    with pytest.raises(ValueError, match="no Hessian"):
        KernelRankSVM(X, y, solver="newton")
