"""The many-centre PCG's product Phi^T (Phi V), kernel blocks recomputed: blocks side
by side, one thread each, cut to the cache (:class:`rlscore.core.rls.
StreamedGramOperator`, ``rlscore._blocks.CACHE_BLOCK_BYTES``) against one
working-memory-sized block at a time with the threads inside the GEMM, the exponential
and the products (the operator before), in the same process.

Synthetic Gaussian data, d = 20, m r = 4 * 10^8 kernel entries per product; times are
the median wall seconds of three products, per kernel entry. ``--sweep`` also times
the operator at block sizes of 0.5 .. 16 MiB (the choice of CACHE_BLOCK_BYTES).

    RLSCORE_BENCH_THREADS=2 python benchmarks/bench_pcg_blocks.py --r 2000 5000 20000
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import HEADER, limit_threads, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

import rlscore._blocks as blocks  # noqa: E402
from rlscore._blocks import rows_per_block  # noqa: E402
from rlscore.core.rls import NystromFactors, StreamedGramOperator  # noqa: E402
from rlscore.core.structure import ArraySource  # noqa: E402
from rlscore.kernel import kernel_block  # noqa: E402

ENTRIES = 4e8


def one_block_at_a_time(factors, X, V, dtype):
    """The operator before: budget-sized blocks in turn, each threaded inside."""
    r = factors.n_basis
    size = rows_per_block(8 * (r + X.shape[1]) + 64, X.shape[0])
    TV = factors.apply_T(V).astype(dtype)
    acc = np.zeros((r, V.shape[1]))
    for s in range(0, X.shape[0], size):
        K = kernel_block(factors.kernel, X[s:s + size], dtype=dtype, num_threads=0)
        acc += K.T @ (K @ TV)
    return factors.apply_Tt(acc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--r", type=int, nargs="+", default=[2000, 5000, 20000])
    ap.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    ap.add_argument("--sweep", action="store_true")
    a = ap.parse_args()
    print(machine_line())
    print(HEADER)
    rng = np.random.default_rng(0)
    for r in a.r:
        m = int(ENTRIES // r)
        X = rng.standard_normal((m, 20))
        Y = np.sin(X[:, 0])
        factors = NystromFactors("GaussianKernel", X[rng.choice(m, r, replace=False)],
                                 gamma=0.05)
        V = rng.standard_normal((factors.n_features, 1))
        for name in a.dtypes:
            dtype = np.dtype(name)
            op = StreamedGramOperator(ArraySource(X, Y), factors, cache=False, dtype=dtype)
            ours, S = median_time(lambda: op.matvec(V))
            base, B = median_time(lambda: one_block_at_a_time(factors, X, V, dtype))
            err = np.abs(S - B).max() / np.abs(B).max()
            row(f"Phi^T Phi v, r = {r}, {name}, ns / entry", ours / (m * r) * 1e9,
                base / (m * r) * 1e9, "one block at a time, threaded inside",
                note=f"{op.threads} threads, blocks of {op.block_size} rows; "
                     f"max difference {err:.1e}", unit="ns")
            if not a.sweep:
                continue
            default = blocks.CACHE_BLOCK_BYTES
            for mib in (0.5, 1, 2, 4, 8, 16):
                blocks.CACHE_BLOCK_BYTES = int(mib * 2**20)
                try:
                    op = StreamedGramOperator(ArraySource(X, Y), factors, cache=False,
                                              dtype=dtype)
                    t, _ = median_time(lambda: op.matvec(V))
                finally:
                    blocks.CACHE_BLOCK_BYTES = default
                row(f"  blocks of {mib} MiB ({op.block_size} rows)", t / (m * r) * 1e9,
                    unit="ns")


if __name__ == "__main__":
    main()
