"""One dense solver for RLS and RankRLS (issue #42): the rotated RankRLS solver is
:class:`rlscore.core.rls.KernelSolver` on the rotated block, and every singular
regparam is refused with one error type.

Reference: explicit systems solved by ``np.linalg.solve`` / ``np.linalg.inv`` on the
block B^T K B (B the orthonormal basis of range(P) of the block-centering projection
P), and the centred RankRLS system (P K P + mu I) A = P Y, with refits on the
remaining rows for the hold-outs.
"""

import numpy as np
import pytest

from rlscore.core.kronecker import (DomainRLS, KronRLSSolver, TwoStepSolver,
                                    check_factor_regparam, check_kron_regparam,
                                    kron_leave_row_out, make_factor)
from rlscore.core.nystrom._streamed import _Eigen
from rlscore.core.optim import SingularRegparamError, regularized_cholesky
from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel, RotatedSolver
from rlscore.core.rankrls._centered import CenteredRankModel
from rlscore.core.rls import (KernelSolver, LinearSolver, greedy_forward_selection,
                              loo_combine, primal_fold_parts, primal_fold_predictions)
from rlscore.core.structure import QueryGroups

QIDS = np.repeat([0, 1, 2, 3], [4, 3, 5, 4])


def _gaussian(X, gamma=0.3):
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * D)


def _problem(seed=0, p=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(QIDS.size, 3))
    Y = rng.normal(size=(QIDS.size, p))
    return X, Y, _gaussian(X)


def _centering(qids):
    m = qids.size
    P = np.eye(m)
    for q in np.unique(qids):
        rows = np.flatnonzero(qids == q)
        P[np.ix_(rows, rows)] -= 1.0 / rows.size
    return P


def _rotated(K, Y, qids):
    """The rotated kernel and labels as the centred model builds them, and the
    explicit basis B (m, m - g) with B B^T = P."""
    gr = QueryGroups.from_qids(qids)
    Kr = gr.rotate_kernel(K.copy())
    YB = gr.reflect_rows(Y.copy())
    YB[gr.first] = 0.0
    B = gr.basis(np.eye(gr.rest.size))
    return gr, Kr, YB, B


