"""Reduced-set (Nystrom) RLS and RankRLS on a Dask cluster.

With the Nystrom features Phi = K(X, R) T of a basis R (:class:`rlscore.core.
representation.NystromFeatureMap`, T = C^{-T} with C C^T = K(R, R)), the models are
the primal problems of the single-machine learners:

* :class:`RLS`: W = (Phi^T Phi + lambda I)^{-1} Phi^T Y;
* :class:`QueryRankRLS`: Phi^T P Phi with P the per-query centering (inside each
  partition, since partitions hold whole queries), mu = lambda;
* :class:`GlobalRankRLS`: the global centering, mu = lambda / m. Its Gram matrix is
  formed from per-partition moments of Phi - 1 c^T (c the mean of the basis
  vectors' features, close to the data mean, so the subtraction
  S - s s^T / m does not cancel): Phi^T P Phi = S - s s^T / m, Phi^T P Y = t - s u^T / m
  with S = sum (Phi_p - c)^T (Phi_p - c), s = sum (Phi_p - c)^T 1, t = sum
  (Phi_p - c)^T Y_p, u = sum 1^T Y_p.

Each partition's r x r statistics are computed once (one pass: O(m_p b d + m_p r^2)
per partition) and kept on the workers; the client sums them in partition order and
solves with :class:`rlscore.core.rls.KernelSolver` on the r x r system (a
Cholesky factorization per lambda, or one eigendecomposition for a regularization
path). K-fold cross-validation holds out whole partitions: the training statistics of
a fold are the sums over the other folds (no subtraction, no retraining pass), and the
held-out predictions take one more pass over the data. The rule of every face (the
learners' ``KfoldRLS``, ``StreamedRLS``, the estimators): the basis rows drawn from the
held-out partitions leave the fold's model (the constraint N^T w = 0 on the r x r
system, :func:`rlscore.core.nystrom.fold_weights_from_statistics`), so each fold's
estimate is that of the model retrained on the other partitions alone;
``keep_basis_in_cv=True`` keeps them (a Nystrom model with a fixed dictionary), as do
explicit ``basis_vectors`` (not known to be rows of the data).
"""

import warnings
from types import SimpleNamespace

import numpy as np

from rlscore.core.rls import KernelSolver
from rlscore.core.nystrom import NystromFeatureMap, select_basis, add_statistics, block_statistics, effective_regparam, fold_weights_from_statistics, gram_and_rhs
from rlscore.core.selection import grid_search, query_score
from rlscore._progress import Progress, verbosity
from rlscore._validation import check_regparam
from rlscore.distributed._data import _check_whole_queries
from rlscore.distributed.ranksvm import as_partitioned
from rlscore.predictor import PredictorInterface

__all__ = ["RLS", "QueryRankRLS", "GlobalRankRLS"]


# ---------------------------------------------------------------------------------------
# per-partition tasks


def _rows(part, _state):
    return part[0].shape[0]


def _take_rows(part, _state, idx):
    return part[0][idx]


def _stats(part, nmap, kind, shift):
    """The partition's statistics (:func:`rlscore.core.nystrom.block_statistics`, the code
    the single-machine streamed learners run per block; summed over partitions) and
    its distinct query ids."""
    X, Y, q = part
    m = X.shape[0]
    Phi = nmap.features(X) if m else np.zeros((0, nmap.n_features))
    st = block_statistics(Phi, Y, kind, shift, q)
    return st, (np.unique(np.asarray(q).ravel()) if kind == "query" and m
                else np.zeros(0))


def _stats_only(out):
    return out[0]


def _qids_only(out):
    return out[1]


def _predict(part, _state, nmap, W):
    return nmap.features(part[0]) @ W, part[1], part[2]


def _fold_column(out, i):
    """(y, p, q) of a held-out partition for the i-th regparam (one label column)."""
    P, Y, q = out
    return Y[:, 0], np.ascontiguousarray(P[:, i]), (None if q is None else
                                                    np.asarray(q).ravel())


# ---------------------------------------------------------------------------------------
# the model


