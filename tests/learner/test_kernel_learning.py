"""LeaveOneOutRLS(gamma="learn"): the face of core.rls.learn_kernel. The learner's own
leave-one-out (LOOCV over its eigendecomposition) at the learned parameters must equal
the criterion the gradient search minimized, and the predictor must be RLS at them."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel, learning_options
from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import learn_kernel
from rlscore.kernel import GaussianKernel
from rlscore.learner import RLS, LeaveOneOutRLS


def data(m=50, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=m)


@pytest.mark.parametrize("kernel,kw", [("GaussianKernel", {}),
                                       ("GaussianKernel", {"ard": True}),
                                       ("GaussianKernel", {"ard": True,
                                                           "penalty": "bayes"}),
                                       ("PolynomialKernel", {"degree": 3})])
def test_learned_parameters_and_loo_agree_with_core(kernel, kw):
    X, y = data()
    learner = LeaveOneOutRLS(X, y, kernel=kernel, gamma="learn", **kw)
    res = learner.kernel_learning
    core = learn_kernel(X, y, **learning_options(kernel, **kw))
    assert learner.regparam == core.regparam
    np.testing.assert_array_equal(learner.gamma, core.kernel_params["gamma"])
    # the learner's LOO shortcut (eigendecomposition path) vs the criterion (Cholesky):
    # two factorizations of K + regparam I, whose condition at the optimum reaches ~4e9
    # (Gaussian, regparam 1e-8), so they agree to about eps * cond, not better
    params = {k: v for k, v in res.kernel_params.items()}
    ref = RLS(X, y, regparam=res.regparam, kernel=kernel, **params)
    K = ref.predictor.kernel.getKM(X)
    cond = np.linalg.cond(K + res.regparam * np.eye(len(y)))
    rtol = max(1e-6, 10 * np.finfo(float).eps * cond)
    loo = res.criterion          # with ard=True the default criterion is the evidence
    if res.criterion_name != "loo":
        from rlscore.core.hyper import LOOObjective
        loo = LOOObjective(res.family, y).value(res.search.x)
    np.testing.assert_allclose(learner.cv_performances[0], loo, rtol=rtol)
    Xt = X[:7] + 0.1
    np.testing.assert_allclose(learner.predict(Xt), ref.predict(Xt), rtol=rtol)
    assert learner.cv_history and all("criterion" in h for h in learner.cv_history)
    if kernel == "GaussianKernel":
        np.testing.assert_allclose(learner.length_scales,
                                   1 / np.sqrt(2 * np.asarray(learner.gamma)))
    else:
        assert learner.coef0 == res.kernel_params["coef0"]


@pytest.mark.parametrize("kwargs,match", [
    (dict(kernel="LinearKernel", gamma="learn"), "GaussianKernel"),
    (dict(kernel="GaussianKernel", gamma="learn", regparams=[1.0]), "regparams"),
    (dict(kernel="GaussianKernel", gamma="learn", basis_vectors=np.ones((2, 2))),
     "basis_vectors"),
    (dict(kernel="PolynomialKernel", gamma="learn", basis_vectors=np.ones((2, 3))),
     "basis_vectors"),
    (dict(kernel="GaussianKernel", gamma=-1.0), "gamma"),
])
def test_bad_arguments(kwargs, match):
    X, y = data()
    with pytest.raises(ValueError, match=match):
        LeaveOneOutRLS(X, y, **kwargs)


def test_constant_feature_with_ard():
    X, y = data()
    X[:, 1] = 2.0
    with pytest.raises(ValueError, match="constant features"):
        LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", ard=True)


def test_ard_model_file_round_trip(tmp_path):
    from rlscore.model_io import load_model, save_model
    X, y = data()
    learner = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", ard=True)
    save_model(learner, str(tmp_path / "ard.npz"))
    pred = load_model(str(tmp_path / "ard.npz"))
    np.testing.assert_array_equal(pred.kernel.gamma, learner.gamma)
    np.testing.assert_allclose(pred.predict(X[:5]), learner.predict(X[:5]), rtol=1e-12)


def test_leave_query_out_rankrls_learns_kernel():
    from rlscore.core.hyper import learn_kernel_lqo
    from rlscore.learner import LeaveQueryOutRankRLS, QueryRankRLS
    X, y = data(m=60)
    qids = np.repeat(np.arange(12), 5)
    learner = LeaveQueryOutRankRLS(X, y, qids, kernel="GaussianKernel", gamma="learn",
                                   ard=True)
    core = learn_kernel_lqo(X, y, qids, LearnableKernel(ard=True))
    assert learner.regparam == core.regparam
    np.testing.assert_array_equal(learner.gamma, core.kernel_params["gamma"])
    ref = QueryRankRLS(X, y, qids, regparam=core.regparam, kernel="GaussianKernel",
                       gamma=core.kernel_params["gamma"])
    np.testing.assert_allclose(learner.predict(X[:5]), ref.predict(X[:5]), rtol=1e-6)
    with pytest.raises(ValueError, match="regparams"):
        LeaveQueryOutRankRLS(X, y, qids, kernel="GaussianKernel", gamma="learn",
                             regparams=[1.0])
    # penalty="bayes" passes through; the evidence is an RLS criterion, refused here
    bayes = LeaveQueryOutRankRLS(X, y, qids, kernel="GaussianKernel", gamma="learn",
                                 ard=True, penalty="bayes")
    core = learn_kernel_lqo(X, y, qids, LearnableKernel(ard=True), penalty="bayes")
    np.testing.assert_array_equal(bayes.gamma, core.kernel_params["gamma"])
    with pytest.raises(ValueError, match="criterion"):
        LeaveQueryOutRankRLS(X, y, qids, kernel="GaussianKernel", gamma="learn",
                             criterion="evidence")



def test_leave_one_out_rls_learns_kernel_on_nystrom_basis():
    """LeaveOneOutRLS(gamma="learn", basis_vectors=B): the core's reduced-set search,
    and the predictor is the Nystrom RLS at the learned values."""
    X, y = data(m=60)
    B = X[::4]
    learner = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", ard=True,
                             basis_vectors=B, restarts=0, maxiter=20)
    core = learn_kernel(X, y, LearnableKernel(ard=True),
                        search=SearchOptions(restarts=0, maxiter=20), basis_vectors=B)
    assert learner.regparam == core.regparam
    np.testing.assert_array_equal(learner.gamma, core.kernel_params["gamma"])
    ref = RLS(X, y, regparam=core.regparam, kernel="GaussianKernel",
              gamma=core.kernel_params["gamma"], basis_vectors=B)
    np.testing.assert_allclose(learner.predict(X[:5]), ref.predict(X[:5]), rtol=1e-8)


@pytest.mark.parametrize("ard", [False, True])
def test_leave_query_out_rankrls_learns_kernel_on_nystrom_basis(ard):
    """gamma="learn" with basis_vectors: the Nystrom leave-query-out criterion; the
    learner's own leave-query-out at the learned values equals it, and its predictor is
    the Nystrom QueryRankRLS there."""
    from rlscore.core.hyper import learn_kernel_lqo
    from rlscore.learner import LeaveQueryOutRankRLS, QueryRankRLS
    X, y = data(m=60)
    qids = np.repeat(np.arange(12), 5)
    B = X[::4]
    learner = LeaveQueryOutRankRLS(X, y, qids, kernel="GaussianKernel", gamma="learn",
                                   ard=ard, basis_vectors=B, restarts=0, maxiter=30)
    core = learn_kernel_lqo(X, y, qids, LearnableKernel(ard=ard),
                            search=SearchOptions(restarts=0, maxiter=30), basis_vectors=B)
    assert learner.regparam == core.regparam
    np.testing.assert_array_equal(learner.gamma, core.kernel_params["gamma"])
    assert len(learner.cv_history) == len(core.history)
    ref = QueryRankRLS(X, y, qids, regparam=core.regparam, kernel="GaussianKernel",
                       gamma=core.kernel_params["gamma"], basis_vectors=B)
    np.testing.assert_allclose(learner.predict(X[:5]), ref.predict(X[:5]), rtol=1e-8)
    # the learner's hold-out predictions, centred per query: the criterion's residuals
    total = 0.0
    for q, f in zip(np.unique(qids), learner.cv_predictions[0]):
        r = y[qids == q] - f
        total += np.sum((r - r.mean()) ** 2)
    # two solvers at a learned optimum: agreement to the conditioning of the r x r system
    from rlscore.kernel import GaussianKernel
    kern = GaussianKernel(B, gamma=core.kernel_params["gamma"])
    Phi = kern.getKM(X)
    for q in np.unique(qids):
        Phi[qids == q] -= Phi[qids == q].mean(axis=0)
    cond = np.linalg.cond(Phi.T @ Phi + core.regparam * kern.getKM(B))
    np.testing.assert_allclose(total / y.size, core.criterion,
                               rtol=max(1e-9, 10 * np.finfo(float).eps * cond))


# --------------------------------------------------------------- KronRLS(gamma="learn")

def _pairs(seed=0):
    rng = np.random.default_rng(seed)
    X1, X2 = rng.normal(size=(10, 3)), rng.normal(size=(7, 2))
    Y = np.sin(X1[:, :1]) @ np.cos(X2[:, 1:]).T + 0.05 * rng.normal(size=(10, 7))
    return X1, X2, Y


def test_kronrls_learns_one_gamma_per_domain_like_the_core():
    from rlscore.core.hyper import learn_kron_kernel
    from rlscore.learner import KronRLS
    X1, X2, Y = _pairs()
    learner = KronRLS(X1=X1, X2=X2, Y=Y.ravel(order="F"), gamma="learn")
    core = learn_kron_kernel(X1, X2, Y)
    assert learner.regparam == core.regparam
    assert (learner.gamma1, learner.gamma2) == (core.kernel_params1["gamma"],
                                                core.kernel_params2["gamma"])
    assert learner.cv_history[-1]["criterion"] >= core.criterion - 1e-15
    # the trained model is KronRLS on the learned kernels: same in-sample LOO, and
    # predictions of new objects through the learned kernel objects
    np.testing.assert_allclose(np.mean((learner.in_sample_loo() - Y.ravel(order="F")) ** 2),
                               core.criterion, rtol=1e-8)
    K1, K2 = core.kernel_matrices()
    ref = KronRLS(K1=K1, K2=K2, Y=Y, regparam=core.regparam)
    T1, T2 = X1[:3] + 0.1, X2[:2] - 0.1
    np.testing.assert_allclose(
        learner.predict(learner.kernel1.getKM(T1), learner.kernel2.getKM(T2)),
        ref.predict(GaussianKernel(X1, gamma=learner.gamma1).getKM(T1),
                    GaussianKernel(X2, gamma=learner.gamma2).getKM(T2)), rtol=1e-12)


def test_kronrls_learning_bad_combinations():
    from rlscore.learner import KronRLS
    X1, X2, Y = _pairs()
    K1 = X1 @ X1.T
    with pytest.raises(ValueError, match="features X1 and X2"):
        KronRLS(K1=K1, K2=X2 @ X2.T, Y=Y, gamma="learn")
    with pytest.raises(ValueError, match="regparam"):
        KronRLS(X1=X1, X2=X2, Y=Y, regparam=1.0, gamma="learn")
    with pytest.raises(ValueError, match="kernel="):
        KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", kernel="LinearKernel")
    with pytest.raises(ValueError, match="transposed"):
        KronRLS(X1=X1, X2=X2, Y=Y.T, gamma="learn")
    with pytest.warns(UserWarning, match="ard"):     # ignored without gamma="learn"
        KronRLS(X1=X1, X2=X2, Y=Y, ard=True)


def test_evidence_criterion_passes_through():
    """LeaveOneOutRLS(gamma="learn", criterion="evidence") is learn_kernel's evidence
    search; its cv_performances is the exact LOO error at the learned point (refits)."""
    X, y = data()
    learner = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", ard=True,
                             criterion="evidence")
    core = learn_kernel(X, y, LearnableKernel("GaussianKernel", ard=True),
                        criterion="evidence")
    assert learner.regparam == core.regparam
    np.testing.assert_array_equal(learner.gamma, core.kernel_params["gamma"])
    ref = RLS(X, y, regparam=core.regparam, kernel="GaussianKernel",
              gamma=core.kernel_params["gamma"])
    K = ref.predictor.kernel.getKM(X)
    m = len(y)
    loo = np.mean([(y[i] - K[i, np.arange(m) != i] @ np.linalg.solve(
        K[np.ix_(np.arange(m) != i, np.arange(m) != i)] + core.regparam * np.eye(m - 1),
        y[np.arange(m) != i])) ** 2 for i in range(m)])
    np.testing.assert_allclose(learner.cv_performances[0], loo, rtol=1e-6)
    with pytest.raises(ValueError, match="criterion"):
        LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn", criterion="aic")
