"""Linear RankSVM benchmarks (issue 4): ratios against baselines run in the same process.

Rows (dense data, n = 50 features, distinct real utilities y = X w* + noise):

(a) one loss + subgradient evaluation at m = 10^6 divided by the cost of its
    unavoidable parts (np.argsort of the predictions + X @ w + X^T g); target <= 3.
    Reported at the trained w (where the solver spends its iterations) and at a random
    w, for the default engine ("fenwick") and the red-black-tree engine ("rbtree").
(b) log-log slope of the evaluation time over m = 10^4 ... 10^6; target <= 1.15.
(c) m = 2000 (~2 10^6 pairs): training time divided by scikit-learn's LinearSVC
    (hinge loss, C = 1 / (regparam N), defaults otherwise) on the explicit pair
    differences; target <= 1/50 with an objective no worse.
(d) full training at m = 10^6 to tol 1e-3; target < 60 s.
(q) query-structured data: 10^4 queries x 20 documents, graded labels 0..4:
    evaluation ratio as in (a), and training time.

Timings are the median of ``--repeats`` runs. The machine load is printed: other
processes make every number noisy. Run:  python benchmarks/bench_ranksvm.py [--quick]
"""

import argparse

# One BLAS / OpenMP thread unless the caller sets them: the machine is shared, and
# oversubscribed threads make matrix-vector products 10x slower and the numbers
# meaningless. Both rlscore and the baselines run under the same setting.
from _timing import HEADER, limit_threads, load, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402


