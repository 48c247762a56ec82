"""The options objects (RankSVMOptions, KronSVMOptions) refuse bad values with the
messages the faces gave before the options existed: they name the faces' keywords
(``solver``, ``tol``, ``max_iter``; RLScore's ``maxiter``), and every face's refusal is
the options' own, word for word. The options are frozen and hold resolved values."""

import dataclasses

import numpy as np
import pytest

from rlscore.core.kronecker import KronSVMOptions
from rlscore.core.ranksvm import (DEFAULT_RTOL, RankSVMOptions, SquaredRankingRisk,
                                  fit_linear_ranksvm, solve_ranksvm, solve_ranksvm_newton)
from rlscore.core.ranksvm._options import DEFAULT_MAXITER

# (core options, the faces' keywords, the exception, the message of the face before
# the options existed)
RANKSVM_BAD = [
    (dict(loss="squared"), dict(loss="squared"), ValueError,
     "loss must be one of ('hinge', 'squared_hinge'), got 'squared'"),
    (dict(optimizer="lbfgs"), dict(solver="lbfgs"), ValueError,
     "solver must be one of ('bundle', 'newton') (or None for the loss's default), got "
     "'lbfgs'"),
    (dict(loss="hinge", optimizer="newton"), dict(loss="hinge", solver="newton"),
     ValueError,
     "solver='newton' needs a twice differentiable loss: the hinge loss has no Hessian; "
     "use loss='squared_hinge' with solver='newton', or solver='bundle' for the hinge"),
    (dict(rtol=0.0), dict(tol=0.0), ValueError, "tol must be in (0, 1), got 0.0"),
    (dict(rtol=1.5), dict(tol=1.5), ValueError, "tol must be in (0, 1), got 1.5"),
    (dict(rtol=np.nan), dict(tol=np.nan), ValueError, "tol must be in (0, 1), got nan"),
    (dict(rtol="a"), dict(tol="a"), TypeError, "tol must be a real number, got 'a'"),
    (dict(maxiter=0), dict(max_iter=0), ValueError, "max_iter must be >= 1, got 0"),
    (dict(maxiter=2.5), dict(max_iter=2.5), TypeError,
     "max_iter must be an integer, got 2.5"),
    (dict(maxiter=True), dict(max_iter=True), TypeError,
     "max_iter must be an integer, got True"),
    (dict(warm_start="yes"), dict(warm_start="yes"), ValueError,
     "warm_start must be 'auto' or None, got 'yes'"),
]


def _data(m=30):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, 3))
    return X, X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.normal(size=m)


def _message(call):
    try:
        call()
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)
    return None, "no error"


@pytest.mark.parametrize("core, face, exc, message", RANKSVM_BAD)
def test_ranksvm_options_refuse_with_the_faces_message(core, face, exc, message):
    from rlscore.learner import LinearRankSVM, SurvivalRankSVM
    assert _message(lambda: RankSVMOptions(**core)) == (exc, message)
    X, y = _data()
    assert _message(lambda: LinearRankSVM(X, y, **face)) == (exc, message)
    time = np.abs(y) + 1.0
    event = np.arange(y.size) % 3 != 0
    assert _message(lambda: SurvivalRankSVM(X, time, event, **face)) == (exc, message)
    if "warm_start" not in face:          # the estimator has no warm_start
        pytest.importorskip("sklearn")
        from rlscore.estimators import RankSVM
        assert _message(lambda: RankSVM(**face).fit(X, y)) == (exc, message)


def test_ranksvm_options_resolve_the_defaults_once():
    hinge = RankSVMOptions()
    assert (hinge.loss, hinge.optimizer, hinge.rtol, hinge.maxiter) == \
        ("hinge", "bundle", DEFAULT_RTOL["bundle"], DEFAULT_MAXITER["bundle"])
    sq = RankSVMOptions(loss="squared_hinge")
    assert (sq.optimizer, sq.rtol, sq.maxiter) == \
        ("newton", DEFAULT_RTOL["newton"], DEFAULT_MAXITER["newton"])
    assert RankSVMOptions(loss="squared_hinge", optimizer="bundle").rtol == 1e-3
    with pytest.raises(dataclasses.FrozenInstanceError):
        hinge.rtol = 0.5
    # an optimizer's driver refuses the other optimizer's options
    X, y = _data()
    with pytest.raises(ValueError, match="optimizer='newton', not 'bundle'"):
        solve_ranksvm(SquaredRankingRisk(X, y), 1.0, options=sq)
    with pytest.raises(ValueError, match="optimizer='bundle', not 'newton'"):
        solve_ranksvm_newton(SquaredRankingRisk(X, y), 1.0, options=hinge)


def test_ranksvm_options_pass_through_unchanged():
    """The options decide the training: the same options give the same model as the
    face's keywords, and maxiter caps the iterations."""
    from rlscore.learner import LinearRankSVM
    X, y = _data(60)
    opts = RankSVMOptions(loss="squared_hinge", rtol=1e-9, maxiter=50)
    sol, _ = fit_linear_ranksvm(X, y, None, 0.1, options=opts)
    face = LinearRankSVM(X, y, regparam=0.1, loss="squared_hinge", tol=1e-9, max_iter=50)
    np.testing.assert_array_equal(face.predictor.W, sol.w)
    assert face.solver == "newton" and sol.grad_norm <= 1e-9 * sol.grad_norm0
    with pytest.warns(Warning, match="max_iter=1"):
        capped, _ = fit_linear_ranksvm(X, y, None, 1e-3,
                                       options=RankSVMOptions(rtol=1e-12, maxiter=1))
    assert capped.iterations == 1 and not capped.converged


KRON_BAD = [
    (dict(maxiter=0), dict(maxiter=0), ValueError, "maxiter must be >= 1, got 0"),
    (dict(maxiter=1.5), dict(maxiter=1.5), TypeError,
     "maxiter must be an integer, got 1.5"),
    (dict(inneriter=0), dict(inneriter=0), ValueError, "inneriter must be >= 1, got 0"),
    (dict(rtol=2.0), dict(tol=2.0), ValueError, "tol must be in (0, 1), got 2.0"),
    (dict(rtol=0.0), dict(tol=0.0), ValueError, "tol must be in (0, 1), got 0.0"),
]


@pytest.mark.parametrize("core, face, exc, message", KRON_BAD)
def test_kron_svm_options_refuse_with_the_faces_message(core, face, exc, message):
    from rlscore.learner import KronSVM
    assert _message(lambda: KronSVMOptions(**core)) == (exc, message)
    rng = np.random.default_rng(1)
    X1, X2 = rng.normal(size=(4, 2)), rng.normal(size=(5, 2))
    rows, cols = np.repeat(np.arange(4), 5), np.tile(np.arange(5), 4)
    Y = np.where(rng.normal(size=20) > 0, 1.0, -1.0)
    assert _message(lambda: KronSVM(X1=X1, X2=X2, Y=Y, label_row_inds=rows,
                                    label_col_inds=cols, **face)) == (exc, message)
