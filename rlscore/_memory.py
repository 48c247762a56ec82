"""The one home of the peak-memory estimates: every path of every learner that checks
its memory before a run asks here, so the learners, the estimators, the command line
and ``benchmarks/memory_peaks.py`` quote the same figure.

Dense kernel paths (m x m matrices)
    :func:`estimate_peak_bytes` with :data:`PEAK_MATRICES` and :data:`PEAK_KRONECKER`.
Reduced-set (Nystrom) paths with b basis vectors
    :func:`reduced_set_peak_bytes`: ``"memory"`` (the m x b kernel block and features
    in memory, :data:`PEAK_REDUCED_SET`), ``"memory_cv"`` (the same plus the
    leave-one-out / hold-out arrays), ``"streamed"``
    (:class:`rlscore.core.nystrom.StreamedReducedSet` with its cross-validation pass:
    b x b statistics, one block, the m x L x p held-out predictions),
    ``"streamed_fit"`` (its statistics pass alone: one kernel block) and ``"pcg"`` (Falkon's preconditioned CG without
    its optional kernel-block cache).

The coefficients were measured with ``benchmarks/memory_peaks.py`` (growth of the
peak resident set of a child process, Gaussian kernel, d = 20). Layer 0: imports
nothing from the package.

The process
    A ``memory_budget`` bounds the peak resident set of the whole process: what it
    holds when the run is planned (:func:`resident_memory`: the interpreter, the
    imported modules, the data already in memory) plus the estimate of the run's
    arrays, plus what a pass over a file holds besides (:func:`parser_bytes`: the
    parser's text and parsed chunk).
"""

import os
import sys
from typing import NamedTuple

__all__ = ["PEAK_MATRICES", "PEAK_KRONECKER", "PEAK_REDUCED_SET", "STREAM_OVERHEAD",
           "CENTRING_BLOCKS", "resident_memory", "peak_resident_memory", "parser_bytes",
           "PARSER_CHUNKS",
           "estimate_peak_bytes",
           "reduced_set_peak_bytes", "REDUCED_SET_PATHS", "ReducedSetSizes"]

#: Peak memory of each dense path, in m x m float64 matrices, measured with
#: benchmarks/memory_peaks.py (peak RSS growth, Gaussian kernel, m = 2000 and 3000):
#: one regparam -- K, its Cholesky factor (one Fortran-order copy), the kernel
#: evaluation's temporary;
#: regparam path -- K, eigenvectors V, the divide-and-conquer workspace;
#: leave-one-out -- the path plus V * V and the m x p parts; leave-pair-out -- the path
#: plus M = lambda G and its Gram temporaries; leave-query-out -- the rotated kernel,
#: its decomposition and the per-query blocks.
PEAK_MATRICES = {"one_lambda": 2.2, "lambda_path": 4.2, "loo": 5.3, "lpo": 8.7,
                 "lqo": 5.8}
#: The complete-data Kronecker solver: a * n1 n2 + b * (n1^2 + n2^2) float64 values
#: (labels, their rotations and the result; each domain's kernel, eigenvectors and
#: workspace), fitted on 1000 x 1000, 2000 x 500 and 3000 x 300.
PEAK_KRONECKER = (4.5, 2.6)
#: The in-memory reduced-set paths: a * m b + c * b^2 float64 values. One fit: the
#: kernel block K(X, R), the features Phi = K T and the triangular solve's copy
#: (a = 2.25); cross-validation adds the left singular vectors U and U * U of the
#: leave-one-out / hold-out formulas (a = 3.6). Measured at (m, b) = (4e4, 400),
#: (8e4, 200), (2e4, 1000): within 7%.
PEAK_REDUCED_SET = {"memory": (2.25, 5.0), "memory_cv": (3.6, 6.0)}

#: Fixed working set of a streamed run beyond its arrays (the first blocked kernel
#: call's thread buffers, the progress and source objects): the residual measured at
#: (m, b) = (4e4, 400) and (1e5, 300), about 4-5 MiB.
STREAM_OVERHEAD = 4 * 2**20

