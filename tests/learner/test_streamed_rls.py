"""StreamedRLS (the streamed face) equals the in-memory learners with the same basis;
svmlight files are streamed in two passes; a file truncated between passes is an
error and no model."""

import numpy as np
import pytest

from rlscore.learner import KfoldRLS, LeaveOneOutRLS, StreamedRLS
from rlscore.utilities.reader import SvmlightSource, write_svmlight

GRID = [2.0 ** k for k in range(-4, 5, 2)]


def _data(m=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 4))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m)
    return X, y


@pytest.mark.parametrize("block", [1, 7, None])
def test_loo_selection_equals_in_memory(block):
    X, y = _data()
    idx = np.arange(0, 60, 6)
    ref = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                         basis_indices=idx)
    st = StreamedRLS(X, y, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                     basis_indices=idx, block_size=block)
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-9)
    assert st.regparam == ref.regparam
    assert st.cv_predictions.shape == ref.cv_predictions.shape == (len(GRID), 60)
    np.testing.assert_allclose(st.cv_predictions, ref.cv_predictions, rtol=1e-9,
                               atol=1e-10)
    Xt = _data(5, seed=1)[0]
    np.testing.assert_allclose(st.predict(Xt), ref.predict(Xt), rtol=1e-9, atol=1e-10)


def test_kfold_selection_equals_in_memory():
    X, y = _data()
    idx = np.arange(0, 60, 5)
    folds = [np.arange(i, 60, 3) for i in range(3)]
    fold_of = np.arange(60) % 3
    ref = KfoldRLS(X, y, folds, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                   basis_indices=idx)
    st = StreamedRLS(X, y, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                     basis_indices=idx, cv=fold_of, block_size=7)
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-9)
    assert st.regparam == ref.regparam


@pytest.mark.parametrize("p", [1, 2])
def test_cv_predictions_orientation_is_leave_one_outs(p):
    """cv_predictions is grid first in every face (issue 44 item 17): StreamedRLS's
    (L, m[, p]) equals LeaveOneOutRLS's for leave-one-out, and for K-fold holds, row
    by row, KfoldRLS's per-fold arrays and the refit without the fold (the held-out
    basis rows removed)."""
    from rlscore.learner import RLS
    X, y = _data()
    Y = y if p == 1 else np.column_stack([y, X[:, 1] ** 2])
    idx = np.arange(0, 60, 5)                   # basis rows in every fold
    kw = dict(kernel="GaussianKernel", gamma=0.3, regparams=GRID, basis_indices=idx)
    ref = LeaveOneOutRLS(X, Y, **kw)
    st = StreamedRLS(X, Y, **kw, block_size=7)
    shape = (len(GRID), 60) + ((p,) if p > 1 else ())
    assert np.shape(ref.cv_predictions) == st.cv_predictions.shape == shape
    np.testing.assert_allclose(st.cv_predictions, ref.cv_predictions, rtol=1e-9,
                               atol=1e-10)
    fold_of = np.arange(60) % 3
    folds = [np.flatnonzero(fold_of == k) for k in range(3)]
    st = StreamedRLS(X, Y, **kw, cv=fold_of, block_size=7)
    kf = KfoldRLS(X, Y, folds, **kw)
    assert st.cv_predictions.shape == shape
    for i, lam in enumerate(GRID):
        for k, f in enumerate(folds):
            train = np.setdiff1d(np.arange(60), f)
            brute = RLS(X[train], Y[train], regparam=lam, kernel="GaussianKernel",
                        gamma=0.3, basis_vectors=X[np.intersect1d(idx, train)])
            np.testing.assert_allclose(st.cv_predictions[i][f], brute.predict(X[f]),
                                       rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(kf.cv_predictions[i][k], st.cv_predictions[i][f],
                                       rtol=1e-8, atol=1e-10)


def test_svmlight_file_equals_arrays(tmp_path):
    X, y = _data()
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    idx = np.arange(0, 60, 5)
    a = StreamedRLS(X, y, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                    basis_indices=idx, block_size=7)
    src = SvmlightSource(path, chunk_bytes=300)         # many chunks, split further
    b = StreamedRLS(src, kernel="GaussianKernel", gamma=0.3, regparams=GRID,
                    basis_indices=idx, block_size=7)
    np.testing.assert_allclose(b.cv_performances, a.cv_performances, rtol=1e-9)
    Xt = _data(5, seed=2)[0]
    np.testing.assert_allclose(b.predict(Xt), a.predict(Xt), rtol=1e-9, atol=1e-12)


def test_pcg_solver_matches_direct():
    X, y = _data(200)
    idx = np.arange(0, 200, 5)
    a = StreamedRLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3,
                    basis_indices=idx)
    b = StreamedRLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3,
                    basis_indices=idx, solver="pcg", tol=1e-10)
    Xt = _data(5, seed=2)[0]
    np.testing.assert_allclose(b.predict(Xt), a.predict(Xt), rtol=1e-6)


def test_file_truncated_in_second_pass(tmp_path):
    X, y = _data()
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    src = SvmlightSource(path, chunk_bytes=300)
    text = path.read_text().splitlines(keepends=True)
    path.write_text("".join(text[:40]))                # the file shrinks after the scan
    with pytest.raises(ValueError, match="truncated"):
        StreamedRLS(src, kernel="GaussianKernel", regparams=GRID,
                    basis_indices=np.arange(0, 40, 5))


def test_nan_late_and_budget_errors():
    X, y = _data()
    X[55, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        StreamedRLS(X, y, n_basis=5, block_size=7)
    X, y = _data()
    with pytest.raises(ValueError, match="memory_budget=1e-05 MiB is too small"):
        StreamedRLS(X, y, n_basis=5, memory_budget=1e-5)
    with pytest.raises(ValueError, match="n_basis"):
        StreamedRLS(X, y)


@pytest.mark.parametrize("kind", ["query", "global"])
def test_pcg_ranking_matches_direct(kind):
    X, y = _data(240)
    q = np.repeat(np.arange(30), 8)
    idx = np.arange(0, 240, 6)
    a = StreamedRLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3,
                    basis_indices=idx, kind=kind, qids=q, block_size=13)
    b = StreamedRLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3,
                    basis_indices=idx, kind=kind, qids=q, block_size=13, solver="pcg",
                    tol=1e-10)
    Xt = _data(5, seed=2)[0]
    np.testing.assert_allclose(b.predict(Xt), a.predict(Xt), rtol=1e-6, atol=1e-9)
    assert b.cg_iterations > 0


def test_pcg_grid_on_a_validation_split():
    X, y = _data(200)
    idx = np.arange(0, 200, 5)
    b = StreamedRLS(X, y, kernel="GaussianKernel", gamma=0.3, basis_indices=idx,
                    solver="pcg", regparams=[0.01, 0.1, 1.0, 10.0], validation=0.25,
                    random_state=0, tol=1e-10)
    a = StreamedRLS(X, y, regparam=b.regparam, kernel="GaussianKernel", gamma=0.3,
                    basis_indices=idx)
    Xt = _data(5, seed=2)[0]
    np.testing.assert_allclose(b.predict(Xt), a.predict(Xt), rtol=1e-6, atol=1e-9)
    assert b.cg_iterations.shape == (1, 4)
    with pytest.raises(ValueError, match="validation split"):
        StreamedRLS(X, y, kernel="GaussianKernel", basis_indices=idx, solver="pcg",
                    regparams=[0.1, 1.0])
