"""Estimated versus measured peak memory of the dense kernel paths and of the
reduced-set paths (in memory, streamed; one fit and leave-one-out over 13 lambdas).

For each path (one regparam, regparam path, leave-one-out, leave-pair-out,
leave-query-out, Kronecker) the script runs the learner in a fresh child process and
measures the growth of the peak resident set size (``ru_maxrss``) over the process
after it has built its inputs, and the tracemalloc peak (NumPy buffers). It prints both
next to the estimate the learners check before allocating (:mod:`rlscore._memory`:
:func:`estimate_peak_bytes` for the dense paths; for the reduced-set paths the
``plan.peak_bytes`` of the fitted model, :func:`reduced_set_peak_bytes`).

The reduced-set rows also give the absolute peak resident set of the child (VmHWM)
against the plan's estimate, which is of the whole process (``memory_budget`` bounds
the peak RSS of the process: what it holds when the run is planned plus the run's
arrays): the growth alone would hide the interpreter, the imports and the data.

Usage: python benchmarks/memory_peaks.py [m]   (default m = 3000 examples)
       python benchmarks/memory_peaks.py --reduced M B   (reduced-set paths, B basis
       vectors, d = 20; the streamed and PCG rows with memory_budget = what the
       process holds + in-memory estimate / 3)
       python benchmarks/memory_peaks.py --file M B [--budget MIB ...]   (StreamedRLS
       on an M x 10 svmlight file, B centres, leave-one-out over 13 lambdas: peak RSS
       against each budget)
"""

import json
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import json, resource, sys, tracemalloc
    import numpy as np
    from rlscore import learner as L
    path, m = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(0)
    d = 20
    X = rng.standard_normal((m, d))
    y = rng.standard_normal(m)
    q = np.repeat(np.arange(m // 10), 10)
    n1 = n2 = m // 2
    X1, X2 = rng.standard_normal((n1, d)), rng.standard_normal((n2, d))
    K1, K2 = X1 @ X1.T, X2 @ X2.T     # the dual (kernel) complete-data solver
    Yk = rng.standard_normal(n1 * n2)
    s = rng.integers(0, m, 2000); e = (s + 1 + rng.integers(0, m - 1, 2000)) % m
    g = dict(kernel="GaussianKernel", gamma=0.05)
    runs = {
        "one_lambda": lambda: L.RLS(X, y, **g),
        "lambda_path": lambda: L.LeaveOneOutRLS(X, y, regparams=[0.1, 1.0, 10.0], **g),
        "loo": lambda: L.RLS(X, y, **g).leave_one_out(),
        "lpo": lambda: L.LeavePairOutRLS(X, y, regparams=[1.0], **g),
        "lqo": lambda: L.LeaveQueryOutRankRLS(X, y, q, regparams=[1.0], **g),
        "kronecker": lambda: L.KronRLS(K1=K1, K2=K2, Y=Yk),
    }
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    runs[path]()
    traced = tracemalloc.get_traced_memory()[1]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rss": (peak - base) * 1024, "traced": traced, "n1": n1}))
""")


REDUCED_CHILD = textwrap.dedent(r"""
    import json, resource, sys
    import numpy as np
    from rlscore import learner as L
    from rlscore._memory import (ReducedSetSizes, peak_resident_memory,
                                 reduced_set_peak_bytes,
                                 resident_memory)
    path, m, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 20))
    y = rng.standard_normal(m)
    grid = list(2.0 ** np.arange(-6, 7))          # 13 lambdas
    g = dict(kernel="GaussianKernel", gamma=0.05, n_basis=b, random_state=0)
    cv = path.endswith("loo")
    # the budget bounds the whole process: what it holds + a third of the in-memory
    # arrays
    held = resident_memory()
    budget = (held + reduced_set_peak_bytes("memory_cv" if cv else "memory",
                                            ReducedSetSizes(m, b, 20, 1),
                                            n_lambdas=13) / 3) / 2**20
    kw = dict(memory_budget=None if path.startswith("memory") else budget)
    if path == "pcg_fit":
        kw["solver"] = "pcg"
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if cv:
        model = L.LeaveOneOutRLS(X, y, regparams=grid, **g, **kw).learner._model
    else:
        model = L.RLS(X, y, **g, **kw)._model
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rss": (peak - base) * 1024, "est": model.plan.peak_bytes,
                      "held": model.plan.baseline_bytes, "peak": peak_resident_memory(),
                      "budget": budget * 2**20 if kw["memory_budget"] else None,
                      "path": model.plan.path}))
""")

# the issue-44 scenario: an svmlight file streamed by StreamedRLS (leave-one-out over
# 13 lambdas) under a budget given in MiB for the whole process
FILE_CHILD = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    from rlscore.learner import StreamedRLS
    from rlscore.utilities.reader import SvmlightSource
    from rlscore._memory import peak_resident_memory
    path, b, budget = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    model = StreamedRLS(SvmlightSource(path), kernel="GaussianKernel", gamma=0.1,
                        n_basis=b, random_state=0, memory_budget=budget,
                        regparams=list(2.0 ** np.arange(-6, 7)))
    print(json.dumps({"est": model.plan.peak_bytes, "held": model.plan.baseline_bytes,
                      "peak": peak_resident_memory(), "block": model.plan.block_size}))
""")


