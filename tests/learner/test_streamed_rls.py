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
    np.testing.assert_allclose(st.cv_predictions, np.asarray(ref.cv_predictions).T
                               if np.ndim(ref.cv_predictions) == 2 and
                               np.shape(ref.cv_predictions)[0] == len(GRID) else
                               ref.cv_predictions, rtol=1e-9, atol=1e-10)
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
