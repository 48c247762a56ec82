"""The regularization of PCG reduced-set models chosen on a validation split or by
K-fold, the lambda grid solved from large to small with warm starts (each solution
the starting point of the next, smaller lambda), the choice by
:func:`rlscore.core.selection.grid_search` (with its EdgeOfGridWarning).

The training rows of a fold are a boolean mask of the operator
(:class:`rlscore.core.nystrom.StreamedGramOperator`, or the centred operators of
:mod:`rlscore.core.rankrls`, through ``make_operator``); the basis vectors are kept
(the held-out rows may include basis vectors: this is the validation of the fixed-basis
model, not the basis-removing cross-validation of the direct streamed path). The
kernel blocks cached by the first fold's operator are shared by the others.
"""

from types import SimpleNamespace

import numpy as np

from rlscore._validation import check_regparam
from rlscore.core.nystrom._pcg import StreamedGramOperator, run_pcg
from rlscore.core.nystrom._plan import StreamedSelection
from rlscore.core.nystrom._streamed import fold_numbers
from rlscore.core.selection import grid_search

__all__ = ["PCGSelection", "pcg_select", "validation_folds"]


class PCGSelection:
    """The result of :func:`pcg_select`: ``regparam`` (chosen), ``regparams`` (the
    grid as given), ``performances`` (L,), ``iterations`` (n_evaluated_folds, L) CG
    iterations, ``fold_of`` (m,) and ``evaluated`` (the folds held out),
    ``predictions`` (m, L, p) held-out predictions (NaN on rows never held out),
    ``W`` (k, p) trained on every row at the chosen lambda, ``solver_result`` and
    ``operator`` of that fit, ``predictor``."""


def validation_folds(source, kind, validation=None, cv=None, random_state=None):
    """(fold_of (m,), evaluated folds): a validation split (a fraction of the rows,
    of whole queries for "query") as fold 0 of two, or K-fold (``cv`` an int or fold
    numbers, :func:`rlscore.core.nystrom.fold_numbers`). O(m)."""
    if (validation is None) == (cv is None):
        raise ValueError("give validation (a fraction) or cv (folds), not both or neither")
    if cv is not None:
        fold_of = fold_numbers(cv, source, kind, random_state)
        return fold_of, list(range(int(fold_of.max()) + 1))
    v = float(validation)
    if not 0.0 < v < 1.0:
        raise ValueError(f"validation must be a fraction in (0, 1), got {validation!r}")
    rng = np.random.default_rng(random_state)
    if kind == "query":
        _, run = np.unique(source.qids, return_inverse=True)
        n = int(run.max()) + 1
        held = rng.permutation(n)[:max(1, int(round(v * n)))]
        if held.size >= n:
            raise ValueError("the validation split holds every query")
        fold_of = (~np.isin(run, held)).astype(np.intp)
    else:
        held = rng.permutation(source.m)[:max(1, int(round(v * source.m)))]
        if held.size >= source.m:
            raise ValueError("the validation split holds every row")
        fold_of = np.ones(source.m, dtype=np.intp)
        fold_of[held] = 0
    return fold_of, [0]


def pcg_select(source, fmap, regparams, *, make_operator=None, kind="rls",
               select=None, pcg=None, refit=True, **operator_options):
    """Choose lambda for a PCG reduced-set model on a validation split or K-fold, with
    warm starts along the decreasing grid.

    Parameters
    ----------
    source : data source (:func:`rlscore.core.structure.as_source`)
    fmap : :class:`rlscore.core.nystrom.NystromFactors` (or ``NystromFeatureMap``)
    regparams : the lambda grid (any order; solved from the largest down)
    make_operator : callable ``rows -> operator`` (rows a boolean mask of the training
        rows, or None for all); default :class:`rlscore.core.nystrom.StreamedGramOperator`
        on ``source`` and ``fmap`` (RLS). :func:`rlscore.core.rankrls.pcg_select_rankrls`
        gives the centred ones.
    kind : "rls", "query" (the split and folds hold whole queries) or "global"
    select : :class:`rlscore.core.nystrom.StreamedSelection`: ``validation`` (the
        fraction of the rows, whole queries for "query", held out once) or ``cv`` (K
        folds of rows, of whole queries for "query", or (m,) fold numbers), not both;
        ``measure`` (f(Y, P) with ``iserror``; default sqerror), ``random_state``
    pcg : :class:`rlscore.core.nystrom.PCGOptions` of every CG run (default: PCG's
        defaults)
    refit : train on every row at the chosen lambda (warm-started from the chosen
        fold solution)
    operator_options : block_size, cache, dtype of the default operator

    Returns
    -------
    PCGSelection

    Notes
    -----
    Per evaluated fold: the right-hand side pass, then for each lambda the
    preconditioner, O(2 k^3 / 3), and t CG iterations of one streamed product each;
    one more pass predicts the held-out rows for every lambda, O(m r (d + L p)).
    Memory: one set of factors (8 r^2 bytes), L weight matrices (k, p), the m x L x p
    held-out predictions, the kernel cache when enabled.
    """
    select = StreamedSelection() if select is None else select
    measure = select.measure
    from rlscore.core.structure import as_source
    source = as_source(source)
    grid = [check_regparam(lam, name="regparams") for lam in regparams]
    if not grid:
        raise ValueError("regparams is empty")
    if make_operator is None:
        def make_operator(rows):
            return StreamedGramOperator(source, fmap, rows=rows, **operator_options)
    if measure is None:
        from rlscore.measure import sqerror as measure
    fold_of, evaluated = validation_folds(source, kind, select.validation, select.cv,
                                          select.random_state)
    Y = source.Y
    order = np.argsort(grid, kind="stable")[::-1]            # largest lambda first
    P = np.full((source.m, len(grid), Y.shape[1]), np.nan)
    iterations = np.zeros((len(evaluated), len(grid)), dtype=int)
    fold_W = {}
    cache = None
    for f, j in enumerate(evaluated):
        held = fold_of == j
        op = make_operator(~held)
        if cache is not None:
            op._cache = cache
        W, Ws = None, [None] * len(grid)
        for i in order:
            res = run_pcg(op, grid[i], pcg, x0=W)
            W = Ws[i] = res.solution
            iterations[f, i] = res.iterations
        if op._cache is not None:
            cache = op._cache
        P[held] = op.predict_rows(Ws, held)
        fold_W[j] = Ws
    rows = np.isin(fold_of, evaluated)
    perfs = {}
    for i, lam in enumerate(grid):
        Yr, Pr = Y[rows], P[rows, i, :]
        perfs.setdefault(lam, measure(Yr[:, 0], Pr[:, 0]) if Y.shape[1] == 1
                         else measure(Yr, Pr))
    table = SimpleNamespace(rls=None, measure=measure, cv=lambda lam: (perfs[lam], None))
    mean, _, chosen = grid_search(table, grid)
    best = grid.index(chosen)
    out = PCGSelection()
    out.regparams, out.performances = np.asarray(grid), np.asarray(mean)
    out.regparam, out.iterations = float(chosen), iterations
    out.fold_of, out.evaluated, out.predictions = fold_of, evaluated, P
    out.W = out.solver_result = out.operator = out.predictor = None
    if refit:
        op = make_operator(None)
        if cache is not None:
            op._cache = cache
        res = run_pcg(op, out.regparam, pcg, x0=fold_W[evaluated[0]][best])
        out.W, out.solver_result, out.operator = res.solution, res, op
        out.predictor = op.factors.predictor(res.solution)
    return out
