"""Face matrix (issue 42, see ``__init__.py``): Kronecker RLS settings A-D: KronRLS's
shortcuts, GridSearchCV over PairwiseRLS and (A-C) PairwiseRLSCV, against the np.kron
refits."""

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from ._common import (EDGE_OK, GRID, RTOL, _as_format, _check, _choose, _memo,
                      _same_as_dense, _slow_if, _sqerror)

pytestmark = EDGE_OK


N1, N2 = 8, 6
ROW_FOLDS, COL_FOLDS = [[0, 2, 5, 7], [1, 3, 4, 6]], [[0, 4, 5], [1, 2, 3]]


@functools.lru_cache(maxsize=None)
def _dyadic():
    """Complete pairwise data: N1 x N2 labels in vec_F order (pair (i, j) at
    i + j N1), linear kernels of both domains, new objects of both domains for the
    test pairs."""
    rng = np.random.default_rng(6)
    X1, X2 = rng.normal(size=(N1 + 3, 3)), rng.normal(size=(N2 + 2, 2))
    Y = (X1[:N1, :1] * X2[:N2, :1].T + 0.3 * rng.normal(size=(N1, N2))).ravel(order="F")
    pairs = np.array([(i, j) for j in range(N2) for i in range(N1)])
    return X1, X2, Y, pairs


def _kron_splits(setting):
    """(train, test) pair positions of each split: A one pair, B one domain-1 object,
    C one domain-2 object, D a block ROW_FOLDS x COL_FOLDS (training without both)."""
    _, _, _, pairs = _dyadic()
    i, j = pairs[:, 0], pairs[:, 1]
    if setting == "A":
        tests = [np.array([t]) for t in range(len(pairs))]
    elif setting in "BC":
        ids = i if setting == "B" else j
        tests = [np.flatnonzero(ids == v) for v in np.unique(ids)]
    else:
        return [(np.flatnonzero(~np.isin(i, R) & ~np.isin(j, C)),
                 np.flatnonzero(np.isin(i, R) & np.isin(j, C)))
                for R in ROW_FOLDS for C in COL_FOLDS]
    return [(np.setdiff1d(np.arange(len(pairs)), t), t) for t in tests]


@functools.lru_cache(maxsize=None)
def _kron_reference(setting):
    """np.kron closed form on every split's training pairs; the estimate is the mean
    over the splits of each split's mean squared error."""
    X1, X2, Y, _ = _dyadic()
    K = np.kron(X2[:N2] @ X2[:N2].T, X1[:N1] @ X1[:N1].T)
    perfs = []
    for lam in GRID:
        errs = []
        for tr, te in _kron_splits(setting):
            a = np.linalg.solve(K[np.ix_(tr, tr)] + lam * np.eye(len(tr)), Y[tr])
            errs.append(_sqerror(Y[te], K[np.ix_(te, tr)] @ a))
        perfs.append(np.mean(errs))
    lam = _choose(perfs, True)
    Kt = np.kron(X2[N2:] @ X2[:N2].T, X1[N1:] @ X1[:N1].T)
    return np.array(perfs), lam, Kt @ np.linalg.solve(K + lam * np.eye(len(Y)), Y)


def _kron_learner(setting, fmt=None):
    """KronRLS's hold-out shortcut of the setting at every grid value (the learner has
    no grid search: the test chooses the first smallest estimate)."""
    from rlscore.learner import KronRLS
    X1, X2, Y, _ = _dyadic()
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    L = KronRLS(X1=X1[:N1], X2=X2[:N2], Y=Y, regparam=GRID[0])
    perfs = []
    for lam in GRID:
        L.solve(lam)
        P = {"A": L.in_sample_loo, "B": L.leave_x1_out, "C": L.leave_x2_out,
             "D": lambda: L.out_of_sample_kfold_cv(ROW_FOLDS, COL_FOLDS)}[setting]()
        P = np.ravel(P)
        perfs.append(np.mean([_sqerror(Y[te], P[te]) for _, te in _kron_splits(setting)]))
    lam = _choose(perfs, True)
    L.solve(lam)
    return lam, perfs, L.predict(X1[N1:], X2[N2:])


