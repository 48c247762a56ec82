"""lambda selection for PCG reduced-set models (rlscore.core.nystrom.pcg_select and
rlscore.core.rankrls.pcg_select_rankrls): the per-lambda validation measures and the
choice equal those of refits with the direct streamed solver on the training rows of
each fold; warm starts along the decreasing grid."""

import warnings

import numpy as np
import pytest

from rlscore.core.rankrls import pcg_select_rankrls
from rlscore.core.nystrom import NystromFeatureMap, StreamedReducedSet, pcg_select, validation_folds
from rlscore.core.nystrom import PCGOptions, StreamedSelection
from rlscore.core.selection import EdgeOfGridWarning
from rlscore.core.structure import ArraySource
from rlscore.measure import cindex, sqerror

GRID = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]


def _data(m=240, r=30, n_queries=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 4))
    sizes = rng.multinomial(m - n_queries, np.ones(n_queries) / n_queries) + 1
    q = np.repeat(np.arange(n_queries), sizes)
    Y = np.sin(2 * X[:, :1]) + 0.5 * X[:, 1:2] + 0.3 * rng.standard_normal((m, 1))
    idx = np.sort(rng.choice(m, r, replace=False))
    return X, Y, q, idx


def _refit_measures(X, Y, q, fmap, kind, fold_of, evaluated, measure):
    """Direct solver refitted on the training rows of each evaluated fold."""
    P = np.full((X.shape[0], len(GRID)), np.nan)
    for j in evaluated:
        tr, te = fold_of != j, fold_of == j
        src = ArraySource(X[tr], Y[tr], qids=None if kind == "rls" else q[tr])
        model = StreamedReducedSet(src, fmap, kind=kind)
        for i, lam in enumerate(GRID):
            P[te, i] = np.ravel(fmap.predictor(model.solve(lam)).predict(X[te]))
    rows = np.isin(fold_of, evaluated)
    return np.array([measure(Y[rows, 0], P[rows, i]) for i in range(len(GRID))])


@pytest.mark.parametrize("split", [dict(validation=0.3), dict(cv=3)])
def test_rls_selection_equals_direct_refits(split):
    X, Y, q, idx = _data()
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        sel = pcg_select(ArraySource(X, Y), fmap, GRID,
                         select=StreamedSelection(random_state=1, **split),
                         pcg=PCGOptions(rtol=1e-12, maxiter=3000), block_size=17)
    ref = _refit_measures(X, Y, q, fmap, "rls", sel.fold_of, sel.evaluated, sqerror)
    np.testing.assert_allclose(sel.performances, ref, rtol=1e-7)
    assert sel.regparam == GRID[int(np.argmin(ref))]
    assert sel.iterations.shape == (len(sel.evaluated), len(GRID))
    # the final model: every row at the chosen lambda
    direct = StreamedReducedSet(ArraySource(X, Y), fmap).solve(sel.regparam)
    assert np.linalg.norm(sel.W - direct) <= 1e-6 * np.linalg.norm(direct)


@pytest.mark.parametrize("kind", ["query", "global"])
def test_rankrls_selection_equals_direct_refits(kind):
    X, Y, q, idx = _data()
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        sel = pcg_select_rankrls(ArraySource(X, Y, qids=q), fmap, GRID, kind,
                                 basis_indices=idx, block_size=7,
                                 select=StreamedSelection(cv=3, measure=cindex,
                                                          random_state=2),
                                 pcg=PCGOptions(rtol=1e-12, maxiter=3000))
    if kind == "query":
        # folds of whole queries
        for g in np.unique(q):
            assert np.unique(sel.fold_of[q == g]).size == 1
    ref = _refit_measures(X, Y, q, fmap, kind, sel.fold_of, sel.evaluated, cindex)
    np.testing.assert_allclose(sel.performances, ref, rtol=1e-7)
    assert sel.regparam == GRID[int(np.argmax(ref))]
    direct = StreamedReducedSet(ArraySource(X, Y, qids=q), fmap, kind=kind).solve(
        sel.regparam)
    assert np.linalg.norm(sel.W - direct) <= 1e-6 * np.linalg.norm(direct)


def test_warm_starts_save_iterations():
    X, Y, q, idx = _data(m=600, r=60)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    grid = list(np.geomspace(1e-2, 1e2, 9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        sel = pcg_select(ArraySource(X, Y), fmap, grid,
                         select=StreamedSelection(validation=0.25, random_state=0),
                         pcg=PCGOptions(rtol=1e-8, maxiter=3000), refit=False)
    from rlscore.core.nystrom import StreamedGramOperator, pcg_solve
    op = StreamedGramOperator(ArraySource(X, Y), fmap, rows=sel.fold_of != 0)
    cold = sum(pcg_solve(op, lam, tol=1e-8, maxiter=3000).iterations for lam in grid)
    assert sel.iterations.sum() < cold
    assert sel.W is None


def test_edge_of_grid_warning_and_bad_arguments():
    X, Y, q, idx = _data(m=120, r=15)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    src = ArraySource(X, Y, qids=q)
    with pytest.warns(EdgeOfGridWarning):
        pcg_select(src, fmap, [1e4, 1e5, 1e6],
                   select=StreamedSelection(validation=0.3),
                   pcg=PCGOptions(maxiter=500))
    with pytest.raises(ValueError, match="not both"):
        pcg_select(src, fmap, GRID, select=StreamedSelection(validation=0.2, cv=3))
    with pytest.raises(ValueError, match="fraction"):
        pcg_select(src, fmap, GRID, select=StreamedSelection(validation=1.5))
    with pytest.raises(ValueError, match="regparams"):
        pcg_select(src, fmap, [1.0, -2.0], select=StreamedSelection(validation=0.2))
    fold_of, ev = validation_folds(src, "query", validation=0.3, random_state=0)
    assert ev == [0]
    for g in np.unique(q):
        assert np.unique(fold_of[q == g]).size == 1