def from_file(m, b, budgets, d=10):
    """(budget, estimate, held before the run, peak RSS, block) of StreamedRLS on an
    m x d svmlight file with b centres under each budget (MiB), each in a child."""
    import os
    import tempfile
    import numpy as np
    from rlscore.utilities.reader import write_svmlight
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.svm")
        rng = np.random.default_rng(0)
        X = rng.standard_normal((m, d))
        write_svmlight(path, X, np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m))
        for budget in budgets:
            out = subprocess.run([sys.executable, "-W", "ignore", "-c", FILE_CHILD, path,
                                  str(b), str(budget)], capture_output=True, text=True)
            if out.returncode:
                # refused before the run (the budget cannot hold it): the message's end
                rows.append((budget, None, None, None, out.stderr.strip()[-160:]))
                continue
            r = json.loads(out.stdout)
            rows.append((budget, r["est"], r["held"], r["peak"], r["block"]))
    return rows


#: the reduced-set rows of ``--reduced``
REDUCED_PATHS = ("memory_fit", "memory_loo", "streamed_fit", "streamed_loo", "pcg_fit")


def reduced(m, b):
    """Rows (path, estimate, RSS growth, held before the run, absolute peak RSS,
    budget) of the reduced-set paths at m rows, b basis vectors, each in a fresh
    child process (the estimate is of the whole process: held + arrays)."""
    import warnings
    rows = []
    for path in REDUCED_PATHS:
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", REDUCED_CHILD, path,
                              str(m), str(b)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        if r["path"] != path.split("_")[0]:
            warnings.warn(f"{path} ran as {r['path']}")
        rows.append((path, r["est"], r["rss"], r["held"], r["peak"], r["budget"]))
    return rows


def main(m=3000):
    from rlscore._memory import estimate_peak_bytes
    rows = []
    for path in ("one_lambda", "lambda_path", "loo", "lpo", "lqo", "kronecker"):
        out = subprocess.run([sys.executable, "-c", CHILD, path, str(m)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        if path == "kronecker":
            est = estimate_peak_bytes(path, r["n1"], n2=r["n1"])
            size = f"{r['n1']} x {r['n1']}"
        else:
            est = estimate_peak_bytes(path, m)
            size = f"m = {m}"
        rows.append((path, size, est, r["rss"], r["traced"]))
    print(f"{'path':<12} {'size':>12} {'estimate':>10} {'RSS peak':>10} {'traced':>10} "
          f"{'est/RSS':>8}")
    for path, size, est, rss, traced in rows:
        print(f"{path:<12} {size:>12} {est / 2**20:9.0f}M {rss / 2**20:9.0f}M "
              f"{traced / 2**20:9.0f}M {est / max(rss, 1):8.2f}")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="peak memory of each dense path against its "
                                             "estimate (rlscore._validation.PEAK_MATRICES)")
    ap.add_argument("m", nargs="?", type=int, default=3000, help="examples (default 3000)")
    ap.add_argument("--reduced", nargs=2, type=int, metavar=("M", "B"),
                    help="the reduced-set paths at M rows and B basis vectors instead")
    ap.add_argument("--file", nargs=2, type=int, metavar=("M", "B"),
                    help="StreamedRLS on an M x 10 svmlight file, B centres, LOO over 13 "
                         "lambdas, under each --budget")
    ap.add_argument("--budget", type=float, nargs="+", default=[200.0, 300.0],
                    help="MiB for --file (default 200 300)")
    args = ap.parse_args()
    if args.file:
        M, B = args.file
        print(f"{'budget':>8} {'estimate':>9} {'held':>8} {'peak RSS':>9} {'block':>7} "
              f"{'peak/budget':>11}")
        for budget, est, held, peak, block in from_file(M, B, args.budget):
            if est is None:
                print(f"{budget:7.0f}M refused: ...{block}")
                continue
            print(f"{budget:7.0f}M {est / 2**20:8.1f}M {held / 2**20:7.1f}M "
                  f"{peak / 2**20:8.1f}M {block:>7} {peak / 2**20 / budget:11.2f}")
    elif args.reduced:
        M, B = args.reduced
        print(f"{'path':<14} {'m':>8} {'b':>6} {'budget':>8} {'held':>8} {'estimate':>9} "
              f"{'peak RSS':>9} {'est/peak':>8} {'growth':>8} {'arrays/growth':>13}")
        for path, est, rss, held, peak, budget in reduced(M, B):
            bud = "none" if budget is None else f"{budget / 2**20:.0f}M"
            print(f"{path:<14} {M:>8} {B:>6} {bud:>8} {held / 2**20:7.0f}M "
                  f"{est / 2**20:8.0f}M {peak / 2**20:8.0f}M {est / max(peak, 1):8.2f} "
                  f"{rss / 2**20:7.0f}M {(est - held) / max(rss, 1):13.2f}")
    else:
        main(args.m)
