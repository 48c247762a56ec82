"""The built-in learners and kernels of the command (registrations at the end).

Each training function has the signature ``(data, regparam, kernel, kernel_params,
basis)`` (``basis``: a :class:`rlscore.cli._base.Basis` or None) and returns a trained
model: for RLS and RankRLS the core model the learners adapt
(:func:`rlscore.core.nystrom.fit_rls_model`, :func:`rlscore.core.rankrls.fit_rank_model`).
Each selection function ``(data, grid, kernel, kernel_params, basis, measure, args)``
returns a cross-validator of :mod:`rlscore.core.selection` over such a model, which the
command runs through :func:`rlscore.core.selection.grid_search`. RankSVM trains a
:class:`rlscore.core.ranksvm.RankSVMModel`; its K-fold of examples is
:func:`rlscore.core.ranksvm.ranksvm_kfold_cv`.
"""

import functools

import numpy as np

from rlscore.core.nystrom import CVIntent
from rlscore.cli._base import (KernelSpec, LearnerSpec, UsageError, basis_keywords,
                               basis_vectors, register_kernel, register_learner)


def _plain_measure(measure):
    """The library's measure function when it has a faster path than the spec."""
    from rlscore import measure as M
    if measure.kind == "cindex":
        return M.cindex
    return measure


def _kfold(data, args):
    from rlscore.cli._select import example_folds
    return example_folds(data.X.shape[0], args.folds, args.seed)


def _query_groups(data):
    """The file's QueryGroups when the command built them (encoded once, not again by
    every layer below), else its qids (a refit's rows)."""
    groups = getattr(data, "groups", None)
    return data.qids if groups is None else groups


# The models are the core's (rlscore.core.nystrom.fit_rls_model,
# rlscore.core.rankrls.fit_rank_model: the calls the learners make), the
# cross-validators core.selection's; the command runs them through the one grid search.
# ``cv`` (a rlscore.core.nystrom.CVIntent) says which cross-validation follows, for the
# memory plan, as each learner's selection wrapper says it.


def _rls_model(data, regparam, kernel, kp, basis, path=False, cv=None):
    from rlscore.core.nystrom import fit_rls_model
    return fit_rls_model(data.X, data.y, regparam, kernel, path=path, cv=cv,
                         **basis_keywords(basis), **kp)


def _rank_model(data, regparam, kernel, kp, basis, path=False, cv=None, query=False):
    from rlscore.core.rankrls import fit_rank_model, query_groups
    if "bias" in kp:
        kp = {**kp, "bias": 0.0}            # RankRLS has no bias (the learners' rule)
    groups = query_groups(_query_groups(data), data.X.shape[0]) if query else None
    return fit_rank_model(data.X, data.y, groups, regparam, kernel, path, cv=cv,
                          **basis_keywords(basis), **kp)


def _rls_train(data, regparam, kernel, kp, basis):
    return _rls_model(data, regparam, kernel, kp, basis)


def _rls_loo(data, grid, kernel, kp, basis, measure, args):
    from rlscore.core.selection import LOOCV
    model = _rls_model(data, grid.checked[0], kernel, kp, basis, True,
                       CVIntent("loo", len(grid)))
    return LOOCV(model, _plain_measure(measure))


def _kfold_cv(fit_model, data, grid, kernel, kp, basis, measure, args):
    """K-fold of examples (a file without qids) on the model ``fit_model`` builds,
    decomposed for the path and planned for the folds' hold-outs."""
    from rlscore.core.selection import NfoldCV
    folds = _kfold(data, args)
    model = fit_model(data, grid.checked[0], kernel, kp, basis, True,
                      CVIntent.kfold(len(grid), len(folds)))
    return NfoldCV(model, _plain_measure(measure), folds, disjoint=True)


_rls_kfold = functools.partial(_kfold_cv, _rls_model)


def _rls_lpo(data, grid, kernel, kp, basis, measure, args):
    from rlscore.core.selection import LPOCV
    model = _rls_model(data, grid.checked[0], kernel, kp, basis, True,
                       CVIntent("lpo"))
    return LPOCV(model)


def _grank_train(data, regparam, kernel, kp, basis):
    return _rank_model(data, regparam, kernel, kp, basis)


_grank_kfold = functools.partial(_kfold_cv, _rank_model)


def _grank_lpo(data, grid, kernel, kp, basis, measure, args):
    from rlscore.core.rankrls import RankLPOCV
    model = _rank_model(data, grid.checked[0], kernel, kp, basis, True,
                        CVIntent("rank"))
    return RankLPOCV(model)


def _qrank_train(data, regparam, kernel, kp, basis):
    return _rank_model(data, regparam, kernel, kp, basis, query=True)


def _qrank_lqo(data, grid, kernel, kp, basis, measure, args):
    from rlscore.core.selection import LQOCV
    model = _rank_model(data, grid.checked[0], kernel, kp, basis, True,
                        CVIntent("lqo", len(grid)), query=True)
    return LQOCV(model, _plain_measure(measure))


