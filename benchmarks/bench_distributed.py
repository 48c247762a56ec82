"""rlscore.distributed on a LocalCluster: overhead against the single-machine learner,
pairs across partitions (global ranking), the distributed c-index, and an out-of-core
problem (float32 on disk, larger than one float64 array in memory).

    python benchmarks/bench_distributed.py [--quick] [--gb 12] [--dir /tmp]
        [--m-global 1000000] [--m-cindex 10000000] [--skip-local] [--skip-out-of-core]

Table 0 (global ranking, pairs across the 2 partitions): seconds per iteration of the
hinge RankSVM (bundle) and the squared-hinge RankSVM (TRON, per Newton step with the
same CG iterations on both sides) against the single machine on the same data; bytes
sent per iteration: the workers' own counter of the bytes they served
(``Worker.transfer_outgoing_bytes_total``: the predictions and gradients gathered)
plus the task arguments sent to them (the loss coefficients and w, ``dask.sizeof``),
against the bytes of X. Then the c-index of m = 10^7 rows in 2 partitions against
``rlscore.measure.cindex`` on one array.

Table 1 (overhead): seconds per iteration of the single-machine solver (the same core
code on one in-memory float64 array, one thread) against rlscore.distributed with 2
worker processes of 1 thread (persisted partitions), same data, same iterations; ratio
= distributed / single. Table 2 (out of core): a float32 .npy file of ``--gb`` GB
read chunk by chunk on every pass (persist=False); throughput per worker in examples
per second per iteration. Medians of the timed iterations. The machine may be shared:
the load average is printed.
"""

import argparse
import os
import shutil
import time

from _timing import limit_threads, median_time

limit_threads()

import numpy as np  # noqa: E402


def _load(path, a, b, dtype_kind):
    arr = np.load(path, mmap_mode="r")
    return np.array(arr[a:b])


def on_disk(dirname, m, d, q_size, seed=0):
    """X (float32), y, qids as .npy files written in blocks (never all in memory)."""
    os.makedirs(dirname, exist_ok=True)
    px, py, pq = (os.path.join(dirname, f) for f in ("X.npy", "y.npy", "q.npy"))
    if os.path.exists(px) and np.load(px, mmap_mode="r").shape == (m, d):
        return px, py, pq
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d).astype(np.float32)
    base = rng.standard_normal((1 << 16, d)).astype(np.float32)
    X = np.lib.format.open_memmap(px, mode="w+", dtype=np.float32, shape=(m, d))
    y = np.lib.format.open_memmap(py, mode="w+", dtype=np.float64, shape=(m,))
    step = 1 << 16
    for k, a in enumerate(range(0, m, step)):
        b = min(m, a + step)
        blk = np.roll(base[: b - a], k * 37, axis=0) * np.float32(1 + 0.01 * (k % 13))
        blk[:, k % d] += np.float32(0.1)
        X[a:b] = blk
        y[a:b] = np.round(blk @ w + rng.standard_normal(b - a), 1)
    X.flush()
    y.flush()
    del X, y
    np.save(pq, np.arange(m, dtype=np.int64) // q_size)
    return px, py, pq


def dask_arrays(px, py, pq, m, d, rows):
    import dask
    import dask.array as da
    cuts = list(range(0, m, rows)) + [m]
    def col(path, shape_tail, dtype):
        return da.concatenate([
            da.from_delayed(dask.delayed(_load, pure=True)(path, a, b, 0),
                            shape=(b - a,) + shape_tail, dtype=dtype)
            for a, b in zip(cuts[:-1], cuts[1:])])
    return col(px, (d,), np.float32), col(py, (), np.float64), col(pq, (), np.int64)


def per_iter(history):
    t = np.diff([0.0] + [h["time"] for h in history])
    return float(np.median(t[1:])) if t.size > 1 else float(t[0])


def overhead(client, m, d, q_size, iters):
    import dask.array as da
    import rlscore.distributed as rd
    from rlscore.core.rls import CGRLSOptions, cg_rls
    from rlscore.core.ranksvm import RankingRisk, RankSVMOptions, solve_ranksvm
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, d))
    y = np.round(X @ rng.standard_normal(d) + rng.standard_normal(m), 1)
    q = np.arange(m) // q_size
    rows = []
    # RankSVM: the bundle iterations, same number on both sides (no warm start)
    risk = RankingRisk(X, y, q)
    s = solve_ranksvm(risk, 1e-4,
                      options=RankSVMOptions(rtol=1e-12, maxiter=iters, warn=False,
                                             warm_start=None))
    t_single = per_iter(s.history)
    ch = rd.query_chunks(q, 2 * len(client.scheduler_info()['workers']))
    Xd = da.from_array(X, chunks=(ch, -1))
    data = rd.PartitionedData(Xd, y, q, client=client, persist=True)
    dist = rd.LinearRankSVM(data, regparam=1e-4, tol=1e-12, max_iter=iters)
    t_dist = per_iter(dist.history)
    rows.append(("LinearRankSVM (bundle iteration)", m, d, t_single, t_dist))
    # CG RLS: seconds per CG iteration
    times = []
    cg_rls(X, y, 1.0, 1.0, options=CGRLSOptions(form="primal"), rtol=1e-15, maxiter=iters, callback=lambda k, x,
           op, r: times.append(time.perf_counter()))
    t_single = float(np.median(np.diff(times)))
    times = []
    rd.CGRLS(data, regparam=1.0, bias=1.0, tol=1e-15, maxiter=iters,
             callback=lambda info: times.append(time.perf_counter()))
    t_dist = float(np.median(np.diff(times)))
    rows.append(("CGRLS (CG iteration)", m, d, t_single, t_dist))
    return rows


