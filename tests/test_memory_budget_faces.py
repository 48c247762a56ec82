"""``memory_budget`` means the budget of the whole run in every face (issue #32): the
same budget gives the same decision (stream, PCG or refuse; block size) and the same
refusal figures in ``learner.RLS``, ``learner.StreamedRLS``, ``estimators.KernelRLS``
and ``rlscore fit``; the RankRLS learners take the same keywords through the same
decision as the RankRLS estimator; hostile values are refused with clear errors."""

import re
import warnings

import numpy as np
import pytest

import rlscore._memory
from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
from rlscore.cli import main
from rlscore.learner import (GlobalRankRLS, KfoldRankRLS, LeavePairOutRankRLS,
                             LeaveQueryOutRankRLS, QueryRankRLS, RLS, StreamedRLS)

# budgets placed between estimates of the arrays: the process's own memory is
# taken as 0 here (the whole-process budget: tests/test_memory_rss.py)
pytestmark = pytest.mark.usefixtures("arrays_only_budget")

M, D, B = 90, 4, 12
rng = np.random.default_rng(11)
X = rng.standard_normal((M, D))
Y = np.cos(X[:, 0]) + X[:, 1] * X[:, 2] + 0.05 * rng.standard_normal(M)
QIDS = np.sort(rng.integers(0, 13, M))           # queries of random sizes
GAMMA = 0.2


@pytest.fixture(autouse=True)
def _no_fixed_overhead(monkeypatch):
    """The fixed few MiB of a streamed run (STREAM_OVERHEAD) would hide the switch on
    problems this small."""
    monkeypatch.setattr(rlscore._memory, "STREAM_OVERHEAD", 0)


def _mib(path, block=None, **kw):
    return reduced_set_peak_bytes(path, ReducedSetSizes(M, B, D, 1), block or 0,
                                  **kw) / 2**20


def _budgets():
    """A budget that streams with the direct solver (between the streamed estimate of
    a one-row block and the in-memory one) and one too small even for that."""
    mem, st1 = _mib("memory"), _mib("streamed_fit", 1)
    assert st1 < mem
    return {"streams": (st1 + mem) / 2, "refused": st1 * 0.9}


def _svmlight(tmp_path):
    path = tmp_path / "train.txt"
    with open(path, "w") as f:
        for y, x in zip(Y, X):
            f.write(f"{float(y)!r} "
                    + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x)) + "\n")
    return path


def _cli(tmp_path, capsys, *options):
    out = tmp_path / "m.npz"
    if out.exists():
        out.unlink()
    rc = main(["fit", str(_svmlight(tmp_path)), "--kernel", "gaussian", "--gamma",
               str(GAMMA), "--basis", str(B), "-o", str(out), *options])
    return rc, capsys.readouterr().err


def _figures(message):
    """The estimates a refusal quotes, without the names of the options."""
    m = re.search(r"is too small for this reduced-set model (.*?)\. Ways out", message,
                  re.S)
    assert m, message
    return m.group(1)


KW = dict(kernel="GaussianKernel", gamma=GAMMA, n_basis=B, random_state=0)


@pytest.mark.parametrize("solver", ["direct", "auto"])
def test_the_same_budget_gives_the_same_decision_in_every_face(tmp_path, capsys, solver):
    from rlscore.estimators import KernelRLS
    budget = _budgets()["streams"]
    rls = RLS(X, Y, regparam=0.5, memory_budget=budget, solver=solver, **KW)
    st = StreamedRLS(X, Y, regparam=0.5, memory_budget=budget, solver=solver, **KW)
    est = KernelRLS(alpha=0.5, kernel="rbf", gamma=GAMMA, n_basis=B, random_state=0,
                    memory_budget=budget, solver=solver).fit(X, Y)
    plans = [rls._model.plan, st.plan, est.model_.plan]
    assert {p.path for p in plans} == {"streamed"}
    assert len({p.block_size for p in plans}) == 1
    assert all(p.peak_bytes <= budget * 2**20 for p in plans)
    rc, err = _cli(tmp_path, capsys, "--memory-budget", repr(budget), "--solver", solver)
    assert rc == 0, err
    assert f"in blocks of {plans[0].block_size};" in err and "solver direct" in err
    # the model trained under the budget equals the unbudgeted one
    ref = RLS(X, Y, regparam=0.5, memory_budget=None, **KW)
    Xt = X[:9] + 0.3
    for model in (rls, st, est):
        np.testing.assert_allclose(model.predict(Xt), ref.predict(Xt), rtol=1e-10,
                                   atol=1e-12)


