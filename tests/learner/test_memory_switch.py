"""The RLScore-compatible RLS learners switch a reduced-set model to streaming above
``memory_budget`` (keyword-only extras; the RLScore signatures are unchanged), with the
same predictions, leave-one-out and K-fold values as in memory, and refuse a budget
too small even for streaming before any work."""

import numpy as np
import pytest

import rlscore._memory
from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
from rlscore.core.nystrom import StreamedRLSModel
from rlscore.learner import RLS, KfoldRLS, LeaveOneOutRLS, LeavePairOutRLS

# budgets placed between estimates of the arrays: the process's own memory is
# taken as 0 here (the whole-process budget: tests/test_memory_rss.py)
pytestmark = pytest.mark.usefixtures("arrays_only_budget")

M, D, B = 90, 4, 12
rng = np.random.default_rng(5)
X = rng.standard_normal((M, D))
Y = np.column_stack([np.cos(X[:, 0]), X[:, 1] * X[:, 2]]) + 0.05 * rng.standard_normal((M, 2))
G = dict(kernel="GaussianKernel", gamma=0.2)
GRID = [0.01, 0.3, 3.0]


@pytest.fixture(autouse=True)
def _no_fixed_overhead(monkeypatch):
    """The fixed few MiB of a streamed run (rlscore._memory.STREAM_OVERHEAD) would hide
    the switch on problems this small: set it to 0 here."""
    monkeypatch.setattr(rlscore._memory, "STREAM_OVERHEAD", 0)


def _budget(block, path="memory", n_lambdas=1, n_folds=0, p=2):
    mem = reduced_set_peak_bytes(path, ReducedSetSizes(M, B, D, p), n_lambdas=n_lambdas)
    st = reduced_set_peak_bytes("streamed", ReducedSetSizes(M, B, D, p), block,
                                n_lambdas if path == "memory_cv" else 1, n_folds)
    assert st < mem
    return (st + mem) / 2 / 2**20


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10 * np.abs(b).max())


BASES = {"basis_vectors": dict(basis_vectors=X[::8][:B]),
         "n_basis": dict(n_basis=B, random_state=3)}


@pytest.mark.parametrize("basis", sorted(BASES))
@pytest.mark.parametrize("block", [1, 7, 25])
def test_rls_streams_with_the_same_model_and_shortcuts(basis, block):
    ref = RLS(X, Y, regparam=0.3, **G, **BASES[basis])
    st = RLS(X, Y, regparam=0.3, memory_budget=_budget(block), block_size=block,
             **G, **BASES[basis])
    assert isinstance(st._model, StreamedRLSModel)
    assert not isinstance(ref._model, StreamedRLSModel)
    Xt = X[:7] + 0.2
    _close(st.predict(Xt), ref.predict(Xt))
    _close(st.leave_one_out(), ref.leave_one_out())
    _close(st.holdout([3, 50, 51]), ref.holdout([3, 50, 51]))
    st.solve(3.0)
    ref.solve(3.0)
    _close(st.predict(Xt), ref.predict(Xt))
    with pytest.raises(ValueError, match="memory_budget"):
        st.leave_pair_out([0], [1])


@pytest.mark.parametrize("basis", sorted(BASES))
@pytest.mark.parametrize("block", [1, 7, 25])
def test_loo_and_kfold_wrappers_stream_with_the_same_selection(basis, block):
    kw = dict(G, **BASES[basis])
    ref = LeaveOneOutRLS(X, Y, regparams=GRID, **kw)
    st = LeaveOneOutRLS(X, Y, regparams=GRID, block_size=block,
                        memory_budget=_budget(block, "memory_cv", len(GRID)), **kw)
    assert isinstance(st.learner._model, StreamedRLSModel)
    _close(st.cv_performances, ref.cv_performances)
    _close(st.cv_predictions, ref.cv_predictions)
    assert st.regparam == ref.regparam
    _close(st.predict(X[:5]), ref.predict(X[:5]))
    # folds that do not cover every row (RLScore allows it)
    folds = [list(range(0, 30)), list(range(30, 55)), list(range(60, 90))]
    ref = KfoldRLS(X, Y, folds, regparams=GRID, **kw)
    st = KfoldRLS(X, Y, folds, regparams=GRID, block_size=block,
                  memory_budget=_budget(block, "memory_cv", len(GRID), 4), **kw)
    assert isinstance(st.learner._model, StreamedRLSModel)
    _close(st.cv_performances, ref.cv_performances)
    for a, b in zip(st.cv_predictions, ref.cv_predictions):
        for fa, fb in zip(a, b):
            _close(fa, fb)
    assert st.regparam == ref.regparam