#: The reduced-set paths of :func:`reduced_set_peak_bytes`.
REDUCED_SET_PATHS = ("memory", "memory_cv", "streamed_fit", "streamed", "pcg")


def estimate_peak_bytes(path, m, n2=None):
    """Estimated peak bytes of a dense path on m examples: ``one_lambda``,
    ``lambda_path``, ``loo``, ``lpo``, ``lqo`` (see :data:`PEAK_MATRICES`), or
    ``kronecker`` for the complete-data Kronecker solver of m x n2 pairs
    (:data:`PEAK_KRONECKER`). O(1)."""
    if path == "kronecker":
        a, b = PEAK_KRONECKER
        n2 = m if n2 is None else n2
        return 8.0 * (a * m * n2 + b * (m * m + n2 * n2))
    if path not in PEAK_MATRICES:
        raise ValueError(f"unknown path {path!r}; one of {sorted(PEAK_MATRICES)} or "
                         f"'kronecker'")
    return 8.0 * PEAK_MATRICES[path] * m * m


#: Block-sized temporaries of the RankRLS statistics beyond RLS's, in block x k
#: arrays: the per-query centring of a block (its expanded means and the centred
#: copy) and the global shift's centred copy
#: (:func:`rlscore.core.nystrom.block_statistics`). Measured at (m, b) = (4e4, 400),
#: blocks of 200 to 3200 rows: the excess over the "rls" estimate was 1.1-3.9 (query)
#: and 0.9-1.0 (global) such arrays plus about 2 MiB.
CENTRING_BLOCKS = {"rls": 0, "query": 2, "global": 1}


class ReducedSetSizes(NamedTuple):
    """The sizes of a reduced-set model that its memory estimate weighs
    (:func:`reduced_set_peak_bytes`).

    Parameters
    ----------
    m, b, d, p : rows, basis vectors, input features (default 0), outputs (default 1)
    kind : "rls" (default), "query" or "global": the streamed paths of RankRLS add
        :data:`CENTRING_BLOCKS` block x k arrays
    n_features : the Nystrom rank k <= b (default b)
    """

    m: int
    b: int
    d: int = 0
    p: int = 1
    kind: str = "rls"
    n_features: int = None


