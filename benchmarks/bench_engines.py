"""Counting engines and the leave-query-out shortcut against their peers and floors, in
one process (median of --repeats runs, one BLAS / OpenMP thread):

(a) one RankSVM hinge loss + subgradient at m = 10^6 (dense, 50 features, distinct
    utilities; and 10^4 queries x 100 documents with graded utilities 0..4), engines
    "fenwick" and "rbtree", at a fitted and at a random w; floor: np.argsort(p) +
    X @ w + X^T g (the parts no method avoids); process CPU time, the floor and the
    engines interleaved; targets fenwick <= 2.5, rbtree <= 4.
(b) c-index at m = 10^6 against scipy.stats.kendalltau (the peer: the same pair counts)
    with continuous labels + integer predictions, tied labels + tied predictions, and
    no ties; floor: one np.argsort of the labels; target <= 0.8 x kendalltau.
(c) the per-query c-index over 10^4 queries of 100 rows against the global c-index on
    the same rows; target <= 1.
(d) LeaveQueryOutRankRLS, 200 queries x 20 documents, Gaussian kernel, 31 lambdas;
    floor: the kernel matrix, one eigh of it and, per lambda, 200 batched 20 x 20
    solves; target <= 1.2.

Run:  python benchmarks/bench_engines.py [--quick] [--repeats 3] [--only a b c d]
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import (ENGINE_HEADER, limit_threads, machine_line, median_time,  # noqa: E402
                     one_blas_thread, peer_floor_row, run_times)

limit_threads()

import numpy as np  # noqa: E402


def bench_hinge(m, repeats):
    from rlscore.core.ranksvm import RankingRisk
    rng = np.random.default_rng(0)
    n = 50
    X = rng.standard_normal((m, n))
    y = X @ rng.standard_normal(n) + rng.standard_normal(m)
    g = rng.standard_normal(m)
    fitted = np.linalg.lstsq(X[:5000], y[:5000], rcond=None)[0]
    graded = np.digitize(y, np.quantile(y, [0.4, 0.7, 0.85, 0.95])).astype(float)
    qids = np.repeat(np.arange(m // 100), 100)
    cases = [("fitted w", RankingRisk(X, y), fitted),
             ("random w", RankingRisk(X, y), rng.standard_normal(n)),
             (f"{m // 100} queries x 100, graded, fitted w", RankingRisk(X, graded, qids),
              fitted)]
    engines = ("fenwick", "rbtree")
    for label, risk, w in cases:
        def floor():
            p = X @ w
            np.argsort(p)
            return X.T @ g

        def ours(engine):
            p = X @ w
            coef = np.empty(m)
            loss = risk.pairs.hinge(p, risk.weights, coef, 1, engine)
            return loss, X.T @ coef
        # process CPU time (one thread: the work done, robust to the load of a shared
        # machine), the floor and the engines interleaved run by run
        cpu = [[], [], []]
        for _ in range(max(1, repeats)):
            for k, fn in enumerate((floor, lambda: ours("fenwick"),
                                    lambda: ours("rbtree"))):
                cpu[k].append(run_times(fn, 1)[1][0])
        t_floor = statistics.median(cpu[0])
        for engine, times in zip(engines, cpu[1:]):
            peer_floor_row(f"(a) hinge loss+subgradient m={m}, {label}, engine={engine}, "
                           f"CPU s", statistics.median(times), floor=t_floor,
                           floor_name="argsort+X@w+X^T g",
                           target=4 if engine == "rbtree" else 2.5, against="floor")


def bench_cindex(m, repeats):
    from scipy.stats import kendalltau

    from rlscore.measure import cindex
    rng = np.random.default_rng(1)
    cases = {
        "continuous y, integer p": (rng.standard_normal(m),
                                    rng.integers(0, 100, m).astype(float)),
        "tied y, tied p": (rng.integers(0, 5, m).astype(float),
                           rng.integers(0, 50, m).astype(float)),
        "no ties": (rng.standard_normal(m), rng.standard_normal(m)),
    }
    for label, (y, p) in cases.items():
        t_peer, _ = median_time(lambda: kendalltau(y, p), repeats)
        t_floor, _ = median_time(lambda: np.argsort(y), repeats)
        t, _ = median_time(lambda: cindex(y, p), repeats)
        peer_floor_row(f"(b) c-index m={m}, {label}", t, t_peer, "kendalltau", t_floor,
                       "argsort(y)", target=0.8)


def bench_query_cindex(nq, size, repeats):
    from rlscore.measure import cindex, query_cindex
    rng = np.random.default_rng(2)
    m = nq * size
    q = np.repeat(np.arange(nq), size)
    y = rng.integers(0, 5, m).astype(float)
    p = y + rng.standard_normal(m)
    t_global, _ = median_time(lambda: cindex(y, p), repeats)
    t, _ = median_time(lambda: query_cindex(y, p, q), repeats)
    peer_floor_row(f"(c) per-query c-index, {nq} queries x {size} (peer: global c-index "
                   f"on the same rows)", t, t_global, "cindex", target=1.0)


def bench_lqo(nq, size, repeats):
    from rlscore.datasets import make_ranking_queries
    from rlscore.kernel import GaussianKernel
    from rlscore.learner import LeaveQueryOutRankRLS
    X, y, q = make_ranking_queries(nq, size, 30, random_state=4)
    gamma = 0.01
    grid = [2.0 ** k for k in range(-15, 16)]
    rng = np.random.default_rng(3)
    B = rng.standard_normal((nq, size, size))
    M = B @ B.transpose(0, 2, 1) + size * np.eye(size)
    R = rng.standard_normal((nq, size, 1))

    def floor():
        K = GaussianKernel(X, gamma=gamma).getKM(X)
        np.linalg.eigh(K)
        for _ in grid:
            np.linalg.solve(M, R)

    t_floor, _ = median_time(floor, repeats)
    t, _ = median_time(lambda: LeaveQueryOutRankRLS(X, y, q, kernel="GaussianKernel",
                                                    gamma=gamma, regparams=grid),
                       repeats)
    peer_floor_row(f"(d) LeaveQueryOutRankRLS {nq} queries x {size}, Gaussian, "
                   f"{len(grid)} lambdas", t, floor=t_floor,
                   floor_name="kernel+eigh+batched solves", target=1.2, against="floor")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="+", default=["a", "b", "c", "d"])
    args = parser.parse_args(argv)
    m = 200_000 if args.quick else 1_000_000
    print(machine_line(), f"; median of {args.repeats} runs", flush=True)
    print(ENGINE_HEADER)
    with one_blas_thread():
        if "a" in args.only:
            bench_hinge(m, args.repeats)
        if "b" in args.only:
            bench_cindex(m, args.repeats)
        if "c" in args.only:
            bench_query_cindex(m // 100, 100, args.repeats)
        if "d" in args.only:
            bench_lqo(50 if args.quick else 200, 20, args.repeats)
    print(machine_line(), flush=True)


if __name__ == "__main__":
    main()
