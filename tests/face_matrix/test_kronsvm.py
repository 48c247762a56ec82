"""Face matrix (issue 42, see ``__init__.py``): the Kronecker SVM (squared hinge over
the pairwise kernel) on a sample of labelled pairs -- the learner
``rlscore.learner.KronSVM`` and the estimator ``rlscore.estimators.PairwiseSVM``
(alone, and in GridSearchCV over alpha) -- against the squared-hinge minimizer in the
explicit np.kron feature space, found here by scipy.optimize.minimize and finished by
exact Newton steps on its support set.

Both faces train at one lambda to the same model (the same test decision values), and
a grid search by K-fold over the pairs (AUC of the held-out decision values) chooses
the same lambda with the same estimates as the refits of the brute force."""

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from ._common import _as_format, EDGE_OK, GAMMA, _cindex, _kernel

pytestmark = EDGE_OK

SVM_GRID = [0.01, 0.1, 1.0, 10.0]
SVM_RTOL, SVM_ATOL = 1e-7, 1e-9      # both faces stop at a gradient ratio of TOL
TOL = 1e-12
N1, N2, N1T, N2T = 7, 6, 2, 2        # training and new objects of each domain
PAIR_FOLDS = 3


@functools.lru_cache(maxsize=None)
def _sampled_pairs():
    """Objects of both domains (training first, then new ones), 30 of the 42 training
    pairs labelled -1/+1 (an interaction rule with noise), the new objects' pairs as
    the test set, and K-fold splits of the labelled pairs."""
    rng = np.random.default_rng(11)
    X1 = np.round(rng.normal(size=(N1 + N1T, 3)), 6)
    X2 = np.round(rng.normal(size=(N2 + N2T, 2)), 6)
    every = np.array([(i, j) for j in range(N2) for i in range(N1)])
    pairs = every[np.sort(rng.choice(len(every), size=30, replace=False))]
    s = X1[pairs[:, 0], 0] * X2[pairs[:, 1], 0] + 0.4 * rng.normal(size=len(pairs))
    y = np.where(s > 0, 1.0, -1.0)
    test = np.array([(i, j) for j in range(N2 + N2T) for i in range(N1 + N1T)
                     if i >= N1 or j >= N2])
    order = rng.permutation(len(pairs))
    splits = [(np.sort(np.setdiff1d(order, f)), np.sort(f))
              for f in np.array_split(order, PAIR_FOLDS)]
    return X1, X2, pairs, y, test, splits


# ------------------------------------------------------------------ brute force

@functools.lru_cache(maxsize=None)
def _features(kernel):
    """Rows of the explicit feature space of every pair (i, j) of all objects, at
    position i + j n1: np.kron of the two domains' features (linear), or V sqrt(e)
    of the eigendecomposition of np.kron(K2, K1) (Gaussian)."""
    X1, X2 = _sampled_pairs()[:2]
    if kernel == "linear":
        return np.kron(X2, X1)
    e, V = np.linalg.eigh(np.kron(_kernel(X2, X2, "gaussian"), _kernel(X1, X1, "gaussian")))
    return V * np.sqrt(np.maximum(e, 0))


def _pair_rows(pairs):
    return pairs[:, 0] + pairs[:, 1] * (N1 + N1T)


def _auc(y, p):
    return _cindex(y, p)


@functools.lru_cache(maxsize=None)
def _svm_reference(kernel, squared_hinge_fit):
    """(estimates, chosen lambda, test decision values) by the brute force
    (``squared_hinge_fit``: the conftest fixture)."""
    _, _, pairs, y, test, splits = _sampled_pairs()
    Phi = _features(kernel)
    Z = Phi[_pair_rows(pairs)]
    perfs = [np.mean([_auc(y[te], Z[te] @ squared_hinge_fit(Z[tr], y[tr], lam))
                      for tr, te in splits]) for lam in SVM_GRID]
    lam = SVM_GRID[int(np.argmax(perfs))]
    return np.array(perfs), lam, Phi[_pair_rows(test)] @ squared_hinge_fit(Z, y, lam)


# ------------------------------------------------------------------------ faces

