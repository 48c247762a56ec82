"""The exact hold-out of several queries at once (QueryRankRLSModel.holdout_rows) against
refits without those rows, and K-fold cross-validation by query through every face
against refits on the same folds."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.rls import FoldCache
from rlscore.core.nystrom import select_basis
from rlscore.core.selection import NfoldCV, PooledQueryCV, RefitModel, grid_search
from rlscore.core.structure import QueryGroups
from rlscore.measure import cindex

REGPARAMS = [1e-6, 1e-2, 1.0, 1e2, 1e6]
ATOL = 1e-10
# at regparam 1e-6 both algebras lose digits that refits keep: holding out all queries
# but one makes S of the hold-out side ill-conditioned (~ s / lambda), and a primal
# Gram matrix of two remaining rows carries rounding of eps ||C|| into its null space,
# amplified by 1 / lambda (a primal refit does the same; the dual refit does not)
SMALL_LAMBDA_ATOL = 1e-7


def _close(P, ref, lam):
    assert_allclose(P, ref, rtol=0, atol=ATOL if lam >= 1e-2 else SMALL_LAMBDA_ATOL)
GAMMA = 0.3


def _data(sizes, p=1, d=4, seed=0, shuffle=True):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(len(sizes)), sizes)
    if shuffle:
        q = rng.permutation(q)             # queries need not be contiguous
    X = rng.normal(size=(q.size, d))
    Y = X @ rng.normal(size=(d, p)) + 0.5 * rng.normal(size=(q.size, p))
    return X, Y, q


SIZES = [1, 4, 6, 3, 1, 5, 7, 2, 4, 3]


def _rows(q, queries):
    return np.flatnonzero(np.isin(q, queries))


def _refit(X, Y, q, H, lam, kernel, params, basis=None):
    keep = np.setdiff1d(np.arange(q.size), H)
    extra = dict(params)
    if basis is not None:
        pos = np.full(q.size, -1)
        pos[keep] = np.arange(keep.size)
        kept = pos[basis]
        extra["basis_indices"] = kept[kept >= 0]
    model = QueryRankRLSModel(X[keep], Y[keep], q[keep], lam, kernel, **extra)
    return np.asarray(model.predictor.predict(X[H])).reshape(H.size, -1)


def _holdouts(q):
    """Several whole queries; queries of one item among them; whole queries and parts of
    others; all queries but one."""
    return [_rows(q, [1, 2]), _rows(q, [0, 4]), _rows(q, [0, 3, 6, 9]),
            np.concatenate([_rows(q, [2]), _rows(q, [5])[:2], _rows(q, [4])]),
            _rows(q, [k for k in range(len(SIZES)) if k != 6]),
            _rows(q, [k for k in range(len(SIZES)) if k != 7])]


CASES = [("LinearKernel", {}, "dense"), ("LinearKernel", {}, "sparse"),
         ("GaussianKernel", {"gamma": GAMMA}, "dense")]


@pytest.mark.parametrize("kernel,params,form", CASES)
@pytest.mark.parametrize("p", [1, 2])
def test_holdout_rows_equals_refits(kernel, params, form, p):
    X, Y, q = _data(SIZES, p=p)
    Xm = sp.csr_matrix(X) if form == "sparse" else X
    model = QueryRankRLSModel(Xm, Y, q, 1.0, kernel, decompose_now=True, **params)
    assert model.kind == ("dual" if kernel == "GaussianKernel" else "primal")
    for lam in REGPARAMS:
        model.solve(lam)
        for H in _holdouts(q):
            _close(model.holdout_rows(H), _refit(X, Y, q, H, lam, kernel, params), lam)


@pytest.mark.parametrize("side", ["holdout", "feature"])
def test_primal_both_sides_equal_refits(monkeypatch, side):
    # the primal's two algebras, each forced, on the same problems
    monkeypatch.setattr(FoldCache, "use_primal", lambda self, H, d: side == "feature")
    X, Y, q = _data(SIZES, p=2, d=6, seed=3)
    for Xm in (X, sp.csr_matrix(X)):
        model = QueryRankRLSModel(Xm, Y, q, 1.0, decompose_now=True)
        for lam in REGPARAMS:
            model.solve(lam)
            for H in _holdouts(q):
                _close(model.holdout_rows(H),
                       _refit(X, Y, q, H, lam, "LinearKernel", {}), lam)
        # the forced side ran: the refits' parts are cached, the formula caches none
        assert (len(model._folds._items) > 0) == (side == "feature")


@pytest.mark.parametrize("remove", [True, False])
def test_nystrom_holdout_rows_equals_refits(remove):
    X, Y, q = _data(SIZES, p=2, seed=1)
    # random basis rows, and two in each of the queries that stay when all others are
    # held out (a predictor of one basis vector squeezes its (1, p) coefficients)
    basis = np.unique(np.concatenate([select_basis(q.size, None, 10, 0),
                                      _rows(q, [6])[:2], _rows(q, [7])]))
    params = {"gamma": GAMMA}
    model = QueryRankRLSModel(X, Y, q, 1.0, "GaussianKernel", decompose_now=True,
                              basis_indices=basis, keep_basis_in_cv=not remove, **params)
    assert model.kind == "primal" and model.remove_basis == remove
    held_basis = 0
    for lam in REGPARAMS:
        model.solve(lam)
        for H in _holdouts(q):
            if np.isin(basis, H).all():
                continue
            held_basis += np.isin(basis, H).any()
            if remove:
                ref = _refit(X, Y, q, H, lam, "GaussianKernel", params, basis)
            else:
                keep = np.setdiff1d(np.arange(q.size), H)
                ref = QueryRankRLSModel(X[keep], Y[keep], q[keep], lam, "GaussianKernel",
                                        basis_vectors=X[basis], **params
                                        ).predictor.predict(X[H]).reshape(H.size, -1)
            _close(model.holdout_rows(H), ref, lam)
    assert held_basis > 0


def test_nystrom_removal_on_the_holdout_side_too(monkeypatch):
    # a fold without basis vectors goes to the hold-out side; one with them is removed
    monkeypatch.setattr(FoldCache, "use_primal", lambda self, H, d: False)
    X, Y, q = _data(SIZES, seed=2)
    basis = np.concatenate([_rows(q, [2])[:2], _rows(q, [5])[:2]])
    model = QueryRankRLSModel(X, Y, q, 0.1, "GaussianKernel", decompose_now=True,
                              basis_indices=basis, gamma=GAMMA)
    for H in (_rows(q, [1, 3]), _rows(q, [2, 7])):
        assert_allclose(model.holdout_rows(H),
                        _refit(X, Y, q, H, 0.1, "GaussianKernel", {"gamma": GAMMA}, basis),
                        rtol=0, atol=ATOL)


def test_holdout_rows_of_one_query_is_holdout():
    # rows of one query (whole and part of it) through both entry points, both sides
    X, Y, q = _data(SIZES, p=2)
    for kernel, params in (("LinearKernel", {}), ("GaussianKernel", {"gamma": GAMMA})):
        model = QueryRankRLSModel(X, Y, q, 0.5, kernel, decompose_now=True, **params)
        for H in (_rows(q, [2]), _rows(q, [6])[:3], _rows(q, [6])[3:]):
            ref = _refit(X, Y, q, H, 0.5, kernel, params)
            assert_allclose(model.holdout_rows(H), ref, rtol=0, atol=ATOL)
            assert_allclose(model.holdout(H), ref, rtol=0, atol=ATOL)


def test_holdout_rows_bad_input():
    X, Y, q = _data(SIZES)
    model = QueryRankRLSModel(X, Y, q, 1.0)
    with pytest.raises(ValueError, match="every example"):
        model.holdout_rows(np.arange(q.size))
    with pytest.raises(IndexError, match="indices"):
        model.holdout_rows([0, q.size])
    with pytest.raises(ValueError, match="indices"):
        model.holdout_rows([0, 0])
    basis = _rows(q, [2])
    nys = QueryRankRLSModel(X, Y, q, 1.0, "GaussianKernel", basis_indices=basis,
                            gamma=GAMMA)
    with pytest.raises(ValueError, match="every basis vector"):
        nys.holdout_rows(_rows(q, [2, 3]))
    with pytest.raises(ValueError, match="regparam"):
        QueryRankRLSModel(X, Y, q, 0.0, "GaussianKernel", gamma=GAMMA,
                          ).holdout_rows(_rows(q, [k for k in range(10) if k != 7]))


def test_fold_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(FoldCache, "use_primal", lambda self, H, d: True)
    X, Y, q = _data(SIZES)
    model = QueryRankRLSModel(X, Y, q, 1.0, decompose_now=True)
    folds = QueryGroups.from_qids(q).folds(4, seed=0)
    cap = 1500                                 # room for one or two folds' parts
    model._folds = FoldCache(max_bytes=cap)
    for lam in (0.1, 1.0):
        model.solve(lam)
        for f in folds:
            assert_allclose(model.holdout_rows(f),
                            _refit(X, Y, q, f, lam, "LinearKernel", {}), atol=ATOL)
            assert 0 < model._folds._bytes <= cap
    assert len(model._folds._items) < len(folds)
