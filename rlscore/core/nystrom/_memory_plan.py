"""Where a reduced-set RLS fit runs -- in memory, streamed in blocks of rows, or by
preconditioned CG -- decided once from the memory budget, reported once, and refused
before any work when nothing fits: the one decision every face (the RLScore learners,
the estimators, the command line) takes through :func:`plan_reduced_set`."""

from types import SimpleNamespace

import numpy as np

from rlscore._blocks import (block_threads, cache_block_rows, get_working_memory,
                             working_memory)
from rlscore._memory import reduced_set_peak_bytes, resident_memory
from rlscore._progress import stage
from rlscore._validation import available_memory, format_bytes
from rlscore.core.nystrom._plan import (MEMORY_BUDGET_DEFAULT, NO_CV, PCG_TOL, SOLVERS,
                                        ComputePlan, PlanError)
from rlscore.kernel import block_size_for

__all__ = ["plan_reduced_set", "MEMORY_BUDGET_DEFAULT", "SOLVERS", "STREAMABLE_KERNELS",
           "block_working_memory", "process_bytes", "PCG_TOL", "budget_bytes"]

#: Kernels whose reduced-set model can be streamed (array input).
STREAMABLE_KERNELS = ("GaussianKernel", "PolynomialKernel", "LinearKernel")


def process_bytes():
    """Bytes the process holds now (:func:`rlscore._memory.resident_memory`; 0 when the
    platform does not tell): the part of every budget that is spent before a run
    starts. O(1)."""
    return float(resident_memory() or 0)


def budget_bytes(plan):
    """The memory budget of ``plan`` (a :class:`rlscore.core.nystrom.ComputePlan`) in
    bytes: the bound on the peak resident set of the whole process -- inf for None;
    for "auto" what the process holds now plus half the available memory (inf when
    the platform does not tell). O(1)."""
    if plan.memory_budget is None:
        return np.inf
    if isinstance(plan.memory_budget, str):
        avail = available_memory()
        return np.inf if avail is None else process_bytes() + avail / 2
    return plan.memory_budget * 2**20


def block_working_memory(limit):
    """MiB of temporaries per block under a whole-process budget of ``limit`` bytes
    (:func:`budget_bytes`): the working memory of :mod:`rlscore._blocks`,
    at most a quarter of what the budget leaves beside the memory the process already
    holds (at least 1 MiB; the plan's estimate, which counts the block, then decides
    whether the run fits). O(1)."""
    wm = get_working_memory()
    if np.isfinite(limit):
        wm = min(wm, max((limit - process_bytes()) / 4 / 2**20, 1.0))
    return wm