def _learner_fit(kernel, rows, lam, fmt=None):
    """KronSVM on the labelled pairs ``rows`` at ``lam``; its decision values of the
    pairs ``(i, j)`` given as an index array, through the learner's predict."""
    from rlscore.learner import KronSVM
    X1, X2, pairs, y, _, _ = _sampled_pairs()
    p = pairs[rows]
    if kernel == "linear":
        X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
        L = KronSVM(X1=X1[:N1], X2=X2[:N2], Y=y[rows], label_row_inds=p[:, 0],
                    label_col_inds=p[:, 1], regparam=lam, tol=TOL)
        return lambda q: L.predict(X1, X2, q[:, 0], q[:, 1])
    K1 = _kernel(X1, X1[:N1], "gaussian")
    K2 = _kernel(X2, X2[:N2], "gaussian")
    L = KronSVM(K1=K1[:N1], K2=K2[:N2], Y=y[rows], label_row_inds=p[:, 0],
                label_col_inds=p[:, 1], regparam=lam, tol=TOL)
    return lambda q: L.predict(K1, K2, q[:, 0], q[:, 1])


def _estimator(kernel, lam, fmt=None):
    from rlscore.estimators import PairwiseSVM
    X1, X2 = _sampled_pairs()[:2]
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    kw = {"kernel": "linear"} if kernel == "linear" else {"kernel": "rbf", "gamma": GAMMA}
    return PairwiseSVM(X1, X2, alpha=lam, tol=TOL, **kw)


def _kronsvm_learner(kernel):
    """The learner has no grid search: the refits over the splits, scored here."""
    _, _, pairs, y, test, splits = _sampled_pairs()
    perfs = [np.mean([_auc(y[te], _learner_fit(kernel, tr, lam)(pairs[te]))
                      for tr, te in splits]) for lam in SVM_GRID]
    lam = SVM_GRID[int(np.argmax(perfs))]
    return lam, perfs, _learner_fit(kernel, np.arange(len(y)), lam)(test)


def _kronsvm_gridsearch(kernel):
    """GridSearchCV(PairwiseSVM) over the same splits, scored by roc_auc."""
    from sklearn.model_selection import GridSearchCV
    _, _, pairs, y, test, splits = _sampled_pairs()
    labels = np.where(y > 0, "yes", "no")
    search = GridSearchCV(_estimator(kernel, 1.0), {"alpha": SVM_GRID}, cv=splits,
                          scoring="roc_auc").fit(pairs, labels)
    return (search.best_params_["alpha"], search.cv_results_["mean_test_score"],
            search.best_estimator_.decision_function(test))


@pytest.mark.parametrize("fmt", [None, "csr"])
@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_kronsvm_one_lambda(kernel, fmt, squared_hinge_fit):
    """At one lambda the learner and the estimator are one model: the brute force's
    test decision values (and the estimator's classes follow their sign); with
    ``fmt="csr"`` the objects' features as CSR matrices (the learner's kernel mode
    takes kernel matrices: its Gaussian row is dense)."""
    _, _, pairs, y, test, _ = _sampled_pairs()
    Phi = _features(kernel)
    lam = 0.3
    ref = Phi[_pair_rows(test)] @ squared_hinge_fit(Phi[_pair_rows(pairs)], y, lam)
    learner = _learner_fit(kernel, np.arange(len(y)), lam, fmt)(test)
    est = _estimator(kernel, lam, fmt).fit(pairs, np.where(y > 0, "yes", "no"))
    assert_allclose(learner, ref, rtol=SVM_RTOL, atol=SVM_ATOL)
    assert_allclose(est.decision_function(test), ref, rtol=SVM_RTOL, atol=SVM_ATOL)
    assert_allclose(est.decision_function(test), learner, rtol=SVM_RTOL, atol=SVM_ATOL)
    assert est.predict(test).tolist() == np.where(ref > 0, "yes", "no").tolist()


@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
@pytest.mark.parametrize("face", ["learner", "gridsearch"])
def test_kronsvm_kfold(face, kernel, squared_hinge_fit):
    perfs, lam, pred = _svm_reference(kernel, squared_hinge_fit)
    got_lam, got_perfs, got_pred = {"learner": _kronsvm_learner,
                                    "gridsearch": _kronsvm_gridsearch}[face](kernel)
    # AUCs of decision values within the solvers' tolerance of each other are equal
    # unless two held-out values lie within it (not on this data)
    assert_allclose(got_perfs, perfs, rtol=1e-12, atol=0)
    assert got_lam == lam
    assert_allclose(got_pred, pred, rtol=SVM_RTOL, atol=SVM_ATOL)
