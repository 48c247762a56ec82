"""One guard for the large dense factorizations: scipy's OpenBLAS (32-bit integers)
crashes with more than one thread on n x n matrices of about 16 000 and up.

Measured on this project's machine with scipy 1.17's bundled OpenBLAS 0.3.31
(``libscipy_openblas``, LP64), two threads: ``dpotrf`` segfaults at n = 16 000, 17 000,
18 500 and 20 000 and runs at 15 000 and below; ``dsyrk`` of a 20 000 x 512 panel
segfaults, of 17 000 x 512 runs; with one thread all of them run. The threshold sits
where 8 n^2 bytes pass 2^31, a 32-bit offset overflowing in the threaded drivers
(OpenBLAS issues #352, #1413, #2821 report the same crash class in the threaded
potrf/syrk). scipy has no ILP64 LAPACK to switch to (``HAS_ILP64`` is False), so the
factorizations of :class:`rlscore.core.nystrom.NystromFactors` and the like run under
:func:`lapack_threads` with one BLAS thread when n is at least :data:`SAFE_N`: the
same flops at half the speed on two cores, instead of a dead process.
"""

import contextlib

#: the largest n run with several BLAS threads (8 n^2 < 2^30, a factor 2 below the
#: measured crash)
SAFE_N = 11_585


def needs_one_thread(n):
    """True when an n x n factorization must run with one BLAS thread. O(1)."""
    return int(n) > SAFE_N


@contextlib.contextmanager
def lapack_threads(n):
    """Context: scipy's BLAS limited to one thread while an n x n LAPACK/BLAS call
    of at least :data:`SAFE_N` runs (module docstring); nothing for smaller n.
    Through threadpoolctl (a dependency of rlscore). O(1)."""
    if not needs_one_thread(n):
        yield
        return
    with blas_threads(1):
        yield


@contextlib.contextmanager
def blas_threads(n):
    """Context: the BLAS (scipy's and numpy's) limited to ``n`` threads, for work that
    runs its own threads over blocks (:func:`rlscore._blocks.map_blocks`: each block's
    GEMM with one BLAS thread). Through threadpoolctl. O(1)."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=int(n), user_api="blas"):
        yield


#: the largest n whose dense factorizations a loop of many small ones (the
#: kernel-parameter searches) runs with one BLAS thread (see :func:`loop_threads`)
SERIAL_N = 1000


def loop_threads(n):
    """The BLAS threads for a loop of many n x n factorizations (a kernel-parameter
    search: one Cholesky factorization and inverse per step): 1 for n up to
    :data:`SERIAL_N`, else None (leave the BLAS as it is). O(1).

    Measured on this project's 2-core machine shared with other work (scipy's
    OpenBLAS, potrf + potri + one product, median of 7, interleaved): two threads took
    75 ms against 4.9 ms for one at n = 354, 1.30 s against 0.20 s at n = 1000 and
    3.5 s against 0.70 s at n = 2000: on busy cores the threads of a short call wait
    for each other. On idle cores two threads gain at most 2x, and little on calls of a
    few milliseconds; one thread is the safe choice for the small systems the searches
    are used on (an ARD evidence search on 354 rows of Boston housing took 55 s with
    the BLAS default of two threads and 2.1 s with one, minutes apart at load ~7;
    ``benchmarks/bench_ard_evidence.py`` times one step both ways in one process)."""
    return 1 if int(n) <= SERIAL_N else None
