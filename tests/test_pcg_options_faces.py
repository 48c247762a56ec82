"""PCG's stopping tolerance and iteration cap in every face: ``pcg_tol`` /
``pcg_maxiter`` of the RLScore learners and the core's ``fit_rls_model`` /
``fit_rank_model``, ``pcg_tol`` / ``pcg_max_iter`` of the estimators, ``--pcg-tol`` /
``--pcg-maxiter`` of ``rlscore fit``. At the same values every face runs the PCG of
``learner.StreamedRLS(tol=, maxiter=)``; the cap gives a ConvergenceWarning; given to
a model the direct solver trains they are refused by the face's name, not ignored."""

import numpy as np
import pytest

from rlscore.core.optim import ConvergenceWarning
from rlscore.core.rankrls import fit_rank_model
from rlscore.core.nystrom import ComputePlan, fit_rls_model
from rlscore.estimators import KernelRLS, RankRLS
from rlscore.learner import (GlobalRankRLS, LeaveOneOutRLS, QueryRankRLS, RLS,
                             StreamedRLS)
from rlscore.model_io import load_model, read_metadata
from rlscore.utilities.reader import write_svmlight

M, D, B, GAMMA, LAM = 160, 4, 20, 0.3, 1e-3
rng = np.random.default_rng(5)
X = rng.standard_normal((M, D))
Y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.05 * rng.standard_normal(M)
QIDS = np.repeat(np.arange(16), 10)
BASIS = np.arange(0, M, M // B)
KW = dict(kernel="GaussianKernel", gamma=GAMMA, basis_indices=BASIS)
XT = X[:13] + 0.1


def _reference(kind, tol=1e-6, maxiter=None):
    """The PCG run of learner.StreamedRLS, the face that always took tol / maxiter."""
    return StreamedRLS(X, Y, regparam=LAM, solver="pcg", kind=kind, tol=tol,
                       maxiter=maxiter, qids=QIDS if kind == "query" else None, **KW)


def _learner(kind, **kw):
    if kind == "rls":
        return RLS(X, Y, regparam=LAM, solver="pcg", **KW, **kw)
    if kind == "query":
        return QueryRankRLS(X, Y, QIDS, regparam=LAM, solver="pcg", **KW, **kw)
    return GlobalRankRLS(X, Y, regparam=LAM, solver="pcg", **KW, **kw)


def _estimator(kind, **kw):
    est_kw = dict(alpha=LAM, kernel="rbf", gamma=GAMMA, basis_indices=BASIS,
                  solver="pcg", **kw)
    if kind == "rls":
        return KernelRLS(**est_kw).fit(X, Y)
    return RankRLS(**est_kw).fit(X, Y, qid=QIDS if kind == "query" else None)


def _core(kind, pcg_tol=None, pcg_maxiter=None):
    plan = ComputePlan.from_options(solver="pcg", rtol=pcg_tol, maxiter=pcg_maxiter)
    if kind == "rls":
        return fit_rls_model(X, Y, LAM, plan=plan, **KW)
    return fit_rank_model(X, Y, QIDS if kind == "query" else None, LAM, plan=plan, **KW)


def _iterations(model):
    """CG iterations of a core model's PCG run (the SolverResult of the RLS model, the
    StreamedFit's of the RankRLS one)."""
    res = model.streamed
    return getattr(res, "solver_result", res).iterations


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
def test_every_face_runs_the_pcg_of_the_given_tolerance(kind):
    loose, tight = _reference(kind, tol=1e-2), _reference(kind, tol=1e-10)
    assert loose.cg_iterations < tight.cg_iterations
    P, P_tight = loose.predict(XT), tight.predict(XT)
    # the loose tolerance is visible in the predictions: the keyword is not ignored
    assert np.abs(P - P_tight).max() > 1e-6 * np.abs(P_tight).max()
    faces = {"learner": _learner(kind, pcg_tol=1e-2),
             "estimator": _estimator(kind, pcg_tol=1e-2),
             "core": _core(kind, pcg_tol=1e-2)}
    for name, face in faces.items():
        model = face if name == "core" else getattr(face, "_model", None) or face.model_
        assert model.plan.path == "pcg", name
        assert _iterations(model) == loose.cg_iterations, name
        pred = (face.predictor if name == "core" else face).predict(XT)
        np.testing.assert_allclose(np.ravel(pred), np.ravel(P), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
def test_the_iteration_cap_stops_every_face_with_a_warning(kind):
    with pytest.warns(ConvergenceWarning, match="stopped after 2 iterations"):
        ref = _reference(kind, maxiter=2)
    assert ref.cg_iterations == 2
    with pytest.warns(ConvergenceWarning, match="stopped after 2 iterations"):
        learner = _learner(kind, pcg_maxiter=2)
    with pytest.warns(ConvergenceWarning, match="stopped after 2 iterations"):
        est = _estimator(kind, pcg_max_iter=2)
    for face in (learner, est):
        np.testing.assert_allclose(np.ravel(face.predict(XT)), np.ravel(ref.predict(XT)),
                                   rtol=1e-8, atol=1e-10)


def _svmlight(tmp_path):
    path = tmp_path / "train.txt"
    write_svmlight(path, X, Y)
    return path


def _cli(tmp_path, run_cli, *options):
    out = tmp_path / "m.npz"
    if out.exists():
        out.unlink()
    rc, _, err = run_cli(["fit", _svmlight(tmp_path), "--kernel", "gaussian", "--gamma",
                          GAMMA, "--basis", B, "--regparam", LAM, "-o", out, "--quiet",
                          *options])
    return rc, err, out


def _cli_predictions(model):
    return load_model(model).predict(XT)


def test_cli_runs_the_pcg_of_the_given_tolerance_and_cap(tmp_path, run_cli):
    """``rlscore fit --solver pcg --pcg-tol / --pcg-maxiter`` is StreamedRLS on the
    file (its basis drawn by --basis-seed 0, the default) at those values."""
    from rlscore.utilities.reader import SvmlightSource
    path = _svmlight(tmp_path)

    def reference(**kw):
        return StreamedRLS(SvmlightSource(path), regparam=LAM, solver="pcg",
                           kernel="GaussianKernel", gamma=GAMMA, n_basis=B,
                           random_state=0, **kw)
    loose, tight = reference(tol=1e-2), reference(tol=1e-10)
    assert loose.cg_iterations < tight.cg_iterations
    assert np.abs(loose.predict(XT) - tight.predict(XT)).max() > 1e-6
    rc, err, out = _cli(tmp_path, run_cli, "--solver", "pcg", "--pcg-tol", "0.01")
    assert rc == 0, err
    np.testing.assert_allclose(np.ravel(_cli_predictions(out)),
                               np.ravel(loose.predict(XT)), rtol=1e-10, atol=1e-12)
    info = read_metadata(out)["info"]
    assert (info["pcg_tol"], info["pcg_maxiter"]) == (0.01, None)
    # float32 blocks: the file records the tolerance PCG used, at least 1e-5
    rc, err, out = _cli(tmp_path, run_cli, "--solver", "pcg", "--float32", "--pcg-tol",
                        "1e-7", "--pcg-maxiter", "50")
    assert rc == 0, err
    info = read_metadata(out)["info"]
    assert (info["pcg_tol"], info["pcg_maxiter"]) == (1e-5, 50)
    rc, err, out = _cli(tmp_path, run_cli, "--solver", "pcg", "--pcg-maxiter", "2")
    assert rc == 0 and "stopped after 2 iterations" in err, err
    with pytest.warns(ConvergenceWarning):
        capped = reference(maxiter=2)
    np.testing.assert_allclose(np.ravel(_cli_predictions(out)),
                               np.ravel(capped.predict(XT)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("options, message", [
    (("--pcg-tol", "0.01"), "--pcg-tol applies to the PCG solver"),
    (("--solver", "direct", "--pcg-maxiter", "3"), "--pcg-maxiter applies to the PCG"),
    (("--solver", "pcg", "--pcg-tol", "1.5"), r"--pcg-tol must be in \(0, 1\)"),
    (("--solver", "pcg", "--pcg-tol", "nan"), r"--pcg-tol must be in \(0, 1\)"),
    (("--solver", "pcg", "--pcg-maxiter", "0"), "--pcg-maxiter must be >= 1"),
])
def test_cli_refuses_pcg_options_it_would_not_use(tmp_path, run_cli, options, message):
    import re
    rc, err, out = _cli(tmp_path, run_cli, *options)
    assert rc == 2 and not out.exists() and re.search(message, err), err
    assert "Traceback" not in err


@pytest.mark.parametrize("make, message", [
    (lambda: RLS(X, Y, solver="direct", pcg_tol=1e-3, **KW),
     r"pcg_tol applies to the PCG solver.*solver='direct'"),
    (lambda: RLS(X, Y, pcg_maxiter=3, **KW),
     r"pcg_maxiter applies.*solver='auto' chose it"),
    (lambda: RLS(X, Y, pcg_tol=1e-3, pcg_maxiter=3, kernel="GaussianKernel"),
     r"pcg_tol and pcg_maxiter apply.*not a reduced set"),
    (lambda: QueryRankRLS(X, Y, QIDS, solver="direct", pcg_tol=1e-3, **KW),
     "pcg_tol applies"),
    (lambda: LeaveOneOutRLS(X, Y, pcg_tol=1e-3, **KW),
     r"pcg_tol applies.*the exact cross-validation that follows needs it"),
    (lambda: GlobalRankRLS(X, Y, pcg_maxiter=3, **KW), "pcg_maxiter applies"),
    (lambda: KernelRLS(kernel="rbf", basis_indices=BASIS, pcg_tol=1e-3).fit(X, Y),
     r"^pcg_tol applies.*drop pcg_tol$"),
    (lambda: RankRLS(kernel="rbf", basis_indices=BASIS, solver="direct",
                     pcg_max_iter=3).fit(X, Y, qid=QIDS), r"^pcg_max_iter applies"),
])
def test_pcg_options_of_a_direct_model_are_refused_by_name(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("keyword, value, error", [
    ("tol", 0.0, ValueError), ("tol", 1.0, ValueError), ("tol", np.nan, ValueError),
    ("tol", -1e-3, ValueError), ("tol", "1e-3", TypeError), ("maxiter", 0, ValueError),
    ("maxiter", 2.5, TypeError), ("maxiter", True, TypeError),
])
def test_hostile_pcg_options_are_refused_by_the_face_name(keyword, value, error):
    with pytest.raises(error, match=f"pcg_{keyword}"):
        RLS(X, Y, solver="pcg", **{f"pcg_{keyword}": value}, **KW)
    est_name = "pcg_tol" if keyword == "tol" else "pcg_max_iter"
    with pytest.raises(error, match=f"^{est_name}"):
        KernelRLS(kernel="rbf", basis_indices=BASIS, solver="pcg",
                  **{est_name: value}).fit(X, Y)
