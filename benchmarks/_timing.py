"""Timing helpers shared by the benchmark scripts: one BLAS/OpenMP thread, the median of
several runs, the machine load, and the markdown rows of the ratio tables.

Import this module before numpy (``limit_threads`` sets the thread environment
variables, which BLAS reads when it loads); ``one_blas_thread`` additionally pins
already-loaded BLAS libraries through threadpoolctl when it is installed. Ratios are
always taken against a baseline run in the same process.
"""

import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def limit_threads(n=None):
    """Set the BLAS/OpenMP thread variables (unless the caller set them) to n, default
    ``RLSCORE_BENCH_THREADS`` or 1: the machine is shared and oversubscribed threads make
    the numbers meaningless. Returns the value in effect."""
    n = str(n if n is not None else os.environ.get("RLSCORE_BENCH_THREADS", "1"))
    for var in _THREAD_VARS:
        os.environ.setdefault(var, n)
    return os.environ["OPENBLAS_NUM_THREADS"]


def one_blas_thread():
    """Context manager limiting the loaded BLAS libraries to one thread (threadpoolctl),
    or doing nothing when threadpoolctl is not installed."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def run_times(fn, repeats=3, setup=None):
    """(wall-clock seconds, process CPU seconds, last return value) of ``repeats`` calls
    of fn(); with ``setup``, each call is fn(setup()) and only fn is timed (a fresh,
    untimed state per run: a trained model whose shortcut is measured, ...)."""
    walls, cpus, out = [], [], None
    for _ in range(max(1, int(repeats))):
        args = () if setup is None else (setup(),)
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn(*args)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, out


def median_time(fn, repeats=3, setup=None):
    """(median wall-clock seconds of ``repeats`` calls of fn(), the last return value);
    ``setup`` as in :func:`run_times`."""
    walls, _, out = run_times(fn, repeats, setup)
    return statistics.median(walls), out


def median_wall_cpu(fn, repeats=3, setup=None):
    """(median wall seconds, median process CPU seconds, last return value) of
    ``repeats`` calls of fn(). With one thread the CPU time is the work done, robust to
    the load of a shared machine; with several it sums the threads."""
    walls, cpus, out = run_times(fn, repeats, setup)
    return statistics.median(walls), statistics.median(cpus), out


def interleaved_times(fns, repeats=3):
    """Wall seconds of each of ``fns``, run in turn ``repeats`` times (one list per
    function): on a shared machine a descheduled run then hits one variant, not a
    whole series of one of them."""
    times = [[] for _ in fns]
    for _ in range(max(1, int(repeats))):
        for t, fn in zip(times, fns):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return times


def load():
    """The 1-minute load average (NaN where the OS does not report it)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def machine_line():
    """One line describing the conditions of a run."""
    return (f"load average {load():.2f}, {os.cpu_count()} CPUs, BLAS/OpenMP threads "
            f"{os.environ.get('OPENBLAS_NUM_THREADS')}/{os.environ.get('OMP_NUM_THREADS')}")


HEADER = ("| benchmark | rlscore | baseline | ratio | target | | note |\n"
          "|---|---|---|---|---|---|---|")


def row(name, ours, base=None, base_name="", target=None, note="", unit="s"):
    """Print one markdown row of a ratio table and return the ratio ours / base.

    Without a baseline (base None) the target bounds ``ours`` itself; otherwise it
    bounds the ratio. The flag is "ok" or "MISSED" (empty without a target).
    """
    if base is None:
        ratio = None
        value = ours
        cols = f"{ours:.3f} {unit} | - | - "
    else:
        ratio = ours / base
        value = ratio
        cols = f"{ours:.3f} {unit} | {base_name}: {base:.3f} {unit} | {ratio:.3f} "
    if target is None:
        tcol = ""
        flag = ""
    else:
        tcol = f"<= {target}{' ' + unit if base is None else ''}"
        flag = "ok" if value <= target else "MISSED"
    print(f"| {name} | {cols}| {tcol} | {flag} | {note} |", flush=True)
    return ratio


ENGINE_HEADER = ("| benchmark | rlscore | peer | rlscore / peer | floor | rlscore / floor | target "
                 "| |\n|---|---|---|---|---|---|---|---|")


def peer_floor_row(name, ours, peer=None, peer_name="", floor=None, floor_name="",
                   target=None, against="peer", note=""):
    """Print one row of a peer / rlscore / floor table (``ENGINE_HEADER``); the target
    bounds the ratio to ``against`` ("peer" or "floor"). Returns (ours / peer,
    ours / floor), None where there is no such baseline."""
    rp = ours / peer if peer is not None else None
    rf = ours / floor if floor is not None else None
    pc = f"{peer_name}: {peer:.3f} s | {rp:.2f}" if peer is not None else "- | -"
    fc = f"{floor_name}: {floor:.3f} s | {rf:.2f}" if floor is not None else "- | -"
    flag = ""
    if target is not None:
        value = rp if against == "peer" else rf
        flag = "ok" if value <= target else "MISSED"
        target = f"{against} <= {target}"
    print(f"| {name} | {ours:.3f} s | {pc} | {fc} | {target or ''} | {flag} {note} |",
          flush=True)
    return rp, rf


def cli_json(code, argv):
    """(wall s, CPU s of the child, its JSON output) of one ``rlscore`` command run as
    ``python -P -c code *argv`` in a new process (importing and reading included);
    exits with the command's error output when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-P", "-c", code, *argv],
                         capture_output=True, text=True, env=os.environ.copy())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"rlscore {argv[0]} failed ({out.returncode}):\n{out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(out.stdout)
