"""Memory guard: each dense path estimates its own peak (one regparam, regparam path,
leave-one-out, leave-pair-out, leave-query-out, Kronecker) and refuses before
allocating when it exceeds the available memory, with the estimate and the way out in
the message. The slow test compares the estimates with peaks measured in child
processes (benchmarks/memory_peaks.py): within 25%."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import rlscore._validation as V
from rlscore import learner as L

rng = np.random.default_rng(0)
m = 80
X = rng.standard_normal((m, 3))
y = rng.standard_normal(m)
q = np.repeat(np.arange(m // 8), 8)
G = dict(kernel="GaussianKernel", gamma=0.3)


def _limit(monkeypatch, path, factor, n2=None):
    """Pretend the available memory is ``factor`` times the estimate of ``path``."""
    avail = int(V.estimate_peak_bytes(path, m if n2 is None else n2, n2) * factor)
    monkeypatch.setattr(V, "available_memory", lambda: avail)


@pytest.mark.parametrize("path,run,allowed", [
    ("one_lambda", lambda: L.RLS(X, y, **G), None),
    ("lambda_path", lambda: L.KfoldRLS(X, y, [list(range(40)), list(range(40, 80))],
                                       regparams=[1.0, 2.0], **G),
     lambda: L.RLS(X, y, **G)),
    ("loo", lambda: L.LeaveOneOutRLS(X, y, regparams=[1.0, 2.0], **G), None),
    ("loo", lambda: L.RLS(X, y, **G).leave_one_out(), None),
    ("lpo", lambda: L.LeavePairOutRLS(X, y, regparams=[1.0], **G), None),
    ("lqo", lambda: L.LeaveQueryOutRankRLS(X, y, q, regparams=[1.0], **G), None),
])
def test_each_path_refuses_beyond_its_estimate(monkeypatch, path, run, allowed):
    _limit(monkeypatch, path, 0.99)
    with pytest.raises(MemoryError) as exc:
        run()
    msg = str(exc.value)
    est = V.format_bytes(V.estimate_peak_bytes(path, m))
    assert f"{est} (estimated peak)" in msg
    assert "Nystrom" in msg and "CGRLS" in msg
    if allowed is not None:    # a cheaper path still runs under the same limit
        allowed()
    _limit(monkeypatch, path, 1.01)
    run()


def test_kronecker_refuses_with_the_cg_way_out(monkeypatch):
    X1, X2 = rng.standard_normal((30, 3)), rng.standard_normal((20, 3))
    Y = rng.standard_normal(600)
    avail = int(V.estimate_peak_bytes("kronecker", 30, 20) * 0.99)
    monkeypatch.setattr(V, "available_memory", lambda: avail)
    with pytest.raises(MemoryError, match="CGKronRLS"):
        L.KronRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y)


def test_paths_are_ordered_and_scale_with_m_squared():
    e = {p: V.estimate_peak_bytes(p, 1000) for p in V.PEAK_MATRICES}
    assert e["one_lambda"] < e["lambda_path"] < e["loo"] < e["lqo"] < e["lpo"]
    assert V.estimate_peak_bytes("loo", 2000) == 4 * e["loo"]
    with pytest.raises(ValueError, match="unknown path"):
        V.estimate_peak_bytes("nope", 10)


@pytest.mark.slow
def test_estimates_within_25_percent_of_measured_peaks():
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "memory_peaks.py")
    out = subprocess.run([sys.executable, script, "1500"], capture_output=True,
                         text=True, timeout=900, check=True).stdout
    ratios = {ln.split()[0]: float(ln.split()[-1]) for ln in out.splitlines()[1:]
              if re.match(r"^\w+\s", ln)}
    assert set(ratios) == set(V.PEAK_MATRICES) | {"kronecker"}
    for path, r in ratios.items():
        assert 0.75 <= r <= 1.25, (path, r, out)


@pytest.mark.slow
def test_reduced_set_estimates_within_20_percent_of_measured_peaks():
    """The arrays' part of the estimate a reduced-set face plans with
    (``model.plan.peak_bytes`` less what the process held) against the peak-RSS
    growth of a child process (benchmarks/memory_peaks.py --reduced): in
    memory and streamed, one fit and leave-one-out over 13 lambdas, and PCG (kernel
    blocks recomputed: the cache does not fit the budget); m = 4e4, b = 400."""
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "memory_peaks.py")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, script, "--reduced", "40000", "400"],
                         capture_output=True, text=True, timeout=900, check=True,
                         env=env).stdout
    ratios = {ln.split()[0]: float(ln.split()[-1]) for ln in out.splitlines()[1:]}
    assert set(ratios) == {"memory_fit", "memory_loo", "streamed_fit", "streamed_loo",
                           "pcg_fit"}
    for path, r in ratios.items():
        # pcg_fit is ~27 MiB, where the allocator's retained heap shows: the same code
        # and plan measured est/RSS 1.00 in an editable install and 0.77 in a clean
        # venv (RSS 27 vs 34 MiB; tracemalloc's peak 22.5 MiB = the estimate without
        # its fixed 4 MiB in both)
        low = 0.7 if path == "pcg_fit" else 0.8
        assert low <= r <= 1.2, (path, r, out)


def test_rank_streamed_estimates_count_the_centring_blocks():
    """RankRLS's streamed statistics centre each block (a query's means expanded and
    the centred copy; the global shift's copy): the estimate counts those block x k
    arrays, for the plan and for StreamedReducedSet alike."""
    from rlscore._memory import CENTRING_BLOCKS, ReducedSetSizes, reduced_set_peak_bytes
    from rlscore.core.nystrom import ComputePlan, Workload, plan_reduced_set
    rls = reduced_set_peak_bytes("streamed_fit", ReducedSetSizes(1000, 50, 5, 1), 100)
    for kind, c in CENTRING_BLOCKS.items():
        est = reduced_set_peak_bytes("streamed_fit",
                                     ReducedSetSizes(1000, 50, 5, 1, kind), 100)
        assert est - rls == 8.0 * c * 100 * 50
        plan = plan_reduced_set(Workload(1000, 50, 5, stream=True, kind=kind),
                                ComputePlan(memory_budget=None, block_size=100))
        # the plan's estimate is of the process: what it held, plus the arrays
        assert plan.peak_bytes - plan.baseline_bytes == est
    with pytest.raises(ValueError, match="kind"):
        reduced_set_peak_bytes("streamed", ReducedSetSizes(10, 2, kind="pairs"))


RANK_CHILD = r"""
import json, sys
import numpy as np
from rlscore.core.rankrls import streamed_rank_fit
from rlscore.core.structure import ArraySource

