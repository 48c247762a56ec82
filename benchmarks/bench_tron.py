"""Squared-hinge linear RankSVM with the trust-region Newton method (issue 10) against
the LIBLINEAR RankSVM figures of the issue, and next to the hinge-loss bundle solver.

Data as in the issue: 50 dense standard normal features, one query with distinct
real-valued utilities y = X w* + noise, m = 10^4, 10^5, 10^6; and 1000 queries x 20
documents with graded labels 0..4. regparam = 1e-3 with ``normalize="pairs"``, i.e.
Lee & Lin's J2(w) = 1/2 ||w||^2 + C sum_pairs max(0, 1 - w.x_i + w.x_j)^2 with
C = 1 / (regparam N), 1 / (C N) = 1e-3 exactly; stopping rule
||grad J2(w)|| <= 1e-3 ||grad J2(0)||.

Columns: the Newton solver's time (median of ``--repeats`` runs; the pair structure,
one sort by utility, is built once before and timed separately as "setup"), the
LIBLINEAR figure quoted in the issue (measured single-threaded on this machine kind,
+-30 %) and the ratio (target <= 0.8), J2 at the solution, the Newton steps on all the
data (+ those on the random subsets of the warm start) and CG iterations, the final
||g|| / ||g0||, the same solver without the subsample warm start, and the pairwise
accuracy (c-index; per query, averaged, for the query data) on held-out data (10^5
examples, or 1000 other queries) next to the hinge-loss bundle solver's (regparam 1e-3,
tol 1e-3, its own default stopping rule) time and accuracy.

Both cores are used by the sweeps (n_threads=2, from 50000 examples on) unless
RLSCORE_BENCH_THREADS says otherwise; BLAS gets one thread (see below). The machine load is printed: other processes
make every number noisy. Run:  python benchmarks/bench_tron.py [--quick]
"""

import argparse
import os

# The sweeps run on both cores (OpenMP, n_threads = OMP_NUM_THREADS); the products with
# X are memory-bound dgemv calls that a second BLAS thread does not speed up here, and a
# BLAS team on a busy machine waits for its threads (10x slower at m = 10^4): BLAS gets
# one thread unless the caller sets it.
os.environ.setdefault("OMP_NUM_THREADS", os.environ.get("RLSCORE_BENCH_THREADS", "2"))
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from _timing import median_time  # noqa: E402

import numpy as np  # noqa: E402

LIBLINEAR = {10_000: 0.16, 100_000: 1.9, 1_000_000: 24.8}   # seconds, from the issue
REGPARAM = 1e-3
TOL = 1e-3


def global_data(m, m_test, n=50, seed=0):
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(n)
    X = rng.standard_normal((m + m_test, n))
    y = X @ w_star + rng.standard_normal(m + m_test)
    return X[:m], y[:m], None, X[m:], y[m:], None


def query_data(nq, size, n=50, seed=4):
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(n)
    m = 2 * nq * size
    X = rng.standard_normal((m, n))
    s = X @ w_star + rng.standard_normal(m)
    y = np.digitize(s, np.quantile(s, [0.4, 0.7, 0.85, 0.95])).astype(float)
    q = np.repeat(np.arange(2 * nq), size)
    h = nq * size
    return X[:h], y[:h], q[:h], X[h:], y[h:], q[h:]


def accuracy(X, y, q, w):
    from rlscore.measure import cindex, query_cindex
    p = X @ w
    return float(cindex(y, p) if q is None else query_cindex(y, p, q))


def run(label, data, repeats, n_threads, baseline, bundle_repeats):
    from rlscore.core.ranksvm import (RankingRisk, RankSVMOptions, SquaredRankingRisk,
                                      solve_ranksvm,
                                      solve_ranksvm_newton)
    X, y, q, Xt, yt, qt = data
    t_setup, risk = median_time(lambda: SquaredRankingRisk(X, y, q, n_threads=n_threads),
                                1)
    t_newton, sol = median_time(lambda: solve_ranksvm_newton(risk, REGPARAM,
                                                             options=RankSVMOptions(loss="squared_hinge", rtol=TOL)),
                                repeats)
    t_cold, cold = median_time(
        lambda: solve_ranksvm_newton(risk, REGPARAM,
                                     options=RankSVMOptions(loss="squared_hinge", rtol=TOL,
                                                            warm_start=None)), repeats)
    acc = accuracy(Xt, yt, qt, sol.w)
    hinge_risk = RankingRisk(X, y, q, n_threads=n_threads)
    del risk
    t_bundle, bsol = median_time(lambda: solve_ranksvm(hinge_risk, REGPARAM,
                                                       options=RankSVMOptions(rtol=TOL)),
                                 bundle_repeats)
    acc_b = accuracy(Xt, yt, qt, bsol.w)
    if baseline is None:
        base, ratio, verdict = "-", "-", "-"
        ratio_cold = "-"
    else:
        r = t_newton / baseline
        base, ratio = f"{baseline:.2f} s", f"{r:.3f}"
        verdict = "ok" if r <= 0.8 else "MISSED"
        ratio_cold = f"{t_cold / baseline:.3f}"
    print(f"| {label} | {t_newton:.3f} s | {base} | {ratio} | {verdict} | "
          f"{sol.objective / REGPARAM:.6g} | {sol.iterations} (+{sol.warm_start_iterations}"
          f" on subsets) / {sol.cg_iterations} CG | {sol.grad_norm / sol.grad_norm0:.1e} | "
          f"{t_cold:.3f} s ({ratio_cold}), {cold.iterations} / {cold.cg_iterations} CG, "
          f"J2 {cold.objective / REGPARAM:.6g} | {t_setup:.3f} s | {acc:.4f} | "
          f"{t_bundle:.3f} s, {bsol.iterations} it | {acc_b:.4f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m <= 10^5 only, 1 repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n_threads = int(os.environ["OMP_NUM_THREADS"])
    repeats = 1 if args.quick else args.repeats
    print(f"load average {os.getloadavg()}, {os.cpu_count()} CPUs, OpenMP/BLAS threads "
          f"{os.environ['OMP_NUM_THREADS']}/{os.environ['OPENBLAS_NUM_THREADS']}, "
          f"regparam {REGPARAM:g} (1/(C N)), tol {TOL:g}", flush=True)
    print("| data | Newton (TRON) solver time | LIBLINEAR (issue) | ratio | <= 0.8 | J2 | "
          "Newton steps / CG | final |g|/|g0| | without subsample warm start "
          "(ratio) | setup | held-out pairwise acc. | hinge bundle time | hinge acc. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    sizes = [10_000, 100_000] + ([] if args.quick else [1_000_000])
    for m in sizes:
        data = global_data(m, 100_000)
        run(f"m={m}, 1 query, distinct y", data, repeats if m < 10 ** 6 else
            max(1, repeats), n_threads, LIBLINEAR[m], 1 if m >= 10 ** 6 else repeats)
        del data
    data = query_data(1000, 20)
    run("1000 queries x 20 docs, labels 0..4", data, repeats, n_threads, None, repeats)
    print(f"load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