def _served(client):
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
               .values())


class _ArgBytes:
    """Counts the bytes of the task arguments the global scheme sends (coefficient
    slices and w) by wrapping PartitionedData.map_submit."""

    def __init__(self):
        self.total = 0

    def __enter__(self):
        from dask.sizeof import sizeof
        import rlscore.distributed._data as dmod
        self._orig = dmod.PartitionedData.map_submit
        orig, me = self._orig, self

        def counting(data, func, states=None, *args, per_part=None, partitions=None):
            n = data.n_partitions if partitions is None else len(partitions)
            me.total += n * sum(sizeof(a) for a in args)
            if per_part is not None:
                me.total += sum(sizeof(a) for t in per_part for a in t)
            return orig(data, func, states, *args, per_part=per_part,
                        partitions=partitions)
        dmod.PartitionedData.map_submit = counting
        return self

    def __exit__(self, *exc):
        import rlscore.distributed._data as dmod
        dmod.PartitionedData.map_submit = self._orig


def global_overhead(client, m, d, iters):
    """Global ranking (no qids) over 2 partitions: per-iteration time and bytes."""
    import dask.array as da
    from distributed import wait
    import rlscore.distributed as rd
    from rlscore.core.ranksvm import (RankingRisk, RankSVMOptions, SquaredRankingRisk,
                                      solve_ranksvm,
                                      solve_ranksvm_newton)
    from rlscore.distributed.ranksvm import solve_newton
    rng = np.random.default_rng(2)
    X = rng.standard_normal((m, d))
    y = np.round(X @ rng.standard_normal(d) + rng.standard_normal(m), 1)
    Xd = da.from_array(X, chunks=(m // 2 + 1, -1))
    data = rd.PartitionedData(Xd, y, client=client, persist=True)
    wait(data._parts)
    rows = []
    s = solve_ranksvm(RankingRisk(X, y), 1e-4,
                      options=RankSVMOptions(rtol=1e-12, maxiter=iters, warn=False,
                                             warm_start=None))
    t_single = per_iter(s.history)
    risk = rd.DistributedRankingRisk(data)           # set-up: the utilities, once
    b0 = _served(client)
    with _ArgBytes() as ab:
        dist = solve_ranksvm(risk, 1e-4,
                             options=RankSVMOptions(rtol=1e-12, maxiter=iters, warn=False,
                                                    warm_start=None))
    up, down = (_served(client) - b0) / dist.iterations, ab.total / dist.iterations
    rows.append(("global hinge, bundle (iteration)", m, d, t_single, per_iter(dist.history),
                 up, down))
    lam, steps = 1e-4, max(2, iters // 3)
    s = solve_ranksvm_newton(SquaredRankingRisk(X, y), lam,
                             options=RankSVMOptions(loss="squared_hinge", rtol=1e-12,
                                                    maxiter=steps, warm_start=None, warn=False))
    t_single = per_iter(s.history)
    risk = rd.DistributedRankingRisk(data, loss="squared_hinge")
    b0 = _served(client)
    with _ArgBytes() as ab:
        sol = solve_newton(risk, lam,
                           options=RankSVMOptions(loss="squared_hinge", rtol=1e-12,
                                                  maxiter=steps, warn=False))
    up, down = (_served(client) - b0) / sol.iterations, ab.total / sol.iterations
    assert sol.cg_iterations == s.cg_iterations, (sol.cg_iterations, s.cg_iterations)
    rows.append((f"global squared hinge, TRON (Newton step, "
                 f"{s.cg_iterations / s.iterations:.1f} CG)", m, d, t_single,
                 per_iter(sol.history), up, down))
    return rows


def cindex_bench(client, m, repeats):
    import dask.array as da
    import rlscore.distributed.measure as dm
    from rlscore.measure import cindex
    rng = np.random.default_rng(3)
    y = rng.standard_normal(m).round(2)
    p = y + rng.standard_normal(m)
    ts, a = median_time(lambda: cindex(y, p), repeats)
    Y = client.persist(da.from_array(y, chunks=(m // 2 + 1,)))
    P = client.persist(da.from_array(p, chunks=(m // 2 + 1,)))
    b0 = _served(client)
    td, b = median_time(lambda: dm.cindex(Y, P, client=client), repeats)
    served = (_served(client) - b0) // max(1, repeats)      # per call
    assert a == b, (a, b)
    return ts, td, served, a


def out_of_core(client, gb, dirname, d, q_size, rows_per_chunk, iters, n_workers):
    import rlscore.distributed as rd
    m = int(gb * 1e9 / (4 * d))
    t0 = time.perf_counter()
    px, py, pq = on_disk(dirname, m, d, q_size)
    t_write = time.perf_counter() - t0
    Xd, yd, qd = dask_arrays(px, py, pq, m, d, rows_per_chunk)
    data = rd.PartitionedData(Xd, yd, qd, client=client, persist=False)
    out = []
    t0 = time.perf_counter()
    svm = rd.LinearRankSVM(data, regparam=1e-4, tol=1e-12, max_iter=iters, verbose=True)
    t_setup = time.perf_counter() - t0 - svm.history[-1]["time"]
    t_it = per_iter(svm.history)
    out.append(("LinearRankSVM", m, d, data.n_partitions, t_setup, t_it,
                m / t_it / n_workers))
    times = []
    rd.CGRLS(data, regparam=1.0, tol=1e-15, maxiter=iters, verbose=True,
             callback=lambda info: times.append(time.perf_counter()))
    t_it = float(np.median(np.diff(times)))
    out.append(("CGRLS", m, d, data.n_partitions, float("nan"), t_it,
                m / t_it / n_workers))
    return out, m, t_write


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gb", type=float, default=14.0,
                    help="size of the float32 X on disk (GB)")
    ap.add_argument("--dir", default="/tmp/rlscore_bench_distributed")
    ap.add_argument("--keep", action="store_true", help="keep the data files")
    ap.add_argument("--m-overhead", type=int, default=2000000,
                    help="rows of the in-memory problem of the overhead table")
    ap.add_argument("--skip-out-of-core", action="store_true")
    ap.add_argument("--skip-local", action="store_true")
    ap.add_argument("--m-global", type=int, default=1000000,
                    help="rows of the global-ranking problem")
    ap.add_argument("--m-cindex", type=int, default=10000000,
                    help="rows of the distributed c-index")
    args = ap.parse_args()
    import dask
    from distributed import Client, LocalCluster
    # the partitions stay where they were persisted: no task is stolen by the other
    # worker together with its 8 m_p d bytes (on a busy machine it happens otherwise)
    dask.config.set({"distributed.scheduler.work-stealing": False})
    n_workers = 2
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=":0")
    client = Client(cluster)
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores (shared)")
    m_global = 20000 if args.quick else args.m_global
    d = 50
    rows = global_overhead(client, m_global, d, 6 if args.quick else 10)
    print("\nglobal ranking (pairs across 2 partitions), 2 workers x 1 thread")
    print("\n| learner | m | d | single s/it | distributed s/it | ratio | served/it "
          "(up) | task args/it (down) | bytes of X | (up + down) / X |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, m, d_, ts, tdist, up, down in rows:
        xb = m * d_ * 8
        print(f"| {name} | {m} | {d_} | {ts:.4f} | {tdist:.4f} | {tdist / ts:.2f} | "
              f"{up / 1e6:.2f} MB | {down / 1e6:.2f} MB | {xb / 1e6:.0f} MB | "
              f"{(up + down) / xb:.3f} |")
    m_c = 200000 if args.quick else args.m_cindex
    ts, td, served, value = cindex_bench(client, m_c, 1 if not args.quick else 2)
    print(f"\n| c-index | m | single s | distributed s | ratio | bytes served |")
    print("|---|---|---|---|---|---|")
    print(f"| {value:.6f} (equal) | {m_c} | {ts:.2f} | {td:.2f} | {td / ts:.2f} | "
          f"{served / 1e6:.0f} MB ({served / m_c:.0f} per row) |")
    if not args.skip_local:
        m_small = 20000 if args.quick else args.m_overhead
        rows = overhead(client, m_small, 50, 20, 6 if args.quick else 12)
        print("\n| learner | m | d | single s/it | distributed s/it | ratio |")
        print("|---|---|---|---|---|---|")
        for name, m, d, ts, tdist in rows:
            print(f"| {name} | {m} | {d} | {ts:.4f} | {tdist:.4f} | {tdist / ts:.2f} |")
    if args.skip_out_of_core:
        client.close()
        cluster.close()
        return
    gb = 0.2 if args.quick else args.gb
    free = shutil.disk_usage(os.path.dirname(args.dir.rstrip("/")) or "/").free / 1e9
    if gb * 1.1 > free:
        raise SystemExit(f"only {free:.1f} GB free for a {gb} GB data set")
    d = 200
    res, m, t_write = out_of_core(client, gb, args.dir, d, 100,
                                  20000 if args.quick else 250000,
                                  3 if args.quick else 4, n_workers)
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    print(f"\nout of core: X float32 {m} x {d} = {m * d * 4 / 1e9:.1f} GB on disk "
          f"(float64 in one array: {m * d * 8 / 2**30:.1f} GiB; RAM {mem:.1f} GiB); "
          f"written in {t_write:.0f} s")
    print("\n| learner | m | d | partitions | set-up s | s/iteration | examples/s/worker |")
    print("|---|---|---|---|---|---|---|")
    for name, m_, d_, P, ts, ti, thr in res:
        print(f"| {name} | {m_} | {d_} | {P} | {ts:.1f} | {ti:.2f} | {thr:.3g} |")
    print(f"\nload average after: {os.getloadavg()}")
    client.close()
    cluster.close()
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
