"""A million rows on one machine: streamed Nystrom RLS (direct, with the exact LOO path
over 13 lambdas) and preconditioned CG, against scikit-learn's Nystroem + Ridge at the
same basis size and lambda, with the floor of the kernel blocks and Phi^T Phi.

Every run is a child process (peak RSS is its own ``ru_maxrss``); the data are
synthetic (d = 20, y = sin(x.w1) + 0.5 cos(1.5 x.w2) + noise, Gaussian kernel
gamma = 1 / d), generated in the child from a seed, plus 10 000 test rows.

    python benchmarks/bench_scale.py --m 100000 200000 --r 1000 2000
    python benchmarks/bench_scale.py --m 1000000 --r 1000 2000 --methods direct sklearn

Columns: times as wall (CPU) seconds -- the machine is shared, so the CPU times and the
floor (in CPU seconds) are the comparable figures; fit = the statistics pass + one
lambda (basis map included); LOO path = the exact
leave-one-out pass over 13 lambdas with basis removal; peak RSS of the child; test
RMSE; floor (s) = measured DGEMM rate over the flops of the kernel blocks (2 m r d) plus
Phi^T Phi (m r^2, SYRK) for the direct path, or t iterations of two block products
(4 m r t, cached blocks) plus one kernel pass for PCG; data generation is not timed.

Measured on the shared 2-core machine (one BLAS thread, GEMM 54 GFLOP per CPU second;
CPU seconds are the comparable figures, wall times include waiting for the CPU):

| m | r | method | fit wall (cpu) s | LOO path 13 lambdas wall (cpu) s | peak RSS MB | test RMSE | floor s | fit cpu / floor |
|---|---|---|---|---|---|---|---|---|
| 1e5 | 1000 | direct | 3.1 (3.0) | 5.9 (5.7) | 242 | 0.1911 | 1.9 | 1.54 |
| 1e5 | 1000 | pcg, 20 it., cached | 4.0 (4.0) | | 984 | 0.1911 | | |
| 1e5 | 1000 | sklearn Nystroem+Ridge | 9.0 (8.9) | | 1835 | 0.1925 | 1.9 | 4.64 |
| 1e5 | 2000 | direct | 11.6 (11.3) | 20.9 (20.7) | 550 | 0.1545 | 7.6 | 1.49 |
| 1e5 | 2000 | pcg, 20 it., cached | 8.4 (8.3) | | 1923 | 0.1545 | | |
| 1e5 | 2000 | sklearn | 33.5 (32.9) | | 3452 | 0.1482 | 7.4 | 4.43 |
| 1e5 | 5000 | direct | 558 (124) | 314 (146) | 2677 | 0.1298 | | |
| 1e5 | 5000 | pcg, 20 it., cached | 44.5 (32.5) | | 5292 | 0.1298 | | |
| 1e5 | 5000 | pcg, 20 it., recomputed, one-array factors (``--pcg-cache no``; load 13) | 539 (94.7) | | 460 | 0.1298 | | |
| 1e5 | 10000 | pcg, 20 it., recomputed, one-array factors (``--pcg-cache no``; load 13) | 1562 (215) | | 1047 | 0.1238 | | |
| 1e5 | 5000 | sklearn | fails (6 GB limit: 3.73 GiB array) | | | | | |
| 1e6 | 1000 | direct | 221 (29.1) | 83 (52.4) | 504 | 0.1925 | 19.2 | 1.51 |
| 1e6 | 1000 | pcg, 20 it., recomputed | 169 (166) | | 427 | 0.1927 | | |
| 1e6 | 1000 | sklearn | fails (6 GB limit: 7.45 GiB array) | | | | | |
| 1e6 | 2000 | direct | 100.5 (98.3) | 178.8 (175.1) | 772 | 0.1479 | 76.1 | 1.29 |
| Beijing 373 585 | 1000 | direct | 10.2 (10.2) | 19.1 (19.1) | 360 | 0.3208 | 7.0 | 1.46 |
| Beijing | 1000 | sklearn | fails (6 GB limit: 2.78 GiB array) | | | | | |

(the 1e5 r = 5000 rows ran while the machine was loaded; the sklearn basis is its own
draw, hence its different RMSE at equal r.)
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import limit_threads  # noqa: E402

D = 20
N_TEST = 10_000
LAMBDA = 1.0
GRID = [2.0 ** k for k in range(-6, 7)]          # 13 lambdas
# PCG's kernel-block cache: "auto" (within a quarter of the available memory) or "no"
CACHE = {"auto": "auto", "no": False}[os.environ.get("RLSCORE_BENCH_PCG_CACHE", "auto")]


BEIJING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                       "data", "beijing_air_quality")


def _beijing(seed=0):
    """Beijing multi-site air quality (UCI 501): PM2.5 from the 10 other numeric columns
    (pollutants and weather), rows with a missing value dropped, features and target
    standardized on the training rows; a random 10 000 rows held out for testing."""
    import glob
    import numpy as np
    import pandas as pd
    cols = ["PM10", "SO2", "NO2", "CO", "O3", "TEMP", "PRES", "DEWP", "RAIN", "WSPM"]
    frames = [pd.read_csv(f, usecols=cols + ["PM2.5"])
              for f in sorted(glob.glob(os.path.join(BEIJING, "*.csv.xz")))]
    df = pd.concat(frames).dropna()
    X = df[cols].to_numpy(np.float64)
    y = np.log1p(df["PM2.5"].to_numpy(np.float64))
    perm = np.random.default_rng(seed).permutation(len(y))
    te, tr = perm[:N_TEST], perm[N_TEST:]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    X = (X - mu) / sd
    ym, ys = y[tr].mean(), y[tr].std()
    y = (y - ym) / ys
    return np.ascontiguousarray(X[tr]), y[tr], np.ascontiguousarray(X[te]), y[te]


def _data(m, seed=0):
    import numpy as np
    if m == 0:
        return _beijing(seed)
    rng = np.random.default_rng(seed)
    w1, w2 = rng.standard_normal(D) / np.sqrt(D), rng.standard_normal(D) / np.sqrt(D)

    def make(n):
        X = rng.standard_normal((n, D))
        y = np.sin(X @ w1) + 0.5 * np.cos(1.5 * X @ w2)
        return X, y + 0.1 * rng.standard_normal(n)
    X, y = make(m)
    Xt, yt = make(N_TEST)
    return X, y, Xt, yt


def _gemm_rate():
    """Measured DGEMM flop rate (flop per CPU second, so that the floor compares with
    the runs' CPU times on a shared machine), best of three 2000^3 products."""
    import numpy as np
    A = np.random.default_rng(0).standard_normal((2000, 2000))
    best = np.inf
    for _ in range(3):
        t = time.process_time()
        A @ A
        best = min(best, time.process_time() - t)
    return 2 * 2000 ** 3 / best


def _child(method, m, r, iters):
    import numpy as np
    X, y, Xt, yt = _data(m)
    m, d = X.shape
    rng = np.random.default_rng(1)
    idx = np.sort(rng.choice(m, r, replace=False))
    gamma = 1.0 / d
    out = dict(method=method, m=m, r=r)
    rate = _gemm_rate()
    if method in ("direct", "pcg"):
        from rlscore.core.rls import (NystromFactors, NystromFeatureMap,
                                      StreamedReducedSet, pcg_reduced_set)
        from rlscore.core.structure import ArraySource
        t0, c0 = time.perf_counter(), time.process_time()
        # PCG: the one-array factors (C and A in one r x r array, T by solves)
        fmap = (NystromFeatureMap if method == "direct" else NystromFactors)(
            "GaussianKernel", X[idx], gamma=gamma)
        src = ArraySource(X, y)
        if method == "direct":
            st = StreamedReducedSet(src, fmap, basis_indices=idx)
            W = st.solve(LAMBDA)
            out["fit"], out["fit_cpu"] = time.perf_counter() - t0, time.process_time() - c0
            pred = st.predictor(W).predict(Xt)
            out["rmse"] = float(np.sqrt(np.mean((np.ravel(pred) - yt) ** 2)))
            t1, c1 = time.perf_counter(), time.process_time()
            loo = st.leave_one_out_path(GRID)
            out["loo"], out["loo_cpu"] = time.perf_counter() - t1, time.process_time() - c1
            err = np.sqrt(np.mean((loo[:, :, 0] - y[:, None]) ** 2, axis=0))
            out["loo_best_lambda"] = GRID[int(np.argmin(err))]
            out["floor"] = (2 * m * r * d + m * r * r) / rate
        else:
            res = pcg_reduced_set(src, fmap, LAMBDA, tol=1e-12, maxiter=iters,
                                  cache=CACHE)
            out["fit"], out["fit_cpu"] = time.perf_counter() - t0, time.process_time() - c0
            out["iterations"] = res.iterations
            out["cached"] = res.extras["operator"].cached
            pred = fmap.predictor(res.solution).predict(Xt)
            out["rmse"] = float(np.sqrt(np.mean((np.ravel(pred) - yt) ** 2)))
            out["floor"] = (2 * m * r * d + 4 * m * r * res.iterations) / rate
    else:
        from sklearn.kernel_approximation import Nystroem
        from sklearn.linear_model import Ridge
        t0, c0 = time.perf_counter(), time.process_time()
        ny = Nystroem(kernel="rbf", gamma=gamma, n_components=r, random_state=1)
        F = ny.fit_transform(X)
        model = Ridge(alpha=LAMBDA, fit_intercept=False, solver="cholesky").fit(F, y)
        out["fit"], out["fit_cpu"] = time.perf_counter() - t0, time.process_time() - c0
        del F
        pred = model.predict(ny.transform(Xt))
        out["rmse"] = float(np.sqrt(np.mean((pred - yt) ** 2)))
        out["floor"] = (2 * m * r * d + m * r * r) / rate
    out["gflops"] = rate / 1e9
    out["m"] = m
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _run(method, m, r, iters, limit_gb):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", method, str(m), str(r),
           str(iters)]
    pre = None
    if limit_gb:
        lim = int(limit_gb * 2**30)

        def pre():
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=pre)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        return dict(method=method, m=m, r=r, error=tail[:90])
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fmt(v, f="{:.1f}"):
    return "" if v is None else f.format(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, nargs="+", default=[100_000],
                    help="rows of the synthetic data; 0 = the Beijing air-quality data")
    ap.add_argument("--r", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--methods", nargs="+", default=["direct", "pcg", "sklearn"])
    ap.add_argument("--iters", type=int, default=20, help="PCG iterations")
    ap.add_argument("--pcg-cache", choices=["auto", "no"], default="auto",
                    help="PCG kernel-block cache (no: recomputed, the factors' memory)")
    ap.add_argument("--limit-gb", type=float, default=6.0,
                    help="address-space limit of each child (GB)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        method, m, r, iters = a.child
        return _child(method, int(m), int(r), int(iters))
    os.environ["RLSCORE_BENCH_PCG_CACHE"] = a.pcg_cache
    print(f"threads={limit_threads()} d={D} lambda={LAMBDA} Gaussian gamma=1/d, "
          f"{N_TEST} test rows; LOO over {len(GRID)} lambdas")
    print("| m | r | method | fit wall (cpu) s | LOO path wall (cpu) s | peak RSS (MB) | "
          "test RMSE | floor (s) | fit cpu / floor | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in a.m:
        for r in a.r:
            for method in a.methods:
                res = _run(method, m, r, a.iters, a.limit_gb)
                if "error" in res:
                    print(f"| {res['m'] if m else str(res['m']) + ' Beijing'} | {r} | {method} | | | | | | | failed: {res['error']} |",
                          flush=True)
                    continue
                note = []
                if method == "pcg":
                    note.append(f"{res['iterations']} iterations, "
                                f"{'cached' if res['cached'] else 'recomputed'} blocks")
                if method == "direct":
                    note.append(f"LOO picks lambda={res['loo_best_lambda']:g}")
                note.append(f"GEMM {res['gflops']:.1f} GFLOP/s")
                loo = "" if res.get("loo") is None else \
                    f"{res['loo']:.1f} ({res['loo_cpu']:.1f})"
                print(f"| {res['m'] if m else str(res['m']) + ' Beijing'} | {r} | {method} | {res['fit']:.1f} ({res['fit_cpu']:.1f}) | "
                      f"{loo} | {_fmt(res['peak_mb'], '{:.0f}')} | "
                      f"{res['rmse']:.4f} | {_fmt(res['floor'])} | "
                      f"{res['fit_cpu'] / res['floor']:.2f} | {'; '.join(note)} |",
                      flush=True)


if __name__ == "__main__":
    limit_threads()
    main()
