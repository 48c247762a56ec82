"""The many-centre PCG's product Phi^T (Phi V), kernel blocks recomputed: blocks side
by side, one thread each, cut to the cache (:class:`rlscore.core.rls.
StreamedGramOperator`, ``rlscore._blocks.CACHE_BLOCK_BYTES``) against one
working-memory-sized block at a time with the threads inside the GEMM, the exponential
and the products (the operator before), in the same process; and the predictions of a
kernel model, K(X, R) A, the same two ways (:class:`rlscore.predictor.KernelPredictor`
through :func:`rlscore.kernel.map_kernel_blocks` against :func:`rlscore.kernel.
kernel_blocks`).

Synthetic Gaussian data, d = 20, m r = 4 * 10^8 kernel entries per product; times are
the median wall seconds of three products, per kernel entry. ``--sweep`` also times
the operator at block sizes of 0.5 .. 16 MiB (the choice of CACHE_BLOCK_BYTES).

    RLSCORE_BENCH_THREADS=2 python benchmarks/bench_pcg_blocks.py --r 2000 5000 20000

Measured on the idle 2-core machine (2026-11-27, two threads; ns per kernel entry, ours
against before; the differences between the two ways are rounding, 1e-6 relative in
float32, 1e-14 in float64):

| r | product float32 | product float64 | predictions float64 |
|---|---|---|---|
| 2000 | 0.81 vs 3.26 (0.25x) | 2.16 vs 7.21 (0.30x) | 2.23 vs 5.80 (0.39x) |
| 5000 | 0.85 vs 3.76 (0.23x) | 2.22 vs 7.61 (0.29x) | 2.40 vs 6.22 (0.39x) |
| 20 000 | 1.36 vs 3.90 (0.35x) | 2.98 vs 8.55 (0.35x) | 3.01 vs 5.48 (0.55x) |

At r = 20 000 the two r x r triangular solves of each product weigh in at this m
(20 000 rows); in the 10^6-row PCG run the product took 0.85 ns per entry. Block-size
sweep: 4 MiB within 16% of the best everywhere (the same setting timed twice differs
by up to 20%), 0.5 MiB 1.45-2.0x slower than the best, 16 MiB up to 1.2x.
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
from rlscore.core.nystrom import NystromFactors, StreamedGramOperator
from rlscore.core.structure import ArraySource  # noqa: E402
from rlscore.kernel import kernel_block, kernel_blocks  # noqa: E402
from rlscore.predictor import KernelPredictor  # noqa: E402

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
            if name == "float64":
                A = rng.standard_normal(r)
                pred = KernelPredictor(A, factors.kernel)

                def blocks_in_turn():
                    out = np.empty(m)
                    for rows, Kb in kernel_blocks(factors.kernel, X):
                        out[rows] = Kb @ A
                    return out
                ours, P = median_time(lambda: pred.predict(X))
                base, Q = median_time(blocks_in_turn)
                err = np.abs(P - Q).max() / np.abs(Q).max()
                row(f"K(X, R) a, r = {r}, predictions, ns / entry", ours / (m * r) * 1e9,
                    base / (m * r) * 1e9, "kernel_blocks in turn, threaded inside",
                    note=f"max difference {err:.1e}", unit="ns")
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
