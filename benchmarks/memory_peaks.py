"""Estimated versus measured peak memory of the dense kernel paths.

For each path (one regparam, regparam path, leave-one-out, leave-pair-out,
leave-query-out, Kronecker) the script runs the learner in a fresh child process and
measures the growth of the peak resident set size (``ru_maxrss``) over the process
after it has built its inputs, and the tracemalloc peak (NumPy buffers). It prints both
next to :func:`rlscore._validation.estimate_peak_bytes`, the estimate the learners check
against available memory before allocating.

Usage: python benchmarks/memory_peaks.py [m]   (default m = 3000 examples)
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


def main(m=3000):
    from rlscore._validation import estimate_peak_bytes
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
    main(ap.parse_args().m)
