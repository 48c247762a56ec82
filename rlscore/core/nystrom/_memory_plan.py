"""Where a reduced-set RLS fit runs -- in memory, streamed in blocks of rows, or by
preconditioned CG -- decided once from the memory budget, reported once, and refused
before any work when nothing fits: the one decision every face (the RLScore learners,
the estimators, the command line) takes through :func:`plan_reduced_set`."""

import numbers
from types import SimpleNamespace

import numpy as np

from rlscore._blocks import (block_threads, cache_block_rows, get_working_memory,
                             working_memory)
from rlscore._memory import reduced_set_peak_bytes, resident_memory
from rlscore._progress import stage
from rlscore._validation import (available_memory, check_positive_int, check_real,
                                 check_tol, format_bytes)
from rlscore.kernel import block_size_for

__all__ = ["plan_reduced_set", "MEMORY_BUDGET_DEFAULT", "SOLVERS", "STREAMABLE_KERNELS",
           "check_memory_options", "block_working_memory", "process_bytes", "PCG_TOL",
           "PCG_NAMES", "check_pcg_options"]

#: The default ``memory_budget`` of the faces: what the process holds plus half the
#: memory available at fit time.
MEMORY_BUDGET_DEFAULT = "auto"
#: The ``solver`` values: "auto" (direct, in memory or streamed; PCG when only PCG fits
#: and no cross-validation is asked), "direct", "pcg".
SOLVERS = ("auto", "direct", "pcg")
#: PCG's default stopping tolerance (relative residual) in every face.
PCG_TOL = 1e-6
#: The names of PCG's two keywords in the RLScore learners and the core (the
#: estimators, after scikit-learn's ``max_iter``: ``("pcg_tol", "pcg_max_iter")``).
PCG_NAMES = ("pcg_tol", "pcg_maxiter")
#: Kernels whose reduced-set model can be streamed (array input).
STREAMABLE_KERNELS = ("GaussianKernel", "PolynomialKernel", "LinearKernel")


def check_memory_options(memory_budget, solver, block_size):
    """Check the three keywords of the faces (ValueError / TypeError naming them);
    returns the budget in bytes: the bound on the peak resident set of the whole
    process (inf for None; for "auto" what the process holds now plus half the
    available memory). O(1)."""
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if block_size is not None and (isinstance(block_size, bool) or not isinstance(
            block_size, numbers.Integral) or block_size < 1):
        raise ValueError(f"block_size must be a positive int or None, got {block_size!r}")
    if memory_budget is None:
        return np.inf
    if isinstance(memory_budget, str):
        if memory_budget != "auto":
            raise ValueError(f"memory_budget must be 'auto', a number of MiB > 0 or None, "
                             f"got {memory_budget!r}")
        avail = available_memory()
        return np.inf if avail is None else process_bytes() + avail / 2
    return check_real(memory_budget, "memory_budget", minimum=0,
                      open_minimum=True) * 2**20


def check_pcg_options(tol, maxiter, names=PCG_NAMES):
    """``(tol, maxiter)`` of the PCG solver of a face, checked (``names``: the face's
    names of the two keywords): None means the default, :data:`PCG_TOL` and no cap
    on the iterations; else ``tol`` in (0, 1) and ``maxiter`` a positive int. O(1)."""
    return (PCG_TOL if tol is None else check_tol(tol, names[0]),
            check_positive_int(maxiter, names[1], allow_none=True))


def process_bytes():
    """Bytes the process holds now (:func:`rlscore._memory.resident_memory`; 0 when the
    platform does not tell): the part of every budget that is spent before a run
    starts. O(1)."""
    return float(resident_memory() or 0)


