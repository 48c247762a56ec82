"""The command line's --basis follows the basis rule of every face: the exact
cross-validation of a Nystrom model removes the basis rows a fold holds out from that
fold's model (--keep-basis-in-cv keeps them), checked against refits in closed form."""

import json

import numpy as np
import pytest

from rlscore.core.nystrom import select_basis
from rlscore.learner import KfoldRLS, LeaveOneOutRLS
from rlscore.measure import sqerror
from rlscore.utilities.reader import write_svmlight

GAMMA, GRID = 0.4, [0.01, 0.1, 1.0]


def gauss(A, B):
    return np.exp(-GAMMA * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def reduced_set_prediction(X, y, train, basis, test, lam):
    """Closed form of the Nystrom model on the rows ``train`` with basis rows
    ``basis``: a = (K_tb^T K_tb + lam K_bb)^+ K_tb^T y, predictions K(test, basis) a."""
    Ktb, Kbb = gauss(X[train], X[basis]), gauss(X[basis], X[basis])
    a = np.linalg.lstsq(Ktb.T @ Ktb + lam * Kbb, Ktb.T @ y[train], rcond=None)[0]
    return gauss(X[test], X[basis]) @ a


def data(m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=m)
    return X, y


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("cv", ["loo", "kfold"])
@pytest.mark.parametrize("keep", [False, True])
def test_cli_basis_cv_equals_refits_and_the_learners(tmp_path, run_cli, cv, keep):
    X, y = data()
    m, n_basis, seed = y.size, 12, 5
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    argv = ["cv", path, "--kernel", "gaussian", "--gamma", GAMMA, "--regparams",
            ",".join(map(str, GRID)), "--cv", cv, "--basis", n_basis, "--basis-seed", seed,
            "--measure", "sqerror", "--format", "json"]
    if cv == "kfold":
        argv += ["--folds", 4, "--seed", 2]
    if keep:
        argv.append("--keep-basis-in-cv")
    code, out, err = run_cli(argv)
    assert code == 0, err
    perfs = np.array(json.loads(out)["cv_performances"])
    basis = select_basis(m, n_basis=n_basis, random_state=seed)
    if cv == "loo":
        folds = [np.array([i]) for i in range(m)]
    else:
        from rlscore.cli._select import example_folds
        folds = example_folds(m, 4, 2)
    ref = []
    for lam in GRID:
        P = np.empty(m)
        for f in folds:
            train = np.setdiff1d(np.arange(m), f)
            b = basis if keep else np.setdiff1d(basis, f)
            P[f] = reduced_set_prediction(X, y, train, b, f, lam)
        ref.append(sqerror(y, P))
    np.testing.assert_allclose(perfs, ref, rtol=1e-8)
    # the learner face with the same basis rows and rule
    kw = dict(kernel="GaussianKernel", gamma=GAMMA, basis_indices=basis,
              keep_basis_in_cv=keep, regparams=GRID, measure=sqerror)
    learner = (LeaveOneOutRLS(X, y, **kw) if cv == "loo" else KfoldRLS(X, y, folds, **kw))
    np.testing.assert_allclose(learner.cv_performances, perfs, rtol=1e-10)


def test_keep_basis_in_cv_needs_basis(tmp_path, run_cli):
    X, y = data()
    path = tmp_path / "train.txt"
    write_svmlight(path, X, y)
    code, _, err = run_cli(["cv", path, "--kernel", "gaussian", "--keep-basis-in-cv"])
    assert code == 2 and "--keep-basis-in-cv needs --basis" in err
