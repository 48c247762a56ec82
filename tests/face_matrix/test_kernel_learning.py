"""Face matrix (issue 42, see ``__init__.py``): Kernel learning (gamma="learn"): RLS and
query RankRLS through the learner, estimator and CLI; Kronecker RLS through the learner
and estimator."""

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore.utilities.reader import write_svmlight

from ._common import (_as_format, EDGE_OK, RTOL, SPARSE_RTOL, _formats, _memo, _refit)

pytestmark = EDGE_OK


@functools.lru_cache(maxsize=None)
def _wave():
    """A Gaussian-kernel problem whose leave-one-out optimum is inside (gamma ~0.78,
    regparam ~0.33; leave-query-out over _WAVE_QIDS: ~0.85, ~0.16): a sine in one of
    two features with noise."""
    rng = np.random.default_rng(2)
    X = np.round(rng.uniform(-3, 3, size=(60, 2)), 6)
    y = np.round(np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=60), 6)
    return X[:48], y[:48], X[48:]


_WAVE_QIDS = np.repeat(np.arange(8), 6)         # 8 queries of 6 rows of _wave()


def _learning_criterion(family, gamma, lam):
    """What the gradient search minimizes, by refits: RLS the leave-one-out mean
    squared error; query RankRLS the leave-query-out error, each held-out query's
    centred residual (labels minus their query mean against predictions minus theirs)
    squared, summed over the queries and divided by m."""
    X, y, _ = _wave()
    G = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))
    q = _WAVE_QIDS
    groups = [[i] for i in range(len(y))] if family == "rls" else \
        [np.flatnonzero(q == v) for v in np.unique(q)]
    total = 0.0
    for te in groups:
        tr = np.setdiff1d(np.arange(len(y)), te)
        r = y[te] - _refit(family, G, y, q, tr, lam)(te)
        if family == "query":
            r = r - r.mean()
        total += r @ r
    return total / len(y)


@functools.lru_cache(maxsize=None)
def _learned_by_learner(family, fmt=None):
    """One run of the learner's search (the reference checks it, its row compares it)."""
    from rlscore.learner import LeaveOneOutRLS, LeaveQueryOutRankRLS
    X, y, Xt = _wave()
    X, Xt = _formats(X, Xt, fmt)
    L = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn") if family == "rls" \
        else LeaveQueryOutRankRLS(X, y, _WAVE_QIDS, kernel="GaussianKernel", gamma="learn")
    return L.gamma, L.regparam, L.kernel_learning.criterion, L.predict(Xt)


def _learn_learner(family, run_cli=None, tmp_path=None, fmt=None):
    return _learned_by_learner(family, fmt) if fmt else _learned_by_learner(family)


def _learn_estimator(family, run_cli=None, tmp_path=None, fmt=None):
    from rlscore.estimators import KernelRLSCV, RankRLSCV
    X, y, Xt = _wave()
    X, Xt = _formats(X, Xt, fmt)
    if family == "rls":
        est = KernelRLSCV(kernel="rbf", gamma="learn", cv="loo").fit(X, y)
    else:
        est = RankRLSCV(kernel="rbf", gamma="learn", cv="lqo").fit(X, y, qid=_WAVE_QIDS)
    return est.gamma_, est.alpha_, None, est.predict(Xt)


def _learn_cli(family, run_cli, tmp_path):
    from rlscore.model_io import read_metadata
    X, y, Xt = _wave()
    q = None if family == "rls" else _WAVE_QIDS
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    write_svmlight(train, X, y, q)
    write_svmlight(test, Xt, np.zeros(len(Xt)), None if q is None else
                   np.zeros(len(Xt), dtype=int))
    code, _, err = run_cli(["fit", train, "-o", tmp_path / "m.npz", "--learner",
                            {"rls": "rls", "query": "query-rankrls"}[family],
                            "--kernel", "gaussian", "--gamma", "learn"])
    assert code == 0, err
    code, _, err = run_cli(["predict", tmp_path / "m.npz", test, "-o", tmp_path / "p.txt"])
    assert code == 0, err
    meta = read_metadata(tmp_path / "m.npz")
    return (meta["kernel"]["params"]["gamma"], meta["regparam"], None,
            np.loadtxt(tmp_path / "p.txt"))


LEARN_FACES = {"learner": _learn_learner, "estimator": _memo(_learn_estimator),
               "cli": _learn_cli}
LEARN_RTOL = 1e-7           # the gradient search stops at its own tolerance


@functools.lru_cache(maxsize=None)
def _learn_reference(family):
    """The learner's point, checked from scratch: its criterion is the refits' one,
    and no better by refits at gamma or regparam moved by 1 % either way (a local
    minimum)."""
    gamma, lam, criterion, _ = _learned_by_learner(family)
    best = _learning_criterion(family, gamma, lam)
    assert_allclose(criterion, best, rtol=RTOL)
    for g, r in ((gamma * 1.01, lam), (gamma / 1.01, lam), (gamma, lam * 1.01),
                 (gamma, lam / 1.01)):
        assert _learning_criterion(family, g, r) > best
    return gamma, lam