class _ReducedSetModel(PredictorInterface):
    _kind = "rls"

    def _train(self, data, regparam, kernel, path, callback, verbose, kernel_params,
               **basis):
        """The constructors' training under ``verbosity(verbose)``; ``basis``: their
        ``basis_vectors``, ``n_basis``, ``random_state`` and ``keep_basis_in_cv``."""
        with verbosity(verbose):
            self._setup(data, regparam, kernel, basis, path, callback, verbose,
                        kernel_params)

    def _setup(self, data, regparam, kernel, basis, path, callback, verbose,
               kernel_params):
        """Train on the partitioned ``data``; ``basis``: the constructor's
        ``basis_vectors``, ``n_basis``, ``random_state`` and ``keep_basis_in_cv``."""
        basis_vectors, n_basis = basis["basis_vectors"], basis["n_basis"]
        if "seed" in kernel_params:
            raise TypeError("seed was renamed random_state, the name (and default None) "
                            "of every face's basis draw (rlscore.learner.RLS, the "
                            "estimators); pass random_state=0 for the former default")
        self.data = data
        self.kernel = kernel
        self.kernel_params = dict(kernel_params)
        self._callback, self._verbose = callback, verbose
        if self._kind == "query" and not data.has_qids:
            raise ValueError("QueryRankRLS needs qids")
        if basis_vectors is not None and n_basis is not None:
            raise ValueError("give basis_vectors or n_basis, not both")
        if basis_vectors is None and n_basis is None:
            raise ValueError(
                f"{type(self).__name__} of rlscore.distributed is a reduced-set "
                f"(Nystrom) model: give n_basis (the number of basis rows drawn from "
                f"the data, with random_state) or basis_vectors. (With the same words "
                f"rlscore.learner.{type(self).__name__} trains the full kernel; the "
                f"exact linear models on a cluster are rlscore.distributed.CGRLS / "
                f"CGRankRLS)")
        self.keep_basis_in_cv = bool(basis["keep_basis_in_cv"])
        # the basis rows' global indices and partitions when drawn from the data (K-fold
        # removes those of the held-out partitions); None for explicit basis vectors
        self.basis_indices, self._basis_partition = None, None
        if basis_vectors is None:
            basis_vectors = self._sample_basis(n_basis, basis["random_state"])
        self.basis_vectors = np.asarray(basis_vectors, dtype=np.float64)
        self.nmap = NystromFeatureMap(kernel, self.basis_vectors, **kernel_params)
        self._shift = None
        if self._kind == "global":
            self._shift = self.nmap.features(self.basis_vectors).mean(axis=0)
        client = data.client
        outs = data.map_persist(_stats, self.nmap, self._kind, self._shift)
        self._stat_futures = [client.submit(_stats_only, o) for o in outs]
        if self._kind == "query":
            _check_whole_queries(client.gather([client.submit(_qids_only, o)
                                               for o in outs]))
        del outs
        self._fold_sums = None
        total = self._sum_stats(np.zeros(data.n_partitions, dtype=np.intp), 1)[0]
        self.m = self._m_of(total)
        self.n_labels = int(total[1].shape[1])
        self.solver = self._solver(total)
        if path:
            self.solver.decompose()
        self.solve(regparam)

    # -- data passes -------------------------------------------------------------
    def _sample_basis(self, n_basis, random_state):
        """n_basis rows drawn uniformly without replacement from all the data, by the
        draw of every face (:func:`rlscore.core.nystrom.select_basis`): the same
        rows as ``rlscore.learner.RLS(X, Y, n_basis=..., random_state=...)``."""
        sizes = np.array(self.data.map_gather(_rows), dtype=np.int64)
        m = int(sizes.sum())
        idx = select_basis(m, n_basis=n_basis, random_state=random_state)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        owner = np.searchsorted(starts, idx, side="right") - 1
        parts = np.unique(owner)
        # the rows are stacked partition by partition: idx is sorted (select_basis)
        self.basis_indices, self._basis_partition = idx, owner
        rows = [self.data.map_gather(_take_rows, None, idx[owner == p] - starts[p],
                                     partitions=[p])[0] for p in parts]
        return np.vstack(rows)

    def _progress(self, stage, k, n):
        """Partition k of n of a pass done: one step of the pass's progress report
        (:mod:`rlscore._progress`; on stderr with ``verbose``), then the callback."""
        if k == 0 or getattr(self, "_report", None) is None:
            self._report = Progress(f"{type(self).__name__}: {stage}", n, self._verbose)
        self._report.step(partition=k + 1)
        if k + 1 >= n:
            self._report.close()
            self._report = None
        if self._callback is not None:
            self._callback(dict(stage=stage, partition=k, n_partitions=n))

    def _sum_stats(self, group, n_groups):
        """Per-group sums of the partitions' statistics, each in partition order,
        streamed from the workers (the client holds n_groups sums at once)."""
        sums = [None] * n_groups
        for k, fut in enumerate(self._stat_futures):
            st = fut.result()
            g = group[k]
            sums[g] = add_statistics(sums[g], st)
            self._progress("statistics", k, len(self._stat_futures))
        return sums

    # -- algebra on the r x r statistics -------------------------------------------
    def _m_of(self, st):
        return st[4] if self._kind == "global" else None

    def _solver(self, st):
        G, b, _ = gram_and_rhs(st, self._kind)
        return KernelSolver(G, b)

    def _mu(self, regparam, m):
        return effective_regparam(regparam, self._kind, m)

    def solve(self, regparam):
        """Train for ``regparam``: O(r^3 / 3) (Cholesky), or O(r^2 p) after the first
        call (the r x r matrix is eigendecomposed once for the path)."""
        self.regparam = check_regparam(regparam)
        self.W = self.solver.solve(self._mu(self.regparam, self.m))
        self.predictor = self.nmap.predictor(self.W)
        return self

    def kfold(self, regparams, n_folds=5, folds=None, measure=None, seed=0):
        """K-fold cross-validation over partitions for each regparam; the model is then
        trained with the best one.

        Parameters
        ----------
        regparams : sequence of floats >= 0
        n_folds : int, default 5; folds of partitions drawn at random (``seed``)
        folds : list of lists of partition numbers, optional (overrides n_folds)
        measure : f(Y, P) with ``iserror``; default sqerror (RLS), cindex
            (GlobalRankRLS) or the query-averaged cindex (QueryRankRLS). QueryRankRLS
            scores every measure per query, the mean over the fold's queries, by the
            rule of every face (:func:`rlscore.core.selection.query_score`: the
            c-index per query, a measure with a ``qids`` parameter called with the
            fold's query ids, any other measure on each query on its own). The default ranking measures of one label column are
            computed on the workers by :mod:`rlscore.distributed.measure` (the exact
            c-index over all pairs of the held-out partitions, the per-query c-index
            per partition): the held-out predictions are not gathered for them.

        Returns
        -------
        dict: regparams, fold_performances (n_regparams, n_folds), cv_performances
        (mean over folds), best_regparam, folds, cv_predictions (the layout of
        :class:`rlscore.learner.KfoldRLS`: a list per regparam of lists per fold of
        the held-out predictions, (m_f,) for one label column, else (m_f, p)),
        predictions (the same arrays per fold: (m_f, n_regparams, p))

        Each fold's model is the model retrained on the other partitions: when the
        basis was drawn from the data (``n_basis``) the basis rows of the held-out
        partitions are removed from it, unless ``keep_basis_in_cv=True`` (the rule of
        every face; explicit ``basis_vectors`` are kept).

        Notes
        -----
        Training statistics per fold: sums of the other folds' r x r statistics (no data
        pass). One eigendecomposition per fold (O(K r^3)), then O(r^2 p) per regparam;
        one pass over the data for the held-out predictions (O(m_p b d) per
        partition). The held-out predictions are gathered on the client: O(m
        n_regparams p) memory.
        """
        from rlscore.measure import UndefinedPerformance, cindex, query_cindex, sqerror
        P = self.data.n_partitions
        grid = [check_regparam(r, name="regparams") for r in regparams]
        if not grid:
            raise ValueError("regparams is empty")
        if folds is None:
            n_folds = int(n_folds)
            if not 2 <= n_folds <= P:
                raise ValueError(f"n_folds must be between 2 and the number of "
                                 f"partitions ({P}), got {n_folds}")
            perm = np.random.default_rng(seed).permutation(P)
            folds = [sorted(f.tolist()) for f in np.array_split(perm, n_folds)]
        else:
            folds = [sorted(int(p) for p in f) for f in folds]
            flat = [p for f in folds for p in f]
            if len(folds) < 2 or any(not f for f in folds):
                raise ValueError("folds must be at least 2 non-empty lists of partitions")
            if sorted(flat) != list(range(P)):
                raise ValueError(f"folds must partition the partitions 0..{P - 1} "
                                 f"(each exactly once)")
        K = len(folds)
        group = np.empty(P, dtype=np.intp)
        for k, f in enumerate(folds):
            group[f] = k
        sums = self._sum_stats(group, K)
        Ws = []
        for k in range(K):
            train = None
            for j in range(K):
                if j != k:
                    train = add_statistics(train, sums[j])
            # the learners' rule: the held-out partitions' basis rows leave the model
            held = None
            if not self.keep_basis_in_cv and self.basis_indices is not None:
                held = np.flatnonzero(np.isin(self._basis_partition, folds[k]))
            Ws.append(fold_weights_from_statistics(train, self._kind, grid, self.nmap,
                                                   held))
        client = self.data.client
        fut = [None] * P
        for k, f in enumerate(folds):
            for p, o in zip(f, self.data.map_submit(_predict, None, self.nmap, Ws[k],
                                                    partitions=f)):
                fut[p] = o
        default = measure is None
        if measure is None:
            measure = {"rls": sqerror, "global": cindex, "query": query_cindex}[self._kind]
        perfs = np.full((len(grid), K), np.nan)
        if default and self._kind != "rls" and self.n_labels == 1:
            from rlscore.distributed.measure import parts_cindex, parts_query_measure
            for k, f in enumerate(folds):
                for i in range(len(grid)):
                    parts = [client.submit(_fold_column, fut[p], i) for p in f]
                    try:
                        perfs[i, k] = parts_cindex(parts, client) \
                            if self._kind == "global" else \
                            parts_query_measure(parts, "cindex", client=client)
                    except UndefinedPerformance:
                        pass
        outs = client.gather(fut)
        for p in range(P):
            self._progress("held-out predictions", p, P)
        # every measure of a query model per query, by the library's one rule
        use_q = self._kind == "query"
        preds = []
        for k, f in enumerate(folds):
            Pf = np.vstack([outs[p][0] for p in f])
            Yf = np.vstack([outs[p][1] for p in f])
            pcols = Yf.shape[1]
            Pf = Pf.reshape(Pf.shape[0], len(grid), pcols)
            preds.append(Pf)
            qf = np.concatenate([np.asarray(outs[p][2]).ravel() for p in f]) if use_q \
                else None
            for i in range(len(grid)):
                if default and self._kind != "rls" and self.n_labels == 1:
                    continue                # computed on the workers above
                Yi, Pi = (Yf[:, 0], Pf[:, i, 0]) if pcols == 1 else (Yf, Pf[:, i, :])
                try:
                    perfs[i, k] = query_score(measure, Yi, Pi, qf) if use_q else \
                        measure(Yi, Pi)
                except UndefinedPerformance:
                    pass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # all-NaN rows
            fold_mean = np.nanmean(perfs, axis=1)
        # the choice (and the edge-of-grid warning) of the one grid search in core
        by_value = {float(lam): fold_mean[i] for i, lam in enumerate(grid)}
        table = SimpleNamespace(rls=None, measure=measure,
                                cv=lambda lam: (by_value[float(lam)], None))
        try:
            mean, _, best = grid_search(table, grid)
        except ValueError:
            raise ValueError("the cross-validation measure is undefined on every "
                             "fold") from None
        self.solve(best)
        cv_predictions = [[Pf[:, i, 0] if Pf.shape[2] == 1 else Pf[:, i, :]
                           for Pf in preds] for i in range(len(grid))]
        return dict(regparams=np.asarray(grid), fold_performances=perfs,
                    cv_performances=mean, best_regparam=best, folds=folds,
                    cv_predictions=cv_predictions, predictions=preds)