def test_a_budget_only_pcg_fits_gives_pcg_in_every_face(tmp_path, capsys):
    """solver="auto" with one regparam: PCG when the direct streamed run does not fit
    and PCG's does, in every face."""
    pcg1 = _mib("pcg", 1)
    st1 = _mib("streamed_fit", 1)
    assert pcg1 < st1
    budget = (pcg1 + st1) / 2
    rls = RLS(X, Y, regparam=0.5, memory_budget=budget, **KW)
    st = StreamedRLS(X, Y, regparam=0.5, memory_budget=budget, **KW)
    plans = [rls._model.plan, st.plan]
    assert {p.path for p in plans} == {"pcg"}
    assert plans[0].block_size == plans[1].block_size
    rc, err = _cli(tmp_path, capsys, "--memory-budget", repr(budget))
    assert rc == 0, err
    assert f"in blocks of {plans[0].block_size};" in err and "solver pcg" in err


def test_a_budget_too_small_is_refused_with_the_same_figures(tmp_path, capsys):
    from rlscore.estimators import KernelRLS
    budget = _budgets()["refused"]
    messages = []
    for make in (lambda: RLS(X, Y, memory_budget=budget, solver="direct", **KW),
                 lambda: StreamedRLS(X, Y, memory_budget=budget, solver="direct", **KW),
                 lambda: KernelRLS(kernel="rbf", gamma=GAMMA, n_basis=B, random_state=0,
                                   memory_budget=budget, solver="direct").fit(X, Y)):
        with pytest.raises(ValueError, match="memory_budget=.* MiB is too small") as e:
            make()
        messages.append(str(e.value))
        # no block size was given (the blocks are already sized from the budget) and
        # PCG does not fit either: the ways out are fewer basis vectors or more memory
        ways = messages[-1].split("Ways out:")[1]
        assert "block_size" not in ways and "solver='pcg'" not in ways
        assert "n_basis" in ways and "a larger memory_budget" in ways
    rc, err = _cli(tmp_path, capsys, "--memory-budget", repr(budget), "--solver",
                   "direct")
    assert rc == 2 and not (tmp_path / "m.npz").exists()
    assert "--memory-budget=" in err and "--basis" in err
    assert "--block-size" not in err.split("Ways out:")[1]
    messages.append(err)
    assert len({_figures(m) for m in messages}) == 1


def test_a_block_size_under_the_budget_is_the_same_in_every_face(tmp_path, capsys):
    budget = _budgets()["streams"]
    st = StreamedRLS(X, Y, memory_budget=budget, block_size=7, solver="direct", **KW)
    rls = RLS(X, Y, memory_budget=budget, block_size=7, solver="direct", **KW)
    assert st.plan.block_size == rls._model.plan.block_size == 7
    assert st.plan.path == rls._model.plan.path == "streamed"
    rc, err = _cli(tmp_path, capsys, "--memory-budget", repr(budget), "--block-size",
                   "7", "--solver", "direct")
    assert rc == 0 and "in blocks of 7;" in err


def test_streamed_rls_selection_under_a_budget_equals_in_memory():
    budget = _budgets()["streams"] * 3
    grid = [0.01, 0.3, 3.0]
    from rlscore.learner import LeaveOneOutRLS
    ref = LeaveOneOutRLS(X, Y, regparams=grid, memory_budget=None, keep_basis_in_cv=True,
                         **KW)
    st = StreamedRLS(X, Y, regparams=grid, memory_budget=budget, keep_basis_in_cv=True,
                     **KW)
    assert st.plan.path == "streamed" and st.plan.peak_bytes <= budget * 2**20
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-10)
    assert st.regparam == ref.regparam


