"""One memory budget for every blocked (streamed) computation.

Work that walks over many rows in blocks -- kernel blocks K(X_b, R), the streamed
reduced-set statistics, streamed predictions, the preconditioned-CG products -- takes
its block size from one setting, ``working_memory`` (MiB of temporaries per block),
in the manner of scikit-learn's ``working_memory``:

* the environment variable ``RLSCORE_WORKING_MEMORY`` (MiB) sets the default
  (64 MiB when unset);
* ``with working_memory(64): ...`` overrides it within a block (per thread and per
  asyncio task, a :class:`contextvars.ContextVar`, like
  :func:`rlscore._progress.verbosity`);
* :func:`rows_per_block` turns the budget into a number of rows, :func:`batches`
  into slices, :func:`block_elements` into the float64 elements of one temporary
  block (the chunked loops of the query algebra, RankRLS's hold-outs, greedy RLS's
  set-up) and :func:`text_chunk_bytes` into the bytes of text per call of the
  svmlight parser.

This is the per-block setting. The faces' ``memory_budget`` (``--memory-budget`` on
the command line) is the budget of a whole run: the memory plan of
:func:`rlscore.core.nystrom.plan_reduced_set` checks the run's estimate against it and
runs the blocks with at most a quarter of it as working memory
(:func:`rlscore.core.nystrom.block_working_memory`).

Constants that stay fixed, with their reason: the archive reader's 1 MiB reads and
its limits (``rlscore._archive``: safety bounds of untrusted files, not working
memory); the 256-row strips of ``symmetric_from_triangle`` (cache blocking: a strip's
temporaries are 256 x 256); the compiled greedy RLS's 256-element stack buffer and
the Kronecker kernels' minimum of 4096 items per thread (compile-time and scheduling
granularity); the command line's 256 MiB file size above which ``fit --basis``
streams (a property of the file, before its rows are counted).

Work over many independent blocks runs them side by side: :func:`map_blocks` gives
each of :func:`block_threads` threads whole blocks (each block's own loops then run
with one thread), and :func:`cache_block_rows` sizes a block that is recomputed and
used at once (the kernel blocks of the many-centre PCG) to stay in the cache,
:data:`CACHE_BLOCK_BYTES`.

A block of a single row that does not fit is refused (MemoryError with the way out),
never silently exceeded.
"""

import contextlib
import contextvars
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from rlscore._ext._greedy import _num_threads
from rlscore._validation import check_positive_int

__all__ = ["working_memory", "get_working_memory", "rows_per_block", "batches",
           "block_elements", "text_chunk_bytes", "DEFAULT_WORKING_MEMORY",
           "CACHE_BLOCK_BYTES", "cache_block_rows", "block_threads", "map_blocks"]

#: Default budget of one block's temporaries, in MiB.
DEFAULT_WORKING_MEMORY = 64.0

_ENV = "RLSCORE_WORKING_MEMORY"
_BUDGET = contextvars.ContextVar("rlscore_working_memory", default=None)


