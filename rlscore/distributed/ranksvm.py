"""Linear RankSVM on a Dask cluster: the bundle method of :mod:`rlscore.core.optim`
(hinge or squared hinge) or the trust-region Newton method of :mod:`rlscore.core.optim`
(squared hinge), with the risk oracles of :mod:`rlscore.distributed._pairs`.

Query-structured data whose partitions hold whole queries are evaluated per partition
(pairs never cross partitions); a global ranking (no qids) or queries spanning
partitions are evaluated exactly by exchanging the predictions and the loss
coefficients, O(m) numbers per pass (see :class:`DistributedRankingRisk` and
docs/distributed.rst).
"""

import numpy as np

from rlscore.core.ranksvm import (RankSVMOptions, ranksvm_regparam, run_newton,
                                  solution_attributes, solve_ranksvm)
from rlscore.distributed._data import PartitionedData
from rlscore.distributed._pairs import DistributedNewtonObjective, DistributedRankingRisk
from rlscore.predictor import LinearPredictor, PredictorInterface

__all__ = ["DistributedRankingRisk", "DistributedNewtonObjective", "LinearRankSVM",
           "as_partitioned", "solve_newton"]


def as_partitioned(X, Y, qids, client, persist, need_labels=True):
    """A :class:`PartitionedData` from the learners' arguments."""
    if isinstance(X, PartitionedData):
        if Y is not None or qids is not None:
            raise ValueError("pass Y and qids inside the PartitionedData, not separately")
        data = X
    elif hasattr(X, "to_delayed") and hasattr(X, "columns"):
        raise TypeError("X is a dask dataframe: wrap it with "
                        "rlscore.distributed.PartitionedData.from_dataframe(df, label=..., "
                        "qid=...)")
    else:
        data = PartitionedData(X, Y, qids, client=client, persist=persist)
    if need_labels and not data.has_labels:
        raise ValueError("the data have no labels Y")
    return data


def solve_newton(risk, regparam, *, options=None, x0=None, callback=None):
    """The squared-hinge RankSVM on partitioned data with TRON: the single machine's
    :func:`rlscore.core.ranksvm.solve_ranksvm_newton` (stopping rule of Lee & Lin,
    ||grad J(w)|| <= rtol ||grad J(0)||, rtol None: the same default, 1e-10) without
    its subsample warm start. ``options``: a
    :class:`rlscore.core.ranksvm.RankSVMOptions` for the Newton method (None: the
    defaults of the squared hinge); ``x0`` the start (default 0).

    Notes
    -----
    ||grad J(0)|| costs one evaluation at w = 0 (one or two passes). Per Newton step one
    evaluation and one gradient, and one Hessian-vector product per CG iteration; their
    costs are those of :class:`DistributedNewtonObjective`.
    """
    options = RankSVMOptions(loss="squared_hinge", warm_start=None) if options is None \
        else options
    oracle = DistributedNewtonObjective(risk, regparam)
    zero = np.zeros(risk.dim)
    if x0 is None:
        x0 = zero
    _, point0 = oracle.evaluate(zero)
    gnorm0 = float(np.linalg.norm(oracle.gradient(point0)))
    return run_newton(oracle, x0, regparam, gnorm0, options=options, callback=callback)


class LinearRankSVM(PredictorInterface):
    """Linear RankSVM trained on a Dask cluster; trains in the constructor.

    The objective, its normalizations, the losses and the solvers are those of
    :class:`rlscore.learner.LinearRankSVM`: the pairwise hinge with the bundle method,
    or the squared hinge (``loss="squared_hinge"``) with the trust-region Newton method
    (default for that loss) or the bundle method. The risk, its (sub)gradient and the
    Hessian-vector products are computed on the partitions, exactly (see
    :class:`DistributedRankingRisk`), and the client runs the solver from w = 0 with the
    single machine's stopping test. What is equal: the model of
    ``rlscore.learner.LinearRankSVM(..., warm_start=None)`` (same start, same
    iterates), up to round-off. With its default ``warm_start="auto"`` the single
    machine starts from a solution on a random tenth of the data from m = 5000
    (Newton) or 50000 (bundle) examples on; both models then pass the same stopping
    test on all the data but stop at different points within it: J is regparam-strongly
    convex, so ||w_a - w_b|| <= 2 tol ||grad J(0)|| / regparam (Newton) or
    2 sqrt(2 tol R(0) / regparam) (bundle). A smaller ``tol`` brings them together.

    Parameters
    ----------
    X : dask.array.Array (m, d) (row chunks = partitions), or a
        :class:`PartitionedData`.
    Y : utilities (m,) (dask array or array-like); None when X is PartitionedData.
    qids : query ids (m,), or None for one global ranking over all rows (its pairs
        cross partitions: the predictions are exchanged, O(m) numbers per pass).
    regparam : float > 0, default 1.0
    tol : float in (0, 1) or None, default None (bundle: duality gap relative to
        R(0), None 1e-3; Newton: ||grad J|| <= tol ||grad J(0)||, None 1e-10; as
        :class:`rlscore.learner.LinearRankSVM`)
    max_iter : int, default 1000 bundle iterations or 100 Newton steps
    normalize : "pairs" (default), "query" or "none"
    loss : "hinge" (default) or "squared_hinge"
    solver : None (the loss's default), "bundle" or "newton"
    client : distributed.Client, default the current one
    persist : bool, default False (read every partition from its source on each pass)
    callback : called after every iteration with the solver's dict; returning True
        stops.
    verbose : bool, show one line per iteration on stderr (:mod:`rlscore._progress`)
    n_threads : threads of each counting pass

    Attributes
    ----------
    predictor : LinearPredictor; solution, regparam, iterations, duality_gap,
    objective, converged; n_pairs, history (per-iteration dicts), scheme ("local" or
    "global")

    Notes
    -----
    Per iteration, local scheme: O(m_p log m_p + m_p d) work per partition and O(P d)
    numbers sent; global scheme: O(m_p d) per partition, O(m log m) counting on the
    client and 16 m bytes sent per pass (two passes per bundle iteration or Newton
    gradient, two per Hessian-vector product). O(d t) on the client for t cutting
    planes (bundle), O(d) per CG iteration (Newton).
    """

    def __init__(self, X, Y=None, qids=None, regparam=1.0, tol=None, max_iter=None,
                 normalize="pairs", client=None, persist=False, callback=None,
                 verbose=False, n_threads=1, loss="hinge", solver=None):
        regparam = ranksvm_regparam(regparam)
        options = RankSVMOptions(loss=loss, optimizer=solver, rtol=tol, maxiter=max_iter,
                                 normalize=normalize, warm_start=None, verbose=verbose)
        data = as_partitioned(X, Y, qids, client, persist)
        risk = DistributedRankingRisk(data, normalize, n_threads=n_threads, loss=loss)
        if options.optimizer == "newton":
            sol = solve_newton(risk, regparam, options=options, callback=callback)
        else:
            sol = solve_ranksvm(risk, regparam, options=options, callback=callback)
            sol.loss = loss
        vars(self).update(solution_attributes(sol))
        self.n_pairs = risk.n_pairs
        self.scheme = risk.scheme
        self.predictor = LinearPredictor(sol.w, 0.0)