def block_working_memory(limit):
    """MiB of temporaries per block under a whole-process budget of ``limit`` bytes
    (from :func:`check_memory_options`): the working memory of :mod:`rlscore._blocks`,
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


def _ways_out(n, limit, solver, cv, block_size, streamed, pcg):
    """The ways out of a refused plan, only those that can work: a smaller block size
    when the user gave one and blocks of fewer rows fit the budget (with one-row blocks
    above it, no block size helps), PCG when its run fits (one regparam, no
    cross-validation), then fewer basis vectors or a larger budget. ``streamed`` and
    ``pcg`` are (estimate(rows), rows) of the two streamed paths."""
    paths = {"direct": [streamed], "pcg": [pcg],
             "auto": [streamed] + ([pcg] if cv is None else [])}[solver]
    ways = []
    if block_size is not None:
        fits = [_rows_within(est, rows, limit) for est, rows in paths
                if est(1) <= limit]
        if fits:
            ways.append(f"a smaller {n['block_size']} (blocks of {max(fits)} rows fit)")
    if solver != "pcg" and pcg[0](1) <= limit:
        ways.append(f"{n['solver']} (one regparam, no cross-validation)")
    ways.append(f"fewer basis vectors ({n['n_basis']})")
    ways.append(f"or {n['more_memory']}")
    return ways


def plan_reduced_set(m, n_basis, d, p=1, *, memory_budget=MEMORY_BUDGET_DEFAULT,
                     solver="auto", block_size=None, cv=None, n_lambdas=1, n_folds=0,
                     kernel="GaussianKernel", streamable=True, stream=False, names=None,
                     verbose=None, kind="rls", pass_bytes=0.0):
    """Decide the path of a reduced-set fit and say so once.

    Parameters
    ----------
    m, n_basis, d, p : rows, basis vectors, input features, outputs
    memory_budget : "auto" (what the process holds plus half the available memory),
        MiB, or None (no limit): the bound on the peak resident set of the whole
        process, in every face (the learners, the estimators, ``StreamedRLS``,
        ``rlscore fit --memory-budget``). The estimate that must fit it is what the
        process holds when the plan is made (:func:`process_bytes`: the
        interpreter, the imported modules, the data already loaded) plus the peak of
        the chosen path's arrays (:mod:`rlscore._memory`: every array of the fit,
        the blocks included) plus ``pass_bytes``
    solver : "auto", "direct" or "pcg" (:data:`SOLVERS`)
    block_size : rows per block when streaming (default: from the budget: the
        working memory of :mod:`rlscore._blocks`, at most a quarter of the budget,
        and fewer rows when the run's estimate would exceed the budget)
    cv : None (one fit), "loo" or "kfold" (the cross-validation that will follow; any
        other value keeps the model in memory)
    n_lambdas, n_folds : the size of that cross-validation
    kernel, streamable : a kernel outside :data:`STREAMABLE_KERNELS`, or
        ``streamable=False`` (structured or precomputed input), never streams
    stream : True: the data are streamed whatever the budget (a file read in passes);
        only the streamed paths are considered
    kind : "rls" (default), "query" or "global": the model (RankRLS's streamed
        statistics centre each block, :data:`rlscore._memory.CENTRING_BLOCKS`)
    names : how the refusal names the options, e.g. ``{"block_size": "--block-size"}``
        (keys ``memory_budget``, ``block_size``, ``solver``, ``n_basis``,
        ``more_memory``)
    pass_bytes : bytes a pass over the data source holds besides the blocks (a
        file's parser buffers, :func:`rlscore._memory.parser_bytes`), added to the
        streamed and PCG estimates

    Returns
    -------
    SimpleNamespace with ``path`` ("memory", "streamed" or "pcg"), ``peak_bytes`` (the
    estimated peak resident set of the process on that path: ``baseline_bytes`` plus
    :func:`rlscore._memory.reduced_set_peak_bytes` plus ``pass_bytes`` when
    streamed), ``baseline_bytes`` (what the process held when planned),
    ``memory_bytes`` (of the in-memory path, baseline included), ``budget_bytes``,
    ``block_size`` and
    ``working_memory`` (MiB for the streamed blocks, or None), ``pcg_cache`` (PCG
    keeps the m x b kernel blocks: they fit the budget).

    Raises
    ------
    ValueError
        Naming ``memory_budget`` and the ways out (a smaller ``block_size``,
        ``solver="pcg"``, fewer basis vectors, a larger budget) when no allowed path
        fits; naming what the process already holds when that alone exceeds the
        budget; before any work is done.

    Notes
    -----
    O(1).
    """
    limit = check_memory_options(memory_budget, solver, block_size)
    base = process_bytes()
    n = {"memory_budget": "memory_budget", "block_size": "block_size",
         "solver": "solver='pcg'", "n_basis": "n_basis / basis_vectors",
         "more_memory": "a larger memory_budget", **(names or {})}
    budget = f"{n['memory_budget']}={limit / 2**20:.6g} MiB"
    if base >= limit:
        raise ValueError(
            f"{budget} is too small for this process: it already holds "
            f"{format_bytes(base)} resident (the interpreter, the imported modules and "
            f"the data in memory) before the fit allocates anything. The budget bounds "
            f"the peak resident set of the whole process; give "
            f"{n['more_memory']} (None for no limit)")
    mem_path = "memory" if cv is None else "memory_cv"
    mem = base + reduced_set_peak_bytes(mem_path, m, n_basis, d, p, n_lambdas=n_lambdas)
    plan = SimpleNamespace(path="memory", peak_bytes=mem, memory_bytes=mem,
                           baseline_bytes=base, budget_bytes=limit, block_size=None,
                           working_memory=None, pcg_cache=False)
    can_stream = streamable and kernel in STREAMABLE_KERNELS and cv in (None, "loo",
                                                                        "kfold")
    if solver == "pcg" and not can_stream:
        raise ValueError(f"solver='pcg' needs a reduced-set model of the kernels "
                         f"{STREAMABLE_KERNELS} on array input and no cross-validation "
                         f"other than none")
    if solver != "pcg" and not stream and (mem <= limit or not can_stream):
        return plan
    wm = block_working_memory(limit)
    L = max(int(n_lambdas), 1) if cv is not None else 1
    extra = 8 * (2 * n_basis + 2 * L * p + 2 * p)
    with working_memory(wm):
        rows = block_size_for(m, n_basis, d, extra, block_size,
                              what="a block of Nystrom features")
    plan.working_memory = wm
    spath = "streamed_fit" if cv is None else "streamed"
    K = n_folds if cv == "kfold" else 0

    def streamed_at(b):
        return base + pass_bytes + reduced_set_peak_bytes(spath, m, n_basis, d, p, b,
                                                          L, K, kind=kind)

    # PCG keeps the kernel blocks between iterations when they fit: within the budget,
    # or (no budget) in a quarter of the available memory, as StreamedGramOperator's
    # cache="auto" decides
    threads = block_threads()

    def pcg_rows(b, cache=False):
        # StreamedGramOperator cuts recomputed blocks to the cache size, one a thread
        return b if cache else min(b, cache_block_rows(8 * n_basis, m))
    pcg_plain = reduced_set_peak_bytes("pcg", m, n_basis, d, p, pcg_rows(rows),
                                       threads=threads)
    cache_limit = limit - base - pass_bytes if np.isfinite(limit) else \
        (available_memory() or 0) / 4 + pcg_plain
    plan.pcg_cache = reduced_set_peak_bytes("pcg", m, n_basis, d, p, rows,
                                            cache=True) <= cache_limit
    # PCG's selection (rlscore.core.nystrom.pcg_select) keeps the held-out predictions
    held_out = 8.0 * m * p * max(int(n_lambdas), 1) if cv is not None else 0.0

    def pcg_at(b):
        return base + pass_bytes + held_out + reduced_set_peak_bytes(
            "pcg", m, n_basis, d, p, pcg_rows(b, plan.pcg_cache), cache=plan.pcg_cache,
            threads=threads)

    # the blocks are sized from the whole budget: the rows of the working memory, or
    # fewer when the run's estimate (linear in the rows) would exceed the budget
    rows_streamed, rows_pcg = rows, rows
    if block_size is None:
        rows_streamed = _rows_within(streamed_at, rows, limit)
        rows_pcg = _rows_within(pcg_at, rows, limit)
    streamed, pcg = streamed_at(rows_streamed), pcg_at(rows_pcg)
    plan.block_size = rows_pcg if solver == "pcg" else rows_streamed
    if solver == "pcg" and pcg <= limit:
        plan.path, plan.peak_bytes = "pcg", pcg
    elif solver != "pcg" and streamed <= limit:
        plan.path, plan.peak_bytes = "streamed", streamed
    elif solver == "auto" and cv is None and pcg <= limit:
        plan.path, plan.peak_bytes, plan.block_size = "pcg", pcg, rows_pcg
    else:
        statistics = streamed_at(1)
        raise ValueError(
            f"{budget} is too small for this reduced-set model (m={m}, {n_basis} basis "
            f"vectors, {p} output(s)); the budget bounds the peak resident set of the "
            f"whole process, which already holds {format_bytes(base)}: "
            f"in memory it needs about {format_bytes(mem)}, "
            f"streamed in blocks of {rows_streamed} rows about {format_bytes(streamed)} "
            f"(at least {format_bytes(statistics)} with blocks of one row), by "
            f"preconditioned CG "
            f"about {format_bytes(pcg)}. Ways out: "
            + ", ".join(_ways_out(n, limit, solver, cv, block_size,
                                  (streamed_at, rows_streamed), (pcg_at, rows_pcg))))
    what = "by preconditioned CG (solver='pcg')" if plan.path == "pcg" else \
        "in blocks of rows"
    reason = "solver='pcg'" if solver == "pcg" else "the data are read in passes" \
        if stream else (f"the in-memory features would bring the process to "
                        f"{format_bytes(mem)}, above the memory budget of "
                        f"{format_bytes(limit)}")
    with stage(f"streaming {what}: {reason}; blocks of {plan.block_size} rows, "
               f"estimated peak {format_bytes(plan.peak_bytes)} of the process "
               f"({format_bytes(base)} held before the run)", verbose):
        pass
    return plan
