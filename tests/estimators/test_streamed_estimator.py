"""KernelRLS switches to streaming above its memory budget and gives the same model."""

import numpy as np
import pytest

from rlscore.estimators import KernelRLS


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    return X, np.sin(X[:, 0]) + 0.1 * rng.standard_normal(120)


@pytest.mark.parametrize("solver", ["direct", "pcg"])
def test_streamed_fit_equals_in_memory(solver):
    X, y = _data()
    kw = dict(alpha=0.5, kernel="rbf", gamma=0.3, n_basis=20, random_state=1)
    ref = KernelRLS(**kw).fit(X, y)
    st = KernelRLS(memory_budget=1e-6, block_size=7, solver=solver, **kw).fit(X, y)
    assert getattr(st.model_, "streamed", None) is not None
    Xt = X[:9] + 0.1
    np.testing.assert_allclose(st.predict(Xt), ref.predict(Xt),
                               rtol=1e-9 if solver == "direct" else 1e-5)


def test_bad_solver():
    X, y = _data()
    with pytest.raises(ValueError, match="solver"):
        KernelRLS(kernel="rbf", n_basis=5, solver="lsqr").fit(X, y)
