"""One plan object (issue #42): :class:`rlscore.core.nystrom.ComputePlan`,
:class:`PCGOptions` and :class:`CVIntent` refuse bad values when made, with messages
that name the plan's fields, which every face rewords with its own spelling; every face
given the same memory options builds an equal plan and the same model (compared with
the reduced-set solution solved here with numpy); leave-query-out counts the queries
once."""

import dataclasses

import numpy as np
import pytest

import rlscore._memory
from rlscore.cli import build_parser, main
from rlscore.cli._base import UsageError
from rlscore.cli._stream import compute_plan as cli_plan
from rlscore.core.nystrom import (CVIntent, ComputePlan, PCGOptions, PlanError,
                                  PlanTypeError, fit_rls_model, select_basis)
from rlscore.estimators import KernelRLS
from rlscore.learner import QueryRankRLS, RLS, StreamedRLS
from rlscore.learner._common import compute_plan as learner_plan
from rlscore.model_io import load_model
from rlscore.utilities.reader import write_svmlight

M, D, B, GAMMA, LAM, BLOCK = 90, 4, 12, 0.2, 0.5, 5
rng = np.random.default_rng(3)
X = rng.standard_normal((M, D))
Y = np.cos(X[:, 0]) + X[:, 1] * X[:, 2] + 0.05 * rng.standard_normal(M)
XT = rng.standard_normal((15, D))


# -- the plan refuses bad values when made -------------------------------------------

@pytest.mark.parametrize("make, error, message", [
    (lambda: ComputePlan(solver="fast"), ValueError,
     r"^solver must be one of \('auto', 'direct', 'pcg'\), got 'fast'$"),
    (lambda: ComputePlan(solver={"a": 1}), ValueError,
     r"^solver must be one of .*, got \{'a': 1\}$"),
    (lambda: ComputePlan(block_size=0), ValueError,
     r"^block_size must be a positive int or None, got 0$"),
    (lambda: ComputePlan(block_size=True), ValueError, r"^block_size must be"),
    (lambda: ComputePlan(block_size=2.5), ValueError, r"^block_size must be"),
    (lambda: ComputePlan(memory_budget="lots"), ValueError,
     r"^memory_budget must be 'auto', a number of MiB > 0 or None, got 'lots'$"),
    (lambda: ComputePlan(memory_budget=0), ValueError,
     r"^memory_budget must be a finite number > 0, got 0$"),
    (lambda: ComputePlan(memory_budget=float("nan")), ValueError,
     r"^memory_budget must be finite"),
    (lambda: ComputePlan(memory_budget=[1]), TypeError,
     r"^memory_budget must be a real number"),
    (lambda: ComputePlan(dtype="int8"), ValueError,
     r"^dtype must be float64 or float32, got 'int8'$"),
    (lambda: ComputePlan(pcg=1e-3), TypeError, r"^pcg must be PCGOptions or None"),
    (lambda: PCGOptions(rtol=0.0), ValueError, r"^rtol must be in \(0, 1\), got 0.0$"),
    (lambda: PCGOptions(rtol=1.0), ValueError, r"^rtol must be in \(0, 1\)"),
    (lambda: PCGOptions(rtol="1e-3"), TypeError, r"^rtol must be a real number"),
    (lambda: PCGOptions(maxiter=0), ValueError, r"^maxiter must be >= 1, got 0$"),
    (lambda: PCGOptions(maxiter=2.5), TypeError,
     r"^maxiter must be an integer or None, got 2.5$"),
    (lambda: ComputePlan.from_options(solver="pcg", maxiter=True), TypeError,
     r"^maxiter must be an integer"),
])
def test_the_plan_refuses_bad_values_naming_its_fields(make, error, message):
    with pytest.raises(error, match=message) as exc:
        make()
    assert isinstance(exc.value, PlanError)


