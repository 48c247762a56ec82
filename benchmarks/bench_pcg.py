"""Preconditioned CG for reduced-set RLS and RankRLS: CG iterations to a relative
residual of 1e-6, with Falkon's Nystrom preconditioner (centred for RankRLS), with the
uncentred one (query RankRLS), and without, and the lambda selection with warm starts
against cold starts.

Synthetic data: m rows in queries of 20, x = query offset + noise (d = 10), y a smooth
function plus a query effect; Gaussian kernel gamma = 1 / d, r centres drawn uniformly;
kernel blocks cached (the iteration counts do not depend on it). Times are CPU seconds
of one run (the iteration counts are exact; the machine is shared).

    python benchmarks/bench_pcg.py --m 20000 --r 1000
    python benchmarks/bench_pcg.py --factor-memory 5000 10000

``--factor-memory R...``: peak RSS of a child process that builds the factors of R
Gaussian centres (d = 20), factors the preconditioner and applies T, T^T and M^{-1}
once (:class:`rlscore.core.nystrom.NystromFactors`: one R x R float64 array).

Measured on the shared 2-core machine (load 13-16; peak RSS of the child, the Python
process with numpy/scipy/rlscore alone is about 95 MB). "Before": the explicit layout
of the previous commit (K_RR, C, Phi_R, C^{-1}, T, C^T C, its copy and A, plus the
operator's copy of T), same script:

| r | one r x r array | before: peak RSS | now: peak RSS | now: CPU s |
|---|---|---|---|---|
| 2 500 | 48 MB | 435 MB | 141 MB | 0.9 |
| 5 000 | 191 MB | 1452 MB | 293 MB | 3.7 |
| 10 000 | 763 MB | (~5.5 GB extrapolated) | 886 MB | 22.8 |
| 20 000 | 3052 MB | (~22 GB extrapolated) | 3178 MB | 167 |

PCG through ``bench_scale.py --methods pcg --pcg-cache no`` (m = 10^5, d = 20, 20
iterations, kernel blocks recomputed): r = 5000 peak RSS 460 MB, test RMSE 0.1298 (the
direct solution's), 94.7 CPU s (539 s wall on the loaded machine); r = 10 000 peak
RSS 1047 MB, RMSE 0.1238, 215 CPU s (1562 s wall). r = 20 000: the factors alone
peak at 3178 MB (measured, above); with the data and the kernel blocks of a PCG run
about 3.4 GB, inside the 5 GB goal (before: about 22 GB). The run at m = 2 * 10^5,
r = 20 000 was not made: the shared machine was at load 13-16 (an estimated hour of
wall time).

Iterations (m = 10 000, r = 500, relative residual 1e-6):

| kind | lambda | Nystrom preconditioner | none |
|---|---|---|---|
| rls | 0.001 | 52 | 76 |
| rls | 0.1 | 48 | 73 |
| rls | 10 | 15 | 25 |
| query (centred) | 0.001 | 104 | 60 |
| query (centred) | 0.1 | 82 | 54 |
| query (centred) | 10 | 15 | 17 |
| query (uncentred) | 0.001 / 0.1 / 10 | 69 / 63 / 20 | |
| global (centred) | 0.001 / 0.1 / 10 | 54 / 54 / 54 | 72 / 72 / 72 |

lambda selection over 9 lambdas (1e-3 .. 10), one 20 % validation split, total CG
iterations with warm starts along the decreasing grid vs cold starts: rls 257 vs 370,
query 532 vs 768, global 103 vs 509.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from _timing import limit_threads, machine_line  # noqa: E402  (threads before numpy)


def _data(m, d=10, qsize=20, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(m // qsize + 1), qsize)[:m]
    offset = rng.standard_normal((q.max() + 1, d))[q]
    X = offset + 0.7 * rng.standard_normal((m, d))
    y = np.sin(X[:, 0]) + 0.5 * np.cos(1.5 * X[:, 1]) + 0.3 * offset[:, 2] \
        + 0.1 * rng.standard_normal(m)
    return X, y[:, None], q


def _factor_child(r):
    import numpy as np
    from rlscore.core.nystrom import NystromFactors
    B = np.random.default_rng(0).standard_normal((r, 20))
    c0 = time.process_time()
    f = NystromFactors("GaussianKernel", B, gamma=0.05)
    f.factor_preconditioner(100000 / r, 1.0)
    f.precondition(f.apply_Tt(f.apply_T(np.ones((r, 1)))))
    print(json.dumps(dict(r=r, cpu=time.process_time() - c0,
                          peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))


def factor_memory(rs):
    print("| r | one r x r array | peak RSS | CPU s |\n|---|---|---|---|")
    for r in rs:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--factor-child",
                            str(r)], capture_output=True, text=True)
        if p.returncode:
            print(f"| {r} | | failed: {(p.stderr.strip().splitlines() or ['?'])[-1]} | |")
            continue
        out = json.loads(p.stdout.strip().splitlines()[-1])
        print(f"| {r} | {8 * r * r / 2**20:.0f} MB | {out['peak_mb']:.0f} MB | "
              f"{out['cpu']:.1f} |", flush=True)


def main():
    import numpy as np
    from rlscore.core.rankrls import CenteredGramOperator, pcg_select_rankrls
    from rlscore.core.nystrom import NystromFactors, StreamedGramOperator, pcg_select, pcg_solve
    from rlscore.core.structure import ArraySource
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=20000)
    ap.add_argument("--r", type=int, default=1000)
    ap.add_argument("--lambdas", type=float, nargs="+", default=[1e-3, 1e-1, 10.0])
    ap.add_argument("--factor-memory", type=int, nargs="+", metavar="R")
    ap.add_argument("--factor-child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.factor_child:
        return _factor_child(a.factor_child)
    if a.factor_memory:
        return factor_memory(a.factor_memory)
    print(f"threads={limit_threads()}; {machine_line()}")
    X, Y, q = _data(a.m)
    idx = np.sort(np.random.default_rng(1).choice(a.m, a.r, replace=False))
    src = ArraySource(X, Y, qids=q)
    fac = NystromFactors("GaussianKernel", X[idx], gamma=1.0 / X.shape[1])
    ops = {
        "rls": StreamedGramOperator(src, fac, cache=True),
        "query": CenteredGramOperator(src, fac, "query", basis_indices=idx, cache=True),
        "query (uncentred preconditioner)": CenteredGramOperator(src, fac, "query",
                                                                 cache=True),
        "global": CenteredGramOperator(src, fac, "global", basis_indices=idx,
                                       cache=True),
    }
    print(f"\nm={a.m}, r={a.r}: CG iterations to relative residual 1e-6 "
          f"(CPU seconds)\n")
    print("| kind | lambda | Nystrom preconditioner | none |")
    print("|---|---|---|---|")
    for name, op in ops.items():
        for lam in a.lambdas:
            cells = []
            for pre in ("nystrom", None):
                if pre is None and "uncentred" in name:
                    cells.append("")
                    continue
                c0 = time.process_time()
                res = pcg_solve(op, lam, tol=1e-6, maxiter=3000, precondition=pre)
                cells.append(f"{res.iterations} ({time.process_time() - c0:.1f})"
                             + ("" if res.converged else " not converged"))
            print(f"| {name} | {lam:g} | {cells[0]} | {cells[1]} |", flush=True)
    grid = list(np.geomspace(1e-3, 10.0, 9))
    print(f"\nlambda selection over {len(grid)} lambdas, 1 validation split (20 %): "
          f"total CG iterations, warm starts (decreasing grid) vs cold\n")
    print("| kind | warm | cold | chosen lambda |")
    print("|---|---|---|---|")
    for kind in ("rls", "query", "global"):
        from rlscore.core.nystrom import PCGOptions, StreamedSelection
        pcg = PCGOptions(rtol=1e-6, maxiter=3000)
        kw = dict(select=StreamedSelection(validation=0.2, random_state=0), pcg=pcg,
                  refit=False)
        if kind == "rls":
            sel = pcg_select(src, fac, grid, cache=True, **kw)
            op = StreamedGramOperator(src, fac, cache=True, rows=sel.fold_of != 0)
        else:
            from rlscore.measure import cindex
            kw["select"] = StreamedSelection(validation=0.2, random_state=0,
                                             measure=cindex)
            sel = pcg_select_rankrls(src, fac, grid, kind, basis_indices=idx,
                                     cache=True, **kw)
            op = CenteredGramOperator(src, fac, kind, basis_indices=idx, cache=True,
                                      rows=sel.fold_of != 0)
        cold = sum(pcg_solve(op, lam, tol=1e-6, maxiter=3000).iterations
                   for lam in grid)
        print(f"| {kind} | {int(sel.iterations.sum())} | {cold} | {sel.regparam:.3g} |",
              flush=True)


if __name__ == "__main__":
    limit_threads()
    main()