_DOC_PARAMS = """
    Parameters
    ----------
    X : dask.array.Array (m, d) (row chunks = partitions{qnote}), or a
        :class:`PartitionedData` (then Y{qarg} are None)
    Y : labels (m,) or (m, p) (dask array or array-like){qdoc}
    regparam : float >= 0, default 1.0
    kernel : "LinearKernel" (default), "GaussianKernel" or "PolynomialKernel"
    basis_vectors : (b, d) basis rows (kept in every fold of :meth:`kfold`), or None
        to draw ``n_basis`` rows of the data at random (``random_state``)
    n_basis : int, required unless ``basis_vectors`` is given
        These are reduced-set (Nystrom) models whatever the kernel, so the basis is
        never implicit: the former default (100 rows drawn anew at each call) trained,
        under the words that mean the full kernel in :class:`rlscore.learner.RLS`, a
        different random approximation each time (Gaussian kernel, 2e5 rows: test
        RMSE 0.89 and 0.91 for two calls, 0.31 with 500 rows). Give the size the
        problem needs; the exact linear models on a cluster are :class:`CGRLS` and
        :class:`CGRankRLS`.
    random_state : int, numpy Generator or None, default None
        The basis draw, with the name, default and draw of every face: the same rows
        as ``rlscore.learner.RLS(X, Y, n_basis=n_basis, random_state=random_state)``
        on the same data (an int for a reproducible draw).
    keep_basis_in_cv : bool, default False
        :meth:`kfold` removes the basis rows of the held-out partitions from each
        fold's model (drawn basis only), the rule and keyword of
        :class:`rlscore.learner.KfoldRLS` and :class:`rlscore.learner.StreamedRLS`;
        True keeps them.
    path : bool, eigendecompose the r x r matrix at once (a regularization path follows)
    client, persist : see :class:`PartitionedData`
    callback : ``callback(info)`` after each partition of a pass (info: stage,
        partition, n_partitions); verbose : show the passes (one step per partition),
        the factorization and the regparam grid on stderr (:mod:`rlscore._progress`;
        logged either way)
    **kernel_params : bias, gamma, coef0, degree

    Attributes
    ----------
    predictor, W (r, p) weights of the Nystrom features, basis_vectors, nmap
    (the feature map), regparam

    Notes
    -----
    One pass over the data, O(m_p (b d + r^2)) per partition; O(P r^2) transfer
    (streamed: the client holds one r x r sum); O(r^3) on the client.
"""


