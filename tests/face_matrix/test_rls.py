"""Face matrix (issue 42, see ``__init__.py``): RLS (linear, Gaussian; LOO, K-fold, LPO)
and its Nystrom models (held-out basis rows removed, kept, or drawn by the face) through
the learner, estimator, CLI and Dask faces."""

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore.utilities.cross_validation import random_folds

from ._common import (BASIS_SEED, EDGE_OK, GAMMA, GRID, K_FOLDS, N_BASIS,
                      PREDICT_FORMATS, RTOL, SEED, _block_folds, _check, _choose,
                      _cli_run, _final, _formats, _kernel_options, _kfold_estimates,
                      _learner_result, _loo_estimates, _lpo_estimates, _memo,
                      _regression, _rls_basis, _same_as_dense, _slow_if, _sqerror)

pytestmark = EDGE_OK


def _rls_reference(kernel, cv, nystrom):
    """(estimates, chosen, test predictions) of the brute force; Nystrom: basis rows
    removed from every split's training ("remove", and "draw": the same rows drawn by
    the face from n_basis and a seed) or the same vectors in every split ("keep").
    ``cv`` "kfold" holds out random_folds(m, K_FOLDS, SEED), "blocks" contiguous
    blocks."""
    if nystrom == "draw":
        return _rls_reference(kernel, cv, "remove")
    X, y, Xt = _regression()
    m = len(y)
    basis = _rls_basis(m) if nystrom else None
    if cv == "loo":
        perfs, error = _loo_estimates(kernel, X, y, basis), True
    elif cv in ("kfold", "blocks"):
        folds = random_folds(m, K_FOLDS, seed=SEED) if cv == "kfold" else _block_folds(m)
        perfs = _kfold_estimates("rls", kernel, X, y, None, folds,
                                 lambda a, b, _: _sqerror(a, b), basis,
                                 keep=nystrom == "keep")
        error = True
    else:
        perfs, error = _lpo_estimates("rls", kernel, X, y, None, basis), False
    lam = _choose(perfs, error)
    pred = _final("rls", kernel, X, y, None, Xt, lam, basis)
    return perfs, lam, pred


_rls_reference = functools.lru_cache(maxsize=None)(_rls_reference)


def _rls_learner(kernel, cv, nystrom, fmt=None, grid=GRID, **_):
    from rlscore.learner import KfoldRLS, LeaveOneOutRLS, LeavePairOutRLS
    from rlscore.measure import sqerror
    X, y, Xt = _regression()
    X, Xt = _formats(X, Xt, fmt)
    kw = _kernel_options(kernel, "learner")
    if nystrom == "remove":
        kw["basis_indices"] = _rls_basis(len(y))
    elif nystrom == "keep":
        kw["basis_vectors"] = X[_rls_basis(len(y))]
    elif nystrom == "draw":
        kw.update(n_basis=N_BASIS, random_state=BASIS_SEED)
    cls, args = {"loo": (LeaveOneOutRLS, ()), "lpo": (LeavePairOutRLS, ()),
                 "kfold": (KfoldRLS, (random_folds(len(y), K_FOLDS, seed=SEED),))}[cv]
    if cv != "lpo":                       # LeavePairOutRLS has no measure: the AUC
        kw["measure"] = sqerror
    return _learner_result(cls(X, y, *args, regparams=grid, **kw), Xt)


def _rls_estimator(kernel, cv, nystrom, fmt=None, grid=GRID, **_):
    from rlscore.estimators import KernelRLSCV
    X, y, Xt = _regression()
    X, Xt = _formats(X, Xt, fmt)
    m = len(y)
    kw = _kernel_options(kernel, "estimator")
    if nystrom == "draw":
        kw.update(n_basis=N_BASIS, random_state=BASIS_SEED)
    elif nystrom:
        kw.update(basis_indices=_rls_basis(m), keep_basis_in_cv=nystrom == "keep")
    if cv == "kfold":
        splits = [(np.setdiff1d(np.arange(m), f), np.sort(f))
                  for f in random_folds(m, K_FOLDS, seed=SEED)]
        est = KernelRLSCV(alphas=grid, cv=splits, scoring="sqerror", **kw)
    else:
        est = KernelRLSCV(alphas=grid, cv=cv, scoring="cindex" if cv == "lpo" else
                          "sqerror", **kw)
    est.fit(X, y)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


def _rls_cli(kernel, cv, nystrom, run_cli, tmp_path, grid=GRID, **_):
    X, y, Xt = _regression()
    opts = ["--learner", "rls", "--regparams", ",".join(map(str, grid)), "--cv", cv,
            "--measure", "cindex" if cv == "lpo" else "sqerror"]
    opts += _kernel_options(kernel, "cli")
    if cv == "kfold":
        opts += ["--folds", K_FOLDS, "--seed", SEED]
    if nystrom:
        opts += ["--basis", N_BASIS, "--basis-seed", BASIS_SEED]
        opts += ["--keep-basis-in-cv"] if nystrom == "keep" else []
    return _cli_run(run_cli, tmp_path, X, y, None, Xt, opts)


