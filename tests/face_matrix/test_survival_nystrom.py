"""Face matrix (issue 42, see ``__init__.py``): survival RankRLS on Nystrom basis
vectors, trained by the direct solver and by preconditioned CG with the kernel streamed
by blocks (``solver="pcg"``, :class:`rlscore.core.survival.PCGSurvivalRankRLSModel`),
through every face -- ``rlscore.learner.SurvivalRankRLS``,
``rlscore.estimators.SurvivalRankRLS``, ``rlscore fit --basis N [--solver pcg]`` --
and the command line's K-fold selection on the basis (kept in every hold-out model),
against brute force written here: RankRLS in closed form on the explicit list of
Harrell's comparable pairs, in the explicit Nystrom feature space
Phi(x) = K(x, B) K(B, B)^{-1/2} of the basis B."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore.core.nystrom import select_basis

from ._common import (EDGE_OK, GAMMA, K_FOLDS, RTOL, SEED, SPARSE_RTOL, _cli_files,
                      _formats, _kernel)
from .test_survival import (_censored, _censored_c, _rankrls_refit, _survival_files,
                            _survival_folds)

pytestmark = EDGE_OK

N_BASIS, LAMBDA, GRID = 12, 0.5, [0.01, 0.5, 20.0]
PCG_TOL = 1e-12


def _basis_rows(m):
    """The rows every face draws for N_BASIS centres with seed 0 (the command's
    default --basis-seed)."""
    return select_basis(m, n_basis=N_BASIS, random_state=0)


def _nystrom_space(A, B):
    """Rows of A in the explicit feature space of the Nystrom model on B."""
    e, V = np.linalg.eigh(_kernel(B, B, "gaussian"))
    return _kernel(A, B, "gaussian") @ (V / np.sqrt(e))


def _reference(lam):
    """Test risks of the closed form on all rows at ``lam``."""
    X, time, event, Xt = _censored()
    m = len(time)
    B = X[_basis_rows(m)]
    Phi = _nystrom_space(np.vstack([X, Xt]), B)
    return _rankrls_refit(Phi, time, event, np.arange(m), lam)(m + np.arange(len(Xt)))


def _learner(solver, fmt=None):
    from rlscore.learner import SurvivalRankRLS
    X, time, event, Xt = _censored()
    X, Xt = _formats(X, Xt, fmt)
    extra = {} if solver == "direct" else {"solver": "pcg", "pcg_tol": PCG_TOL}
    L = SurvivalRankRLS(X, time, event, LAMBDA, "GaussianKernel",
                        X[_basis_rows(len(time))], gamma=GAMMA, **extra)
    return L.predict(Xt)


def _estimator(solver, fmt=None):
    from rlscore.estimators import SurvivalRankRLS
    X, time, event, Xt = _censored()
    X, Xt = _formats(X, Xt, fmt)
    y = np.empty(len(time), dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = event, time
    extra = {} if solver == "direct" else {"solver": "pcg", "pcg_tol": PCG_TOL}
    est = SurvivalRankRLS(LAMBDA, kernel="rbf", gamma=GAMMA,
                          basis_vectors=X[_basis_rows(len(time))], **extra).fit(X, y)
    return est.predict(Xt)


_SURVIVAL = ["--learner", "survival-rankrls", "--time-column", "time", "--event-column",
             "event", "--kernel", "gaussian", "--gamma", str(GAMMA), "--basis",
             str(N_BASIS)]


def _cli(solver, run_cli, tmp_path):
    train, test = _survival_files(tmp_path)
    extra = [] if solver == "direct" else ["--solver", "pcg", "--pcg-tol", str(PCG_TOL)]
    model, pred = tmp_path / "m.npz", tmp_path / "p.txt"
    code, _, err = run_cli(["fit", train, "-o", model, *_SURVIVAL, "--regparam",
                            str(LAMBDA), *extra])
    assert code == 0, err
    code, _, err = run_cli(["predict", model, test, "-o", pred])
    assert code == 0, err
    return np.loadtxt(pred)


FACES = {"learner": _learner, "estimator": _estimator, "cli": _cli}


@pytest.mark.parametrize("solver", ["direct", "pcg"])
@pytest.mark.parametrize("face", sorted(FACES))
def test_nystrom_survival_rankrls_one_model(face, solver, run_cli, tmp_path):
    """Every face, either solver: the closed form on the comparable pairs in the
    Nystrom space (PCG run to 1e-12 of the residual)."""
    kwargs = {"run_cli": run_cli, "tmp_path": tmp_path} if face == "cli" else {}
    got = FACES[face](solver, **kwargs)
    assert_allclose(np.ravel(got), _reference(LAMBDA), rtol=RTOL, atol=1e-10)


@pytest.mark.parametrize("solver", ["direct", "pcg"])
@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_nystrom_survival_rankrls_one_model_csr(face, solver):
    """CSR training and test input (the basis rows CSR too): the same face on dense
    input (SPARSE_RTOL; PCG's iterates see the same products) and the closed form."""
    got = np.ravel(FACES[face](solver, fmt="csr"))
    assert_allclose(got, np.ravel(FACES[face](solver)), rtol=SPARSE_RTOL, atol=1e-12)
    assert_allclose(got, _reference(LAMBDA), rtol=RTOL, atol=1e-10)


def test_cli_kfold_on_the_basis(run_cli, tmp_path):
    """``rlscore cv / fit --basis N --keep-basis-in-cv --cv kfold``: each fold's
    Harrell's C of the closed form refit without the fold's rows (and their pairs) on
    the same basis, the mean over the folds, the best value's model."""
    X, time, event, Xt = _censored()
    m = len(time)
    Phi = _nystrom_space(np.vstack([X, Xt]), X[_basis_rows(m)])
    perfs = []
    for lam in GRID:
        cs = [_censored_c(time[f], event[f],
                          _rankrls_refit(Phi, time, event, np.setdiff1d(np.arange(m), f),
                                         lam)(f))
              for f in _survival_folds(m)]
        perfs.append(np.mean([c for c in cs if c is not None]))
    best = GRID[int(np.argmax(perfs))]
    train, test = _survival_files(tmp_path)
    lam, got, pred, _ = _cli_files(run_cli, tmp_path, train, test, [
        *_SURVIVAL, "--keep-basis-in-cv", "--regparams", ",".join(map(str, GRID)),
        "--cv", "kfold", "--folds", K_FOLDS, "--seed", SEED])
    assert_allclose(got, perfs, rtol=RTOL, atol=0)
    assert lam == best
    assert_allclose(pred, _rankrls_refit(Phi, time, event, np.arange(m), best)(
        m + np.arange(len(Xt))), rtol=RTOL, atol=1e-10)


def test_every_face_refuses_what_pcg_cannot_do(run_cli, tmp_path):
    """solver="pcg" needs basis vectors, trains one regparam without exact hold-outs,
    and PCG's options are refused, not ignored, with the direct solver."""
    from rlscore.estimators import SurvivalRankRLS as Estimator
    from rlscore.learner import KfoldSurvivalRankRLS, SurvivalRankRLS
    X, time, event, _ = _censored()
    B = X[_basis_rows(len(time))]
    with pytest.raises(ValueError, match="give basis_vectors"):
        SurvivalRankRLS(X, time, event, 1.0, "GaussianKernel", solver="pcg")
    with pytest.raises(ValueError, match="pcg_tol applies to solver='pcg'"):
        SurvivalRankRLS(X, time, event, 1.0, "GaussianKernel", B, pcg_tol=1e-3)
    pcg = SurvivalRankRLS(X, time, event, 1.0, "GaussianKernel", B, solver="pcg")
    with pytest.raises(ValueError, match="no exact hold-out"):
        pcg.holdout([[0, 1]])
    with pytest.raises(ValueError, match="no exact hold-out"):
        pcg.leave_one_out()
    with pytest.raises(ValueError, match="select regparam with solver='direct'"):
        KfoldSurvivalRankRLS(X, time, event, _survival_folds(len(time)),
                             kernel="GaussianKernel", basis_vectors=B, solver="pcg")
    y = np.empty(len(time), dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = event, time
    with pytest.raises(ValueError, match="pcg_max_iter applies to solver='pcg'"):
        Estimator(kernel="rbf", basis_vectors=B, pcg_max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="give basis_vectors"):
        Estimator(kernel="rbf", solver="pcg").fit(X, y)
    train, _ = _survival_files(tmp_path)
    base = ["fit", train, "-o", tmp_path / "m.npz", *_SURVIVAL[:-2]]
    for extra, text in [
            (["--solver", "pcg"], "add --basis N"),
            (["--basis", "5", "--pcg-tol", "1e-3"], "--pcg-tol applies to --solver pcg"),
            (["--basis", "5", "--solver", "pcg", "--cv", "kfold"], "one --regparam"),
            (["--basis", "5", "--cv", "kfold"], "add --keep-basis-in-cv"),
            (["--basis", "5", "--stream"], "--stream: not an option")]:
        code, _, err = run_cli(base + extra)
        assert code == 2 and text in err, (extra, err)