# ------------------------------------------------------------------ RankRLS learners


RANK_KW = dict(kernel="GaussianKernel", gamma=GAMMA, basis_indices=np.arange(0, M, 7))
B_RANK = RANK_KW["basis_indices"].size
# explicit basis vectors (not rows of X): the RankRLS faces stream them as the RLS
# faces do; the hold-out keeps them, as the in-memory models do
BASIS = X[::7] + 0.05 * rng.standard_normal((B_RANK, D))
VEC_KW = dict(kernel="GaussianKernel", gamma=GAMMA, basis_vectors=BASIS)


def _rank_budget():
    mem = reduced_set_peak_bytes("memory", ReducedSetSizes(M, B_RANK, D, 1))
    st1 = reduced_set_peak_bytes("streamed_fit", ReducedSetSizes(M, B_RANK, D, 1), 1)
    return (st1 + mem) / 2 / 2**20


def _rank(kind, qids=QIDS, **kw):
    if kind == "query":
        return QueryRankRLS(X, Y, qids, regparam=0.5, **RANK_KW, **kw)
    return GlobalRankRLS(X, Y, regparam=0.5, **RANK_KW, **kw)


@pytest.mark.parametrize("kind", ["query", "global"])
@pytest.mark.parametrize("block", [1, 7, None])
def test_rank_learners_stream_the_in_memory_model(kind, block):
    from rlscore.core.rankrls import StreamedRankModel
    ref = _rank(kind, memory_budget=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the keywords are not ignored
        st = _rank(kind, memory_budget=_rank_budget(), block_size=block)
    assert isinstance(st._model, StreamedRankModel) and st._model.plan.path == "streamed"
    assert not isinstance(ref._model, StreamedRankModel)
    Xt = X[:11] + 0.2
    np.testing.assert_allclose(st.predict(Xt), ref.predict(Xt), rtol=1e-10, atol=1e-12)
    st.solve(3.0)
    ref.solve(3.0)
    np.testing.assert_allclose(st.predict(Xt), ref.predict(Xt), rtol=1e-10, atol=1e-12)
    if kind == "query":
        assert st.qids == ref.qids and st.qidlist == ref.qidlist


def test_query_learner_streams_scattered_queries():
    """Queries scattered over the rows are grouped first: the same model."""
    from rlscore.core.rankrls import StreamedRankModel
    q = rng.permutation(QIDS)
    ref = _rank("query", qids=q, memory_budget=None)
    st = _rank("query", qids=q, memory_budget=_rank_budget(), block_size=5)
    assert isinstance(st._model, StreamedRankModel)
    np.testing.assert_allclose(st.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["query", "global"])
def test_rank_learners_pcg_equals_the_direct_model(kind):
    ref = _rank(kind, memory_budget=None)
    pcg = _rank(kind, solver="pcg", block_size=7)
    assert pcg._model.plan.path == "pcg"
    from rlscore.core.nystrom import ComputePlan, PCGOptions
    from rlscore.core.rankrls import fit_rank_model
    tight = fit_rank_model(X, Y, QIDS if kind == "query" else None, 0.5,
                           plan=ComputePlan(solver="pcg", block_size=7,
                                            pcg=PCGOptions(rtol=1e-12)), **RANK_KW)
    P = ref.predict(X)
    scale = np.abs(P).max()
    # PCG's default tolerance is 1e-6 on the relative residual; tight: 1e-6 relative
    assert np.abs(pcg.predict(X) - P).max() <= 1e-4 * scale
    assert np.abs(tight.predictor.predict(X).ravel() - P).max() <= 1e-6 * scale


@pytest.mark.parametrize("kind", ["query", "global"])
def test_rank_estimator_and_learner_make_the_same_decision(kind):
    from rlscore.estimators import RankRLS
    Y2 = np.column_stack([Y, X[:, 0]])              # two outputs: p enters the estimate
    mem = reduced_set_peak_bytes("memory", ReducedSetSizes(M, B_RANK, D, 2))
    st1 = reduced_set_peak_bytes("streamed_fit", ReducedSetSizes(M, B_RANK, D, 2), 1)
    for budget in ((st1 + mem) / 2 / 2**20, None):
        est = RankRLS(alpha=0.5, kernel="rbf", gamma=GAMMA,
                      basis_indices=RANK_KW["basis_indices"], memory_budget=budget,
                      solver="direct").fit(X, Y2, qid=QIDS if kind == "query" else None)
        if kind == "query":
            lrn = QueryRankRLS(X, Y2, QIDS, regparam=0.5, memory_budget=budget,
                               solver="direct", **RANK_KW)
        else:
            lrn = GlobalRankRLS(X, Y2, regparam=0.5, memory_budget=budget,
                                solver="direct", **RANK_KW)
        a, b = est.model_.plan, lrn._model.plan
        assert (a.path, a.block_size, a.peak_bytes) == (b.path, b.block_size, b.peak_bytes)
        assert a.path == ("streamed" if budget else "memory")
        np.testing.assert_allclose(est.predict(X), lrn.predict(X), rtol=1e-10,
                                   atol=1e-12)
    small = st1 * 0.9 / 2**20
    for make in (lambda: RankRLS(kernel="rbf", gamma=GAMMA, memory_budget=small,
                                 basis_indices=RANK_KW["basis_indices"],
                                 solver="direct").fit(X, Y2, qid=QIDS),
                 lambda: QueryRankRLS(X, Y2, QIDS, memory_budget=small,
                                      solver="direct", **RANK_KW)):
        with pytest.raises(ValueError, match="memory_budget=.* MiB is too small"):
            make()


def test_rank_streamed_model_refuses_the_hold_out_shortcuts():
    st = _rank("global", memory_budget=_rank_budget())
    for call in (lambda: st.holdout([1, 2]), st.leave_one_out,
                 lambda: st.leave_pair_out([0], [1])):
        with pytest.raises(ValueError, match="larger memory_budget"):
            call()
    with pytest.raises(ValueError, match="dual coefficients"):
        st.A
    q = _rank("query", memory_budget=_rank_budget())
    with pytest.raises(ValueError, match="not available for a streamed RankRLS"):
        q.holdout_rows([0, 1])


def test_rank_selection_wrappers_take_the_keywords():
    """Leave-pair-out keeps the model in memory (its estimate needs the in-memory
    formulas) but takes the keywords; PCG is refused with a clear message."""
    budget = _rank_budget()
    grid = [0.1, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lpo = LeavePairOutRankRLS(X[:30], Y[:30], regparams=grid, memory_budget=budget,
                                  kernel="GaussianKernel", gamma=GAMMA, n_basis=5)
    assert lpo.learner._model.plan.path == "memory"
    with pytest.raises(ValueError, match="solver='pcg'"):
        LeaveQueryOutRankRLS(X, Y, QIDS, regparams=grid, solver="pcg", **RANK_KW)
    with pytest.raises(ValueError, match="solver='pcg'"):
        KfoldRankRLS(X, Y, [np.arange(45), np.arange(45, M)], regparams=grid,
                     solver="pcg", **RANK_KW)


@pytest.mark.parametrize("scattered", [False, True])
@pytest.mark.parametrize("keep", [False, True])
def test_leave_query_out_rank_rls_streams_the_in_memory_selection(scattered, keep):
    from rlscore.core.rankrls import StreamedRankModel
    grid = [0.01, 0.3, 3.0]
    q = np.random.default_rng(4).permutation(QIDS) if scattered else QIDS
    n_queries = np.unique(q).size
    kw = dict(regparams=grid, keep_basis_in_cv=keep, **RANK_KW)
    ref = LeaveQueryOutRankRLS(X, Y, q, memory_budget=None, **kw)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*ignores the keyword")
        st = LeaveQueryOutRankRLS(X, Y, q, memory_budget=_kfold_budget(3, n_queries + 1),
                                  block_size=7, **kw)
    assert isinstance(st.learner._model, StreamedRankModel)
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-10)
    for a, b in zip(st.cv_predictions, ref.cv_predictions):
        assert len(a) == len(b) == n_queries
        for pa, pb in zip(a, b):
            np.testing.assert_allclose(pa, pb, rtol=1e-10, atol=1e-12)
    assert st.regparam == ref.regparam
    np.testing.assert_allclose(st.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)


def _kfold_budget(n_lambdas, n_folds):
    sizes = ReducedSetSizes(M, B_RANK, D, 1)
    mem = reduced_set_peak_bytes("memory_cv", sizes, n_lambdas=n_lambdas)
    st1 = reduced_set_peak_bytes("streamed", sizes, 1, n_lambdas, n_folds)
    assert st1 < mem
    return (st1 + mem) / 2 / 2**20


@pytest.mark.parametrize("keep", [False, True])
def test_kfold_rank_rls_streams_the_in_memory_selection(keep):
    from rlscore.core.rankrls import StreamedRankModel
    from rlscore.learner import KfoldRankRLS
    grid = [0.01, 0.3, 3.0]
    folds = [np.arange(0, M, 3), np.arange(1, M, 3), np.arange(2, M, 3)]
    kw = dict(regparams=grid, keep_basis_in_cv=keep, **RANK_KW)
    ref = KfoldRankRLS(X, Y, folds, memory_budget=None, **kw)
    st = KfoldRankRLS(X, Y, folds, memory_budget=_kfold_budget(3, 4), block_size=7, **kw)
    assert isinstance(st.learner._model, StreamedRankModel)
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-10)
    for a, b in zip(st.cv_predictions, ref.cv_predictions):
        for pa, pb in zip(a, b):
            np.testing.assert_allclose(pa, pb, rtol=1e-10, atol=1e-12)
    assert st.regparam == ref.regparam
    np.testing.assert_allclose(st.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("basis", ["indices", "vectors"])
@pytest.mark.parametrize("scattered", [False, True])
def test_kfold_query_rank_rls_streams_the_in_memory_selection(scattered, basis):
    """Basis rows of X (removed from the folds' models) or explicit basis vectors
    (kept, as in memory)."""
    from rlscore.core.rankrls import StreamedRankModel
    from rlscore.learner import KfoldQueryRankRLS
    grid = [0.01, 0.3, 3.0]
    q = np.random.default_rng(3).permutation(QIDS) if scattered else QIDS
    kw = dict(regparams=grid, seed=2, **(RANK_KW if basis == "indices" else VEC_KW))
    ref = KfoldQueryRankRLS(X, Y, q, 3, memory_budget=None, **kw)
    st = KfoldQueryRankRLS(X, Y, q, 3, memory_budget=_kfold_budget(3, 4), block_size=5,
                           **kw)
    assert isinstance(st.learner._model, StreamedRankModel)
    np.testing.assert_allclose(st.cv_performances, ref.cv_performances, rtol=1e-10)
    for a, b in zip(st.cv_predictions, ref.cv_predictions):
        for pa, pb in zip(a, b):
            np.testing.assert_allclose(pa, pb, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(st.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ hostile values


BAD = [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
       (float("inf"), ValueError), ("big", ValueError), (True, TypeError),
       ([1], TypeError)]


def _faces():
    from rlscore.estimators import KernelRLS, RankRLS
    return {
        "RLS": lambda **kw: RLS(X, Y, **KW, **kw),
        "StreamedRLS": lambda **kw: StreamedRLS(X, Y, **KW, **kw),
        "QueryRankRLS": lambda **kw: QueryRankRLS(X, Y, QIDS, **RANK_KW, **kw),
        "GlobalRankRLS": lambda **kw: GlobalRankRLS(X, Y, **RANK_KW, **kw),
        "KernelRLS": lambda **kw: KernelRLS(kernel="rbf", n_basis=B, **kw).fit(X, Y),
        "RankRLS": lambda **kw: RankRLS(kernel="rbf", n_basis=B, **kw).fit(X, Y,
                                                                           qid=QIDS),
    }


@pytest.mark.parametrize("face", sorted(_faces()))
@pytest.mark.parametrize("value, error", BAD)
def test_hostile_budgets_are_refused_by_name(face, value, error):
    with pytest.raises(error, match="memory_budget"):
        _faces()[face](memory_budget=value)


@pytest.mark.parametrize("face", sorted(_faces()))
@pytest.mark.parametrize("keyword, value", [("block_size", 0), ("block_size", -3),
                                            ("block_size", 2.5), ("block_size", "7"),
                                            ("solver", "fast"), ("solver", None)])
def test_hostile_block_size_and_solver_are_refused_by_name(face, keyword, value):
    with pytest.raises(ValueError, match=keyword):
        _faces()[face](**{keyword: value})


@pytest.mark.parametrize("face", sorted(_faces()))
def test_a_huge_budget_is_no_limit(face):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # taken, not ignored with a warning
        model = _faces()[face](memory_budget=1e300)
    assert np.all(np.isfinite(model.predict(X[:3])))


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "big", "1e400", ""])
def test_cli_refuses_hostile_budgets(tmp_path, capsys, value):
    rc, err = _cli(tmp_path, capsys, "--memory-budget", value)
    assert rc == 2 and "--memory-budget" in err and "Traceback" not in err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("value", ["auto", "none", "1e300"])
def test_cli_takes_auto_none_and_huge_budgets(tmp_path, capsys, value):
    rc, err = _cli(tmp_path, capsys, "--memory-budget", value)
    assert rc == 0, err


@pytest.mark.parametrize("value", ["0", "-3"])
def test_cli_refuses_hostile_block_sizes_by_option_name(tmp_path, capsys, value):
    rc, err = _cli(tmp_path, capsys, "--block-size", value)
    assert rc == 2 and "--block-size must be a positive number of rows" in err



@pytest.mark.parametrize("kind", ["query", "global"])
def test_rank_learners_stream_explicit_basis_vectors(kind):
    from rlscore.core.rankrls import StreamedRankModel
    cls = QueryRankRLS if kind == "query" else GlobalRankRLS
    args = (X, Y, QIDS) if kind == "query" else (X, Y)
    ref = cls(*args, regparam=0.5, memory_budget=None, **VEC_KW)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st = cls(*args, regparam=0.5, memory_budget=_rank_budget(), block_size=7,
                 **VEC_KW)
    assert isinstance(st._model, StreamedRankModel) and st._model.plan.path == "streamed"
    Xt = X[:11] + 0.2
    np.testing.assert_allclose(st.predict(Xt), ref.predict(Xt), rtol=1e-10, atol=1e-12)
    pcg = cls(*args, regparam=0.5, solver="pcg", block_size=7, **VEC_KW)
    assert pcg._model.plan.path == "pcg"
    scale = np.abs(ref.predict(Xt)).max()
    assert np.abs(pcg.predict(Xt) - ref.predict(Xt)).max() <= 1e-4 * scale


def test_streamed_fit_checks_explicit_basis_vectors():
    from rlscore.core.nystrom import streamed_fit
    from rlscore.core.structure import ArraySource
    src = ArraySource(X, Y)
    with pytest.raises(ValueError, match="not both"):
        streamed_fit(src, basis_vectors=BASIS, n_basis=5)
    with pytest.raises(ValueError, match="3 features but the data have 4"):
        streamed_fit(src, basis_vectors=BASIS[:, :3])
    with pytest.raises(ValueError, match="NaN|finite"):
        bad = BASIS.copy()
        bad[2, 1] = np.nan
        streamed_fit(src, basis_vectors=bad)


def test_rank_estimator_streams_explicit_basis_vectors():
    from rlscore.core.rankrls import StreamedRankModel
    from rlscore.estimators import RankRLS
    fits = [RankRLS(alpha=0.5, kernel="rbf", gamma=GAMMA, basis_vectors=BASIS,
                    memory_budget=budget, solver="direct").fit(X, Y, qid=QIDS)
            for budget in (_rank_budget(), None)]
    assert isinstance(fits[0].model_, StreamedRankModel)
    assert not isinstance(fits[1].model_, StreamedRankModel)
    np.testing.assert_allclose(fits[0].predict(X), fits[1].predict(X), rtol=1e-10,
                               atol=1e-12)