@pytest.mark.parametrize("family", ["rls", "query"])
@pytest.mark.parametrize("face", list(LEARN_FACES))
def test_kernel_learning(face, family, run_cli, tmp_path):
    gamma, lam = _learn_reference(family)
    X, y, Xt = _wave()
    got_gamma, got_lam, _, pred = LEARN_FACES[face](family, run_cli, tmp_path)
    assert_allclose([got_gamma, got_lam], [gamma, lam], rtol=LEARN_RTOL)
    # the face's model is the closed form at the face's own learned point
    Z = np.vstack([X, Xt])
    G = np.exp(-got_gamma * ((Z[:, None] - Z[None]) ** 2).sum(-1))
    ref = _refit(family, G, y, _WAVE_QIDS, np.arange(len(y)), got_lam)(
        len(y) + np.arange(len(Xt)))
    assert_allclose(np.ravel(pred), ref, rtol=RTOL, atol=1e-10)




@pytest.mark.parametrize("family", ["rls", "query"])
@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_kernel_learning_csr(face, family):
    """CSR input: the same search, the same point and model as dense input."""
    gamma, lam = _learn_reference(family)
    got = LEARN_FACES[face](family, fmt="csr")
    dense = LEARN_FACES[face](family)
    assert_allclose([got[0], got[1]], [gamma, lam], rtol=LEARN_RTOL)
    assert_allclose([got[0], got[1]], [dense[0], dense[1]], rtol=SPARSE_RTOL)
    assert_allclose(np.ravel(got[3]), np.ravel(dense[3]), rtol=SPARSE_RTOL, atol=1e-13)


# ----------------------------------------------------- Kronecker kernel learning

@functools.lru_cache(maxsize=None)
def _kron_wave():
    """Complete pairwise data (8 x 7 objects, one feature each) whose in-sample
    leave-one-pair-out optimum is inside (gamma1 ~1.34, gamma2 ~0.48, regparam ~0.74)."""
    rng = np.random.default_rng(3)
    X1 = np.round(rng.uniform(-2, 2, size=(8, 1)), 6)
    X2 = np.round(rng.uniform(-2, 2, size=(7, 1)), 6)
    Y = (np.sin(1.5 * X1) @ np.cos(X2).T + 0.3 * rng.normal(size=(8, 7))).ravel(order="F")
    return X1, X2, Y


def _kron_gram(g1, g2):
    X1, X2, _ = _kron_wave()
    return np.kron(np.exp(-g2 * (X2 - X2.T) ** 2), np.exp(-g1 * (X1 - X1.T) ** 2))


def _kron_loo_error(g1, g2, lam):
    """In-sample leave-one-pair-out mean squared error by one refit per pair."""
    _, _, Y = _kron_wave()
    G = _kron_gram(g1, g2)
    m = len(Y)
    r = [Y[t] - _refit("rls", G, Y, None, np.r_[0:t, t + 1:m], lam)([t])[0]
         for t in range(m)]
    return float(np.mean(np.square(r)))


@functools.lru_cache(maxsize=None)
def _kron_learn_learner(fmt=None):
    from rlscore.learner import KronRLS
    X1, X2, Y = _kron_wave()
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    L = KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", kernel="GaussianKernel")
    # with gamma="learn" the model holds the learned kernels: predict takes the
    # test-by-training kernels of the objects
    return (L.gamma1, L.gamma2, L.regparam), L.kernel_learning.criterion, \
        np.ravel(L.predict(L.kernel1.getKM(X1), L.kernel2.getKM(X2)))


def _kron_learn_estimator(fmt=None):
    from rlscore.estimators import PairwiseRLS
    X1, X2, Y = _kron_wave()
    pairs = np.array([(i, j) for j in range(X2.shape[0]) for i in range(X1.shape[0])])
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    est = PairwiseRLS(X1, X2, kernel="rbf", gamma="learn").fit(pairs, Y)
    return (est.gamma1_, est.gamma2_, est.alpha_), None, est.predict(pairs)


@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_kronecker_kernel_learning(face):
    point, criterion, _ = _kron_learn_learner()
    # the learner's point from scratch: its criterion is the refits' error, and moving
    # any of the three values by 1 % either way makes that error larger
    best = _kron_loo_error(*point)
    assert_allclose(criterion, best, rtol=RTOL)
    for k in range(3):
        for f in (1.01, 1 / 1.01):
            moved = list(point)
            moved[k] *= f
            assert _kron_loo_error(*moved) > best
    got, _, pred = {"learner": _kron_learn_learner,
                    "estimator": _kron_learn_estimator}[face]()
    assert_allclose(got, point, rtol=LEARN_RTOL)
    _, _, Y = _kron_wave()
    G = _kron_gram(got[0], got[1])
    ref = _refit("rls", G, Y, None, np.arange(len(Y)), got[2])(np.arange(len(Y)))
    assert_allclose(pred, ref, rtol=RTOL, atol=1e-10)


@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_kronecker_kernel_learning_csr(face):
    """CSR objects: the same learned point and model as dense objects."""
    point = _kron_learn_learner()[0]
    run = {"learner": _kron_learn_learner, "estimator": _kron_learn_estimator}[face]
    got, _, pred = run("csr")
    dense, _, dense_pred = run()
    assert_allclose(got, point, rtol=LEARN_RTOL)
    assert_allclose(got, dense, rtol=SPARSE_RTOL)
    assert_allclose(pred, dense_pred, rtol=SPARSE_RTOL, atol=1e-13)