@pytest.mark.parametrize("lams", [(0.3,), (0.3, 2.0, 0.3)])
def test_rotated_solver_is_the_kernel_solver_of_the_block(lams):
    """Solutions, fits and the inverse of the rotated solver equal np.linalg.solve on
    B^T K B, on the Cholesky path (one lambda) and the eigen path (a second one, the
    eigendecomposition of the block only), and equal the KernelSolver of the block."""
    X, Y, K = _problem()
    gr, Kr, YB, B = _rotated(K, Y, QIDS)
    block = B.T @ K @ B
    rot = RotatedSolver(Kr, YB, gr.rest)
    plain = KernelSolver(Kr[np.ix_(gr.rest, gr.rest)], YB[gr.rest])
    np.testing.assert_allclose(B @ YB[gr.rest], _centering(QIDS) @ Y, atol=1e-12)
    for lam in lams:
        ref = np.linalg.solve(block + lam * np.eye(block.shape[0]), B.T @ Y)
        x = rot.solve(lam)
        np.testing.assert_allclose(x[gr.first], 0.0, atol=0)
        np.testing.assert_allclose(B @ x[gr.rest], B @ ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(x[gr.rest], plain.solve(lam), rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(rot.fitted(lam)[gr.rest], Kr[np.ix_(gr.rest, gr.rest)]
                                   @ x[gr.rest], rtol=1e-10, atol=1e-12)
    assert rot.decomposed == (len(lams) > 1)
    if rot.decomposed:
        s2, V, _ = rot.decompose()
        assert V.shape == (QIDS.size, gr.rest.size) and not V[gr.first].any()
        np.testing.assert_allclose(np.sort(s2), np.linalg.eigvalsh(block), rtol=1e-9,
                                   atol=1e-12)
    G = rot.inverse(lams[-1])
    Gref = np.linalg.inv(Kr[np.ix_(gr.rest, gr.rest)] + lams[-1] * np.eye(gr.rest.size))
    np.testing.assert_allclose(G[np.ix_(gr.rest, gr.rest)], Gref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(G[np.ix_(gr.first, gr.rest)], 0.0, atol=0)
    # its (RLS) hold-out of rows of the block equals a refit of the block without them
    H = np.array([1, 4, 7])
    keep = np.setdiff1d(np.arange(gr.rest.size), H)
    Kb, Yb = Kr[np.ix_(gr.rest, gr.rest)], YB[gr.rest]
    a = np.linalg.solve(Kb[np.ix_(keep, keep)] + 0.3 * np.eye(keep.size), Yb[keep])
    np.testing.assert_allclose(rot.holdout(0.3, gr.rest[H]), Kb[np.ix_(H, keep)] @ a,
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("model", ["query", "global"])
def test_centred_models_solve_the_centred_system(model):
    """The dual coefficients of the centred models equal (P K P + mu I)^{-1} P Y by
    np.linalg.solve at a first (Cholesky) and a second (eigen) regparam, and their
    hold-out of one query equals the refit on the remaining rows."""
    X, Y, K = _problem(1)
    m = QIDS.size
    qids = QIDS if model == "query" else np.zeros(m, dtype=int)
    P = _centering(qids)
    make = (lambda lam: QueryRankRLSModel(K, Y, QIDS, lam, "PrecomputedKernel")) \
        if model == "query" else \
        (lambda lam: GlobalRankRLSModel(K, Y, lam, "PrecomputedKernel"))
    scale = 1.0 if model == "query" else 1.0 / m
    mod = make(0.7)
    for lam in (0.7, 3.0):
        mod.solve(lam)
        ref = np.linalg.solve(P @ K @ P + lam * scale * np.eye(m), P @ Y)
        np.testing.assert_allclose(mod.A, ref, rtol=1e-9, atol=1e-12)
    rows = np.flatnonzero(QIDS == 2)
    keep = np.setdiff1d(np.arange(m), rows)
    Pk = _centering(qids[keep])
    s = 1.0 if model == "query" else 1.0 / keep.size
    a = np.linalg.solve(Pk @ K[np.ix_(keep, keep)] @ Pk + 3.0 * s * np.eye(keep.size),
                        Pk @ Y[keep])
    ref = K[np.ix_(rows, keep)] @ a
    out = mod.holdout(rows)
    # RankRLS predictions of the held-out rows are defined up to one constant per query
    np.testing.assert_allclose(out - out.mean(0), ref - ref.mean(0), rtol=1e-8, atol=1e-10)


# -- every singular-regparam raise site raises SingularRegparamError ------------------

def _rank_one(m=4):
    x = np.arange(1.0, m + 1.0)[:, None]
    return x @ x.T


def _full(n=4, seed=3):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    return _gaussian(X, 0.5)


def _kernel_solver_cholesky():
    KernelSolver(np.zeros((3, 3)), np.ones((3, 1))).solve(0.0)


def _kernel_solver_weights():
    s = KernelSolver(_rank_one(), np.ones((4, 1)))
    s.decompose()
    s.solve(0.0)


def _kernel_solver_inverse():
    s = KernelSolver(np.eye(3), np.ones((3, 1)))
    s._chol = (0.0, np.zeros((3, 3), order="F"))     # a factor POTRI cannot invert
    s.inverse(0.0)


def _linear_solver_weights():
    s = LinearSolver(np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 2.0]]), np.ones((3, 1)))
    s.decompose()
    s.solve(0.0)


def _primal_fold():
    parts = primal_fold_parts(np.zeros((2, 2)), np.zeros((2, 1)), np.ones((1, 2)))
    primal_fold_predictions(parts, 0.0)


def _loo_combine():
    Y = np.ones((2, 1))
    loo_combine(Y, Y, Y, np.zeros(2), np.ones(2))


def _rotated_solver():
    K = np.zeros((4, 4))
    K[0, 0] = 1.0                                     # row "first" decoupled
    RotatedSolver(K, np.ones((4, 1)), np.arange(1, 4)).solve(0.0)


def _centred_weights():
    X = np.column_stack([np.arange(8.0), np.arange(8.0)])
    mod = QueryRankRLSModel(X, np.arange(8.0), np.repeat([0, 1], 4), 1.0, bias=0.0,
                            decompose_now=True)
    mod._weights(0.0)


def _centred_small_system():
    CenteredRankModel._solve_small(np.zeros((2, 2)), np.ones((2, 1)))


def _global_loo():
    X = np.random.default_rng(0).normal(size=(6, 2))
    GlobalRankRLSModel(X, np.arange(6.0), 0.0, "GaussianKernel", gamma=0.5).leave_one_out()


def _global_lpo():
    X = np.random.default_rng(0).normal(size=(6, 2))
    GlobalRankRLSModel(X, np.arange(6.0), 0.0, "GaussianKernel",
                       gamma=0.5).leave_pair_out([0], [1])


def _kron_denominator():
    f = make_factor("kernel", _rank_one())
    KronRLSSolver(f, f, np.ones((4, 4))).core(0.0)


def _kron_loo():
    f = make_factor("kernel", _full())
    KronRLSSolver(f, f, np.ones((4, 4))).in_sample_loo(0.0)


def _kron_leave_row_out():
    f = make_factor("kernel", _full())
    kron_leave_row_out(f, f, np.ones((4, 4)), 0.0)


def _factor_weights():
    make_factor("kernel", _rank_one()).weights(0.0)


def _domain_rls():
    DomainRLS(make_factor("kernel", _rank_one()), np.ones((4, 1)))._w(0.0)


def _two_step_loo():
    f = make_factor("kernel", _full())
    TwoStepSolver(f, f, np.ones((4, 4))).in_sample_loo(0.0, 0.0)


def _two_step_symmetric():
    f = make_factor("kernel", _full())
    Y = np.ones((4, 4))
    TwoStepSolver(f, f, Y).in_sample_loo_symmetric(0.0)


def _two_step_out_of_sample():
    f = make_factor("kernel", _full())
    TwoStepSolver(f, f, np.ones((4, 4))).out_of_sample_loo_symmetric(0.0)


def _kron_indefinite():
    check_kron_regparam(((-1.0, 2.0), (1.0, 2.0)), ("K1", "K2"), 0.5)


def _factor_indefinite():
    check_factor_regparam(-1.0, "K1", 0.5)


def _streamed_eigen():
    _Eigen(np.zeros((2, 2)), np.ones((2, 1))).weights(0.0)


def _greedy():
    X = np.random.default_rng(0).normal(size=(6, 3))
    greedy_forward_selection(X, np.arange(6.0), 1, regparam=0.0)


SITES = {
    "optim.regularized_cholesky": lambda: regularized_cholesky(np.zeros((3, 3)), 0.0, "K"),
    "KernelSolver cholesky": _kernel_solver_cholesky,
    "KernelSolver weights": _kernel_solver_weights,
    "KernelSolver inverse": _kernel_solver_inverse,
    "LinearSolver weights": _linear_solver_weights,
    "primal_fold_predictions": _primal_fold,
    "loo_combine": _loo_combine,
    "RotatedSolver": _rotated_solver,
    "CenteredRankModel weights": _centred_weights,
    "CenteredRankModel hold-out system": _centred_small_system,
    "GlobalRankRLSModel leave_one_out": _global_loo,
    "GlobalRankRLSModel leave_pair_out": _global_lpo,
    "KronRLSSolver denominator": _kron_denominator,
    "KronRLSSolver in_sample_loo": _kron_loo,
    "kron_leave_row_out": _kron_leave_row_out,
    "DomainFactor weights": _factor_weights,
    "DomainRLS": _domain_rls,
    "TwoStepSolver in_sample_loo": _two_step_loo,
    "TwoStepSolver in_sample_loo_symmetric": _two_step_symmetric,
    "TwoStepSolver out_of_sample_loo_symmetric": _two_step_out_of_sample,
    "check_kron_regparam": _kron_indefinite,
    "check_factor_regparam": _factor_indefinite,
    "streamed reduced set": _streamed_eigen,
    "greedy_forward_selection": _greedy,
}


@pytest.mark.parametrize("site", list(SITES))
def test_singular_regparam_sites_raise_one_error(site):
    with pytest.raises(SingularRegparamError) as exc:
        SITES[site]()
    err = exc.value
    assert isinstance(err, ValueError)
    remedy = err.remedy if err.remedy is not None else f"use {err.name} > 0"
    assert str(err) == f"{err.problem}; {remedy}"


def test_singular_regparam_error_pickles_with_its_message():
    import pickle
    err = SingularRegparamError("K + regparam*I is singular", name="regparam2")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is SingularRegparamError
    assert str(back) == str(err) == "K + regparam*I is singular; use regparam2 > 0"