def test_rlscore_positional_signatures_unchanged():
    a = RLS(X, Y[:, 0], 0.5, "GaussianKernel", X[:B], gamma=0.2)
    b = RLS(X, Y[:, 0], regparam=0.5, kernel="GaussianKernel", basis_vectors=X[:B],
            gamma=0.2, memory_budget=None)
    _close(a.predict(X), b.predict(X))
    assert a._model.plan.path == "memory"


def test_leave_pair_out_keeps_the_model_in_memory():
    lpo = LeavePairOutRLS(X, Y[:, 0], regparams=[1.0], memory_budget=1e-4, **G,
                          **BASES["n_basis"])
    assert lpo.learner._model.plan.path == "memory"


@pytest.mark.parametrize("make", [
    lambda **kw: RLS(X, Y, **G, **BASES["n_basis"], **kw),
    lambda **kw: LeaveOneOutRLS(X, Y, regparams=GRID, **G, **BASES["basis_vectors"], **kw),
    lambda **kw: KfoldRLS(X, Y, [list(range(45)), list(range(45, 90))], regparams=GRID,
                          **G, **BASES["n_basis"], **kw),
])
def test_budget_too_small_is_refused_with_the_way_out(make):
    with pytest.raises(ValueError) as exc:
        make(memory_budget=1e-5, block_size=1)
    msg = str(exc.value)
    assert "memory_budget=1e-05 MiB is too small" in msg and "estimated" not in msg
    # block_size=1 and PCG do not fit 1e-5 MiB either: only the ways out that work
    for way_out in ("fewer basis vectors", "larger memory_budget"):
        assert way_out in msg
    for no_way in ("smaller block_size", "solver='pcg'"):
        assert no_way not in msg


def test_pcg_learner():
    ref = RLS(X, Y, regparam=0.3, **G, **BASES["n_basis"])
    st = RLS(X, Y, regparam=0.3, solver="pcg", block_size=7, **G, **BASES["n_basis"])
    assert st._model.plan.path == "pcg"
    np.testing.assert_allclose(st.predict(X[:5]), ref.predict(X[:5]), rtol=1e-5)
    with pytest.raises(ValueError, match="solver='pcg'"):
        st.leave_one_out()
    with pytest.raises(ValueError, match="cross-validation"):
        LeaveOneOutRLS(X, Y, regparams=GRID, solver="pcg", **G, **BASES["n_basis"])


def test_holdout_whose_complement_holds_every_basis_vector():
    """A hold-out set without basis vectors: the rows outside it (all the basis) form
    one more fold whose model is not needed -- it used to be computed and refused
    ("a fold contains every basis vector")."""
    kw = dict(G, basis_indices=np.arange(20, 20 + B))
    ref = RLS(X, Y, regparam=0.3, **kw)
    st = RLS(X, Y, regparam=0.3, memory_budget=_budget(7), block_size=7, **kw)
    assert isinstance(st._model, StreamedRLSModel)
    for held in ([1, 2, 3], list(range(40, 90))):
        _close(st.holdout(held), ref.holdout(held))
    folds = [list(range(0, 10)), list(range(60, 90))]       # no basis vector in a fold
    ref = KfoldRLS(X, Y, folds, regparams=GRID, **kw)
    st = KfoldRLS(X, Y, folds, regparams=GRID, block_size=7,
                  memory_budget=_budget(7, "memory_cv", len(GRID), 3), **kw)
    assert isinstance(st.learner._model, StreamedRLSModel)
    _close(st.cv_performances, ref.cv_performances)
