"""Preconditioned CG for reduced-set RLS and RankRLS: CG iterations to a relative
residual of 1e-6, with Falkon's Nystrom preconditioner (centred for RankRLS), with the
uncentred one (query RankRLS), and without, and the lambda selection with warm starts
against cold starts.

Synthetic data: m rows in queries of 20, x = query offset + noise (d = 10), y a smooth
function plus a query effect; Gaussian kernel gamma = 1 / d, r centres drawn uniformly;
kernel blocks cached (the iteration counts do not depend on it). Times are CPU seconds
of one run (the iteration counts are exact; the machine is shared).

    python benchmarks/bench_pcg.py --m 20000 --r 1000
"""

import argparse
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


def main():
    import numpy as np
    from rlscore.core.rankrls import CenteredGramOperator, pcg_select_rankrls
    from rlscore.core.rls import (NystromFactors, StreamedGramOperator, pcg_select,
                                  pcg_solve)
    from rlscore.core.structure import ArraySource
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=20000)
    ap.add_argument("--r", type=int, default=1000)
    ap.add_argument("--lambdas", type=float, nargs="+", default=[1e-3, 1e-1, 10.0])
    a = ap.parse_args()
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
        kw = dict(validation=0.2, random_state=0, tol=1e-6, maxiter=3000, refit=False)
        if kind == "rls":
            sel = pcg_select(src, fac, grid, cache=True, **kw)
            op = StreamedGramOperator(src, fac, cache=True, rows=sel.fold_of != 0)
        else:
            from rlscore.measure import cindex
            sel = pcg_select_rankrls(src, fac, grid, kind, basis_indices=idx,
                                     cache=True, measure=cindex, **kw)
            op = CenteredGramOperator(src, fac, kind, basis_indices=idx, cache=True,
                                      rows=sel.fold_of != 0)
        cold = sum(pcg_solve(op, lam, tol=1e-6, maxiter=3000).iterations
                   for lam in grid)
        print(f"| {kind} | {int(sel.iterations.sum())} | {cold} | {sel.regparam:.3g} |",
              flush=True)


if __name__ == "__main__":
    limit_threads()
    main()