def make_data(m, n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    y = X @ rng.standard_normal(n) + rng.standard_normal(m)
    return X, y


def eval_ratio(risk, X, w, repeats, engine):
    """(evaluation time, baseline time) at w."""
    from rlscore.core.ranksvm import RankingRisk  # noqa: F401
    rng = np.random.default_rng(5)
    g = rng.standard_normal(X.shape[0])

    def ours():
        p = X @ w
        coef = np.empty(X.shape[0])
        loss = risk.pairs.hinge(p, risk.weights, coef, risk.n_threads, engine)
        return loss, X.T @ coef

    def base():
        p = X @ w
        np.argsort(p)
        return X.T @ g

    t_ours, _ = median_time(ours, repeats)
    t_base, _ = median_time(base, repeats)
    return t_ours, t_base


def bench_a_d(repeats, quick, regparams):
    from rlscore.core.ranksvm import RankingRisk, RankSVMOptions, solve_ranksvm
    m = 200_000 if quick else 1_000_000
    X, y = make_data(m)
    risk = RankingRisk(X, y)
    # (d) training
    trained = {}
    for lam in regparams:
        t, sol = median_time(lambda: solve_ranksvm(risk, lam,
                                                   options=RankSVMOptions(rtol=1e-3,
                                                                          maxiter=2000)), 1)
        trained[lam] = sol
        row(f"(d) train m={m}, regparam={lam:g}, tol=1e-3", t, 60.0, "target", 1,
            note=f"{sol.iterations} iterations, gap {sol.duality_gap:.2e}, "
                 f"J {sol.objective:.6f}")
    w_trained = trained[regparams[0]].w
    w_random = np.random.default_rng(1).standard_normal(X.shape[1])
    for label, w in (("trained w", w_trained), ("random w", w_random)):
        for engine in ("fenwick", "rbtree"):
            if engine == "rbtree" and quick is False and label == "random w":
                reps = 1
            else:
                reps = repeats
            t_ours, t_base = eval_ratio(risk, X, w, reps, engine)
            row(f"(a) loss+subgradient m={m}, {label}, engine={engine}", t_ours, t_base,
                "argsort(p) + X@w + X^T g", 3)


def bench_b(repeats, quick):
    from rlscore.core.ranksvm import RankingRisk
    sizes = [10_000, 30_000, 100_000, 300_000] + ([] if quick else [1_000_000])
    times = []
    for m in sizes:
        X, y = make_data(m, seed=2)
        risk = RankingRisk(X, y)
        w = np.linalg.lstsq(X[:5000], y[:5000], rcond=None)[0]
        t, _ = median_time(lambda: risk(w), repeats)
        times.append(t)
        print(f"|   m={m}: {t * 1e3:.1f} ms per evaluation", flush=True)
    slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
    row(f"(b) log-log slope of evaluation time, m={sizes[0]}..{sizes[-1]}", slope,
        target=1.15, unit="")


def bench_c(repeats, regparam):
    from sklearn.svm import LinearSVC

    from rlscore.core.ranksvm import RankingRisk, RankSVMOptions, solve_ranksvm
    m = 2000
    X, y = make_data(m, seed=3)
    risk = RankingRisk(X, y)
    N = risk.n_pairs
    runs = {tol: median_time(lambda: solve_ranksvm(risk, regparam,
                                                   options=RankSVMOptions(rtol=tol)), repeats)
            for tol in (1e-3, 1e-10)}
    u, l = np.nonzero(y[:, None] > y[None, :])
    sign = np.where(np.random.default_rng(0).random(N) < 0.5, 1.0, -1.0)
    Z = (X[u] - X[l]) * sign[:, None]
    del u, l
    C = 1.0 / (regparam * N)
    svc = LinearSVC(loss="hinge", C=C, fit_intercept=False, dual=True)
    t_svc, _ = median_time(lambda: svc.fit(Z, sign), 1)
    w = svc.coef_.ravel()
    J_svc = 0.5 * regparam * w @ w + risk.value(w)
    for tol, (t_ours, sol) in runs.items():
        J_ours = sol.objective
        row(f"(c) train m={m} ({N} pairs), regparam={regparam:g}, tol={tol:g}", t_ours,
            t_svc, f"LinearSVC(hinge, C={C:.3g}) on pair differences", 0.02,
            note=f"J ours {J_ours:.10f} (gap {sol.duality_gap:.1e}), J LinearSVC "
                 f"{J_svc:.10f}{'' if J_ours <= J_svc else ' (objective MISSED)'}")


def bench_q(repeats, quick):
    from rlscore.core.ranksvm import RankingRisk, RankSVMOptions, solve_ranksvm
    nq, size, n = (2000 if quick else 10_000), 20, 50
    rng = np.random.default_rng(4)
    m = nq * size
    X = rng.standard_normal((m, n))
    s = X @ rng.standard_normal(n) + rng.standard_normal(m)
    y = np.digitize(s, np.quantile(s, [0.4, 0.7, 0.85, 0.95])).astype(float)
    q = np.repeat(np.arange(nq), size)
    risk = RankingRisk(X, y, q)
    t, sol = median_time(lambda: solve_ranksvm(risk, 1e-3,
                                               options=RankSVMOptions(rtol=1e-3)), 1)
    row(f"(q) train {nq} queries x {size} docs, graded 0..4, regparam=1e-3", t,
        note=f"{sol.iterations} iterations, gap {sol.duality_gap:.1e}")
    for engine in ("fenwick", "rbtree"):
        t_ours, t_base = eval_ratio(risk, X, sol.w, repeats, engine)
        row(f"(q) loss+subgradient, {nq} queries x {size}, engine={engine}", t_ours, t_base,
            "argsort(p) + X@w + X^T g", 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--regparams", type=float, nargs="+", default=[1e-3, 1e-4],
                        help="regparams of the m = 10^6 training runs (d)")
    parser.add_argument("--only", nargs="+", default=["a", "b", "c", "q"])
    args = parser.parse_args()
    print(machine_line(), flush=True)
    print(HEADER)
    if "c" in args.only:
        bench_c(args.repeats, 1e-3)
    if "q" in args.only:
        bench_q(args.repeats, args.quick)
    if "b" in args.only:
        bench_b(args.repeats, args.quick)
    if "a" in args.only:
        bench_a_d(args.repeats, args.quick, args.regparams)
    print(f"load average now {load():.2f}", flush=True)


if __name__ == "__main__":
    main()