def _kron_gridsearch(setting, fmt=None):
    """GridSearchCV(PairwiseRLS(kernel="linear")) over the same splits, scored by the
    mean squared error."""
    from sklearn.model_selection import GridSearchCV
    from rlscore.estimators import PairwiseRLS
    X1, X2, Y, pairs = _dyadic()
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    search = GridSearchCV(PairwiseRLS(X1, X2, kernel="linear"), {"alpha": GRID},
                          cv=_kron_splits(setting), scoring="neg_mean_squared_error")
    search.fit(pairs, Y)
    test = np.array([(i, j) for j in range(N2, N2 + 2) for i in range(N1, N1 + 3)])
    return (search.best_params_["alpha"], -search.cv_results_["mean_test_score"],
            search.predict(test))


def _kron_estimator(setting, fmt=None):
    """PairwiseRLSCV with the setting's leave-one-out (A pairs, B drugs, C targets)."""
    from rlscore.estimators import PairwiseRLSCV
    X1, X2, Y, pairs = _dyadic()
    X1, X2 = _as_format(X1, fmt), _as_format(X2, fmt)
    cv = {"A": "pairs", "B": "drugs", "C": "targets"}[setting]
    est = PairwiseRLSCV(X1, X2, alphas=GRID, cv=cv, scoring="sqerror").fit(pairs, Y)
    test = np.array([(i, j) for j in range(N2, N2 + 2) for i in range(N1, N1 + 3)])
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(test)


KRON_FACES = {"learner": _memo(_kron_learner), "gridsearch": _memo(_kron_gridsearch),
              "estimator": _memo(_kron_estimator)}


# PairwiseRLSCV's setting D holds out GroupKFold's blocks, not this row's ROW_FOLDS x
# COL_FOLDS (tests/estimators/test_pairwise_rls_cv.py holds it against refits)
@pytest.mark.parametrize("face, setting", [
    (face, setting) for face in KRON_FACES for setting in "ABCD"
    if not (face == "estimator" and setting == "D")])
def test_kronecker(face, setting):
    perfs, lam, pred = _kron_reference(setting)
    _check(KRON_FACES[face](setting), perfs, lam, pred)



#: GridSearchCV's setting A refits once per pair and alpha: its CSR row runs with
#: -m slow, the learner's and PairwiseRLSCV's setting A are its twins
@pytest.mark.parametrize("face, setting", _slow_if([
    (face, setting) for face in KRON_FACES for setting in "ABCD"
    if not (face == "estimator" and setting == "D")],
    lambda row: row == ("gridsearch", "A")))
def test_kronecker_csr(face, setting):
    """The objects' features as CSR matrices (training and test objects)."""
    perfs, lam, pred = _kron_reference(setting)
    got = KRON_FACES[face](setting, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, KRON_FACES[face](setting))


# ---------------------------------------- outside findings (issue 44 item 4)

def _similarities():
    """Symmetric similarity matrices of all objects of both domains (N1 + 3 and
    N2 + 2; the training objects first) whose training blocks are indefinite, and
    complete training labels in vec_F order."""
    X1, X2, Y, pairs = _dyadic()
    rng = np.random.default_rng(9)
    out = []
    for X in (X1, X2):
        S = np.tanh(X @ X.T) + 0.3 * rng.normal(size=(len(X), len(X)))
        S = (S + S.T) / 2
        np.fill_diagonal(S, 1.0)
        out.append(S)
    assert np.linalg.eigvalsh(out[0][:N1, :N1])[0] < 0
    assert np.linalg.eigvalsh(out[1][:N2, :N2])[0] < 0
    return out[0], out[1], Y, pairs


def _repaired_rows(S, n, how):
    """The repaired kernel rows of every object against the n training objects:
    "clip" k P with P = I - N N^T (N the eigenvectors of the training block's negative
    eigenvalues), so the training rows become V max(e, 0) V^T; "shift" the training
    block plus abs(e_min) I, new objects' rows unchanged."""
    e, V = np.linalg.eigh(S[:n, :n])
    R = S[:, :n].copy()
    if how == "clip":
        N = V[:, e < 0]
        return R - (R @ N) @ N.T
    R[:n] += -e[0] * np.eye(n)
    return R


