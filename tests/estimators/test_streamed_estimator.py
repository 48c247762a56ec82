"""The estimators switch to streaming above their memory budget (and say so once), give
the same model and cross-validation as in memory, and refuse, before any work, a budget
that even streaming cannot meet."""

import logging

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold

import rlscore._memory
from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
from rlscore.core.nystrom import StreamedRLSModel
from rlscore.estimators import KernelRLS, KernelRLSCV

# budgets placed between estimates of the arrays: the process's own memory is
# taken as 0 here (the whole-process budget: tests/test_memory_rss.py)
pytestmark = pytest.mark.usefixtures("arrays_only_budget")

M, D, B = 120, 3, 20


def _data(p=1):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((M, D))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(M)
    return X, (y if p == 1 else np.column_stack([y, X[:, 1] ** 2][:p]))


@pytest.fixture(autouse=True)
def _no_fixed_overhead(monkeypatch):
    """The fixed few MiB of a streamed run (rlscore._memory.STREAM_OVERHEAD) would hide
    the switch on problems this small: set it to 0 here."""
    monkeypatch.setattr(rlscore._memory, "STREAM_OVERHEAD", 0)


def _budget(block, path="memory", n_lambdas=1, n_folds=0, p=1):
    """MiB between the streamed estimate (blocks of ``block`` rows) and the in-memory
    one: the fit must stream."""
    mem = reduced_set_peak_bytes(path, ReducedSetSizes(M, B, D, p), n_lambdas=n_lambdas)
    cv = path == "memory_cv"
    st = reduced_set_peak_bytes("streamed" if cv else "streamed_fit",
                                ReducedSetSizes(M, B, D, p), block,
                                n_lambdas if cv else 1, n_folds)
    assert st < mem
    return (st + mem) / 2 / 2**20


KW = dict(kernel="rbf", gamma=0.3, n_basis=B, random_state=1)


@pytest.mark.parametrize("block", [1, 7, 50])
@pytest.mark.parametrize("p", [1, 2])
def test_streamed_fit_equals_in_memory(block, p, caplog):
    X, y = _data(p)
    ref = KernelRLS(alpha=0.5, **KW).fit(X, y)
    assert ref.model_.plan.path == "memory"
    with caplog.at_level(logging.INFO, logger="rlscore"):
        st = KernelRLS(alpha=0.5, memory_budget=_budget(block, p=p), block_size=block,
                       **KW).fit(X, y)
    assert isinstance(st.model_, StreamedRLSModel) and st.model_.plan.path == "streamed"
    said = [r.getMessage() for r in caplog.records
            if r.getMessage().startswith("streaming") and "started" in r.getMessage()]
    assert len(said) == 1 and "above the memory budget" in said[0]
    Xt = X[:9] + 0.1
    for a, b in ((st.predict(Xt), ref.predict(Xt)), (st.dual_coef_, ref.dual_coef_)):
        # 1e-10 relative to the largest coefficient (rounding of the b x b solves)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10 * np.abs(b).max())


def test_pcg_is_streamed_and_converges_to_the_direct_solution():
    X, y = _data()
    ref = KernelRLS(alpha=0.5, **KW).fit(X, y)
    st = KernelRLS(alpha=0.5, memory_budget=None, block_size=7, solver="pcg",
                   **KW).fit(X, y)
    assert st.model_.plan.path == "pcg"
    np.testing.assert_allclose(st.predict(X[:9]), ref.predict(X[:9]), rtol=1e-5)


@pytest.mark.parametrize("cv", ["loo", 4, "groups"])
@pytest.mark.parametrize("block", [1, 7, 50])
def test_cv_estimator_streams_with_the_same_selection(cv, block):
    X, y = _data()
    alphas = [0.01, 0.1, 1.0, 10.0]
    groups = None
    if cv == "groups":
        cv, groups = GroupKFold(3), np.arange(M) % 5
    n_folds = 0 if cv == "loo" else 6
    ref = KernelRLSCV(alphas=alphas, cv=cv, **KW).fit(X, y, groups=groups)
    budget = _budget(block, "memory_cv", len(alphas), n_folds)
    st = KernelRLSCV(alphas=alphas, cv=cv, memory_budget=budget, block_size=block,
                     **KW).fit(X, y, groups=groups)
    assert isinstance(st.model_, StreamedRLSModel)
    np.testing.assert_allclose(st.cv_results_["cv_performances"],
                               ref.cv_results_["cv_performances"], rtol=1e-10)
    assert st.alpha_ == ref.alpha_
    np.testing.assert_allclose(st.predict(X[:9]), ref.predict(X[:9]), rtol=1e-10)


def test_lpo_stays_in_memory():
    X, y = _data()
    st = KernelRLSCV(alphas=[1.0], cv="lpo", memory_budget=1e-3, **KW).fit(X, y)
    assert st.model_.plan.path == "memory"


@pytest.mark.parametrize("make", [
    lambda b: KernelRLS(memory_budget=b, **KW),
    lambda b: KernelRLSCV(alphas=[0.1, 1.0], memory_budget=b, **KW),
    lambda b: KernelRLSCV(alphas=[0.1, 1.0], cv=3, memory_budget=b, block_size=1, **KW),
])
def test_budget_too_small_is_refused_before_any_work(make):
    X, y = _data()
    est = make(1e-6)
    with pytest.raises(ValueError) as exc:
        est.fit(X, y)
    msg = str(exc.value)
    assert "memory_budget=1e-06 MiB is too small" in msg
    # one-row blocks and PCG do not fit 1e-6 MiB either: only the ways out that work
    for way_out in ("fewer basis vectors", "larger memory_budget"):
        assert way_out in msg
    for no_way in ("smaller block_size", "solver='pcg'"):
        assert no_way not in msg
    assert not hasattr(est, "model_") and not hasattr(est, "dual_coef_")


def test_bad_memory_options():
    X, y = _data()
    with pytest.raises(ValueError, match="solver"):
        KernelRLS(kernel="rbf", n_basis=5, solver="lsqr").fit(X, y)
    with pytest.raises(ValueError, match="memory_budget"):
        KernelRLS(kernel="rbf", n_basis=5, memory_budget=-1).fit(X, y)
    with pytest.raises(ValueError, match="memory_budget"):
        KernelRLS(kernel="rbf", n_basis=5, memory_budget="lots").fit(X, y)
    with pytest.raises(ValueError, match="block_size"):
        KernelRLS(kernel="rbf", n_basis=5, block_size=0).fit(X, y)
    with pytest.raises(ValueError, match="pcg"):
        KernelRLS(kernel="rbf", solver="pcg").fit(X, y)