class RLS(_ReducedSetModel):
    __doc__ = ("""Reduced-set (Nystrom) RLS trained on a Dask cluster; trains in the
    constructor. Equals :class:`rlscore.learner.RLS` with the same ``basis_vectors``.
""" + _DOC_PARAMS.format(qnote="", qarg="", qdoc=""))

    _kind = "rls"

    def __init__(self, X, Y=None, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 n_basis=None, random_state=None, path=False, client=None, persist=False,
                 callback=None, verbose=False, keep_basis_in_cv=False, **kernel_params):
        self._train(as_partitioned(X, Y, None, client, persist), regparam, kernel, path,
                    callback, verbose, kernel_params, basis_vectors=basis_vectors,
                    n_basis=n_basis, random_state=random_state,
                    keep_basis_in_cv=keep_basis_in_cv)


class QueryRankRLS(_ReducedSetModel):
    __doc__ = ("""Reduced-set (Nystrom) query-structured RankRLS on a Dask cluster;
    trains in the constructor. Equals :class:`rlscore.learner.QueryRankRLS` with the
    same ``basis_vectors``.
""" + _DOC_PARAMS.format(qnote=" of whole queries", qarg=" and qids",
                         qdoc="\n    qids : query ids (m,)"))

    _kind = "query"

    def __init__(self, X, Y=None, qids=None, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, n_basis=None, random_state=None, path=False,
                 client=None, persist=False, callback=None, verbose=False,
                 keep_basis_in_cv=False, **kernel_params):
        self._train(as_partitioned(X, Y, qids, client, persist), regparam, kernel, path,
                    callback, verbose, kernel_params, basis_vectors=basis_vectors,
                    n_basis=n_basis, random_state=random_state,
                    keep_basis_in_cv=keep_basis_in_cv)


class GlobalRankRLS(RLS):
    __doc__ = ("""Reduced-set (Nystrom) global RankRLS on a Dask cluster; trains in
    the constructor. Equals :class:`rlscore.learner.GlobalRankRLS` with the same
    ``basis_vectors`` (the global centering couples all partitions; see the module
    docstring).
""" + _DOC_PARAMS.format(qnote="", qarg="", qdoc=""))

    _kind = "global"