def _check_mib(value, name):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number of MiB, got {value!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise ValueError(f"{name} must be a finite number of MiB > 0, got {value!r}")
    return v


def get_working_memory():
    """The current budget in MiB: the innermost :func:`working_memory` block, else
    ``RLSCORE_WORKING_MEMORY``, else :data:`DEFAULT_WORKING_MEMORY`. O(1)."""
    v = _BUDGET.get()
    if v is not None:
        return v
    env = os.environ.get(_ENV)
    if env:
        return _check_mib(env, _ENV)
    return DEFAULT_WORKING_MEMORY


@contextlib.contextmanager
def working_memory(mib):
    """Within the block, blocked computations size their blocks for ``mib`` MiB of
    temporaries (None keeps the enclosing setting). Blocks nest; the innermost wins."""
    if mib is None:
        yield
        return
    token = _BUDGET.set(_check_mib(mib, "working_memory"))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def rows_per_block(row_bytes, n, budget=None, what="a block"):
    """How many rows of ``row_bytes`` bytes of temporaries each fit in the budget
    (``budget`` MiB, default :func:`get_working_memory`), between 1 and ``n``.

    Raises MemoryError when even one row exceeds the budget, naming ``what`` and the
    way out. O(1).
    """
    mib = get_working_memory() if budget is None else _check_mib(budget, "budget")
    row_bytes = max(int(row_bytes), 1)
    rows = int(mib * 2**20) // row_bytes
    if rows < 1:
        raise MemoryError(
            f"one row of {what} needs {row_bytes / 2**20:.3g} MiB but the working "
            f"memory budget is {mib:.3g} MiB; raise it (rlscore._blocks.working_memory, "
            f"RLSCORE_WORKING_MEMORY, or a larger memory_budget / --memory-budget: a "
            f"quarter of it goes to a block), or use fewer basis vectors")
    return max(1, min(rows, max(int(n), 1)))


def batches(n, size):
    """Slices [0, size), [size, 2 size), ... covering range(n); the last may be
    shorter. O(n / size)."""
    size = int(size)
    if size < 1:
        raise ValueError(f"block size must be >= 1, got {size}")
    for start in range(0, int(n), size):
        yield slice(start, min(start + size, int(n)))


def block_elements(share=0.5):
    """float64 elements of one temporary block of a chunked loop: ``share`` of the
    budget (:func:`get_working_memory`); 4 Mi elements (32 MiB) at the default 64 MiB
    budget and share 0.5. At least 1. O(1)."""
    return max(1, int(get_working_memory() * 2**20 * share) // 8)


def text_chunk_bytes(share=1 / 64):
    """Bytes of text per call of the svmlight parser: ``share`` of the budget, at least
    64 KiB. The default 1/64 (1 MiB at the default budget) is for streamed reading: a
    chunk's parsed arrays, its CSR matrix, the projection onto a model and the output
    lines take about 15 times the text (measured on a linear model's ``predict``);
    reading a whole file uses 1/4 (16 MiB). O(1)."""
    return max(1 << 16, int(get_working_memory() * 2**20 * share))


#: Bytes of one block that is computed and used at once by one thread (a recomputed
#: kernel block of the many-centre PCG, or of a kernel model's predictions: the GEMM's
#: output, its exponential and the products with it stay in the CPU cache). Measured
#: with two threads, one block each, Gaussian kernel, d = 20, r = 2000 / 5000 / 20 000,
#: float32 and float64 (``benchmarks/bench_pcg_blocks.py --sweep``): 4 MiB is within 16%
#: of the best block size everywhere (timing noise is up to 20%), 0.5 MiB 1.45-2.0 times
#: slower than the best, 16 MiB up to 1.2.
CACHE_BLOCK_BYTES = 4 << 20


def cache_block_rows(row_bytes, n, budget=None, what="a block"):
    """Rows of a block of about :data:`CACHE_BLOCK_BYTES` at ``row_bytes`` bytes a row,
    never more than :func:`rows_per_block` allows (the working-memory budget) and at
    least 1. O(1)."""
    rows = rows_per_block(row_bytes, n, budget, what)
    return max(1, min(rows, CACHE_BLOCK_BYTES // max(int(row_bytes), 1)))


def block_threads(threads=None):
    """Threads for work over blocks: ``threads`` when a positive integer, else
    ``OMP_NUM_THREADS`` when set, else the CPU count (the rule of the compiled
    loops). O(1)."""
    if threads is None:
        return _num_threads(0)
    return check_positive_int(threads, "threads")


def map_blocks(fn, items, threads=1):
    """``fn(item)`` for every item of the iterable, yielded in the items' order.

    With ``threads`` > 1 a pool of that many threads computes them, at most
    ``2 * threads`` items in flight; the items are drawn from the iterator in the
    calling thread (a file read overlaps the work). ``fn`` gains only where it releases
    the GIL (BLAS, the compiled loops) and must not write shared state: the caller
    folds the results, in order, so a sum over blocks is the same whatever the number
    of threads. The first error in item order propagates and the items not started are
    cancelled. O(number of items) beyond ``fn``.
    """
    if threads <= 1:
        for item in items:
            yield fn(item)
        return
    pending = deque()
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rlscore-block")
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True)