def test_the_fields_are_checked_once_in_order_and_the_plan_is_frozen():
    # the order the faces always checked them: solver, block size, budget, then PCG's
    with pytest.raises(ValueError, match="^solver"):
        ComputePlan.from_options(memory_budget=-1, block_size=0, solver="x", rtol=2.0)
    with pytest.raises(ValueError, match="^block_size"):
        ComputePlan.from_options(memory_budget=-1, block_size=0, rtol=2.0)
    with pytest.raises(ValueError, match="^memory_budget"):
        ComputePlan.from_options(memory_budget=-1, rtol=2.0)
    plan = ComputePlan.from_options(memory_budget=3, block_size=np.int64(7),
                                    rtol=1e-3)
    assert plan == ComputePlan(3.0, 7, "auto", np.float64, PCGOptions(rtol=1e-3))
    assert type(plan.block_size) is int and plan.pcg.tol == 1e-3
    assert ComputePlan.from_options().pcg is None          # nothing given
    assert ComputePlan().pcg_options.tol == 1e-6 and PCGOptions().given() == []
    assert PCGOptions(maxiter=3).given() == ["maxiter"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.solver = "pcg"


def test_a_face_rewords_the_fields_and_keeps_the_type():
    with pytest.raises(TypeError, match=r"^pcg_max_iter must be an integer") as exc:
        with PlanError.reworded({"maxiter": "pcg_max_iter"}):
            PCGOptions(maxiter="3")
    assert isinstance(exc.value, PlanTypeError)
    err = PlanError("{rtol} and {maxiter} apply; drop {rtol}")
    assert str(err) == "rtol and maxiter apply; drop rtol"
    assert str(err.reword({"rtol": "--pcg-tol"})) == \
        "--pcg-tol and maxiter apply; drop --pcg-tol"
    # a refusal crosses process boundaries intact (a value with braces in its text)
    import pickle
    with pytest.raises(PlanError) as exc:
        ComputePlan(solver={"a": 1})
    back = pickle.loads(pickle.dumps(exc.value.reword({"solver": "--solver"})))
    assert str(back) == "--solver must be one of ('auto', 'direct', 'pcg'), got {'a': 1}"


@pytest.mark.parametrize("field, value, names", [
    ("maxiter", 0, {"learner": "pcg_maxiter", "estimator": "pcg_max_iter",
                    "streamed": "maxiter", "cli": "--pcg-maxiter"}),
    ("rtol", 1.5, {"learner": "pcg_tol", "estimator": "pcg_tol", "streamed": "tol",
                   "cli": "--pcg-tol"}),
])
def test_every_face_names_its_own_keyword(field, value, names):
    kw = dict(kernel="GaussianKernel", gamma=GAMMA, n_basis=B, random_state=0)
    learner_kw = {"maxiter": "pcg_maxiter", "rtol": "pcg_tol"}[field]
    with pytest.raises(ValueError, match=f"^{names['learner']} must be"):
        RLS(X, Y, solver="pcg", **{learner_kw: value}, **kw)
    est_kw = {"maxiter": "pcg_max_iter", "rtol": "pcg_tol"}[field]
    with pytest.raises(ValueError, match=f"^{names['estimator']} must be"):
        KernelRLS(kernel="rbf", gamma=GAMMA, n_basis=B, solver="pcg",
                  **{est_kw: value}).fit(X, Y)
    streamed_kw = {"maxiter": "maxiter", "rtol": "tol"}[field]
    with pytest.raises(ValueError, match=f"^{names['streamed']} must be"):
        StreamedRLS(X, Y, solver="pcg", **{streamed_kw: value}, **kw)
    option = {"maxiter": "--pcg-maxiter", "rtol": "--pcg-tol"}[field]
    args = build_parser().parse_args(["fit", "t.txt", "-o", "m.npz", "--solver", "pcg",
                                      option, str(value)])
    with pytest.raises(UsageError, match=f"^{names['cli']} must be"):
        cli_plan(args)


def test_cv_intent_counts_the_fold_statistics():
    # K folds as index lists: K sets of statistics and one for the rows in no fold
    assert CVIntent.kfold(4, 3) == CVIntent("kfold", 4, 4)
    assert CVIntent.kfold(4, 3).per_query(9) == CVIntent.kfold(4, 3)
    assert CVIntent("lqo", 2).per_query(9) == CVIntent("kfold", 2, 10)
    assert CVIntent() == CVIntent(None, 1, 0)


# -- every face, the same plan and the same model ------------------------------------

def _reduced_set_predictions(Xt):
    """Reduced-set RLS on the basis rows that n_basis=B, random_state=0 draws:
    a = (K_RM K_MR + lambda K_RR)^-1 K_RM y, solved here with numpy."""
    R = X[select_basis(M, None, B, 0)]

    def k(A, Bm):
        d2 = (A**2).sum(1)[:, None] + (Bm**2).sum(1)[None, :] - 2 * A @ Bm.T
        return np.exp(-GAMMA * d2)
    KMR, KRR = k(X, R), k(R, R)
    a = np.linalg.solve(KMR.T @ KMR + LAM * KRR, KMR.T @ Y)
    return k(Xt, R) @ a


@pytest.fixture
def tiny_overhead(monkeypatch):
    """The fixed few MiB of a streamed run would hide the switch on data this small."""
    monkeypatch.setattr(rlscore._memory, "STREAM_OVERHEAD", 0)


def _faces(tmp_path, budget, solver, pcg):
    """Each face's plan and predictions for the same options: (plan, predictions)."""
    kw = dict(kernel="GaussianKernel", gamma=GAMMA, n_basis=B, random_state=0)
    rtol, maxiter = pcg
    learner = RLS(X, Y, regparam=LAM, memory_budget=budget, block_size=BLOCK,
                  solver=solver, pcg_tol=rtol, pcg_maxiter=maxiter, **kw)
    est = KernelRLS(alpha=LAM, kernel="rbf", gamma=GAMMA, n_basis=B, random_state=0,
                    memory_budget=budget, block_size=BLOCK, solver=solver,
                    pcg_tol=rtol, pcg_max_iter=maxiter).fit(X, Y)
    streamed = StreamedRLS(X, Y, regparam=LAM, memory_budget=budget, block_size=BLOCK,
                           solver=solver, tol=rtol, maxiter=maxiter, **kw)
    path, out = tmp_path / "train.txt", tmp_path / "m.npz"
    write_svmlight(path, X, Y)
    argv = ["fit", str(path), "-o", str(out), "--kernel", "gaussian", "--gamma",
            repr(GAMMA), "--basis", str(B), "--regparam", repr(LAM), "--memory-budget",
            repr(budget), "--block-size", str(BLOCK), "--solver", solver, "--quiet"]
    if rtol is not None:
        argv += ["--pcg-tol", repr(rtol)]
    if maxiter is not None:
        argv += ["--pcg-maxiter", str(maxiter)]
    assert main(argv) == 0
    return {"learner": (learner_plan(dict(memory_budget=budget, block_size=BLOCK,
                                          solver=solver, pcg_tol=rtol,
                                          pcg_maxiter=maxiter)),
                        learner.predict(XT)),
            "learner model": (learner._model.compute_plan, learner.predict(XT)),
            "estimator": (est.model_.compute_plan, est.predict(XT)),
            "StreamedRLS": (streamed.compute_plan, streamed.predict(XT)),
            "cli": (cli_plan(build_parser().parse_args(argv)),
                    load_model(out).predict(XT))}, learner._model.plan.path


@pytest.mark.usefixtures("arrays_only_budget", "tiny_overhead")
@pytest.mark.parametrize("solver, pcg, path", [
    ("direct", (None, None), "streamed"),
    ("pcg", (1e-13, 5000), "pcg"),
])
def test_every_face_builds_the_same_plan_and_model(tmp_path, solver, pcg, path):
    mem = rlscore._memory.reduced_set_peak_bytes(
        "memory", rlscore._memory.ReducedSetSizes(M, B, D, 1))
    budget = 0.9 * mem / 2**20                  # streams: the in-memory arrays exceed it
    faces, route = _faces(tmp_path, budget, solver, pcg)
    assert route == path
    expected = ComputePlan(budget, BLOCK, solver,
                           pcg=None if pcg == (None, None) else
                           PCGOptions(rtol=pcg[0], maxiter=pcg[1]))
    ref = _reduced_set_predictions(XT)
    for name, (plan, P) in faces.items():
        assert plan == expected, name
        np.testing.assert_allclose(np.ravel(P), ref, rtol=1e-8, atol=1e-10 *
                                   np.abs(ref).max(), err_msg=name)


def test_an_in_memory_plan_gives_the_direct_model():
    plan = ComputePlan(memory_budget=None)
    model = fit_rls_model(X, Y, LAM, "GaussianKernel", plan=plan, gamma=GAMMA,
                          n_basis=B, random_state=0)
    assert model.plan.path == "memory" and model.compute_plan is plan
    np.testing.assert_allclose(np.ravel(model.predictor.predict(XT)),
                               _reduced_set_predictions(XT), rtol=1e-8)


# -- the queries, counted once ---------------------------------------------------------

def test_query_rankrls_groups_the_qids_once(monkeypatch):
    """QueryRankRLS / LeaveQueryOutRankRLS encode the qids once in core (twice before:
    leave-query-out counted the queries, then the model grouped them); "qids is None"
    is one check with one text."""
    from rlscore.core.rankrls import fit_rank_model
    from rlscore.core.structure import QueryGroups
    qids = np.repeat(np.arange(9), 10)
    calls = []
    original = QueryGroups.from_qids.__func__

    def counting(cls, *args, **kwargs):
        calls.append(1)
        return original(cls, *args, **kwargs)
    monkeypatch.setattr(QueryGroups, "from_qids", classmethod(counting))
    model = fit_rank_model(X, Y, qids, 0.5, "GaussianKernel", cv=CVIntent("lqo", 3),
                           gamma=GAMMA, basis_indices=np.arange(0, M, 7))
    assert len(calls) == 1 and model.groups.n_groups == 9
    monkeypatch.undo()
    from rlscore.core.rankrls import QueryRankRLSModel
    for make in (lambda: QueryRankRLS(X, Y, None),
                 lambda: QueryRankRLSModel(X, Y, None)):
        with pytest.raises(ValueError, match="^qids is None: ranking within queries"):
            make()