def _rows_within(estimate, rows, limit):
    """The largest block of at most ``rows`` rows whose run ``estimate(rows)`` (bytes,
    affine in the rows) fits ``limit``; ``rows`` when it fits or nothing does (at
    least one row). O(1)."""
    if not np.isfinite(limit) or estimate(rows) <= limit:
        return rows
    base, per_row = estimate(0), estimate(1) - estimate(0)
    return int(min(rows, max(1, (limit - base) // per_row))) if per_row > 0 else rows


def _ways_out(limit, solver, cv, block_size, streamed, pcg):
    """The ways out of a refused plan, only those that can work: a smaller block size
    when the user gave one and blocks of fewer rows fit the budget (with one-row blocks
    above it, no block size helps), PCG when its run fits (one regparam, no
    cross-validation), then fewer basis vectors or a larger budget. ``streamed`` and
    ``pcg`` are (estimate(rows), rows) of the two streamed paths. The options are
    named by :class:`PlanError` fields (``{block_size}``...)."""
    paths = {"direct": [streamed], "pcg": [pcg],
             "auto": [streamed] + ([pcg] if cv is None else [])}[solver]
    ways = []
    if block_size is not None:
        fits = [_rows_within(est, rows, limit) for est, rows in paths
                if est(1) <= limit]
        if fits:
            ways.append(f"a smaller {{block_size}} (blocks of {max(fits)} rows fit)")
    if solver != "pcg" and pcg[0](1) <= limit:
        ways.append("{use_pcg} (one regparam, no cross-validation)")
    ways.append("fewer basis vectors ({n_basis})")
    ways.append("or {more_memory}")
    return ways


def plan_reduced_set(work, plan=None, cv=None, verbose=None):
    """Decide the path of a reduced-set fit and say so once.

    Parameters
    ----------
    work : :class:`rlscore.core.nystrom.Workload`
        The sizes (m rows, b basis vectors, d features, p outputs), the model's kind,
        whether it can stream (``streamable``) or must (``stream``: the data are read
        in passes; only the streamed paths are considered) and a pass's
        ``pass_bytes`` (a file's parser buffers, added to the streamed and PCG
        estimates).
    plan : :class:`rlscore.core.nystrom.ComputePlan` (default: ``ComputePlan()``)
        Its ``memory_budget`` bounds the peak resident set of the whole process, in
        every face (the learners, the estimators, ``StreamedRLS``, ``rlscore fit
        --memory-budget``). The estimate that must fit it is what the process holds
        when the plan is made (:func:`process_bytes`: the interpreter, the imported
        modules, the data already loaded) plus the peak of the chosen path's arrays
        (:mod:`rlscore._memory`: every array of the fit, the blocks included) plus
        ``work.pass_bytes``. Its ``solver`` limits the paths, its ``block_size``
        fixes the rows per block when streaming (default: from the budget: the
        working memory of :mod:`rlscore._blocks`, at most a quarter of the budget,
        and fewer rows when the run's estimate would exceed the budget).
    cv : :class:`rlscore.core.nystrom.CVIntent` or None (one fit)
        The cross-validation that will follow: "loo" or "kfold" stream; another kind
        keeps the model in memory.
    verbose : of :func:`rlscore._progress.stage` (the report)

    Returns
    -------
    SimpleNamespace (the route) with ``path`` ("memory", "streamed" or "pcg"),
    ``peak_bytes`` (the estimated peak resident set of the process on that path:
    ``baseline_bytes`` plus :func:`rlscore._memory.reduced_set_peak_bytes` plus
    ``pass_bytes`` when streamed), ``baseline_bytes`` (what the process held when
    planned), ``memory_bytes`` (of the in-memory path, baseline included),
    ``budget_bytes``, ``block_size`` and ``working_memory`` (MiB for the streamed
    blocks, or None), ``pcg_cache`` (PCG keeps the m x b kernel blocks: they fit the
    budget).

    Raises
    ------
    PlanError (a ValueError)
        Naming ``{memory_budget}`` and the ways out (a smaller ``{block_size}``,
        ``{use_pcg}``, fewer basis vectors, ``{more_memory}``; a face rewords them)
        when no allowed path fits; naming what the process already holds when that
        alone exceeds the budget; before any work is done.

    Notes
    -----
    O(1).
    """
    plan = ComputePlan() if plan is None else plan
    cv = NO_CV if cv is None else cv
    m, n_basis, d, p = work.m, work.n_basis, work.d, work.p
    solver, block_size, stream = plan.solver, plan.block_size, work.stream
    pass_bytes, n_lambdas = work.pass_bytes, cv.n_values
    limit = budget_bytes(plan)
    base = process_bytes()
    budget = f"{{memory_budget}}={limit / 2**20:.6g} MiB"
    if base >= limit:
        raise PlanError(
            f"{budget} is too small for this process: it already holds "
            f"{format_bytes(base)} resident (the interpreter, the imported modules and "
            f"the data in memory) before the fit allocates anything. The budget bounds "
            f"the peak resident set of the whole process; give "
            f"{{more_memory}} (None for no limit)")
    mem_path = "memory" if cv.kind is None else "memory_cv"
    sizes = work.sizes
    mem = base + reduced_set_peak_bytes(mem_path, sizes, n_lambdas=n_lambdas)
    route = SimpleNamespace(path="memory", peak_bytes=mem, memory_bytes=mem,
                           baseline_bytes=base, budget_bytes=limit, block_size=None,
                           working_memory=None, pcg_cache=False)
    can_stream = work.streamable and cv.kind in (None, "loo", "kfold")
    if solver == "pcg" and not can_stream:
        raise PlanError(f"solver='pcg' needs a reduced-set model of the kernels "
                         f"{STREAMABLE_KERNELS} on array input and no cross-validation "
                         f"other than none")
    if solver != "pcg" and not stream and (mem <= limit or not can_stream):
        return route
    wm = block_working_memory(limit)
    L = max(int(n_lambdas), 1) if cv.kind is not None else 1
    extra = 8 * (2 * n_basis + 2 * L * p + 2 * p)
    with working_memory(wm):
        rows = block_size_for(m, n_basis, d, extra, block_size,
                              what="a block of Nystrom features")
    route.working_memory = wm
    spath = "streamed_fit" if cv.kind is None else "streamed"
    K = cv.n_fold_statistics if cv.kind == "kfold" else 0

    def streamed_at(b):
        return base + pass_bytes + reduced_set_peak_bytes(spath, sizes, b, L, K)

    # PCG keeps the kernel blocks between iterations when they fit: within the budget,
    # or (no budget) in a quarter of the available memory, as StreamedGramOperator's
    # cache="auto" decides
    threads = block_threads()

    def pcg_rows(b, cache=False):
        # StreamedGramOperator cuts recomputed blocks to the cache size, one a thread
        return b if cache else min(b, cache_block_rows(8 * n_basis, m))
    pcg_plain = reduced_set_peak_bytes("pcg", sizes, pcg_rows(rows), threads=threads)
    cache_limit = limit - base - pass_bytes if np.isfinite(limit) else \
        (available_memory() or 0) / 4 + pcg_plain
    route.pcg_cache = reduced_set_peak_bytes("pcg", sizes, rows,
                                             cache=True) <= cache_limit
    # PCG's selection (rlscore.core.nystrom.pcg_select) keeps the held-out predictions
    held_out = 8.0 * m * p * max(int(n_lambdas), 1) if cv.kind is not None else 0.0

    def pcg_at(b):
        return base + pass_bytes + held_out + reduced_set_peak_bytes(
            "pcg", sizes, pcg_rows(b, route.pcg_cache), cache=route.pcg_cache,
            threads=threads)

    # the blocks are sized from the whole budget: the rows of the working memory, or
    # fewer when the run's estimate (linear in the rows) would exceed the budget
    rows_streamed, rows_pcg = rows, rows
    if block_size is None:
        rows_streamed = _rows_within(streamed_at, rows, limit)
        rows_pcg = _rows_within(pcg_at, rows, limit)
    streamed, pcg = streamed_at(rows_streamed), pcg_at(rows_pcg)
    route.block_size = rows_pcg if solver == "pcg" else rows_streamed
    if solver == "pcg" and pcg <= limit:
        route.path, route.peak_bytes = "pcg", pcg
    elif solver != "pcg" and streamed <= limit:
        route.path, route.peak_bytes = "streamed", streamed
    elif solver == "auto" and cv.kind is None and pcg <= limit:
        route.path, route.peak_bytes, route.block_size = "pcg", pcg, rows_pcg
    else:
        statistics = streamed_at(1)
        raise PlanError(
            f"{budget} is too small for this reduced-set model (m={m}, {n_basis} basis "
            f"vectors, {p} output(s)); the budget bounds the peak resident set of the "
            f"whole process, which already holds {format_bytes(base)}: "
            f"in memory it needs about {format_bytes(mem)}, "
            f"streamed in blocks of {rows_streamed} rows about {format_bytes(streamed)} "
            f"(at least {format_bytes(statistics)} with blocks of one row), by "
            f"preconditioned CG "
            f"about {format_bytes(pcg)}. Ways out: "
            + ", ".join(_ways_out(limit, solver, cv.kind, block_size,
                                  (streamed_at, rows_streamed), (pcg_at, rows_pcg))))
    what = "by preconditioned CG (solver='pcg')" if route.path == "pcg" else \
        "in blocks of rows"
    reason = "solver='pcg'" if solver == "pcg" else "the data are read in passes" \
        if stream else (f"the in-memory features would bring the process to "
                        f"{format_bytes(mem)}, above the memory budget of "
                        f"{format_bytes(limit)}")
    with stage(f"streaming {what}: {reason}; blocks of {route.block_size} rows, "
               f"estimated peak {format_bytes(route.peak_bytes)} of the process "
               f"({format_bytes(base)} held before the run)", verbose):
        pass
    return route
