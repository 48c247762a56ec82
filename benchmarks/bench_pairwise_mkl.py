"""Pairwise MKL: the alignment statistics (a, M) through the generalized vec trick
against forming the pairwise kernel matrices explicitly, in one process.

Sizes: n1 drugs x n2 targets with s labelled pairs and 3 x 3 kernels (9 Kronecker
terms, 45 entries of M). The explicit baseline builds each s x s term kernel, centres it
and takes Frobenius products (O(T s^2) memory, O(T^2 s^2) time); it is what a user
without the vec trick would write. Both give the same (a, M) (checked).

Run:  python benchmarks/bench_pairwise_mkl.py [--s 3000] [--repeats 3]
Not a test: timings depend on the machine and its load (printed).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import limit_threads, machine_line, median_time, one_blas_thread  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

from rlscore.core.kronecker import alignment_statistics, fit_pairwise_mkl  # noqa: F401


def kernels(n, rng, count=3):
    X = rng.normal(size=(n, 5))
    sq = (X ** 2).sum(1)
    D = np.clip(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0, None)
    return [np.exp(-D / 5.0), np.exp(-D / 50.0), (X @ X.T / 5 + 1) ** 2][:count]


def explicit(K1s, K2s, y, rows, cols):
    terms = []
    for K1 in K1s:
        for K2 in K2s:
            K = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
            K -= K.mean(axis=0, keepdims=True)
            K -= K.mean(axis=1, keepdims=True)
            terms.append(K)
    yc = y - y.mean()
    a = np.array([yc @ K @ yc for K in terms])
    M = np.array([[np.vdot(K, L) for L in terms] for K in terms])
    return a, M


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n1", type=int, default=200)
    p.add_argument("--n2", type=int, default=300)
    p.add_argument("--s", type=int, nargs="+", default=[1000, 3000, 6000])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    K1s, K2s = kernels(args.n1, rng), kernels(args.n2, rng)
    print(machine_line())
    print(f"{len(K1s)} x {len(K2s)} kernels, n1={args.n1}, n2={args.n2}; median of "
          f"{args.repeats}")
    print("| labelled pairs s | vec trick (a, M) | explicit (a, M) | ratio | max rel diff "
          "| fit incl. MINRES (tol 1e-6) |")
    print("|---|---|---|---|---|---|")
    with one_blas_thread():
        for s in args.s:
            idx = rng.choice(args.n1 * args.n2, size=s, replace=False)
            rows, cols = np.divmod(idx, args.n2)
            y = rng.normal(size=s)
            t_ours, (a, M) = median_time(
                lambda: alignment_statistics(K1s, K2s, y, rows, cols), args.repeats)
            t_exp, (a2, M2) = median_time(lambda: explicit(K1s, K2s, y, rows, cols),
                                          args.repeats)
            diff = max(np.abs(a - a2).max() / np.abs(a2).max(),
                       np.abs(M - M2).max() / np.abs(M2).max())
            t_fit, _ = median_time(lambda: fit_pairwise_mkl(
                K1s, K2s, y, (rows.astype(np.int32), cols.astype(np.int32)), 1.0, None, 1e-6),
                args.repeats)
            print(f"| {s} | {t_ours:.3f} s | {t_exp:.3f} s | {t_ours / t_exp:.3f} | "
                  f"{diff:.1e} | {t_fit:.3f} s |", flush=True)


if __name__ == "__main__":
    main()