def hwm():
    # the peak of this process's own address space (VmHWM): getrusage's ru_maxrss
    # keeps the high-water mark of the forked parent across exec
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) * 1024

kind, block = sys.argv[1], int(sys.argv[2])
m, b = 40000, 400
rng = np.random.default_rng(0)
X = rng.standard_normal((m, 20)); y = rng.standard_normal(m)
src = ArraySource(X, y, qids=np.repeat(np.arange(m // 20), 20) if kind == "query" else None)
base = hwm()
from rlscore.core.nystrom import ComputePlan
fit = streamed_rank_fit(src, "GaussianKernel", {"gamma": 0.05}, kind, n_basis=b,
                        random_state=0, plan=ComputePlan(memory_budget=None,
                                                         block_size=block,
                                                         solver="direct"))
print(json.dumps({"est": fit.plan.peak_bytes - fit.plan.baseline_bytes,
                  "rss": hwm() - base}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["query", "global"])
@pytest.mark.parametrize("block", [800, 3200])
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_rank_streamed_estimates_within_20_percent_of_measured_peaks(kind, block):
    """Measured at m = 4e4, b = 400 (peak-RSS growth of a child process): query
    0.92-0.97, global 1.02-1.03 estimate / RSS."""
    import json
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", RANK_CHILD, kind,
                          str(block)], capture_output=True, text=True, timeout=900,
                         check=True, env=env).stdout
    r = json.loads(out)
    assert 0.8 <= r["est"] / r["rss"] <= 1.2, r


def test_the_plan_counts_what_the_process_holds(monkeypatch):
    """The budget is the process's (issue 44 item 15): with 100 MiB held, a budget of
    100 MiB + the in-memory arrays no longer keeps the model in memory once the arrays
    alone would fit but the process would not; the streamed plan's estimate is the
    100 MiB plus its arrays and fits the budget; 90 MiB is refused as below the
    process."""
    import rlscore.core.nystrom._memory_plan as plan_mod
    from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
    from rlscore.core.nystrom import ComputePlan, Workload
    from rlscore.core.nystrom import plan_reduced_set as plan_work

    def plan_reduced_set(m, b, d, memory_budget):
        return plan_work(Workload(m, b, d), ComputePlan(memory_budget=memory_budget))
    held = 100 * 2**20
    monkeypatch.setattr(plan_mod, "process_bytes", lambda: float(held))
    m, b, d = 20000, 200, 10
    mem = reduced_set_peak_bytes("memory", ReducedSetSizes(m, b, d))
    budget = (held + mem / 2) / 2**20             # the arrays alone fit, not the process
    plan = plan_reduced_set(m, b, d, memory_budget=budget)
    assert plan.baseline_bytes == held and plan.path == "streamed"
    arrays = reduced_set_peak_bytes("streamed_fit", ReducedSetSizes(m, b, d, 1),
                                    plan.block_size)
    assert plan.peak_bytes == held + arrays <= budget * 2**20
    roomy = plan_reduced_set(m, b, d, memory_budget=(held + 2 * mem) / 2**20)
    assert roomy.path == "memory" and roomy.peak_bytes == held + mem
    with pytest.raises(ValueError, match="too small for this process: it already holds "
                                         "100.00 MiB resident"):
        plan_reduced_set(m, b, d, memory_budget=90)