def reduced_set_peak_bytes(path, sizes, block_size=0, n_lambdas=1, n_folds=0,
                           cache=False, threads=1):
    """Estimated peak bytes of a reduced-set path (see :data:`REDUCED_SET_PATHS`).

    Parameters
    ----------
    path : "memory", "memory_cv", "streamed_fit", "streamed" or "pcg"
    sizes : :class:`ReducedSetSizes` (m rows, b basis vectors, d input features, p
        outputs, the model's kind and its Nystrom rank)
    block_size : rows per block (streamed and PCG paths)
    n_lambdas : regparams of the cross-validation pass (streamed: the m x L x p
        held-out predictions)
    n_folds : folds whose b x b statistics the streamed path keeps (0: none)
    cache : PCG keeps every kernel block (m x b float64) between iterations
    threads : PCG's blocks in flight at once, each with its own buffers (the block
        rows as the operator cuts them, ``block_size``)

    Returns
    -------
    float, bytes. O(1).

    Notes
    -----
    streamed: 8 (k^2 (4 + K) + 3 b^2 + block (b + 3 k + d + 2 L p) + m p (4 + L)),
    the m p (4 + L) being the labels and their copy, the m x L x p held-out
    predictions and the selection measure's two temporaries of one lambda's column
    (the difference and its square: 13 MiB at m = 1e6 that the estimate missed,
    peak RSS 1.04 times the budget of 300 MiB before they were counted),
    streamed_fit: 8 (k^2 (4 + K) + 3 b^2 + block (b + d) + 2 m p), both plus
    :data:`STREAM_OVERHEAD` and, for RankRLS, 8 c block k (c of
    :data:`CENTRING_BLOCKS`);
    pcg: 8 (4 b^2 + t block (d + 8 + b) + 6 m p) plus :data:`STREAM_OVERHEAD` for t
    threads, with 8 m b (the kernel blocks :class:`rlscore.core.nystrom.StreamedGramOperator`
    keeps) in place of the reused block buffers when ``cache`` (float64; float32 blocks
    take half). Measured at (m, b) = (4e4, 400), 48 products: 0.98
    (cached) and 0.99 (recomputed; 1.06 at (1e5, 300)) of the peak RSS.
    """
    m, b, d, p, kind, n_features = sizes
    k = b if n_features is None else n_features
    L = max(int(n_lambdas), 1)
    if path in PEAK_REDUCED_SET:
        a, c = PEAK_REDUCED_SET[path]
        extra = 8.0 * m * p * (2 + (L if path == "memory_cv" else 0))
        return 8.0 * (a * m * b + c * b * b) + extra
    if path in ("streamed", "streamed_fit"):
        if kind not in CENTRING_BLOCKS:
            raise ValueError(f"kind must be one of {sorted(CENTRING_BLOCKS)}, got "
                             f"{kind!r}")
        rr = 8.0 * k * k * (4 + n_folds) + 8.0 * b * b * 3 + STREAM_OVERHEAD \
            + 8.0 * CENTRING_BLOCKS[kind] * block_size * k
        if path == "streamed_fit":
            return rr + 8.0 * block_size * (b + d) + 16.0 * m * p
        block = 8.0 * block_size * (b + 3 * k + d + 2 * L * p)
        return rr + block + 8.0 * m * p * (4 + L)
    if path == "pcg":
        t = max(int(threads), 1)
        blocks = m * b if cache else t * block_size * b
        return 8.0 * (4 * b * b + t * block_size * (d + 8) + 6 * m * p + blocks) \
            + STREAM_OVERHEAD
    raise ValueError(f"unknown reduced-set path {path!r}; one of {REDUCED_SET_PATHS}")


def _proc_status(field):
    """Bytes of ``field`` ("VmRSS", "VmHWM") of /proc/self/status, or None."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _maxrss():
    """The peak resident set of this process by getrusage (kB on Linux, bytes on
    macOS), or None."""
    try:
        import resource
    except ImportError:                                # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


def resident_memory():
    """Bytes resident in this process now (the memory it already holds: the
    interpreter, the imported modules, the data loaded): ``VmRSS`` of
    /proc/self/status; elsewhere psutil's ``rss`` when installed, else the peak so far
    (getrusage, an upper bound); None when nothing tells. O(1)."""
    rss = _proc_status("VmRSS")
    if rss is not None:
        return rss
    try:
        import psutil
        return int(psutil.Process(os.getpid()).memory_info().rss)
    except Exception:                                  # not installed, or no access
        return _maxrss()


def peak_resident_memory():
    """Bytes of the peak resident set of this process so far (``VmHWM``, else
    getrusage's ``ru_maxrss``), or None. O(1)."""
    peak = _proc_status("VmHWM")
    return peak if peak is not None else _maxrss()


#: What a pass over an svmlight file holds besides the blocks, in units of the text
#: chunk it reads at a time (``chunk_bytes``): the text, its decoded copy, the parsed
#: chunk (values, indices, row pointers and labels) and the CSR slice converted to a
#: block. Measured (peak RSS over the resident set before a pass, 1e5 dense rows x
#: 10, chunks of 1, 4 and 16 MiB): 4.6, 5.8 and 3.0 chunks.
PARSER_CHUNKS = 6


def parser_bytes(chunk_bytes):
    """Bytes a pass over an svmlight file holds besides the blocks
    (:data:`PARSER_CHUNKS` text chunks of ``chunk_bytes``). O(1)."""
    return float(PARSER_CHUNKS) * float(chunk_bytes)