def _rls_dask(kernel, cv, nystrom, client, **_):
    """rlscore.distributed.RLS (Nystrom, K-fold over partitions), one partition per
    fold. ``nystrom`` "keep": the basis vectors given, the rows of random_folds as the
    partitions ("kfold"); "draw": n_basis rows drawn by the face from the data in its
    order, contiguous blocks as the partitions ("blocks")."""
    da = pytest.importorskip("dask.array")
    import rlscore.distributed as rd
    from rlscore.measure import sqerror
    X, y, Xt = _regression()
    folds = random_folds(len(y), K_FOLDS, seed=SEED) if cv == "kfold" else \
        _block_folds(len(y))
    order = np.concatenate([np.sort(f) for f in folds])
    chunks = tuple(len(f) for f in folds)
    Xd = da.from_array(X[order], chunks=(chunks, -1))
    yd = da.from_array(y[order], chunks=(chunks,))
    basis = {"basis_vectors": X[_rls_basis(len(y))]} if nystrom == "keep" else \
        {"n_basis": N_BASIS, "random_state": BASIS_SEED}
    model = rd.RLS(Xd, yd, kernel="GaussianKernel", gamma=GAMMA, client=client, **basis)
    out = model.kfold(GRID, folds=[[k] for k in range(K_FOLDS)], measure=sqerror)
    return out["best_regparam"], out["cv_performances"], model.predict(Xt)


RLS_FACES = {"learner": _memo(_rls_learner), "estimator": _memo(_rls_estimator),
             "cli": _rls_cli,
             "dask": _rls_dask}

RLS_ROWS = []
for _kernel_name in ("linear", "gaussian"):
    for _cv in ("loo", "kfold", "lpo"):
        for _face in ("learner", "estimator", "cli"):
            RLS_ROWS.append((_kernel_name, _cv, None, _face))
for _cv in ("loo", "kfold", "lpo"):
    for _face in ("learner", "estimator"):
        RLS_ROWS.append(("gaussian", _cv, "remove", _face))
for _cv in ("kfold",):
    for _face in ("learner", "estimator", "cli"):
        RLS_ROWS.append(("gaussian", _cv, "keep", _face))
#: The command line draws ``--basis N --basis-seed S`` as the learners draw n_basis /
#: random_state and follows the same rule (``--keep-basis-in-cv`` keeps the rows).
for _cv in ("loo", "kfold", "lpo"):
    for _face in ("learner", "estimator", "cli"):
        RLS_ROWS.append(("gaussian", _cv, "draw", _face))


@pytest.mark.parametrize("kernel,cv,nystrom,face", RLS_ROWS)
def test_rls(kernel, cv, nystrom, face, run_cli, tmp_path):
    perfs, lam, pred = _rls_reference(kernel, cv, nystrom)
    got = RLS_FACES[face](kernel, cv, nystrom, run_cli=run_cli, tmp_path=tmp_path)
    _check(got, perfs, lam, pred)


@pytest.mark.parametrize("cv,nystrom", [("kfold", "keep"), ("blocks", "draw")])
def test_rls_nystrom_kfold_dask(client, cv, nystrom):
    perfs, lam, pred = _rls_reference("gaussian", cv, nystrom)
    _check(_rls_dask("gaussian", cv, nystrom, client), perfs, lam, pred)



# ------------------------------------------------------------- the sparse column

#: every RLS row of a face that takes scipy.sparse input (the command line reads
#: svmlight files, always sparse: its rows above are its sparse rows; Dask takes
#: dask arrays)
RLS_SPARSE_ROWS = [row for row in RLS_ROWS if row[3] in ("learner", "estimator")]


#: Gaussian leave-pair-out of a Nystrom model is the slow kind (one model per pair):
#: its CSR rows run with -m slow, the plain LPO rows are their twins
@pytest.mark.parametrize("kernel,cv,nystrom,face", _slow_if(
    RLS_SPARSE_ROWS, lambda row: row[1] == "lpo" and row[2] is not None))
def test_rls_csr(kernel, cv, nystrom, face):
    perfs, lam, pred = _rls_reference(kernel, cv, nystrom)
    got = RLS_FACES[face](kernel, cv, nystrom, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, RLS_FACES[face](kernel, cv, nystrom))


@pytest.mark.parametrize("fmt", PREDICT_FORMATS)
@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_rls_predict_formats(face, fmt):
    """Dense training, the test rows as CSC, COO, np.matrix or a sparse array."""
    perfs, lam, pred = _rls_reference("gaussian", "kfold", None)
    got = RLS_FACES[face]("gaussian", "kfold", None, fmt=fmt)
    _check(got, perfs, lam, pred)
    _same_as_dense(got, RLS_FACES[face]("gaussian", "kfold", None))


# ---------------------------------------- outside findings (issue 35: a grid with 0)

ZERO_GRID = [0.0, 0.1, 10.0]


@pytest.mark.parametrize("face", ["learner", "estimator", "cli"])
def test_rls_grid_with_zero(face, run_cli, tmp_path):
    """regparam 0 is accepted in a grid by every face: linear RLS K-fold with 0 in the
    grid is least squares on each fold's training rows (the primal normal equations,
    X^T X invertible here)."""
    X, y, Xt = _regression()
    m, d = X.shape
    folds = random_folds(m, K_FOLDS, seed=SEED)

    def ridge(rows, lam):
        return np.linalg.solve(X[rows].T @ X[rows] + lam * np.eye(d), X[rows].T @ y[rows])
    perfs = [np.mean([_sqerror(y[f], X[f] @ ridge(np.setdiff1d(np.arange(m), f), lam))
                      for f in folds]) for lam in ZERO_GRID]
    lam = ZERO_GRID[int(np.argmin(perfs))]
    got = RLS_FACES[face]("linear", "kfold", None, run_cli=run_cli, tmp_path=tmp_path,
                          grid=ZERO_GRID)
    assert_allclose(np.ravel(got[1]), perfs, rtol=RTOL, atol=0)
    assert got[0] == lam
    assert_allclose(np.ravel(got[2]), Xt @ ridge(np.arange(m), lam), rtol=RTOL, atol=1e-10)