@pytest.mark.parametrize("how", ["clip", "shift"])
@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_kronecker_repaired_kernel_predicts_with_it(face, how):
    """A model trained on a repaired indefinite kernel predicts with the repaired
    kernel: every pair of all objects (the training pairs give the fitted values) as
    the np.kron closed form on the repaired factors by hand."""
    S1, S2, Y, pairs = _similarities()
    lam = 0.5
    R1, R2 = _repaired_rows(S1, N1, how), _repaired_rows(S2, N2, how)
    a = np.linalg.solve(np.kron(R2[:N2], R1[:N1]) + lam * np.eye(len(Y)), Y)
    ref = np.kron(R2, R1) @ a                   # pair (i, j) at i + j (N1 + 3)
    every = np.array([(i, j) for j in range(len(S2)) for i in range(len(S1))])
    with pytest.warns(UserWarning, match="indefinite"):
        if face == "learner":
            from rlscore.learner import KronRLS
            L = KronRLS(K1=S1[:N1, :N1], K2=S2[:N2, :N2], Y=Y, regparam=lam,
                        indefinite=how)
        else:
            from rlscore.estimators import PairwiseRLS
            est = PairwiseRLS(S1, S2, kernel="precomputed", alpha=lam,
                              indefinite=how).fit(pairs, Y)
    got = L.predict(S1[:, :N1], S2[:, :N2]) if face == "learner" else est.predict(every)
    assert_allclose(np.ravel(got), ref, rtol=RTOL, atol=1e-10)


SETTING_D_LAM, SETTING_D_MISCOVERAGE = 0.7, 0.2


@functools.lru_cache(maxsize=None)
def _setting_d_refits():
    """The refits of CV+ for two new objects (setting D): for each block of the row and
    column folds GroupKFold(2) draws, the np.kron linear-kernel RLS without the block's
    objects; its residuals on the block and its predictions for the test pairs (every
    pair of the new objects, domain-1 index fastest)."""
    from sklearn.model_selection import GroupKFold
    X1, X2, Y, _ = _dyadic()
    Ym = Y.reshape((N1, N2), order="F")
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    rf = [t for _, t in GroupKFold(2).split(np.arange(N1), groups=np.arange(N1))]
    cf = [t for _, t in GroupKFold(2).split(np.arange(N2), groups=np.arange(N2))]
    test = [(u, v) for v in range(N2, N2 + 2) for u in range(N1, N1 + 3)]
    mus, res = [], []
    for R in rf:
        T1 = np.setdiff1d(np.arange(N1), R)
        for C in cf:
            T2 = np.setdiff1d(np.arange(N2), C)
            K = np.kron(K2[np.ix_(T2, T2)], K1[np.ix_(T1, T1)])
            a = np.linalg.solve(K + SETTING_D_LAM * np.eye(K.shape[0]),
                                Ym[np.ix_(T1, T2)].ravel(order="F"))
            A = a.reshape((T1.size, T2.size), order="F")
            res += list((Ym[np.ix_(R, C)] - K1[np.ix_(R, T1)] @ A @ K2[np.ix_(T2, C)])
                        .ravel())
            mus += [[K1[u, T1] @ A @ K2[T2, v] for u, v in test]] * (R.size * C.size)
    return np.array(mus).T, np.array(res), (rf, cf), test


@pytest.mark.parametrize("face,fmt", [("learner", None), ("estimator", None),
                                      ("estimator", "csr")])
def test_setting_d_intervals(face, fmt, cv_plus_bounds):
    """CV+ intervals for a new drug with a new target: KronRLS.predict_interval
    (setting="both", the folds given) and PairwiseRLS.predict_interval(by="both",
    n_folds=2) (GroupKFold's folds of each domain; dense and CSR features) equal the
    CV+ of np.kron refits without each block."""
    X1, X2, Y, pairs = _dyadic()
    mus, res, folds, test = _setting_d_refits()
    lo_ref, hi_ref = cv_plus_bounds(mus, res, SETTING_D_MISCOVERAGE)
    if face == "learner":
        from rlscore.learner import KronRLS
        K1, K2 = X1 @ X1.T, X2 @ X2.T
        L = KronRLS(K1=K1[:N1, :N1], K2=K2[:N2, :N2], Y=Y, regparam=SETTING_D_LAM)
        _, lo, hi = L.predict_interval(K1[N1:, :N1], K2[N2:, :N2],
                                       [u - N1 for u, _ in test], [v - N2 for _, v in test],
                                       miscoverage=SETTING_D_MISCOVERAGE, setting="both",
                                       folds=folds)
    else:
        from rlscore.estimators import PairwiseRLS
        est = PairwiseRLS(_as_format(X1, fmt), _as_format(X2, fmt), kernel="linear",
                          alpha=SETTING_D_LAM).fit(pairs, Y)
        _, lo, hi = est.predict_interval(np.array(test), SETTING_D_MISCOVERAGE, by="both",
                                         n_folds=2)
    assert_allclose(np.ravel(lo), lo_ref, rtol=RTOL, atol=1e-10)
    assert_allclose(np.ravel(hi), hi_ref, rtol=RTOL, atol=1e-10)