def _ranksvm_train(data, regparam, kernel, kp, basis, loss="hinge", tol=None):
    from rlscore.core.ranksvm import RankSVMModel, RankSVMOptions
    options = RankSVMOptions(loss=loss, rtol=tol)
    return RankSVMModel.fit(data.X, data.y, data.qids, regparam, kernel,
                            basis_vectors(basis), options=options, **kp)


def _ranksvm_tol(tol, loss="hinge"):
    """The tolerance the RankSVM solver of ``loss`` runs with (``--tol`` or its
    default, :data:`rlscore.core.ranksvm.DEFAULT_RTOL`)."""
    from rlscore.core.ranksvm import check_loss_solver, ranksvm_tol
    return ranksvm_tol(tol, check_loss_solver(loss)[1], "--tol")


def _ranksvm_kfold(loss):
    """The K-fold cross-validation of RankSVM with ``loss`` on a file without qids
    (:func:`rlscore.core.ranksvm.ranksvm_kfold_cv`: a cold start per fold and regparam;
    files with qids go through the query-wise CV of the command)."""
    def kfold(data, grid, kernel, kp, basis, measure, args, tol=None):
        from rlscore.core.ranksvm import RankSVMOptions, ranksvm_kfold_cv
        if kernel != "LinearKernel":
            raise UsageError("K-fold cross-validation of ranksvm on a file without qid: "
                             "supports --kernel linear only")
        return ranksvm_kfold_cv(data.X, data.y, None, folds=_kfold(data, args),
                                measure=_plain_measure(measure),
                                options=RankSVMOptions(loss=loss, rtol=tol))
    return kfold


def _ranksvm_lambda_max(data, kernel, kp, basis, loss="hinge"):
    """lambda_max of the RankSVM risk (on the empirical kernel map for kernels)."""
    from rlscore.core.ranksvm import ranksvm_lambda_max
    X = data.X
    if kernel != "LinearKernel":
        from rlscore.core.ranksvm import empirical_kernel_map
        X, _ = empirical_kernel_map(data.X, kernel, basis_vectors(basis), **kp)
    return ranksvm_lambda_max(X, data.y, data.qids, loss=loss)


register_kernel(KernelSpec("linear", "LinearKernel", ("bias",)))
register_kernel(KernelSpec("gaussian", "GaussianKernel", ("gamma",)))
register_kernel(KernelSpec("polynomial", "PolynomialKernel", ("gamma", "degree", "coef0")))

register_learner(LearnerSpec(
    "rls", "regularized least squares (regression, classification with +-1 labels)",
    _rls_train, {"loo": _rls_loo, "kfold": _rls_kfold, "lpo": _rls_lpo},
    holdout=True, solve=True, default_cv="loo",
    default_measure={"loo": "sqerror", "kfold": "sqerror", "lqo": "sqerror",
                     "lpo": "auc", "valid": "sqerror"}))
register_learner(LearnerSpec(
    "rankrls", "RankRLS over all pairs of the file (qids ignored in training)",
    _grank_train, {"kfold": _grank_kfold, "lpo": _grank_lpo},
    holdout=True, solve=True, default_cv="kfold",
    default_measure={"kfold": "cindex", "lpo": "cindex", "lqo": "cindex",
                     "valid": "cindex"}))
register_learner(LearnerSpec(
    "query-rankrls", "RankRLS within queries (needs qid:)",
    _qrank_train, {"lqo": _qrank_lqo}, holdout=True, solve=True, needs_qids=True,
    default_cv="lqo",
    default_measure={"lqo": "cindex", "kfold": "cindex", "valid": "cindex"}))
register_learner(LearnerSpec(
    "ranksvm", "RankSVM, hinge loss on the pairs of each query (or all pairs without "
    "qid:)", _ranksvm_train, {"kfold": _ranksvm_kfold("hinge")}, default_cv="kfold",
    default_measure={"kfold": "cindex", "lqo": "cindex", "valid": "cindex"},
    lambda_max=_ranksvm_lambda_max, tol=_ranksvm_tol))
register_learner(LearnerSpec(
    "ranksvm-squared", "RankSVM with the squared pairwise hinge, trust-region Newton "
    "solver (fast on large global rankings)",
    functools.partial(_ranksvm_train, loss="squared_hinge"),
    {"kfold": _ranksvm_kfold("squared_hinge")},
    default_cv="kfold",
    default_measure={"kfold": "cindex", "lqo": "cindex", "valid": "cindex"},
    lambda_max=functools.partial(_ranksvm_lambda_max, loss="squared_hinge"),
    tol=functools.partial(_ranksvm_tol, loss="squared_hinge")))


def is_zero_model(predictor):
    """True when every weight / dual coefficient of the predictor is exactly 0."""
    for name in ("W", "A"):
        v = getattr(predictor, name, None)
        if v is not None:
            v = v.toarray() if hasattr(v, "toarray") else np.asarray(v)
            b = np.asarray(getattr(predictor, "b", 0.0))
            return bool(np.all(v == 0) and np.all(b == 0))
    return False
