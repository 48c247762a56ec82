"""Linear survival RankSVM (issue 43) against scikit-survival's FastSurvivalSVM: the
same model (squared hinge over Harrell's comparable pairs, rank_ratio=1,
fit_intercept=False, regparam = 2 / alpha with ``normalize="none"``), CPU time ratios.

Data: m rows (default 10^5) x d = 20 standard normal features, exponential survival
times with a log-linear risk (distinct times, so that scikit-survival's random
tie-breaking does not change its pair set), about 30 % censored. alpha = 1.

Rows: rlscore's squared hinge (TRON, default tol 1e-10) against FastSurvivalSVM
(optimizer "rbtree", tol 1e-8 -- scipy's newton-cg ``xtol`` -- so that both stop at
the same model), with the largest difference of the weights relative to ||w||; the
hinge (bundle method, tol 1e-3) alone for reference. Times are process CPU seconds
(one BLAS thread), the median of ``--repeats`` runs, ratio against the baseline run
in the same process; the machine is shared, so wall times are printed too.

Run:  python benchmarks/bench_survival_ranksvm.py [--m 100000] [--repeats 3]
"""

import argparse

from _timing import HEADER, limit_threads, machine_line, median_wall_cpu, row  # noqa

limit_threads()

import numpy as np  # noqa: E402


def make_data(m, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    beta = rng.normal(size=d) / np.sqrt(d)
    t_event = rng.exponential(size=m) * np.exp(-X @ beta)
    t_cens = rng.exponential(size=m) * 2.0 * np.median(t_event)
    time = np.minimum(t_event, t_cens) + 1e-9
    event = t_event <= t_cens
    return X, time, event


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=100000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--alpha", type=float, default=1.0)
    args = ap.parse_args()
    from rlscore.core.ranksvm import RankSVMOptions
    from rlscore.core.survival import train_survival_ranksvm
    X, time, event = make_data(args.m)
    print(f"m = {args.m}, d = 20, events {event.mean():.2f}; {machine_line()}")
    print(HEADER)

    def ours():
        return train_survival_ranksvm(X, time, event, 2.0 / args.alpha,
                                      options=RankSVMOptions(loss="squared_hinge",
                                                             normalize="none"))

    w_ours, c_ours, sol = median_wall_cpu(ours, args.repeats)
    try:
        from sksurv.svm import FastSurvivalSVM
        from sksurv.util import Surv
    except ImportError:
        print("scikit-survival not installed: rlscore rows only")
        row("survival RankSVM squared hinge (CPU)", c_ours)
        return
    y = Surv.from_arrays(event, time)

    def theirs():
        return FastSurvivalSVM(alpha=args.alpha, rank_ratio=1.0, fit_intercept=False,
                               optimizer="rbtree", tol=1e-8, max_iter=1000).fit(X, y)

    w_sk, c_sk, sk = median_wall_cpu(theirs, args.repeats)
    diff = np.max(np.abs(sol.w + sk.coef_)) / np.linalg.norm(sk.coef_)
    row("survival RankSVM squared hinge, CPU", c_ours, c_sk, "FastSurvivalSVM", 0.5,
        note=f"max |w - w_sk| / ||w_sk|| = {diff:.1e}; {sol.iterations} Newton steps "
             f"vs {sk.n_iter_} newton-cg")
    row("same, wall", w_ours, w_sk, "FastSurvivalSVM", 0.5)

    def hinge():
        return train_survival_ranksvm(X, time, event, 2.0 / args.alpha / sol.n_pairs,
                                      options=RankSVMOptions(loss="hinge"))

    w_h, c_h, _ = median_wall_cpu(hinge, args.repeats)
    row("survival RankSVM hinge (bundle, tol 1e-3), CPU", c_h, c_sk, "FastSurvivalSVM",
        note="a different loss: time only")


if __name__ == "__main__":
    main()
